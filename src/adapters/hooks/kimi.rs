//! Kimi Code CLI (2.1.0 recorded) hooks → signals. Its `[[hooks]]` copy Claude Code's
//! event names and most fields (`session_id`, `cwd`, `hook_event_name`, `tool_name`,
//! `tool_input`), with its own: the tool call's id is `tool_call_id`, the permission
//! dialog's answer has an event of its own (`PermissionResult`, `decision` approved or
//! rejected), an interrupt (Esc) fires `Interrupt`, `StopFailure` names `error_type` and
//! `error_message`, and `Stop` carries no reply text (the hook client adds
//! `last_assistant_message` from the session's `wire.jsonl`, `attend_hook::kimi_transcript`).
//!
//! Rows and decisions: `docs/adapters.md` ("Kimi Code CLI").

use super::claude;
use super::mapped::{identity_with, Mapped};
use super::payload::{allow_deny_keys, labels, tool_prompt, Payload};
use crate::model::{subagent_scope, Identity, SignalKind::*};
use serde_json::Value;

/// Kimi's question tool (Claude's name): its call opens a question, not a tool run.
const ASK_USER_QUESTION: &str = "AskUserQuestion";

/// Labels of Kimi's approval dialog ("Run this command?": `1. Approve once` / `2. Approve
/// for this session` / `3. Reject` / `4. Reject with feedback`).
const PERMISSION_OPTIONS: [&str; 4] = [
    "Approve once",
    "Approve for this session",
    "Reject",
    "Reject with feedback",
];

/// The `agent_id` of the main agent in `PermissionRequest`/`PermissionResult`; any other
/// is a subagent's.
const MAIN_AGENT: &str = "main";

/// What Kimi's `PostToolUseFailure.error.message` says of a call the human rejected in
/// the dialog (`Tool "Bash" was not run because the user rejected the approval request.`):
/// its `PermissionResult` already said so.
const REJECTED: &str = "rejected the approval request";

/// The field the hook client adds to `Stop` (Claude Code's name for the turn's reply).
const LAST_MESSAGE: &str = "last_assistant_message";

/// Kimi identity: `session_id`, resume argv `["kimi","--session",<id>]`, `cwd`.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    identity_with(p.str("session_id"), p.str("cwd"), |id| {
        vec!["kimi".into(), "--session".into(), id.into()]
    })
}

/// Maps one Kimi hook `event` (the table of `docs/adapters.md`, "Kimi Code CLI").
pub(super) fn map(event: &str, p: &Payload<'_>) -> Mapped {
    let tool = p.str("tool_name");
    let asks_question = tool == Some(ASK_USER_QUESTION);
    let kind = match event {
        "SessionStart" => SessionStarted {
            source: p.str("source").map(str::to_string),
        },
        "UserPromptSubmit" => TurnStarted,
        "PreToolUse" if asks_question => claude::question(p.get("tool_input")),
        "PreToolUse" => ToolStarted {
            tool: tool.unwrap_or("tool").to_string(),
            tool_use_id: p.str("tool_call_id").map(str::to_string),
        },
        "PermissionRequest" if asks_question => IdentityOnly,
        "PermissionRequest" => PermissionRequested {
            prompt: tool_prompt(tool.unwrap_or("tool"), p.get("tool_input")),
            options: labels(&PERMISSION_OPTIONS),
            answer_keys: allow_deny_keys(),
            tool_use_id: gated_call(p),
        },
        // Approved: the tool runs now, which approves the gate as its finish would.
        // Rejected: the tool is not run, the model hears so and the turn goes on.
        "PermissionResult" => match p.str("decision") {
            Some("approved") => ToolFinished {
                tool: None,
                tool_use_id: gated_call(p),
            },
            Some(_) => GateDenied,
            None => IdentityOnly,
        },
        // The human answered the question: the answer reaches the model, which goes on.
        // Kimi does not wait for its hooks: this one may come after the turn's `Stop`, so
        // it closes the question and moves a blocked pane to working, nothing else (not
        // `TurnStarted`, which would make a finished turn working again).
        "PostToolUse" if asks_question => GateDenied,
        "PostToolUse" => ToolFinished {
            tool: tool.map(str::to_string),
            tool_use_id: p.str("tool_call_id").map(str::to_string),
        },
        // A question the human cancelled: they acted at the terminal.
        "PostToolUseFailure" if asks_question => GateDismissed,
        "PostToolUseFailure" => match error_message(p) {
            Some(m) if m.contains(REJECTED) => IdentityOnly,
            Some(m) => ToolError { error: m },
            None => ToolError {
                error: format!("{} failed", tool.unwrap_or("tool")),
            },
        },
        "Stop" => TurnStopped {
            summary: p.str(LAST_MESSAGE).map(str::to_string),
        },
        "StopFailure" => TurnFailed {
            error: failure(p),
            usage_limit: p
                .str("error_type")
                .is_some_and(|t| t.to_lowercase().contains("rate")),
        },
        // Esc mid-turn: the turn ends without a Stop (idle; an open gate is dismissed).
        "Interrupt" => GateDismissed,
        "SessionEnd" => SessionEnded {
            reason: p.str("reason").map(str::to_string),
        },
        "SubagentStart" | "SubagentStop" | "PreCompact" | "PostCompact" | "Notification" => {
            IdentityOnly
        }
        _ => return Mapped::unknown(),
    };
    Mapped::known(kind)
}

/// The id of the tool call a permission gate guards: a subagent's scope when `agent_id`
/// names another agent than the main one (`docs/lifecycle-attention.md#subagent-gates`),
/// else `tool_call_id`.
fn gated_call(p: &Payload<'_>) -> Option<String> {
    match p.str("agent_id") {
        Some(agent) if agent != MAIN_AGENT => Some(subagent_scope(agent)),
        _ => p.str("tool_call_id").map(str::to_string),
    }
}

/// `PostToolUseFailure.error`: its `message` (an object `{code, message, retryable}`), or
/// the error itself when it is a string.
fn error_message(p: &Payload<'_>) -> Option<String> {
    match p.get("error")? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Object(o) => o
            .get("message")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_string),
        _ => None,
    }
}

/// `StopFailure`: `"<error_type>: <error_message>"`, either alone when the other is
/// missing, `"API error"` when both are.
fn failure(p: &Payload<'_>) -> String {
    match (p.text("error_type"), p.text("error_message")) {
        (Some(t), Some(m)) => format!("{t}: {m}"),
        (Some(t), None) => t,
        (None, Some(m)) => m,
        (None, None) => "API error".to_string(),
    }
}
