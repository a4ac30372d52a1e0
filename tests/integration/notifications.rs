//! Desktop notifications against a REAL notification server (docs/desktop-surfaces.md):
//! Debian's `dunst` under Xvfb on a private bus, the real `attend daemon`, hooks through
//! the real `attend hook claude` client with Claude Code's recorded payloads.
//! `dunstctl count/history` shows what arrived; `dunstctl action 0` clicks (the default
//! action); `dunstctl context` picks a button through the `dmenu` of dunst's config.

use crate::desktop;
use crate::support;

use desktop::{claude_payload, Desk, Side};
use serde_json::{json, Value};
use std::time::Duration;

fn gate(session: &str, command: &str, id: &str) -> String {
    claude_payload(
        "PermissionRequest.json",
        session,
        &[
            ("tool_input.command", json!(command)),
            ("tool_use_id", json!(id)),
        ],
    )
}

fn stop(session: &str, message: &str) -> String {
    claude_payload(
        "Stop.json",
        session,
        &[("last_assistant_message", json!(message))],
    )
}

fn started() -> Desk {
    let mut d = Desk::with_display();
    d.start_dunst();
    d.start_daemon(&["--no-tray"]);
    d
}

fn text(n: &serde_json::Map<String, Value>, key: &str) -> String {
    n[key].as_str().unwrap_or_default().to_string()
}

/// Stays at `n` for a while (nothing else arrives).
fn stays(d: &Desk, n: usize, what: &str) {
    for _ in 0..10 {
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(
            d.displayed(),
            n,
            "{what}\n--- daemon log ---\n{}",
            d.daemon_log()
        );
    }
}

#[test]
fn a_gate_raises_one_notification_a_newer_one_replaces_it_and_an_answer_closes_it() {
    let d = started();
    let p1 = d.claude_pane("api");
    d.hook(Some(&p1), &gate("s1", "npm test", "toolu_1"), &[]);
    d.wait_until("one notification", || d.displayed() == 1);

    // A second gate on the same pane: the same notification, new text.
    d.hook(Some(&p1), &gate("s1", "npm run lint", "toolu_2"), &[]);
    d.wait_until("the gate replaced", || {
        d.show(&p1)["pending_decision"]["prompt"] == "Bash: npm run lint"
    });
    stays(
        &d,
        1,
        "a second gate on the same pane replaces, never piles up",
    );

    // Answering clears the attention: the notification is closed.
    d.ok(&["answer", &p1, "allow"]);
    d.wait_until("the notification closed", || d.displayed() == 0);
    let history = d.history();
    assert_eq!(history.len(), 1, "one notification in all: {history:?}");
    let n = &history[0];
    // Where and what in the summary, the command once in the body.
    assert_eq!(text(n, "summary"), "work › api — permission: Bash");
    assert_eq!(text(n, "body"), "npm run lint");
    assert_eq!(text(n, "appname"), "Attend");
    assert_eq!(text(n, "category"), "x-attend.permission_required");
    assert_eq!(text(n, "default_action_name"), "default");
    assert!(
        text(n, "icon_path").is_empty() || text(n, "icon_path").contains("attend"),
        "{n:?}"
    );
}

#[test]
fn a_click_focuses_the_pane_and_the_gate_stays_and_allow_answers_it() {
    let d = started();
    let side = Side::connect(&d);
    let panel = side.fake_panel();
    let p1 = d.claude_pane("api");
    d.hook(Some(&p1), &gate("s1", "npm test", "toolu_1"), &[]);
    d.wait_until("one notification", || d.displayed() == 1);
    assert!(d.show(&p1)["last_seen_at"].is_null());

    // Click: `dunstctl action 0` invokes the default action of the notification.
    let out = d.dunstctl(&["action", "0"]);
    assert!(out.status.success());
    d.wait_until("the click marks the pane seen", || {
        !d.show(&p1)["last_seen_at"].is_null()
    });
    let pane = d.show(&p1);
    // Seed 000: required attention survives a notification click.
    assert_eq!(pane["attention"], "permission_required");
    assert_eq!(pane["pending_decision"]["prompt"], "Bash: npm test");
    assert_eq!(pane["lifecycle"], "blocked");
    d.wait_until("the panel was raised on the pane", || {
        let log = panel.lock().unwrap();
        log.actions.iter().any(|(a, params, _)| {
            a == "show-pane" && params.as_slice() == std::slice::from_ref(&p1)
        })
    });
    d.wait_until("FocusRequested", || {
        panel.lock().unwrap().focus_requested == vec![p1.clone()]
    });
    d.wait_until("the clicked notification went away", || d.displayed() == 0);

    // A newer gate, answered with the notification's Allow button.
    d.hook(Some(&p1), &gate("s1", "npm run build", "toolu_2"), &[]);
    d.wait_until("the new gate's notification", || d.displayed() == 1);
    std::fs::write(d.path("choice"), "allow]").unwrap();
    let out = d.dunstctl(&["context"]);
    assert!(out.status.success());
    d.wait_until("Allow answered the gate", || {
        d.show(&p1)["pending_decision"].is_null()
    });
    let events = d.ok(&["events", "--json"]);
    let answered = events
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .any(|e| {
            e["kind"] == "decision.resolved" && e["how"] == "answered" && e["choice"] == "allow"
        });
    assert!(answered, "{events}");
    d.wait_until("the answered gate's notification closed", || {
        d.displayed() == 0
    });
}

#[test]
fn a_focused_pane_gets_no_notification() {
    let d = started();
    let p1 = d.claude_pane("api");
    let p2 = d.claude_pane("tests");
    d.set_focused(&p2, true);
    d.hook(Some(&p2), &stop("s2", "Focused work done"), &[]);
    d.wait_until("p2 is done", || d.show(&p2)["lifecycle"] == "done");
    // Required attention is raised on a focused pane, but not notified either.
    d.hook(Some(&p2), &gate("s2", "rm -rf build", "toolu_9"), &[]);
    d.wait_until("p2's gate is open", || {
        d.show(&p2)["attention"] == "permission_required"
    });
    d.hook(Some(&p1), &stop("s1", "Unfocused work done"), &[]);
    d.wait_until("p1's completion is notified", || d.displayed() == 1);
    stays(&d, 1, "the focused pane raised nothing");
    let history = d.close_all();
    assert_eq!(history.len(), 1, "{history:?}");
    assert_eq!(text(&history[0], "summary"), "work › api — done");
    assert_eq!(text(&history[0], "body"), "Unfocused work done");
}

#[test]
fn escape_sequences_arrive_stripped_and_markup_escaped() {
    let d = started();
    let p1 = d.claude_pane("api");
    d.hook(
        Some(&p1),
        &stop(
            "s1",
            "\u{1b}[31mAll tests pass\u{1b}[0m\u{7}\u{1b}]0;owned\u{7} <b>really</b>",
        ),
        &[],
    );
    d.wait_until("the completion is notified", || d.displayed() == 1);
    let history = d.close_all();
    assert_eq!(history.len(), 1, "{history:?}");
    let n = &history[0];
    assert_eq!(text(n, "body"), "All tests pass &lt;b&gt;really&lt;/b&gt;");
    assert_eq!(text(n, "summary"), "work › api — done");
    assert!(!text(n, "message").contains('\u{1b}'));
}

#[test]
fn without_a_server_the_daemon_logs_once_and_recovers_when_one_appears() {
    let mut d = Desk::with_display();
    d.start_daemon(&["--no-tray"]);
    let p1 = d.claude_pane("api");
    let p2 = d.claude_pane("tests");
    d.hook(Some(&p1), &gate("s1", "npm test", "toolu_1"), &[]);
    d.hook(Some(&p2), &stop("s2", "first"), &[]);
    d.hook(Some(&p2), &gate("s2", "make", "toolu_2"), &[]);
    d.wait_until("p2's gate", || {
        d.show(&p2)["attention"] == "permission_required"
    });
    let log = d.daemon_log();
    assert_eq!(
        log.matches("no notification server on the bus").count(),
        1,
        "logged once:\n{log}"
    );
    // The daemon kept working and answers.
    d.ok(&["ls"]);

    // A server appears: the gates still open are announced.
    d.start_dunst();
    d.wait_until("both open gates announced", || d.displayed() == 2);

    // The server restarts: they are announced again.
    d.stop_dunst();
    d.start_dunst();
    d.wait_until("announced again after the restart", || d.displayed() == 2);
    let history = d.close_all();
    let summaries: Vec<String> = history.iter().map(|n| text(n, "summary")).collect();
    assert!(
        summaries.contains(&"work › api — permission: Bash".to_string()),
        "{summaries:?}"
    );
}

/// A private tmux server, killed on drop.
struct Tmux<'a> {
    desk: &'a Desk,
    sock: String,
}

impl Tmux<'_> {
    fn run(&self, args: &[&str]) -> String {
        let out = self
            .desk
            .program("tmux")
            .args(["-S", &self.sock])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

impl Drop for Tmux<'_> {
    fn drop(&mut self) {
        let _ = self
            .desk
            .program("tmux")
            .args(["-S", &self.sock, "kill-server"])
            .output();
    }
}

#[test]
fn a_click_on_an_external_pane_in_tmux_selects_its_tmux_pane() {
    let d = started();
    let tmux = Tmux {
        desk: &d,
        sock: d.path("tmux.sock").to_str().unwrap().to_string(),
    };
    tmux.run(&[
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        "agents",
        "-x",
        "120",
        "-y",
        "30",
    ]);
    let payload_file = d.path("gate.json");
    std::fs::write(
        &payload_file,
        gate("external-1", "cargo publish", "toolu_x"),
    )
    .unwrap();
    // The agent's hook runs inside tmux window 1, outside Attend (no ATTEND_PANE).
    let script = format!(
        "{} hook claude < {}; exec sleep 600",
        desktop::attend_bin(),
        payload_file.display()
    );
    tmux.run(&["new-window", "-t", "agents:1", &script]);
    let tmux_pane = tmux.run(&["display-message", "-p", "-t", "agents:1", "#{pane_id}"]);
    d.wait_until("the external pane's notification", || d.displayed() == 1);
    tmux.run(&["select-window", "-t", "agents:0"]);
    let window = || tmux.run(&["display-message", "-p", "-t", "agents", "#{window_index}"]);
    assert_eq!(window(), "0");

    let out = d.dunstctl(&["action", "0"]);
    assert!(out.status.success(), "{out:?}");
    d.wait_until("tmux shows the agent's window", || window() == "1");
    assert_eq!(
        tmux.run(&["display-message", "-p", "-t", "agents", "#{pane_id}"]),
        tmux_pane
    );
    let panes: Value = serde_json::from_str(&d.ok(&["ls", "--json"])).unwrap();
    let ext = panes
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["session_id"] == "external-1")
        .expect("the external pane");
    assert_eq!(ext["owned"], false);
    assert!(!ext["last_seen_at"].is_null(), "the click marked it seen");
    assert_eq!(ext["attention"], "permission_required");
}

#[test]
fn removing_a_pane_withdraws_its_notification() {
    let d = started();
    // An external pane (a hook from outside Attend; its agent, this test, lives on) with
    // an open gate: only the removal can close its notification.
    d.hook(None, &gate("ext-rm", "rm -rf build", "toolu_rm"), &[]);
    d.wait_until("the gate's notification", || d.displayed() == 1);
    let panes: Value = serde_json::from_str(&d.ok(&["ls", "--json"])).unwrap();
    let pane = panes[0]["id"].as_str().unwrap().to_string();
    assert_eq!(panes[0]["attention"], "permission_required");
    d.ok(&["rm", &pane]);
    d.wait_until("the notification withdrawn", || d.displayed() == 0);
    assert_eq!(d.history().len(), 1, "closed, not replaced");
}

/// A notification server in the test, to time `Notify` calls.
struct TimingServer(
    std::sync::mpsc::Sender<std::time::Instant>,
    std::sync::atomic::AtomicU32,
);

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl TimingServer {
    #[allow(clippy::too_many_arguments)]
    fn notify(
        &self,
        _app_name: String,
        replaces_id: u32,
        _app_icon: String,
        _summary: String,
        _body: String,
        _actions: Vec<String>,
        _hints: std::collections::HashMap<String, zbus::zvariant::OwnedValue>,
        _expire_timeout: i32,
    ) -> u32 {
        let _ = self.0.send(std::time::Instant::now());
        if replaces_id != 0 {
            replaces_id
        } else {
            self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
        }
    }

    fn close_notification(&self, _id: u32) {}

    fn get_capabilities(&self) -> Vec<String> {
        vec!["actions".into(), "body".into(), "body-markup".into()]
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        (
            "timing".into(),
            "attend tests".into(),
            "1".into(),
            "1.2".into(),
        )
    }
}

/// Hook → `Notify` latency over 1000 permission gates (each replaces the previous
/// notification): from the test's `Hook` call to the server receiving `Notify`. The
/// numbers go to docs/benchmarks.md; the bound here is generous.
#[test]
fn hook_to_notify_latency() {
    let mut d = Desk::new();
    let side = Side::connect(&d);
    let (tx, arrivals) = std::sync::mpsc::channel();
    let conn = side.conn.clone();
    side.rt.block_on(async {
        conn.object_server()
            .at(
                "/org/freedesktop/Notifications",
                TimingServer(tx, std::sync::atomic::AtomicU32::new(0)),
            )
            .await
            .unwrap();
        conn.request_name("org.freedesktop.Notifications")
            .await
            .unwrap();
    });
    d.start_daemon(&["--no-tray"]);
    let attend = side
        .rt
        .block_on(attend::client::Attend1Proxy::new(&side.conn))
        .unwrap();
    let mut delays = Vec::new();
    const N: usize = 1000;
    for i in 0..N {
        let payload = gate("bench", &format!("make step-{i}"), &format!("toolu_{i}"));
        let context: std::collections::HashMap<&str, zbus::zvariant::Value<'_>> = [(
            "delivery_id",
            zbus::zvariant::Value::from(format!("bench-{i}")),
        )]
        .into();
        let sent = std::time::Instant::now();
        side.rt
            .block_on(attend.hook("claude", "", &payload, &context))
            .unwrap();
        let got = arrivals
            .recv_timeout(desktop::TIMEOUT)
            .unwrap_or_else(|_| panic!("no Notify for gate {i}\n{}", d.daemon_log()));
        delays.push(got.saturating_duration_since(sent).as_secs_f64() * 1000.0);
    }
    delays.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let at = |q: f64| delays[((delays.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "hook → Notify over {N} gates: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        at(0.5),
        at(0.99),
        delays[N - 1]
    );
    assert!(at(0.99) < 1000.0, "p99 {:.0} ms", at(0.99));
    d.stop_daemon();
}

/// An external Claude pane's gate (docs/decisions/0015-answering-external-gates.md): the
/// real hook client, run outside Attend, delivers `PermissionRequest` and waits; the
/// notification offers Allow/Deny, and its Allow is what the waiting run prints for
/// Claude Code; the notification closes with the decision.
#[test]
fn an_external_gates_allow_button_is_the_answer_of_the_waiting_hook() {
    use std::io::Write;
    use std::process::Stdio;
    let d = started();
    let mut hook = d.cmd();
    hook.args(["hook", "claude"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = hook.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(gate("ext1", "make deploy", "toolu_9").as_bytes())
        .unwrap();
    drop(stdin);
    d.wait_until("the external gate is notified", || d.displayed() == 1);
    let panes: Vec<Value> = serde_json::from_str(&d.ok(&["ls", "--json"])).unwrap();
    let pane = panes
        .iter()
        .find(|p| p["session_id"] == "ext1")
        .and_then(|p| p["id"].as_str())
        .expect("the external pane")
        .to_string();
    d.wait_gate_waiting(&pane);
    std::fs::write(d.path("choice"), "allow]").unwrap();
    assert!(d.dunstctl(&["context"]).status.success());
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "the hook run did not end after Allow"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "the hook printed no decision ({e}): {:?} {:?}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(
        printed["hookSpecificOutput"]["decision"]["behavior"], "allow",
        "{printed}"
    );
    assert!(d.show(&pane)["pending_decision"].is_null());
    d.wait_until("the notification closes", || d.displayed() == 0);
}

/// One dialog, one notification: the chrome reads a permission dialog before the agent's
/// `PermissionRequest` hook comes (the hook runs a moment later). The hook enriches the
/// same decision (the tool and its command); the notification shown for it is replaced in
/// place to name them — never a second one (docs/lifecycle-attention.md#one-verdict).
#[test]
fn a_decision_a_later_rung_enriches_updates_its_notification_in_place() {
    let d = started();
    let calls = desktop::NotifyCalls::start(&d);
    let dialog = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/screens/claude/2.1.332/permission-dialog.txt"
    );
    let payload = d.path("gate.json");
    std::fs::write(&payload, gate("s7", "npm publish", "toolu_7")).unwrap();
    let go = d.path("go");
    let script = format!(
        "cat {dialog}; while [ ! -e {go} ]; do sleep 0.05; done; {attend} hook claude < {payload}; exec sleep 100",
        dialog = shlex::try_quote(dialog).unwrap(),
        go = shlex::try_quote(go.to_str().unwrap()).unwrap(),
        attend = shlex::try_quote(support::attend_bin()).unwrap(),
        payload = shlex::try_quote(payload.to_str().unwrap()).unwrap(),
    );
    let p = d
        .ok(&["run", "--agent", "claude", "--", "sh", "-c", &script])
        .trim()
        .to_string();
    d.attend1().resize(&p, 40, 120).unwrap();
    d.wait_until("the screen's permission notified", || {
        d.displayed() == 1 && d.show(&p)["pending_decision"]["kind"] == "permission"
    });
    let first = d.show(&p)["pending_decision"]["id"].clone();
    // The hook comes: the same decision, now naming the command.
    std::fs::write(&go, "").unwrap();
    d.wait_until("the notification names the command", || {
        calls
            .calls()
            .last()
            .is_some_and(|c| c.summary.contains("permission: Bash"))
    });
    let v = d.show(&p);
    assert_eq!(v["pending_decision"]["id"], first, "one decision: {v}");
    assert_eq!(v["pending_decision"]["prompt"], "Bash: npm publish", "{v}");
    stays(&d, 1, "the enrichment replaces the notification in place");
}
