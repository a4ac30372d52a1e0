//! Replies from a notification (docs/desktop-surfaces.md#replies): a scripted
//! notification server on the test bus. Where it advertises `inline-reply`, the
//! notification of a question that takes text carries the `inline-reply` action and the
//! text it sends back (`NotificationReplied`) is typed into the agent's pane; where it
//! does not, a "Reply…" button (`x-attend-reply`) opens the panel's reply field on the
//! pane (the panel's `reply-pane` action, recorded by a fake panel).

use crate::desktop::{claude_payload, Desk, Side, TIMEOUT};
use crate::support::attend_bin;
use serde_json::json;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use zbus::zvariant::OwnedValue;

/// The `Notify` calls: (id, actions).
type Calls = Arc<Mutex<Vec<(u32, Vec<String>)>>>;

/// A notification server with the capabilities `caps`, recording its `Notify` calls.
struct Server {
    calls: Calls,
    next: AtomicU32,
    caps: Vec<String>,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl Server {
    #[allow(clippy::too_many_arguments)]
    fn notify(
        &self,
        _app_name: String,
        replaces_id: u32,
        _app_icon: String,
        _summary: String,
        _body: String,
        actions: Vec<String>,
        _hints: std::collections::HashMap<String, OwnedValue>,
        _expire_timeout: i32,
    ) -> u32 {
        let id = if replaces_id != 0 {
            replaces_id
        } else {
            self.next.fetch_add(1, Ordering::Relaxed) + 1
        };
        self.calls.lock().unwrap().push((id, actions));
        id
    }

    fn close_notification(&self, _id: u32) {}

    fn get_capabilities(&self) -> Vec<String> {
        self.caps.clone()
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        (
            "scripted".into(),
            "attend tests".into(),
            "1".into(),
            "1.2".into(),
        )
    }
}

/// Serves [`Server`] with `caps` on the desk's bus; its calls.
fn serve(side: &Side, caps: &[&str]) -> Calls {
    let calls = Calls::default();
    let server = Server {
        calls: calls.clone(),
        next: AtomicU32::new(0),
        caps: caps.iter().map(|c| c.to_string()).collect(),
    };
    let conn = side.conn.clone();
    side.rt.block_on(async move {
        conn.object_server()
            .at("/org/freedesktop/Notifications", server)
            .await
            .unwrap();
        conn.request_name("org.freedesktop.Notifications")
            .await
            .unwrap();
    });
    calls
}

/// A pane Attend runs standing in for Claude Code asking a question without options
/// (free text): its `PreToolUse` of `AskUserQuestion` delivered from inside the pane, then
/// it reads one line into `out`. Returns the pane id.
fn asking_pane(d: &Desk, out: &std::path::Path) -> String {
    let payload = claude_payload(
        "PreToolUse-AskUserQuestion.json",
        "reply-session",
        &[(
            "tool_input",
            json!({"questions": [{"question": "Which database should the tests use, and why?"}]}),
        )],
    );
    let file = d.path("question.json");
    std::fs::write(&file, payload).unwrap();
    let script = format!(
        "{} hook claude < '{}'; IFS= read -r k; printf '%s' \"$k\" > '{}'; exec sleep 100",
        shlex::try_quote(attend_bin()).unwrap(),
        file.display(),
        out.display()
    );
    d.ok(&[
        "run", "-n", "db", "--agent", "claude", "--", "sh", "-c", &script,
    ])
    .trim()
    .to_string()
}

/// Waits for a `Notify` call with action key `key`; its id.
fn notified_with(d: &Desk, calls: &Calls, key: &str) -> u32 {
    let start = Instant::now();
    loop {
        if let Some((id, _)) = calls
            .lock()
            .unwrap()
            .iter()
            .find(|(_, a)| a.chunks(2).any(|kv| kv[0] == key))
        {
            return *id;
        }
        assert!(
            start.elapsed() < TIMEOUT,
            "no notification with {key}: {:?}\n{}",
            calls.lock().unwrap(),
            d.daemon_log()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Emits signal `member` of the notification server with `body`.
fn emit<B: serde::Serialize + zbus::zvariant::DynamicType>(side: &Side, member: &str, body: &B) {
    side.rt
        .block_on(side.conn.emit_signal(
            None::<()>,
            "/org/freedesktop/Notifications",
            "org.freedesktop.Notifications",
            member,
            body,
        ))
        .unwrap();
}

#[test]
fn an_inline_reply_reaches_the_agent() {
    let mut d = Desk::new();
    let side = Side::connect(&d);
    let calls = serve(&side, &["actions", "body", "inline-reply"]);
    d.start_daemon(&["--no-tray"]);
    let out = d.path("reply.txt");
    let pane = asking_pane(&d, &out);
    d.wait_pane(&pane, "the question", |v| {
        v["pending_decision"]["kind"] == "question"
    });
    let id = notified_with(&d, &calls, "inline-reply");
    assert!(
        !calls
            .lock()
            .unwrap()
            .iter()
            .any(|(_, a)| a.iter().any(|k| k == "x-attend-reply")),
        "no Reply… button where the server has inline replies"
    );
    emit(&side, "NotificationReplied", &(id, "Postgres, CI has it"));
    d.wait_until("the reply typed into the pane", || {
        std::fs::read_to_string(&out).is_ok_and(|s| s == "Postgres, CI has it")
    });
}

#[test]
fn without_inline_replies_reply_opens_the_panels_reply_field() {
    let mut d = Desk::new();
    let side = Side::connect(&d);
    let calls = serve(&side, &["actions", "body"]);
    let panel = side.fake_panel();
    d.start_daemon(&["--no-tray"]);
    let pane = asking_pane(&d, &d.path("reply.txt"));
    d.wait_pane(&pane, "the question", |v| {
        v["pending_decision"]["kind"] == "question"
    });
    let id = notified_with(&d, &calls, "x-attend-reply");
    emit(&side, "ActionInvoked", &(id, "x-attend-reply"));
    d.wait_until("the panel asked for the reply field", || {
        panel
            .lock()
            .unwrap()
            .actions
            .iter()
            .any(|(a, params, _)| a == "reply-pane" && params.len() == 1 && params[0] == pane)
    });
}
