//! Letta Code's hook rows (docs/adapters.md, "Letta Code"): each recorded payload of
//! `tests/fixtures/letta/0.25.9/observed/` through `map_hook`, and the rows no recording
//! covers from payloads with the fields Letta's hook code sends.

use attend::adapters::hooks::{map_hook, HookMapping};
use attend::model::*;
use serde_json::json;
use std::path::Path;

const AT: Timestamp = Timestamp(1_800_000_000_000);

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/letta/0.25.9/observed")
        .join(format!("{name}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Asserts fixture `name` (delivered without the EVENT argument: the payload's own
/// `event_type` names it) is a known event that maps to `kind` from Letta's hook source.
fn assert_maps(name: &str, kind: SignalKind) -> HookMapping {
    let m = map_hook(AgentKind::Letta, None, &fixture(name), AT).unwrap();
    assert!(m.known_event, "{name}");
    assert_eq!(m.signal.kind, kind, "{name}");
    assert_eq!(m.signal.source, Source::hook("letta", &m.event));
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"), "{name}");
    m
}

fn payload(value: serde_json::Value) -> HookMapping {
    map_hook(AgentKind::Letta, None, &value.to_string(), AT).unwrap()
}

#[test]
fn letta_session_start_starts_session_with_the_conversation() {
    let m = assert_maps(
        "SessionStart",
        SignalKind::SessionStarted {
            source: Some("resume".into()),
        },
    );
    assert_eq!(m.event, "SessionStart");
    assert_eq!(m.session_id.as_deref(), Some("local-conv-1"));
    assert_eq!(
        m.signal.identity.resume_argv,
        Some(vec!["letta".into(), "--conv".into(), "local-conv-1".into()])
    );
    let new = payload(json!({"event_type": "SessionStart", "is_new_session": true}));
    assert_eq!(
        new.signal.kind,
        SignalKind::SessionStarted {
            source: Some("startup".into())
        }
    );
}

/// An agent's default conversation is `"default"` in every agent: the session is the
/// agent, resumed with `letta --agent <id>` (what Letta prints at `/exit` for it).
#[test]
fn letta_default_conversation_is_named_by_its_agent() {
    let m = payload(json!({
        "event_type": "SessionStart", "is_new_session": true,
        "agent_id": "agent-local-1", "conversation_id": "default",
        "working_directory": "/tmp/proj",
    }));
    assert_eq!(m.session_id.as_deref(), Some("agent-local-1"));
    assert_eq!(
        m.signal.identity.resume_argv,
        Some(vec![
            "letta".into(),
            "--agent".into(),
            "agent-local-1".into()
        ])
    );
    let bare = payload(json!({"event_type": "Stop", "conversation_id": "default"}));
    assert_eq!(bare.session_id, None);
}

#[test]
fn letta_user_prompt_submit_starts_turn() {
    let m = assert_maps("UserPromptSubmit", SignalKind::TurnStarted);
    assert_eq!(m.session_id.as_deref(), Some("local-conv-1"));
}

#[test]
fn letta_pre_tool_use_starts_tool_with_its_call_id() {
    let m = assert_maps(
        "PreToolUse",
        SignalKind::ToolStarted {
            tool: "Bash".into(),
            tool_use_id: Some("call_1".into()),
        },
    );
    // Tool events name the agent, not the conversation: no session id (no handover).
    assert_eq!(m.session_id, None);
}

#[test]
fn letta_post_tool_use_finishes_tool() {
    assert_maps(
        "PostToolUse",
        SignalKind::ToolFinished {
            tool: Some("Bash".into()),
            tool_use_id: Some("call_1".into()),
        },
    );
}

#[test]
fn letta_post_tool_use_failure_is_tool_error() {
    let m = payload(json!({
        "event_type": "PostToolUseFailure",
        "working_directory": "/tmp/proj",
        "tool_name": "Bash",
        "tool_input": {"command": "false"},
        "tool_call_id": "call_2",
        "error_message": "Command failed with exit code 1",
        "error_type": "tool_error",
    }));
    assert_eq!(
        m.signal.kind,
        SignalKind::ToolError {
            error: "Command failed with exit code 1".into()
        }
    );
    let bare = payload(json!({"event_type": "PostToolUseFailure", "tool_name": "Bash"}));
    assert_eq!(
        bare.signal.kind,
        SignalKind::ToolError {
            error: "Bash failed".into()
        }
    );
}

#[test]
fn letta_approval_notification_names_the_permission_gate() {
    assert_maps(
        "Notification-approval",
        SignalKind::AgentNotification {
            text: "Approval needed".into(),
            gate: GateRef::Names(DecisionKind::Permission),
        },
    );
}

#[test]
fn letta_turn_completed_notification_repeats_stop() {
    assert_maps("Notification-turn-completed", SignalKind::IdentityOnly);
}

#[test]
fn letta_error_notification_fails_the_turn() {
    let m = payload(json!({
        "event_type": "Notification",
        "message": "Stream error",
        "level": "error",
    }));
    assert_eq!(
        m.signal.kind,
        SignalKind::TurnFailed {
            error: "Stream error".into(),
            usage_limit: false
        }
    );
}

#[test]
fn letta_other_notification_is_plain() {
    let m = payload(json!({
        "event_type": "Notification",
        "message": "Awaiting your input",
        "level": "info",
    }));
    assert_eq!(
        m.signal.kind,
        SignalKind::AgentNotification {
            text: "Awaiting your input".into(),
            gate: GateRef::None
        }
    );
}

#[test]
fn letta_stop_stops_turn_with_the_reply() {
    assert_maps(
        "Stop",
        SignalKind::TurnStopped {
            summary: Some("Tool ran: No result provided".into()),
        },
    );
}

#[test]
fn letta_session_end_ends_session() {
    let m = assert_maps("SessionEnd", SignalKind::SessionEnded { reason: None });
    assert_eq!(m.session_id.as_deref(), Some("local-conv-1"));
}

#[test]
fn letta_permission_request_opens_the_gate_when_registered_by_hand() {
    let m = payload(json!({
        "event_type": "PermissionRequest",
        "working_directory": "/tmp/proj",
        "tool_name": "Bash",
        "tool_input": {"command": "touch made.txt", "description": "make a file"},
        "permission": {"type": "ask"},
    }));
    match m.signal.kind {
        SignalKind::PermissionRequested {
            prompt, options, ..
        } => {
            assert_eq!(prompt, "Bash: touch made.txt");
            assert_eq!(options[0], "Yes");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn letta_subagent_stop_and_pre_compact_are_identity_only() {
    for event in ["SubagentStop", "PreCompact"] {
        let m = payload(json!({"event_type": event, "conversation_id": "local-conv-1"}));
        assert!(m.known_event, "{event}");
        assert_eq!(m.signal.kind, SignalKind::IdentityOnly, "{event}");
    }
    let unknown = payload(json!({"event_type": "SomethingNew"}));
    assert!(!unknown.known_event);
}

/// The EVENT argument names the event when the payload's `event_type` is missing.
#[test]
fn letta_event_argument_names_the_event() {
    let m = map_hook(
        AgentKind::Letta,
        Some("Stop"),
        r#"{"assistant_message":"hi"}"#,
        AT,
    )
    .unwrap();
    assert_eq!(m.event, "Stop");
    assert_eq!(
        m.signal.kind,
        SignalKind::TurnStopped {
            summary: Some("hi".into())
        }
    );
}

/// The recorded screen `name` (a path under `tests/fixtures/screens/`), read by the
/// shipped manifest: (the rule that matched, the rule whose closed screen it is).
fn screen(name: &str) -> (Option<String>, Option<String>) {
    use attend::adapters::manifest::{evaluate, parse, shipped, Screen};
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/screens")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let manifest = parse(shipped(AgentKind::Letta).unwrap()).unwrap();
    let e = evaluate(&manifest, &Screen::new(&text, "Letta Code"));
    (
        e.matched.map(|r| r.name.clone()),
        e.closed.map(|r| r.name.clone()),
    )
}

/// `data/manifests/letta.toml`: its approval dialog is the `approval` rule; after Esc
/// closed it ("Approval cancelled", the input back) the screen is that rule's closed one;
/// a turn at work (`(esc to interrupt)`) is neither.
#[test]
fn letta_manifest_reads_the_approval_dialog_and_the_screen_esc_leaves() {
    let approval = Some("approval".to_string());
    assert_eq!(
        screen("letta/0.25.9/approval-dialog.txt"),
        (approval.clone(), None)
    );
    assert_eq!(
        screen("negative/letta/0.25.9-approval-closed-by-esc.txt"),
        (None, approval)
    );
    assert_eq!(screen("negative/letta/0.25.9-working.txt"), (None, None));
}
