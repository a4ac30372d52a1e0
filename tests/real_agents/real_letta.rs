//! Real-agent scenarios of Letta Code: the pinned real CLI runs INSIDE an Attend pane
//! (`attend run`) on its local backend, with the hooks `attend install-hooks letta` writes
//! into the test's HOME (`~/.letta/settings.json`), against the scripted model server's
//! OpenAI Chat Completions API on 127.0.0.1 (its LM Studio provider). Every step is
//! asserted through `attend show --json` (`tests/support/scenario.rs`; docs/real-agents.md,
//! docs/adapters.md "Letta Code").
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1`. Each test has its own daemon, bus, model server port and
//! HOME, so they run in parallel.

use crate::support;

use std::time::Duration;
use support::agents::{Cli, HookRecorder};
use support::model_server::Reply;
use support::notes::notification_server;
use support::scenario::{record_also, resolutions, text, Options, Scenario, COMMAND, DONE, FIRST};

/// Scenario 1: a prompt, the model answers text, the turn ends → done/unread with the
/// model's text as last message (`Stop`'s `assistant_message`); a fresh home's first
/// conversation is its agent's default one, resumed by the agent's id.
#[test]
fn letta_1_prompt_ends_done_unread_with_the_models_text() {
    let Some(s) = Scenario::start("letta-1", Cli::Letta, vec![text(FIRST)]) else {
        return;
    };
    let v = s.hello_turn_done();
    assert!(v["pending_decision"].is_null(), "{v}");
    let session = v["session_id"].as_str().unwrap().to_string();
    assert!(session.starts_with("agent-local-"), "{v}");
    assert_eq!(
        v["resume_argv"],
        serde_json::json!(["letta", "--agent", session]),
        "{v}"
    );
}

/// Scenario 2: a `Bash` call that needs approval → its dialog (read by the chrome) and
/// Letta's "Approval needed" notification → blocked/permission_required → `attend answer
/// PANE allow` (Enter on "1. Yes", read off the screen) → the command runs → done, the
/// decision resolved as answered. Then `deny` at the next gate is Esc: the command does
/// not run, Letta ends the turn without any hook, and the closed dialog's screen ends the
/// gate: idle.
///
/// Each answer waits for Letta's notification: it sends it once its dialog takes keys
/// (keys typed while the dialog is drawn but not yet listening are lost), and Attend's
/// entry, run beside the recorder's, is delivered within the hook client's deadline
/// ([`HOOK_LANDS`]) — a notification that came after the answer would open the gate
/// again.
#[test]
fn letta_2_permission_allow_runs_the_command_and_deny_does_not() {
    let options = Options {
        after_install: Some(record_notifications),
        ..Options::default()
    };
    let Some(s) = Scenario::start_opts(
        "letta-2",
        Cli::Letta,
        vec![
            Reply::claude_bash(COMMAND, "Write a file"),
            text(DONE),
            Reply::claude_bash(REFUSED, "Write another file"),
            text("never asked for"),
        ],
        options,
        |_| {},
    ) else {
        return;
    };
    let notes = notifications(&s);
    s.wait_ready();
    let before = s.last_seq();
    s.prompt("write the file");
    let v = s.wait("the gate", |v| v["attention"] == "permission_required");
    s.expect(
        &v,
        "blocked",
        "permission_required",
        v["last_message"].as_str(),
    );
    assert_eq!(v["pending_decision"]["kind"], "permission", "{v}");
    s.wait_screen("Letta's approval with its options", |t| {
        t.contains(COMMAND) && t.contains("Enter to select · Esc to cancel")
    });
    notified(&s, &notes, APPROVAL_NEEDED, 1);
    s.allow_and_expect_the_tool_ran(before);

    // Its BEL comes with the turn's notification: reviewed after it, the pane stays read.
    notified(&s, &notes, TURN_COMPLETED, 1);
    s.attend(&["seen", &s.pane]);
    s.prompt("write another file");
    let v = s.wait("the next gate", |v| v["attention"] == "permission_required");
    s.expect(
        &v,
        "blocked",
        "permission_required",
        v["last_message"].as_str(),
    );
    s.wait_screen("the next dialog", |t| {
        t.contains(REFUSED) && t.contains("Enter to select · Esc to cancel")
    });
    notified(&s, &notes, APPROVAL_NEEDED, 2);
    let before = s.last_seq();
    s.attend(&["answer", &s.pane, "deny"]);
    let v = s.wait("idle after the refusal", |v| v["lifecycle"] == "idle");
    s.expect(&v, "idle", "none", v["last_message"].as_str());
    assert!(v["pending_decision"].is_null(), "{v}");
    assert_eq!(resolutions(&s.events_since(before)), ["answered"]);
    assert!(
        !s.home.project.join("refused.txt").exists(),
        "the refused command never ran"
    );
    assert_eq!(
        s.server.turns().len(),
        3,
        "no model request after the refusal"
    );
}

/// The model's text after the question.
const PICKED: &str = "Blue it is.";

/// Scenario: Letta's question tool, `AskUserQuestion` (no approval of its own). Letta
/// sends the `Notification` "Approval needed" as for a command, which opens a permission
/// gate; rule `question` reads the dialog (the question, its numbered options), so the
/// gate becomes that question → blocked/input_required with the question as its prompt →
/// `attend answer PANE Blue` types `2` (a number picks and submits) → the answer reaches
/// the model (the tool result), which ends its turn done/unread.
#[test]
fn letta_question_is_input_required_and_answered_from_attend() {
    let question = serde_json::json!({"questions": [{
        "question": "Which color do you want?",
        "header": "Color",
        "options": [
            {"label": "Red", "description": "warm"},
            {"label": "Blue", "description": "cool"},
        ],
        "multiSelect": false,
    }]});
    let options = Options {
        after_install: Some(record_notifications),
        ..Options::default()
    };
    let Some(s) = Scenario::start_opts(
        "letta-question",
        Cli::Letta,
        vec![
            Reply::Tool {
                name: "AskUserQuestion".into(),
                input_json: question.to_string(),
            },
            text(PICKED),
        ],
        options,
        |_| {},
    ) else {
        return;
    };
    let notes = notifications(&s);
    s.wait_ready();
    s.prompt("ask me");
    s.wait_screen("the question", |t| {
        t.contains("Which color do you want?") && t.contains("Type something.")
    });
    // The notification and the chrome's reading come in either order: one decision.
    s.expect_question_opened_by(
        "Blue",
        &["lifecycle-hooks:letta.Notification", "needs-input-chrome:"],
    );
    s.wait_explain("matched question");
    notified(&s, &notes, APPROVAL_NEEDED, 1);
    let v = s.show();
    s.expect(
        &v,
        "blocked",
        "input_required",
        Some("Which color do you want?"),
    );
    assert_eq!(v["pending_decision"]["kind"], "question", "{v}");
    assert_eq!(
        v["pending_decision"]["prompt"], "Which color do you want?",
        "{v}"
    );
    // The answered question stays in the transcript ("Which color do you want? → Blue"):
    // the dialog is gone when its footer is.
    s.answer_dialog("Blue", "Arrow to navigate");
    let v = s.wait("the turn's end", |v| {
        v["lifecycle"] == "done" && v["last_message"] == PICKED
    });
    s.expect(&v, "done", "unread", Some(PICKED));
    assert!(v["pending_decision"].is_null(), "{v}");
    let answered = s.last_request();
    assert!(
        answered.contains(r#"answered your questions: \"Which color do you want?\"=\"Blue\""#),
        "the model heard the answer: {answered}"
    );
}

/// How long after the recorder's copy Attend's own `Notification` entry has landed: the
/// hook client delivers within `attend_hook::client::DEADLINE` (300 ms) of reading its
/// payload; the rest is its start on a loaded machine. The BEL Letta writes just before
/// it runs the hooks is read from the pane well within it.
const HOOK_LANDS: Duration = Duration::from_millis(1500);

/// The notification Letta sends as its approval dialog takes keys.
const APPROVAL_NEEDED: &str = "Approval needed";
/// The notification (and BEL) Letta sends right after a turn's `Stop`.
const TURN_COMPLETED: &str = "Turn completed, awaiting your input";

/// Letta's `n`-th `Notification` with `message` was recorded (beside Attend's entry),
/// then [`HOOK_LANDS`].
fn notified(s: &Scenario, notes: &HookRecorder, message: &str, n: usize) {
    let seen = support::poll(support::scenario::STEP, || {
        notes
            .payloads()
            .iter()
            .filter(|p| p["message"] == message)
            .count()
            >= n
    });
    assert!(
        seen,
        "{}: Letta's notification {message:?} number {n}",
        s.name
    );
    std::thread::sleep(HOOK_LANDS);
}

/// Records every `Notification` payload beside Attend's entry (`recorded-Notification`).
fn record_notifications(home: &support::agents::AgentHome) {
    record_also(home, "Notification");
}

/// The recorder [`record_notifications`] set up.
fn notifications(s: &Scenario) -> HookRecorder {
    HookRecorder::new(s.home.dir.path().join("recorded-Notification"))
}

/// The command [`letta_2_permission_allow_runs_the_command_and_deny_does_not`] refuses.
const REFUSED: &str = "echo refused > refused.txt";

/// Scenario 3: a turn ends done/unread (one notification), the human reviews it
/// (`attend seen`: done/none) once Letta's own turn notification and BEL came, then quits
/// Letta (`/exit`: SessionEnd, exit 0): the pane stays done/none — no lifecycle event, no
/// attention, no second notification.
#[test]
fn letta_3_review_then_quit_stays_done_none_with_one_notification() {
    let options = Options {
        notifications: true,
        after_install: Some(record_notifications),
        ..Options::default()
    };
    let Some(s) = Scenario::start_opts("letta-3", Cli::Letta, vec![text(FIRST)], options, |_| {})
    else {
        return;
    };
    let (_server, shown) = notification_server(&s.env.bus.address);
    s.hello_turn_done();
    notified(&s, &notifications(&s), TURN_COMPLETED, 1);
    let marker = serde_json::json!({
        "event_type": "Stop", "conversation_id": "letta-3-marker",
        "working_directory": "/tmp", "assistant_message": "marker",
    });
    let end = s.review_then_quit(&shown, "/exit", &["hook", "letta"], &marker);
    assert!(end["conversation_id"].is_string(), "{end}");
}
