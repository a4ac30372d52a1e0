//! `attend status` (docs/desktop-surfaces.md): the one-shot formats, and `--format
//! waybar --follow` printing a new line on every change — measured from the daemon's
//! `Event` signal to the line — and carrying on across a daemon restart.

use crate::desktop;

use desktop::{claude_payload, Desk, Side};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A running `attend status … --follow` and its lines, stamped when read.
struct Follow {
    child: Child,
    lines: mpsc::Receiver<(Instant, String)>,
}

impl Follow {
    fn start(d: &Desk, format: &str) -> Follow {
        let mut child = d
            .cmd()
            .args(["status", "--format", format, "--follow"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        Follow { child, lines }
    }

    /// The next line, within `desktop::TIMEOUT`.
    fn next(&self, d: &Desk, what: &str) -> (Instant, String) {
        self.lines
            .recv_timeout(desktop::TIMEOUT)
            .unwrap_or_else(|_| {
                let ls = String::from_utf8_lossy(&d.attend(&["ls"]).stdout).into_owned();
                let ev = String::from_utf8_lossy(&d.attend(&["events"]).stdout).into_owned();
                let tail: Vec<&str> = ev.lines().rev().take(12).collect();
                panic!(
                    "no status line: {what}\n{ls}\nlast events:\n{}\n--- daemon log ---\n{}",
                    tail.join("\n"),
                    d.daemon_log()
                )
            })
    }

    fn next_json(&self, d: &Desk, what: &str) -> (Instant, Value) {
        let (t, line) = self.next(d, what);
        (
            t,
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line:?}: {e}")),
        )
    }

    /// Nothing more within `wait`.
    fn quiet(&self, wait: Duration) -> Option<String> {
        self.lines.recv_timeout(wait).ok().map(|(_, l)| l)
    }
}

impl Drop for Follow {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The daemon's `Event` signals as the test sees them: (received at, kind).
fn events(side: &Side) -> mpsc::Receiver<(Instant, String)> {
    let (tx, rx) = mpsc::channel();
    let conn = side.conn.clone();
    side.rt.block_on(async move {
        let rule = zbus::MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .interface("io.github.attend.Attend1")
            .unwrap()
            .member("Event")
            .unwrap()
            .build();
        let mut stream = zbus::MessageStream::for_match_rule(rule, &conn, None)
            .await
            .unwrap();
        tokio::spawn(async move {
            use zbus::export::futures_core::Stream;
            loop {
                let next =
                    std::future::poll_fn(|cx| std::pin::Pin::new(&mut stream).poll_next(cx)).await;
                let Some(Ok(msg)) = next else { break };
                let at = Instant::now();
                if let Ok((_, kind, _, _)) = msg.body().deserialize::<(
                    u64,
                    String,
                    String,
                    std::collections::HashMap<String, zbus::zvariant::OwnedValue>,
                )>() {
                    if tx.send((at, kind)).is_err() {
                        break;
                    }
                }
            }
        });
    });
    rx
}

fn stop(session: &str, message: &str) -> String {
    claude_payload(
        "Stop.json",
        session,
        &[("last_assistant_message", json!(message))],
    )
}

/// `(p50, p99, max)` in milliseconds.
fn percentiles(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let at = |q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize];
    (at(0.5), at(0.99), *v.last().unwrap())
}

#[test]
fn waybar_follow_prints_a_line_per_change_and_survives_a_restart() {
    let mut d = Desk::new();
    d.start_daemon(&["--no-tray", "--no-notifications"]);
    let side = Side::connect(&d);
    let signals = events(&side);
    let follow = Follow::start(&d, "waybar");
    let (_, first) = follow.next_json(&d, "the first line");
    assert_eq!(
        first,
        json!({"text": "all seen", "tooltip": "0 panes, nothing needs you", "class": "none", "alt": "none"})
    );

    // A change per round: a completion (unread), then mark seen. Each one is one line;
    // the delay is measured from the test's copy of the daemon's `Event` signal.
    let mut delays = Vec::new();
    const ROUNDS: usize = 40;
    for round in 0..ROUNDS {
        d.hook(None, &stop("bench", &format!("round {round} done")), &[]);
        let (line_at, line) = follow.next_json(&d, "the completion");
        assert_eq!(line["class"], "unread", "{line}");
        assert_eq!(line["text"], "1 unread");
        let pane = "p1";
        assert!(
            line["tooltip"].as_str().unwrap().contains(&format!(
                "next: {pane} proj › p1 — done: round {round} done"
            )),
            "{line}"
        );
        let signal_at = loop {
            let (at, kind) = signals
                .recv_timeout(desktop::TIMEOUT)
                .expect("the Event signal");
            if kind == "attention.created" {
                break at;
            }
        };
        delays.push(line_at.saturating_duration_since(signal_at).as_secs_f64() * 1000.0);

        d.ok(&["seen", pane]);
        // A line for an unrelated change (e.g. a pane.changed racing the seen) may come
        // first: wait, bounded, for the line that shows the cleared attention.
        let (mut line_at, mut line) = follow.next_json(&d, "mark seen");
        for _ in 0..5 {
            if line["class"] == "none" {
                break;
            }
            (line_at, line) = follow.next_json(&d, "mark seen");
        }
        assert_eq!(line["class"], "none", "{line}");
        let signal_at = loop {
            let (at, kind) = signals
                .recv_timeout(desktop::TIMEOUT)
                .expect("the Event signal");
            if kind == "attention.cleared" {
                break at;
            }
        };
        delays.push(line_at.saturating_duration_since(signal_at).as_secs_f64() * 1000.0);
    }
    let (p50, p99, max) = percentiles(delays.clone());
    println!(
        "status --follow: Event signal → waybar line over {} changes: p50 {p50:.1} ms, p99 {p99:.1} ms, max {max:.1} ms",
        delays.len()
    );
    assert!(max < 2000.0, "a line took {max:.0} ms");
    assert_eq!(
        follow.quiet(Duration::from_millis(300)),
        None,
        "one line per change"
    );

    // The daemon stops: the offline line; it comes back: the state again.
    d.stop_daemon();
    let (_, line) = follow.next_json(&d, "offline");
    assert_eq!(line["class"], "offline");
    assert_eq!(line["text"], "attend is not running");
    d.start_daemon(&["--no-tray", "--no-notifications"]);
    let (_, line) = follow.next_json(&d, "back online");
    assert_eq!(line["class"], "none", "{line}");
    assert_eq!(line["tooltip"], "1 pane, nothing needs you");
    d.hook(None, &stop("bench", "after the restart"), &[]);
    d.wait_until("the completion after the restart", || {
        d.show("p1")["attention"] == "unread"
    });
    let (_, line) = follow.next_json(&d, "a change after the restart");
    assert_eq!(line["class"], "unread", "{line}");
}

#[test]
fn one_shot_formats_agree_and_say_when_the_daemon_is_down() {
    let mut d = Desk::new();
    d.start_daemon(&["--no-tray", "--no-notifications"]);
    let p1 = d.claude_pane("api");
    d.hook(
        Some(&p1),
        &claude_payload(
            "PermissionRequest.json",
            "s1",
            &[("tool_input.command", json!("npm test"))],
        ),
        &[],
    );
    d.wait_until("the gate", || {
        d.show(&p1)["attention"] == "permission_required"
    });
    let next = format!("next: {p1} work › api — permission: Bash `npm test`");

    let plain = d.ok(&["status"]);
    assert_eq!(plain, format!("1 permission — {next}\n"));
    let j: Value = serde_json::from_str(&d.ok(&["status", "--format", "json"])).unwrap();
    assert_eq!(j["worst"], "permission_required");
    assert_eq!(j["counts"]["permission_required"], 1);
    assert_eq!(j["counts"]["unread"], 0);
    assert_eq!(j["next"]["pane"], p1.as_str());
    let w: Value = serde_json::from_str(&d.ok(&["status", "--format", "waybar"])).unwrap();
    assert_eq!(w["class"], "permission_required");
    assert_eq!(w["alt"], "permission_required");
    assert_eq!(w["tooltip"], format!("permission_required: 1\n{next}"));
    let i: Value = serde_json::from_str(&d.ok(&["status", "--format", "i3bar"])).unwrap();
    assert_eq!(i[0]["name"], "attend");
    assert_eq!(i[0]["urgent"], true);
    assert_eq!(i[0]["full_text"], format!("1 permission — {next}"));

    // i3bar --follow speaks the protocol: header, the array, then elements.
    let follow = Follow::start(&d, "i3bar");
    assert_eq!(follow.next(&d, "header").1, r#"{"version":1}"#);
    assert_eq!(follow.next(&d, "array").1, "[");
    let (_, first) = follow.next(&d, "first");
    assert!(first.starts_with("[{"), "{first}");
    d.ok(&["answer", &p1, "deny"]);
    let (_, second) = follow.next(&d, "second");
    assert!(second.starts_with(",[{"), "{second}");
    drop(follow);

    d.stop_daemon();
    let down = d.attend(&["status"]);
    assert_eq!(down.status.code(), Some(3));
    let w: Value = serde_json::from_str(&d.ok(&["status", "--format", "waybar"])).unwrap();
    assert_eq!(w["class"], "offline");
}

/// `attend demo --live` drives real panes through the real hook path: within a minute
/// the status bar shows a permission gate, a completion, a failure and work to review;
/// answering the gate lets its pane finish.
#[test]
fn the_live_demo_shows_a_gate_a_completion_a_failure_and_a_review() {
    let mut d = Desk::new();
    d.start_daemon(&["--no-tray", "--no-notifications"]);
    let out = d.ok(&["demo", "--live"]);
    assert!(out.contains("p1  webapp › api"), "{out}");
    let start = Instant::now();
    let status =
        || -> Value { serde_json::from_str(&d.ok(&["status", "--format", "json"])).unwrap() };
    let mut last = Value::Null;
    while start.elapsed() < Duration::from_secs(60) {
        last = status();
        let c = &last["counts"];
        if c["permission_required"] == 1 && c["error"] == 1 && c["unread"] == 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    let c = &last["counts"];
    assert!(
        c["permission_required"] == 1 && c["error"] == 1 && c["unread"] == 2,
        "after {:?}: {last}\n{}",
        start.elapsed(),
        d.daemon_log()
    );
    assert_eq!(last["worst"], "error");
    assert_eq!(d.show("p3")["lifecycle"], "failed");
    assert_eq!(
        d.show("p4")["last_message"],
        "Ready for your review: 4 suggestions for README.md."
    );
    d.ok(&["answer", "p1", "allow"]);
    d.wait_until("the api pane finishes after the answer", || {
        let p = d.show("p1");
        p["lifecycle"] == "done" && p["last_message"] == "All 42 tests pass."
    });
}
