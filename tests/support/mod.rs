//! Test support for the daemon tests, the desktop tests (`tests/desktop`) and the service
//! benchmarks (`benches/service`): a private D-Bus session bus per test, the real
//! `attend daemon` binary with temporary state and runtime directories, and the real
//! `attend` CLI to drive it. Every wait is bounded (generous timeouts, then a panic that
//! shows the daemon's log).
//!
//! The daemon's D-Bus methods are called through the one typed client,
//! `attend::client`: [`Env::attend1`] (the blocking proxy on the test's bus, for the
//! tests' own threads, never inside a tokio runtime), [`Env::hook`] and
//! [`Env::set_focused`] built on it; the benchmarks use the async proxy
//! (`benches/service/harness.rs`). Only tests whose point is the raw wire (hostile or
//! oversized input, load) or an external client (`busctl` run as another user) build
//! messages by hand.
#![allow(dead_code)]

use attend::client::Attend1ProxyBlocking;
use attend::service::store::spool::{SpoolRecord, REPLAYING_PREFIX, SPOOL_FILE};
use serde_json::Value;
use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long a condition may take before the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// How long a started daemon may take to log "attend daemon ready" (its start-up replay of
/// the spool comes first).
pub const READY_TIMEOUT: Duration = Duration::from_secs(90);

/// How long a stopped daemon (or other helper process) may take to exit on SIGTERM when
/// a test ends, before it is killed.
pub const STOP_GRACE: Duration = Duration::from_secs(5);

/// The `attend` binary under test: `$ATTEND_BIN` when set (e.g. an older build, for a
/// before/after figure in the benchmarks), else the one Cargo built with this target.
pub fn attend_bin() -> &'static str {
    static BIN: OnceLock<String> = OnceLock::new();
    BIN.get_or_init(|| {
        std::env::var("ATTEND_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_attend").to_string())
    })
}

/// Polls `check` every 50 ms until it holds (true) or `limit` passes (false).
pub fn poll(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if check() {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Sends SIGTERM to `child` and waits up to `grace` for it to exit: its exit status, or
/// `None` when it had to be killed (SIGKILL, then reaped).
pub fn stop(child: &mut Child, grace: Duration) -> Option<ExitStatus> {
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
    let start = Instant::now();
    while start.elapsed() < grace {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// A private `dbus-daemon`, killed on drop.
pub struct Bus {
    child: Child,
    pub address: String,
}

impl Bus {
    /// Starts `dbus-daemon --session` (the system's session configuration, with service
    /// activation) and reads its address.
    pub fn start() -> Bus {
        let mut c = Command::new("dbus-daemon");
        c.arg("--session");
        Bus::spawn(c)
    }

    /// Starts a session bus listening on the socket `path`, an address that stays the
    /// same when the bus is started again there (a stale socket file is removed first).
    /// Its [`Bus::address`] carries the bus's guid; connect with `unix:path=PATH` to
    /// reach whichever bus listens there.
    pub fn at(path: &Path) -> Bus {
        let _ = std::fs::remove_file(path);
        let mut c = Command::new("dbus-daemon");
        c.arg("--session")
            .arg(format!("--address=unix:path={}", path.display()));
        Bus::spawn(c)
    }

    /// Starts a bus on a configuration of its own in `dir`: no service directories (no
    /// activation), so a notification server or tray watcher is there only when the test
    /// starts one.
    pub fn without_activation(dir: &Path) -> Bus {
        let config = dir.join("bus.conf");
        std::fs::write(
            &config,
            format!(
                r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#,
                dir.display()
            ),
        )
        .unwrap();
        let mut c = Command::new("dbus-daemon");
        c.arg(format!("--config-file={}", config.display()));
        Bus::spawn(c)
    }

    fn spawn(mut c: Command) -> Bus {
        let mut child = c
            .args(["--print-address", "--nofork", "--nopidfile"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("dbus-daemon must be installed");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("dbus-daemon prints its address");
        let address = line.trim().to_string();
        assert!(address.starts_with("unix:"), "bad bus address {address:?}");
        Bus { child, address }
    }
}

impl Bus {
    /// The `dbus-daemon`'s pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the bus (every connection to it closes) and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Bus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Set to the test process's pid for every program a test starts
/// ([`Env::program`], the remote users of [`sshd`]): the daemon's environment reaches its
/// pane holders, and a holder tied so ends, with its program, when the test process ends
/// (crates/attend-holder/src/tether.rs). A test run killed by a timeout, Ctrl-C or
/// `kill -9` runs no `Drop` ([`kill_holders`]), and holders outlive everything else by
/// design; this way they do not outlive the test.
pub const TETHER_ENV: &str = attend_holder::tether::TETHER_ENV;

/// One test's world: bus, directories, and the daemon process when started.
pub struct Env {
    pub bus: Bus,
    pub dir: tempfile::TempDir,
    pub daemon: Option<Child>,
    /// How long a condition may take ([`Env::wait_until`], [`Env::wait_pane`],
    /// [`Env::stop_daemon`]).
    pub timeout: Duration,
    starts: usize,
    home: PathBuf,
    /// Variables set (`Some`) or removed (`None`) for every program, after the defaults.
    vars: Vec<(String, Option<OsString>)>,
    /// The test's own connection to the bus ([`Env::connection`]), made on first use.
    conn: OnceLock<zbus::blocking::Connection>,
}

impl Env {
    /// A bus and empty directories; no daemon yet.
    pub fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_path_buf();
        Env::with(Bus::start(), dir, home, Vec::new(), TIMEOUT)
    }

    /// A bus and a started daemon.
    pub fn with_daemon() -> Env {
        let mut env = Env::new();
        env.start_daemon();
        env
    }

    /// A world on `bus` in `dir` with `HOME` at `home`, `vars` set (`Some`) or removed
    /// (`None`) in every program's environment, and conditions bounded by `timeout`.
    pub fn with(
        bus: Bus,
        dir: tempfile::TempDir,
        home: PathBuf,
        vars: Vec<(String, Option<OsString>)>,
        timeout: Duration,
    ) -> Env {
        Env {
            bus,
            dir,
            daemon: None,
            timeout,
            starts: 0,
            home,
            vars,
            conn: OnceLock::new(),
        }
    }

    /// `NAME` inside the test's directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The `TMUX_TMPDIR` of every program of the test: its tmux servers' sockets are
    /// under it, so the daemon follows those and never the user's own tmux.
    pub fn tmux_dir(&self) -> PathBuf {
        let d = self.path("tmux");
        let _ = std::fs::create_dir_all(&d);
        d
    }

    pub fn state_dir(&self) -> PathBuf {
        self.path("state")
    }

    pub fn work_dir(&self) -> PathBuf {
        let d = self.path("work");
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// Any program with this test's environment (bus, state, runtime and home
    /// directories; no `ATTEND_PANE`).
    pub fn program(&self, name: &str) -> Command {
        let mut c = Command::new(name);
        c.env("DBUS_SESSION_BUS_ADDRESS", &self.bus.address)
            .env("ATTEND_STATE_DIR", self.state_dir())
            .env("XDG_RUNTIME_DIR", self.path("run"))
            .env("HOME", &self.home)
            .env(TETHER_ENV, std::process::id().to_string())
            // The test's own tmux servers only (docs/tmux.md): never the user's.
            .env("TMUX_TMPDIR", self.tmux_dir())
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .env_remove("ATTEND_PANE");
        for (k, v) in &self.vars {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
        c
    }

    /// The `attend` command with this test's environment.
    pub fn cmd(&self) -> Command {
        let mut c = self.program(attend_bin());
        c.env_remove("RUST_LOG")
            .current_dir(self.work_dir())
            .stdin(Stdio::null());
        c
    }

    fn log_path(&self) -> PathBuf {
        self.path(&format!("daemon-{}.log", self.starts))
    }

    /// The daemon's stderr so far (for failure messages).
    pub fn daemon_log(&self) -> String {
        let mut all = String::new();
        for i in 1..=self.starts {
            let p = self.path(&format!("daemon-{i}.log"));
            all.push_str(&std::fs::read_to_string(p).unwrap_or_default());
        }
        all
    }

    /// Starts `attend daemon --no-tray --no-notifications` and waits until it is ready
    /// (see [`Env::start_daemon_with`]).
    pub fn start_daemon(&mut self) -> u32 {
        self.start_daemon_with(&["--no-tray", "--no-notifications"], &[])
    }

    /// Starts `attend daemon ARGS` with `vars` in its environment and waits until it
    /// answers and has logged "attend daemon ready" (the name is owned, and `Version`
    /// answers, before the spool is replayed and the attach socket bound). The pid.
    pub fn start_daemon_with(&mut self, args: &[&str], vars: &[(&str, &str)]) -> u32 {
        self.start_daemon_as(args, vars, false)
    }

    /// Like [`Env::start_daemon_with`]; `own_group` puts the daemon in a process group of
    /// its own (its pid), as a service manager does.
    pub fn start_daemon_as(
        &mut self,
        args: &[&str],
        vars: &[(&str, &str)],
        own_group: bool,
    ) -> u32 {
        std::fs::create_dir_all(self.path("run")).unwrap();
        self.starts += 1;
        let log = std::fs::File::create(self.log_path()).unwrap();
        let mut c = self.cmd();
        if own_group {
            std::os::unix::process::CommandExt::process_group(&mut c, 0);
        }
        c.arg("daemon").args(args);
        for (k, v) in vars {
            c.env(k, v);
        }
        let child = c.stdout(Stdio::null()).stderr(log).spawn().unwrap();
        let pid = child.id();
        self.daemon = Some(child);
        self.wait_until("the daemon answers", || {
            self.cmd().arg("version").output().unwrap().status.success()
        });
        // The start-up replay of a large spool (thousands of records after a crash test's
        // outage) runs before "ready" and takes seconds in a debug build on a busy machine.
        let log = self.log_path();
        let ready = poll(READY_TIMEOUT, || {
            std::fs::read_to_string(&log).is_ok_and(|l| l.contains("attend daemon ready"))
        });
        assert!(
            ready,
            "timed out waiting for the daemon to be ready\n--- daemon log ---\n{}",
            self.daemon_log()
        );
        pid
    }

    /// SIGTERM the daemon and wait (within [`Env::timeout`]) until it has exited, so its
    /// database is closed: its exit status. Panics with the log when it does not stop.
    pub fn stop_daemon(&mut self) -> ExitStatus {
        self.stop_daemon_within(self.timeout)
    }

    /// Like [`Env::stop_daemon`] with a bound of its own.
    pub fn stop_daemon_within(&mut self, limit: Duration) -> ExitStatus {
        let mut d = self.daemon.take().expect("a daemon");
        match stop(&mut d, limit) {
            Some(status) => status,
            None => panic!(
                "the daemon did not stop on SIGTERM within {limit:?}\n--- daemon log ---\n{}",
                self.daemon_log()
            ),
        }
    }

    /// The daemon's pid.
    pub fn daemon_pid(&self) -> u32 {
        self.daemon.as_ref().expect("daemon started").id()
    }

    /// `kill -9` the daemon and reap it.
    pub fn kill_daemon(&mut self) {
        if let Some(mut d) = self.daemon.take() {
            let _ = d.kill();
            let _ = d.wait();
        }
    }

    /// Runs `attend ARGS`.
    pub fn attend(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
    }

    /// Runs `attend ARGS` with `stdin` as input and extra environment.
    pub fn attend_with(&self, args: &[&str], stdin: &[u8], vars: &[(&str, &str)]) -> Output {
        let mut c = self.cmd();
        c.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in vars {
            c.env(k, v);
        }
        let mut child = c.spawn().unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        child.wait_with_output().unwrap()
    }

    /// Runs `attend ARGS`, asserts success, returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.attend(args);
        assert!(
            out.status.success(),
            "attend {args:?} failed ({:?}): {}\n--- daemon log ---\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr),
            self.daemon_log()
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// `attend run ARGS` → the pane id.
    pub fn run(&self, args: &[&str]) -> String {
        let mut all = vec!["run"];
        all.extend_from_slice(args);
        let id = self.ok(&all).trim().to_string();
        assert!(id.starts_with('p'), "not a pane id: {id:?}");
        id
    }

    /// `attend show PANE --json`.
    pub fn show(&self, pane: &str) -> Value {
        serde_json::from_str(&self.ok(&["show", pane, "--json"])).unwrap()
    }

    /// Waits until a hook run waits on the gate of external pane `pane`
    /// (docs/decisions/0015-answering-external-gates.md): `attend answer PANE yes`, a
    /// choice a gate does not take, is refused with the gate's list instead of
    /// `NotOwned`; nothing is answered.
    pub fn wait_gate_waiting(&self, pane: &str) {
        self.wait_until("the hook run waits on the gate", || {
            let out = self.attend(&["answer", pane, "yes"]);
            out.status.code() == Some(2)
                && String::from_utf8_lossy(&out.stderr).contains("allow, deny")
        });
    }

    /// `attend events --json` as values.
    pub fn events(&self) -> Vec<Value> {
        self.ok(&["events", "--json"])
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Polls `check` until it holds or [`Env::timeout`] passes; then panics with `what`
    /// and the daemon's log.
    pub fn wait_until(&self, what: &str, check: impl FnMut() -> bool) {
        if !poll(self.timeout, check) {
            panic!(
                "timed out waiting for {what}\n--- daemon log ---\n{}",
                self.daemon_log()
            );
        }
    }

    /// Polls `attend show PANE --json` until `cond` holds; returns that state.
    pub fn wait_pane(&self, pane: &str, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
        let mut last = Value::Null;
        let held = poll(self.timeout, || {
            last = self.show(pane);
            cond(&last)
        });
        if !held {
            panic!(
                "timed out waiting for {pane}: {what}\nlast state: {last:#}\n--- daemon log ---\n{}",
                self.daemon_log()
            );
        }
        last
    }

    /// The spool directory of the test's `attend` processes (`$XDG_RUNTIME_DIR/attend`).
    pub fn spool_dir(&self) -> PathBuf {
        self.path("run/attend")
    }

    /// The records in the live spool file (not the batches being replayed).
    pub fn spool_records(&self) -> Vec<SpoolRecord> {
        std::fs::read_to_string(self.spool_dir().join(SPOOL_FILE))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Hook records waiting in the spool: the live file and the batches being replayed.
    pub fn spooled(&self) -> usize {
        let Ok(entries) = std::fs::read_dir(self.spool_dir()) else {
            return 0;
        };
        entries
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                name == SPOOL_FILE || name.starts_with(REPLAYING_PREFIX)
            })
            .map(|p| {
                std::fs::read(p)
                    .unwrap_or_default()
                    .split(|b| *b == b'\n')
                    .count()
                    - 1
            })
            .sum()
    }

    /// A blocking connection of the test to its bus (made on first use and kept: it
    /// outlives daemon restarts, the calls go to the well-known name). zbus runs it on
    /// its own runtime: call it from the test's threads, never inside a tokio runtime.
    pub fn connection(&self) -> &zbus::blocking::Connection {
        self.conn.get_or_init(|| {
            zbus::blocking::connection::Builder::address(self.bus.address.as_str())
                .expect("a bus address")
                .build()
                .expect("connect to the test's bus")
        })
    }

    /// The daemon's typed proxy (`io.github.attend.Attend1`) on the test's bus; its
    /// errors are `zbus::Error::MethodError`, named by `attend::client::error_name`.
    pub fn attend1(&self) -> Attend1ProxyBlocking<'static> {
        Attend1ProxyBlocking::builder(self.connection())
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .expect("the Attend1 proxy")
    }

    /// `Hook(agent, "", payload, {pane, delivery_id})` → the seq.
    pub fn hook(
        &self,
        agent: &str,
        pane: &str,
        payload: &str,
        delivery: &str,
    ) -> zbus::Result<u64> {
        let context = HashMap::from([
            ("pane", zbus::zvariant::Value::from(pane)),
            ("delivery_id", zbus::zvariant::Value::from(delivery)),
        ]);
        self.attend1().hook(agent, "", payload, &context)
    }

    /// `SetFocused(pane, focused)`; panics on an error reply.
    pub fn set_focused(&self, pane: &str, focused: bool) {
        if let Err(e) = self.attend1().set_focused(pane, focused) {
            panic!("SetFocused {pane} {focused}: {e}");
        }
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        if let Some(mut d) = self.daemon.take() {
            stop(&mut d, STOP_GRACE);
        }
        // The panes' holders outlive the daemon by design: end them (and so their
        // programs, hung up as a closed terminal) with the test.
        kill_holders(&self.state_dir());
    }
}

/// Every pid in `/proc` now (processes come and go: each may be gone when read).
pub fn pids() -> impl Iterator<Item = u32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
}

/// Pids of the pane holders started for `state_dir` (their command line names it).
pub fn holders_of(state_dir: &Path) -> Vec<u32> {
    let canonical = state_dir
        .canonicalize()
        .unwrap_or_else(|_| state_dir.to_path_buf());
    let want = canonical.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for pid in pids() {
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        let is_holder = args.iter().any(|a| *a == b"--socket")
            && args
                .windows(2)
                .any(|w| w[0] == b"--state-dir" && w[1] == want.as_bytes());
        if is_holder {
            found.push(pid);
        }
    }
    found
}

/// The pid of the holder of pane `pane` (e.g. "p2") of `state_dir`.
pub fn holder_of(state_dir: &Path, pane: &str) -> Option<u32> {
    let num = pane.trim_start_matches('p');
    holders_of(state_dir).into_iter().find(|pid| {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        args.windows(2)
            .any(|w| w[0] == b"--pane" && w[1] == num.as_bytes())
    })
}

/// The `/proc/<pid>/stat` fields after the command name (field 3, the state, first), or
/// `None` when there is no such process.
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    Some(rest.split(' ').map(str::to_string).collect())
}

/// True while `pid` runs (a zombie, exited and not yet reaped, is not running).
pub fn running(pid: u32) -> bool {
    stat_fields(pid).is_some_and(|f| f[0] != "Z")
}

/// The pid of the program the holder of pane `pane` of `state_dir` runs (the holder's
/// child: the pane's process), while both exist.
pub fn program_of(state_dir: &Path, pane: &str) -> Option<u32> {
    let holder = holder_of(state_dir, pane)?.to_string();
    pids().find(|pid| stat_fields(*pid).is_some_and(|f| f[1] == holder))
}

/// The running processes of session `sid` (a pane's program is its session's leader:
/// this is it and everything it started on its terminal, hooks included).
pub fn session_members(sid: u32) -> Vec<u32> {
    let sid = sid.to_string();
    pids()
        .filter(|pid| stat_fields(*pid).is_some_and(|f| f[3] == sid && f[0] != "Z"))
        .collect()
}

/// SIGKILLs every holder of `state_dir`.
pub fn kill_holders(state_dir: &Path) {
    use nix::sys::signal::{kill, killpg, Signal};
    use nix::unistd::Pid;
    for pid in holders_of(state_dir) {
        // Each program first, by its process group (it leads a session of its own): a
        // program that ignores the hang-up of its closed terminal (Gemini CLI's relaunched
        // node does) would outlive the test, with everything in its group.
        for child in sshd::children_of(pid) {
            let _ = killpg(Pid::from_raw(child as i32), Signal::SIGKILL);
            let _ = kill(Pid::from_raw(child as i32), Signal::SIGKILL);
        }
        let _ = kill(Pid::from_raw(pid as i32), Signal::SIGKILL);
    }
}

/// utime + stime of `pid` in clock ticks (`/proc/<pid>/stat` fields 14 and 15).
pub fn cpu_ticks(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let rest = &s[s.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
}

pub mod agents;
pub mod attach;
pub mod hook_events;
pub mod model_server;
pub mod notes;
pub mod pty;
pub mod remote;
pub mod scenario;
pub mod sshd;
