//! Attend on a machine without a session bus (docs/cli.md "attend up", docs/dbus-api.md
//! "Names"): `attend up` starts a private `dbus-daemon`, records its address in the
//! runtime directory (the state directory when `XDG_RUNTIME_DIR` is unset) and prints the
//! line that sets `DBUS_SESSION_BUS_ADDRESS` for a shell; every `attend` command and the
//! hook executable then find the bus without the variable; a second `attend up` reuses
//! it; a dead one is replaced.
//!
//! Each test runs in an environment without `DBUS_SESSION_BUS_ADDRESS` and with its own
//! temporary directories; the daemon and the `dbus-daemon` that `attend up` started are
//! ended when the test ends, passed or not ([`World`]'s `Drop`).

use crate::support;

use serde_json::{json, Value};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use support::{attend_bin, poll, READY_TIMEOUT, TIMEOUT};

/// One test's machine without a bus: temporary home, config, state and (optionally)
/// runtime directories.
struct World {
    dir: tempfile::TempDir,
    runtime: bool,
}

impl World {
    fn new(runtime: bool) -> World {
        let w = World {
            dir: tempfile::tempdir().unwrap(),
            runtime,
        };
        for d in ["home", "config", "run"] {
            std::fs::create_dir_all(w.dir.path().join(d)).unwrap();
        }
        w
    }

    /// Where Attend keeps the private bus: `$XDG_RUNTIME_DIR/attend`, else the state
    /// directory.
    fn bus_dir(&self) -> PathBuf {
        if self.runtime {
            self.dir.path().join("run/attend")
        } else {
            self.state_dir()
        }
    }

    fn state_dir(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    fn socket(&self) -> PathBuf {
        self.bus_dir().join("session-bus.sock")
    }

    /// The shell line `attend up` prints.
    fn export_line(&self) -> String {
        let address = format!("unix:path={}", self.socket().display());
        format!("DBUS_SESSION_BUS_ADDRESS='{address}'; export DBUS_SESSION_BUS_ADDRESS;\n")
    }

    /// `program` with this world's environment: no bus variable, no display.
    fn program(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        let d = self.dir.path();
        c.env_remove("DBUS_SESSION_BUS_ADDRESS")
            .env_remove("XDG_STATE_HOME")
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("ATTEND_PANE")
            .env_remove("RUST_LOG")
            .env("HOME", d.join("home"))
            .env("XDG_CONFIG_HOME", d.join("config"))
            .env("ATTEND_STATE_DIR", self.state_dir())
            .current_dir(d)
            .stdin(Stdio::null());
        if self.runtime {
            c.env("XDG_RUNTIME_DIR", d.join("run"));
        } else {
            c.env_remove("XDG_RUNTIME_DIR");
        }
        c
    }

    fn attend(&self, args: &[&str]) -> Output {
        self.program(attend_bin()).args(args).output().unwrap()
    }

    /// `attend ARGS`, which must succeed: its stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.attend(args);
        assert!(
            out.status.success(),
            "attend {args:?}: {}\n{}",
            text(&out.stderr),
            self.logs()
        );
        text(&out.stdout)
    }

    /// `attend up` without panel, tray or notifications, which must succeed: its stdout.
    fn up(&self) -> (String, String) {
        let out = self.attend(&["up", "--no-panel", "--no-tray", "--no-notifications"]);
        assert!(
            out.status.success(),
            "attend up: {}\n{}",
            text(&out.stderr),
            self.logs()
        );
        (text(&out.stdout), text(&out.stderr))
    }

    /// The standard socket's place when `XDG_RUNTIME_DIR` is unset: taken when it exists
    /// (the rule prefers it), so a test of the fallback cannot run where it does.
    fn standard_socket_exists(&self) -> bool {
        !self.runtime && Path::new(&format!("/run/user/{}/bus", uid())).exists()
    }

    /// Makes the hook spool unusable (its lock file a directory), so that a hook client
    /// that does not reach the daemon says so on stderr instead of spooling silently (the
    /// daemon would replay the spool, hiding a client that found no bus).
    fn forbid_spool(&self) {
        let lock = self.bus_dir().join(attend_hook::spool::LOCK_FILE);
        match std::fs::remove_file(&lock) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => panic!("{}: {e}", lock.display()),
        }
        std::fs::create_dir(&lock).unwrap();
    }

    /// A Claude hook of `session` through `program ARGS` (the hook client), which must
    /// reach the daemon over the bus it found (with [`World::forbid_spool`] it cannot
    /// spool). A call the busy daemon did not answer within the client's budget found the
    /// bus all the same: it is sent again (bounded), as the agent's next hook would be.
    fn hook(&self, program: &str, args: &[&str], session: &str) {
        let payload = json!({"session_id": session, "cwd": "/tmp/private-bus",
            "hook_event_name": "UserPromptSubmit", "prompt": "go"});
        let start = std::time::Instant::now();
        loop {
            let mut child = self
                .program(program)
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(payload.to_string().as_bytes())
                .unwrap();
            let out = child.wait_with_output().unwrap();
            let err = text(&out.stderr);
            if out.status.success() && err.is_empty() {
                return;
            }
            assert!(
                err.contains("did not answer") && start.elapsed() < TIMEOUT,
                "{program} {args:?}: {err}\n{}",
                self.logs()
            );
        }
    }

    /// The panes `attend ls --json` lists.
    fn panes(&self) -> Vec<Value> {
        let v: Value = serde_json::from_str(&self.ok(&["ls", "--json"])).unwrap();
        match v {
            Value::Array(a) => a,
            other => other["panes"].as_array().cloned().unwrap_or_default(),
        }
    }

    /// Live `dbus-daemon`s listening on this world's socket.
    fn buses(&self) -> Vec<u32> {
        let arg = format!("--address=unix:path={}", self.socket().display());
        processes_with(&arg)
    }

    /// The daemon's pid, from its lock file.
    fn daemon_pid(&self) -> Option<u32> {
        std::fs::read_to_string(self.state_dir().join("daemon.lock"))
            .ok()?
            .lines()
            .next()?
            .parse()
            .ok()
    }

    /// The daemon's and the bus's logs, for failure messages.
    fn logs(&self) -> String {
        let read = |p: PathBuf| std::fs::read_to_string(p).unwrap_or_default();
        format!(
            "daemon.log:\n{}\nsession-bus.log:\n{}",
            read(self.state_dir().join("daemon.log")),
            read(self.bus_dir().join("session-bus.log"))
        )
    }
}

impl Drop for World {
    fn drop(&mut self) {
        if let Some(pid) = self.daemon_pid().filter(|p| alive(*p)) {
            signal(pid, nix::sys::signal::Signal::SIGTERM);
            if !poll(support::STOP_GRACE, || !alive(pid)) {
                signal(pid, nix::sys::signal::Signal::SIGKILL);
            }
        }
        for pid in self.buses() {
            signal(pid, nix::sys::signal::Signal::SIGKILL);
        }
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

fn signal(pid: u32, s: nix::sys::signal::Signal) {
    let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), s);
}

/// True while `pid` runs (a zombie counts as gone: pid 1 here may not reap).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| !s[s.rfind(')').unwrap() + 2..].starts_with('Z'))
}

/// Pids of live processes with `arg` as one of their arguments.
fn processes_with(arg: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        if cmdline.split(|&b| b == 0).any(|a| a == arg.as_bytes()) && alive(pid) {
            out.push(pid);
        }
    }
    out
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// `attend up` on a machine without a bus, `attend ls`/`status`, the hook clients, and a
/// second `attend up` (through `eval` in a shell) that reuses the bus.
fn up_then_everything_finds_the_bus(w: &World) {
    let (stdout, stderr) = w.up();
    assert_eq!(stdout, w.export_line(), "stdout is only the shell line");
    assert!(stderr.contains("the daemon is started"), "{stderr}");
    assert_eq!(w.buses().len(), 1, "one dbus-daemon");
    let recorded = w.bus_dir().join("session-bus.address");
    assert_eq!(mode(&w.bus_dir()), 0o700);
    let files: Vec<(String, u32)> = std::fs::read_dir(w.bus_dir())
        .unwrap()
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(n, _)| n.starts_with("session-bus."))
        .map(|(n, p)| (n, mode(&p)))
        .collect();
    assert_eq!(files.len(), 4, "socket, address, lock, log: {files:?}");
    assert!(files.iter().all(|(_, m)| *m == 0o600), "{files:?}");
    assert_eq!(
        std::fs::read_to_string(&recorded).unwrap(),
        format!("unix:path={}\n", w.socket().display())
    );
    // Every command finds the bus without the variable.
    assert!(w.panes().is_empty());
    w.ok(&["status"]);
    w.forbid_spool();
    w.hook(attend_bin(), &["hook", "claude"], "s-attend-hook");
    let hook_exe = Path::new(attend_bin()).with_file_name("attend-hook");
    let mut sessions = 1;
    if hook_exe.exists() {
        w.hook(hook_exe.to_str().unwrap(), &["claude"], "s-hook-exe");
        sessions += 1;
    }
    let shown = poll(TIMEOUT, || w.panes().len() == sessions);
    assert!(shown, "the hooks' panes in `attend ls`: {:?}", w.panes());
    // A second `attend up`, evaluated by a shell as the docs say: the same bus, and the
    // variable set for what the shell runs next.
    let script = format!(
        "eval \"$('{bin}' up --no-panel --no-tray --no-notifications)\" && \
         printf '%s\\n' \"$DBUS_SESSION_BUS_ADDRESS\" && '{bin}' ls --json",
        bin = attend_bin()
    );
    let out = w.program("sh").args(["-c", &script]).output().unwrap();
    assert!(out.status.success(), "eval: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let first = stdout.lines().next().unwrap_or_default();
    assert_eq!(first, format!("unix:path={}", w.socket().display()));
    assert!(
        text(&out.stderr).contains("already running"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(w.buses().len(), 1, "no second dbus-daemon");
}

#[test]
fn up_without_a_bus_starts_a_private_one_in_the_runtime_directory() {
    let w = World::new(true);
    up_then_everything_finds_the_bus(&w);
}

#[test]
fn without_xdg_runtime_dir_the_private_bus_lives_in_the_state_directory() {
    let w = World::new(false);
    if w.standard_socket_exists() {
        eprintln!("skipped: /run/user/<uid>/bus exists here, and the rule takes it first");
        return;
    }
    up_then_everything_finds_the_bus(&w);
}

#[test]
fn a_dead_private_bus_is_ignored_and_replaced_by_the_next_up() {
    let w = World::new(true);
    let (stdout, _) = w.up();
    assert_eq!(stdout, w.export_line());
    let old = w.buses();
    assert_eq!(old.len(), 1);
    let daemon = w.daemon_pid().expect("the daemon's pid");
    signal(old[0], nix::sys::signal::Signal::SIGKILL);
    assert!(poll(TIMEOUT, || w.buses().is_empty()), "the bus is gone");
    // Its daemon lost the bus; it ends (or is ended here) before the next `up`.
    if !poll(READY_TIMEOUT, || !alive(daemon)) {
        signal(daemon, nix::sys::signal::Signal::SIGKILL);
    }
    // The stale record is ignored: no bus, so a client command cannot reach a daemon.
    let out = w.attend(&["ls"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let (stdout, stderr) = w.up();
    assert_eq!(stdout, w.export_line());
    assert!(stderr.contains("the daemon is started"), "{stderr}");
    let new = w.buses();
    assert_eq!(new.len(), 1, "one fresh dbus-daemon");
    assert_ne!(new, old);
    w.forbid_spool();
    w.hook(attend_bin(), &["hook", "claude"], "s-after");
    assert!(
        poll(TIMEOUT, || w.panes().len() == 1),
        "{:?}\n{}",
        w.panes(),
        w.logs()
    );
}
