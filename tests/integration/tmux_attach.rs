//! `attend attach` of a followed tmux pane (docs/tmux.md#attach): from outside tmux it
//! runs `tmux attach-session` with the pane's window and pane selected; from inside a
//! client of the same tmux server it switches that client to the pane.

use crate::support;
use crate::tmux_support::{
    background_window, blocked_in, fake_claude, need_tmux, server_with_a_shell, tmux, type_line,
    user_client, user_panes,
};

use support::Env;

#[test]
fn attach_of_a_tmux_pane_attaches_tmux_to_it_or_switches_the_client() {
    need_tmux();
    let mut env = Env::new();
    env.start_daemon();
    let (_server, first) = server_with_a_shell(&env);
    let agent_shell = background_window(&env);
    let out = env.work_dir().join("typed.txt");
    let id = blocked_in(&env, &agent_shell, &fake_claude(&env, &out));

    // Outside tmux (a terminal of its own): tmux attaches, showing the agent's pane
    // although the session's current window is another.
    let attach = format!("'{}' attach {id}", support::attend_bin());
    let outside_attach = format!("stty cols 120 rows 40; {attach}");
    let mut outside = env
        .program("script")
        .args(["-qfec", &outside_attach, "/dev/null"])
        .current_dir(env.work_dir())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    env.wait_until("a client attached on the agent's pane", || {
        user_panes(&env) == vec![agent_shell.clone()]
    });
    let _ = outside.kill();
    let _ = outside.wait();
    env.wait_until("the client gone", || user_panes(&env).is_empty());

    // Inside a client of the same server, on another session: that client switches.
    tmux(
        &env,
        &[
            "new-session",
            "-d",
            "-s",
            "other",
            "-x",
            "120",
            "-y",
            "40",
            "sh",
        ],
    );
    let other_pane = tmux(
        &env,
        &["display-message", "-p", "-t", "other:", "#{pane_id}"],
    )
    .trim()
    .to_string();
    let mut client = user_client(&env, "other");
    env.wait_until("the person's client on the other session", || {
        user_panes(&env) == vec![other_pane.clone()]
    });
    tmux(&env, &["select-window", "-t", &first]);
    type_line(&env, &other_pane, &attach);
    let switched = support::poll(env.timeout, || {
        user_panes(&env) == vec![agent_shell.clone()]
    });
    assert!(
        switched,
        "the client did not switch to the agent's pane: {:?}\n{}",
        user_panes(&env),
        tmux(&env, &["capture-pane", "-p", "-t", &other_pane])
    );
    let _ = client.kill();
    let _ = client.wait();
}
