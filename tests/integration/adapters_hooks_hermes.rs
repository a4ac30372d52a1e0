//! Hermes Agent's hook rows (docs/adapters.md, "Hermes Agent"): each recorded payload of
//! `tests/fixtures/hermes/0.19.0/observed/` through `map_hook` (the payload names its
//! event), and the engine's reading of the recorded session: a turn, a dangerous command
//! allowed then denied at its dialog, Ctrl+C mid-turn, the exit.

use attend::adapters::hooks::{map_hook, HookMapping};
use attend::engine::{NewPane, World};
use attend::model::*;
use serde_json::json;
use std::path::Path;

const AT: Timestamp = Timestamp(1_800_000_000_000);
/// The recorded session.
const SESSION: &str = "20261207_124339_76dc87";

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hermes/0.19.0/observed")
        .join(format!("{name}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn mapped(name: &str) -> HookMapping {
    map_hook(AgentKind::Hermes, None, &fixture(name), AT).unwrap()
}

/// Asserts fixture `name` is a known event (its name up to a `-`) that maps to `kind`.
fn assert_maps(name: &str, kind: SignalKind) -> HookMapping {
    let m = mapped(name);
    let event = name.split('-').next().unwrap();
    assert!(m.known_event, "{name}");
    assert_eq!(m.event, event);
    assert_eq!(m.signal.kind, kind, "{name}");
    assert_eq!(m.signal.source, Source::hook("hermes", event));
    m
}

fn payload(value: serde_json::Value) -> HookMapping {
    map_hook(AgentKind::Hermes, None, &value.to_string(), AT).unwrap()
}

#[test]
fn hermes_pre_llm_call_starts_the_turn_with_identity() {
    let m = assert_maps("pre_llm_call", SignalKind::TurnStarted);
    assert_eq!(m.session_id.as_deref(), Some(SESSION));
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"));
    assert_eq!(
        m.signal.identity.resume_argv,
        Some(vec![
            "hermes".to_string(),
            "--resume".into(),
            SESSION.into()
        ])
    );
}

#[test]
fn hermes_session_start_and_reset_start_a_session() {
    let m = payload(
        json!({"hook_event_name": "on_session_start", "session_id": "s1",
        "cwd": "/w", "extra": {"model": "m", "platform": "cli"}}),
    );
    assert_eq!(m.signal.kind, SignalKind::SessionStarted { source: None });
    let m = payload(json!({"hook_event_name": "on_session_reset", "session_id": "s2"}));
    assert_eq!(
        m.signal.kind,
        SignalKind::SessionStarted {
            source: Some("clear".into())
        }
    );
}

#[test]
fn hermes_tool_calls_start_and_finish_with_their_call_id() {
    assert_maps(
        "pre_tool_call",
        SignalKind::ToolStarted {
            tool: "terminal".into(),
            tool_use_id: Some("call_4".into()),
        },
    );
    let m = mapped("post_tool_call");
    assert!(
        matches!(&m.signal.kind, SignalKind::ToolFinished { tool: Some(t), tool_use_id: Some(_) } if t == "terminal"),
        "{:?}",
        m.signal.kind
    );
    let m = payload(
        json!({"hook_event_name": "post_tool_call", "tool_name": "read_file",
        "session_id": "s1", "extra": {"status": "error", "error_message": "no such file"}}),
    );
    assert_eq!(
        m.signal.kind,
        SignalKind::ToolError {
            error: "no such file".into()
        }
    );
}

#[test]
fn hermes_approval_request_opens_the_gate_and_the_smart_check_does_not() {
    let m = assert_maps(
        "pre_approval_request-cli",
        SignalKind::PermissionRequested {
            prompt: "terminal: rm -rf scratch".into(),
            options: vec![
                "Allow once".into(),
                "Allow for this session".into(),
                "Add to permanent allowlist".into(),
                "Deny".into(),
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
            tool_use_id: Some("call_4".into()),
        },
    );
    // The approval hooks leave `session_id` empty: the session is `extra.session_key`.
    assert_eq!(m.session_id.as_deref(), Some(SESSION));
    assert_maps("pre_approval_request-smart", SignalKind::IdentityOnly);
}

#[test]
fn hermes_approval_response_approves_or_denies_the_gate() {
    assert_maps(
        "post_approval_response-once",
        SignalKind::ToolFinished {
            tool: None,
            tool_use_id: Some("call_1".into()),
        },
    );
    assert_maps("post_approval_response-deny", SignalKind::GateDenied);
    // The denied command's tool result repeats the refusal: nothing more.
    assert_maps("post_tool_call-denied", SignalKind::IdentityOnly);
    let m = payload(json!({"hook_event_name": "post_approval_response",
        "extra": {"choice": "smart_approve", "session_key": "s1"}}));
    assert_eq!(m.signal.kind, SignalKind::IdentityOnly);
}

#[test]
fn hermes_post_llm_call_stops_the_turn_with_the_reply() {
    assert_maps(
        "post_llm_call",
        SignalKind::TurnStopped {
            summary: Some("All done.".into()),
        },
    );
}

#[test]
fn hermes_turn_end_is_an_interrupt_after_ctrl_c_and_a_failure_without_a_reply() {
    assert_maps("on_session_end", SignalKind::IdentityOnly);
    assert_maps("on_session_end-interrupted", SignalKind::GateDismissed);
    let m = payload(
        json!({"hook_event_name": "on_session_end", "session_id": "s1",
        "extra": {"completed": false, "interrupted": false}}),
    );
    assert!(
        matches!(m.signal.kind, SignalKind::TurnFailed { .. }),
        "{:?}",
        m.signal.kind
    );
}

#[test]
fn hermes_finalize_ends_the_session_and_clarify_is_a_question() {
    assert_maps(
        "on_session_finalize",
        SignalKind::SessionEnded {
            reason: Some("shutdown".into()),
        },
    );
    // Recorded: `clarify` answered "Blue" with its number key.
    let m = assert_maps(
        "pre_tool_call-clarify",
        SignalKind::QuestionAsked {
            prompt: "Which color do you want?".into(),
            options: vec!["Red".into(), "Blue".into()],
            answer_keys: Vec::new(),
        },
    );
    assert_eq!(m.session_id.as_deref(), Some("20261207_200518_9421da"));
    assert_maps("post_tool_call-clarify", SignalKind::TurnStarted);
    let m = payload(json!({"hook_event_name": "transform_llm_output", "session_id": "s1"}));
    assert!(!m.known_event);
}

/// One owned Hermes pane fed the recorded payloads one second apart.
struct Pane1 {
    world: World,
    pane: PaneId,
    t: i64,
}

impl Pane1 {
    fn new() -> Pane1 {
        let mut world = World::new();
        let (pane, _) = world.add_pane(
            NewPane {
                workspace: "/tmp/proj".into(),
                agent: AgentKind::Hermes,
                owned: true,
                ..Default::default()
            },
            AT,
        );
        Pane1 {
            world,
            pane,
            t: AT.0,
        }
    }

    fn feed(&mut self, name: &str) {
        self.feed_text(&fixture(name));
    }

    fn feed_text(&mut self, text: &str) {
        self.t += 1000;
        let m = map_hook(AgentKind::Hermes, None, text, Timestamp(self.t)).unwrap();
        self.world.apply_signal(self.pane, &m.signal).unwrap();
    }

    fn state(&self) -> (Lifecycle, Attention) {
        let p = self.world.pane(self.pane).unwrap();
        (p.lifecycle, p.attention())
    }
}

#[test]
fn hermes_recorded_session_turn_gate_allowed_gate_denied_interrupt_and_exit() {
    let mut p = Pane1::new();
    p.feed("pre_llm_call");
    assert_eq!(p.state(), (Lifecycle::Working, Attention::None));
    // The allowed call of the recorded session was `call_1`, the denied one `call_4`.
    let allowed = |name: &str| fixture(name).replace("call_4", "call_1");
    p.feed_text(&allowed("pre_tool_call"));
    p.feed_text(&allowed("pre_approval_request-smart"));
    assert_eq!(
        p.state().0,
        Lifecycle::Working,
        "the smart check asks no one"
    );
    p.feed_text(&allowed("pre_approval_request-cli"));
    assert_eq!(
        p.state(),
        (Lifecycle::Blocked, Attention::PermissionRequired)
    );
    p.feed("post_approval_response-once");
    p.feed("post_tool_call");
    assert_eq!(p.state().0, Lifecycle::Working);
    p.feed("post_llm_call");
    p.feed("on_session_end");
    assert_eq!(p.state(), (Lifecycle::Done, Attention::Unread));
    // Denied: the turn goes on to the model's answer.
    p.feed("pre_llm_call");
    p.feed("pre_approval_request-cli");
    p.feed("post_approval_response-deny");
    p.feed("post_tool_call-denied");
    assert_eq!(p.state().0, Lifecycle::Working, "the turn goes on");
    p.feed("post_llm_call");
    assert_eq!(p.state().0, Lifecycle::Done);
    // Ctrl+C mid-turn: idle.
    p.world
        .apply_action(p.pane, &Action::MarkSeen, Timestamp(p.t + 1))
        .unwrap();
    p.feed("pre_llm_call");
    p.feed("on_session_end-interrupted");
    assert_eq!(p.state(), (Lifecycle::Idle, Attention::None));
    p.feed("on_session_finalize");
    assert!(p.world.pane(p.pane).unwrap().pending_decision.is_none());
}
