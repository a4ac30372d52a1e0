//! MastraCode's hook rows (docs/adapters.md, "MastraCode"): each recorded payload of
//! `tests/fixtures/mastracode/0.32.1/observed/` through `map_hook`, the rows no recording
//! covers from payloads with the fields its hook code sends, and its recorded screens
//! through the shipped manifest (`data/manifests/mastracode.toml`).

use attend::adapters::answer::resolve;
use attend::adapters::dialog::read_options;
use attend::adapters::hooks::{map_hook, HookMapping};
use attend::adapters::manifest::{evaluate, parse, shipped, Manifest, Screen};
use attend::model::*;
use serde_json::json;
use std::path::Path;

const AT: Timestamp = Timestamp(1_800_000_000_000);
const MASTRA: AgentKind = AgentKind::MastraCode;
/// The thread of the recorded session.
const THREAD: &str = "a90bc42b-7bf3-4bab-b3da-34c9ef2fba5e";

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mastracode/0.32.1/observed")
        .join(format!("{name}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Asserts fixture `name` (no EVENT argument: the payload's `hook_event_name` names it)
/// is a known event that maps to `kind` from MastraCode's hook source.
fn assert_maps(name: &str, kind: SignalKind) -> HookMapping {
    let m = map_hook(MASTRA, None, &fixture(name), AT).unwrap();
    assert!(m.known_event, "{name}");
    assert_eq!(m.signal.kind, kind, "{name}");
    assert_eq!(m.signal.source, Source::hook("mastracode", &m.event));
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"), "{name}");
    m
}

fn payload(value: serde_json::Value) -> HookMapping {
    map_hook(MASTRA, None, &value.to_string(), AT).unwrap()
}

/// A new thread's first events name the placeholder `session-init`: no session (no
/// handover to the thread's id that follows); a resumed thread's start names the thread.
#[test]
fn mastracode_session_start_names_the_thread_but_not_its_placeholder() {
    let new = assert_maps("SessionStart", SignalKind::SessionStarted { source: None });
    assert_eq!(new.session_id, None);
    let prompt = assert_maps("UserPromptSubmit-new-thread", SignalKind::TurnStarted);
    assert_eq!(prompt.session_id, None);
    let resumed = assert_maps(
        "SessionStart-resumed",
        SignalKind::SessionStarted { source: None },
    );
    assert_eq!(resumed.session_id.as_deref(), Some(THREAD));
    // Its TUI takes no thread argument: no resume argv.
    assert_eq!(resumed.signal.identity.resume_argv, None);
}

#[test]
fn mastracode_prompt_and_run_start_start_the_turn() {
    let m = assert_maps("UserPromptSubmit", SignalKind::TurnStarted);
    assert_eq!(m.session_id.as_deref(), Some(THREAD));
    assert_maps("AgentStart", SignalKind::TurnStarted);
}

#[test]
fn mastracode_permission_request_opens_the_gate_of_its_call() {
    let m = assert_maps(
        "PermissionRequest",
        SignalKind::PermissionRequested {
            prompt: "execute_command: touch /tmp/proj/ran.txt".into(),
            options: vec![
                "yes".into(),
                "no".into(),
                "always allow".into(),
                "Yolo".into(),
            ],
            answer_keys: vec![
                AnswerKey {
                    choice: "allow".into(),
                    keys: String::new(),
                },
                AnswerKey {
                    choice: "deny".into(),
                    keys: String::new(),
                },
            ],
            tool_use_id: Some("call_1".into()),
        },
    );
    assert_eq!(m.event, "PermissionRequest");
}

#[test]
fn mastracode_permission_result_approved_finishes_the_gated_call_declined_denies() {
    assert_maps(
        "PermissionResult-approved",
        SignalKind::ToolFinished {
            tool: None,
            tool_use_id: Some("call_1".into()),
        },
    );
    assert_maps("PermissionResult-declined", SignalKind::GateDenied);
    let dismissed = payload(json!({
        "hook_event_name": "PermissionResult", "decision": "dismissed",
        "tool_call_id": "call_2", "tool_name": "execute_command",
    }));
    assert_eq!(dismissed.signal.kind, SignalKind::GateDismissed);
}

#[test]
fn mastracode_tool_events_start_and_finish_the_tool() {
    assert_maps(
        "PreToolUse",
        SignalKind::ToolStarted {
            tool: "execute_command".into(),
            tool_use_id: None,
        },
    );
    assert_maps(
        "PostToolUse",
        SignalKind::ToolFinished {
            tool: Some("execute_command".into()),
            tool_use_id: None,
        },
    );
    let failed = payload(json!({
        "hook_event_name": "PostToolUse", "tool_name": "execute_command",
        "tool_input": {"command": "false"}, "tool_output": "exit code 1", "tool_error": true,
    }));
    assert_eq!(
        failed.signal.kind,
        SignalKind::ToolError {
            error: "exit code 1".into()
        }
    );
}

/// The question tool: its notification opens the question; its `PreToolUse` (fired again
/// after the answer) and its first `PostToolUse` (before any answer, no `tool_output`)
/// say nothing; the answered `PostToolUse` starts the turn again.
#[test]
fn mastracode_question_opens_with_its_notification_and_closes_with_the_answer() {
    assert_maps(
        "Notification-ask_question",
        SignalKind::QuestionAsked {
            prompt: "Which color?".into(),
            options: Vec::new(),
            answer_keys: Vec::new(),
        },
    );
    assert_maps("PreToolUse-ask_user", SignalKind::IdentityOnly);
    assert_maps("PostToolUse-ask_user-unanswered", SignalKind::IdentityOnly);
    assert_maps("PostToolUse-ask_user", SignalKind::TurnStarted);
}

/// `AgentEnd` ends the turn: `complete` done, `aborted` (Esc) idle, `suspended` (the
/// question tool) nothing; `Stop` says nothing (it says `complete` after a suspension).
#[test]
fn mastracode_agent_end_ends_the_turn_and_stop_says_nothing() {
    assert_maps("AgentEnd", SignalKind::TurnStopped { summary: None });
    assert_maps("AgentEnd-aborted", SignalKind::GateDismissed);
    assert_maps("AgentEnd-suspended", SignalKind::IdentityOnly);
    for stop in ["Stop", "Stop-aborted", "Stop-after-suspended"] {
        assert_maps(stop, SignalKind::IdentityOnly);
    }
    let failed = payload(json!({"hook_event_name": "AgentEnd", "stop_reason": "error"}));
    assert!(matches!(failed.signal.kind, SignalKind::TurnFailed { .. }));
}

#[test]
fn mastracode_interrupt_dismisses_and_session_end_ends() {
    assert_maps("Interrupt", SignalKind::GateDismissed);
    assert_maps("SessionEnd", SignalKind::SessionEnded { reason: None });
}

/// `agent_done` and `tool_approval` repeat `AgentEnd` and `PermissionRequest`; another
/// reason is a plain notification.
#[test]
fn mastracode_notifications_repeat_or_notify() {
    assert_maps("Notification-agent_done", SignalKind::IdentityOnly);
    assert_maps("Notification-tool_approval", SignalKind::IdentityOnly);
    let plan = payload(json!({
        "hook_event_name": "Notification", "reason": "plan_approval", "message": "Review the plan",
    }));
    assert_eq!(
        plan.signal.kind,
        SignalKind::AgentNotification {
            text: "Review the plan".into(),
            gate: GateRef::None
        }
    );
}

#[test]
fn mastracode_unknown_event_is_identity_only() {
    let m = payload(json!({"hook_event_name": "SomethingNew", "session_id": THREAD}));
    assert!(!m.known_event);
    assert_eq!(m.signal.kind, SignalKind::IdentityOnly);
}

fn manifest() -> Manifest {
    parse(shipped(MASTRA).unwrap()).unwrap()
}

fn screen(name: &str) -> Screen {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/screens")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Screen::new(&text, "Mastra Code - proj")
}

fn rule_on(name: &str) -> Option<String> {
    let m = manifest();
    evaluate(&m, &screen(name)).matched.map(|r| r.name.clone())
}

/// The approval overlay is the `approval` rule, answered by its letters; the question box
/// is the `question` rule with its options read from the screen; the screens around them
/// are neither.
#[test]
fn mastracode_manifest_reads_its_approval_and_question() {
    for dialog in ["approval-dialog.txt", "approval-dialog-ask_user.txt"] {
        let path = format!("mastracode/0.32.1/{dialog}");
        assert_eq!(rule_on(&path).as_deref(), Some("approval"), "{dialog}");
        let keys = |choice| resolve(Some(&manifest()), &screen(&path), choice, false);
        assert_eq!(keys("allow").unwrap().keys, "y");
        assert_eq!(keys("deny").unwrap().keys, "n");
    }
    let question = "mastracode/0.32.1/question.txt";
    assert_eq!(rule_on(question).as_deref(), Some("question"));
    let m = manifest();
    let rule = m.rules.iter().find(|r| r.name == "question").unwrap();
    let options = read_options(&screen(question).region(&rule.region)).unwrap();
    assert_eq!(
        options.labels()[..2],
        ["Red".to_string(), "Blue".to_string()]
    );
    assert_eq!(options.cursor, Some(0));
    for negative in ["after-allow", "question-answered", "first-turn"] {
        let path = format!("negative/mastracode/0.32.1-{negative}.txt");
        assert_eq!(rule_on(&path), None, "{negative}");
    }
}
