//! `attend demo`: replays a built-in scripted session through the pure engine and prints
//! the pane table after each step (deterministic: fixed times, no I/O but stdout).
//!
//! Two workspaces, three panes, a permission gate, a completion, a review, a session end
//! (`docs/lifecycle-attention.md#canonical-examples` and spec 024 user story 1 in motion).

use super::pane_table::render_table;
use crate::client::wire::WirePane;
use crate::engine::{summarize_workspaces, NewPane, World};
use crate::model::*;

/// Fixed start time of the script: 2026-01-01T00:00:00Z.
const START: i64 = 1_767_225_600_000;

enum Step {
    Signal(u64, SignalKind, Source),
    Action(u64, Action),
}

fn hook(agent: &str, event: &str) -> Source {
    Source::hook(agent, event)
}

fn script() -> Vec<(&'static str, Step)> {
    use SignalKind as S;
    vec![
        (
            "p1 claude session starts",
            Step::Signal(
                1,
                S::SessionStarted {
                    source: Some("startup".into()),
                },
                hook("claude", "SessionStart"),
            ),
        ),
        (
            "p1 user submits a prompt",
            Step::Signal(1, S::TurnStarted, hook("claude", "UserPromptSubmit")),
        ),
        (
            "p2 codex starts a turn",
            Step::Signal(2, S::TurnStarted, hook("codex", "UserPromptSubmit")),
        ),
        (
            "p1 asks permission to run a command",
            Step::Signal(
                1,
                S::PermissionRequested {
                    prompt: "Bash: npm test".into(),
                    options: vec!["Yes".into(), "Yes, and don't ask again".into(), "No".into()],
                    answer_keys: vec![
                        AnswerKey {
                            choice: "allow".into(),
                            keys: "1".into(),
                        },
                        AnswerKey {
                            choice: "deny".into(),
                            keys: "3".into(),
                        },
                    ],
                    tool_use_id: Some("toolu_01".into()),
                },
                hook("claude", "PermissionRequest"),
            ),
        ),
        (
            "p3 shell prints output",
            Step::Signal(3, S::Output, Source::terminal("output")),
        ),
        (
            "p2 codex finishes its turn",
            Step::Signal(
                2,
                S::TurnStopped {
                    summary: Some("Added 3 tests for the parser".into()),
                },
                hook("codex", "Stop"),
            ),
        ),
        (
            "user reads p1's gate (mark seen keeps it)",
            Step::Action(1, Action::MarkSeen),
        ),
        (
            "user answers p1: allow",
            Step::Action(
                1,
                Action::Answer {
                    choice: "allow".into(),
                },
            ),
        ),
        (
            "p1 tool runs",
            Step::Signal(
                1,
                S::ToolFinished {
                    tool: Some("Bash".into()),
                    tool_use_id: Some("toolu_01".into()),
                },
                hook("claude", "PostToolUse"),
            ),
        ),
        (
            "p1 turn ends",
            Step::Signal(
                1,
                S::TurnStopped {
                    summary: Some("All 42 tests pass".into()),
                },
                hook("claude", "Stop"),
            ),
        ),
        ("user reviews p1", Step::Action(1, Action::MarkSeen)),
        (
            "p1 session ends (reviewed: stays quiet)",
            Step::Signal(
                1,
                S::SessionEnded {
                    reason: Some("prompt_input_exit".into()),
                },
                hook("claude", "SessionEnd"),
            ),
        ),
        (
            "p1 process exits 0",
            Step::Signal(
                1,
                S::ProcessExited {
                    code: Some(0),
                    signal: None,
                },
                Source::process("exit"),
            ),
        ),
        (
            "p3 deploy script fails",
            Step::Signal(
                3,
                S::ProcessExited {
                    code: Some(1),
                    signal: None,
                },
                Source::process("exit"),
            ),
        ),
    ]
}

/// Renders the whole demo as text (what `attend demo` prints).
pub fn demo_text() -> String {
    let mut w = World::new();
    let mut t = START;
    for (ws, name, agent) in [
        ("/src/webapp", "api", AgentKind::Claude),
        ("/src/webapp", "tests", AgentKind::Codex),
        ("/src/infra", "deploy", AgentKind::Shell),
    ] {
        w.add_pane(
            NewPane {
                workspace: ws.into(),
                tab: "main".into(),
                name: name.into(),
                agent,
                owned: true,
                ..Default::default()
            },
            Timestamp(t),
        );
    }
    let mut out = String::new();
    for (i, (what, step)) in script().into_iter().enumerate() {
        t += 5_000;
        let now = Timestamp(t);
        let events = match step {
            Step::Signal(p, kind, source) => {
                w.apply_signal(PaneId(p), &Signal::new(kind, source, now))
            }
            Step::Action(p, action) => w.apply_action(PaneId(p), &action, now).map(|(e, _)| e),
        }
        .expect("the demo script only names existing panes");
        out.push_str(&format!("== step {}: {what}\n", i + 1));
        let names: Vec<String> = events
            .iter()
            .map(|e| format!("{} {}", e.pane, e.kind.name()))
            .collect();
        out.push_str(&format!(
            "   events: {}\n",
            if names.is_empty() {
                "(none)".into()
            } else {
                names.join(", ")
            }
        ));
        let views: Vec<WirePane> = w.pane_values().map(WirePane::of).collect();
        out.push_str(&render_table(&views));
        let next = w
            .next_unread()
            .map(|p| p.to_string())
            .unwrap_or_else(|| "-".into());
        out.push_str(&format!("   next unread: {next}\n\n"));
    }
    out.push_str("== workspaces\n");
    for s in summarize_workspaces(w.pane_values(), Timestamp(t)) {
        let agents: Vec<&str> = s.agents.iter().map(|a| a.as_str()).collect();
        out.push_str(&format!(
            "{}: worst lifecycle {}, worst attention {}, agents {}, latest message {:?}, {} s since attention change\n",
            s.name,
            s.worst_lifecycle,
            s.worst_attention,
            agents.join("+"),
            s.latest_message.unwrap_or_default(),
            s.since_attention_change_ms.unwrap_or(0) / 1000
        ));
    }
    out
}

/// `attend demo`: prints [`demo_text`]; returns the exit code 0 (also when the reader
/// of stdout went away).
pub fn run_demo() -> i32 {
    super::out::write(&demo_text()).map_or_else(|e| e.report(), |()| 0)
}
