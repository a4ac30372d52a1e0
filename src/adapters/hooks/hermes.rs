//! Hermes Agent (0.19.0 recorded) shell hooks → signals. Its `hooks:` block in
//! `~/.hermes/config.yaml` runs a command per event (split with shell rules, no shell),
//! the payload on stdin: `hook_event_name`, `tool_name`, `tool_input`, `session_id`,
//! `cwd`, and every other value of the event under `extra` (`tool_call_id`,
//! `assistant_response`, `interrupted`, the approval's `command` and `choice`, …).
//!
//! Its `on_session_end` fires at the end of every turn (not of the session; `completed`,
//! `interrupted`), `on_session_finalize` when the CLI exits. Its approval dialog
//! ("Dangerous Command", only for commands its patterns call dangerous) has hooks of its
//! own: `pre_approval_request` (also fired for the auxiliary model's check first,
//! `surface: "smart"`, which asks no one) and `post_approval_response` (`choice` `once`,
//! `session`, `always` or `deny`). Its question tool is `clarify`.
//!
//! Rows and decisions: `docs/adapters.md` ("Hermes Agent").

use super::mapped::{identity_with, Mapped};
use super::payload::{allow_deny_keys, labels, non_empty, shorten, tool_prompt, Payload};
use crate::model::{Identity, SignalKind, SignalKind::*};
use serde_json::Value;

/// Hermes's question tool: its call opens a question, not a tool run.
const CLARIFY: &str = "clarify";

/// The tool whose commands the approval dialog gates (Hermes's shell).
const TERMINAL: &str = "terminal";

/// Labels of Hermes's approval dialog ("Dangerous Command": `1. Allow once` … `4. Deny`).
const PERMISSION_OPTIONS: [&str; 4] = [
    "Allow once",
    "Allow for this session",
    "Add to permanent allowlist",
    "Deny",
];

/// The approval hooks' `surface` of the auxiliary model's own check (no dialog).
const SMART: &str = "smart";

/// How the tool result of a command the human denied begins (its `post_approval_response`
/// already said so).
const DENIED: &str = "BLOCKED: User denied";

/// Hermes identity: `session_id` (the approval hooks leave it empty and name it
/// `extra.session_key`), resume argv `["hermes","--resume",<id>]` (what it prints at
/// exit), `cwd`.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    let session = p
        .str("session_id")
        .or_else(|| p.at(&["extra", "session_key"]).and_then(non_empty));
    identity_with(session, p.str("cwd"), |id| {
        vec!["hermes".into(), "--resume".into(), id.into()]
    })
}

/// Maps one Hermes hook `event` (the table of `docs/adapters.md`, "Hermes Agent").
pub(super) fn map(event: &str, p: &Payload<'_>) -> Mapped {
    let extra = |key: &str| p.at(&["extra", key]);
    let tool = p.str("tool_name");
    let call_id = || {
        extra("tool_call_id")
            .and_then(non_empty)
            .map(str::to_string)
    };
    let kind = match event {
        "on_session_start" => SessionStarted { source: None },
        "on_session_reset" => SessionStarted {
            source: Some("clear".into()),
        },
        "pre_llm_call" => TurnStarted,
        "pre_tool_call" if tool == Some(CLARIFY) => question(p.get("tool_input")),
        "pre_tool_call" => ToolStarted {
            tool: tool.unwrap_or("tool").to_string(),
            tool_use_id: call_id(),
        },
        "post_tool_call" if tool == Some(CLARIFY) => TurnStarted,
        "post_tool_call" => tool_finished(p, tool, call_id()),
        "pre_approval_request" if extra("surface").and_then(Value::as_str) == Some(SMART) => {
            IdentityOnly
        }
        "pre_approval_request" => PermissionRequested {
            prompt: tool_prompt(TERMINAL, p.get("extra")),
            options: labels(&PERMISSION_OPTIONS),
            answer_keys: allow_deny_keys(),
            tool_use_id: call_id(),
        },
        "post_approval_response" => match extra("choice").and_then(Value::as_str) {
            Some("once" | "session" | "always") => ToolFinished {
                tool: None,
                tool_use_id: call_id(),
            },
            Some("deny") => GateDenied,
            // The auxiliary model's verdict (`smart_approve`, `smart_deny`): no dialog.
            _ => IdentityOnly,
        },
        "post_llm_call" => TurnStopped {
            summary: extra("assistant_response")
                .and_then(non_empty)
                .map(|t| t.trim().to_string()),
        },
        // Every turn's end: `post_llm_call` ended a completed turn; an interrupted one
        // (Ctrl+C) is idle; one that ended without a reply failed.
        "on_session_end" if extra("interrupted").and_then(Value::as_bool) == Some(true) => {
            GateDismissed
        }
        "on_session_end" if extra("completed").and_then(Value::as_bool) == Some(false) => {
            TurnFailed {
                error: "the turn ended without a reply".into(),
                usage_limit: false,
            }
        }
        "on_session_end" | "subagent_start" | "subagent_stop" => IdentityOnly,
        "on_session_finalize" => SessionEnded {
            reason: extra("reason").and_then(non_empty).map(str::to_string),
        },
        _ => return Mapped::unknown(),
    };
    Mapped::known(kind)
}

/// `post_tool_call`: `extra.status` `ok` → the tool finished; `error` → a tool error
/// (`error_message`), except the command the human denied (its approval hook said so).
fn tool_finished(p: &Payload<'_>, tool: Option<&str>, call_id: Option<String>) -> SignalKind {
    let status = p.at(&["extra", "status"]).and_then(Value::as_str);
    let message = p.at(&["extra", "error_message"]).and_then(non_empty);
    match status {
        Some("error" | "blocked") if message.is_some_and(|m| m.starts_with(DENIED)) => IdentityOnly,
        Some("error" | "blocked") => ToolError {
            error: message
                .map(|m| shorten(m.trim()))
                .unwrap_or_else(|| format!("{} failed", tool.unwrap_or("tool"))),
        },
        _ => ToolFinished {
            tool: Some(tool.unwrap_or("tool").to_string()),
            tool_use_id: call_id,
        },
    }
}

/// The question of `clarify` (`{question, choices}`); answer keys come from the screen.
fn question(input: Option<&Value>) -> SignalKind {
    let prompt = input
        .and_then(|i| i.get("question"))
        .and_then(non_empty)
        .map(|q| shorten(q.trim()))
        .unwrap_or_else(|| "Hermes is asking a question".into());
    let options = input
        .and_then(|i| i.get("choices"))
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(non_empty)
                .map(|o| shorten(o.trim()))
                .collect()
        })
        .unwrap_or_default();
    QuestionAsked {
        prompt,
        options,
        answer_keys: Vec::new(),
    }
}
