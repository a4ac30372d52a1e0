//! Test support for the desktop-surface tests (notifications, tray, status bar): a
//! private D-Bus bus WITHOUT service activation (so nothing but what a test starts is on
//! it), an optional Xvfb display, Debian's real `dunst` notification server, the real
//! `attend daemon` and CLI, and small D-Bus servers written in the test (a fake panel,
//! a StatusNotifierWatcher). Every wait is bounded and fails with the daemon's log.
#![allow(dead_code)]

use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use zbus::zvariant::OwnedValue;

/// How long a condition may take before the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(15);

/// The `attend` binary under test.
pub fn attend_bin() -> &'static str {
    env!("CARGO_BIN_EXE_attend")
}

/// A hook payload recorded from Claude Code 2.1.197 (`tests/fixtures/claude/2.1.197/`),
/// with `set` applied (`a.b` keys reach into objects) and the session id `session`.
pub fn claude_payload(name: &str, session: &str, set: &[(&str, Value)]) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude/2.1.197");
    let observed = dir.join("observed").join(name);
    let path = if observed.exists() {
        observed
    } else {
        dir.join(name)
    };
    let text = std::fs::read_to_string(&path).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["session_id"] = Value::from(session);
    for (key, value) in set {
        let mut target = &mut v;
        let parts: Vec<&str> = key.split('.').collect();
        for p in &parts[..parts.len() - 1] {
            target = &mut target[*p];
        }
        target[parts[parts.len() - 1]] = value.clone();
    }
    v.to_string()
}

/// A `dbus-daemon` on a config of our own: no service directories (no activation), so a
/// notification server or tray watcher is there only when the test starts one.
pub struct Bus {
    child: Child,
    pub address: String,
}

impl Bus {
    pub fn start(dir: &Path) -> Bus {
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
        let mut child = Command::new("dbus-daemon")
            .arg(format!("--config-file={}", config.display()))
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

impl Drop for Bus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An Xvfb server on a free display (`-displayfd`).
pub struct Xvfb {
    child: Child,
    pub display: String,
}

impl Xvfb {
    pub fn start() -> Xvfb {
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-nolisten",
                "tcp",
                "-screen",
                "0",
                "1280x800x24",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb must be installed (xvfb)");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("Xvfb prints its display number");
        let n: u32 = line.trim().parse().expect("a display number");
        Xvfb {
            child,
            display: format!(":{n}"),
        }
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn stop(child: &mut Child) {
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(5) {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// One test's desktop: bus, directories, and what the test started.
pub struct Desk {
    pub dir: tempfile::TempDir,
    pub bus: Bus,
    pub x: Option<Xvfb>,
    pub dunst: Option<Child>,
    pub daemon: Option<Child>,
    starts: usize,
}

impl Desk {
    /// A private bus and empty directories.
    pub fn new() -> Desk {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("run")).unwrap();
        std::fs::create_dir_all(dir.path().join("work")).unwrap();
        std::fs::create_dir_all(dir.path().join("config/attend")).unwrap();
        // A quiet HOME whose Claude self-report directory exists, so the daemon watches
        // that directory rather than a busy ancestor.
        std::fs::create_dir_all(dir.path().join("home/.claude/sessions")).unwrap();
        let bus = Bus::start(dir.path());
        Desk {
            dir,
            bus,
            x: None,
            dunst: None,
            daemon: None,
            starts: 0,
        }
    }

    /// A private bus and an Xvfb display.
    pub fn with_display() -> Desk {
        let mut d = Desk::new();
        d.x = Some(Xvfb::start());
        d
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Environment for every program of the test.
    fn env(&self, c: &mut Command) {
        c.env("DBUS_SESSION_BUS_ADDRESS", &self.bus.address)
            .env("ATTEND_STATE_DIR", self.path("state"))
            .env("XDG_RUNTIME_DIR", self.path("run"))
            .env("XDG_CONFIG_HOME", self.path("config"))
            .env("HOME", self.path("home"))
            .env_remove("ATTEND_PANE")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .env_remove("KITTY_WINDOW_ID")
            .env_remove("WEZTERM_PANE")
            .env_remove("XDG_ACTIVATION_TOKEN");
        match &self.x {
            Some(x) => c.env("DISPLAY", &x.display),
            None => c.env_remove("DISPLAY"),
        };
    }

    /// The `attend` command with this test's environment.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(attend_bin());
        self.env(&mut c);
        c.env_remove("RUST_LOG")
            .current_dir(self.path("work"))
            .stdin(Stdio::null());
        c
    }

    /// Any program with this test's environment.
    pub fn program(&self, name: &str) -> Command {
        let mut c = Command::new(name);
        self.env(&mut c);
        c
    }

    /// Writes `config.toml` for the daemon.
    pub fn config(&self, text: &str) {
        std::fs::write(self.path("config/attend/config.toml"), text).unwrap();
    }

    /// The daemon's stderr so far.
    pub fn daemon_log(&self) -> String {
        (1..=self.starts)
            .map(|i| {
                std::fs::read_to_string(self.path(&format!("daemon-{i}.log"))).unwrap_or_default()
            })
            .collect::<Vec<_>>()
            .join("")
    }

    /// Starts `attend daemon ARGS` and waits until it answers.
    pub fn start_daemon(&mut self, args: &[&str]) {
        self.starts += 1;
        let log = std::fs::File::create(self.path(&format!("daemon-{}.log", self.starts))).unwrap();
        let child = self
            .cmd()
            .arg("daemon")
            .args(args)
            .env("RUST_LOG", "info,attend=debug")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        self.daemon = Some(child);
        self.wait_until("the daemon answers", || {
            self.cmd().arg("version").output().unwrap().status.success()
        });
    }

    /// SIGTERM the daemon and reap it.
    pub fn stop_daemon(&mut self) {
        if let Some(mut d) = self.daemon.take() {
            stop(&mut d);
        }
    }

    /// Starts dunst with a minimal configuration (nothing times out; the context menu's
    /// "dmenu" picks the line containing the text in the file `choice`) and waits until
    /// it owns `org.freedesktop.Notifications`.
    pub fn start_dunst(&mut self) {
        let x = self.x.as_ref().expect("dunst needs the display");
        let pick = self.path("pick.sh");
        std::fs::write(
            &pick,
            format!(
                "#!/bin/sh\ngrep -m1 -F \"$(cat {})\"\n",
                self.path("choice").display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&pick, std::fs::Permissions::from_mode(0o755)).unwrap();
        let rc = self.path("dunstrc");
        std::fs::write(
            &rc,
            format!(
                "[global]\n    dmenu = {}\n    markup = full\n    show_indicators = no\n\
                 [urgency_low]\n    timeout = 0\n[urgency_normal]\n    timeout = 0\n\
                 [urgency_critical]\n    timeout = 0\n",
                pick.display()
            ),
        )
        .unwrap();
        let log = std::fs::File::create(self.path("dunst.log")).unwrap();
        let child = Command::new("dunst")
            .arg("-config")
            .arg(&rc)
            .env("DBUS_SESSION_BUS_ADDRESS", &self.bus.address)
            .env("DISPLAY", &x.display)
            .env("HOME", self.path("home"))
            .env_remove("WAYLAND_DISPLAY")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("dunst must be installed");
        self.dunst = Some(child);
        self.wait_until("dunst owns org.freedesktop.Notifications", || {
            self.name_has_owner("org.freedesktop.Notifications")
        });
    }

    /// Stops dunst (SIGTERM) and waits until the name is free.
    pub fn stop_dunst(&mut self) {
        if let Some(mut d) = self.dunst.take() {
            stop(&mut d);
        }
        self.wait_until("org.freedesktop.Notifications is free", || {
            !self.name_has_owner("org.freedesktop.Notifications")
        });
    }

    /// `busctl call org.freedesktop.DBus … NameHasOwner NAME`.
    pub fn name_has_owner(&self, name: &str) -> bool {
        let out = Command::new("busctl")
            .arg(format!("--address={}", self.bus.address))
            .args([
                "call",
                "org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus",
                "NameHasOwner",
                "s",
                name,
            ])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim() == "b true"
    }

    /// `dunstctl ARGS` on this bus.
    pub fn dunstctl(&self, args: &[&str]) -> Output {
        self.program("dunstctl").args(args).output().unwrap()
    }

    /// Notifications dunst shows now.
    pub fn displayed(&self) -> usize {
        let out = self.dunstctl(&["count", "displayed"]);
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .unwrap_or(usize::MAX)
    }

    /// dunst's history (closed notifications), newest first, as `{key: value}` objects.
    pub fn history(&self) -> Vec<serde_json::Map<String, Value>> {
        let out = self.dunstctl(&["history"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        let Some(list) = v["data"][0].as_array() else {
            return Vec::new();
        };
        list.iter()
            .map(|n| {
                n.as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.clone(), v["data"].clone()))
                    .collect()
            })
            .collect()
    }

    /// Closes every shown notification (they move to the history) and returns the
    /// history.
    pub fn close_all(&self) -> Vec<serde_json::Map<String, Value>> {
        self.dunstctl(&["close-all"]);
        std::thread::sleep(Duration::from_millis(200));
        self.history()
    }

    /// Runs `attend ARGS`.
    pub fn attend(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
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

    /// A pane standing in for Claude Code: `attend run -n NAME --agent claude` of a shell
    /// that runs `attend hook claude < FILE` for every FILE typed into it (so the hook
    /// runs under the pane, with the `ATTEND_PANE` the daemon set, as Claude's hooks do;
    /// keys an answer typed before the path are skipped). Returns the pane id.
    pub fn claude_pane(&self, name: &str) -> String {
        let script = format!(
            "while IFS= read -r l; do f=\"/${{l#*/}}\"; {} hook claude < \"$f\"; done",
            shlex::try_quote(attend_bin()).unwrap()
        );
        let id = self
            .ok(&[
                "run", "-n", name, "--agent", "claude", "--", "sh", "-c", &script,
            ])
            .trim()
            .to_string();
        assert!(id.starts_with('p'), "not a pane id: {id:?}");
        id
    }

    /// `attend show PANE --json`.
    pub fn show(&self, pane: &str) -> Value {
        serde_json::from_str(&self.ok(&["show", pane, "--json"])).unwrap()
    }

    /// Delivers `payload` through the real hook client (`attend hook claude`): inside
    /// pane `pane` (a [`Desk::claude_pane`]; returns once it is typed in — wait for its
    /// effect), or, without a pane, from outside Attend with `vars` in its environment.
    pub fn hook(&self, pane: Option<&str>, payload: &str, vars: &[(&str, &str)]) {
        if let Some(p) = pane {
            let file = self.path(&format!("hook-{}.json", uuid::Uuid::new_v4()));
            std::fs::write(&file, payload).unwrap();
            self.ok(&["send", p, file.to_str().unwrap(), "--enter"]);
            return;
        }
        let mut c = self.cmd();
        c.args(["hook", "claude"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in vars {
            c.env(k, v);
        }
        let mut child = c.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.stderr.is_empty(),
            "attend hook: {}\n--- daemon log ---\n{}",
            String::from_utf8_lossy(&out.stderr),
            self.daemon_log()
        );
    }

    /// `SetFocused(pane, focused)` through busctl.
    pub fn set_focused(&self, pane: &str, focused: bool) {
        let out = Command::new("busctl")
            .arg(format!("--address={}", self.bus.address))
            .args([
                "call",
                "io.github.attend.Attend1",
                "/io/github/attend/Attend1",
                "io.github.attend.Attend1",
                "SetFocused",
                "sb",
                pane,
                if focused { "true" } else { "false" },
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
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
}

impl Drop for Desk {
    fn drop(&mut self) {
        if let Some(mut d) = self.daemon.take() {
            stop(&mut d);
        }
        if let Some(mut d) = self.dunst.take() {
            stop(&mut d);
        }
    }
}

/// What the fake panel was asked (`org.freedesktop.Application` calls) and the
/// `FocusRequested` signals seen.
#[derive(Debug, Default, Clone)]
pub struct PanelLog {
    /// (action, parameters as strings, platform-data keys).
    pub actions: Vec<(String, Vec<String>, Vec<String>)>,
    pub activations: usize,
    pub focus_requested: Vec<String>,
}

struct FakePanel(Arc<Mutex<PanelLog>>);

#[zbus::interface(name = "org.freedesktop.Application")]
impl FakePanel {
    fn activate(&self, _platform_data: HashMap<String, OwnedValue>) {
        self.0.lock().unwrap().activations += 1;
    }

    fn activate_action(
        &self,
        action_name: String,
        parameter: Vec<OwnedValue>,
        platform_data: HashMap<String, OwnedValue>,
    ) {
        let params = parameter
            .iter()
            .map(|v| String::try_from(v.clone()).unwrap_or_default())
            .collect();
        self.0.lock().unwrap().actions.push((
            action_name,
            params,
            platform_data.into_keys().collect(),
        ));
    }

    fn open(&self, _uris: Vec<String>, _platform_data: HashMap<String, OwnedValue>) {}
}

/// A tokio runtime running test-side D-Bus servers; dropped with the test.
pub struct Side {
    pub rt: tokio::runtime::Runtime,
    pub conn: zbus::Connection,
}

impl Side {
    /// A connection to `desk`'s bus.
    pub fn connect(desk: &Desk) -> Side {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let address = desk.bus.address.clone();
        let conn = rt.block_on(async move {
            zbus::connection::Builder::address(address.as_str())
                .unwrap()
                .build()
                .await
                .unwrap()
        });
        Side { rt, conn }
    }

    /// Serves a fake panel (`io.github.attend.Attend`, `org.freedesktop.Application` at
    /// `/io/github/attend/Attend`) and records `FocusRequested` signals.
    pub fn fake_panel(&self) -> Arc<Mutex<PanelLog>> {
        let log = Arc::new(Mutex::new(PanelLog::default()));
        let conn = self.conn.clone();
        let l = log.clone();
        self.rt.block_on(async move {
            conn.object_server()
                .at("/io/github/attend/Attend", FakePanel(l.clone()))
                .await
                .unwrap();
            conn.request_name("io.github.attend.Attend").await.unwrap();
            let rule = zbus::MatchRule::builder()
                .msg_type(zbus::message::Type::Signal)
                .interface("io.github.attend.Attend1")
                .unwrap()
                .member("FocusRequested")
                .unwrap()
                .build();
            let mut stream = zbus::MessageStream::for_match_rule(rule, &conn, None)
                .await
                .unwrap();
            tokio::spawn(async move {
                use zbus::export::futures_core::Stream;
                loop {
                    let next =
                        std::future::poll_fn(|cx| std::pin::Pin::new(&mut stream).poll_next(cx))
                            .await;
                    let Some(Ok(msg)) = next else { break };
                    if let Ok((pane,)) = msg.body().deserialize::<(String,)>() {
                        l.lock().unwrap().focus_requested.push(pane);
                    }
                }
            });
        });
        log
    }
}
