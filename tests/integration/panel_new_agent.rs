//! The panel's New agent dialog (docs/desktop-surfaces.md#new-agent, docs/worktrees.md):
//! the real `attend daemon` on a private bus, the real `attend-panel` on Xvfb, keys typed
//! through `xdotool` (XTEST), widget state read back from `ATTEND_PANEL_DUMP`, real git.
//! Ctrl+Shift+N opens it (listed in Ctrl+?); every field has a mnemonic label; an
//! incomplete form says why; Start runs a shell in a new git worktree, which the panel
//! then shows; git's refusal (the branch is checked out already) is a toast; Escape
//! closes it.

use crate::panel;
use crate::support;

use panel::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::Env;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.invalid",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A repository `app` with one commit; its canonical path.
fn repo(env: &Env) -> PathBuf {
    let dir = env.path("app");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("README"), "hello\n").unwrap();
    git(&dir, &["add", "README"]);
    git(&dir, &["commit", "-q", "-m", "start"]);
    std::fs::canonicalize(dir).unwrap()
}

fn dialog_open(d: &Value) -> Result<(), String> {
    match d["new_agent"]["visible"] {
        Value::Bool(true) => Ok(()),
        _ => Err(format!("no dialog: {}", d["new_agent"])),
    }
}

#[test]
fn the_new_agent_dialog_starts_a_shell_in_a_new_git_worktree() {
    let env = Env::with_daemon();
    let repo = repo(&env);
    let x = Xvfb::start();
    let mut panel = Panel::start(&env, &x, &[]);
    panel.wait("online", |d| check_eq("state", text(&d["state"]), "online"));

    // Ctrl+? lists the shortcut.
    panel.keys(&["ctrl+question"]);
    let dump = panel.wait("the shortcuts window", |d| {
        match d["shortcuts"]["visible"] {
            Value::Bool(true) => Ok(()),
            _ => Err("not shown".into()),
        }
    });
    let accel = dump["shortcuts"]["shortcuts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["title"] == "Start a new agent (in a git worktree if you like)")
        .map(|s| text(&s["accelerator"]).to_string())
        .unwrap_or_else(|| panic!("not listed: {:#}", dump["shortcuts"]));
    assert!(
        accel.contains("<Control>") && accel.contains("<Shift>") && accel.ends_with(['n', 'N']),
        "{accel}"
    );
    panel.keys_to_focus(&["Escape"]);
    panel.wait("the shortcuts window closed", |d| {
        match d["shortcuts"]["visible"] {
            Value::Bool(false) => Ok(()),
            _ => Err("still shown".into()),
        }
    });

    // Ctrl+Shift+N opens the dialog; Escape closes it.
    panel.keys(&["ctrl+shift+n"]);
    let d = panel.wait("the dialog", dialog_open);
    let dialog = &d["new_agent"];
    assert_eq!(dialog["title"], "New Agent");
    let agents: Vec<&str> = dialog["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(text)
        .collect();
    assert_eq!(agents.last(), Some(&"Shell"), "{agents:?}");
    assert_eq!(
        dialog["folder"],
        env.dir.path().to_str().unwrap(),
        "the home folder"
    );
    assert_eq!(dialog["branch_sensitive"], false);
    let labels: Vec<(&str, bool)> = dialog["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (text(&l["text"]), !l["names"].is_null()))
        .collect();
    assert_eq!(
        labels,
        [
            ("Agent", true),
            ("Folder", true),
            ("Workspace", true),
            ("Name", true),
            ("Branch", true)
        ],
        "each field is named by its label"
    );
    panel.keys_to_focus(&["Escape"]);
    panel.wait("the dialog closed", |d| match &d["new_agent"] {
        Value::Null => Ok(()),
        other => Err(format!("still open: {other}")),
    });

    // Folder, then "In a new git worktree" on, then the branch; an empty branch is named.
    panel.keys(&["ctrl+shift+n"]);
    panel.wait("the dialog again", dialog_open);
    panel.keys_to_focus(&["ctrl+a"]);
    panel.type_text(repo.to_str().unwrap());
    panel.keys_to_focus(&["Tab", "Tab", "Tab", "space", "Tab", "Return"]);
    let d = panel.wait("the missing branch named", |d| {
        match d["new_agent"]["error"].as_str() {
            Some(e) if e.contains("branch") => Ok(()),
            _ => Err(format!("{}", d["new_agent"])),
        }
    });
    assert_eq!(d["new_agent"]["in_worktree"], true);
    assert_eq!(d["new_agent"]["folder"], repo.to_str().unwrap());
    panel.type_text("feature-x");
    panel.keys_to_focus(&["Return"]);
    panel.wait("the dialog closed after Start", |d| match &d["new_agent"] {
        Value::Null => Ok(()),
        other => Err(format!("still open: {other}")),
    });

    let wt = repo.parent().unwrap().join("app.worktrees/feature-x");
    let mut pane = String::new();
    env.wait_until("the new pane", || {
        let v: Value = serde_json::from_str(&env.ok(&["ls", "--json"])).unwrap();
        match v.as_array().unwrap().first() {
            Some(p) => {
                pane = text(&p["id"]).to_string();
                true
            }
            None => false,
        }
    });
    let shown = env.wait_pane(&pane, "its branch", |v| v["branch"] == "feature-x");
    assert_eq!(shown["agent"], "shell");
    assert_eq!(shown["cwd"], wt.to_str().unwrap());
    assert_eq!(shown["worktree"], wt.to_str().unwrap());
    assert_eq!(shown["repo"], "app");
    assert_eq!(git(&wt, &["symbolic-ref", "--short", "HEAD"]), "feature-x");
    panel.wait("the new pane in the detail", |d| {
        check_eq("detail", text(&d["detail"]["pane"]), &pane)
    });

    // The folder now starts at the selected pane's cwd; the same branch again is git's
    // refusal, shown as a toast, and no pane starts.
    panel.keys(&["ctrl+shift+n"]);
    let d = panel.wait("the dialog a third time", dialog_open);
    assert_eq!(d["new_agent"]["folder"], wt.to_str().unwrap());
    panel.keys_to_focus(&["ctrl+a"]);
    panel.type_text(repo.to_str().unwrap());
    panel.keys_to_focus(&["Tab", "Tab", "Tab", "space", "Tab"]);
    panel.type_text("feature-x");
    panel.keys_to_focus(&["Return"]);
    let want = format!(
        "branch feature-x is already checked out in the worktree {}",
        wt.display()
    );
    panel.wait("git's refusal as a toast", |d| {
        match d["toasts"].as_array().and_then(|t| t.last()).map(text) {
            Some(t) if t.contains(&want) => Ok(()),
            other => Err(format!("last toast {other:?}")),
        }
    });
    let v: Value = serde_json::from_str(&env.ok(&["ls", "--json"])).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1, "no second pane");
}
