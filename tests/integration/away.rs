//! Away from the desk (docs/away.md): a gate left open while the user is away is pushed
//! once, a delay after they left, to ntfy or a webhook — a local HTTP receiver on
//! 127.0.0.1 here — with one follow-up when it is resolved; nothing at the desk, nothing
//! without an idle source. The idle sources are stand-ins written here: a
//! `org.freedesktop.ScreenSaver` on the test's session bus and a logind
//! (`org.freedesktop.login1`, a session with `LockedHint`/`IdleHint`) on a private
//! "system" bus the daemon reaches through `DBUS_SYSTEM_BUS_ADDRESS`. Hooks go through the
//! real `attend hook claude` with Claude Code's recorded payloads.

use crate::desktop;
use crate::support;

use desktop::{claude_payload, Desk};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::Bus;
use zbus::object_server::SignalEmitter;

/// The configured delay (short: the delay is configurable).
const DELAY: Duration = Duration::from_millis(400);
/// A token as ntfy issues them (made up).
const TOKEN: &str = "tk_awaytestsecret0123456789";
/// The command the gate guards: never in a push unless `include_text = true`.
const COMMAND: &str = "rm -rf build-output";

/// One request the receiver got.
#[derive(Debug, Clone)]
struct Got {
    path: String,
    authorization: Option<String>,
    content_type: Option<String>,
    body: Value,
    at: Instant,
}

/// A tiny HTTP server on 127.0.0.1 that records every request and answers 200.
struct Receiver {
    url: String,
    got: Arc<Mutex<Vec<Got>>>,
}

impl Receiver {
    fn start() -> Receiver {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let port = server.server_addr().to_ip().unwrap().port();
        let got = Arc::new(Mutex::new(Vec::new()));
        let sink = got.clone();
        std::thread::spawn(move || {
            for mut req in server.incoming_requests() {
                let header = |name: &'static str| {
                    req.headers()
                        .iter()
                        .find(|h| h.field.equiv(name))
                        .map(|h| h.value.as_str().to_string())
                };
                let authorization = header("Authorization");
                let content_type = header("Content-Type");
                let mut text = String::new();
                let _ = std::io::Read::read_to_string(req.as_reader(), &mut text);
                sink.lock().unwrap().push(Got {
                    path: req.url().to_string(),
                    authorization,
                    content_type,
                    body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
                    at: Instant::now(),
                });
                let _ = req.respond(tiny_http::Response::from_string("{}"));
            }
        });
        Receiver {
            url: format!("http://127.0.0.1:{port}"),
            got,
        }
    }

    fn got(&self) -> Vec<Got> {
        self.got.lock().unwrap().clone()
    }
}

/// The stand-in screensaver.
struct ScreenSaver {
    active: bool,
}

#[zbus::interface(name = "org.freedesktop.ScreenSaver")]
impl ScreenSaver {
    fn get_active(&self) -> bool {
        self.active
    }

    #[zbus(signal)]
    async fn active_changed(emitter: &SignalEmitter<'_>, active: bool) -> zbus::Result<()>;
}

/// The stand-in logind's manager: one session, `c1`.
struct Manager;

#[zbus::interface(name = "org.freedesktop.login1.Manager")]
impl Manager {
    fn get_session(&self, id: &str) -> zbus::fdo::Result<zbus::zvariant::OwnedObjectPath> {
        if id != "c1" {
            return Err(zbus::fdo::Error::Failed(format!("no session {id}")));
        }
        Ok(zbus::zvariant::OwnedObjectPath::try_from(SESSION_PATH).unwrap())
    }
}

const SESSION_PATH: &str = "/org/freedesktop/login1/session/c1";

/// The stand-in logind's session.
struct Session {
    locked: bool,
    idle: bool,
}

#[zbus::interface(name = "org.freedesktop.login1.Session")]
impl Session {
    #[zbus(property)]
    fn locked_hint(&self) -> bool {
        self.locked
    }

    #[zbus(property)]
    fn idle_hint(&self) -> bool {
        self.idle
    }
}

/// The test's D-Bus side: a runtime and the stand-ins' connections.
struct Side {
    rt: tokio::runtime::Runtime,
    screensaver: Option<zbus::Connection>,
    logind: Option<(Bus, zbus::Connection)>,
}

impl Side {
    fn new() -> Side {
        Side {
            rt: tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap(),
            screensaver: None,
            logind: None,
        }
    }

    /// Puts the stand-in screensaver on `bus`, active or not.
    fn start_screensaver(&mut self, address: &str, active: bool) {
        let address = address.to_string();
        let conn = self.rt.block_on(async move {
            zbus::connection::Builder::address(address.as_str())
                .unwrap()
                .name("org.freedesktop.ScreenSaver")
                .unwrap()
                .serve_at("/org/freedesktop/ScreenSaver", ScreenSaver { active })
                .unwrap()
                .build()
                .await
                .unwrap()
        });
        self.screensaver = Some(conn);
    }

    fn set_screensaver(&self, active: bool) {
        let conn = self.screensaver.clone().unwrap();
        self.rt.block_on(async move {
            let iface = conn
                .object_server()
                .interface::<_, ScreenSaver>("/org/freedesktop/ScreenSaver")
                .await
                .unwrap();
            iface.get_mut().await.active = active;
            ScreenSaver::active_changed(iface.signal_emitter(), active)
                .await
                .unwrap();
        });
    }

    /// Starts a private "system" bus in `dir` with the stand-in logind on it; its address.
    fn start_logind(&mut self, dir: &std::path::Path) -> String {
        std::fs::create_dir_all(dir).unwrap();
        let bus = Bus::without_activation(dir);
        let address = bus.address.clone();
        let conn = self.rt.block_on(async move {
            zbus::connection::Builder::address(address.as_str())
                .unwrap()
                .name("org.freedesktop.login1")
                .unwrap()
                .serve_at("/org/freedesktop/login1", Manager)
                .unwrap()
                .serve_at(
                    SESSION_PATH,
                    Session {
                        locked: false,
                        idle: false,
                    },
                )
                .unwrap()
                .build()
                .await
                .unwrap()
        });
        let address = bus.address.clone();
        self.logind = Some((bus, conn));
        address
    }

    fn set_locked(&self, locked: bool) {
        let conn = self.logind.as_ref().unwrap().1.clone();
        self.rt.block_on(async move {
            let iface = conn
                .object_server()
                .interface::<_, Session>(SESSION_PATH)
                .await
                .unwrap();
            iface.get_mut().await.locked = locked;
            iface
                .get()
                .await
                .locked_hint_changed(iface.signal_emitter())
                .await
                .unwrap();
        });
    }
}

fn gate(session: &str) -> String {
    claude_payload(
        "PermissionRequest.json",
        session,
        &[("tool_input.command", json!(COMMAND))],
    )
}

/// The turn ends: the gate's decision is resolved.
fn stop(session: &str) -> String {
    claude_payload(
        "Stop.json",
        session,
        &[("last_assistant_message", json!("Done"))],
    )
}

/// The daemon's log has no piece of the token: not whole, not cut across the lines of a
/// hex dump (the HTTP client's wire trace prints 16 bytes a line).
fn assert_no_token(log: &str) {
    let chars: Vec<char> = TOKEN.chars().collect();
    for piece in chars.windows(6) {
        let piece: String = piece.iter().collect();
        assert!(
            !log.contains(&piece),
            "{piece:?} of the token is in the daemon's log"
        );
    }
}

/// Starts the daemon with `vars`, logging at debug level and asking for the HTTP client's
/// wire traces too: even so, no token in the log.
fn start(d: &mut Desk, vars: &[(&str, &str)]) {
    let mut all = vec![("RUST_LOG", "debug,ureq=trace,ureq_proto=trace")];
    all.extend_from_slice(vars);
    d.start_daemon_with(&["--no-tray", "--no-notifications"], &all);
}

fn wait_log(d: &Desk, what: &str) {
    wait_log_count(d, what, 1);
}

/// Waits until the daemon's log has `what` at least `n` times.
fn wait_log_count(d: &Desk, what: &str, n: usize) {
    d.wait_until(&format!("{n} log lines {what:?}"), || {
        d.daemon_log().matches(what).count() >= n
    });
}

/// Opens a gate from outside Attend and waits until a pane shows it.
fn open_gate(d: &Desk, session: &str) {
    d.hook(None, &gate(session), &[]);
    d.wait_until("the gate is open", || {
        let panes: Value = serde_json::from_str(&d.ok(&["ls", "--json"])).unwrap();
        panes
            .as_array()
            .is_some_and(|a| a.iter().any(|p| p["attention"] == "permission_required"))
    });
}

/// For the checks that nothing came, where no marker can be waited for (nothing must
/// happen): the delay passes four times over; a wrongly decided push would be due one
/// delay after the gate opened.
fn let_time_pass() {
    std::thread::sleep(DELAY * 4);
}

#[test]
fn a_gate_left_open_while_locked_is_pushed_once_to_ntfy_and_followed_up_once() {
    let mut d = Desk::new();
    let mut side = Side::new();
    let rx = Receiver::start();
    side.start_screensaver(&d.bus.address, false);
    let system = side.start_logind(&d.path("system-bus"));
    d.config(&format!(
        "[away]\nenabled = true\ndelay = \"{}ms\"\nntfy_server = \"{}\"\n\
         ntfy_topic = \"attend-test\"\nntfy_token = \"{TOKEN}\"\n",
        DELAY.as_millis(),
        rx.url
    ));
    start(
        &mut d,
        &[
            ("DBUS_SYSTEM_BUS_ADDRESS", system.as_str()),
            ("XDG_SESSION_ID", "c1"),
        ],
    );
    wait_log(&d, "away: logind session");
    wait_log(&d, "away: the user is at the desk");

    // At the desk: a gate open for several delays is not pushed.
    open_gate(&d, "s1");
    let_time_pass();
    assert_eq!(rx.got().len(), 0, "pushed at the desk: {:?}", rx.got());

    // The session locks: one push, a delay after the lock.
    let locked = Instant::now();
    side.set_locked(true);
    d.wait_until("the push", || !rx.got().is_empty());
    let push = rx.got()[0].clone();
    assert!(
        push.at.duration_since(locked) >= DELAY,
        "pushed {:?} after the lock, before the delay",
        push.at.duration_since(locked)
    );
    assert_eq!(push.path, "/");
    assert_eq!(
        push.authorization.as_deref(),
        Some(format!("Bearer {TOKEN}").as_str())
    );
    let body = &push.body;
    assert_eq!(body["topic"], "attend-test", "{body}");
    let title = body["title"].as_str().unwrap();
    let message = body["message"].as_str().unwrap();
    assert!(
        title.starts_with("Attend on ") && title.ends_with(": permission"),
        "{body}"
    );
    assert!(
        message.starts_with("proj › ") && message.ends_with("waits for your permission"),
        "{body}"
    );
    assert!(
        !body.to_string().contains(COMMAND),
        "the command leaked: {body}"
    );

    // Still open, still locked: no second push.
    let_time_pass();
    assert_eq!(rx.got().len(), 1, "{:?}", rx.got());

    // Resolved (the turn ended): one follow-up.
    d.hook(None, &stop("s1"), &[]);
    d.wait_until("the follow-up", || rx.got().len() >= 2);
    let follow = rx.got()[1].body.clone();
    assert!(
        follow["message"]
            .as_str()
            .unwrap()
            .ends_with("the permission was resolved"),
        "{follow}"
    );
    wait_log(&d, "event=\"resolved\"");
    let_time_pass();
    assert_eq!(rx.got().len(), 2, "{:?}", rx.got());

    let log = d.daemon_log();
    assert_eq!(log.matches("away push sent").count(), 2, "{log}");
    assert_no_token(&log);
}

#[test]
fn the_screensaver_is_an_idle_source_and_include_text_puts_the_command_in_the_webhook() {
    let mut d = Desk::new();
    let mut side = Side::new();
    let rx = Receiver::start();
    side.start_screensaver(&d.bus.address, false);
    d.config(&format!(
        "[away]\nenabled = true\ndelay = \"{}ms\"\nwebhook_url = \"{}/hook/x1\"\n\
         include_text = true\n",
        DELAY.as_millis(),
        rx.url
    ));
    let no_system = format!("unix:path={}", d.path("no-system-bus").display());
    start(&mut d, &[("DBUS_SYSTEM_BUS_ADDRESS", no_system.as_str())]);
    wait_log(&d, "away: the user is at the desk");
    open_gate(&d, "s1");

    side.set_screensaver(true);
    d.wait_until("the webhook", || !rx.got().is_empty());
    let push = rx.got()[0].clone();
    assert_eq!(push.path, "/hook/x1");
    assert_eq!(push.authorization, None);
    assert_eq!(push.content_type.as_deref(), Some("application/json"));
    let b = &push.body;
    assert_eq!(b["source"], "attend.away", "{b}");
    assert_eq!(b["event"], "open", "{b}");
    assert_eq!(b["kind"], "permission_required", "{b}");
    assert_eq!(b["workspace"], "proj", "{b}");
    assert!(b["pane"].as_str().unwrap().starts_with('p'), "{b}");
    assert!(!b["host"].as_str().unwrap().is_empty(), "{b}");
    assert!(b["opened_at"].as_str().unwrap().ends_with('Z'), "{b}");
    assert_eq!(b["text"], format!("Bash: {COMMAND}"), "{b}");

    // Back at the desk, then resolved: the follow-up still comes, once, without text.
    side.set_screensaver(false);
    wait_log_count(&d, "away: the user is at the desk", 2);
    d.hook(None, &stop("s1"), &[]);
    d.wait_until("the follow-up", || rx.got().len() >= 2);
    let f = &rx.got()[1].body;
    assert_eq!(f["event"], "resolved", "{f}");
    assert_eq!(f["pane"], b["pane"], "{f}");
    assert!(f.get("text").is_none(), "{f}");
    // The webhook URL (it may carry a secret) is not logged either.
    assert!(!d.daemon_log().contains("/hook/x1"), "{}", d.daemon_log());
}

#[test]
fn without_an_idle_source_nothing_is_pushed() {
    let mut d = Desk::new();
    let mut side = Side::new();
    let rx = Receiver::start();
    d.config(&format!(
        "[away]\nenabled = true\ndelay = \"{}ms\"\nwebhook_url = \"{}/hook\"\n",
        DELAY.as_millis(),
        rx.url
    ));
    let no_system = format!("unix:path={}", d.path("no-system-bus").display());
    start(&mut d, &[("DBUS_SYSTEM_BUS_ADDRESS", no_system.as_str())]);
    wait_log(&d, "away: no idle source");
    open_gate(&d, "s1");
    let_time_pass();
    assert_eq!(
        rx.got().len(),
        0,
        "pushed without an idle source: {:?}",
        rx.got()
    );

    // A screensaver that appears (already active) is a source from then on: the same
    // gate is pushed a delay later (so the silence above was the missing source).
    side.start_screensaver(&d.bus.address, true);
    d.wait_until("the push once a source is there", || rx.got().len() == 1);
    assert_eq!(rx.got()[0].body["event"], "open");
}

#[test]
fn a_bad_away_entry_is_one_problem_and_the_daemon_starts() {
    let mut d = Desk::new();
    d.config("[away]\nenabled = true\ndelay = \"soon\"\nwebhook_url = \"http://127.0.0.1:9/h\"\n");
    let out = d.attend(&["config", "check"]);
    assert_eq!(out.status.code(), Some(2));
    let printed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(printed.lines().count(), 1, "{printed}");
    assert!(
        printed.contains("away.delay: \"soon\" is not a duration"),
        "{printed}"
    );
    let no_system = format!("unix:path={}", d.path("no-system-bus").display());
    start(&mut d, &[("DBUS_SYSTEM_BUS_ADDRESS", no_system.as_str())]);
    let log = d.daemon_log();
    let warnings = log.lines().filter(|l| l.contains("away.delay")).count();
    assert_eq!(warnings, 1, "{log}");
    assert!(
        log.contains("away pushes on delay=1m"),
        "the valid entries stay: {log}"
    );
}
