//! A followed tmux pane that goes ends its Attend pane (docs/tmux.md#exit), even when its
//! agent outlives it (here an agent that ignores SIGHUP, as a terminal's close sends):
//! `tmux kill-pane` at an open decision makes the pane exited with its decision dropped;
//! the tmux server's end makes every pane followed in it exited. The status is unknown
//! (no code, no signal), which is no failure.

use crate::support;
use crate::tmux_support::{
    blocked_in, fake_claude, fake_claude_with, need_tmux, panes, server_with_a_shell, tmux,
    tmux_pid, Server, WORK_SESSION,
};

use serde_json::Value;
use support::Env;

/// An agent that ignores SIGHUP and, once its terminal is gone, lives on as `sleep`;
/// its pid is written to `NAME.pid`. The command line to type.
fn stubborn_claude(env: &Env, name: &str) -> String {
    let pid = env.work_dir().join(format!("{name}.pid"));
    let before = format!("trap '' HUP\necho $$ > '{}'\n", pid.display());
    let out = env.work_dir().join(format!("{name}.txt"));
    fake_claude_with(env, name, &out, &before, "exec sleep 600\n")
}

/// Ends the agents of [`stubborn_claude`] named here when dropped (they outlive tmux).
struct Stubborn(std::path::PathBuf, &'static [&'static str]);

impl Drop for Stubborn {
    fn drop(&mut self) {
        for name in self.1 {
            if let Ok(pid) = std::fs::read_to_string(self.0.join(format!("{name}.pid"))) {
                let _ = std::process::Command::new("kill")
                    .args(["-KILL", pid.trim()])
                    .status();
            }
        }
    }
}

/// Exited with an unknown status, no failure, no open decision.
fn exited_unknown(v: &Value) -> bool {
    v["live"]["state"] == "exited"
        && v["live"]["code"].is_null()
        && v["live"]["signal"].is_null()
        && v["lifecycle"] != "failed"
        && v["pending_decision"].is_null()
}

#[test]
fn a_killed_tmux_pane_and_the_servers_end_make_their_panes_exited() {
    need_tmux();
    let mut env = Env::new();
    env.start_daemon();
    let (_server, first) = server_with_a_shell(&env);
    // Each in a window of its own (the whole 120×40 for the dialog).
    let window = |env: &Env| -> String {
        tmux(
            env,
            &[
                "new-window",
                "-d",
                "-t",
                "work",
                "-P",
                "-F",
                "#{pane_id}",
                "sh",
            ],
        )
        .trim()
        .to_string()
    };
    let _agents = Stubborn(env.work_dir(), &["a", "b"]);
    let second = window(&env);
    let _spare = window(&env);
    let a = blocked_in(&env, &first, &stubborn_claude(&env, "a"));
    let b = blocked_in(&env, &second, &stubborn_claude(&env, "b"));
    assert_ne!(a, b);

    // kill-pane at an open decision (its window closes with it): exited, the decision
    // dropped; the other goes on.
    tmux(&env, &["kill-pane", "-t", &first]);
    let v = env.wait_pane(&a, "exited with its tmux pane", exited_unknown);
    assert_eq!(v["lifecycle"], "done", "{v:#}");
    assert_eq!(v["attention"], "unread", "{v:#}");
    let v = env.show(&b);
    assert_eq!(v["live"]["state"], "running", "{v:#}");
    assert_eq!(v["lifecycle"], "blocked", "{v:#}");

    // The server's end: every pane followed in it exited.
    tmux(&env, &["kill-server"]);
    env.wait_pane(&b, "exited with its tmux server", exited_unknown);
}

/// `tmux -S SOCKET ARGS` with the test's environment; its stdout. Panics when tmux fails.
fn tmux_at(env: &Env, socket: &std::path::Path, args: &[&str]) -> String {
    let out = env
        .program("tmux")
        .arg("-f")
        .arg("/dev/null")
        .arg("-S")
        .arg(socket)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "tmux -S {} {args:?}: {}",
        socket.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A server on the socket `[tmux] sockets` names, its pane running the fake Claude at
/// its dialog: its guard, once the pane it made is blocked. Returns the guard and the
/// Attend pane's id.
fn configured_server_at_a_dialog(
    env: &Env,
    socket: &std::path::Path,
    out: &std::path::Path,
) -> (Server, String) {
    let shell = tmux_at(env, socket, &WORK_SESSION);
    let shell = shell.trim().to_string();
    let mut kill = env.program("tmux");
    kill.arg("-S").arg(socket).arg("kill-server");
    let guard = Server::with(kill, tmux_pid(env.program("tmux").arg("-S").arg(socket)));
    tmux_at(
        env,
        socket,
        &["send-keys", "-t", &shell, "-l", &fake_claude(env, out)],
    );
    tmux_at(env, socket, &["send-keys", "-t", &shell, "Enter"]);
    let mut pane = Value::Null;
    let blocked = support::poll(std::time::Duration::from_secs(10), || {
        pane = panes(env)
            .into_iter()
            .find(|p| {
                p["location"]["socket"] == socket.to_str().unwrap()
                    && p["live"]["state"] == "running"
            })
            .unwrap_or(Value::Null);
        pane["lifecycle"] == "blocked"
    });
    assert!(blocked, "{pane:#}\n{}", env.daemon_log());
    (guard, pane["id"].as_str().unwrap().to_string())
}

#[test]
fn a_configured_server_that_ends_and_starts_again_is_followed_again() {
    need_tmux();
    let mut env = Env::new();
    let socket = env.path("servers/work.sock");
    std::fs::create_dir_all(socket.parent().unwrap()).unwrap();
    let config = env.path("config");
    std::fs::create_dir_all(config.join("attend")).unwrap();
    std::fs::write(
        config.join("attend/config.toml"),
        format!("[tmux]\nsockets = [\"{}\"]\n", socket.display()),
    )
    .unwrap();
    env.start_daemon_with(&[], &[("XDG_CONFIG_HOME", config.to_str().unwrap())]);

    let (server, first) =
        configured_server_at_a_dialog(&env, &socket, &env.work_dir().join("first.txt"));
    tmux_at(&env, &socket, &["kill-server"]);
    drop(server);
    env.wait_pane(&first, "exited with its tmux server", exited_unknown);

    // The same socket again: no hook names it; its directory's watch finds it.
    let (_server, second) =
        configured_server_at_a_dialog(&env, &socket, &env.work_dir().join("second.txt"));
    assert_ne!(first, second);
}
