//! Continue CLI's hook rows (docs/adapters.md, "Continue CLI"): the payloads its sources
//! declare (`tests/fixtures/continue/1.5.47/documented/`, not recorded: 1.5.47 runs no
//! hook) through `map_hook`, and a payload of Continue's reaching Claude's hook filed
//! under Continue.

use attend::adapters::hooks::{map_hook, HookMapping};
use attend::model::*;
use serde_json::{json, Value};
use std::path::Path;

const AT: Timestamp = Timestamp(1_800_000_000_000);

const SESSION: &str = "6d4f5dc1-698a-4953-a18f-06273d148366";

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/continue/1.5.47/documented")
        .join(format!("{name}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Asserts fixture `name`, sent to Continue's hook, is a known event mapping to `kind`
/// from Continue's hook source.
fn assert_maps(name: &str, kind: SignalKind) -> HookMapping {
    let m = map_hook(AgentKind::Continue, None, &fixture(name), AT).unwrap();
    assert!(m.known_event, "{name}");
    assert_eq!(m.signal.kind, kind, "{name}");
    assert_eq!(m.signal.source, Source::hook("continue", &m.event));
    m
}

#[test]
fn continue_session_start_starts_session_with_identity() {
    let m = assert_maps(
        "SessionStart",
        SignalKind::SessionStarted {
            source: Some("startup".into()),
        },
    );
    assert_eq!(m.session_id.as_deref(), Some(SESSION));
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"));
    assert_eq!(
        m.signal.identity.resume_argv,
        Some(vec!["cn".into(), "--fork".into(), SESSION.into()])
    );
}

#[test]
fn continue_user_prompt_submit_starts_turn() {
    assert_maps("UserPromptSubmit", SignalKind::TurnStarted);
}

#[test]
fn continue_pre_and_post_tool_use_start_and_finish_the_tool() {
    assert_maps(
        "PreToolUse",
        SignalKind::ToolStarted {
            tool: "Bash".into(),
            tool_use_id: Some("call_1".into()),
        },
    );
    assert_maps(
        "PostToolUse",
        SignalKind::ToolFinished {
            tool: Some("Bash".into()),
            tool_use_id: Some("call_1".into()),
        },
    );
}

#[test]
fn continue_permission_request_opens_a_gate_naming_the_command() {
    let m = map_hook(AgentKind::Continue, None, &fixture("PermissionRequest"), AT).unwrap();
    let SignalKind::PermissionRequested { prompt, .. } = &m.signal.kind else {
        panic!("{:?}", m.signal.kind)
    };
    assert_eq!(prompt, "Bash: touch ok.txt");
}

#[test]
fn continue_stop_stops_turn_with_the_last_message() {
    assert_maps(
        "Stop",
        SignalKind::TurnStopped {
            summary: Some("Done: offline reply.".into()),
        },
    );
}

#[test]
fn continue_session_end_ends_session() {
    let m = map_hook(AgentKind::Continue, None, &fixture("SessionEnd"), AT).unwrap();
    assert!(
        matches!(m.signal.kind, SignalKind::SessionEnded { .. }),
        "{:?}",
        m.signal.kind
    );
}

/// Continue runs the hooks of Claude's `settings.json` too: each of its payloads sent to
/// `attend-hook claude` (an empty `transcript_path`) is filed under Continue, with
/// Continue's source and resume argv; Claude's own (a transcript file named) stays
/// Claude's.
#[test]
fn continue_payloads_reaching_claudes_hook_are_continues() {
    for name in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "Stop",
        "SessionEnd",
    ] {
        let m = map_hook(AgentKind::Claude, None, &fixture(name), AT).unwrap();
        assert_eq!(m.agent, AgentKind::Continue, "{name}");
        assert_eq!(m.signal.source, Source::hook("continue", &m.event));
        assert_eq!(
            m.signal
                .identity
                .resume_argv
                .as_ref()
                .map(|a| a[0].as_str()),
            Some("cn"),
            "{name}"
        );
    }
    let mut claude: Value = serde_json::from_str(&fixture("Stop")).unwrap();
    claude["transcript_path"] = json!("/home/u/.claude/projects/-tmp-proj/s.jsonl");
    let m = map_hook(AgentKind::Claude, None, &claude.to_string(), AT).unwrap();
    assert_eq!(m.agent, AgentKind::Claude);
    assert_eq!(m.signal.source, Source::hook("claude", "Stop"));
    // No transcript_path at all (a hand-made payload): Claude's, as before.
    claude.as_object_mut().unwrap().remove("transcript_path");
    let m = map_hook(AgentKind::Claude, None, &claude.to_string(), AT).unwrap();
    assert_eq!(m.agent, AgentKind::Claude);
}

#[test]
fn grok_has_no_hook_adapter() {
    let err = map_hook(
        AgentKind::Grok,
        Some("Stop"),
        &json!({"session_id": "s"}).to_string(),
        AT,
    )
    .unwrap_err();
    assert_eq!(
        err,
        attend::adapters::hooks::AdapterError::UnknownAgent("grok".into())
    );
}
