//! The pi adapter (`docs/adapters.md` "pi"): one test per mapping row, over what Attend's
//! extension sent from the real CLI (`tests/fixtures/pi/1.6.0/observed/`), plus the
//! recorded turns fed through the engine.

use attend::adapters::hooks::{map_hook, HookMapping};
use attend::engine::{NewPane, World};
use attend::model::*;
use serde_json::{json, Value};
use std::path::Path;

const AT: Timestamp = Timestamp(1_800_000_000_000);

/// What Attend's extension sent (the EVENT argument is the file name up to a `-variant`).
const OBSERVED: &str = "pi/1.6.0/observed";

/// The session of the first recording.
const SESSION: &str = "01a24fd4-68fd-760a-a876-a61ca3f642a7";

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(OBSERVED)
        .join(format!("{name}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Maps fixture `name` with its EVENT argument.
fn observed(name: &str) -> HookMapping {
    let event = name.split_once('-').map_or(name, |(event, _)| event);
    map_hook(AgentKind::Pi, Some(event), &fixture(name), AT).unwrap()
}

/// Fixture `name` with `edit` applied, mapped.
fn edited(name: &str, edit: impl FnOnce(&mut Value)) -> HookMapping {
    let mut v: Value = serde_json::from_str(&fixture(name)).unwrap();
    edit(&mut v);
    map_hook(AgentKind::Pi, None, &v.to_string(), AT).unwrap()
}

/// Asserts a known event with `kind` and the hook source of its event.
fn assert_kind(m: &HookMapping, kind: SignalKind) {
    assert!(m.known_event, "{} should be a known event", m.event);
    assert_eq!(m.signal.kind, kind, "event {}", m.event);
    assert_eq!(m.signal.source, Source::hook("pi", &m.event));
}

#[test]
fn pi_session_start_starts_session_with_identity() {
    let m = observed("session_start");
    assert_kind(
        &m,
        SignalKind::SessionStarted {
            source: Some("startup".into()),
        },
    );
    assert_eq!(m.session_id.as_deref(), Some(SESSION));
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"));
    assert_eq!(
        m.signal.identity.resume_argv,
        Some(vec!["pi".into(), "--session".into(), SESSION.into()])
    );
    for (reason, source) in [("new", "clear"), ("fork", "resume"), ("resume", "resume")] {
        let m = edited("session_start", |v| v["reason"] = json!(reason));
        assert_kind(
            &m,
            SignalKind::SessionStarted {
                source: Some(source.into()),
            },
        );
    }
    let reload = edited("session_start", |v| v["reason"] = json!("reload"));
    assert_kind(&reload, SignalKind::IdentityOnly);
}

#[test]
fn pi_agent_start_starts_turn() {
    assert_kind(&observed("agent_start"), SignalKind::TurnStarted);
}

#[test]
fn pi_tool_execution_start_starts_tool_and_end_finishes_it() {
    assert_kind(
        &observed("tool_execution_start"),
        SignalKind::ToolStarted {
            tool: "bash".into(),
            tool_use_id: Some("call_1".into()),
        },
    );
    let finished = SignalKind::ToolFinished {
        tool: Some("bash".into()),
        tool_use_id: Some("call_1".into()),
    };
    assert_kind(&observed("tool_execution_end"), finished.clone());
    // A failed or blocked call is the model's to handle: the turn goes on.
    assert_kind(&observed("tool_execution_end-blocked"), finished);
}

#[test]
fn pi_agent_settled_stops_turn_with_the_last_assistant_text() {
    assert_kind(
        &observed("agent_settled"),
        SignalKind::TurnStopped {
            summary: Some("Done: offline reply.".into()),
        },
    );
}

#[test]
fn pi_agent_settled_aborted_is_a_dismissal_not_a_completion() {
    assert_kind(
        &observed("agent_settled-aborted"),
        SignalKind::GateDismissed,
    );
}

#[test]
fn pi_agent_settled_with_an_error_fails_the_turn_with_what_the_provider_said() {
    let m = observed("agent_settled-error");
    let SignalKind::TurnFailed { error, usage_limit } = &m.signal.kind else {
        panic!("{:?}", m.signal.kind)
    };
    assert!(error.starts_with("429: "), "{error}");
    assert!(error.contains("Rate limit reached"), "{error}");
    assert!(usage_limit, "HTTP 429 is a usage limit");
    let other = edited("agent_settled-error", |v| {
        v["error"] = json!("Connection error.: connect ECONNREFUSED 127.0.0.1:9")
    });
    assert_kind(
        &other,
        SignalKind::TurnFailed {
            error: "Connection error.: connect ECONNREFUSED 127.0.0.1:9".into(),
            usage_limit: false,
        },
    );
}

#[test]
fn pi_ui_prompt_start_asks_a_question_and_its_end_goes_on() {
    let m = observed("ui_prompt_start");
    assert_kind(
        &m,
        SignalKind::QuestionAsked {
            prompt: "⚠️ Dangerous command:\n\n  echo attend-e2e > out.txt\n\nAllow?".into(),
            options: Vec::new(),
            answer_keys: Vec::new(),
        },
    );
    let untitled = edited("ui_prompt_start", |v| {
        v.as_object_mut().unwrap().remove("title");
    });
    assert_kind(
        &untitled,
        SignalKind::QuestionAsked {
            prompt: "select dialog".into(),
            options: Vec::new(),
            answer_keys: Vec::new(),
        },
    );
    assert_kind(&observed("ui_prompt_end"), SignalKind::TurnStarted);
    let idle = edited("ui_prompt_end", |v| v["busy"] = json!(false));
    assert_kind(&idle, SignalKind::GateDismissed);
}

#[test]
fn pi_session_shutdown_ends_session_with_reason() {
    assert_kind(
        &observed("session_shutdown"),
        SignalKind::SessionEnded {
            reason: Some("quit".into()),
        },
    );
    for (reason, mapped) in [("new", "clear"), ("resume", "resume"), ("fork", "resume")] {
        let m = edited("session_shutdown", |v| v["reason"] = json!(reason));
        assert_kind(
            &m,
            SignalKind::SessionEnded {
                reason: Some(mapped.into()),
            },
        );
    }
    let reload = edited("session_shutdown", |v| v["reason"] = json!("reload"));
    assert_kind(&reload, SignalKind::IdentityOnly);
}

#[test]
fn pi_other_events_are_unknown() {
    let m = map_hook(
        AgentKind::Pi,
        Some("message_update"),
        &json!({"session_id": SESSION}).to_string(),
        AT,
    )
    .unwrap();
    assert!(!m.known_event);
    assert_eq!(m.signal.kind, SignalKind::IdentityOnly);
}

/// One pi pane in the engine, fed recorded payloads one second apart.
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
                agent: AgentKind::Pi,
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

    /// Maps and applies fixture `name` as one of [`SESSION`] (the fixtures come from two
    /// recorded sessions; a timeline is one).
    fn feed(&mut self, name: &str) -> &Pane {
        self.t += 1000;
        let mut v: Value = serde_json::from_str(&fixture(name)).unwrap();
        v["session_id"] = json!(SESSION);
        let event = name.split_once('-').map_or(name, |(event, _)| event);
        let m = map_hook(
            AgentKind::Pi,
            Some(event),
            &v.to_string(),
            Timestamp(self.t),
        )
        .unwrap();
        self.world.apply_signal(self.pane, &m.signal).unwrap();
        self.world.pane(self.pane).unwrap()
    }
}

/// The recorded turns through the engine: a text turn ends done/unread with the model's
/// text; a tool turn whose extension dialog waits reads blocked/input_required, then
/// working once answered; an Esc mid-turn goes back to idle with no attention; the turn
/// whose requests all failed reads failed/error.
#[test]
fn pi_recorded_turns_through_the_engine() {
    let mut p = Pane1::new();
    assert_eq!(p.feed("session_start").lifecycle, Lifecycle::Idle);
    assert_eq!(p.feed("agent_start").lifecycle, Lifecycle::Working);
    let done = p.feed("agent_settled");
    assert_eq!(done.lifecycle, Lifecycle::Done);
    assert_eq!(done.attention(), Attention::Unread);
    assert_eq!(done.last_message.as_deref(), Some("Done: offline reply."));

    p.feed("agent_start");
    p.feed("tool_execution_start");
    let asked = p.feed("ui_prompt_start");
    assert_eq!(asked.lifecycle, Lifecycle::Blocked);
    assert_eq!(asked.attention(), Attention::InputRequired);
    let answered = p.feed("ui_prompt_end");
    assert_eq!(answered.lifecycle, Lifecycle::Working);
    assert!(answered.pending_decision.is_none());
    p.feed("tool_execution_end-blocked");
    assert_eq!(p.feed("agent_settled").lifecycle, Lifecycle::Done);

    p.feed("agent_start");
    let failed = p.feed("agent_settled-error");
    assert_eq!(failed.lifecycle, Lifecycle::Failed);
    assert_eq!(failed.attention(), Attention::Error);

    let mut fresh = Pane1::new();
    fresh.feed("session_start");
    fresh.feed("agent_start");
    let aborted = fresh.feed("agent_settled-aborted");
    assert_eq!(aborted.lifecycle, Lifecycle::Idle);
    assert_eq!(aborted.attention(), Attention::None);
}
