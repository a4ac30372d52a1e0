//! The oh-my-pi adapter (`docs/adapters.md` "oh-my-pi"): one test per mapping row, over
//! what Attend's pi extension sent from the real omp (`tests/fixtures/omp/18.2.3/observed/`),
//! plus the recorded turns fed through the engine.

use attend::adapters::answer::resolve;
use attend::adapters::hooks::{map_hook, HookMapping};
use attend::adapters::manifest::{evaluate, parse, shipped, Manifest, Screen};
use attend::engine::{NewPane, World};
use attend::model::*;
use serde_json::{json, Value};
use std::path::Path;

const AT: Timestamp = Timestamp(1_800_000_000_000);

/// What Attend's extension sent (the EVENT argument is the file name up to a `-variant`).
const OBSERVED: &str = "omp/18.2.3/observed";

/// The session of the first recording.
const SESSION: &str = "01a2508d-898a-760a-9c6c-7c093e4ae965";

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
    map_hook(AgentKind::Omp, Some(event), &fixture(name), AT).unwrap()
}

/// Asserts a known event with `kind` and the hook source of its event.
fn assert_kind(m: &HookMapping, kind: SignalKind) {
    assert!(m.known_event, "{} should be a known event", m.event);
    assert_eq!(m.signal.kind, kind, "event {}", m.event);
    assert_eq!(m.signal.source, Source::hook("omp", &m.event));
}

#[test]
fn omp_session_start_starts_session_with_identity() {
    let m = observed("session_start");
    assert_kind(
        &m,
        SignalKind::SessionStarted {
            source: Some("startup".into()),
        },
    );
    assert_eq!(m.agent, AgentKind::Omp);
    assert_eq!(m.session_id.as_deref(), Some(SESSION));
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"));
    assert_eq!(
        m.signal.identity.resume_argv,
        Some(vec!["omp".into(), "--resume".into(), SESSION.into()])
    );
}

#[test]
fn omp_agent_start_starts_turn() {
    assert_kind(&observed("agent_start"), SignalKind::TurnStarted);
}

#[test]
fn omp_tool_execution_start_starts_tool_and_end_finishes_it() {
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
    // A denied call ends as a failed one: the model's to handle, the turn goes on.
    assert_kind(&observed("tool_execution_end-denied"), finished);
}

#[test]
fn omp_ask_start_opens_a_question_and_its_end_closes_it() {
    assert_kind(
        &observed("tool_execution_start-ask"),
        SignalKind::QuestionAsked {
            prompt: "Which color do you want?".into(),
            options: vec!["Red".into(), "Blue".into()],
            answer_keys: Vec::new(),
        },
    );
    // Answered: the run goes on, which closes the question.
    assert_kind(&observed("tool_execution_end-ask"), SignalKind::GateDenied);
    // Without its arguments (an extension installed before it sent them): still a
    // question, the screen's dialog names its options.
    let bare = json!({"tool_name": "ask", "tool_call_id": "c", "session_id": SESSION});
    let m = map_hook(
        AgentKind::Omp,
        Some("tool_execution_start"),
        &bare.to_string(),
        AT,
    )
    .unwrap();
    assert_eq!(
        m.signal.kind,
        SignalKind::QuestionAsked {
            prompt: "omp is asking a question".into(),
            options: Vec::new(),
            answer_keys: Vec::new(),
        }
    );
}

#[test]
fn omp_tool_approval_requested_opens_a_permission_gate_naming_the_command() {
    assert_kind(
        &observed("tool_approval_requested"),
        SignalKind::PermissionRequested {
            prompt: "bash: touch ok.txt".into(),
            options: vec!["Approve".into(), "Deny".into()],
            answer_keys: ["allow", "deny"]
                .map(|c| AnswerKey {
                    choice: c.into(),
                    keys: String::new(),
                })
                .to_vec(),
            tool_use_id: Some("call_1".into()),
        },
    );
}

#[test]
fn omp_tool_approval_resolved_approves_or_denies_the_gate() {
    assert_kind(
        &observed("tool_approval_resolved"),
        SignalKind::ToolFinished {
            tool: Some("bash".into()),
            tool_use_id: Some("call_1".into()),
        },
    );
    assert_kind(
        &observed("tool_approval_resolved-denied"),
        SignalKind::GateDenied,
    );
}

#[test]
fn omp_agent_settled_stops_turn_with_the_last_assistant_text() {
    for name in ["agent_settled", "agent_settled-after-denial"] {
        assert_kind(
            &observed(name),
            SignalKind::TurnStopped {
                summary: Some("Done: offline reply.".into()),
            },
        );
    }
}

#[test]
fn omp_agent_settled_aborted_is_a_dismissal_not_a_completion() {
    assert_kind(
        &observed("agent_settled-aborted"),
        SignalKind::GateDismissed,
    );
}

#[test]
fn omp_session_shutdown_ends_session() {
    assert_kind(
        &observed("session_shutdown"),
        SignalKind::SessionEnded {
            reason: Some("quit".into()),
        },
    );
}

#[test]
fn omp_other_events_are_unknown() {
    let m = map_hook(
        AgentKind::Omp,
        Some("turn_end"),
        &json!({"session_id": SESSION}).to_string(),
        AT,
    )
    .unwrap();
    assert!(!m.known_event);
    assert_eq!(m.signal.kind, SignalKind::IdentityOnly);
}

/// One omp pane in the engine, fed recorded payloads one second apart.
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
                agent: AgentKind::Omp,
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
            AgentKind::Omp,
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
/// text; a tool call's approval reads blocked/permission_required, approved it is working
/// with no decision left, denied too (the model hears so), and each turn ends done; the
/// question of `ask` reads blocked/input_required until the tool ends; an
/// Esc mid-turn goes back to idle with no attention.
#[test]
fn omp_recorded_turns_through_the_engine() {
    let mut p = Pane1::new();
    assert_eq!(p.feed("session_start").lifecycle, Lifecycle::Idle);
    assert_eq!(p.feed("agent_start").lifecycle, Lifecycle::Working);
    let done = p.feed("agent_settled");
    assert_eq!(done.lifecycle, Lifecycle::Done);
    assert_eq!(done.attention(), Attention::Unread);
    assert_eq!(done.last_message.as_deref(), Some("Done: offline reply."));

    for (answer, end) in [
        ("tool_approval_resolved", "tool_execution_end"),
        ("tool_approval_resolved-denied", "tool_execution_end-denied"),
    ] {
        p.feed("agent_start");
        p.feed("tool_execution_start");
        let asked = p.feed("tool_approval_requested");
        assert_eq!(asked.lifecycle, Lifecycle::Blocked);
        assert_eq!(asked.attention(), Attention::PermissionRequired);
        let answered = p.feed(answer);
        assert_eq!(answered.lifecycle, Lifecycle::Working, "{answer}");
        assert!(answered.pending_decision.is_none(), "{answer}");
        p.feed(end);
        assert_eq!(
            p.feed("agent_settled-after-denial").lifecycle,
            Lifecycle::Done
        );
    }

    // The question of `ask`: blocked/input_required until the tool ends, then done.
    p.feed("agent_start");
    let asked = p.feed("tool_execution_start-ask");
    assert_eq!(asked.lifecycle, Lifecycle::Blocked);
    assert_eq!(asked.attention(), Attention::InputRequired);
    let d = asked.pending_decision.as_ref().expect("the question");
    assert_eq!(d.kind, DecisionKind::Question);
    assert_eq!(d.prompt, "Which color do you want?");
    let answered = p.feed("tool_execution_end-ask");
    assert_eq!(answered.lifecycle, Lifecycle::Working);
    assert!(answered.pending_decision.is_none());
    assert_eq!(p.feed("agent_settled").lifecycle, Lifecycle::Done);

    let mut fresh = Pane1::new();
    fresh.feed("session_start");
    fresh.feed("agent_start");
    let aborted = fresh.feed("agent_settled-aborted");
    assert_eq!(aborted.lifecycle, Lifecycle::Idle);
    assert_eq!(aborted.attention(), Attention::None);
}

// ---------------------------------------------------------------- the screen manifest

fn manifest() -> Manifest {
    parse(shipped(AgentKind::Omp).expect("omp ships a manifest")).unwrap()
}

fn screen(name: &str) -> Screen {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/screens/omp/18.2.3")
        .join(name);
    Screen::new(&std::fs::read_to_string(path).unwrap(), "")
}

fn matched(s: &Screen) -> Option<String> {
    let m = manifest();
    let name = evaluate(&m, s).matched.map(|r| r.name.clone());
    name
}

/// The question of `ask` as drawn (`❯ ○ Red`, `  ○ Blue`, `  ○ Other (type your own)`):
/// an option is picked by its label without the radio button, or by its position, with
/// cursor moves from `❯` and Enter.
#[test]
fn omp_ask_dialog_is_answered_by_label_or_position_with_cursor_moves() {
    let s = screen("ask-dialog.txt");
    assert_eq!(matched(&s).as_deref(), Some("ask"));
    let m = manifest();
    let keys = |choice: &str| resolve(Some(&m), &s, choice, false).map(|a| a.keys);
    assert_eq!(keys("Red").unwrap(), "\r");
    assert_eq!(keys("Blue").unwrap(), "\u{1b}[B\r");
    assert_eq!(keys("2").unwrap(), "\u{1b}[B\r");
    assert_eq!(keys("Other (type your own)").unwrap(), "\u{1b}[B\u{1b}[B\r");
    assert_eq!(keys("dismiss").unwrap(), "\u{1b}");
    assert!(keys("Green").is_err(), "no such option: nothing typed");
    let picked = resolve(Some(&m), &s, "blue", true).unwrap();
    assert_eq!(picked.picked.as_deref(), Some("Blue"));
    assert_eq!(picked.keys, "\u{1b}OB\r");
    // The approval dialog is not the question, nor the question an approval.
    assert_eq!(
        matched(&screen("permission-dialog.txt")).as_deref(),
        Some("tool-approval")
    );
}
