//! Hook adapters: a table with one named row per mapping row of `docs/adapters.md`, each
//! mapping a fixture from `tests/fixtures/<agent>/<version>/` or a payload written out
//! (run by [`mapping_rows`]); a few timelines fed through the engine to check the end
//! state; and a property test that no input panics.

use attend::adapters::hooks::{
    map_hook, map_hook_with, AdapterError, HookMapping, NotificationAction, NotificationPolicy,
};
use attend::engine::{NewPane, World};
use attend::model::*;
use proptest::prelude::*;
use std::path::Path;
use std::sync::LazyLock;

use crate::support::hook_events;

const AT: Timestamp = Timestamp(1_800_000_000_000);

const CLAUDE: &str = "claude/2.1.197";
/// Payloads recorded from the newest pinned Claude Code.
const CLAUDE_NEWEST: &str = "claude/2.1.332/observed";
/// Payloads recorded from the oldest pinned Claude Code.
const CLAUDE_OBSERVED: &str = "claude/2.1.197/observed";
const CODEX: &str = "codex/0.171.0";
const CURSOR: &str = "cursor/docs-2026";
const GEMINI: &str = "gemini/0.61.0";
/// Payloads recorded from Qwen Code.
const QWEN: &str = "qwen/0.24.4/observed";

const CLAUDE_SESSION: &str = "6b33e0c2-0000-4000-8000-000000000001";
const CODEX_THREAD: &str = "0199a0c1-0000-7000-8000-000000000010";
const CURSOR_CONVERSATION: &str = "c0a8e1f4-0000-4000-8000-000000000030";
const GEMINI_SESSION: &str = "3f1e9b2a-0000-4000-8000-000000000020";
/// The session of the Qwen Code recording.
const QWEN_SESSION: &str = "8fb8287b-949c-4c20-b928-f2cdbc59d054";
/// The command of the Qwen Code recording's tool call.
const QWEN_COMMAND: &str = "echo attend-smoke > out.txt";
/// Payloads recorded from GitHub Copilot CLI.
const COPILOT: &str = "copilot/1.0.102/observed";
/// The session of the Copilot recording's interactive run.
const COPILOT_SESSION: &str = "88c0db96-eb7c-40c9-a71d-b487d8b9c3a1";
/// The command of the Copilot recording's tool call.
const COPILOT_COMMAND: &str = "echo hi > out.txt";
/// Factory Droid 0.225.2: `observed/` recorded from `droid exec`, `documented/` from its
/// hooks reference (the interactive mode asks for a Factory sign-in first).
const DROID: &str = "droid/0.225.2";
/// Kimi Code CLI's recorded payloads (tests/integration/adapters_hooks_kimi.rs).
const KIMI: &str = "kimi/2.1.0/observed";
/// The session of the Droid recording's text turn.
const DROID_SESSION: &str = "83538b0b-a5ca-4bf3-9786-0c31803e6eae";

fn fixture(dir: &str, name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir)
        .join(format!("{name}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// A gate's choices: keys come from the dialog on screen when answering.
fn allow_deny() -> Vec<AnswerKey> {
    ["allow", "deny"]
        .into_iter()
        .map(|choice| AnswerKey {
            choice: choice.into(),
            keys: String::new(),
        })
        .collect()
}

/// Asserts the mapping is a known event with `kind` and the hook source of `event`.
fn assert_kind(m: &HookMapping, kind: SignalKind) {
    assert!(m.known_event, "{} should be a known event", m.event);
    assert_eq!(m.signal.kind, kind, "event {}", m.event);
    assert_eq!(m.signal.source, Source::hook(m.agent.as_str(), &m.event));
    assert_eq!(m.signal.at, AT);
}

// ---------------------------------------------------------------- the mapping rows

/// What a row gives the adapter.
enum Input {
    /// Fixture `<name>.json` of the row's agent, with this EVENT argument.
    Fixture(&'static str, Option<&'static str>),
    /// A payload written out here, with this EVENT argument.
    Payload(String, Option<&'static str>),
}

/// What a row expects of the mapping.
enum Expect {
    /// A known event mapped to this signal kind, with the hook source of its event and
    /// the time of the call ([`assert_kind`]).
    Kind(SignalKind),
    /// An event the adapter does not know: identity only, not a known event.
    Unknown,
    /// A mapping; what it says is checked by the row's `also`.
    Mapped,
    /// This error.
    Error(AdapterError),
}

/// One mapping row of `docs/adapters.md`: an agent's hook input and what it maps to.
/// The name is the row's (and was its test's) name.
struct Row {
    name: &'static str,
    agent: AgentKind,
    input: Input,
    expect: Expect,
    /// Further checks of the mapping.
    also: fn(&HookMapping),
}

/// A row mapping fixture `name` of `agent` (EVENT argument `notify` for Codex notify
/// fixtures, none otherwise).
fn fixture_row(
    name: &'static str,
    agent: AgentKind,
    fixture: &'static str,
    kind: SignalKind,
) -> Row {
    let event_arg = fixture.starts_with("notify").then_some("notify");
    Row {
        name,
        agent,
        input: Input::Fixture(fixture, event_arg),
        expect: Expect::Kind(kind),
        also: |_| {},
    }
}

/// A row mapping `payload` of `agent` with EVENT argument `event_arg`.
fn payload_row(
    name: &'static str,
    agent: AgentKind,
    event_arg: Option<&'static str>,
    payload: &str,
    expect: Expect,
) -> Row {
    Row {
        name,
        agent,
        input: Input::Payload(payload.to_string(), event_arg),
        expect,
        also: |_| {},
    }
}

impl Row {
    fn also(mut self, also: fn(&HookMapping)) -> Row {
        self.also = also;
        self
    }

    fn check(&self) {
        let (payload, event_arg) = match &self.input {
            Input::Fixture(name, event_arg) => (fixture(dir_of(self.agent), name), *event_arg),
            Input::Payload(payload, event_arg) => (payload.clone(), *event_arg),
        };
        let result = map_hook(self.agent, event_arg, &payload, AT);
        if let Expect::Error(error) = &self.expect {
            assert_eq!(result.as_ref().err(), Some(error), "{result:?}");
            return;
        }
        let m = result.unwrap();
        match &self.expect {
            Expect::Kind(kind) => assert_kind(&m, kind.clone()),
            Expect::Unknown => {
                assert!(!m.known_event, "{} should not be a known event", m.event);
                assert_eq!(m.signal.kind, SignalKind::IdentityOnly);
            }
            Expect::Mapped | Expect::Error(_) => {}
        }
        (self.also)(&m);
    }
}

/// The fixture directory of `agent`.
fn dir_of(agent: AgentKind) -> &'static str {
    match agent {
        AgentKind::Claude => CLAUDE,
        AgentKind::Codex => CODEX,
        AgentKind::Cursor => CURSOR,
        AgentKind::Gemini => GEMINI,
        AgentKind::Qwen => QWEN,
        AgentKind::OpenCode => "opencode/1.18.33/plugin",
        AgentKind::Pi => "pi/1.6.0/observed",
        AgentKind::Kilo => "kilo/7.7.7/plugin",
        AgentKind::Copilot => COPILOT,
        AgentKind::Droid => DROID,
        AgentKind::Kimi => KIMI,
        AgentKind::Cline => "cline/3.0.65/observed",
        AgentKind::Omp => "omp/18.2.3/observed",
        AgentKind::Continue => "continue/1.5.47/documented",
        AgentKind::Letta => "letta/0.25.9/observed",
        AgentKind::Auggie => "auggie/0.36.0/documented",
        AgentKind::Vibe => "vibe/3.0.3/documented",
        AgentKind::Aider => "aider/0.86.2/observed",
        AgentKind::Hermes => "hermes/0.19.0/observed",
        AgentKind::OpenHands => "openhands/1.16.0/documented",
        AgentKind::Amp => "amp/0.0.1790712063-gb89205/documented",
        AgentKind::Qoder => "qoder/1.1.52/documented",
        AgentKind::Crush => "crush/0.90.0/documented",
        AgentKind::MastraCode => "mastracode/0.32.1/observed",
        AgentKind::Grok | AgentKind::Shell => panic!("the shell and Grok have no hook fixtures"),
    }
}

/// A row mapping Copilot fixture `fixture` with its EVENT argument `event` (Copilot's
/// payloads name no event: the hook's command line does).
fn copilot_row(
    name: &'static str,
    fixture: &'static str,
    event: &'static str,
    kind: SignalKind,
) -> Row {
    Row {
        name,
        agent: AgentKind::Copilot,
        input: Input::Fixture(fixture, Some(event)),
        expect: Expect::Kind(kind),
        also: |_| {},
    }
}

/// The permission prompt of a mapping (panics when it is not a permission request).
fn permission_prompt(m: &HookMapping) -> &str {
    match &m.signal.kind {
        SignalKind::PermissionRequested { prompt, .. } => prompt,
        other => panic!("not a permission: {other:?}"),
    }
}

fn rows() -> Vec<Row> {
    use AgentKind::{Claude, Codex, Copilot, Cursor, Droid, Gemini, Qwen, Shell};
    use SignalKind::*;
    let idle = |name, agent, fixture| fixture_row(name, agent, fixture, IdentityOnly);
    vec![
        // ------------------------------------------------------------ Claude Code
        fixture_row(
            "claude_session_start_starts_session_with_identity",
            Claude,
            "SessionStart",
            SessionStarted {
                source: Some("startup".into()),
            },
        )
        .also(|m| {
            assert_eq!(m.event, "SessionStart");
            assert_eq!(
                m.signal.identity,
                Identity {
                    session_id: Some(CLAUDE_SESSION.into()),
                    resume_argv: Some(strings(&["claude", "--resume", CLAUDE_SESSION])),
                    cwd: Some("/tmp/proj".into()),
                    title: None,
                }
            );
            assert_eq!(m.session_id.as_deref(), Some(CLAUDE_SESSION));
            assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"));
            assert_eq!(m.require_session, None);
        }),
        fixture_row(
            "claude_user_prompt_submit_starts_turn",
            Claude,
            "UserPromptSubmit",
            TurnStarted,
        ),
        fixture_row(
            "claude_pre_tool_use_starts_tool",
            Claude,
            "PreToolUse",
            ToolStarted {
                tool: "Bash".into(),
                tool_use_id: Some("toolu_01".into()),
            },
        ),
        fixture_row(
            "claude_pre_tool_use_ask_user_question_asks_question",
            Claude,
            "PreToolUse-AskUserQuestion",
            QuestionAsked {
                prompt: "Which database should the tests use?".into(),
                options: strings(&["SQLite", "PostgreSQL", "Type something."]),
                answer_keys: vec![],
            },
        ),
        payload_row(
            "claude_pre_tool_use_ask_user_question_is_lenient",
            Claude,
            None,
            r#"{"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion",
        "tool_input":{"questions":[{"header":"Pick","options":["a",{"label":"b"},{"x":1}]},{"question":"2nd?"}]}}"#,
            Expect::Kind(QuestionAsked {
                prompt: "Pick (+1 more)".into(),
                options: strings(&["a", "b", "Type something."]),
                answer_keys: vec![],
            }),
        ),
        payload_row(
            "claude_pre_tool_use_ask_user_question_without_input_asks_a_question",
            Claude,
            None,
            r#"{"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion"}"#,
            Expect::Kind(QuestionAsked {
                prompt: "question".into(),
                options: vec![],
                answer_keys: vec![],
            }),
        ),
        fixture_row(
            "claude_permission_request_opens_permission_gate",
            Claude,
            "PermissionRequest",
            PermissionRequested {
                prompt: "Bash: echo hi > /tmp/x".into(),
                options: strings(&["Yes", "Yes, and don't ask again", "No"]),
                answer_keys: allow_deny(),
                tool_use_id: None,
            },
        ),
        payload_row(
            "claude_permission_request_keeps_tool_use_id_when_present",
            Claude,
            None,
            r#"{"hook_event_name":"PermissionRequest","tool_name":"Bash",
        "tool_input":{"command":"ls"},"tool_use_id":"toolu_09"}"#,
            Expect::Mapped,
        )
        .also(|m| {
            let SignalKind::PermissionRequested { tool_use_id, .. } = &m.signal.kind else {
                panic!("not a permission: {:?}", m.signal.kind);
            };
            assert_eq!(tool_use_id.as_deref(), Some("toolu_09"));
            assert_eq!(permission_prompt(m), "Bash: ls");
        }),
        Row {
            name: "claude_permission_request_non_bash_renders_tool_input",
            agent: Claude,
            input: Input::Fixture("PermissionRequest-Write", None),
            expect: Expect::Mapped,
            also: |m| assert_eq!(permission_prompt(m), "Write: /tmp/proj/notes.txt"),
        },
        idle(
            "claude_permission_request_ask_user_question_is_identity_only",
            Claude,
            "PermissionRequest-AskUserQuestion",
        ),
        fixture_row(
            "claude_post_tool_use_finishes_tool",
            Claude,
            "PostToolUse",
            ToolFinished {
                tool: Some("Bash".into()),
                tool_use_id: Some("toolu_01".into()),
            },
        ),
        fixture_row(
            "claude_post_tool_use_ask_user_question_resumes_turn",
            Claude,
            "PostToolUse-AskUserQuestion",
            TurnStarted,
        ),
        fixture_row(
            "claude_post_tool_use_failure_is_tool_error",
            Claude,
            "PostToolUseFailure",
            ToolError {
                error: "Exit code 1".into(),
            },
        ),
        fixture_row(
            "claude_post_tool_use_failure_interrupt_dismisses_gate",
            Claude,
            "PostToolUseFailure-interrupt",
            GateDismissed,
        ),
        fixture_row(
            "claude_notification_permission_prompt_restates_permission_gate",
            Claude,
            "Notification",
            AgentNotification {
                text: "Claude needs your permission".into(),
                gate: GateRef::Names(DecisionKind::Permission),
            },
        ),
        fixture_row(
            "claude_notification_elicitation_dialog_names_question",
            Claude,
            "Notification-elicitation_dialog",
            AgentNotification {
                text: "Claude needs your input".into(),
                gate: GateRef::Names(DecisionKind::Question),
            },
        ),
        fixture_row(
            "claude_notification_idle_prompt_is_plain_by_default",
            Claude,
            "Notification-idle_prompt",
            AgentNotification {
                text: "Claude is waiting for your input".into(),
                gate: GateRef::None,
            },
        ),
        fixture_row(
            "claude_notification_other_type_is_plain",
            Claude,
            "Notification-auth_success",
            AgentNotification {
                text: "Authentication successful".into(),
                gate: GateRef::None,
            },
        ),
        fixture_row(
            "claude_stop_stops_turn_with_summary",
            Claude,
            "Stop",
            TurnStopped {
                summary: Some("Done: the work is finished.".into()),
            },
        ),
        payload_row(
            "claude_stop_without_background_tasks_keeps_the_summary",
            Claude,
            None,
            &fixture(CLAUDE_NEWEST, "Stop"),
            Expect::Kind(TurnStopped {
                summary: Some("Hello from the scripted model.".into()),
            }),
        ),
        payload_row(
            "claude_stop_with_background_tasks_says_they_still_run",
            Claude,
            None,
            &fixture(CLAUDE_NEWEST, "Stop-background"),
            Expect::Kind(TurnStopped {
                summary: Some(
                    "(1 background task still running) Started a background sleep; it is still running."
                        .into(),
                ),
            }),
        ),
        fixture_row(
            "claude_stop_failure_rate_limit_fails_turn_with_usage_limit",
            Claude,
            "StopFailure",
            TurnFailed {
                error: "usage limit: 5-hour limit reached, resets 18:00".into(),
                usage_limit: true,
            },
        ),
        fixture_row(
            "claude_stop_failure_server_error_fails_turn_without_usage_limit",
            Claude,
            "StopFailure-server_error",
            TurnFailed {
                error: "API server error".into(),
                usage_limit: false,
            },
        ),
        payload_row(
            "claude_stop_failure_billing_error_fails_turn_with_usage_limit",
            Claude,
            None,
            r#"{"hook_event_name":"StopFailure","error":"billing_error","error_details":{"code":402}}"#,
            Expect::Kind(TurnFailed {
                error: r#"billing error: {"code":402}"#.into(),
                usage_limit: true,
            }),
        ),
        payload_row(
            "claude_stop_failure_of_the_compaction_is_a_warning",
            Claude,
            None,
            &fixture(CLAUDE_NEWEST, "StopFailure-compaction"),
            Expect::Kind(Warning {
                text: "compaction failed: API server error".into(),
            }),
        ),
        payload_row(
            "claude_stop_failure_of_a_subagent_is_a_warning",
            Claude,
            None,
            r#"{"hook_event_name":"StopFailure","agent_id":"a1","agent_type":"Explore","error":"overloaded"}"#,
            Expect::Kind(Warning {
                text: "subagent Explore failed: API overloaded".into(),
            }),
        ),
        payload_row(
            "claude_permission_request_inside_a_subagent_is_scoped_to_it",
            Claude,
            None,
            &fixture(CLAUDE_NEWEST, "PermissionRequest-subagent"),
            Expect::Mapped,
        )
        .also(|m| match &m.signal.kind {
            SignalKind::PermissionRequested {
                prompt,
                tool_use_id,
                ..
            } => {
                assert_eq!(prompt, "Bash: echo attend-e2e > out.txt");
                let recorded: serde_json::Value =
                    serde_json::from_str(&fixture(CLAUDE_NEWEST, "PermissionRequest-subagent"))
                        .unwrap();
                let agent = recorded["agent_id"].as_str().unwrap();
                assert_eq!(tool_use_id.clone(), Some(format!("agent:{agent}")));
            }
            other => panic!("not a permission: {other:?}"),
        }),
        payload_row(
            "claude_post_tool_use_inside_a_subagent_is_scoped_to_it",
            Claude,
            None,
            r#"{"hook_event_name":"PostToolUse","agent_id":"a1","tool_name":"Bash","tool_use_id":"toolu_03"}"#,
            Expect::Kind(ToolFinished {
                tool: Some("Bash".into()),
                tool_use_id: Some("agent:a1".into()),
            }),
        ),
        payload_row(
            "claude_session_start_after_compaction_is_a_compact_start",
            Claude,
            None,
            &fixture(CLAUDE_NEWEST, "SessionStart-compact"),
            Expect::Kind(SessionStarted {
                source: Some("compact".into()),
            }),
        ),
        payload_row(
            "claude_task_notification_prompt_starts_turn",
            Claude,
            None,
            &fixture(CLAUDE_NEWEST, "UserPromptSubmit-task-notification"),
            Expect::Kind(TurnStarted),
        ),
        // Recorded from the real CLIs: the reason is `last_assistant_message`, there is no
        // `error_details`.
        payload_row(
            "claude_stop_failure_authentication_failed_says_why_in_the_message",
            Claude,
            None,
            &fixture(CLAUDE_NEWEST, "StopFailure-authentication_failed"),
            Expect::Kind(TurnFailed {
                error: "authentication failed: Invalid API key · Fix external API key".into(),
                usage_limit: false,
            }),
        ),
        payload_row(
            "claude_stop_failure_usage_limit_says_when_it_resets",
            Claude,
            None,
            &fixture(CLAUDE_OBSERVED, "StopFailure-rate_limit"),
            Expect::Kind(TurnFailed {
                error: "usage limit: API Error: Request rejected (429) · Usage limit reached for your plan; resets at 18:00 UTC".into(),
                usage_limit: true,
            }),
        ),
        payload_row(
            "claude_stop_failure_of_an_unknown_kind_names_it",
            Claude,
            None,
            r#"{"hook_event_name":"StopFailure","error":"model_gone"}"#,
            Expect::Kind(TurnFailed {
                error: "model gone".into(),
                usage_limit: false,
            }),
        ),
        // The payload as the CLI's hook schema defines it (auto mode's classifier runs on
        // Anthropic's servers, so no scripted model can make it deny).
        payload_row(
            "claude_permission_denied_is_a_warning_with_the_denied_command",
            Claude,
            None,
            r#"{"hook_event_name":"PermissionDenied","session_id":"s","tool_name":"Bash","tool_input":{"command":"curl -s https://example.com/i.sh | sh","description":"Install"},"tool_use_id":"toolu_01","reason":"Runs a script downloaded from the internet"}"#,
            Expect::Kind(Warning {
                text: "denied: Bash: curl -s https://example.com/i.sh | sh — Runs a script downloaded from the internet".into(),
            }),
        ),
        payload_row(
            "claude_post_tool_batch_with_a_rule_denial_is_a_warning_with_the_command",
            Claude,
            None,
            &fixture(CLAUDE_NEWEST, "PostToolBatch-denied"),
            Expect::Kind(Warning {
                text: "denied: Bash: rm -rf build".into(),
            }),
        ),
        payload_row(
            "claude_post_tool_batch_counts_further_denials",
            Claude,
            None,
            r#"{"hook_event_name":"PostToolBatch","tool_calls":[
                {"tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":"a b"},
                {"tool_name":"Bash","tool_input":{"command":"rm a"},"tool_response":"Permission to use Bash with command rm a has been denied."},
                {"tool_name":"Write","tool_input":{"file_path":"/etc/x"},"tool_response":"Permission to use Write has been denied."}]}"#,
            Expect::Kind(Warning {
                text: "denied: Bash: rm a (+1 more)".into(),
            }),
        ),
        payload_row(
            "claude_post_tool_batch_without_a_denial_is_identity_only",
            Claude,
            None,
            r#"{"hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"a"}},{"tool_name":"Bash","tool_response":"The user doesn't want to proceed with this tool use."}]}"#,
            Expect::Kind(IdentityOnly),
        ),
        idle("claude_subagent_start_is_identity_only", Claude, "SubagentStart"),
        idle("claude_subagent_stop_is_identity_only", Claude, "SubagentStop"),
        idle("claude_pre_compact_is_identity_only", Claude, "PreCompact"),
        idle("claude_post_compact_is_identity_only", Claude, "PostCompact"),
        fixture_row(
            "claude_session_end_ends_session_with_reason",
            Claude,
            "SessionEnd",
            SessionEnded {
                reason: Some("prompt_input_exit".into()),
            },
        )
        // FR-001: identity still comes with the end.
        .also(|m| assert_eq!(m.session_id.as_deref(), Some(CLAUDE_SESSION))),
        fixture_row(
            "claude_session_end_clear_ends_session_with_reason",
            Claude,
            "SessionEnd-clear",
            SessionEnded {
                reason: Some("clear".into()),
            },
        ),
        // ------------------------------------------------------------ Codex CLI
        fixture_row(
            "codex_notify_turn_complete_stops_turn_for_its_thread_only",
            Codex,
            "notify",
            TurnStopped {
                summary: Some("Wrote hi to /tmp/x.".into()),
            },
        )
        .also(|m| {
            assert_eq!(m.event, "notify");
            assert_eq!(m.require_session.as_deref(), Some(CODEX_THREAD));
            assert_eq!(m.signal.identity.session_id, None);
            assert_eq!(m.signal.identity.resume_argv, None);
            assert_eq!(m.session_id, None);
            assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"));
        }),
        Row {
            name: "codex_notify_is_detected_without_event_argument",
            agent: Codex,
            input: Input::Fixture("notify", None),
            expect: Expect::Mapped,
            also: |m| {
                assert_eq!(m.event, "notify");
                assert_eq!(m.require_session.as_deref(), Some(CODEX_THREAD));
            },
        },
        payload_row(
            "codex_notify_unknown_type_is_identity_only",
            Codex,
            Some("notify"),
            r#"{"type":"approval-requested","thread-id":"t1"}"#,
            Expect::Unknown,
        )
        .also(|m| assert_eq!(m.require_session.as_deref(), Some("t1"))),
        fixture_row(
            "codex_session_start_starts_session_with_identity",
            Codex,
            "SessionStart",
            SessionStarted {
                source: Some("startup".into()),
            },
        )
        .also(|m| {
            assert_eq!(m.session_id.as_deref(), Some(CODEX_THREAD));
            assert_eq!(
                m.signal.identity.resume_argv,
                Some(strings(&["codex", "resume", CODEX_THREAD]))
            );
            assert_eq!(m.require_session, None);
        }),
        fixture_row(
            "codex_user_prompt_submit_starts_turn",
            Codex,
            "UserPromptSubmit",
            TurnStarted,
        ),
        fixture_row(
            "codex_pre_tool_use_starts_tool",
            Codex,
            "PreToolUse",
            ToolStarted {
                tool: "Bash".into(),
                tool_use_id: Some("call_01".into()),
            },
        ),
        fixture_row(
            "codex_permission_request_opens_permission_gate_with_description",
            Codex,
            "PermissionRequest",
            PermissionRequested {
                prompt: "Bash: echo hi > /tmp/x — Write the file outside the sandbox".into(),
                options: strings(&[
                    "Yes, proceed",
                    "Yes, and don't ask again",
                    "No, and tell Codex what to do differently",
                ]),
                answer_keys: allow_deny(),
                tool_use_id: None,
            },
        ),
        fixture_row(
            "codex_post_tool_use_finishes_tool",
            Codex,
            "PostToolUse",
            ToolFinished {
                tool: Some("Bash".into()),
                tool_use_id: Some("call_01".into()),
            },
        ),
        fixture_row(
            "codex_stop_stops_turn_with_summary",
            Codex,
            "Stop",
            TurnStopped {
                summary: Some("Wrote hi to /tmp/x.".into()),
            },
        ),
        fixture_row(
            "codex_session_end_ends_session",
            Codex,
            "SessionEnd",
            SessionEnded {
                reason: Some("other".into()),
            },
        ),
        // ------------------------------------------------------------ Cursor
        fixture_row(
            "cursor_session_start_starts_session_with_identity",
            Cursor,
            "sessionStart",
            SessionStarted {
                source: Some("startup".into()),
            },
        )
        .also(|m| {
            assert_eq!(
                m.signal.identity,
                Identity {
                    session_id: Some(CURSOR_CONVERSATION.into()),
                    resume_argv: Some(strings(&[
                        "cursor-agent",
                        "--resume",
                        CURSOR_CONVERSATION
                    ])),
                    cwd: Some("/tmp/proj".into()),
                    title: None,
                }
            )
        }),
        fixture_row(
            "cursor_session_end_ends_session",
            Cursor,
            "sessionEnd",
            SessionEnded {
                reason: Some("user_close".into()),
            },
        ),
        fixture_row(
            "cursor_before_submit_prompt_starts_turn",
            Cursor,
            "beforeSubmitPrompt",
            TurnStarted,
        ),
        fixture_row(
            "cursor_before_shell_execution_starts_tool",
            Cursor,
            "beforeShellExecution",
            ToolStarted {
                tool: "Shell".into(),
                tool_use_id: None,
            },
        )
        // cwd is the workspace root, not the command's directory.
        .also(|m| assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"))),
        fixture_row(
            "cursor_after_shell_execution_finishes_tool",
            Cursor,
            "afterShellExecution",
            ToolFinished {
                tool: Some("Shell".into()),
                tool_use_id: None,
            },
        ),
        fixture_row(
            "cursor_pre_tool_use_starts_tool",
            Cursor,
            "preToolUse",
            ToolStarted {
                tool: "Shell".into(),
                tool_use_id: Some("tool_01".into()),
            },
        ),
        fixture_row(
            "cursor_post_tool_use_finishes_tool",
            Cursor,
            "postToolUse",
            ToolFinished {
                tool: Some("Shell".into()),
                tool_use_id: Some("tool_01".into()),
            },
        ),
        fixture_row(
            "cursor_post_tool_use_failure_is_tool_error",
            Cursor,
            "postToolUseFailure",
            ToolError {
                error: "Command exited with code 1".into(),
            },
        ),
        fixture_row(
            "cursor_stop_completed_stops_turn_without_summary",
            Cursor,
            "stop",
            TurnStopped { summary: None },
        ),
        fixture_row(
            "cursor_stop_aborted_dismisses",
            Cursor,
            "stop-aborted",
            GateDismissed,
        ),
        fixture_row(
            "cursor_stop_error_fails_turn",
            Cursor,
            "stop-error",
            TurnFailed {
                error: "agent stopped with an error".into(),
                usage_limit: false,
            },
        ),
        idle(
            "cursor_after_agent_response_is_identity_only",
            Cursor,
            "afterAgentResponse",
        ),
        // ------------------------------------------------------------ Gemini CLI
        fixture_row(
            "gemini_session_start_starts_session_with_identity",
            Gemini,
            "SessionStart",
            SessionStarted {
                source: Some("startup".into()),
            },
        )
        .also(|m| {
            assert_eq!(
                m.signal.identity,
                Identity {
                    session_id: Some(GEMINI_SESSION.into()),
                    resume_argv: Some(strings(&["gemini", "--resume"])),
                    cwd: Some("/tmp/proj".into()),
                    title: None,
                }
            )
        }),
        fixture_row(
            "gemini_session_end_ends_session",
            Gemini,
            "SessionEnd",
            SessionEnded {
                reason: Some("exit".into()),
            },
        ),
        fixture_row(
            "gemini_before_agent_starts_turn",
            Gemini,
            "BeforeAgent",
            TurnStarted,
        ),
        fixture_row(
            "gemini_after_agent_stops_turn_with_response",
            Gemini,
            "AfterAgent",
            TurnStopped {
                summary: Some("I wrote hi to /tmp/x.".into()),
            },
        ),
        // An API error ended the turn: Gemini's placeholder is no summary.
        payload_row(
            "gemini_after_agent_without_a_response_says_nothing",
            Gemini,
            None,
            r#"{"hook_event_name":"AfterAgent","session_id":"g1","prompt":"say hello","prompt_response":"[no response text]"}"#,
            Expect::Kind(TurnStopped { summary: None }),
        ),
        fixture_row(
            "gemini_before_tool_starts_tool",
            Gemini,
            "BeforeTool",
            ToolStarted {
                tool: "run_shell_command".into(),
                tool_use_id: None,
            },
        ),
        fixture_row(
            "gemini_after_tool_finishes_tool",
            Gemini,
            "AfterTool",
            ToolFinished {
                tool: Some("run_shell_command".into()),
                tool_use_id: None,
            },
        ),
        fixture_row(
            "gemini_notification_tool_permission_opens_permission_gate",
            Gemini,
            "Notification",
            PermissionRequested {
                prompt: "echo hi > /tmp/x".into(),
                options: strings(&[
                    "Allow once",
                    "Allow for this session",
                    "No, suggest changes",
                ]),
                answer_keys: allow_deny(),
                tool_use_id: None,
            },
        ),
        // Without details.command the message is the prompt.
        payload_row(
            "gemini_notification_tool_permission_without_command_prompts_with_message",
            Gemini,
            None,
            r#"{"hook_event_name":"Notification","notification_type":"ToolPermission","message":"Allow edit?"}"#,
            Expect::Mapped,
        )
        .also(|m| assert_eq!(permission_prompt(m), "Allow edit?")),
        fixture_row(
            "gemini_before_model_is_a_model_request",
            Gemini,
            "BeforeModel",
            ModelRequest {
                model: Some("gemini-2.5-pro".into()),
                messages: Some(0),
            },
        ),
        // What the hook client sends: `llm_request` reduced to the model and the count.
        payload_row(
            "gemini_before_model_digest_is_a_model_request",
            Gemini,
            None,
            r#"{"hook_event_name":"BeforeModel","session_id":"g1","llm_request":{"model":"gemini-3.8-flash","message_count":3}}"#,
            Expect::Kind(ModelRequest {
                model: Some("gemini-3.8-flash".into()),
                messages: Some(3),
            }),
        ),
        idle("gemini_after_model_is_identity_only", Gemini, "AfterModel"),
        idle(
            "gemini_before_tool_selection_is_identity_only",
            Gemini,
            "BeforeToolSelection",
        ),
        idle("gemini_pre_compress_is_identity_only", Gemini, "PreCompress"),
        // ------------------------------------------------------------ Qwen Code
        fixture_row(
            "qwen_session_start_starts_session_with_identity",
            Qwen,
            "SessionStart",
            SessionStarted {
                source: Some("startup".into()),
            },
        )
        .also(|m| {
            assert_eq!(
                m.signal.identity,
                Identity {
                    session_id: Some(QWEN_SESSION.into()),
                    resume_argv: Some(strings(&["qwen", "--resume", QWEN_SESSION])),
                    cwd: Some("/tmp/proj".into()),
                    title: None,
                }
            )
        }),
        fixture_row(
            "qwen_user_prompt_submit_starts_turn",
            Qwen,
            "UserPromptSubmit",
            TurnStarted,
        ),
        fixture_row(
            "qwen_permission_request_opens_gate_with_the_dialogs_labels",
            Qwen,
            "PermissionRequest",
            PermissionRequested {
                prompt: format!("run_shell_command: {QWEN_COMMAND}"),
                options: strings(&["Yes, allow once", "Always allow", "No, suggest changes"]),
                answer_keys: allow_deny(),
                tool_use_id: None,
            },
        ),
        fixture_row(
            "qwen_permission_notification_names_the_gate",
            Qwen,
            "Notification-permission_prompt",
            AgentNotification {
                text: "Qwen Code needs your permission to use run_shell_command".into(),
                gate: GateRef::Names(DecisionKind::Permission),
            },
        ),
        // Fired right after every Stop: the same completion, whatever the policy says.
        fixture_row(
            "qwen_idle_prompt_notification_is_identity_only",
            Qwen,
            "Notification-idle_prompt",
            IdentityOnly,
        ),
        fixture_row(
            "qwen_pre_tool_use_starts_tool",
            Qwen,
            "PreToolUse",
            ToolStarted {
                tool: "run_shell_command".into(),
                tool_use_id: Some("toolu_1796169122009_8kofzonvd".into()),
            },
        ),
        fixture_row(
            "qwen_post_tool_use_finishes_tool",
            Qwen,
            "PostToolUse",
            ToolFinished {
                tool: Some("run_shell_command".into()),
                tool_use_id: Some("toolu_1796169122009_8kofzonvd".into()),
            },
        ),
        // Also fired by the background memory agent after a turn (no agent_id).
        idle("qwen_post_tool_batch_is_identity_only", Qwen, "PostToolBatch"),
        fixture_row(
            "qwen_stop_stops_turn_with_last_message",
            Qwen,
            "Stop",
            TurnStopped {
                summary: Some("Hello from the scripted model.".into()),
            },
        ),
        fixture_row(
            "qwen_session_end_ends_session",
            Qwen,
            "SessionEnd",
            SessionEnded {
                reason: Some("prompt_input_exit".into()),
            },
        ),
        Row {
            name: "qwen_message_display_is_unknown",
            agent: Qwen,
            input: Input::Fixture("MessageDisplay", None),
            expect: Expect::Unknown,
            also: |_| {},
        },
        // ------------------------------------------------------------ Factory Droid
        fixture_row(
            "droid_session_start_starts_session_with_identity",
            Droid,
            "observed/SessionStart",
            SessionStarted {
                source: Some("startup".into()),
            },
        )
        .also(|m| {
            assert_eq!(
                m.signal.identity,
                Identity {
                    session_id: Some(DROID_SESSION.into()),
                    resume_argv: Some(strings(&["droid", "--resume", DROID_SESSION])),
                    cwd: Some("/tmp/proj".into()),
                    title: None,
                }
            )
        }),
        fixture_row(
            "droid_user_prompt_submit_starts_turn",
            Droid,
            "documented/UserPromptSubmit",
            TurnStarted,
        ),
        // Droid's tool events carry no tool_use_id.
        fixture_row(
            "droid_pre_tool_use_starts_tool",
            Droid,
            "observed/PreToolUse",
            ToolStarted {
                tool: "Execute".into(),
                tool_use_id: None,
            },
        ),
        fixture_row(
            "droid_post_tool_use_finishes_tool",
            Droid,
            "observed/PostToolUse",
            ToolFinished {
                tool: Some("Execute".into()),
                tool_use_id: None,
            },
        ),
        fixture_row(
            "droid_permission_notification_names_the_gate",
            Droid,
            "documented/Notification-permission",
            AgentNotification {
                text: "Droid needs your permission to use Execute".into(),
                gate: GateRef::Names(DecisionKind::Permission),
            },
        ),
        fixture_row(
            "droid_waiting_notification_is_plain",
            Droid,
            "documented/Notification-waiting",
            AgentNotification {
                text: "Droid is waiting for your input".into(),
                gate: GateRef::None,
            },
        ),
        // A typed notification follows the policy, whatever its words say.
        payload_row(
            "droid_typed_notification_follows_the_policy",
            Droid,
            None,
            r#"{"hook_event_name":"Notification","notification_type":"idle_prompt","message":"no permission needed"}"#,
            Expect::Kind(AgentNotification {
                text: "no permission needed".into(),
                gate: GateRef::None,
            }),
        ),
        payload_row(
            "droid_permission_request_opens_gate",
            Droid,
            None,
            r#"{"hook_event_name":"PermissionRequest","session_id":"s","tool_name":"Execute","tool_input":{"command":"touch marker.txt","riskLevel":"medium"}}"#,
            Expect::Kind(PermissionRequested {
                prompt: "Execute: touch marker.txt".into(),
                options: Vec::new(),
                answer_keys: allow_deny(),
                tool_use_id: None,
            }),
        ),
        // The payload carries no reply: the summary is what the hook client adds.
        fixture_row(
            "droid_stop_without_a_reply_stops_turn",
            Droid,
            "observed/Stop",
            TurnStopped { summary: None },
        ),
        payload_row(
            "droid_stop_with_the_reply_the_hook_client_added",
            Droid,
            None,
            r#"{"hook_event_name":"Stop","session_id":"s","stop_hook_active":false,"last_assistant_message":"hello from the scripted model"}"#,
            Expect::Kind(TurnStopped {
                summary: Some("hello from the scripted model".into()),
            }),
        ),
        idle(
            "droid_subagent_stop_is_identity_only",
            Droid,
            "documented/SubagentStop",
        ),
        idle(
            "droid_pre_compact_is_identity_only",
            Droid,
            "documented/PreCompact",
        ),
        fixture_row(
            "droid_session_end_ends_session",
            Droid,
            "observed/SessionEnd",
            SessionEnded {
                reason: Some("other".into()),
            },
        ),
        // ------------------------------------------------------------ GitHub Copilot CLI
        copilot_row(
            "copilot_session_start_starts_session_with_identity",
            "sessionStart",
            "sessionStart",
            SessionStarted {
                source: Some("new".into()),
            },
        )
        .also(|m| {
            assert_eq!(
                m.signal.identity,
                Identity {
                    session_id: Some(COPILOT_SESSION.into()),
                    resume_argv: Some(strings(&[
                        "copilot",
                        &format!("--resume={COPILOT_SESSION}")
                    ])),
                    cwd: Some("/tmp/proj".into()),
                    title: None,
                }
            );
            assert_eq!(m.signal.source, Source::hook("copilot", "sessionStart"));
        }),
        copilot_row(
            "copilot_resumed_session_start_is_a_resume",
            "sessionStart-resume",
            "sessionStart",
            SessionStarted {
                source: Some("resume".into()),
            },
        ),
        copilot_row(
            "copilot_user_prompt_submitted_starts_turn",
            "userPromptSubmitted",
            "userPromptSubmitted",
            TurnStarted,
        ),
        copilot_row(
            "copilot_user_prompt_transformed_is_identity_only",
            "userPromptTransformed",
            "userPromptTransformed",
            IdentityOnly,
        ),
        copilot_row(
            "copilot_pre_tool_use_starts_tool",
            "preToolUse",
            "preToolUse",
            ToolStarted {
                tool: "bash".into(),
                tool_use_id: None,
            },
        ),
        // Fired under --allow-all-tools too, where no dialog shows: not a gate.
        copilot_row(
            "copilot_permission_request_is_no_gate",
            "permissionRequest",
            "permissionRequest",
            IdentityOnly,
        ),
        // The dialog is on screen: the gate, the command in its prompt. The payload's own
        // `hook_event_name` names the event.
        copilot_row(
            "copilot_permission_prompt_notification_opens_the_gate_with_the_command",
            "notification-permission_prompt",
            "notification",
            PermissionRequested {
                prompt: format!("Run command: {COPILOT_COMMAND}"),
                options: strings(&["Yes", "No, and tell Copilot what to do differently"]),
                answer_keys: allow_deny(),
                tool_use_id: None,
            },
        )
        .also(|m| assert_eq!(m.event, "Notification")),
        payload_row(
            "copilot_other_notifications_follow_the_policy",
            Copilot,
            Some("notification"),
            r#"{"sessionId":"s1","notification_type":"agent_idle","message":"Copilot waits"}"#,
            Expect::Kind(AgentNotification {
                text: "Copilot waits".into(),
                gate: GateRef::None,
            }),
        ),
        copilot_row(
            "copilot_post_tool_use_finishes_tool",
            "postToolUse",
            "postToolUse",
            ToolFinished {
                tool: Some("bash".into()),
                tool_use_id: None,
            },
        ),
        payload_row(
            "copilot_post_tool_use_failure_is_tool_error",
            Copilot,
            Some("postToolUseFailure"),
            r#"{"sessionId":"s1","toolName":"bash","toolArgs":{"command":"x"},"error":{"message":"spawn failed"}}"#,
            Expect::Kind(ToolError {
                error: "spawn failed".into(),
            }),
        ),
        // The recorded payload has no text: the hook client adds the transcript's.
        copilot_row(
            "copilot_agent_stop_without_the_reply_says_the_turn_ended",
            "agentStop",
            "agentStop",
            TurnStopped {
                summary: Some("turn ended".into()),
            },
        ),
        payload_row(
            "copilot_agent_stop_stops_turn_with_the_reply_the_hook_client_read",
            Copilot,
            Some("agentStop"),
            r#"{"sessionId":"s1","stopReason":"end_turn","lastAssistantMessage":"Hello."}"#,
            Expect::Kind(TurnStopped {
                summary: Some("Hello.".into()),
            }),
        ),
        copilot_row(
            "copilot_recoverable_error_is_a_warning",
            "errorOccurred",
            "errorOccurred",
            Warning {
                text: "model call failed, retrying: Failed native model HTTP request: error sending request for url (http://127.0.0.1:1/v1/chat/completions): client error (Connect): tcp connect error: Connection refused (os error 111) [ECONNREFUSED]".into(),
            },
        ),
        payload_row(
            "copilot_unrecoverable_error_fails_the_turn",
            Copilot,
            Some("errorOccurred"),
            r#"{"sessionId":"s1","errorContext":"model_call","recoverable":false,"error":{"message":"\"quota exceeded\"","name":"Error"}}"#,
            Expect::Kind(TurnFailed {
                error: "API error: quota exceeded".into(),
                usage_limit: false,
            }),
        ),
        copilot_row(
            "copilot_session_end_with_an_error_fails",
            "sessionEnd-error",
            "sessionEnd",
            TurnFailed {
                error: "session ended with an error".into(),
                usage_limit: false,
            },
        ),
        copilot_row(
            "copilot_session_end_ends_session",
            "sessionEnd-user_exit",
            "sessionEnd",
            SessionEnded {
                reason: Some("user_exit".into()),
            },
        ),
        payload_row(
            "copilot_subagents_and_compaction_are_identity_only",
            Copilot,
            Some("subagentStop"),
            r#"{"sessionId":"s1"}"#,
            Expect::Kind(IdentityOnly),
        ),
        payload_row(
            "copilot_unknown_event_is_identity_only_and_not_known",
            Copilot,
            Some("somethingNew"),
            "{}",
            Expect::Unknown,
        ),
        // ------------------------------------------------------------ any agent
        payload_row(
            "claude_unknown_event_is_identity_only_and_not_known",
            Claude,
            None,
            &format!(
                r#"{{"hook_event_name":"TeammateIdle","session_id":"{CLAUDE_SESSION}","cwd":"/tmp/proj"}}"#
            ),
            Expect::Unknown,
        )
        .also(|m| {
            assert_eq!(m.signal.source, Source::hook("claude", "TeammateIdle"));
            assert_eq!(m.session_id.as_deref(), Some(CLAUDE_SESSION));
        }),
        payload_row(
            "codex_unknown_event_is_identity_only_and_not_known",
            Codex,
            Some("SomethingNew"),
            "{}",
            Expect::Unknown,
        ),
        payload_row(
            "cursor_unknown_event_is_identity_only_and_not_known",
            Cursor,
            Some("SomethingNew"),
            "{}",
            Expect::Unknown,
        ),
        payload_row(
            "gemini_unknown_event_is_identity_only_and_not_known",
            Gemini,
            Some("SomethingNew"),
            "{}",
            Expect::Unknown,
        ),
        payload_row(
            "unknown_and_mistyped_fields_are_ignored",
            Claude,
            None,
            r#"{"hook_event_name":"Stop","last_assistant_message":42,"session_id":["x"],
        "cwd":null,"brand_new_field":{"deep":[1,2,3]}}"#,
            Expect::Kind(TurnStopped { summary: None }),
        )
        .also(|m| assert!(m.signal.identity.is_empty())),
        payload_row(
            "event_argument_names_the_event_when_the_payload_does_not",
            Claude,
            Some("Stop"),
            r#"{"last_assistant_message":"ok"}"#,
            Expect::Kind(TurnStopped {
                summary: Some("ok".into()),
            }),
        )
        .also(|m| assert_eq!(m.event, "Stop")),
        payload_row(
            "the_payload_event_name_wins_over_the_event_argument",
            Claude,
            Some("Stop"),
            r#"{"hook_event_name":"UserPromptSubmit"}"#,
            Expect::Mapped,
        )
        .also(|m| assert_eq!(m.event, "UserPromptSubmit")),
        payload_row(
            "missing_event_is_an_error",
            Claude,
            None,
            r#"{"session_id":"x"}"#,
            Expect::Error(AdapterError::MissingEvent),
        ),
        payload_row(
            "an_empty_event_argument_is_a_missing_event",
            Gemini,
            Some(""),
            "{}",
            Expect::Error(AdapterError::MissingEvent),
        ),
        payload_row(
            "a_json_array_is_not_an_object",
            Claude,
            Some("Stop"),
            "[]",
            Expect::Error(AdapterError::NotAnObject),
        ),
        payload_row(
            "a_json_string_is_not_an_object",
            Claude,
            Some("Stop"),
            "\"Stop\"",
            Expect::Error(AdapterError::NotAnObject),
        ),
        payload_row(
            "a_json_number_is_not_an_object",
            Claude,
            Some("Stop"),
            "42",
            Expect::Error(AdapterError::NotAnObject),
        ),
        payload_row(
            "json_null_is_not_an_object",
            Claude,
            Some("Stop"),
            "null",
            Expect::Error(AdapterError::NotAnObject),
        ),
        payload_row(
            "shell_has_no_hook_adapter",
            Shell,
            Some("Stop"),
            "{}",
            Expect::Error(AdapterError::UnknownAgent("shell".into())),
        ),
    ]
}

/// Every row of [`rows`]: each runs on its own, a failing row prints its name after its
/// panic message, and the test fails listing every failed row.
#[test]
fn mapping_rows() {
    let rows = rows();
    let mut names: Vec<&str> = rows.iter().map(|r| r.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), rows.len(), "row names are unique");
    let failed: Vec<&str> = rows
        .iter()
        .filter(|row| {
            let failed = std::panic::catch_unwind(|| row.check()).is_err();
            if failed {
                eprintln!("row {} FAILED (its panic is above)", row.name);
            }
            failed
        })
        .map(|row| row.name)
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} mapping rows failed: {failed:#?}",
        failed.len(),
        rows.len()
    );
}

#[test]
fn claude_notification_policy_can_ignore_idle_prompt() {
    let mut policy = NotificationPolicy::default();
    policy
        .by_type
        .insert("idle_prompt".into(), NotificationAction::Ignore);
    let payload = fixture(CLAUDE, "Notification-idle_prompt");
    let m = map_hook_with(&policy, AgentKind::Claude, None, &payload, AT).unwrap();
    assert_kind(&m, SignalKind::IdentityOnly);
    // The rest of the default policy is unchanged.
    let payload = fixture(CLAUDE, "Notification");
    let m = map_hook_with(&policy, AgentKind::Claude, None, &payload, AT).unwrap();
    assert!(matches!(
        m.signal.kind,
        SignalKind::AgentNotification {
            gate: GateRef::Names(DecisionKind::Permission),
            ..
        }
    ));
}

#[test]
fn malformed_json_reports_line_and_column() {
    let err = map_hook(AgentKind::Claude, None, "{\n  \"a\": 1,\n  oops\n}", AT).unwrap_err();
    let AdapterError::Json { line, column, .. } = err else {
        panic!("not a JSON error: {err:?}");
    };
    assert_eq!((line, column), (3, 3));
}

// ---------------------------------------------------------------- through the engine

/// One pane of `agent` in a fresh world; `feed` maps hook payloads and applies them the
/// way the service does (dropping a signal whose `require_session` is not the pane's
/// session), one second apart.
struct Pane1 {
    world: World,
    pane: PaneId,
    t: i64,
    log: Vec<Event>,
}

impl Pane1 {
    fn new(agent: AgentKind) -> Pane1 {
        let mut world = World::new();
        let (pane, log) = world.add_pane(
            NewPane {
                workspace: "/tmp/proj".into(),
                agent,
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

    /// Maps and applies fixture `dir/name`; returns false when dropped by
    /// `require_session`.
    fn feed(&mut self, dir: &str, name: &str) -> bool {
        self.t += 1000;
        let agent = self.state().agent;
        let event_arg = name.starts_with("notify").then_some("notify");
        let m = map_hook(agent, event_arg, &fixture(dir, name), Timestamp(self.t)).unwrap();
        if let Some(required) = &m.require_session {
            if self.state().session_id.as_ref() != Some(required) {
                return false;
            }
        }
        let events = self.world.apply_signal(self.pane, &m.signal).unwrap();
        self.log.extend(events);
        true
    }

    /// Maps and applies fixture `dir/name` with EVENT argument `event` (Copilot).
    fn feed_event(&mut self, dir: &str, name: &str, event: &str) {
        self.t += 1000;
        let agent = self.state().agent;
        let m = map_hook(agent, Some(event), &fixture(dir, name), Timestamp(self.t)).unwrap();
        let events = self.world.apply_signal(self.pane, &m.signal).unwrap();
        self.log.extend(events);
    }

    /// Maps and applies one payload written out (no EVENT argument).
    fn feed_json(&mut self, payload: &str) {
        self.t += 1000;
        let agent = self.state().agent;
        let m = map_hook(agent, None, payload, Timestamp(self.t)).unwrap();
        let events = self.world.apply_signal(self.pane, &m.signal).unwrap();
        self.log.extend(events);
    }

    fn state(&self) -> &Pane {
        self.world.pane(self.pane).unwrap()
    }

    fn count(&self, name: &str) -> usize {
        self.log.iter().filter(|e| e.kind.name() == name).count()
    }
}

#[test]
fn claude_stop_with_a_background_task_is_done_unread_and_says_it_still_runs() {
    // The recording has a session of its own: its Stop alone, on a fresh pane.
    let mut p = Pane1::new(AgentKind::Claude);
    p.feed(CLAUDE_NEWEST, "Stop-background");
    let pane = p.state();
    assert_eq!(pane.lifecycle, Lifecycle::Done);
    assert_eq!(pane.attention(), Attention::Unread);
    assert_eq!(
        pane.last_message.as_deref(),
        Some("(1 background task still running) Started a background sleep; it is still running.")
    );
}

#[test]
fn claude_permission_turn_ends_done_unread_with_summary_and_approved_gate() {
    let mut p = Pane1::new(AgentKind::Claude);
    for name in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
    ] {
        p.feed(CLAUDE, name);
    }
    assert_eq!(p.state().lifecycle, Lifecycle::Blocked);
    assert_eq!(p.state().attention(), Attention::PermissionRequired);
    let decision = p.state().pending_decision.clone().unwrap();
    assert_eq!(decision.prompt, "Bash: echo hi > /tmp/x");
    assert_eq!(decision.answer_keys, allow_deny());
    // The restating notification ~6 s later adds nothing.
    p.feed(CLAUDE, "Notification");
    assert_eq!(
        p.state().pending_decision.as_ref().map(|d| d.id),
        Some(decision.id)
    );
    p.feed(CLAUDE, "PostToolUse");
    p.feed(CLAUDE, "Stop");
    let pane = p.state();
    assert_eq!(pane.lifecycle, Lifecycle::Done);
    assert_eq!(pane.attention(), Attention::Unread);
    assert_eq!(
        pane.last_message.as_deref(),
        Some("Done: the work is finished.")
    );
    assert_eq!(pane.session_id.as_deref(), Some(CLAUDE_SESSION));
    assert_eq!(
        pane.resume_argv,
        Some(strings(&["claude", "--resume", CLAUDE_SESSION]))
    );
    assert!(pane.pending_decision.is_none());
    assert!(p.log.iter().any(|e| e.kind
        == EventKind::DecisionResolved {
            id: decision.id,
            resolution: Resolution::Approved,
        }));
}

/// Feeds recorded Claude payloads (`dir`, fixture names) as one session's, one second
/// apart: the recordings come from several runs.
fn feed_one_session(p: &mut Pane1, dir: &str, names: &[&str]) {
    for name in names {
        let mut payload: serde_json::Value = serde_json::from_str(&fixture(dir, name)).unwrap();
        payload["session_id"] = CLAUDE_SESSION.into();
        p.feed_json(&payload.to_string());
    }
}

#[test]
fn claude_compact_at_the_prompt_leaves_a_done_pane_done() {
    for dir in [CLAUDE_NEWEST, CLAUDE_OBSERVED] {
        let mut p = Pane1::new(AgentKind::Claude);
        feed_one_session(&mut p, dir, &["SessionStart", "UserPromptSubmit", "Stop"]);
        let before = p.state().clone();
        let events = p.log.len();
        feed_one_session(
            &mut p,
            dir,
            &["PreCompact", "SessionStart-compact", "PostCompact"],
        );
        assert_eq!(p.state().lifecycle, Lifecycle::Done, "{dir}");
        assert_eq!(p.state().items, before.items, "{dir}");
        assert_eq!(p.state().last_message, before.last_message, "{dir}");
        assert_eq!(p.log.len(), events, "{dir}: {:?}", &p.log[events..]);
    }
}

#[test]
fn claude_auto_compaction_mid_turn_stays_working() {
    let mut p = Pane1::new(AgentKind::Claude);
    feed_one_session(
        &mut p,
        CLAUDE_NEWEST,
        &[
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
        ],
    );
    feed_one_session(
        &mut p,
        CLAUDE_NEWEST,
        &["PreCompact-auto", "SessionStart-compact", "PostCompact"],
    );
    assert_eq!(p.state().lifecycle, Lifecycle::Working);
    feed_one_session(&mut p, CLAUDE_NEWEST, &["Stop"]);
    assert_eq!(p.state().lifecycle, Lifecycle::Done);
    assert_eq!(p.state().attention(), Attention::Unread);
    assert_eq!(p.count("agent.idle"), 1, "only SessionStart at launch");
    assert_eq!(p.count("attention.created"), 1);
}

#[test]
fn claude_failed_compaction_is_a_warning_not_a_failed_turn() {
    for dir in [CLAUDE_NEWEST, CLAUDE_OBSERVED] {
        let mut p = Pane1::new(AgentKind::Claude);
        feed_one_session(
            &mut p,
            dir,
            &["SessionStart", "UserPromptSubmit", "Stop", "PreCompact"],
        );
        feed_one_session(&mut p, dir, &["StopFailure-compaction"]);
        let pane = p.state();
        assert_eq!(pane.lifecycle, Lifecycle::Done, "{dir}");
        assert_eq!(pane.attention(), Attention::Warning, "{dir}");
        assert_eq!(
            pane.last_message.as_deref(),
            Some("compaction failed: API server error")
        );
    }
}

#[test]
fn claude_subagent_gate_outlives_the_parents_tools_and_stop() {
    let mut p = Pane1::new(AgentKind::Claude);
    feed_one_session(
        &mut p,
        CLAUDE_NEWEST,
        &[
            "SessionStart",
            "UserPromptSubmit",
            "PostToolUse-Agent",
            "PermissionRequest-subagent",
        ],
    );
    let decision = p.state().pending_decision.clone().expect("the gate");
    // The parent's own tool finishes, then its turn ends, the subagent still running.
    feed_one_session(
        &mut p,
        CLAUDE_NEWEST,
        &["PostToolUse", "Stop-background-subagent"],
    );
    let pane = p.state();
    assert_eq!(pane.lifecycle, Lifecycle::Blocked);
    assert_eq!(pane.attention(), Attention::PermissionRequired);
    assert_eq!(
        pane.pending_decision.as_ref().map(|d| d.id),
        Some(decision.id)
    );
    assert_eq!(
        pane.last_message.as_deref(),
        Some("(1 background task still running) Parent: the subagent looked, I waited, all done.")
    );
    // The subagent's own tool call finishes: approved at the terminal.
    let mut post: serde_json::Value =
        serde_json::from_str(&fixture(CLAUDE_NEWEST, "PermissionRequest-subagent")).unwrap();
    post["hook_event_name"] = "PostToolUse".into();
    post["session_id"] = CLAUDE_SESSION.into();
    p.feed_json(&post.to_string());
    assert!(p.state().pending_decision.is_none());
    assert_eq!(p.state().lifecycle, Lifecycle::Working);
    assert!(p.log.iter().any(|e| e.kind
        == EventKind::DecisionResolved {
            id: decision.id,
            resolution: Resolution::Approved,
        }));
    // Its completion reaches the parent as a prompt: a turn of its own.
    feed_one_session(
        &mut p,
        CLAUDE_NEWEST,
        &["UserPromptSubmit-task-notification", "Stop"],
    );
    assert_eq!(p.state().lifecycle, Lifecycle::Done);
    assert_eq!(p.state().attention(), Attention::Unread);
}

#[test]
fn claude_subagent_stop_after_stop_leaves_done() {
    let mut p = Pane1::new(AgentKind::Claude);
    for name in ["SessionStart", "UserPromptSubmit", "SubagentStart", "Stop"] {
        p.feed(CLAUDE, name);
    }
    let before = p.state().clone();
    p.feed(CLAUDE, "SubagentStop");
    assert_eq!(p.state().lifecycle, Lifecycle::Done);
    assert_eq!(p.state().items, before.items);
    assert_eq!(p.state().last_message, before.last_message);
}

#[test]
fn claude_answered_question_resolves_and_turn_goes_on() {
    let mut p = Pane1::new(AgentKind::Claude);
    for name in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse-AskUserQuestion",
        "PermissionRequest-AskUserQuestion",
    ] {
        p.feed(CLAUDE, name);
    }
    assert_eq!(p.state().attention(), Attention::InputRequired);
    assert_eq!(
        p.count("decision.opened"),
        1,
        "the PermissionRequest adds no second decision"
    );
    p.feed(CLAUDE, "PostToolUse-AskUserQuestion");
    assert_eq!(p.state().lifecycle, Lifecycle::Working);
    assert_eq!(p.state().attention(), Attention::None);
    assert!(p.state().pending_decision.is_none());
}

#[test]
fn claude_interrupt_dismisses_open_gate_to_idle() {
    let mut p = Pane1::new(AgentKind::Claude);
    for name in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
    ] {
        p.feed(CLAUDE, name);
    }
    p.feed(CLAUDE, "PostToolUseFailure-interrupt");
    assert_eq!(p.state().lifecycle, Lifecycle::Idle);
    assert_eq!(p.state().attention(), Attention::None);
    assert!(p.log.iter().any(|e| matches!(
        e.kind,
        EventKind::DecisionResolved {
            resolution: Resolution::Dismissed,
            ..
        }
    )));
}

#[test]
fn codex_side_thread_notify_is_dropped_and_main_thread_notify_finishes_the_turn() {
    let mut p = Pane1::new(AgentKind::Codex);
    for name in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
    ] {
        p.feed(CODEX, name);
    }
    assert!(
        !p.feed(CODEX, "notify-side-thread"),
        "side thread must be dropped"
    );
    assert_eq!(p.state().lifecycle, Lifecycle::Blocked);
    assert_eq!(p.state().session_id.as_deref(), Some(CODEX_THREAD));
    for name in ["PostToolUse", "Stop"] {
        p.feed(CODEX, name);
    }
    assert!(p.feed(CODEX, "notify"));
    assert_eq!(p.state().lifecycle, Lifecycle::Done);
    assert_eq!(
        p.state().last_message.as_deref(),
        Some("Wrote hi to /tmp/x.")
    );
    assert_eq!(p.count("pane.handover"), 0);
    assert_eq!(p.count("agent.done"), 1);
}

#[test]
fn cursor_aborted_stop_leaves_idle_without_attention() {
    let mut p = Pane1::new(AgentKind::Cursor);
    for name in [
        "sessionStart",
        "beforeSubmitPrompt",
        "beforeShellExecution",
        "stop-aborted",
    ] {
        p.feed(CURSOR, name);
    }
    assert_eq!(p.state().lifecycle, Lifecycle::Idle);
    assert_eq!(p.state().attention(), Attention::None);
    assert_eq!(p.state().cwd.as_deref(), Some("/tmp/proj"));
}

#[test]
fn cursor_completed_turn_is_done_unread() {
    let mut p = Pane1::new(AgentKind::Cursor);
    for name in [
        "sessionStart",
        "beforeSubmitPrompt",
        "preToolUse",
        "postToolUse",
        "afterAgentResponse",
        "stop",
    ] {
        p.feed(CURSOR, name);
    }
    assert_eq!(p.state().lifecycle, Lifecycle::Done);
    assert_eq!(p.state().attention(), Attention::Unread);
}

/// The recorded Qwen Code session in order (idle prompt notifications included): the
/// first turn ends done/unread; the gate's turn ends done with the gate approved; the
/// reviewed pane stays done/none when the session ends.
#[test]
fn qwen_recorded_session_turn_gate_and_end() {
    let mut p = Pane1::new(AgentKind::Qwen);
    for name in ["SessionStart", "UserPromptSubmit", "MessageDisplay", "Stop"] {
        p.feed(QWEN, name);
    }
    p.feed(QWEN, "Notification-idle_prompt");
    assert_eq!(p.state().lifecycle, Lifecycle::Done);
    assert_eq!(p.state().attention(), Attention::Unread);
    assert_eq!(
        p.state().last_message.as_deref(),
        Some("Hello from the scripted model.")
    );
    for name in [
        "UserPromptSubmit",
        "PermissionRequest",
        "Notification-permission_prompt",
    ] {
        p.feed(QWEN, name);
    }
    assert_eq!(p.state().lifecycle, Lifecycle::Blocked);
    assert_eq!(p.state().attention(), Attention::PermissionRequired);
    let decision = p.state().pending_decision.clone().unwrap();
    assert_eq!(
        decision.prompt,
        format!("run_shell_command: {QWEN_COMMAND}")
    );
    for name in ["PreToolUse", "PostToolUse", "PostToolBatch", "Stop"] {
        p.feed(QWEN, name);
    }
    p.feed(QWEN, "Notification-idle_prompt");
    assert!(p.log.iter().any(|e| e.kind
        == EventKind::DecisionResolved {
            id: decision.id,
            resolution: Resolution::Approved,
        }));
    let pane = p.state();
    assert_eq!(pane.lifecycle, Lifecycle::Done);
    assert_eq!(pane.attention(), Attention::Unread);
    assert_eq!(
        pane.resume_argv,
        Some(strings(&["qwen", "--resume", QWEN_SESSION]))
    );
}

/// The recorded `droid exec` turns in order: a text turn ends done/unread; a tool turn
/// (the command ran, no gate) ends done; the session's end leaves the pane done.
#[test]
fn droid_recorded_exec_turns() {
    let mut p = Pane1::new(AgentKind::Droid);
    for name in ["SessionStart", "Stop"] {
        p.feed(DROID, &format!("observed/{name}"));
    }
    assert_eq!(p.state().lifecycle, Lifecycle::Done);
    assert_eq!(p.state().attention(), Attention::Unread);
    p.feed(DROID, "documented/UserPromptSubmit");
    p.feed(DROID, "observed/PreToolUse");
    assert_eq!(p.state().lifecycle, Lifecycle::Working);
    for name in ["PostToolUse", "Stop", "SessionEnd"] {
        p.feed(DROID, &format!("observed/{name}"));
    }
    let pane = p.state();
    assert_ne!(pane.lifecycle, Lifecycle::Working);
    assert_ne!(pane.lifecycle, Lifecycle::Blocked);
    assert!(pane.pending_decision.is_none());
    assert_eq!(
        pane.resume_argv,
        Some(strings(&["droid", "--resume", DROID_SESSION]))
    );
}

/// Droid's documented gate: the permission notification opens it (no PermissionRequest
/// is registered), the approved command's PostToolUse approves it, the turn ends done.
#[test]
fn droid_documented_gate_is_opened_by_its_notification_and_approved_by_the_tool() {
    let mut p = Pane1::new(AgentKind::Droid);
    p.feed(DROID, "observed/SessionStart");
    p.feed(DROID, "documented/UserPromptSubmit");
    p.feed(DROID, "observed/PreToolUse-refused");
    p.feed(DROID, "documented/Notification-permission");
    assert_eq!(p.state().lifecycle, Lifecycle::Blocked);
    assert_eq!(p.state().attention(), Attention::PermissionRequired);
    let decision = p.state().pending_decision.clone().unwrap();
    p.feed(DROID, "observed/PostToolUse");
    assert!(p.log.iter().any(|e| e.kind
        == EventKind::DecisionResolved {
            id: decision.id,
            resolution: Resolution::Approved,
        }));
    p.feed(DROID, "observed/Stop");
    assert_eq!(p.state().lifecycle, Lifecycle::Done);
    assert_eq!(p.state().attention(), Attention::Unread);
}

/// The recorded Copilot session in order: the gate opens with the dialog's notification
/// (not with permissionRequest), the approved command's postToolUse approves it, the turn
/// ends done/unread, and the reviewed pane stays done/none when the session ends.
#[test]
fn copilot_recorded_session_gate_turn_and_end() {
    let mut p = Pane1::new(AgentKind::Copilot);
    for (name, event) in [
        ("sessionStart", "sessionStart"),
        ("userPromptSubmitted", "userPromptSubmitted"),
        ("userPromptTransformed", "userPromptTransformed"),
        ("preToolUse", "preToolUse"),
        ("permissionRequest", "permissionRequest"),
    ] {
        p.feed_event(COPILOT, name, event);
    }
    assert_eq!(p.state().lifecycle, Lifecycle::Working);
    assert!(
        p.state().pending_decision.is_none(),
        "no gate before the dialog"
    );
    p.feed_event(COPILOT, "notification-permission_prompt", "notification");
    assert_eq!(p.state().lifecycle, Lifecycle::Blocked);
    assert_eq!(p.state().attention(), Attention::PermissionRequired);
    let decision = p.state().pending_decision.clone().unwrap();
    assert!(decision.prompt.contains(COPILOT_COMMAND), "{decision:?}");
    p.feed_event(COPILOT, "postToolUse", "postToolUse");
    p.feed_event(COPILOT, "agentStop", "agentStop");
    assert!(p.log.iter().any(|e| e.kind
        == EventKind::DecisionResolved {
            id: decision.id,
            resolution: Resolution::Approved,
        }));
    assert_eq!(p.state().lifecycle, Lifecycle::Done);
    assert_eq!(p.state().attention(), Attention::Unread);
    p.world
        .apply_action(p.pane, &Action::MarkSeen, Timestamp(p.t + 1))
        .unwrap();
    p.feed_event(COPILOT, "sessionEnd-user_exit", "sessionEnd");
    let pane = p.state();
    assert_eq!(
        (pane.lifecycle, pane.attention()),
        (Lifecycle::Done, Attention::None)
    );
    assert_eq!(
        pane.resume_argv,
        Some(strings(&[
            "copilot",
            &format!("--resume={COPILOT_SESSION}")
        ]))
    );
}

/// A `-p` run against a closed port: a warning per retry, then the session ends with an
/// error and no agentStop: failed/error.
#[test]
fn copilot_retries_then_session_end_error_is_failed() {
    let mut p = Pane1::new(AgentKind::Copilot);
    // The recorded run's session (its prompt came with `-p`, before the hooks it recorded).
    let prompt =
        r#"{"sessionId":"37209fd0-071b-45fa-a6e1-f8bc1336e6da","cwd":"/tmp/proj","prompt":"hi"}"#;
    let m = map_hook(AgentKind::Copilot, Some("userPromptSubmitted"), prompt, AT).unwrap();
    p.log
        .extend(p.world.apply_signal(p.pane, &m.signal).unwrap());
    for _ in 0..3 {
        p.feed_event(COPILOT, "errorOccurred", "errorOccurred");
    }
    assert_eq!(p.state().lifecycle, Lifecycle::Working);
    assert_eq!(p.state().attention(), Attention::Warning);
    p.feed_event(COPILOT, "sessionEnd-error", "sessionEnd");
    assert_eq!(p.state().lifecycle, Lifecycle::Failed);
    assert_eq!(p.state().attention(), Attention::Error);
}

#[test]
fn gemini_full_turn_then_triple_session_end_yields_exactly_one_done() {
    let mut p = Pane1::new(AgentKind::Gemini);
    for name in [
        "SessionStart",
        "BeforeAgent",
        "PreCompress",
        "BeforeModel",
        "BeforeToolSelection",
        "AfterModel",
        "BeforeTool",
        "Notification",
    ] {
        p.feed(GEMINI, name);
    }
    assert_eq!(p.state().attention(), Attention::PermissionRequired);
    for name in [
        "AfterTool",
        "AfterAgent",
        "SessionEnd",
        "SessionEnd",
        "SessionEnd",
    ] {
        p.feed(GEMINI, name);
    }
    assert_eq!(p.count("agent.done"), 1);
    assert_eq!(p.state().lifecycle, Lifecycle::Done);
    assert_eq!(
        p.state().last_message.as_deref(),
        Some("I wrote hi to /tmp/x.")
    );
    assert!(p.log.iter().any(|e| matches!(
        e.kind,
        EventKind::DecisionResolved {
            resolution: Resolution::Approved,
            ..
        }
    )));
}

#[test]
fn gemini_triple_session_end_on_idle_pane_yields_exactly_one_done() {
    let mut p = Pane1::new(AgentKind::Gemini);
    p.feed(GEMINI, "SessionStart");
    for _ in 0..3 {
        p.feed(GEMINI, "SessionEnd");
    }
    assert_eq!(p.count("agent.done"), 1);
    assert_eq!(p.count("attention.created"), 1);
    assert_eq!(p.state().last_message.as_deref(), Some("session ended"));
}

// ---------------------------------------------------------------- never panics

const AGENTS: [AgentKind; 6] = [
    AgentKind::Claude,
    AgentKind::Codex,
    AgentKind::Cursor,
    AgentKind::Gemini,
    AgentKind::Copilot,
    AgentKind::Shell,
];

/// Event names of every agent (plus one unknown), so generated payloads reach the
/// mapping rows and not only the "unknown event" path.
static EVENTS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut events = hook_events::CLAUDE.to_vec();
    events.extend_from_slice(&[
        "PermissionDenied",
        "PostToolBatch",
        "notify",
        "sessionStart",
        "beforeShellExecution",
        "postToolUseFailure",
        "stop",
        "afterAgentResponse",
        "BeforeAgent",
        "AfterAgent",
        "BeforeTool",
        "AfterTool",
        "PreCompress",
        "sessionEnd",
        "userPromptSubmitted",
        "agentStop",
        "errorOccurred",
        "notification",
        "NoSuchEvent",
    ]);
    events
});

/// Field names and values the adapters look at.
const NAMES: [&str; 31] = [
    "AskUserQuestion",
    "ToolPermission",
    "permission_prompt",
    "agent-turn-complete",
    "aborted",
    "error",
    "rate_limit",
    "tool_name",
    "tool_input",
    "tool_use_id",
    "questions",
    "question",
    "options",
    "label",
    "session_id",
    "thread-id",
    "conversation_id",
    "workspace_roots",
    "details",
    "command",
    "type",
    "status",
    "is_interrupt",
    "notification_type",
    "tool_calls",
    "tool_response",
    "reason",
    "sessionId",
    "toolName",
    "recoverable",
    "lastAssistantMessage",
];

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
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

/// A JSON object text: real field names with arbitrary values, and (mostly) a real
/// `hook_event_name`.
fn json_object() -> impl Strategy<Value = String> {
    (
        prop::collection::btree_map(
            prop::sample::select(&NAMES[..]).prop_map(str::to_string),
            json_value(),
            0..8,
        ),
        prop::option::weighted(0.9, prop::sample::select(&EVENTS[..])),
    )
        .prop_map(|(fields, event)| {
            let mut object: serde_json::Map<_, _> = fields.into_iter().collect();
            if let Some(e) = event {
                object.insert("hook_event_name".into(), e.into());
            }
            serde_json::Value::Object(object).to_string()
        })
}

proptest! {
    #![proptest_config(crate::proptest_config(1000))]

    #[test]
    fn arbitrary_strings_never_panic(
        agent in prop::sample::select(&AGENTS[..]),
        event in prop::option::of(prop::sample::select(&EVENTS[..])),
        payload in ".{0,200}",
    ) {
        let _ = map_hook(agent, event, &payload, AT);
    }

    #[test]
    fn arbitrary_json_objects_never_panic(
        agent in prop::sample::select(&AGENTS[..]),
        event in prop::option::of(prop::sample::select(&EVENTS[..])),
        payload in json_object(),
    ) {
        let result = map_hook(agent, event, &payload, AT);
        if agent != AgentKind::Shell {
            // An object is never a JSON error; it maps unless no event is named.
            let parse_error = matches!(result, Err(AdapterError::Json { .. }) | Err(AdapterError::NotAnObject));
            prop_assert!(!parse_error, "{:?}", result);
        }
    }
}

#[test]
fn hostile_text_is_cleaned_before_it_is_stored() {
    let payload = r#"{"hook_event_name":"Stop","session_id":"s\u0000x","last_assistant_message":"ok\u0000 \u001b[2J\u001b]0;pwned\u0007done\nline two \u202eevil"}"#;
    let m = attend::adapters::hooks::map_hook(
        attend::model::AgentKind::Claude,
        None,
        payload,
        attend::model::Timestamp(0),
    )
    .unwrap();
    assert_eq!(m.session_id.as_deref(), Some("sx"));
    match m.signal.kind {
        attend::model::SignalKind::TurnStopped { summary } => {
            assert_eq!(summary.as_deref(), Some("ok done\nline two evil"))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn long_text_is_capped() {
    let long = "x".repeat(3 * attend::adapters::hooks::MAX_HOOK_TEXT);
    let payload = format!(r#"{{"hook_event_name":"Stop","last_assistant_message":"{long}"}}"#);
    let m = attend::adapters::hooks::map_hook(
        attend::model::AgentKind::Claude,
        None,
        &payload,
        attend::model::Timestamp(0),
    )
    .unwrap();
    match m.signal.kind {
        attend::model::SignalKind::TurnStopped { summary } => {
            assert!(summary.unwrap().len() <= attend::adapters::hooks::MAX_HOOK_TEXT)
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_session_id_that_looks_like_an_option_gets_no_resume_argv() {
    for agent in [AgentKind::Claude, AgentKind::Codex] {
        let payload = r#"{"hook_event_name":"SessionStart","session_id":"--dangerously-skip-permissions","cwd":"/tmp/proj"}"#;
        let m = map_hook(agent, None, payload, AT).unwrap();
        assert_eq!(
            m.signal.identity.session_id.as_deref(),
            Some("--dangerously-skip-permissions"),
            "{agent:?}"
        );
        assert_eq!(m.signal.identity.resume_argv, None, "{agent:?}");
    }
}
