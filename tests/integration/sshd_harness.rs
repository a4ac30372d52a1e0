//! The remote-host test harness itself (docs/reliability.md#sshd-tests): a real sshd on a
//! free port of 127.0.0.1 logs the second test user in with a generated key; as that user
//! (another uid) a private session bus and `attend daemon` run; through ssh their `attend`
//! and `dbus-send` reach that daemon, a hook delivered there shows in its `ls`, and both
//! kinds of link loss end the ssh client in time. Needs root (skips with a printed reason
//! otherwise, unless `ATTEND_REQUIRE_SSHD=1`).

use crate::support;

use nix::sys::signal::Signal;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use support::sshd::{require, RemoteUser, Sshd};
use support::{poll, TIMEOUT};

/// The bound the remote-host design needs: a lost link is seen within 5 s.
const LINK_LOSS_BOUND: Duration = Duration::from_secs(5);

fn run(mut c: Command) -> Output {
    c.stdin(Stdio::null()).output().expect("run ssh")
}

fn text(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Runs `c`, asserts success, returns stdout.
fn ok(c: Command, sshd: &Sshd) -> String {
    let out = run(c);
    assert!(
        out.status.success(),
        "{}\n--- sshd log ---\n{}",
        text(&out),
        sshd.log()
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The uid of a running process (`/proc/<pid>/status`, real uid).
fn uid_of(pid: u32) -> u32 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("Uid:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn attend_runs_through_sshd_as_the_second_user() {
    let Some(user) = require() else { return };
    let sshd = Sshd::start(&user);
    let remote = RemoteUser::start(&user);
    assert_ne!(user.uid, nix::unistd::getuid().as_raw(), "another uid");
    assert_eq!(
        uid_of(remote.daemon_pid()),
        user.uid,
        "the remote daemon's uid"
    );

    let id = ok(sshd.ssh(&["id", "-u"]), &sshd);
    assert_eq!(
        id.trim(),
        user.uid.to_string(),
        "ssh logs the second user in"
    );
    let version = ok(sshd.ssh(&remote.argv("attend", &["--version"])), &sshd);
    assert!(
        version.trim() == format!("attend {}", attend::config::VERSION),
        "{version:?}"
    );
}

#[test]
fn the_remote_daemon_answers_on_its_own_bus_through_ssh() {
    let Some(user) = require() else { return };
    let sshd = Sshd::start(&user);
    let remote = RemoteUser::start(&user);
    // The raw bus, as the second user: D-Bus authenticates that uid to its own bus.
    let reply = ok(
        sshd.ssh(&remote.argv(
            "dbus-send",
            &[
                "--session",
                "--print-reply=literal",
                "--dest=io.github.attend.Attend1",
                "/io/github/attend/Attend1",
                "io.github.attend.Attend1.Version",
            ],
        )),
        &sshd,
    );
    assert_eq!(reply.trim(), attend::config::VERSION, "{reply:?}");
    let ls = ok(sshd.ssh(&remote.argv("attend", &["ls", "--json"])), &sshd);
    assert_eq!(
        serde_json::from_str::<Value>(&ls).unwrap(),
        Value::Array(vec![])
    );
}

#[test]
fn a_hook_delivered_on_the_remote_shows_in_the_remote_daemon() {
    let Some(user) = require() else { return };
    let sshd = Sshd::start(&user);
    let remote = RemoteUser::start(&user);
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/claude/2.1.332/observed/UserPromptSubmit.json"
    );
    let payload: Value = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    // The hook runs on the remote as the agent's would there: outside any Attend pane,
    // the payload on stdin (carried by ssh).
    let mut hook = sshd.ssh(&remote.argv("attend", &["hook", "claude"]));
    let out = hook
        .stdin(std::fs::File::open(fixture).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));

    // Delivered at once, or spooled and replayed when the call is slow: bounded either way.
    let mut panes = Value::Null;
    let shown = poll(TIMEOUT, || {
        let ls = ok(sshd.ssh(&remote.argv("attend", &["ls", "--json"])), &sshd);
        panes = serde_json::from_str(&ls).unwrap();
        panes.as_array().is_some_and(|a| !a.is_empty())
    });
    assert!(
        shown,
        "no pane on the remote daemon\n--- daemon log ---\n{}",
        remote.daemon_log()
    );
    let panes = panes.as_array().unwrap();
    assert_eq!(panes.len(), 1, "{panes:?}");
    assert_eq!(panes[0]["session_id"], payload["session_id"]);
    assert_eq!(panes[0]["owned"], false, "an external pane");
    assert_eq!(panes[0]["lifecycle"], "working");
}

/// `(local address, pids)` of every listening TCP socket (`ss -Hltnp`).
fn tcp_listeners() -> Vec<(String, Vec<u32>)> {
    let out = Command::new("ss").args(["-Hltnp"]).output().expect("ss");
    assert!(out.status.success(), "ss: {}", text(&out));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            let local = cols.get(3)?.to_string();
            let pids = l
                .split("pid=")
                .skip(1)
                .filter_map(|p| p.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
                .collect();
            Some((local, pids))
        })
        .collect()
}

/// The entries of a directory with their modification times (seconds), or `None` when
/// there is no such directory.
type Listing = Option<Vec<(String, i64)>>;

/// `~/.ssh` of the user running the tests (`$HOME` and the passwd home) and its listing.
fn dot_ssh() -> Vec<(PathBuf, Listing)> {
    let mut homes = vec![PathBuf::from(std::env::var_os("HOME").unwrap_or_default())];
    if let Some(me) = std::env::var("USER")
        .ok()
        .and_then(|n| support::sshd::User::lookup(&n))
    {
        homes.push(me.home);
    }
    homes
        .into_iter()
        .map(|h| {
            let d = h.join(".ssh");
            let entries = std::fs::read_dir(&d).ok().map(|rd| {
                let mut v: Vec<(String, i64)> = rd
                    .flatten()
                    .map(|e| {
                        let m = e.metadata().unwrap();
                        (e.file_name().to_string_lossy().into_owned(), m.mtime())
                    })
                    .collect();
                v.sort();
                v
            });
            (d, entries)
        })
        .collect()
}

#[test]
fn sshd_listens_on_loopback_only_and_ssh_leaves_dot_ssh_and_port_22_alone() {
    let Some(user) = require() else { return };
    let before = dot_ssh();
    let sshd = Sshd::start(&user);
    ok(sshd.ssh(&["true"]), &sshd);
    assert_eq!(dot_ssh(), before, "~/.ssh untouched");

    let listeners = tcp_listeners();
    let ours: Vec<&String> = listeners
        .iter()
        .filter(|(_, pids)| pids.contains(&sshd.pid()))
        .map(|(addr, _)| addr)
        .collect();
    assert_eq!(
        ours,
        vec![&format!("127.0.0.1:{}", sshd.port)],
        "the test sshd listens on 127.0.0.1:{} only: {listeners:?}",
        sshd.port
    );
    let on_22: Vec<_> = listeners
        .iter()
        .filter(|(addr, _)| addr.rsplit(':').next() == Some("22"))
        .collect();
    // build-aux/deps.sh installs openssh-server with its service switched off (this
    // file): then nothing may listen on port 22. A machine whose own sshd ran before is
    // left alone, and only reported.
    if std::path::Path::new("/etc/ssh/sshd_not_to_be_run").exists() {
        assert!(on_22.is_empty(), "something listens on port 22: {on_22:?}");
    } else if !on_22.is_empty() {
        println!("note: the machine's own service listens on port 22: {on_22:?}");
    }
}

/// An ssh session whose remote side prints `ready` and then waits on its stdin (held
/// open by the test): the link stays idle, as a mirror's would between events. Returns
/// once `ready` has arrived.
fn idle_session(sshd: &Sshd) -> Child {
    let mut child = sshd
        .ssh(&["sh", "-c", "echo ready; exec cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line, "ready\n", "the remote command started");
    child
}

/// Waits (in a thread, so the exit is timed exactly) for `child` to exit after the
/// connection's processes got `sig`; the time it took and the exit code.
fn link_loss(sshd: &Sshd, mut child: Child, sig: Signal) -> (Duration, Option<i32>) {
    let conns = sshd.wait_connections(1);
    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    let signalled = sshd.signal_connections(sig);
    assert_eq!(signalled, conns.concat(), "the connection's sshd processes");
    std::thread::spawn(move || {
        let status = child.wait().unwrap();
        let _ = tx.send((start.elapsed(), status.code()));
        drop(child);
    });
    match rx.recv_timeout(LINK_LOSS_BOUND) {
        Ok(r) => r,
        // The Sshd's drop then kills the connection's processes, and so ends ssh.
        Err(_) => {
            panic!(
                "ssh still runs {LINK_LOSS_BOUND:?} after {sig} of {signalled:?}\n\
                 --- sshd log ---\n{}",
                sshd.log()
            )
        }
    }
}

#[test]
fn killing_the_per_connection_sshd_ends_ssh_at_once() {
    let Some(user) = require() else { return };
    let sshd = Sshd::start(&user);
    let session = idle_session(&sshd);
    let (took, code) = link_loss(&sshd, session, Signal::SIGKILL);
    println!(
        "abrupt link loss (kill -9 of the connection's sshd): ssh exited {code:?} after {took:?}"
    );
    assert_eq!(code, Some(255), "ssh reports the lost connection");
}

#[test]
fn stopping_the_per_connection_sshd_ends_ssh_by_its_keepalive() {
    let Some(user) = require() else { return };
    let sshd = Sshd::start(&user);
    let session = idle_session(&sshd);
    let (took, code) = link_loss(&sshd, session, Signal::SIGSTOP);
    // ServerAliveInterval 1, ServerAliveCountMax 2: the third unanswered second.
    println!(
        "silent link loss (SIGSTOP of the connection's sshd): ssh exited {code:?} after {took:?}"
    );
    assert_eq!(code, Some(255), "ssh gives up on the silent server");
    assert!(
        took >= Duration::from_secs(1),
        "noticed by the keepalive, not a close: {took:?}"
    );
}
