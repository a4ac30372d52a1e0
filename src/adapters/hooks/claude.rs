//! Claude Code hooks (2.1.197 observed) → signals. Codex hooks use the same schema (its
//! hook engine copies Claude's event names and fields), so [`map`] serves both, with a
//! [`Dialect`] for what differs in the table: the approval dialog.
//!
//! Rows and decisions: `docs/adapters.md` ("Claude Code", "Codex CLI").

use super::codex;
use super::mapped::{identity_with, Mapped};
use super::notification::NotificationPolicy;
use super::payload::{allow_deny_keys, labels, non_empty, tool_prompt, Payload};
use crate::model::{subagent_scope, Identity, SignalKind, SignalKind::*};
use serde_json::Value;

/// Claude's question tool: its call opens a question, not a tool run.
const ASK_USER_QUESTION: &str = "AskUserQuestion";

/// Labels of Claude's permission dialog ("Do you want to proceed?": 1 Yes / 2 Yes, and
/// don't ask again … / 3 No).
const PERMISSION_OPTIONS: [&str; 3] = ["Yes", "Yes, and don't ask again", "No"];

/// Error kinds of `StopFailure` that mean a usage limit (needs-input reason "usage limit",
/// `docs/adapters.md#claude-notification-types`).
const USAGE_LIMIT_ERRORS: [&str; 2] = ["rate_limit", "billing_error"];

/// Which agent speaks Claude's hook schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    Claude,
    Codex,
}

/// Claude identity: `session_id`, resume argv `["claude","--resume",<id>]`, `cwd`.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    identity_with(p.str("session_id"), p.str("cwd"), |id| {
        vec!["claude".into(), "--resume".into(), id.into()]
    })
}

/// Maps one Claude-schema hook `event`.
pub(super) fn map(
    event: &str,
    p: &Payload<'_>,
    policy: &NotificationPolicy,
    dialect: Dialect,
) -> Mapped {
    let tool = p.str("tool_name");
    let asks_question = tool == Some(ASK_USER_QUESTION);
    let kind = match event {
        "SessionStart" => SessionStarted {
            source: p.str("source").map(str::to_string),
        },
        "UserPromptSubmit" => TurnStarted,
        "PreToolUse" if asks_question => question(p.get("tool_input")),
        "PreToolUse" => ToolStarted {
            tool: tool.unwrap_or("tool").to_string(),
            tool_use_id: p.str("tool_use_id").map(str::to_string),
        },
        // The question's PreToolUse already opened it; a second decision would only
        // supersede the same question.
        "PermissionRequest" if asks_question => IdentityOnly,
        "PermissionRequest" => match dialect {
            Dialect::Claude => PermissionRequested {
                prompt: tool_prompt(tool.unwrap_or("tool"), p.get("tool_input")),
                options: labels(&PERMISSION_OPTIONS),
                answer_keys: allow_deny_keys(),
                tool_use_id: scoped_tool_id(p),
            },
            Dialect::Codex => codex::permission(p),
        },
        // The human answered the question: their reply reaches the agent, which goes on
        // working ("turn started" resolves an open question:
        // `docs/lifecycle-attention.md#signals`).
        "PostToolUse" if asks_question => TurnStarted,
        "PostToolUse" => ToolFinished {
            tool: tool.map(str::to_string),
            tool_use_id: scoped_tool_id(p),
        },
        // Esc on a running tool, or a question the human declined: they acted at the
        // terminal, and no Stop follows.
        "PostToolUseFailure" if p.flag("is_interrupt") || asks_question => GateDismissed,
        "PostToolUseFailure" => ToolError {
            error: p
                .text("error")
                .unwrap_or_else(|| format!("{} failed", tool.unwrap_or("tool"))),
        },
        "Notification" => policy.signal(p),
        "Stop" => TurnStopped {
            summary: match dialect {
                Dialect::Claude => stop_summary(p),
                // Codex reports the same completion again in `notify`, without
                // background tasks: the summaries must stay equal to be one completion.
                Dialect::Codex => p.str("last_assistant_message").map(str::to_string),
            },
        },
        // A subagent's or the compaction's model request failed: the main turn (or the
        // idle prompt after a manual `/compact`) goes on.
        "StopFailure" if p.str("agent_id").is_some() => side_failure(p),
        "StopFailure" => stop_failure(p),
        "SubagentStart" | "SubagentStop" | "PreCompact" | "PostCompact" => IdentityOnly,
        "SessionEnd" => SessionEnded {
            reason: p.str("reason").map(str::to_string),
        },
        _ => return Mapped::unknown(),
    };
    Mapped::known(kind)
}

/// The tool id that ties a gate to the tool that finishes it: inside a subagent (payload
/// with `agent_id`) the subagent's scope (`agent:<agent_id>`, [`subagent_scope`]), so its
/// gate is neither approved by the main agent's tools nor closed by the main agent's
/// Stop; else `tool_use_id` (`docs/lifecycle-attention.md#subagent-gates`).
fn scoped_tool_id(p: &Payload<'_>) -> Option<String> {
    match p.str("agent_id") {
        Some(agent) => Some(subagent_scope(agent)),
        None => p.str("tool_use_id").map(str::to_string),
    }
}

/// `AskUserQuestion`'s first question: its text and option labels. Lenient: `questions`
/// may be missing (then `question`/`header` on the input itself), options may be plain
/// strings; extra questions are counted in the prompt. Answer keys are left empty: the
/// picker's keys are not observed yet (a screen manifest may supply them).
fn question(input: Option<&Value>) -> SignalKind {
    let questions = input
        .and_then(|i| i.get("questions"))
        .and_then(Value::as_array);
    let first = questions.and_then(|q| q.first()).or(input);
    let text = first
        .and_then(|q| {
            ["question", "header"]
                .iter()
                .find_map(|k| q.get(*k).and_then(non_empty))
        })
        .unwrap_or("question");
    let more = questions.map_or(0, |q| q.len().saturating_sub(1));
    let prompt = match more {
        0 => text.to_string(),
        n => format!("{text} (+{n} more)"),
    };
    let options = first
        .and_then(|q| q.get("options"))
        .and_then(Value::as_array)
        .map(|opts| {
            opts.iter()
                .filter_map(|o| non_empty(o).or_else(|| o.get("label").and_then(non_empty)))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    QuestionAsked {
        prompt,
        options,
        answer_keys: Vec::new(),
    }
}

/// `Stop`'s summary: `last_assistant_message`, led by how many of its `background_tasks`
/// still run (`"(2 background tasks still running) <message>"`, or that count alone
/// without a message), so the pane's message and the done notification say the agent
/// left work running. Leading, because surfaces clip long messages at the end. A task
/// counts unless its `status` says something other than `running`
/// (`docs/lifecycle-attention.md#signals`; the Claude Code table of `docs/adapters.md`).
fn stop_summary(p: &Payload<'_>) -> Option<String> {
    let message = p.str("last_assistant_message");
    let running = p
        .get("background_tasks")
        .and_then(Value::as_array)
        .map_or(0, |tasks| {
            tasks
                .iter()
                .filter(|t| {
                    t.get("status").and_then(Value::as_str).unwrap_or("running") == "running"
                })
                .count()
        });
    let still = match running {
        0 => return message.map(str::to_string),
        1 => "1 background task still running".to_string(),
        n => format!("{n} background tasks still running"),
    };
    Some(match message {
        Some(m) => format!("({still}) {m}"),
        None => still,
    })
}

/// `StopFailure`: error kind (+ `": "` + `error_details`), usage limit for `rate_limit` and
/// `billing_error`.
fn stop_failure(p: &Payload<'_>) -> SignalKind {
    let kind = p.str("error").unwrap_or("unknown");
    TurnFailed {
        error: failure_text(p),
        usage_limit: USAGE_LIMIT_ERRORS.contains(&kind),
    }
}

/// `"<error>[: <error_details>]"` of a `StopFailure` (`"unknown"` without `error`).
fn failure_text(p: &Payload<'_>) -> String {
    let kind = p.str("error").unwrap_or("unknown");
    match p.text("error_details") {
        Some(d) => format!("{kind}: {d}"),
        None => kind.to_string(),
    }
}

/// `StopFailure` with an `agent_id`: not the main agent's turn but one of its agents'
/// requests failed — a subagent's (`agent_type` names it) or the compaction's (Claude
/// runs it as an internal agent without `agent_type`; 2.1.197 and 2.1.332). A warning
/// that ends nothing: `"compaction failed: <error>"` or `"subagent <type> failed:
/// <error>"` (`docs/lifecycle-attention.md#compaction`, the Claude Code table of
/// `docs/adapters.md`).
fn side_failure(p: &Payload<'_>) -> SignalKind {
    let error = failure_text(p);
    Warning {
        text: match p.str("agent_type") {
            Some(agent) => format!("subagent {agent} failed: {error}"),
            None => format!("compaction failed: {error}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stop(payload: Value, dialect: Dialect) -> SignalKind {
        let map = payload.as_object().unwrap();
        super::map(
            "Stop",
            &Payload::new(map),
            &NotificationPolicy::default(),
            dialect,
        )
        .kind
    }

    fn summary(text: &str) -> SignalKind {
        TurnStopped {
            summary: Some(text.into()),
        }
    }

    #[test]
    fn stop_with_background_tasks_still_running_says_so() {
        let task = |id: &str, status: &str| json!({"command": "sleep 30", "description": "bg", "id": id, "status": status, "type": "shell"});
        let payload =
            |tasks: Value| json!({"last_assistant_message": "Done.", "background_tasks": tasks});
        assert_eq!(stop(payload(json!([])), Dialect::Claude), summary("Done."));
        assert_eq!(
            stop(payload(json!([task("a", "running")])), Dialect::Claude),
            summary("(1 background task still running) Done.")
        );
        assert_eq!(
            stop(
                payload(json!([
                    task("a", "running"),
                    task("b", "running"),
                    task("c", "completed")
                ])),
                Dialect::Claude
            ),
            summary("(2 background tasks still running) Done.")
        );
        // Lenient: an element without a status counts; a mistyped field reads as none.
        assert_eq!(
            stop(payload(json!([{"id": "x"}])), Dialect::Claude),
            summary("(1 background task still running) Done.")
        );
        assert_eq!(
            stop(payload(json!("two")), Dialect::Claude),
            summary("Done.")
        );
        // No message: the count alone.
        assert_eq!(
            stop(
                json!({"background_tasks": [task("a", "running")]}),
                Dialect::Claude
            ),
            summary("1 background task still running")
        );
        assert_eq!(
            stop(json!({}), Dialect::Claude),
            TurnStopped { summary: None }
        );
        // Codex's Stop keeps the bare message (its `notify` repeats it).
        assert_eq!(
            stop(payload(json!([task("a", "running")])), Dialect::Codex),
            summary("Done.")
        );
    }
}
