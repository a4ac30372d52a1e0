//! Claude Code hooks (2.1.197 and 2.1.332 observed) → signals. Codex, Qwen Code and
//! Factory Droid hooks use the same schema (their hook engines copy Claude's event names
//! and fields), so [`map`] serves all four, with a [`Dialect`] for what differs in the
//! table: the approval dialog, Qwen's `idle_prompt`, Droid's untyped notifications.
//!
//! Rows and decisions: `docs/adapters.md` ("Claude Code", "Codex CLI", "Qwen Code",
//! "Factory Droid").

use super::codex;
use super::droid;
use super::mapped::{identity_with, Mapped};
use super::notification::NotificationPolicy;
use super::payload::{allow_deny_keys, labels, non_empty, shorten, tool_prompt, Payload};
use super::qwen;
use crate::model::{subagent_scope, Identity, SignalKind, SignalKind::*};
use serde_json::Value;

/// Claude's question tool: its call opens a question, not a tool run.
const ASK_USER_QUESTION: &str = "AskUserQuestion";

/// The option Claude Code draws below a question's own options, which takes typed text
/// (2.1.197 and 2.1.332): (under a single choice, under a multiple choice).
const FREE_TEXT_OPTION: (&str, &str) = ("Type something.", "Type something");

/// Labels of Claude's permission dialog ("Do you want to proceed?": 1 Yes / 2 Yes, and
/// don't ask again … / 3 No).
const PERMISSION_OPTIONS: [&str; 3] = ["Yes", "Yes, and don't ask again", "No"];

/// Error kinds of `StopFailure` that mean a usage limit (needs-input reason "usage limit",
/// `docs/adapters.md#claude-notification-types`).
const USAGE_LIMIT_ERRORS: [&str; 2] = ["rate_limit", "billing_error"];

/// `StopFailure.error` kinds in words, for the pane's message (`docs/adapters.md`, the
/// StopFailure row); any other kind is shown with its underscores as spaces.
const FAILURE_WORDS: [(&str, &str); 8] = [
    ("authentication_failed", "authentication failed"),
    ("rate_limit", "usage limit"),
    ("billing_error", "billing error"),
    ("overloaded", "API overloaded"),
    ("server_error", "API server error"),
    ("invalid_request", "invalid request"),
    ("max_output_tokens", "output token limit"),
    ("unknown", "API error"),
];

/// How Claude Code answers a tool call its permission rules deny (`permissions.deny`):
/// the tool result `"Permission to use <tool> with command <cmd> has been denied."`
/// (2.1.197 and 2.1.332), seen in `PostToolBatch.tool_calls[].tool_response`.
const RULE_DENIAL: (&str, &str) = ("Permission to use ", " has been denied.");

/// Which agent speaks Claude's hook schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    Claude,
    Codex,
    Qwen,
    Droid,
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
        "PreToolUse" if asks_question => match dialect {
            Dialect::Claude => claude_question(p.get("tool_input")),
            _ => question(p.get("tool_input")),
        },
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
            Dialect::Qwen => qwen::permission(p),
            Dialect::Droid => droid::permission(p),
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
        "Notification" if dialect == Dialect::Qwen && qwen::repeats_stop(p) => IdentityOnly,
        "Notification" if dialect == Dialect::Droid => droid::notification(p, policy),
        "Notification" => policy.signal(p),
        "Stop" => TurnStopped {
            summary: match dialect {
                Dialect::Claude | Dialect::Qwen | Dialect::Droid => stop_summary(p),
                // Codex reports the same completion again in `notify`, without
                // background tasks: the summaries must stay equal to be one completion.
                Dialect::Codex => p.str("last_assistant_message").map(str::to_string),
            },
        },
        // A subagent's or the compaction's model request failed: the main turn (or the
        // idle prompt after a manual `/compact`) goes on.
        "StopFailure" if p.str("agent_id").is_some() => side_failure(p),
        "StopFailure" => stop_failure(p),
        // The auto mode classifier denied a tool call: the agent goes on without it.
        "PermissionDenied" => Warning {
            text: denied(tool.unwrap_or("tool"), p.get("tool_input"), p.str("reason")),
        },
        // A batch of tool calls resolved; one its permission rules denied is a warning
        // (Claude fires no PermissionDenied for a rule's denial).
        "PostToolBatch" => match rule_denials(p) {
            Some(text) => Warning { text },
            None => IdentityOnly,
        },
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

/// The first question of `AskUserQuestion`'s input: `questions[0]`, else the input
/// itself.
fn first_question(input: Option<&Value>) -> Option<&Value> {
    input
        .and_then(|i| i.get("questions"))
        .and_then(Value::as_array)
        .and_then(|q| q.first())
        .or(input)
}

/// [`question`] as Claude Code draws it: below the options the tool names, its own
/// option that takes typed text ([`FREE_TEXT_OPTION`]), numbered after them. Listing it
/// makes the decision's options the dialog's, so a reply of free text picks it by its
/// label (`docs/desktop-surfaces.md#replies`). A question without options is left as it
/// is (what Claude draws then is not known).
fn claude_question(input: Option<&Value>) -> SignalKind {
    let mut kind = question(input);
    if let QuestionAsked { options, .. } = &mut kind {
        let multiple = first_question(input)
            .and_then(|q| q.get("multiSelect"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if !options.is_empty() {
            let (single, many) = FREE_TEXT_OPTION;
            options.push(if multiple { many } else { single }.to_string());
        }
    }
    kind
}

/// `AskUserQuestion`'s first question: its text and option labels. Lenient: `questions`
/// may be missing (then `question`/`header` on the input itself), options may be plain
/// strings; extra questions are counted in the prompt. Answer keys are left empty: the
/// picker's keys are not observed yet (a screen manifest may supply them).
pub(super) fn question(input: Option<&Value>) -> SignalKind {
    let questions = input
        .and_then(|i| i.get("questions"))
        .and_then(Value::as_array);
    let first = first_question(input);
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

/// `StopFailure`: the error kind in words ([`FAILURE_WORDS`]) + `": "` + what the agent
/// said about it — `error_details`, else `last_assistant_message` (the real CLIs send the
/// latter: "Invalid API key · Fix external API key", "API Error: Request rejected (429) ·
/// … resets at 18:00") — and usage limit for `rate_limit` and `billing_error`.
fn stop_failure(p: &Payload<'_>) -> SignalKind {
    let kind = p.str("error").unwrap_or("unknown");
    let details = p
        .text("error_details")
        .or_else(|| p.text("last_assistant_message"));
    let words = failure_words(kind);
    TurnFailed {
        error: match details {
            Some(d) => format!("{words}: {d}"),
            None => words,
        },
        usage_limit: USAGE_LIMIT_ERRORS.contains(&kind),
    }
}

/// The error kind of a `StopFailure` in words ([`FAILURE_WORDS`]; else the kind with
/// spaces).
fn failure_words(kind: &str) -> String {
    FAILURE_WORDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or_else(|| kind.replace('_', " "), |(_, w)| w.to_string())
}

/// `StopFailure` with an `agent_id`: not the main agent's turn but one of its agents'
/// requests failed — a subagent's (`agent_type` names it) or the compaction's (Claude
/// runs it as an internal agent without `agent_type`; 2.1.197 and 2.1.332). A warning
/// that ends nothing: `"compaction failed: <error in words>"` or `"subagent <type> failed:
/// <error in words>"`, `": <error_details>"` added when present
/// (`docs/lifecycle-attention.md#compaction`, the Claude Code table of
/// `docs/adapters.md`).
fn side_failure(p: &Payload<'_>) -> SignalKind {
    let mut error = failure_words(p.str("error").unwrap_or("unknown"));
    if let Some(details) = p.text("error_details") {
        error = format!("{error}: {}", shorten(details.trim()));
    }
    Warning {
        text: match p.str("agent_type") {
            Some(agent) => format!("subagent {agent} failed: {error}"),
            None => format!("compaction failed: {error}"),
        },
    }
}

/// A denied tool call as a warning's text: `"denied: <tool prompt>"`, with `" — <reason>"`
/// when the agent gave one.
fn denied(tool: &str, input: Option<&Value>, reason: Option<&str>) -> String {
    let call = tool_prompt(tool, input);
    match reason {
        Some(r) => format!("denied: {call} — {}", shorten(r.trim())),
        None => format!("denied: {call}"),
    }
}

/// The tool calls of a `PostToolBatch` that a permission rule denied ([`RULE_DENIAL`]):
/// the first as [`denied`], `" (+N more)"` for the others; `None` when none was.
fn rule_denials(p: &Payload<'_>) -> Option<String> {
    let calls = p.get("tool_calls")?.as_array()?;
    let mut rejected = calls.iter().filter(|c| {
        c.get("tool_response")
            .and_then(Value::as_str)
            .is_some_and(|r| r.starts_with(RULE_DENIAL.0) && r.trim_end().ends_with(RULE_DENIAL.1))
    });
    let first = rejected.next()?;
    let tool = first.get("tool_name").and_then(non_empty).unwrap_or("tool");
    let text = denied(tool, first.get("tool_input"), None);
    Some(match rejected.count() {
        0 => text,
        n => format!("{text} (+{n} more)"),
    })
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
