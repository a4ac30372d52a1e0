//! A daemon started inside the user's tmux (docs/tmux.md#configuration): it follows its
//! own server, yet the panes it runs itself — started with `attend run` typed in another
//! pane of that server — are owned panes, one each, never mistaken for tmux panes; their
//! programs get neither the daemon's nor the typing pane's `TMUX`/`TMUX_PANE`.

use crate::support;
use crate::tmux_support::{fake_claude_with, need_tmux, panes, tmux, type_line, Server};

use std::time::Duration;
use support::Env;

#[test]
fn the_panes_a_daemon_inside_tmux_runs_are_owned_panes_not_tmux_panes() {
    need_tmux();
    let env = Env::new();
    // The daemon runs in the first pane of the user's tmux; a shell in a second.
    let log = env.path("daemon-in-tmux.log");
    let daemon = format!(
        "RUST_LOG=info,attend=debug exec '{}' daemon --no-tray --no-notifications 2>'{}'",
        support::attend_bin(),
        log.display()
    );
    tmux(
        &env,
        &[
            "new-session",
            "-d",
            "-s",
            "home",
            "-x",
            "120",
            "-y",
            "40",
            "sh",
            "-c",
            &daemon,
        ],
    );
    let _server = Server::of(&env);
    let log_text = || std::fs::read_to_string(&log).unwrap_or_default();
    let up = support::poll(Duration::from_secs(90), || {
        log_text().contains("attend daemon ready")
    });
    assert!(up, "the daemon in tmux did not start:\n{}", log_text());
    let shell = tmux(
        &env,
        &[
            "new-window",
            "-d",
            "-t",
            "home",
            "-P",
            "-F",
            "#{pane_id}",
            "sh",
        ],
    )
    .trim()
    .to_string();
    // The daemon's own server is followed (its `TMUX`).
    env.wait_until("the daemon's control client attached", || {
        tmux(&env, &["list-clients", "-F", "#{client_control_mode}"]).contains('1')
    });

    // In the second pane the user runs an agent in Attend: `attend run` (which passes
    // its environment on, as a terminal tab would).
    let out = env.work_dir().join("typed.txt");
    let seen = env.work_dir().join("tmux-env.txt");
    let before = format!(
        "printf '%s|%s' \"$TMUX\" \"$TMUX_PANE\" > '{}'\n",
        seen.display()
    );
    let claude = fake_claude_with(&env, "inside", &out, &before, "sleep 30\n");
    // Through `sh -c … exec`: Attend gives a program named `claude` its hook settings
    // as arguments, which the fake (a shell) would take for its own.
    let run = format!(
        "'{}' run --agent claude -- sh -c 'exec {claude}'",
        support::attend_bin()
    );
    type_line(&env, &shell, &run);
    let mut all = Vec::new();
    let blocked = support::poll(Duration::from_secs(20), || {
        all = panes(&env);
        all.iter().any(|p| p["lifecycle"] == "blocked")
    });
    assert!(blocked, "{all:#?}\n{}", log_text());
    // tmux reports a pane's command within a second: the follower has looked by now.
    std::thread::sleep(Duration::from_millis(2500));
    let all = panes(&env);
    assert_eq!(all.len(), 1, "one pane: {all:#?}\n{}", log_text());
    assert_eq!(all[0]["owned"], true, "{all:#?}");
    assert_eq!(all[0]["location"]["kind"], "owned", "{all:#?}");
    assert_eq!(
        std::fs::read_to_string(&seen).unwrap_or_default(),
        "|",
        "the program runs in Attend's terminal, not in a tmux pane"
    );
}
