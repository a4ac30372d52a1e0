//! A tmux server whose socket appears before its first session (docs/tmux.md#what-is-followed):
//! the daemon asks for its sessions with plain clients until it has one, then follows the
//! session; no control client attaches before that (tmux 3.3a's server crashed when one
//! attached to no session was connected while its first `new-session` ran).

use crate::support;
use crate::tmux_support::{need_tmux, tmux};

use support::Env;

/// Kills the test's tmux server when dropped (it lives without sessions).
struct Server<'a>(&'a Env);

impl Drop for Server<'_> {
    fn drop(&mut self) {
        let _ = self.0.program("tmux").arg("kill-server").output();
    }
}

/// The command lines of `pid`'s children that run a tmux control client (`tmux … -C …`).
fn control_clients(pid: u32) -> Vec<String> {
    support::pids()
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| {
                s.rsplit(')')
                    .next()
                    .and_then(|rest| rest.split_whitespace().nth(1))
                    == Some(pid.to_string().as_str())
            })
        })
        .filter_map(|p| std::fs::read(format!("/proc/{p}/cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.starts_with("tmux ") && c.contains(" -C "))
        .collect()
}

#[test]
fn a_server_found_before_its_first_session_is_followed_when_it_makes_one() {
    need_tmux();
    let mut env = Env::new();
    let daemon = env.start_daemon();
    // A server that lives without a session (`exit-empty off`): its socket appears in
    // the watched directory, and it has no session yet.
    let conf = env.path("tmux.conf");
    std::fs::write(&conf, "set -g exit-empty off\n").unwrap();
    let started = env
        .program("tmux")
        .arg("-f")
        .arg(&conf)
        .arg("start-server")
        .status()
        .unwrap();
    assert!(started.success());
    let _server = Server(&env);
    // For half a second the daemon asks (plain clients that end at once) and runs no
    // control client.
    for _ in 0..10 {
        std::thread::sleep(std::time::Duration::from_millis(50));
        let running = control_clients(daemon);
        assert!(
            running.is_empty(),
            "a control client before the first session: {running:?}"
        );
    }
    tmux(&env, &["new-session", "-d", "-s", "work", "sh"]);
    env.wait_until("the daemon's control client attached", || {
        tmux(&env, &["list-clients", "-F", "#{client_control_mode}"]).contains('1')
    });
}

/// The user's `tmux new-session` starts its server while the daemon follows the socket
/// directory: 30 servers started one after the other on the default socket, each
/// followed, then ended, all start but at most one. Beside a control client attached to
/// no session (Attend until 2026-12-07) 24 of 150 crashed ("server exited unexpectedly"):
/// 4.8 of 30 expected, and this test fails on that in about 96 runs of 100. tmux 3.3a's
/// server also segfaults rarely in this rapid start-and-kill cycle beside plain clients
/// only (`dmesg`: 3 segfaults in about 1 000 servers started by the tmux tests, beside
/// 4 tests at once; 2 of 150 and then 0 of 750 in a script doing this test's cycle), once
/// in a run of the whole integration binary: one such crash in 30 is tmux's, not a
/// regression.
#[test]
fn servers_started_while_the_daemon_follows_their_socket_all_start() {
    need_tmux();
    let mut env = Env::new();
    env.start_daemon();
    // The server of the round a failure ends is killed too.
    let _server = Server(&env);
    let mut failed = Vec::new();
    for i in 0..30 {
        let out = env
            .program("tmux")
            .args(["-f", "/dev/null", "new-session", "-d", "-s", "work", "sh"])
            .output()
            .unwrap();
        if !out.status.success() {
            failed.push(format!(
                "{i}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
            continue;
        }
        // The server's crash just after `new-session` returned counts as one too.
        let gone = || {
            let out = env.program("tmux").arg("has-session").output().unwrap();
            String::from_utf8_lossy(&out.stderr).contains("no server running")
        };
        let mut crashed = false;
        env.wait_until("the daemon's control client attached", || {
            let clients = env
                .program("tmux")
                .args(["list-clients", "-F", "#{client_control_mode}"])
                .output()
                .unwrap();
            crashed = !clients.status.success() && gone();
            crashed || String::from_utf8_lossy(&clients.stdout).contains('1')
        });
        if crashed {
            failed.push(format!("{i}: the server ended before it was followed"));
            continue;
        }
        let _ = env.program("tmux").arg("kill-server").output();
        // Gone, not going: a client that reaches a server still exiting is told "server
        // exited unexpectedly" too (tmux's own race, not the one under test).
        env.wait_until("the server gone", gone);
    }
    assert!(failed.len() <= 1, "tmux new-session failed: {failed:?}");
}
