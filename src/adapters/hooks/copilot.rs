//! GitHub Copilot CLI (1.0.102 recorded) hooks → signals. Its payloads are camelCase
//! (`sessionId`, `cwd`, `toolName`, `toolArgs`, …) and name no event: the event is the
//! EVENT argument of the hook command (`attend-hook copilot agentStop`), except the
//! notification hook's own `hook_event_name: "Notification"`.
//!
//! Rows and decisions: `docs/adapters.md` ("GitHub Copilot CLI").

use super::mapped::{identity_with, Mapped};
use super::notification::NotificationPolicy;
use super::payload::{allow_deny_keys, labels, non_empty, render, Payload};
use crate::model::{Identity, SignalKind::*};
// The field the hook client adds to `agentStop`: the turn's reply text, read from the end
// of the session's transcript, since the payload carries none.
use attend_hook::transcript::LAST_MESSAGE_FIELD;
use serde_json::Value;

/// The two options every command approval dialog draws ("Do you want to run this
/// command?": `1. Yes`, then `2. No, and tell Copilot what to do differently (Esc to
/// stop)`; a `Yes, and don't ask again for …` option comes between them for some
/// commands).
const PERMISSION_OPTIONS: [&str; 2] = ["Yes", "No, and tell Copilot what to do differently"];

/// The notification type that says the approval dialog is on screen (interactive only).
const PERMISSION_PROMPT: &str = "permission_prompt";

/// The pane's message when a turn ended and its reply could not be read (no transcript,
/// or a turn that ended without text).
pub(super) const STOP_WITHOUT_TEXT: &str = "turn ended";

/// Copilot identity: `sessionId`, resume argv `["copilot","--resume=<id>"]` (one argument:
/// `--resume` takes an optional value), `cwd`.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    identity_with(p.str("sessionId"), p.str("cwd"), |id| {
        vec!["copilot".into(), format!("--resume={id}")]
    })
}

/// Maps one Copilot hook `event`.
pub(super) fn map(event: &str, p: &Payload<'_>, policy: &NotificationPolicy) -> Mapped {
    let tool = || p.str("toolName").unwrap_or("tool").to_string();
    let kind = match event {
        "sessionStart" => SessionStarted {
            source: p.str("source").map(str::to_string),
        },
        // Ends with an error (`-p` against an unreachable model, after its retries): the
        // turn failed, and no agentStop comes.
        "sessionEnd" if p.str("reason") == Some("error") => TurnFailed {
            error: "session ended with an error".into(),
            usage_limit: false,
        },
        "sessionEnd" => SessionEnded {
            reason: p.str("reason").map(str::to_string),
        },
        "userPromptSubmitted" => TurnStarted,
        "preToolUse" => ToolStarted {
            tool: tool(),
            tool_use_id: None,
        },
        "postToolUse" => ToolFinished {
            tool: Some(tool()),
            tool_use_id: None,
        },
        "postToolUseFailure" => ToolError {
            error: error_text(p).unwrap_or_else(|| format!("{} failed", tool())),
        },
        // The dialog is on screen: the gate. Its message names the command ("Run
        // command: echo hi > out.txt").
        "notification" | "Notification"
            if p.str("notification_type") == Some(PERMISSION_PROMPT) =>
        {
            PermissionRequested {
                prompt: p
                    .text("message")
                    .unwrap_or_else(|| "permission needed".into()),
                options: labels(&PERMISSION_OPTIONS),
                answer_keys: allow_deny_keys(),
                tool_use_id: None,
            }
        }
        "notification" | "Notification" => policy.signal(p),
        "agentStop" => TurnStopped {
            summary: Some(
                p.str(LAST_MESSAGE_FIELD)
                    .unwrap_or(STOP_WITHOUT_TEXT)
                    .to_string(),
            ),
        },
        // A model call failed: retried (`recoverable`, one hook per retry) → a warning;
        // else the turn failed.
        "errorOccurred" if p.flag("recoverable") => Warning {
            text: format!(
                "model call failed, retrying: {}",
                error_text(p).unwrap_or_else(|| "error".into())
            ),
        },
        "errorOccurred" => TurnFailed {
            error: format!(
                "API error: {}",
                error_text(p).unwrap_or_else(|| "unknown error".into())
            ),
            usage_limit: false,
        },
        // Fired also under `--allow-all-tools`, where no dialog shows: no gate by itself
        // (the `permission_prompt` notification is the gate).
        "permissionRequest"
        | "userPromptTransformed"
        | "preMcpToolCall"
        | "subagentStart"
        | "subagentStop"
        | "preCompact"
        | "postResult"
        | "prePRDescription" => IdentityOnly,
        _ => return Mapped::unknown(),
    };
    Mapped::known(kind)
}

/// The error of a payload: `error.message` (Copilot quotes it: `"\"Failed …\""`, the
/// quotes dropped), else `error` rendered; `None` when absent.
fn error_text(p: &Payload<'_>) -> Option<String> {
    let message = match p.get("error")? {
        Value::Object(o) => o.get("message").and_then(non_empty).map(str::to_string),
        other => non_empty(other).map(str::to_string),
    };
    match message {
        Some(m) => {
            let m = m.trim();
            let unquoted = m
                .strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
                .unwrap_or(m);
            Some(render(&Value::String(unquoted.to_string())))
        }
        None => p.text("error"),
    }
}
