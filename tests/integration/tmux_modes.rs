//! A pane followed in the user's tmux takes no keys while its tmux pane is in a mode
//! (docs/tmux.md#answers): with the tmux pane in copy-mode, `attend answer` and `attend
//! send` are refused with `PaneInMode` (exit 2, a message naming the mode), nothing is
//! typed and the decision stays open; out of copy-mode the same answer goes through.

use crate::support;
use crate::tmux_support::{blocked_in, fake_claude, need_tmux, server_with_a_shell, tmux};

use support::Env;

#[test]
fn answer_and_send_are_refused_while_the_tmux_pane_is_in_copy_mode() {
    need_tmux();
    let mut env = Env::new();
    env.start_daemon();
    let (_server, shell) = server_with_a_shell(&env);
    let out = env.work_dir().join("typed.txt");
    let id = blocked_in(&env, &shell, &fake_claude(&env, &out));

    tmux(&env, &["copy-mode", "-t", &shell]);
    assert_eq!(
        tmux(
            &env,
            &["display-message", "-p", "-t", &shell, "#{pane_in_mode}"]
        )
        .trim(),
        "1"
    );
    for args in [
        vec!["answer", id.as_str(), "allow"],
        vec!["send", id.as_str(), "x", "--enter"],
    ] {
        let r = env.attend(&args);
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "attend {args:?}: {stderr}");
        assert!(
            stderr.contains("copy-mode") && stderr.contains("nothing was typed"),
            "attend {args:?}: {stderr}"
        );
    }
    let v = env.show(&id);
    assert_eq!(v["lifecycle"], "blocked", "{v:#}");
    assert!(
        !v["pending_decision"].is_null(),
        "the decision stays open: {v:#}"
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!out.exists(), "nothing reached the agent");

    // Out of copy-mode the same answer is typed: one Down, then Enter.
    tmux(&env, &["send-keys", "-t", &shell, "-X", "cancel"]);
    env.ok(&["answer", &id, "allow"]);
    env.wait_until("the keys typed through tmux", || {
        std::fs::read_to_string(&out).is_ok_and(|s| s == "\u{1b}[B")
    });
}
