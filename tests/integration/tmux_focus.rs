//! Focus of a followed tmux pane (docs/tmux.md#focus): it is focused while it is the
//! active pane of the current window of an attached tmux client that is no control client
//! (Attend's own never count); `attend focus` selects its window and pane in tmux and
//! switches the user's client to it.

use crate::support;
use crate::tmux_support::{
    background_window, blocked_in, fake_claude, need_tmux, server_with_a_shell, tmux, user_client,
    user_panes,
};

use support::Env;

fn focused(env: &Env, id: &str) -> bool {
    env.show(id)["focused"] == true
}

#[test]
fn a_tmux_pane_a_person_looks_at_is_focused_and_attend_focus_selects_it() {
    need_tmux();
    let mut env = Env::new();
    env.start_daemon();
    let (_server, shell) = server_with_a_shell(&env);
    let other = background_window(&env);
    let out = env.work_dir().join("typed.txt");
    let id = blocked_in(&env, &shell, &fake_claude(&env, &out));

    // Only Attend's control client is attached, and its session's current window shows
    // the agent: nobody looks.
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(!focused(&env, &id), "{:#}", env.show(&id));

    // A person attaches: they look at it.
    let mut client = user_client(&env, "work");
    env.wait_pane(&id, "focused by the person's client", |v| {
        v["focused"] == true
    });
    // They look at another window: no longer.
    tmux(&env, &["select-window", "-t", &other]);
    env.wait_pane(&id, "unfocused when the client shows another window", |v| {
        v["focused"] == false
    });
    assert_eq!(user_panes(&env), vec![other.clone()]);

    // `attend focus` selects the agent's window and pane in that client.
    env.ok(&["focus", &id]);
    env.wait_until("the client shows the agent's pane", || {
        user_panes(&env) == vec![shell.clone()]
    });
    let v = env.wait_pane(&id, "focused again", |v| v["focused"] == true);
    assert_eq!(
        v["attention"], "input_required",
        "the decision stays: {v:#}"
    );

    // The person's terminal closes (its client detaches): nobody looks.
    let _ = client.kill();
    let _ = client.wait();
    env.wait_pane(&id, "unfocused when the client detached", |v| {
        v["focused"] == false
    });
}
