//! Cline CLI's hook rows (docs/adapters.md, "Cline CLI"): each recorded payload of
//! `tests/fixtures/cline/3.0.65/observed/` through `map_hook` with the EVENT argument its
//! hook file passes, and the engine's reading of the recorded session: a turn, a gate the
//! screen opened answered `allow` then `deny` from Attend, an Esc mid-turn.

use attend::adapters::hooks::{map_hook, HookMapping};
use attend::engine::{NewPane, World};
use attend::model::*;
use serde_json::json;
use std::path::Path;

const AT: Timestamp = Timestamp(1_800_000_000_000);
/// The recorded session (`sessionContext.rootSessionId`).
const SESSION: &str = "1796637892567_50qfp";

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/cline/3.0.65/observed")
        .join(format!("{name}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The event (hook file) of fixture `name`: its name up to a `-`.
fn event_of(name: &str) -> &str {
    name.split('-').next().unwrap()
}

fn mapped(name: &str) -> HookMapping {
    map_hook(AgentKind::Cline, Some(event_of(name)), &fixture(name), AT).unwrap()
}

/// Asserts fixture `name` is a known event that maps to `kind` from Cline's hook source.
fn assert_maps(name: &str, kind: SignalKind) -> HookMapping {
    let m = mapped(name);
    assert!(m.known_event, "{name}");
    assert_eq!(m.event, event_of(name));
    assert_eq!(m.signal.kind, kind, "{name}");
    assert_eq!(m.signal.source, Source::hook("cline", event_of(name)));
    m
}

/// A payload written out, delivered under hook file `event`.
fn payload(event: &str, value: serde_json::Value) -> HookMapping {
    map_hook(AgentKind::Cline, Some(event), &value.to_string(), AT).unwrap()
}

#[test]
fn cline_task_start_starts_the_turn_with_identity() {
    let m = assert_maps("TaskStart", SignalKind::TurnStarted);
    assert_eq!(m.session_id.as_deref(), Some(SESSION));
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"));
    assert_eq!(
        m.signal.identity.resume_argv,
        Some(vec!["cline".to_string(), "--id".into(), SESSION.into()])
    );
    // Without `workspaceInfo`, the first workspace root.
    let m = payload(
        "TaskResume",
        json!({"hookName": "agent_resume", "sessionContext": {"rootSessionId": "s1"},
            "workspaceRoots": ["/w"], "parent_agent_id": null}),
    );
    assert_eq!(m.signal.kind, SignalKind::TurnStarted);
    assert_eq!(m.cwd.as_deref(), Some("/w"));
}

#[test]
fn cline_user_prompt_submit_starts_the_turn() {
    let m = payload(
        "UserPromptSubmit",
        json!({"hookName": "prompt_submit", "sessionContext": {"rootSessionId": "s1"},
            "userPromptSubmit": {"prompt": "hi", "attachments": []}}),
    );
    assert_eq!(m.signal.kind, SignalKind::TurnStarted);
}

#[test]
fn cline_pre_tool_use_starts_the_tool_with_its_call_id() {
    assert_maps(
        "PreToolUse",
        SignalKind::ToolStarted {
            tool: "run_commands".into(),
            tool_use_id: Some("call_1796637972611".into()),
        },
    );
}

#[test]
fn cline_post_tool_use_finishes_the_tool() {
    assert_maps(
        "PostToolUse",
        SignalKind::ToolFinished {
            tool: Some("run_commands".into()),
            tool_use_id: Some("call_1796637972611".into()),
        },
    );
}

#[test]
fn cline_post_tool_use_of_a_denied_call_denies_the_gate_and_the_turn_goes_on() {
    assert_maps("PostToolUse-rejected", SignalKind::GateDenied);
    assert_maps(
        "TaskComplete-after-rejection",
        SignalKind::TurnStopped {
            summary: Some("Not run.".into()),
        },
    );
}

#[test]
fn cline_post_tool_use_of_a_failed_call_is_a_tool_error() {
    let m = payload(
        "PostToolUse",
        json!({"hookName": "tool_result", "parent_agent_id": null,
            "tool_result": {"id": "c1", "name": "read_files", "input": {},
                "output": "ENOENT: no such file", "error": "ENOENT: no such file"},
            "postToolUse": {"toolName": "read_files", "success": false}}),
    );
    assert_eq!(
        m.signal.kind,
        SignalKind::ToolError {
            error: "ENOENT: no such file".into()
        }
    );
}

#[test]
fn cline_task_complete_stops_the_turn_with_its_output_text() {
    assert_maps(
        "TaskComplete",
        SignalKind::TurnStopped {
            summary: Some("Hello from the scripted model.".into()),
        },
    );
}

#[test]
fn cline_task_error_fails_the_turn() {
    let m = payload(
        "TaskError",
        json!({"hookName": "agent_error", "iteration": 1,
            "error": {"name": "Error", "message": "429 Rate limit exceeded"}}),
    );
    assert_eq!(
        m.signal.kind,
        SignalKind::TurnFailed {
            error: "API error: 429 Rate limit exceeded".into(),
            usage_limit: true,
        }
    );
    let m = payload("TaskError", json!({"hookName": "agent_error"}));
    assert_eq!(
        m.signal.kind,
        SignalKind::TurnFailed {
            error: "API error: the run failed".into(),
            usage_limit: false,
        }
    );
}

#[test]
fn cline_session_shutdown_on_esc_and_task_cancel_are_an_interrupt() {
    let m = assert_maps("SessionShutdown-esc", SignalKind::GateDismissed);
    assert_eq!(m.session_id.as_deref(), Some(SESSION));
    let m = payload(
        "TaskCancel",
        json!({"hookName": "agent_abort", "reason": "Run aborted by user"}),
    );
    assert_eq!(m.signal.kind, SignalKind::GateDismissed);
}

#[test]
fn cline_ask_question_opens_a_question_and_its_answer_resumes_the_turn() {
    let input = json!({"question": "Which color do you want?", "options": ["Red", "Blue"]});
    let m = payload(
        "PreToolUse",
        json!({"hookName": "tool_call", "parent_agent_id": null,
            "tool_call": {"id": "c2", "name": "ask_question", "input": input}}),
    );
    assert_eq!(
        m.signal.kind,
        SignalKind::QuestionAsked {
            prompt: "Which color do you want?".into(),
            options: vec!["Red".into(), "Blue".into()],
            answer_keys: Vec::new(),
        }
    );
    let m = payload(
        "PostToolUse",
        json!({"hookName": "tool_result", "tool_result": {"id": "c2",
            "name": "ask_question", "input": input, "output": "Blue"}}),
    );
    assert_eq!(m.signal.kind, SignalKind::TurnStarted);
}

#[test]
fn cline_subagent_runs_are_inside_the_turn_and_their_tools_are_scoped() {
    let sub = |event: &str, extra: serde_json::Value| {
        let mut value = json!({"sessionContext": {"rootSessionId": "s1"},
            "agent_id": "agent_2", "parent_agent_id": "agent_1"});
        value
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        payload(event, value).signal.kind
    };
    for event in [
        "TaskStart",
        "TaskComplete",
        "TaskError",
        "TaskCancel",
        "SessionShutdown",
    ] {
        assert_eq!(sub(event, json!({})), SignalKind::IdentityOnly, "{event}");
    }
    assert_eq!(
        sub(
            "PostToolUse",
            json!({"tool_result": {"id": "c3", "name": "read_files", "output": []}})
        ),
        SignalKind::ToolFinished {
            tool: Some("read_files".into()),
            tool_use_id: Some(subagent_scope("agent_2")),
        }
    );
}

#[test]
fn cline_events_are_named_by_hook_name_without_the_event_argument_and_others_are_unknown() {
    let m = map_hook(AgentKind::Cline, None, &fixture("TaskComplete"), AT).unwrap();
    assert_eq!(m.event, "TaskComplete");
    assert!(matches!(m.signal.kind, SignalKind::TurnStopped { .. }));
    let m = payload(
        "PreCompact",
        json!({"sessionContext": {"rootSessionId": "s1"}}),
    );
    assert!(m.known_event);
    assert_eq!(m.signal.kind, SignalKind::IdentityOnly);
    let m = payload("TaskPaused", json!({"hookName": "agent_pause"}));
    assert!(!m.known_event);
    assert_eq!(m.signal.kind, SignalKind::IdentityOnly);
}

/// One owned Cline pane fed signals one second apart.
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
                agent: AgentKind::Cline,
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
        self.t += 1000;
        let m = map_hook(
            AgentKind::Cline,
            Some(event_of(name)),
            &fixture(name),
            Timestamp(self.t),
        )
        .unwrap();
        self.world.apply_signal(self.pane, &m.signal).unwrap();
    }

    /// What the chrome applies when its rule `tool-approval` matches the recorded dialog.
    fn dialog(&mut self) {
        self.t += 1000;
        let kind = SignalKind::PermissionRequested {
            prompt: "Approve tool call?".into(),
            options: Vec::new(),
            answer_keys: Vec::new(),
            tool_use_id: None,
        };
        let source = Source::new(Rung::NeedsInputChrome, "screen.chrome");
        let signal = Signal::new(kind, source, Timestamp(self.t));
        self.world.apply_signal(self.pane, &signal).unwrap();
    }

    fn answer(&mut self, choice: &str) {
        self.t += 1000;
        let action = Action::Answer {
            choice: choice.into(),
        };
        self.world
            .apply_action(self.pane, &action, Timestamp(self.t))
            .unwrap();
    }

    fn state(&self) -> (Lifecycle, Attention) {
        let pane = self.world.pane(self.pane).unwrap();
        (pane.lifecycle, pane.attention())
    }
}

#[test]
fn cline_recorded_session_turn_gate_allowed_gate_denied_and_esc() {
    let mut p = Pane1::new();
    p.feed("TaskStart");
    assert_eq!(p.state(), (Lifecycle::Working, Attention::None));
    p.feed("TaskComplete");
    assert_eq!(p.state(), (Lifecycle::Done, Attention::Unread));
    // Allowed: PreToolUse comes before the dialog, which the screen reads.
    p.feed("TaskStart");
    p.feed("PreToolUse");
    assert_eq!(p.state().0, Lifecycle::Working, "no gate before the dialog");
    p.dialog();
    assert_eq!(
        p.state(),
        (Lifecycle::Blocked, Attention::PermissionRequired)
    );
    p.answer("allow");
    p.feed("PostToolUse");
    assert_eq!(p.state().0, Lifecycle::Working);
    // Denied: the tool result says so and the model goes on to its answer.
    p.feed("TaskStart");
    p.feed("PreToolUse");
    p.dialog();
    p.answer("deny");
    p.feed("PostToolUse-rejected");
    assert_eq!(p.state().0, Lifecycle::Working, "the turn goes on");
    p.feed("TaskComplete-after-rejection");
    assert_eq!(p.state(), (Lifecycle::Done, Attention::Unread));
    // Esc mid-turn: SessionShutdown, the TUI goes on: idle, nothing raised by it.
    p.world
        .apply_action(p.pane, &Action::MarkSeen, Timestamp(p.t + 1))
        .unwrap();
    p.feed("TaskStart");
    p.feed("SessionShutdown-esc");
    assert_eq!(p.state(), (Lifecycle::Idle, Attention::None));
    // A SessionShutdown after a turn that ended changes nothing.
    p.feed("TaskStart");
    p.feed("TaskComplete");
    p.feed("SessionShutdown-esc");
    assert_eq!(p.state(), (Lifecycle::Done, Attention::Unread));
}
