//! Test support for the daemon tests: a private D-Bus session bus per test, the real
//! `attend daemon` binary with temporary state and runtime directories, and the real
//! `attend` CLI to drive it. Every wait is bounded (generous timeouts, then a panic that
//! shows the daemon's log).
#![allow(dead_code)]

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long a condition may take before the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// How long a started daemon may take to log "attend daemon ready" (its start-up replay of
/// the spool comes first).
pub const READY_TIMEOUT: Duration = Duration::from_secs(90);

/// The `attend` binary under test.
pub fn attend_bin() -> &'static str {
    env!("CARGO_BIN_EXE_attend")
}

/// A private `dbus-daemon --session`, killed on drop.
pub struct Bus {
    child: Child,
    pub address: String,
}

impl Bus {
    /// Starts a bus and reads its address.
    pub fn start() -> Bus {
        let mut child = Command::new("dbus-daemon")
            .args(["--session", "--print-address", "--nofork", "--nopidfile"])
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

impl Drop for Bus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One test's world: bus, directories, and the daemon process when started.
pub struct Env {
    pub bus: Bus,
    pub dir: tempfile::TempDir,
    pub daemon: Option<Child>,
    starts: usize,
}

impl Env {
    /// A bus and empty directories; no daemon yet.
    pub fn new() -> Env {
        Env {
            bus: Bus::start(),
            dir: tempfile::tempdir().unwrap(),
            daemon: None,
            starts: 0,
        }
    }

    /// A bus and a started daemon.
    pub fn with_daemon() -> Env {
        let mut env = Env::new();
        env.start_daemon();
        env
    }

    pub fn state_dir(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    pub fn work_dir(&self) -> PathBuf {
        let d = self.dir.path().join("work");
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// The `attend` command with this test's environment.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(attend_bin());
        c.env("DBUS_SESSION_BUS_ADDRESS", &self.bus.address)
            .env("ATTEND_STATE_DIR", self.state_dir())
            .env("XDG_RUNTIME_DIR", self.dir.path().join("run"))
            .env("HOME", self.dir.path())
            .env_remove("ATTEND_PANE")
            .env_remove("RUST_LOG")
            .current_dir(self.work_dir())
            .stdin(Stdio::null());
        c
    }

    fn log_path(&self) -> PathBuf {
        self.dir.path().join(format!("daemon-{}.log", self.starts))
    }

    /// The daemon's stderr so far (for failure messages).
    pub fn daemon_log(&self) -> String {
        let mut all = String::new();
        for i in 1..=self.starts {
            let p = self.dir.path().join(format!("daemon-{i}.log"));
            all.push_str(&std::fs::read_to_string(p).unwrap_or_default());
        }
        all
    }

    /// Starts `attend daemon --no-tray --no-notifications` and waits until it answers and
    /// has logged "attend daemon ready" (the name is owned, and `Version` answers, before
    /// the spool is replayed and the attach socket bound).
    pub fn start_daemon(&mut self) -> u32 {
        std::fs::create_dir_all(self.dir.path().join("run")).unwrap();
        self.starts += 1;
        let log = std::fs::File::create(self.log_path()).unwrap();
        let child = self
            .cmd()
            .args(["daemon", "--no-tray", "--no-notifications"])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let pid = child.id();
        self.daemon = Some(child);
        self.wait_until("the daemon answers", || {
            self.cmd().arg("version").output().unwrap().status.success()
        });
        // The start-up replay of a large spool (thousands of records after a crash test's
        // outage) runs before "ready" and takes seconds in a debug build on a busy machine.
        let log = self.log_path();
        let start = Instant::now();
        while !std::fs::read_to_string(&log).is_ok_and(|l| l.contains("attend daemon ready")) {
            assert!(
                start.elapsed() < READY_TIMEOUT,
                "timed out waiting for the daemon to be ready\n--- daemon log ---\n{}",
                self.daemon_log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        pid
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

    /// `attend events --json` as values.
    pub fn events(&self) -> Vec<Value> {
        self.ok(&["events", "--json"])
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Polls `check` until it holds or [`TIMEOUT`] passes.
    pub fn wait_until(&self, what: &str, mut check: impl FnMut() -> bool) {
        let start = Instant::now();
        while start.elapsed() < TIMEOUT {
            if check() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!(
            "timed out waiting for {what}\n--- daemon log ---\n{}",
            self.daemon_log()
        );
    }

    /// Polls `attend show PANE --json` until `cond` holds; returns that state.
    pub fn wait_pane(&self, pane: &str, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
        let start = Instant::now();
        let mut last = Value::Null;
        while start.elapsed() < TIMEOUT {
            last = self.show(pane);
            if cond(&last) {
                return last;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!(
            "timed out waiting for {pane}: {what}\nlast state: {last:#}\n--- daemon log ---\n{}",
            self.daemon_log()
        );
    }

    /// Calls a method of the daemon's Attend1 interface with `busctl` (typed arguments as
    /// busctl takes them); returns busctl's `--json=short` output or its error text.
    pub fn busctl(&self, method: &str, signature: &str, args: &[&str]) -> Result<Value, String> {
        self.busctl_on("io.github.attend.Attend1", method, signature, args)
    }

    /// Like [`Env::busctl`] on any interface of the daemon's object.
    pub fn busctl_on(
        &self,
        interface: &str,
        method: &str,
        signature: &str,
        args: &[&str],
    ) -> Result<Value, String> {
        let mut c = Command::new("busctl");
        c.arg(format!("--address={}", self.bus.address))
            .args(["--json=short", "call", "io.github.attend.Attend1"])
            .args(["/io/github/attend/Attend1", interface, method]);
        if !signature.is_empty() {
            c.arg(signature).args(args);
        }
        let out = c.output().expect("busctl must be installed");
        if out.status.success() {
            Ok(serde_json::from_slice(&out.stdout).unwrap_or(Value::Null))
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }

    /// `Hook(agent, "", payload, {pane, delivery_id})` through busctl → the seq.
    pub fn hook(
        &self,
        agent: &str,
        pane: &str,
        payload: &str,
        delivery: &str,
    ) -> Result<u64, String> {
        let v = self.busctl(
            "Hook",
            "sssa{sv}",
            &[
                agent,
                "",
                payload,
                "2",
                "pane",
                "s",
                pane,
                "delivery_id",
                "s",
                delivery,
            ],
        )?;
        Ok(v["data"][0].as_u64().expect("Hook returns t"))
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        if let Some(mut d) = self.daemon.take() {
            // SIGTERM first: the daemon hangs its panes up on the way out.
            let pid = nix::unistd::Pid::from_raw(d.id() as i32);
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(5) {
                if let Ok(Some(_)) = d.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = d.kill();
            let _ = d.wait();
        }
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
pub mod model_server;
