//! Test support for the desktop-surface tests (notifications, tray, status bar): the
//! world of `tests/support` ([`Env`]: the real `attend daemon` and CLI) on a private
//! D-Bus bus WITHOUT service activation (so nothing but what a test starts is on it),
//! with an optional Xvfb display, Debian's real `dunst` notification server, and small
//! D-Bus servers written in the test (a fake panel, a StatusNotifierWatcher). Every wait
//! is bounded and fails with the daemon's log. It needs `support` beside it at the
//! test binary's root (each stage's `main.rs` declares both).
#![allow(dead_code)]

pub mod tray_host;

pub use crate::support::attend_bin;
use crate::support::{stop, Bus, Env, STOP_GRACE};
use serde_json::Value;
use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use zbus::zvariant::OwnedValue;

/// How long a condition may take before the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(15);

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

/// One test's desktop: the [`Env`] (bus without activation, directories, daemon) and what
/// else the test started. Dereferences to the [`Env`].
pub struct Desk {
    pub env: Env,
    pub x: Option<Xvfb>,
    pub dunst: Option<Child>,
    /// Hook runs of external `PermissionRequest`s still waiting on their gate
    /// (docs/decisions/0015-answering-external-gates.md); killed at the end.
    gate_runs: std::sync::Mutex<Vec<Child>>,
}

impl Deref for Desk {
    type Target = Env;
    fn deref(&self) -> &Env {
        &self.env
    }
}

impl DerefMut for Desk {
    fn deref_mut(&mut self) -> &mut Env {
        &mut self.env
    }
}

impl Desk {
    /// A private bus and empty directories.
    pub fn new() -> Desk {
        Desk::on(None)
    }

    /// A private bus and an Xvfb display.
    pub fn with_display() -> Desk {
        Desk::on(Some(Xvfb::start()))
    }

    fn on(x: Option<Xvfb>) -> Desk {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("run")).unwrap();
        std::fs::create_dir_all(dir.path().join("work")).unwrap();
        std::fs::create_dir_all(dir.path().join("config/attend")).unwrap();
        // A quiet HOME whose Claude self-report directory exists, so the daemon watches
        // that directory rather than a busy ancestor.
        std::fs::create_dir_all(dir.path().join("home/.claude/sessions")).unwrap();
        let bus = Bus::without_activation(dir.path());
        let home = dir.path().join("home");
        let mut vars: Vec<(String, Option<OsString>)> = vec![(
            "XDG_CONFIG_HOME".into(),
            Some(dir.path().join("config").into()),
        )];
        for name in [
            "WAYLAND_DISPLAY",
            "TMUX",
            "TMUX_PANE",
            "KITTY_WINDOW_ID",
            "WEZTERM_PANE",
            "XDG_ACTIVATION_TOKEN",
        ] {
            vars.push((name.into(), None));
        }
        vars.push((
            "DISPLAY".into(),
            x.as_ref().map(|x| x.display.clone().into()),
        ));
        Desk {
            env: Env::with(bus, dir, home, vars, TIMEOUT),
            x,
            dunst: None,
            gate_runs: Default::default(),
        }
    }

    /// Writes `config.toml` for the daemon.
    pub fn config(&self, text: &str) {
        std::fs::write(self.path("config/attend/config.toml"), text).unwrap();
    }

    /// Starts `attend daemon ARGS` (logging at debug level) and waits until it is ready.
    pub fn start_daemon(&mut self, args: &[&str]) {
        self.start_daemon_vars(args, &[]);
    }

    /// Like [`Desk::start_daemon`], with `vars` in the daemon's environment too (e.g. a
    /// `PATH` whose `ssh` reaches a test's sshd, tests/support/remote.rs).
    pub fn start_daemon_vars(&mut self, args: &[&str], vars: &[(&str, &str)]) {
        let mut all = vec![("RUST_LOG", "info,attend=debug")];
        all.extend_from_slice(vars);
        self.env.start_daemon_with(args, &all);
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
            stop(&mut d, STOP_GRACE);
        }
        self.wait_until("org.freedesktop.Notifications is free", || {
            !self.name_has_owner("org.freedesktop.Notifications")
        });
    }

    /// `NameHasOwner(name)` of the bus (`org.freedesktop.DBus`), through the test's
    /// connection.
    pub fn name_has_owner(&self, name: &str) -> bool {
        let bus = zbus::blocking::fdo::DBusProxy::new(self.connection()).unwrap();
        bus.name_has_owner(name.try_into().unwrap()).unwrap()
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
        self.wait_until("dunst closed every notification", || self.displayed() == 0);
        self.history()
    }

    /// A pane standing in for Claude Code: `attend run -n NAME --agent claude` of a shell
    /// that runs `attend hook claude < FILE` for every FILE typed into it (so the hook
    /// runs under the pane, with the `ATTEND_PANE` the daemon set, as Claude's hooks do).
    /// For a `PermissionRequest` it then draws Claude Code 2.1.332's recorded permission
    /// dialog (an answer's keys come from the dialog on screen; drawn after the hook, so
    /// the hook's gate is what opens the decision and its notification, not the chrome's
    /// reading of the dialog, which won that race once on a loaded machine) and waits for
    /// one key: an answer clears the dialog; a `/` starts the next file's path.
    /// Returns the pane id.
    pub fn claude_pane(&self, name: &str) -> String {
        let dialog = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/screens/claude/2.1.332/permission-dialog.txt"
        );
        let script = format!(
            "A={}; D={}; pending=; while :; do \
               if [ -n \"$pending\" ]; then l=$pending; pending=; else IFS= read -r l || break; fi; \
               f=\"/${{l#*/}}\"; gate=; grep -q '\"PermissionRequest\"' \"$f\" && gate=1; \
               \"$A\" hook claude < \"$f\"; \
               [ -n \"$gate\" ] && tail -n 16 \"$D\"; \
               if [ -n \"$gate\" ]; then \
                 stty -icanon -echo min 1; k=$(dd bs=1 count=1 2>/dev/null); \
                 if [ \"$k\" = / ]; then IFS= read -r rest; pending=\"/$rest\"; fi; \
                 stty icanon echo; printf '\\033[H\\033[2J'; \
               fi; \
             done",
            shlex::try_quote(attend_bin()).unwrap(),
            shlex::try_quote(dialog).unwrap()
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

    /// Delivers `payload` through the real hook client (`attend hook claude`): inside
    /// pane `pane` (a [`Desk::claude_pane`]; returns once it is typed in — wait for its
    /// effect), or, without a pane, from outside Attend with `vars` in its environment.
    /// From outside, a `PermissionRequest` run waits on its gate for a choice made in
    /// Attend: it is left running (wait for its effect) and ended with the desk.
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
        let event = serde_json::from_str::<Value>(payload)
            .ok()
            .and_then(|v| v["hook_event_name"].as_str().map(str::to_string));
        if event.as_deref() == Some("PermissionRequest") {
            self.gate_runs.lock().unwrap().push(child);
            return;
        }
        let out = child.wait_with_output().unwrap();
        assert!(
            out.stderr.is_empty(),
            "attend hook: {}\n--- daemon log ---\n{}",
            String::from_utf8_lossy(&out.stderr),
            self.daemon_log()
        );
    }
}

impl Drop for Desk {
    fn drop(&mut self) {
        if let Some(mut d) = self.env.daemon.take() {
            stop(&mut d, STOP_GRACE);
        }
        if let Some(mut d) = self.dunst.take() {
            stop(&mut d, STOP_GRACE);
        }
        for mut run in self.gate_runs.lock().unwrap().drain(..) {
            let _ = run.kill();
            let _ = run.wait();
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
        Side::on(&desk.bus.address)
    }

    /// A connection to the bus at `address`.
    pub fn on(address: &str) -> Side {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let address = address.to_string();
        let conn = rt.block_on(async move {
            let conn = zbus::connection::Builder::address(address.as_str())
                .unwrap()
                .build()
                .await
                .unwrap();
            // The object server's dispatch task runs before any name is requested here: a
            // call that came first (the daemon's RegisterStatusNotifierItem as soon as the
            // watcher's name appears) would be dropped unanswered.
            conn.object_server();
            attend::service::daemon::object_server_ready(&conn).await;
            conn
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

/// One `Notify` call as it went over the bus: summary, body, actions and hints.
#[derive(Debug, Clone)]
pub struct NotifyCall {
    pub summary: String,
    pub body: String,
    /// The actions as sent: key, label, key, label, ….
    pub actions: Vec<String>,
    pub hints: HashMap<String, OwnedValue>,
}

impl NotifyCall {
    /// The string hint `name`, when there is one.
    pub fn hint_str(&self, name: &str) -> Option<String> {
        self.hints
            .get(name)
            .and_then(|v| String::try_from(v.try_clone().ok()?).ok())
    }
}

/// Every `Notify` call on `desk`'s bus, whoever serves it, recorded by a monitor
/// connection (`org.freedesktop.DBus.Monitoring.BecomeMonitor`; the test bus's policy
/// allows it): what the daemon asked the real notification server, hints included, which
/// the server itself does not show.
pub struct NotifyCalls {
    calls: Arc<Mutex<Vec<NotifyCall>>>,
}

impl NotifyCalls {
    /// Starts monitoring; returns once the bus has made the connection a monitor.
    pub fn start(desk: &Desk) -> NotifyCalls {
        let conn = zbus::blocking::connection::Builder::address(desk.bus.address.as_str())
            .unwrap()
            .build()
            .unwrap();
        conn.call_method(
            Some("org.freedesktop.DBus"),
            "/org/freedesktop/DBus",
            Some("org.freedesktop.DBus.Monitoring"),
            "BecomeMonitor",
            &(
                vec![
                    "type='method_call',interface='org.freedesktop.Notifications',member='Notify'",
                ],
                0u32,
            ),
        )
        .expect("the test bus lets a connection become a monitor");
        let calls = Arc::new(Mutex::new(Vec::new()));
        let sink = calls.clone();
        std::thread::spawn(move || {
            type Args = (
                String,
                u32,
                String,
                String,
                String,
                Vec<String>,
                HashMap<String, OwnedValue>,
                i32,
            );
            for m in zbus::blocking::MessageIterator::from(&conn) {
                let Ok(m) = m else { break };
                if m.header().member().map_or(true, |n| n.as_str() != "Notify") {
                    continue;
                }
                if let Ok((_, _, _, summary, body, actions, hints, _)) =
                    m.body().deserialize::<Args>()
                {
                    sink.lock().unwrap().push(NotifyCall {
                        summary,
                        body,
                        actions,
                        hints,
                    });
                }
            }
        });
        NotifyCalls { calls }
    }

    /// The calls so far.
    pub fn calls(&self) -> Vec<NotifyCall> {
        self.calls.lock().unwrap().clone()
    }
}
