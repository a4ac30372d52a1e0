//! The OpenCode adapter (`docs/adapters.md` "OpenCode"): one test per mapping row, over
//! what Attend's plugin sent from the real CLI (`tests/fixtures/opencode/1.18.33/plugin/`)
//! and the bus events OpenCode published (`…/observed/`), plus the recorded turns fed
//! through the engine and a property test that no input panics.

use attend::adapters::hooks::{map_hook, HookMapping};
use attend::engine::{NewPane, World};
use attend::model::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::path::Path;

const AT: Timestamp = Timestamp(1_800_000_000_000);

/// What Attend's plugin sent (EVENT argument = the file name up to a `-variant`).
const PLUGIN: &str = "opencode/1.18.33/plugin";
/// The bus events as OpenCode published them (a plugin's `event` hook).
const OBSERVED: &str = "opencode/1.18.33/observed";

/// The session of the approved-gate recording through the plugin.
const SESSION: &str = "ses_dcb467036ffeVGb7K8c1m7EIAR";
const COMMAND: &str = "echo attend-e2e > out.txt";

fn fixture(dir: &str, name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir)
        .join(format!("{name}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The EVENT argument the plugin passes with fixture `name`.
fn event_of(name: &str) -> &str {
    name.split_once('-').map_or(name, |(event, _)| event)
}

/// Maps plugin fixture `name` with its EVENT argument.
fn plugin(name: &str) -> HookMapping {
    map_hook(
        AgentKind::OpenCode,
        Some(event_of(name)),
        &fixture(PLUGIN, name),
        AT,
    )
    .unwrap()
}

/// Maps `payload` with EVENT argument `event`.
fn payload(event: &str, payload: Value) -> HookMapping {
    map_hook(AgentKind::OpenCode, Some(event), &payload.to_string(), AT).unwrap()
}

/// Asserts a known event with `kind` and the hook source of its event.
fn assert_kind(m: &HookMapping, kind: SignalKind) {
    assert!(m.known_event, "{} should be a known event", m.event);
    assert_eq!(m.signal.kind, kind, "event {}", m.event);
    assert_eq!(m.signal.source, Source::hook("opencode", &m.event));
}

fn allow_deny() -> Vec<AnswerKey> {
    ["allow", "deny"]
        .into_iter()
        .map(|choice| AnswerKey {
            choice: choice.into(),
            keys: String::new(),
        })
        .collect()
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

// ---------------------------------------------------------------- the mapping rows

#[test]
fn opencode_session_created_starts_session_with_identity() {
    let m = plugin("session.created");
    assert_kind(&m, SignalKind::SessionStarted { source: None });
    assert_eq!(m.session_id.as_deref(), Some(SESSION));
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"));
    assert_eq!(
        m.signal.identity.resume_argv,
        Some(strings(&["opencode", "--session", SESSION]))
    );
    // The bus event as OpenCode published it (no plugin `cwd`): the session's directory.
    let raw = map_hook(
        AgentKind::OpenCode,
        None,
        &fixture(OBSERVED, "session.created"),
        AT,
    )
    .unwrap();
    assert_eq!(
        raw.event, "session.created",
        "the event's own type names it"
    );
    assert_eq!(raw.cwd.as_deref(), Some("/tmp/proj"));
    assert_eq!(
        raw.session_id.as_deref(),
        Some("ses_dcbbcfd80ffeU2kcDSJ0BTRuuT")
    );
}

#[test]
fn opencode_chat_message_starts_turn() {
    let m = plugin("chat.message");
    assert_kind(&m, SignalKind::TurnStarted);
    assert_eq!(m.session_id.as_deref(), Some(SESSION));
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"));
}

#[test]
fn opencode_busy_status_starts_turn_and_idle_status_is_identity_only() {
    let busy = map_hook(
        AgentKind::OpenCode,
        Some("session.status"),
        &fixture(OBSERVED, "session.status-busy"),
        AT,
    )
    .unwrap();
    assert_kind(&busy, SignalKind::TurnStarted);
    let idle = map_hook(
        AgentKind::OpenCode,
        Some("session.status"),
        &fixture(OBSERVED, "session.status-idle"),
        AT,
    )
    .unwrap();
    assert_kind(&idle, SignalKind::IdentityOnly);
}

#[test]
fn opencode_retry_status_is_a_warning_with_the_providers_message() {
    let m = plugin("session.status-retry");
    assert_kind(
        &m,
        SignalKind::Warning {
            text: "The server is overloaded (retry 1)".into(),
        },
    );
}

#[test]
fn opencode_tool_execute_before_starts_tool() {
    assert_kind(
        &plugin("tool.execute.before"),
        SignalKind::ToolStarted {
            tool: "bash".into(),
            tool_use_id: Some("call_02".into()),
        },
    );
}

#[test]
fn opencode_tool_execute_after_finishes_tool() {
    assert_kind(
        &plugin("tool.execute.after"),
        SignalKind::ToolFinished {
            tool: Some("bash".into()),
            tool_use_id: Some("call_02".into()),
        },
    );
}

#[test]
fn opencode_permission_asked_opens_gate_with_the_command_and_the_dialogs_labels() {
    assert_kind(
        &plugin("permission.asked"),
        SignalKind::PermissionRequested {
            prompt: format!("bash: {COMMAND}"),
            options: strings(&["Allow once", "Allow always", "Reject"]),
            answer_keys: allow_deny(),
            tool_use_id: Some("call_02".into()),
        },
    );
    // An edit's gate names the file; one without metadata its patterns.
    let edit = payload(
        "permission.asked",
        json!({"type": "permission.asked", "properties": {"sessionID": "ses_1",
            "permission": "edit", "patterns": ["src/a.rs"],
            "metadata": {"filepath": "/tmp/proj/src/a.rs", "diff": "…"}}}),
    );
    assert_eq!(prompt(&edit), "edit: /tmp/proj/src/a.rs");
    let bare = payload(
        "permission.asked",
        json!({"type": "permission.asked", "properties": {"sessionID": "ses_1",
            "permission": "webfetch", "patterns": ["https://a.example/x"]}}),
    );
    assert_eq!(prompt(&bare), "webfetch: https://a.example/x");
}

fn prompt(m: &HookMapping) -> &str {
    match &m.signal.kind {
        SignalKind::PermissionRequested { prompt, .. } => prompt,
        other => panic!("not a permission: {other:?}"),
    }
}

#[test]
fn opencode_permission_replied_once_approves_the_call_it_guarded() {
    assert_kind(
        &plugin("permission.replied"),
        SignalKind::ToolFinished {
            tool: None,
            tool_use_id: Some("call_02".into()),
        },
    );
}

#[test]
fn opencode_permission_replied_reject_dismisses_the_gate() {
    assert_kind(
        &plugin("permission.replied-reject"),
        SignalKind::GateDismissed,
    );
}

#[test]
fn opencode_session_idle_stops_turn_with_the_last_assistant_text() {
    assert_kind(
        &plugin("session.idle"),
        SignalKind::TurnStopped {
            summary: Some("Done: the file is written.".into()),
        },
    );
    // After a rejected gate the turn said nothing.
    assert_kind(
        &plugin("session.idle-reject"),
        SignalKind::TurnStopped { summary: None },
    );
}

#[test]
fn opencode_session_error_fails_the_turn_with_what_the_provider_said() {
    assert_kind(
        &plugin("session.error"),
        SignalKind::TurnFailed {
            error: "API error (HTTP 401): Incorrect API key provided".into(),
            usage_limit: false,
        },
    );
    let limit = payload(
        "session.error",
        json!({"type": "session.error", "properties": {"sessionID": "ses_1",
            "error": {"name": "APIError", "data": {"message": "Rate limit reached", "statusCode": 429}}}}),
    );
    assert_kind(
        &limit,
        SignalKind::TurnFailed {
            error: "API error (HTTP 429): Rate limit reached".into(),
            usage_limit: true,
        },
    );
    let auth = payload(
        "session.error",
        json!({"type": "session.error", "properties": {
            "error": {"name": "ProviderAuthError", "data": {"providerID": "x", "message": "no key"}}}}),
    );
    assert_kind(
        &auth,
        SignalKind::TurnFailed {
            error: "authentication failed: no key".into(),
            usage_limit: false,
        },
    );
}

#[test]
fn opencode_interrupted_turn_is_a_dismissal_not_a_failure() {
    assert_kind(&plugin("session.error-aborted"), SignalKind::GateDismissed);
}

/// The question tool's events (from the 1.18.33 schema; not recorded: the scripted model
/// does not call it).
#[test]
fn opencode_question_asked_opens_a_question_and_its_answer_goes_on() {
    let m = payload(
        "question.asked",
        json!({"type": "question.asked", "properties": {"id": "que_1", "sessionID": "ses_1",
            "questions": [
                {"question": "Which database?", "header": "DB",
                 "options": [{"label": "Postgres", "description": "a"}, {"label": "SQLite", "description": "b"}]},
                {"question": "Which port?", "header": "Port", "options": []}],
            "tool": {"messageID": "msg_1", "callID": "call_9"}}}),
    );
    assert_kind(
        &m,
        SignalKind::QuestionAsked {
            prompt: "Which database? (+1 more)".into(),
            options: strings(&["Postgres", "SQLite"]),
            answer_keys: Vec::new(),
        },
    );
    let replied = json!({"type": "question.replied", "properties": {"sessionID": "ses_1",
        "requestID": "que_1", "answers": [["SQLite"], ["5432"]]}});
    assert_kind(
        &payload("question.replied", replied),
        SignalKind::TurnStarted,
    );
    let rejected = json!({"type": "question.rejected", "properties": {"sessionID": "ses_1", "requestID": "que_1"}});
    assert_kind(
        &payload("question.rejected", rejected),
        SignalKind::GateDismissed,
    );
}

/// A subagent's gate: the plugin names the pane's session as `parentID`; the gate is
/// scoped to the subagent's session, and so is its reply.
#[test]
fn opencode_subagent_gate_is_the_panes_scoped_to_the_subagent() {
    let asked = payload(
        "permission.asked",
        json!({"type": "permission.asked", "parentID": SESSION, "cwd": "/tmp/proj",
            "properties": {"id": "per_1", "sessionID": "ses_child", "permission": "bash",
            "metadata": {"command": "ls"}, "tool": {"messageID": "m", "callID": "call_1"}}}),
    );
    assert_eq!(asked.session_id.as_deref(), Some(SESSION), "no handover");
    let scope = subagent_scope("ses_child");
    match &asked.signal.kind {
        SignalKind::PermissionRequested { tool_use_id, .. } => {
            assert_eq!(tool_use_id.as_deref(), Some(scope.as_str()))
        }
        other => panic!("{other:?}"),
    }
    let replied = payload(
        "permission.replied",
        json!({"type": "permission.replied", "parentID": SESSION,
            "properties": {"sessionID": "ses_child", "requestID": "per_1", "reply": "once"},
            "tool": {"messageID": "m", "callID": "call_1"}}),
    );
    assert_kind(
        &replied,
        SignalKind::ToolFinished {
            tool: None,
            tool_use_id: Some(scope),
        },
    );
}

#[test]
fn opencode_per_token_and_other_bus_events_are_unknown() {
    for name in [
        "message.part.delta",
        "message.part.updated-text",
        "message.updated-assistant",
        "session.updated",
        "plugin.added",
    ] {
        let m = map_hook(AgentKind::OpenCode, None, &fixture(OBSERVED, name), AT).unwrap();
        assert!(!m.known_event, "{name}");
        assert_eq!(m.signal.kind, SignalKind::IdentityOnly, "{name}");
    }
}

// ---------------------------------------------------------------- timelines

/// Every session id (`ses_…`) in `v` becomes [`SESSION`].
fn one_session(v: &mut Value) {
    match v {
        Value::String(s) if s.starts_with("ses_") => *s = SESSION.to_string(),
        Value::Array(items) => items.iter_mut().for_each(one_session),
        Value::Object(map) => map.values_mut().for_each(one_session),
        _ => {}
    }
}

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
                agent: AgentKind::OpenCode,
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

    /// Maps and applies plugin fixture `name`, as one of [`SESSION`] (the fixtures come
    /// from several recorded sessions; a timeline is one).
    fn feed(&mut self, name: &str) {
        self.t += 1000;
        let mut value: Value = serde_json::from_str(&fixture(PLUGIN, name)).unwrap();
        one_session(&mut value);
        let m = map_hook(
            AgentKind::OpenCode,
            Some(event_of(name)),
            &value.to_string(),
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

/// The recorded approved-gate turn, as the plugin sent it (7 hook processes): blocked with
/// the command while the dialog waits, approved by the reply, done/unread with the
/// model's text; resumable by the session id.
#[test]
fn opencode_recorded_turn_with_an_approved_gate() {
    let mut p = Pane1::new();
    p.feed("session.created");
    assert_eq!(p.state().lifecycle, Lifecycle::Idle);
    p.feed("chat.message");
    p.feed("tool.execute.before");
    assert_eq!(p.state().lifecycle, Lifecycle::Working);
    p.feed("permission.asked");
    assert_eq!(p.state().lifecycle, Lifecycle::Blocked);
    assert_eq!(p.state().attention(), Attention::PermissionRequired);
    let decision = p.state().pending_decision.clone().unwrap();
    assert_eq!(decision.prompt, format!("bash: {COMMAND}"));
    p.feed("permission.replied");
    assert!(p.state().pending_decision.is_none());
    assert_eq!(p.state().lifecycle, Lifecycle::Working);
    assert_eq!(p.resolutions(), [Resolution::Approved]);
    p.feed("tool.execute.after");
    p.feed("session.idle");
    let pane = p.state();
    assert_eq!(pane.lifecycle, Lifecycle::Done);
    assert_eq!(pane.attention(), Attention::Unread);
    assert_eq!(
        pane.last_message.as_deref(),
        Some("Done: the file is written.")
    );
    assert_eq!(
        pane.resume_argv,
        Some(strings(&["opencode", "--session", SESSION]))
    );
}

/// A gate rejected at the terminal: dismissed (the user acted there), then the turn's
/// end; a failed turn stays failed.
#[test]
fn opencode_rejected_gate_and_failed_turn() {
    let mut p = Pane1::new();
    for name in [
        "session.created",
        "chat.message",
        "tool.execute.before",
        "permission.asked",
        "permission.replied-reject",
    ] {
        p.feed(name);
    }
    assert!(p.state().pending_decision.is_none());
    assert_eq!(p.state().lifecycle, Lifecycle::Idle);
    assert_eq!(p.resolutions(), [Resolution::Dismissed]);
    p.feed("session.idle-reject");
    assert_eq!(p.state().lifecycle, Lifecycle::Done);
    p.feed("chat.message");
    p.feed("session.error");
    assert_eq!(p.state().lifecycle, Lifecycle::Failed);
    assert_eq!(p.state().attention(), Attention::Error);
    assert_eq!(
        p.state().last_message.as_deref(),
        Some("API error (HTTP 401): Incorrect API key provided")
    );
}

// ---------------------------------------------------------------- never panics

/// Keys and values the adapter reads, so generated payloads reach the mapping.
const NAMES: [&str; 24] = [
    "type",
    "properties",
    "input",
    "output",
    "sessionID",
    "info",
    "id",
    "directory",
    "parentID",
    "cwd",
    "status",
    "busy",
    "retry",
    "attempt",
    "message",
    "permission",
    "metadata",
    "command",
    "patterns",
    "tool",
    "callID",
    "reply",
    "questions",
    "error",
];

const EVENTS: [&str; 14] = [
    "session.created",
    "chat.message",
    "session.status",
    "tool.execute.before",
    "tool.execute.after",
    "permission.asked",
    "permission.replied",
    "question.asked",
    "question.replied",
    "question.rejected",
    "session.idle",
    "session.error",
    "message.part.delta",
    "no.such.event",
];

fn json_value() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        prop::sample::select(&NAMES[..]).prop_map(str::to_string),
        ".{0,8}"
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        prop::sample::select(&NAMES[..]).prop_map(Value::from),
        ".{0,20}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(crate::proptest_config(1000))]

    #[test]
    fn arbitrary_json_objects_never_panic(
        event in prop::option::of(prop::sample::select(&EVENTS[..])),
        fields in prop::collection::btree_map(
            prop::sample::select(&NAMES[..]).prop_map(str::to_string),
            json_value(),
            0..8,
        ),
    ) {
        let payload = Value::Object(fields.into_iter().collect()).to_string();
        let _ = map_hook(AgentKind::OpenCode, event, &payload, AT);
    }
}
