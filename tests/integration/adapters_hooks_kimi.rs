//! Kimi Code CLI's hook rows (docs/adapters.md, "Kimi Code CLI"): each recorded payload of
//! `tests/fixtures/kimi/2.1.0/observed/` through `map_hook`, and the engine's reading of
//! a recorded gate, refusal, question and interrupt.

use attend::adapters::hooks::{map_hook, HookMapping};
use attend::model::*;
use std::path::Path;

const AT: Timestamp = Timestamp(1_800_000_000_000);

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/kimi/2.1.0/observed")
        .join(format!("{name}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn mapped(name: &str) -> HookMapping {
    map_hook(AgentKind::Kimi, None, &fixture(name), AT).unwrap()
}

/// Asserts fixture `name` is a known event that maps to `kind` from Kimi's hook source.
fn assert_maps(name: &str, kind: SignalKind) -> HookMapping {
    let m = mapped(name);
    assert!(m.known_event, "{name}");
    assert_eq!(m.signal.kind, kind, "{name}");
    assert_eq!(m.signal.source, Source::hook("kimi", &m.event));
    m
}

fn payload(value: serde_json::Value) -> HookMapping {
    map_hook(AgentKind::Kimi, None, &value.to_string(), AT).unwrap()
}

#[test]
fn kimi_session_start_starts_session_with_identity() {
    let m = assert_maps(
        "SessionStart",
        SignalKind::SessionStarted {
            source: Some("startup".into()),
        },
    );
    let id = m.session_id.clone().unwrap();
    assert!(id.starts_with("session_"), "{id}");
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"));
    assert_eq!(
        m.signal.identity.resume_argv,
        Some(vec!["kimi".to_string(), "--session".into(), id])
    );
}

#[test]
fn kimi_user_prompt_submit_starts_turn() {
    assert_maps("UserPromptSubmit", SignalKind::TurnStarted);
}

#[test]
fn kimi_pre_tool_use_starts_tool_with_its_call_id() {
    assert_maps(
        "PreToolUse",
        SignalKind::ToolStarted {
            tool: "Bash".into(),
            tool_use_id: Some("call_1".into()),
        },
    );
}

#[test]
fn kimi_permission_request_opens_gate_with_the_dialogs_labels() {
    let m = assert_maps(
        "PermissionRequest",
        SignalKind::PermissionRequested {
            prompt: "Bash: echo attend-smoke > out.txt".into(),
            options: [
                "Approve once",
                "Approve for this session",
                "Reject",
                "Reject with feedback",
            ]
            .map(String::from)
            .to_vec(),
            answer_keys: ["allow", "deny"]
                .map(|c| AnswerKey {
                    choice: c.into(),
                    keys: String::new(),
                })
                .to_vec(),
            tool_use_id: Some("call_1".into()),
        },
    );
    assert_eq!(m.event, "PermissionRequest");
    // A subagent's gate is scoped to it (docs/lifecycle-attention.md#subagent-gates).
    let sub = payload(serde_json::json!({"hook_event_name": "PermissionRequest",
        "session_id": "s", "agent_id": "coder-1", "tool_call_id": "c9", "tool_name": "Bash",
        "tool_input": {"command": "ls"}}));
    match sub.signal.kind {
        SignalKind::PermissionRequested { tool_use_id, .. } => {
            assert_eq!(tool_use_id, Some(subagent_scope("coder-1")));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn kimi_permission_result_approved_finishes_the_gated_call() {
    assert_maps(
        "PermissionResult-approved",
        SignalKind::ToolFinished {
            tool: None,
            tool_use_id: Some("call_1".into()),
        },
    );
}

#[test]
fn kimi_permission_result_rejected_denies_the_gate_and_the_turn_goes_on() {
    assert_maps("PermissionResult-rejected", SignalKind::GateDenied);
    // Its PostToolUseFailure repeats the refusal: nothing more.
    assert_maps("PostToolUseFailure-rejected", SignalKind::IdentityOnly);
}

#[test]
fn kimi_post_tool_use_finishes_tool() {
    assert_maps(
        "PostToolUse",
        SignalKind::ToolFinished {
            tool: Some("Bash".into()),
            tool_use_id: Some("call_1".into()),
        },
    );
}

#[test]
fn kimi_post_tool_use_failure_is_a_tool_error() {
    let m = payload(serde_json::json!({"hook_event_name": "PostToolUseFailure",
        "session_id": "s", "tool_name": "Bash", "tool_call_id": "c1",
        "error": {"code": "internal", "message": "exit code 1", "retryable": false}}));
    assert_eq!(
        m.signal.kind,
        SignalKind::ToolError {
            error: "exit code 1".into()
        }
    );
}

#[test]
fn kimi_ask_user_question_opens_a_question_and_its_answer_resumes_the_turn() {
    let m = assert_maps(
        "PreToolUse-AskUserQuestion",
        SignalKind::QuestionAsked {
            prompt: "Which color do you want?".into(),
            options: vec!["Red".into(), "Blue".into()],
            answer_keys: Vec::new(),
        },
    );
    assert_eq!(m.event, "PreToolUse");
    assert_maps("PostToolUse-AskUserQuestion", SignalKind::GateDenied);
}

/// Kimi runs its hooks without waiting: the question's `PostToolUse` came after the
/// turn's `Stop` once (a real run on a loaded machine). Either order ends done/unread
/// with the question closed; in the usual order the answer makes the pane working.
#[test]
fn kimi_question_answered_then_stop_is_done_in_either_hook_order() {
    for late in [false, true] {
        let mut world = attend::engine::World::new();
        let (pane, _) = world.add_pane(
            attend::engine::NewPane {
                workspace: "/tmp/proj".into(),
                agent: AgentKind::Kimi,
                owned: true,
                ..Default::default()
            },
            AT,
        );
        let feed = |world: &mut attend::engine::World, name: &str| {
            world.apply_signal(pane, &mapped(name).signal).unwrap();
        };
        feed(&mut world, "UserPromptSubmit");
        feed(&mut world, "PreToolUse-AskUserQuestion");
        let answer = Action::Answer { choice: "2".into() };
        world.apply_action(pane, &answer, AT).unwrap();
        if late {
            feed(&mut world, "Stop");
            feed(&mut world, "PostToolUse-AskUserQuestion");
        } else {
            feed(&mut world, "PostToolUse-AskUserQuestion");
            assert_eq!(world.pane(pane).unwrap().lifecycle, Lifecycle::Working);
            feed(&mut world, "Stop");
        }
        let p = world.pane(pane).unwrap();
        assert_eq!(
            (p.lifecycle, p.attention()),
            (Lifecycle::Done, Attention::Unread),
            "late {late}"
        );
        assert!(p.pending_decision.is_none());
    }
}

#[test]
fn kimi_stop_stops_turn_with_the_reply_the_hook_client_added() {
    assert_maps("Stop", SignalKind::TurnStopped { summary: None });
    let mut value: serde_json::Value = serde_json::from_str(&fixture("Stop")).unwrap();
    value["last_assistant_message"] = "Done: the file is written.".into();
    assert_eq!(
        payload(value).signal.kind,
        SignalKind::TurnStopped {
            summary: Some("Done: the file is written.".into())
        }
    );
}

#[test]
fn kimi_stop_failure_fails_the_turn() {
    let m = payload(
        serde_json::json!({"hook_event_name": "StopFailure", "session_id": "s",
        "error_type": "APIStatusError", "error_message": "401 invalid api key"}),
    );
    assert_eq!(
        m.signal.kind,
        SignalKind::TurnFailed {
            error: "APIStatusError: 401 invalid api key".into(),
            usage_limit: false,
        }
    );
}

#[test]
fn kimi_interrupt_dismisses_and_reads_idle() {
    assert_maps("Interrupt", SignalKind::GateDismissed);
}

#[test]
fn kimi_session_end_ends_session() {
    assert_maps(
        "SessionEnd",
        SignalKind::SessionEnded {
            reason: Some("exit".into()),
        },
    );
}

#[test]
fn kimi_compaction_notifications_and_subagents_are_identity_only_and_others_unknown() {
    for event in [
        "SubagentStart",
        "SubagentStop",
        "PreCompact",
        "PostCompact",
        "Notification",
    ] {
        let m = payload(serde_json::json!({"hook_event_name": event, "session_id": "s"}));
        assert!(m.known_event, "{event}");
        assert_eq!(m.signal.kind, SignalKind::IdentityOnly, "{event}");
    }
    let m = payload(serde_json::json!({"hook_event_name": "SessionHeartbeat", "session_id": "s"}));
    assert!(!m.known_event);
    assert_eq!(m.signal.kind, SignalKind::IdentityOnly);
}
