//! A followed tmux pane resized after following began keeps a correct screen
//! (docs/tmux.md#resize): `%layout-change` gives its new size, its screen takes it and is
//! drawn again from a capture, so what the agent prints next wraps as in tmux.

use crate::support;
use crate::tmux_support::{fake_claude_with, need_tmux, panes, server_with_a_shell, tmux};

use serde_json::Value;
use support::Env;

/// The lines of tmux pane `pane`'s screen, trailing blanks and empty last lines dropped.
fn tmux_screen(env: &Env, pane: &str) -> Vec<String> {
    trimmed(&tmux(env, &["capture-pane", "-p", "-t", pane]))
}

fn trimmed(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

#[test]
fn a_followed_pane_resized_later_keeps_the_screen_tmux_shows() {
    need_tmux();
    let mut env = Env::new();
    env.start_daemon();
    let (_server, shell) = server_with_a_shell(&env);
    // An agent that, after its dialog, writes an X at row 1, column 70 for each line it
    // reads (tmux keeps the cursor inside the pane: column 60 once it is 60 wide).
    let out = env.work_dir().join("typed.txt");
    let after = "while IFS= read -r k; do printf '\\033[1;70HX'; done\n";
    let command = fake_claude_with(&env, "wide", &out, "", after);
    crate::tmux_support::type_line(&env, &shell, &command);
    let mut pane = Value::Null;
    let found = support::poll(std::time::Duration::from_secs(10), || {
        pane = panes(&env).into_iter().next().unwrap_or(Value::Null);
        pane["lifecycle"] == "blocked"
    });
    assert!(found, "{pane:#}\n{}", env.daemon_log());
    let id = pane["id"].as_str().unwrap().to_string();
    tmux(&env, &["send-keys", "-t", &shell, "Enter"]);

    // The window shrinks to 60×20: tmux reflows the dialog and clamps the X to column 60;
    // Attend's screen must be the same.
    tmux(
        &env,
        &["resize-window", "-t", "work", "-x", "60", "-y", "20"],
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    tmux(&env, &["send-keys", "-t", &shell, "Enter"]);
    let want = |env: &Env| tmux_screen(env, &shell);
    let mut got = Vec::new();
    let same = support::poll(std::time::Duration::from_secs(5), || {
        got = trimmed(&env.attend1().get_screen(&id).unwrap());
        got == want(&env) && got.first().is_some_and(|l| l.ends_with('X'))
    });
    assert!(
        same,
        "Attend's screen:\n{}\ntmux's:\n{}\n{}",
        got.join("\n"),
        want(&env).join("\n"),
        env.daemon_log()
    );
}
