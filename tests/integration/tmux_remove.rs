//! `attend rm` of a running pane followed in the user's tmux (docs/tmux.md#removing): the
//! Attend pane goes, its agent keeps running in the tmux pane, unfollowed — its hooks are
//! dropped — until another agent starts in that tmux pane, which is a new pane.

use crate::support;
use crate::tmux_support::{
    blocked_in, fake_claude_with, need_tmux, panes, server_with_a_shell, shell_again, tmux,
};

use support::Env;

#[test]
fn a_running_tmux_pane_removed_is_forgotten_until_another_agent_starts_there() {
    need_tmux();
    let mut env = Env::new();
    env.start_daemon();
    let (_server, shell) = server_with_a_shell(&env);
    let hook = std::path::PathBuf::from(support::attend_bin()).with_file_name("attend-hook");
    assert!(hook.exists(), "{} (cargo build builds it)", hook.display());
    // After its dialog the fake reads a line, then sends a Stop hook from inside the tmux
    // pane (its TMUX and TMUX_PANE, the agent among the hook's ancestors) and waits.
    let hooked = env.work_dir().join("hooked");
    let after = format!(
        "printf '%s' '{{\"hook_event_name\":\"Stop\",\"session_id\":\"s-forgotten\",\"cwd\":\"/tmp\"}}' | '{}' claude\ntouch '{}'\nsleep 600\n",
        hook.display(),
        hooked.display()
    );
    let first = env.work_dir().join("first.txt");
    let id = blocked_in(
        &env,
        &shell,
        &fake_claude_with(&env, "first", &first, "", &after),
    );
    let removed = env.ok(&["rm", &id]);
    assert_eq!(removed.trim(), id, "{removed}");
    assert!(panes(&env).is_empty(), "{:#?}", panes(&env));
    let command = |env: &Env| {
        tmux(
            env,
            &[
                "display-message",
                "-p",
                "-t",
                &shell,
                "#{pane_current_command}",
            ],
        )
        .trim()
        .to_string()
    };
    assert_eq!(command(&env), "claude", "the agent runs on");

    // Its hook is dropped: no pane comes back for it.
    tmux(&env, &["send-keys", "-t", &shell, "Enter"]);
    env.wait_until("the forgotten agent's hook sent", || hooked.exists());
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(panes(&env).is_empty(), "{:#?}", panes(&env));

    // Another agent in the same tmux pane is followed: a new pane.
    tmux(&env, &["send-keys", "-t", &shell, "C-c"]);
    shell_again(&env, &shell);
    let second = env.work_dir().join("second.txt");
    let again = blocked_in(
        &env,
        &shell,
        &fake_claude_with(&env, "second", &second, "", ""),
    );
    assert_ne!(again, id, "a new pane, never the removed id");
    assert_eq!(panes(&env).len(), 1, "{:#?}", panes(&env));
}
