//! Panes of the user's own tmux (docs/tmux.md), on a real tmux server of the test's own
//! (`TMUX_TMPDIR` is the test's): a plain shell makes no pane; a program named like an
//! agent (a script named `claude` that draws Claude Code 2.1.332's recorded folder-trust
//! dialog) becomes a pane at once, without a hook, whose screen — seeded by
//! `capture-pane -e`, then fed by `%output` — is read by the same evidence ladder as an
//! owned pane's: `blocked / input_required` within 2 s; `attend answer` types the keys
//! the dialog's labels give through `tmux send-keys`; the agent quitting while the tmux
//! pane's shell stays makes the pane exited.

use crate::support;
use crate::tmux_support::{fake_claude, need_tmux, panes, server_with_a_shell, tmux, type_line};

use serde_json::Value;
use std::time::{Duration, Instant};
use support::Env;

#[test]
fn an_agent_in_a_tmux_pane_is_followed_and_a_plain_shell_is_not() {
    need_tmux();
    let mut env = Env::new();
    env.start_daemon();
    let (_server, shell) = server_with_a_shell(&env);
    // tmux reports each pane's command to its subscription within a second: a plain
    // shell has been looked at by now, and is no pane.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(panes(&env).is_empty(), "{:#?}", panes(&env));

    // An agent starts in the shell: a pane at once, blocked on its dialog within 2 s.
    let out = env.work_dir().join("typed.txt");
    let command = fake_claude(&env, &out);
    let started = Instant::now();
    type_line(&env, &shell, &command);
    let mut pane = Value::Null;
    let blocked = support::poll(Duration::from_secs(10), || {
        pane = panes(&env).into_iter().next().unwrap_or(Value::Null);
        pane["lifecycle"] == "blocked"
    });
    let took = started.elapsed();
    assert!(blocked, "{pane:#}\n{}", env.daemon_log());
    assert!(took < Duration::from_secs(2), "blocked after {took:?}");
    assert_eq!(pane["attention"], "input_required", "{pane:#}");
    assert_eq!(pane["agent"], "claude", "{pane:#}");
    assert_eq!(
        pane["pending_decision"]["options"],
        serde_json::json!(["No, exit", "Yes, I trust this folder"]),
        "{pane:#}"
    );
    let loc = &pane["location"];
    assert_eq!(loc["kind"], "tmux", "{pane:#}");
    assert_eq!(loc["pane"], shell.as_str(), "{pane:#}");
    assert!(
        loc["place"].as_str().unwrap().starts_with("work:0."),
        "{pane:#}"
    );
    assert_eq!(panes(&env).len(), 1, "one pane per agent");
    let id = pane["id"].as_str().unwrap().to_string();
    let x: Value = serde_json::from_str(&env.ok(&["explain", &id, "--json"])).unwrap();
    assert_eq!(x["needs_input_reason"], "folder trust", "{x:#}");

    // allow = "Yes, I trust this folder": one Down from the cursor, then Enter, typed
    // through tmux; the script reads the line and exits, the tmux pane's shell stays.
    env.ok(&["answer", &id, "allow"]);
    env.wait_until("the keys typed through tmux", || {
        std::fs::read_to_string(&out).is_ok_and(|s| s == "\u{1b}[B")
    });
    let v = env.wait_pane(&id, "exited with its agent", |v| {
        v["live"]["state"] == "exited"
    });
    assert!(v["pending_decision"].is_null(), "{v:#}");
    assert!(
        tmux(&env, &["list-panes", "-a", "-F", "#{pane_id}"]).contains(&shell),
        "the tmux pane lives on"
    );
}
