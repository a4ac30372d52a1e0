//! A tmux pane is one seat (docs/tmux.md#exit, docs/taxonomy.md#handover): the agent
//! quits and the pane's shell stays, so the Attend pane is exited; a new agent started
//! later in that same tmux pane hands the same Attend pane over (`pane.changed`, then
//! `pane.handover`; running again, its new dialog read) rather than making a second one.

use crate::support;
use crate::tmux_support::{
    blocked_in, fake_claude_with, need_tmux, panes, server_with_a_shell, shell_again,
};

use support::Env;

#[test]
fn a_new_agent_in_the_same_tmux_pane_hands_the_exited_pane_over() {
    need_tmux();
    let mut env = Env::new();
    env.start_daemon();
    let (_server, shell) = server_with_a_shell(&env);
    let first = env.work_dir().join("first.txt");
    let id = blocked_in(
        &env,
        &shell,
        &fake_claude_with(&env, "first", &first, "", ""),
    );
    env.ok(&["answer", &id, "allow"]);
    env.wait_pane(&id, "exited with its agent", |v| {
        v["live"]["state"] == "exited"
    });
    shell_again(&env, &shell);
    assert!(first.exists());

    let second = env.work_dir().join("second.txt");
    let again = blocked_in(
        &env,
        &shell,
        &fake_claude_with(&env, "second", &second, "", ""),
    );
    assert_eq!(again, id, "the same seat");
    assert_eq!(panes(&env).len(), 1, "{:#?}", panes(&env));
    let v = env.show(&id);
    assert_eq!(v["live"]["state"], "running", "{v:#}");
    assert_eq!(v["attention"], "input_required", "{v:#}");
    let events: Vec<String> = env
        .events()
        .into_iter()
        .filter(|e| e["pane"] == id.as_str())
        .map(|e| e["kind"].as_str().unwrap_or_default().to_string())
        .collect();
    let exited = events.iter().position(|k| k == "pane.exited").unwrap();
    let handover = events.iter().position(|k| k == "pane.handover");
    assert!(
        handover.is_some_and(|h| h > exited && events[h - 1] == "pane.changed"),
        "{events:?}"
    );
    assert_eq!(events.iter().filter(|k| *k == "pane.added").count(), 1);

    // The new occupant is answered like the first.
    env.ok(&["answer", &id, "allow"]);
    env.wait_until("the keys typed through tmux", || {
        std::fs::read_to_string(&second).is_ok_and(|s| s == "\u{1b}[B")
    });
}

#[test]
fn a_new_agent_whose_hook_comes_first_hands_the_exited_pane_over_too() {
    need_tmux();
    let mut env = Env::new();
    env.start_daemon();
    let (_server, shell) = server_with_a_shell(&env);
    let first = env.work_dir().join("first.txt");
    let id = blocked_in(
        &env,
        &shell,
        &fake_claude_with(&env, "first", &first, "", ""),
    );
    env.ok(&["answer", &id, "allow"]);
    env.wait_pane(&id, "exited with its agent", |v| {
        v["live"]["state"] == "exited"
    });
    shell_again(&env, &shell);

    // The new agent's SessionStart reaches Attend at once, before the follower notices
    // the new program (tmux looks once a second): its `TMUX` and `TMUX_PANE` name the seat.
    let hook = format!(
        "printf '%s' '{{\"session_id\":\"s2\",\"cwd\":\"/tmp\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}}' | '{}' hook claude\n",
        support::attend_bin()
    );
    let second = env.work_dir().join("second.txt");
    let again = blocked_in(
        &env,
        &shell,
        &fake_claude_with(&env, "second", &second, &hook, ""),
    );
    assert_eq!(again, id, "the same seat");
    assert_eq!(panes(&env).len(), 1, "{:#?}", panes(&env));
    let v = env.show(&id);
    assert_eq!(v["session_id"], "s2", "{v:#}");
    let handovers = env
        .events()
        .into_iter()
        .filter(|e| e["pane"] == id.as_str() && e["kind"] == "pane.handover")
        .count();
    assert_eq!(
        handovers, 1,
        "one handover: the new session id is no second one"
    );
}
