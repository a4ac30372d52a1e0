//! Reliability suite, file modes (docs/reliability.md "Access"): whatever the umask of
//! the processes that make them — `attend daemon`, `attend up` (which starts the daemon
//! with its log in the state directory) and the hook client that spools while the daemon
//! is down — the state directory and the runtime directory are 0700 and every file in
//! them 0600 (sockets included); and a state directory an older Attend left open (0755,
//! files 0644) is closed again when the daemon starts.

use crate::support;

use serde_json::json;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use support::{poll, Env, READY_TIMEOUT};

/// `attend ARGS` with this test's environment, run under `umask`.
fn attend_under(env: &Env, umask: u32, args: &[&str]) -> Command {
    let mut c = env.cmd();
    c.args(args);
    // SAFETY: umask is async-signal-safe and touches no memory of the parent.
    unsafe {
        c.pre_exec(move || {
            libc::umask(umask as libc::mode_t);
            Ok(())
        });
    }
    c
}

/// Every path under `root` (itself included) with its mode, not following links.
fn modes(root: &Path) -> Vec<(PathBuf, u32, bool)> {
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(p) = todo.pop() {
        let meta = std::fs::symlink_metadata(&p).unwrap();
        let dir = meta.is_dir();
        out.push((p.clone(), meta.mode() & 0o7777, dir));
        if dir {
            todo.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        }
    }
    out.sort();
    out
}

/// Asserts that every directory under `root` is 0700 and everything else 0600; returns
/// the file names seen, for the checks that something was there to look at.
fn assert_private(root: &Path, when: &str) -> Vec<String> {
    let all = modes(root);
    let open: Vec<String> = all
        .iter()
        .filter(|(_, m, dir)| *m != if *dir { 0o700 } else { 0o600 })
        .map(|(p, m, _)| format!("{} {m:o}", p.display()))
        .collect();
    assert!(open.is_empty(), "{when}: not private: {open:?}");
    all.iter()
        .map(|(p, _, _)| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

/// Starts `attend daemon` under `umask` and waits until it is ready.
fn start_daemon(env: &Env, umask: u32, log: &Path) -> Child {
    let child = attend_under(env, umask, &["daemon", "--no-tray", "--no-notifications"])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap();
    let ready = poll(READY_TIMEOUT, || {
        std::fs::read_to_string(log).is_ok_and(|l| l.contains("attend daemon ready"))
    });
    assert!(ready, "the daemon is not ready: {}", read(log));
    child
}

/// `attend up` (no panel, tray or notifications: no display here) under `umask`; the pid
/// of the daemon it started, from the lock file (written before the daemon is ready).
fn up(env: &Env, umask: u32) -> u32 {
    // The log is appended to: wait for one more "ready" than it holds now.
    let log = env.state_dir().join("daemon.log");
    let ready = |text: &str| text.matches("attend daemon ready").count();
    let before = ready(&read(&log));
    let out = attend_under(
        env,
        umask,
        &["up", "--no-panel", "--no-tray", "--no-notifications"],
    )
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "attend up: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let started = poll(READY_TIMEOUT, || ready(&read(&log)) > before);
    assert!(started, "the daemon `attend up` started: {}", read(&log));
    let lock = env.state_dir().join(attend::system::state_lock::LOCK_FILE);
    read(&lock)
        .lines()
        .next()
        .and_then(|l| l.parse().ok())
        .expect("the daemon's pid on the lock file's first line")
}

/// SIGTERM `pid` (a daemon `attend up` started: not our child) and wait until it is gone
/// or a zombie.
fn stop_pid(pid: u32) {
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGTERM,
    );
    let gone = poll(support::TIMEOUT, || {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map_or(true, |s| s[s.rfind(')').unwrap() + 2..].starts_with('Z'))
    });
    assert!(gone, "daemon {pid} did not stop");
}

/// Kills a daemon `attend up` started when the test ends, passed or not.
struct Detached(u32);

impl Drop for Detached {
    fn drop(&mut self) {
        stop_pid(self.0);
    }
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

/// A Claude turn's two hooks for an external session, through the real hook client
/// under `umask` (spooled when the daemon is down).
fn hooks(env: &Env, umask: u32, session: &str) {
    for event in ["UserPromptSubmit", "Stop"] {
        let payload = json!({"session_id": session, "cwd": "/tmp", "hook_event_name": event, "prompt": "go", "last_assistant_message": "done"});
        let out = attend_under(env, umask, &["hook", "claude"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin
                    .take()
                    .unwrap()
                    .write_all(payload.to_string().as_bytes())?;
                c.wait_with_output()
            })
            .unwrap();
        assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    }
}

/// The external pane of `session` is done: its hooks were applied.
fn wait_applied(env: &Env, session: &str) {
    env.wait_until(&format!("the hooks of {session} applied"), || {
        let ls: serde_json::Value = serde_json::from_str(&env.ok(&["ls", "--json"])).unwrap();
        ls.as_array()
            .unwrap()
            .iter()
            .any(|p| p["session_id"] == session && p["lifecycle"] == "done")
    });
}

fn files_are_private_whatever_the_umask(umask: u32) {
    let env = Env::new();
    std::fs::create_dir_all(env.path("run")).unwrap();
    let state = env.state_dir();
    let run = env.spool_dir();
    let log = env.path("plain-daemon.log");

    // 1. `attend daemon` makes the state directory, the database (with its WAL), the
    //    lock and the attach socket.
    let mut daemon = start_daemon(&env, umask, &log);
    let pane = attend_under(&env, umask, &["run", "--", "sleep", "30"])
        .output()
        .unwrap();
    assert!(pane.status.success(), "attend run: {pane:?}");
    hooks(&env, umask, "s-live");
    wait_applied(&env, "s-live");
    let names = assert_private(&state, "attend daemon");
    for f in ["attend.db", "attend.db-wal", "attend.db-shm", "daemon.lock"] {
        assert!(names.contains(&f.to_string()), "{f} missing: {names:?}");
    }
    assert_private(&run, "attend daemon's runtime directory");
    assert!(support::stop(&mut daemon, support::STOP_GRACE).is_some());

    // 2. The hook client spools while the daemon is down.
    hooks(&env, umask, "s-spooled");
    let names = assert_private(&run, "the hook spool");
    assert!(names.contains(&"hooks.spool".to_string()), "{names:?}");

    // 3. `attend up` starts the daemon with its log in the state directory; the spool
    //    is replayed.
    let pid = Detached(up(&env, umask));
    wait_applied(&env, "s-spooled");
    hooks(&env, umask, "s-up");
    wait_applied(&env, "s-up");
    let names = assert_private(&state, "attend up");
    for f in ["attend.db-wal", "attend.db-shm", "daemon.log"] {
        assert!(names.contains(&f.to_string()), "{f} missing: {names:?}");
    }
    assert_private(&run, "attend up's runtime directory");
    stop_pid(pid.0);
    std::mem::forget(pid);

    // 4. Left open by an older Attend (directories 0755, files 0644): closed at start.
    for (p, _, dir) in modes(&state).into_iter().chain(modes(&run)) {
        let m = if dir { 0o755 } else { 0o644 };
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(m)).unwrap();
    }
    let pid = Detached(up(&env, umask));
    hooks(&env, umask, "s-reopened");
    wait_applied(&env, "s-reopened");
    assert_private(&state, "a state directory left open, after start");
    assert_private(&run, "a runtime directory left open, after start");
    println!(
        "umask {umask:03o}: {}",
        modes(&state)
            .iter()
            .chain(&modes(&run))
            .map(|(p, m, _)| format!("{} {m:o}", p.file_name().unwrap().to_string_lossy()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    drop(pid);
}

#[test]
fn files_are_private_under_umask_000() {
    files_are_private_whatever_the_umask(0o000);
}

#[test]
fn files_are_private_under_umask_022() {
    files_are_private_whatever_the_umask(0o022);
}
