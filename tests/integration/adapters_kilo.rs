//! The Kilo Code CLI adapter (`docs/adapters.md` "Kilo Code CLI"): Kilo runs Attend's
//! OpenCode plugin, so its payloads map as OpenCode's with Kilo's identity. One test per
//! mapping row over what the plugin sent from the real CLI
//! (`tests/fixtures/kilo/7.7.7/plugin/`), the recorded turns fed through the engine, and
//! the screen manifest over the recorded dialogs (`tests/fixtures/screens/kilo/7.7.7/`).

use attend::adapters::answer::resolve;
use attend::adapters::hooks::{map_hook, HookMapping};
use attend::adapters::manifest::{evaluate, parse, shipped, Manifest, Screen};
use attend::engine::{NewPane, World};
use attend::model::*;
use serde_json::json;
use std::path::Path;

const AT: Timestamp = Timestamp(1_800_000_000_000);

/// What Attend's plugin sent from Kilo 7.7.7 (EVENT argument = the file name up to a
/// `-variant`).
const PLUGIN: &str = "kilo/7.7.7/plugin";
/// The recorded session.
const SESSION: &str = "ses_db01e5615ffeIao87YZQ6jZXho";
const COMMAND: &str = "echo attend-e2e > out.txt";

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(PLUGIN)
        .join(format!("{name}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn event_of(name: &str) -> &str {
    name.split_once('-').map_or(name, |(event, _)| event)
}

/// Maps plugin fixture `name` as Kilo with its EVENT argument.
fn plugin(name: &str) -> HookMapping {
    map_hook(AgentKind::Kilo, Some(event_of(name)), &fixture(name), AT).unwrap()
}

fn assert_kind(m: &HookMapping, kind: SignalKind) {
    assert!(m.known_event, "{} should be a known event", m.event);
    assert_eq!(m.signal.kind, kind, "event {}", m.event);
    assert_eq!(m.signal.source, Source::hook("kilo", &m.event));
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

// ---------------------------------------------------------------- the mapping rows

#[test]
fn kilo_session_created_starts_session_resumable_with_kilo() {
    let m = plugin("session.created");
    assert_kind(&m, SignalKind::SessionStarted { source: None });
    assert_eq!(m.session_id.as_deref(), Some(SESSION));
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"));
    assert_eq!(
        m.signal.identity.resume_argv,
        Some(strings(&["kilo", "--session", SESSION]))
    );
}

#[test]
fn kilo_chat_message_and_a_queued_prompts_busy_status_start_turns() {
    let m = plugin("chat.message");
    assert_kind(&m, SignalKind::TurnStarted);
    assert_eq!(m.session_id.as_deref(), Some(SESSION));
    assert_kind(&plugin("session.status-busy"), SignalKind::TurnStarted);
}

#[test]
fn kilo_tool_execute_before_and_after_start_and_finish_the_call() {
    assert_kind(
        &plugin("tool.execute.before"),
        SignalKind::ToolStarted {
            tool: "bash".into(),
            tool_use_id: Some("call_1796636525523".into()),
        },
    );
    assert_kind(
        &plugin("tool.execute.after"),
        SignalKind::ToolFinished {
            tool: Some("bash".into()),
            tool_use_id: Some("call_1796636525523".into()),
        },
    );
}

#[test]
fn kilo_permission_asked_opens_gate_with_the_command() {
    let m = plugin("permission.asked");
    let SignalKind::PermissionRequested {
        prompt,
        options,
        tool_use_id,
        ..
    } = &m.signal.kind
    else {
        panic!("{:?}", m.signal.kind);
    };
    assert_eq!(prompt, &format!("bash: {COMMAND}"));
    assert_eq!(options, &strings(&["Allow once", "Allow always", "Reject"]));
    assert_eq!(tool_use_id.as_deref(), Some("call_1796636525523"));
    assert_eq!(m.signal.source, Source::hook("kilo", "permission.asked"));
}

#[test]
fn kilo_permission_replied_once_approves_and_reject_dismisses() {
    assert_kind(
        &plugin("permission.replied"),
        SignalKind::ToolFinished {
            tool: None,
            tool_use_id: Some("call_1796636525523".into()),
        },
    );
    assert_kind(
        &plugin("permission.replied-reject"),
        SignalKind::GateDismissed,
    );
}

#[test]
fn kilo_question_asked_opens_a_question_and_its_answer_goes_on() {
    assert_kind(
        &plugin("question.asked"),
        SignalKind::QuestionAsked {
            prompt: "Which color do you want?".into(),
            options: strings(&["Red", "Blue"]),
            answer_keys: Vec::new(),
        },
    );
    assert_kind(&plugin("question.replied"), SignalKind::TurnStarted);
}

#[test]
fn kilo_session_idle_stops_the_turn_with_the_last_assistant_text() {
    assert_kind(
        &plugin("session.idle"),
        SignalKind::TurnStopped {
            summary: Some("Hello from the scripted model.".into()),
        },
    );
    assert_kind(
        &plugin("session.idle-reject"),
        SignalKind::TurnStopped { summary: None },
    );
}

#[test]
fn kilo_interrupted_turn_is_a_dismissal_and_another_error_a_failure() {
    assert_kind(&plugin("session.error-aborted"), SignalKind::GateDismissed);
    let payload = json!({"type": "session.error", "properties": {"sessionID": SESSION,
        "error": {"name": "APIError", "data": {"message": "Too many requests", "statusCode": 429}}}});
    let m = map_hook(AgentKind::Kilo, None, &payload.to_string(), AT).unwrap();
    assert_kind(
        &m,
        SignalKind::TurnFailed {
            error: "API error (HTTP 429): Too many requests".into(),
            usage_limit: true,
        },
    );
}

#[test]
fn kilo_other_bus_events_are_unknown() {
    let payload = json!({"type": "message.part.delta", "properties": {"sessionID": SESSION}});
    let m = map_hook(AgentKind::Kilo, None, &payload.to_string(), AT).unwrap();
    assert!(!m.known_event);
    assert_eq!(m.signal.kind, SignalKind::IdentityOnly);
    assert_eq!(m.event, "message.part.delta");
}

// ---------------------------------------------------------------- recorded turns

struct Pane1 {
    world: World,
    pane: PaneId,
    t: i64,
    log: Vec<Event>,
}

impl Pane1 {
    fn new() -> Pane1 {
        let mut world = World::new();
        let (pane, log) = world.add_pane(
            NewPane {
                workspace: "/tmp/proj".into(),
                agent: AgentKind::Kilo,
                owned: true,
                ..Default::default()
            },
            AT,
        );
        Pane1 {
            world,
            pane,
            t: AT.0,
            log,
        }
    }

    fn feed(&mut self, name: &str) {
        self.t += 1000;
        let m = map_hook(
            AgentKind::Kilo,
            Some(event_of(name)),
            &fixture(name),
            Timestamp(self.t),
        )
        .unwrap();
        let events = self.world.apply_signal(self.pane, &m.signal).unwrap();
        self.log.extend(events);
    }

    fn state(&self) -> &Pane {
        self.world.pane(self.pane).unwrap()
    }

    fn resolutions(&self) -> Vec<Resolution> {
        self.log
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::DecisionResolved { resolution, .. } => Some(resolution.clone()),
                _ => None,
            })
            .collect()
    }
}

/// The recorded session through the engine: a text turn done/unread with the model's
/// text, a gate approved at the terminal, a question answered there, a gate rejected, an
/// interrupt: idle, no error (the user acted; the earlier turn's unread stays unread).
#[test]
fn kilo_recorded_session_through_the_engine() {
    let mut p = Pane1::new();
    p.feed("session.created");
    p.feed("chat.message");
    p.feed("session.idle");
    let pane = p.state();
    assert_eq!(
        (pane.lifecycle, pane.attention()),
        (Lifecycle::Done, Attention::Unread)
    );
    assert_eq!(
        pane.last_message.as_deref(),
        Some("Hello from the scripted model.")
    );
    assert_eq!(
        pane.resume_argv,
        Some(strings(&["kilo", "--session", SESSION]))
    );
    p.feed("chat.message");
    p.feed("tool.execute.before");
    p.feed("permission.asked");
    assert_eq!(p.state().lifecycle, Lifecycle::Blocked);
    assert_eq!(p.state().attention(), Attention::PermissionRequired);
    p.feed("permission.replied");
    p.feed("tool.execute.after");
    assert_eq!(p.state().lifecycle, Lifecycle::Working);
    assert_eq!(p.resolutions(), [Resolution::Approved]);
    p.feed("question.asked");
    assert_eq!(p.state().lifecycle, Lifecycle::Blocked);
    assert_eq!(p.state().attention(), Attention::InputRequired);
    p.feed("question.replied");
    assert_eq!(p.state().lifecycle, Lifecycle::Working);
    p.feed("permission.asked");
    p.feed("permission.replied-reject");
    assert!(p.state().pending_decision.is_none());
    p.feed("session.idle-reject");
    assert_eq!(p.state().lifecycle, Lifecycle::Done);
    p.feed("chat.message");
    assert_eq!(p.state().lifecycle, Lifecycle::Working);
    p.feed("session.error-aborted");
    let pane = p.state();
    assert_eq!(
        (pane.lifecycle, pane.attention()),
        (Lifecycle::Idle, Attention::Unread)
    );
}

// ---------------------------------------------------------------- the screen manifest

fn manifest() -> Manifest {
    parse(shipped(AgentKind::Kilo).expect("Kilo ships a manifest")).unwrap()
}

fn screen(name: &str) -> Screen {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/screens/kilo/7.7.7")
        .join(name);
    Screen::new(&std::fs::read_to_string(path).unwrap(), "")
}

fn matched(s: &Screen) -> Option<String> {
    let m = manifest();
    let name = evaluate(&m, s).matched.map(|r| r.name.clone());
    name
}

#[test]
fn kilo_permission_dialog_answers_allow_with_enter_and_deny_through_the_reject_box() {
    let s = screen("permission-dialog.txt");
    assert_eq!(matched(&s).as_deref(), Some("permission-required"));
    let m = manifest();
    assert_eq!(resolve(Some(&m), &s, "allow", false).unwrap().keys, "\r");
    assert_eq!(
        resolve(Some(&m), &s, "deny", false).unwrap().keys,
        "\u{1b}[C\u{1b}[C\r\r"
    );
    // The box Reject (or Esc) opens: Enter confirms the rejection.
    let s = screen("reject-permission.txt");
    assert_eq!(matched(&s).as_deref(), Some("reject-permission"));
    assert_eq!(resolve(Some(&m), &s, "deny", false).unwrap().keys, "\r");
    // The dialog's rows quoted in a reply, above the input box and its footer.
    let quoted = "  ┃  △ Permission required\n  ┃   Allow once   Allow always   Reject   ⇆ select  enter confirm\n\n  ┃\n  ┃  Code · gpt-4.1 scripted\n  ╹▀▀▀▀▀▀▀▀\n   15  ctrl+p commands";
    assert_eq!(matched(&Screen::new(quoted, "")), None);
}

#[test]
fn kilo_question_dialog_is_answered_by_an_options_number_or_label() {
    let s = screen("question-dialog.txt");
    assert_eq!(matched(&s).as_deref(), Some("question"));
    let m = manifest();
    assert_eq!(resolve(Some(&m), &s, "Blue", false).unwrap().keys, "2");
    assert_eq!(resolve(Some(&m), &s, "1", false).unwrap().keys, "1");
    assert_eq!(
        resolve(Some(&m), &s, "dismiss", false).unwrap().keys,
        "\u{1b}"
    );
    // Not on the permission dialog, nor on the input box.
    assert_ne!(
        matched(&screen("permission-dialog.txt")).as_deref(),
        Some("question")
    );
}
