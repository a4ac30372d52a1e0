//! The remote-host acceptance scenario (docs/remote.md), one function run over two
//! transports: a real sshd on 127.0.0.1 to a daemon of a second user
//! (tests/support/sshd.rs, the default ssh carrier) and a plain local command (`--via`)
//! to a second daemon on its own private bus (tests/support/remote.rs). This machine's
//! daemon has a real notification server (Debian's `dunst` under Xvfb, tests/desktop).
//!
//! a. Latency: 200 Claude hooks through the remote's real hook executable, each timed from
//!    just before its process is spawned (as the remote user, on the remote's bus: how a
//!    hook on that host runs) until this daemon emits the `Event` signal of its first
//!    event (data `host`, `remote_seq`); every remote event arrives here once. p50, p99
//!    and max are printed; p99 must be at most 200 ms.
//! b. Gate: a `PermissionRequest` of an external pane there, whose hook run waits
//!    (docs/decisions/0015-answering-external-gates.md), is ONE notification here; its
//!    Allow pressed in dunst is what the waiting run prints for Claude Code, and the
//!    notification closes.
//! c. `attend seen NAME:pN` here clears the attention there (the remote's own `attend
//!    show`).

use crate::desktop;
use crate::support;

use desktop::{claude_payload, Desk, NotifyCalls};
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use support::remote::{add, via_address, wait_listed, wait_state, LINK_TIMEOUT};

/// The remote's name here.
const HOST: &str = "buildbox";
/// Hook runs timed.
const HOOKS: usize = 200;
/// Claude sessions they alternate over.
const SESSIONS: usize = 4;
/// The goal for the 99th percentile of hook → local `Event` (checked with `ATTEND_BENCH=1`).
const P99_LIMIT: Duration = Duration::from_millis(200);

/// The remote host as the scenario drives it: programs run there as its user, in its
/// environment.
struct Far<'a> {
    /// `program` on the remote (its environment, its user).
    program: Box<dyn Fn(&str) -> Command + 'a>,
    /// Its `attend` and its hook executable.
    attend: String,
    hook: String,
}

impl Far<'_> {
    /// `attend ARGS` there; asserts success, returns stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = (self.program)(&self.attend)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "remote attend {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    /// `attend show PANE --json` there.
    fn show(&self, pane: &str) -> Value {
        serde_json::from_str(&self.ok(&["show", pane, "--json"])).unwrap()
    }

    /// The seqs of the remote's own events after `after`, ascending.
    fn seqs_after(&self, after: u64) -> Vec<u64> {
        self.ok(&["events", "--after", &after.to_string(), "--json"])
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["seq"]
                    .as_u64()
                    .unwrap()
            })
            .collect()
    }

    /// The remote pane of Claude session `session`.
    fn pane_of(&self, session: &str) -> String {
        let panes: Vec<Value> = serde_json::from_str(&self.ok(&["ls", "--json"])).unwrap();
        let p = panes.iter().find(|p| p["session_id"] == session);
        p.and_then(|p| p["id"].as_str())
            .unwrap_or_else(|| panic!("no remote pane of {session}: {panes:?}"))
            .to_string()
    }

    /// The hook executable run there (`attend-hook claude`, outside Attend: no
    /// `ATTEND_PANE`) with `payload` on its stdin, stdout and stderr kept.
    fn hook(&self, payload: &str) -> Child {
        let mut child = (self.program)(&self.hook)
            .arg("claude")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the hook starts");
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(payload.as_bytes()).unwrap();
        drop(stdin);
        child
    }
}

/// Waits (bounded) for `child` to exit; its output.
fn exited(mut child: Child, limit: Duration) -> Output {
    let ended = support::poll(limit, || child.try_wait().unwrap().is_some());
    if !ended {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    assert!(ended, "the hook did not exit within {limit:?}: {out:?}");
    out
}

/// One `Event` signal of this daemon about a remote event: when the test received it,
/// the remote seq, the pane.
struct Arrival {
    at: Instant,
    remote_seq: u64,
    pane: String,
}

/// Subscribes to this daemon's `Event` signal (before returning) and hands every remote
/// event of [`HOST`] to the receiver, stamped with the time it was read.
fn arrivals(d: &Desk) -> mpsc::Receiver<Arrival> {
    let conn = zbus::blocking::connection::Builder::address(d.bus.address.as_str())
        .unwrap()
        .build()
        .unwrap();
    let rule = zbus::MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .interface(attend::config::INTERFACE)
        .unwrap()
        .member("Event")
        .unwrap()
        .build();
    let signals = zbus::blocking::MessageIterator::for_match_rule(rule, &conn, Some(4096))
        .expect("subscribed to Event");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _conn = conn;
        for m in signals {
            let Ok(m) = m else { break };
            let at = Instant::now();
            let Ok((_, _, pane, data)) = m.body().deserialize::<attend::client::EventTuple>()
            else {
                continue;
            };
            let data = attend::client::json::dict_json(&data);
            let (Some(HOST), Some(remote_seq)) = (
                data.get("host").and_then(|h| h.as_str()),
                data.get("remote_seq").and_then(|s| s.as_u64()),
            ) else {
                continue;
            };
            let arrival = Arrival {
                at,
                remote_seq,
                pane,
            };
            if tx.send(arrival).is_err() {
                break;
            }
        }
    });
    rx
}

/// The next arrival within [`LINK_TIMEOUT`], or a panic naming `what`.
fn next(rx: &mpsc::Receiver<Arrival>, d: &Desk, what: &str) -> Arrival {
    rx.recv_timeout(LINK_TIMEOUT)
        .unwrap_or_else(|_| panic!("no Event here for {what}\n{}", d.daemon_log()))
}

/// This machine: dunst under Xvfb, the `Notify` calls recorded, the daemon (with
/// notifications; `vars` in its environment) linked to the remote as [`HOST`] with
/// `target` and `extra` (`attend remote add`), connected.
fn local(vars: &[(&str, &str)], target: &str, extra: &[String]) -> (Desk, NotifyCalls) {
    let mut d = Desk::with_display();
    d.timeout = LINK_TIMEOUT;
    d.start_dunst();
    let calls = NotifyCalls::start(&d);
    d.start_daemon_vars(&["--no-tray"], vars);
    add(&d, HOST, target, extra);
    wait_state(&d, HOST, "connected", |r| r["state"] == "connected");
    (d, calls)
}

/// The `Notify` calls so far about [`HOST`]'s permission gates.
fn gate_calls(calls: &NotifyCalls) -> Vec<(String, String)> {
    calls
        .calls()
        .into_iter()
        .filter(|c| {
            c.summary.starts_with(&format!("{HOST} › ")) && c.summary.contains("permission")
        })
        .map(|c| (c.summary, c.body))
        .collect()
}

/// The scenario (the module doc), on the linked `d` and `far`.
fn scenario(d: &Desk, calls: &NotifyCalls, far: &Far, transport: &str) {
    // a. Latency: one hook at a time; the next starts once every event of this one is
    // here.
    let rx = arrivals(d);
    let mut last = far.seqs_after(0).last().copied().unwrap_or(0);
    let mut delays = Vec::with_capacity(HOOKS);
    // The pane here of each session, from its first event.
    let mut panes = std::collections::HashMap::new();
    for i in 0..HOOKS {
        let session = format!("lat-{}", (i / 2) % SESSIONS);
        let event = if i % 2 == 0 {
            "UserPromptSubmit"
        } else {
            "Stop"
        };
        let payload = json!({"session_id": session, "cwd": "/tmp/mirror",
            "hook_event_name": event, "prompt": format!("step {i}"),
            "stop_hook_active": false, "last_assistant_message": format!("done {i}")})
        .to_string();
        let start = Instant::now();
        let hook = far.hook(&payload);
        let first = next(&rx, d, &format!("hook {i} ({event})"));
        assert!(
            first.remote_seq > last,
            "hook {i}: remote seq {} again",
            first.remote_seq
        );
        assert!(
            first.pane.starts_with(&format!("{HOST}:p")),
            "{}",
            first.pane
        );
        let pane = panes.entry(session).or_insert_with(|| first.pane.clone());
        assert_eq!(*pane, first.pane, "hook {i}: the session's pane");
        delays.push(first.at.saturating_duration_since(start));
        let out = exited(hook, LINK_TIMEOUT);
        assert!(
            out.status.success() && out.stdout.is_empty(),
            "hook {i}: {out:?}"
        );
        // Every event the hook made there arrives here, once and in order.
        let made = far.seqs_after(last);
        let mut got = vec![first.remote_seq];
        while got.last() < made.last() {
            got.push(next(&rx, d, &format!("the rest of hook {i}")).remote_seq);
        }
        assert_eq!(got, made, "hook {i}: the remote events here");
        last = *made.last().unwrap();
    }
    delays.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let at = |q: f64| delays[((delays.len() as f64 - 1.0) * q).round() as usize];
    eprintln!(
        "{transport}: remote hook → local Event over {HOOKS} hooks: p50 {:.1} ms, p99 {:.1} ms, \
         max {:.1} ms",
        ms(at(0.5)),
        ms(at(0.99)),
        ms(delays[HOOKS - 1])
    );
    // The p99 is a benchmark's figure (docs/benchmarks.md#remote-hook--local-event-goal-p99--200-ms):
    // its goal is checked when the scenario runs as that benchmark (`ATTEND_BENCH=1`); in a
    // test run on a machine shared with builds it is only printed.
    if std::env::var_os("ATTEND_BENCH").is_some() {
        assert!(at(0.99) <= P99_LIMIT, "{transport}: p99 {:?}", at(0.99));
    }

    // b. Gate: an external pane's PermissionRequest there, its hook run waiting.
    d.close_all();
    assert!(gate_calls(calls).is_empty(), "{:?}", gate_calls(calls));
    let payload = claude_payload(
        "PermissionRequest.json",
        "gate-1",
        &[
            ("tool_input.command", json!("make deploy")),
            ("tool_use_id", json!("toolu_gate_1")),
        ],
    );
    let hook = far.hook(&payload);
    d.wait_until("the remote gate is notified here", || d.displayed() == 1);
    let pane = far.pane_of("gate-1");
    let there = far.show(&pane);
    assert_eq!(there["owned"], false, "{there}");
    let id = format!("{HOST}:{pane}");
    d.wait_gate_waiting(&id);
    let sent = gate_calls(calls);
    assert_eq!(sent.len(), 1, "{sent:?}");
    let (summary, body) = &sent[0];
    assert!(summary.ends_with(" — permission: Bash"), "{summary}");
    eprintln!("{transport}: the gate's notification: {summary:?} / {body:?}");
    assert_eq!(body, "make deploy");

    // Allow pressed on this machine's notification server.
    std::fs::write(d.path("choice"), "allow]").unwrap();
    assert!(d.dunstctl(&["context"]).status.success());
    let out = exited(hook, LINK_TIMEOUT);
    assert!(out.status.success(), "{out:?}");
    let printed: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("the hook printed no decision ({e}): {out:?}"));
    assert_eq!(
        printed,
        json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"}}})
    );
    let there = far.show(&pane);
    assert!(there["pending_decision"].is_null(), "{there}");
    d.wait_until("the gate's notification closes", || d.displayed() == 0);
    for _ in 0..20 {
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(d.displayed(), 0, "a notification again\n{}", d.daemon_log());
        assert_eq!(gate_calls(calls).len(), 1, "{:?}", gate_calls(calls));
    }

    // c. seen here clears the attention there.
    let pane = far.pane_of("lat-0");
    let there = far.show(&pane);
    assert_ne!(there["attention"], "none", "{there}");
    let id = format!("{HOST}:{pane}");
    wait_listed(d, &id, "mirrored", |p| p["attention"] == there["attention"]);
    d.ok(&["seen", &id]);
    d.wait_until("seen there", || far.show(&pane)["attention"] == "none");
    wait_listed(d, &id, "seen mirrored", |p| p["attention"] == "none");
}

#[test]
fn over_a_real_sshd_as_another_user() {
    use support::remote::ssh_on_path;
    use support::sshd::{RemoteUser, Sshd, HOST_ALIAS};
    let Some(user) = support::sshd::require() else {
        return;
    };
    let sshd = Sshd::start(&user);
    let remote = RemoteUser::start(&user);
    let bin = tempfile::tempdir().unwrap();
    let path = ssh_on_path(&sshd, bin.path());
    let command = remote.bridge_command();
    let (d, calls) = local(
        &[("PATH", &path)],
        HOST_ALIAS,
        &["--command".into(), command],
    );
    let far = Far {
        program: Box::new(|p| remote.command(p)),
        attend: remote.bin("attend").display().to_string(),
        hook: remote.bin("attend-hook").display().to_string(),
    };
    scenario(&d, &calls, &far, "ssh");
}

#[test]
fn over_via_a_plain_local_command() {
    let mut remote = Desk::new();
    remote.start_daemon(&["--no-tray", "--no-notifications"]);
    let via = via_address(&remote, &remote.bus.address);
    let (d, calls) = local(&[], "box", &via);
    let attend = support::attend_bin();
    let far = Far {
        program: Box::new(|p| {
            let mut c = remote.program(p);
            c.current_dir(remote.work_dir());
            c
        }),
        attend: attend.to_string(),
        hook: std::path::Path::new(attend)
            .with_file_name("attend-hook")
            .display()
            .to_string(),
    };
    scenario(&d, &calls, &far, "via");
}
