//! The pure half of the panel's New agent dialog (`docs/desktop-surfaces.md#new-agent`):
//! which agents it offers (the installed ones of the agents' table, `data/agents.tsv`,
//! and a shell) and what a filled-in form asks the daemon to run. No GTK, no I/O: the
//! dialog (`new_agent.rs`) reads the widgets, the client thread runs the request.

use crate::model::agents;
use crate::system::worktree::plan;

/// One agent the dialog offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offered {
    /// The agent kind's name (`claude`, `shell`), sent as the pane's agent.
    pub kind: String,
    /// What the dropdown shows (`Claude Code`).
    pub label: String,
    /// The program run (`claude`; a shell: `$SHELL`, else `sh`).
    pub program: String,
}

/// The agents of the table whose program `installed` finds, in table order, then a
/// shell running `shell` (always offered).
pub fn offered(installed: impl Fn(&str) -> bool, shell: &str) -> Vec<Offered> {
    let mut out: Vec<Offered> = agents::table()
        .iter()
        .filter(|row| installed(row.binary))
        .map(|row| Offered {
            kind: row.name.to_string(),
            label: row.display.to_string(),
            program: row.binary.to_string(),
        })
        .collect();
    out.push(Offered {
        kind: "shell".into(),
        label: "Shell".into(),
        program: if shell.is_empty() { "sh" } else { shell }.to_string(),
    });
    out
}

/// What the dialog's fields hold when Start is pressed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Form {
    /// The chosen agent.
    pub agent: Option<Offered>,
    /// The folder as typed (`~/` stands for `home`).
    pub folder: String,
    /// Workspace (empty: the folder's repository, else the folder).
    pub workspace: String,
    /// Pane name (empty: the pane id).
    pub name: String,
    /// "In a new git worktree" is on.
    pub in_worktree: bool,
    /// The worktree's branch.
    pub branch: String,
}

/// A pane to start: `attend run`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRequest {
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// The agent kind's name.
    pub agent: String,
    /// The folder it runs in (absolute); with `worktree`, the repository's folder.
    pub cwd: String,
    /// The workspace, when one was typed.
    pub workspace: Option<String>,
    /// The pane's name, when one was typed.
    pub name: Option<String>,
    /// The branch of a new worktree to run in (`docs/worktrees.md`).
    pub worktree: Option<String>,
}

/// The request a filled-in form makes, or the sentence the dialog shows instead.
pub fn request(form: &Form, home: &str) -> Result<RunRequest, String> {
    let agent = form.agent.as_ref().ok_or("Choose an agent")?;
    let folder = form.folder.trim();
    let folder = match folder.strip_prefix("~/") {
        Some(rest) if !home.is_empty() => format!("{}/{rest}", home.trim_end_matches('/')),
        _ if folder == "~" => home.to_string(),
        _ => folder.to_string(),
    };
    if !folder.starts_with('/') {
        return Err("The folder must be an absolute path".into());
    }
    let worktree = if form.in_worktree {
        let branch = form.branch.trim();
        if branch.is_empty() {
            return Err("Name the branch of the new worktree".into());
        }
        plan::check_branch(branch).map_err(|e| e.to_string())?;
        Some(branch.to_string())
    } else {
        None
    };
    let given = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
    Ok(RunRequest {
        argv: vec![agent.program.clone()],
        agent: agent.kind.clone(),
        cwd: folder,
        workspace: given(&form.workspace),
        name: given(&form.name),
        worktree,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn installed_agents_are_offered_in_table_order_then_a_shell() {
        let o = offered(|b| b == "codex" || b == "claude", "/bin/bash");
        let kinds: Vec<&str> = o.iter().map(|a| a.kind.as_str()).collect();
        assert_eq!(kinds, ["claude", "codex", "shell"]);
        assert_eq!(o[0].label, "Claude Code");
        assert_eq!(o[2].program, "/bin/bash");
        let none = offered(|_| false, "");
        assert_eq!(none.len(), 1);
        assert_eq!(none[0].program, "sh");
    }

    #[test]
    fn every_offered_agent_is_a_kind_the_daemon_takes() {
        for o in offered(|_| true, "sh") {
            assert!(
                crate::model::AgentKind::parse(&o.kind).is_some(),
                "{} is no agent kind",
                o.kind
            );
        }
    }

    fn shell_form() -> Form {
        Form {
            agent: offered(|_| false, "sh").pop(),
            folder: "~/src/app".into(),
            ..Form::default()
        }
    }

    #[test]
    fn a_form_becomes_a_run_request() {
        let r = request(&shell_form(), "/home/me").unwrap();
        assert_eq!(r.argv, ["sh"]);
        assert_eq!(
            (r.agent.as_str(), r.cwd.as_str()),
            ("shell", "/home/me/src/app")
        );
        assert_eq!((r.workspace, r.name, r.worktree), (None, None, None));
        let f = Form {
            workspace: " ws ".into(),
            name: "n".into(),
            in_worktree: true,
            branch: " feature/x ".into(),
            ..shell_form()
        };
        let r = request(&f, "/home/me").unwrap();
        assert_eq!(r.workspace.as_deref(), Some("ws"));
        assert_eq!(r.name.as_deref(), Some("n"));
        assert_eq!(r.worktree.as_deref(), Some("feature/x"));
        let off = Form {
            branch: "ignored".into(),
            ..shell_form()
        };
        assert_eq!(request(&off, "/h").unwrap().worktree, None);
    }

    #[test]
    fn an_incomplete_form_says_what_is_missing() {
        let e = |f: Form| request(&f, "/home/me").unwrap_err();
        assert_eq!(
            e(Form {
                agent: None,
                ..shell_form()
            }),
            "Choose an agent"
        );
        assert!(e(Form {
            folder: "src".into(),
            ..shell_form()
        })
        .contains("absolute"));
        assert!(e(Form {
            in_worktree: true,
            ..shell_form()
        })
        .contains("branch"));
        assert!(e(Form {
            in_worktree: true,
            branch: "-x".into(),
            ..shell_form()
        })
        .contains("not a branch name"));
    }
}
