//! Panes followed in the user's tmux across a daemon restart (docs/tmux.md#exit), on a
//! real tmux server of the test's own and the real notification server (`dunst` under
//! Xvfb): `kill -9` of the daemon at an open decision, then a new daemon follows the
//! same tmux pane as the same Attend pane, the decision still open and answerable
//! through `send-keys`, and no second notification; when the agent ended while no daemon
//! ran, the pane reads exited and its decision is dropped. Also a daemon started inside
//! tmux: the panes it runs are its own, never tmux panes.

use crate::desktop::{Desk, NotifyCalls};
use crate::support;
use crate::tmux_support::{
    blocked_in, fake_claude, fake_claude_with, need_tmux, panes, server_with_a_shell, tmux, Server,
};

use serde_json::Value;
use std::time::Duration;

/// A notifying daemon; a tmux server whose shell runs the fake Claude, blocked on its
/// folder-trust dialog and notified once. Returns the tmux pane, the Attend pane, the
/// file the fake writes the line it reads into, the `Notify` monitor and the tmux
/// server's guard.
fn blocked_and_notified() -> (
    Desk,
    String,
    String,
    std::path::PathBuf,
    NotifyCalls,
    Server,
) {
    need_tmux();
    let mut env = Desk::with_display();
    env.start_dunst();
    let calls = NotifyCalls::start(&env);
    env.start_daemon(&["--no-tray"]);
    let (server, shell) = server_with_a_shell(&env);
    let out = env.work_dir().join("typed.txt");
    let command = fake_claude(&env, &out);
    let id = blocked_in(&env, &shell, &command);
    env.wait_until("the decision's notification", || {
        env.displayed() == 1 && !calls.calls().is_empty()
    });
    (env, shell, id, out, calls, server)
}

/// The events of pane `id` after `seq`.
fn events_after(env: &Desk, id: &str, seq: u64) -> Vec<Value> {
    env.events()
        .into_iter()
        .filter(|e| e["pane"] == id && e["seq"].as_u64().unwrap_or(0) > seq)
        .collect()
}

#[test]
fn after_a_kill_of_the_daemon_the_tmux_pane_is_followed_again_with_its_decision_open() {
    let (mut env, shell, id, out, calls, _server) = blocked_and_notified();
    let before = env.show(&id);
    let seq = env.events().last().unwrap()["seq"].as_u64().unwrap();
    let notified = calls.calls().len();
    env.kill_daemon();
    env.start_daemon(&["--no-tray"]);
    env.wait_until("the tmux pane followed again", || {
        tmux(&env, &["list-clients", "-F", "#{client_control_mode}"]).contains('1')
            && env
                .attend1()
                .get_screen(&id)
                .is_ok_and(|s| s.contains("trust this folder"))
    });
    // The killed daemon's control client ended with it: one control client, the new
    // daemon's.
    env.wait_until("the killed daemon's control client gone", || {
        tmux(&env, &["list-clients", "-F", "#{client_control_mode}"])
            .lines()
            .filter(|l| *l == "1")
            .count()
            == 1
    });
    let v = env.show(&id);
    assert_eq!(v["live"]["state"], "running", "{v:#}");
    assert_eq!(v["lifecycle"], "blocked", "{v:#}");
    assert_eq!(v["location"]["pane"], shell.as_str(), "{v:#}");
    assert_eq!(
        v["pending_decision"]["id"], before["pending_decision"]["id"],
        "the same decision: {v:#}"
    );
    assert_eq!(panes(&env).len(), 1, "{:#?}", panes(&env));
    // Nothing re-raised: no new decision, attention or notification.
    std::thread::sleep(Duration::from_millis(1500));
    let kinds: Vec<Value> = events_after(&env, &id, seq)
        .iter()
        .map(|e| e["kind"].clone())
        .collect();
    assert!(
        !kinds
            .iter()
            .any(|k| k == "decision.opened" || k == "attention.created"),
        "{kinds:?}"
    );
    assert_eq!(calls.calls().len(), notified, "no second notification");
    assert_eq!(env.displayed(), 1);
    // Answerable: typed through tmux.
    env.ok(&["answer", &id, "allow"]);
    env.wait_until("the keys typed through tmux", || {
        std::fs::read_to_string(&out).is_ok_and(|s| s == "\u{1b}[B")
    });
    let v = env.wait_pane(&id, "exited with its agent", |v| {
        v["live"]["state"] == "exited"
    });
    assert!(v["pending_decision"].is_null(), "{v:#}");
}

/// The user answers the dialog in tmux while no daemon runs and the agent goes on: the
/// new daemon's first reading of the screen (no dialog) dismisses the restored decision,
/// so the pane is not left `blocked` with a decision whose dialog is gone (an answer to
/// it would type a stray key).
#[test]
fn after_a_kill_of_the_daemon_a_dialog_answered_in_tmux_meanwhile_is_dismissed() {
    need_tmux();
    let mut env = Desk::with_display();
    env.start_daemon(&["--no-tray"]);
    let (_server, shell) = server_with_a_shell(&env);
    let out = env.work_dir().join("typed.txt");
    let after = "printf '\\033[H\\033[2J'\necho 'working on it'\nsleep 600\n";
    let command = fake_claude_with(&env, "goes-on", &out, "", after);
    let id = blocked_in(&env, &shell, &command);
    env.kill_daemon();
    tmux(&env, &["send-keys", "-t", &shell, "x", "Enter"]);
    env.wait_until("the answer read while no daemon ran", || out.exists());
    env.start_daemon(&["--no-tray"]);
    let v = env.wait_pane(&id, "the restored decision dismissed", |v| {
        v["pending_decision"].is_null()
    });
    assert_eq!(v["live"]["state"], "running", "{v:#}");
    assert_eq!(v["lifecycle"], "idle", "{v:#}");
    assert_ne!(v["attention"], "input_required", "{v:#}");
    let resolved: Vec<Value> = events_after(&env, &id, 0)
        .into_iter()
        .filter(|e| e["kind"] == "decision.resolved")
        .collect();
    assert_eq!(resolved.len(), 1, "{resolved:?}");
    assert_eq!(resolved[0]["how"], "dismissed", "{resolved:?}");
    assert_eq!(panes(&env).len(), 1, "{:#?}", panes(&env));
}

#[test]
fn after_a_kill_of_the_daemon_a_tmux_pane_whose_agent_ended_meanwhile_is_exited() {
    let (mut env, shell, id, out, _calls, _server) = blocked_and_notified();
    env.kill_daemon();
    // The user answers in tmux while no daemon runs: the fake reads its line and quits;
    // the tmux pane's shell stays.
    tmux(&env, &["send-keys", "-t", &shell, "x", "Enter"]);
    support::poll(Duration::from_secs(10), || out.exists());
    env.start_daemon(&["--no-tray"]);
    let v = env.wait_pane(&id, "exited", |v| v["live"]["state"] == "exited");
    assert!(
        v["pending_decision"].is_null(),
        "the decision dropped: {v:#}"
    );
    assert_ne!(v["attention"], "input_required", "{v:#}");
    assert_eq!(panes(&env).len(), 1, "{:#?}", panes(&env));
}

#[test]
fn after_a_kill_of_the_daemon_a_tmux_pane_that_went_meanwhile_is_exited() {
    let (mut env, shell, id, _out, _calls, _server) = blocked_and_notified();
    env.kill_daemon();
    tmux(&env, &["split-window", "-d", "-t", &shell, "sh"]);
    tmux(&env, &["kill-pane", "-t", &shell]);
    env.start_daemon(&["--no-tray"]);
    let v = env.wait_pane(&id, "exited", |v| v["live"]["state"] == "exited");
    assert!(
        v["pending_decision"].is_null(),
        "the decision dropped: {v:#}"
    );
}
