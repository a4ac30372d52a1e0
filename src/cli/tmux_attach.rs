//! `attend attach` of a pane followed in the user's tmux (`docs/tmux.md#attach`): not the
//! daemon's attach socket but tmux itself — `tmux attach-session -t %N` with the pane's
//! window and pane selected, or `switch-client -t %N` when run inside a client of the
//! same tmux server. `attend attach --watch` (the panel's terminal) always attaches a
//! client of its own, flagged `ignore-size`: it sizes the window only while no other
//! client is attached, and Attend never counts it as a person looking
//! (`docs/tmux.md#focus`).

use super::client::{CliError, EXIT_BAD_INPUT, EXIT_INTERNAL};
use std::collections::BTreeMap;
use std::process::Command;

/// How the tmux pane is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// tmux argv (after `tmux -S SOCKET`) run in order; the last one takes the terminal.
    pub steps: Vec<Vec<String>>,
    /// The last step runs with `TMUX` removed (attach from inside another server's
    /// client: a nested tmux, as the user asked for it).
    pub nested: bool,
}

/// The plan for tmux pane `pane` (`%N`) of the server at `socket`, run from a process
/// whose `TMUX` is `inside` (`socket,pid,session`; `None` outside tmux): select its window
/// and pane, then switch the current client (`client`, [`own_client`]) to it when inside
/// a client of the same server, else attach to it. With `watch` it always attaches a
/// client of its own with `-f ignore-size` (nested when inside any tmux).
pub fn plan(
    socket: &str,
    pane: &str,
    inside: Option<&str>,
    client: Option<&str>,
    watch: bool,
) -> Plan {
    let step = |verb: &str| vec![verb.to_string(), "-t".to_string(), pane.to_string()];
    let own = inside.and_then(|t| t.split(',').next());
    if watch {
        let attach = ["attach-session", "-f", "ignore-size", "-t", pane];
        return Plan {
            steps: vec![
                step("select-window"),
                step("select-pane"),
                attach.map(str::to_string).to_vec(),
            ],
            nested: own.is_some(),
        };
    }
    let same = own == Some(socket);
    let last = match client.filter(|_| same) {
        // Named: without `-c`, tmux may pick a control client of the session.
        Some(c) => vec![
            "switch-client".to_string(),
            "-c".to_string(),
            c.to_string(),
            "-t".to_string(),
            pane.to_string(),
        ],
        None if same => step("switch-client"),
        None => step("attach-session"),
    };
    Plan {
        steps: vec![step("select-window"), step("select-pane"), last],
        nested: own.is_some() && !same,
    }
}

/// Runs the plan for a pane whose `location` (the `location` dictionary of `GetPane`)
/// is a tmux one (`watch`: see [`plan`]); its exit status is the last step's. Errors: the
/// location is no tmux one, tmux cannot run, a selecting step failed.
pub fn run(name: &str, location: &BTreeMap<String, String>, watch: bool) -> Result<i32, CliError> {
    let (Some(socket), Some(pane)) = (location.get("socket"), location.get("pane")) else {
        return Err(CliError::new(
            EXIT_INTERNAL,
            format!("attach {name}: its tmux location is incomplete"),
        ));
    };
    let inside = std::env::var("TMUX").ok();
    let client = inside
        .as_deref()
        .filter(|_| !watch)
        .and_then(|t| own_client(socket, t));
    let plan = plan(socket, pane, inside.as_deref(), client.as_deref(), watch);
    let n = plan.steps.len();
    for (i, args) in plan.steps.iter().enumerate() {
        let mut c = Command::new("tmux");
        c.arg("-S").arg(socket).args(args);
        let last = i + 1 == n;
        if last && plan.nested {
            c.env_remove("TMUX").env_remove("TMUX_PANE");
        }
        let status = c.status().map_err(|e| {
            CliError::new(
                EXIT_INTERNAL,
                format!("attach {name}: cannot run tmux: {e}"),
            )
        })?;
        if last {
            return Ok(status.code().unwrap_or(EXIT_INTERNAL));
        }
        if !status.success() {
            return Err(CliError::new(
                EXIT_BAD_INPUT,
                format!("attach {name}: tmux cannot select {pane} (is it gone?)"),
            ));
        }
    }
    Ok(0)
}

/// The person's client this process runs under (`TMUX` = `inside`): the attached client
/// that is no control client (Attend's own are attached to every session) of the session
/// `inside` names, used last; else of any session. `None` when tmux cannot say.
fn own_client(socket: &str, inside: &str) -> Option<String> {
    let session = format!("${}", inside.rsplit(',').next()?);
    // `-u`: without a UTF-8 locale (an ssh login without `LANG`) tmux would print the
    // tabs between the fields as `_`.
    let out = Command::new("tmux")
        .args(["-u", "-S"])
        .arg(socket)
        .args([
            "list-clients",
            "-F",
            "#{client_control_mode}\t#{client_activity}\t#{client_name}\t#{session_id}",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    pick_client(&String::from_utf8_lossy(&out.stdout), &session)
}

/// From `list-clients` lines (control mode, activity, name, session id): the client that
/// is no control client, in `session` if any is, used last.
fn pick_client(listed: &str, session: &str) -> Option<String> {
    let people: Vec<(bool, u64, &str)> = listed
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let [control, activity, name, sid] = f.as_slice() else {
                return None;
            };
            (*control == "0").then(|| (*sid == session, activity.parse().unwrap_or(0), *name))
        })
        .collect();
    people
        .iter()
        .max_by_key(|(here, activity, _)| (*here, *activity))
        .map(|(_, _, name)| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(p: &Plan) -> Vec<String> {
        p.steps.iter().map(|s| s.join(" ")).collect()
    }

    #[test]
    fn outside_tmux_it_attaches_and_inside_the_same_server_it_switches() {
        let out = plan("/tmp/tmux-1/default", "%3", None, None, false);
        assert_eq!(
            argv(&out),
            [
                "select-window -t %3",
                "select-pane -t %3",
                "attach-session -t %3"
            ]
        );
        assert!(!out.nested);
        let same = plan(
            "/tmp/tmux-1/default",
            "%3",
            Some("/tmp/tmux-1/default,42,0"),
            None,
            false,
        );
        assert_eq!(argv(&same)[2], "switch-client -t %3");
        assert!(!same.nested);
        let other = plan(
            "/tmp/tmux-1/default",
            "%3",
            Some("/tmp/tmux-1/work,43,1"),
            Some("/dev/pts/4"),
            false,
        );
        assert_eq!(argv(&other)[2], "attach-session -t %3");
        assert!(other.nested);
    }

    #[test]
    fn a_watch_always_attaches_a_client_of_its_own_that_ignores_size() {
        for inside in [None, Some("/tmp/tmux-1/default,42,0"), Some("/tmp/x,1,0")] {
            let p = plan(
                "/tmp/tmux-1/default",
                "%3",
                inside,
                Some("/dev/pts/4"),
                true,
            );
            assert_eq!(
                argv(&p)[2],
                "attach-session -f ignore-size -t %3",
                "{inside:?}"
            );
            assert_eq!(p.nested, inside.is_some(), "{inside:?}");
        }
    }

    #[test]
    fn the_own_client_is_a_persons_in_the_same_session_never_a_control_client() {
        let listed = "1\t900\tclient-7\t$1\n0\t500\t/dev/pts/4\t$1\n0\t800\t/dev/pts/9\t$0\n";
        assert_eq!(pick_client(listed, "$1").as_deref(), Some("/dev/pts/4"));
        assert_eq!(pick_client(listed, "$5").as_deref(), Some("/dev/pts/9"));
        assert_eq!(pick_client("1\t900\tclient-7\t$1\n", "$1"), None);
    }
}
