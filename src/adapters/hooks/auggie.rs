//! Auggie (Augment's CLI, 0.36.0; documented only: it needs an Augment sign-in before
//! any turn) hooks → signals. Its hooks copy Claude Code's settings shape in
//! `~/.augment/settings.json`; the payloads name the event by `hook_event_name`, the
//! session by `conversation_id`, the workspace by `workspace_roots[0]`. Its events:
//! `SessionStart`, `PromptSubmit` (`user_prompt`), `PreToolUse`/`PostToolUse`
//! (`tool_name`, `tool_input`, `tool_output`, `tool_error`), `Notification`
//! (`notification_message`), `Stop` (`agent_stop_cause`: `end_turn`, `interrupted`,
//! `max_iterations`, `empty_completion`, `error`), `SessionEnd`. Its tool calls carry no
//! id, and no hook names its approval dialog.
//!
//! Rows and decisions: `docs/adapters.md` ("Auggie").

use super::mapped::{identity_with, Mapped};
use super::payload::{non_empty, shorten, Payload};
use crate::model::{GateRef, Identity, SignalKind::*};
use serde_json::Value;

/// Auggie identity: `conversation_id`, resume argv `["auggie","--resume",<id>]` (its
/// `--resume [sessionId]`), the first of `workspace_roots`.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    let cwd = p
        .get("workspace_roots")
        .and_then(Value::as_array)
        .and_then(|roots| roots.first())
        .and_then(non_empty);
    identity_with(p.str("conversation_id"), cwd, |id| {
        vec!["auggie".into(), "--resume".into(), id.into()]
    })
}

/// Maps one Auggie hook `event` (the table of `docs/adapters.md`, "Auggie").
pub(super) fn map(event: &str, p: &Payload<'_>) -> Mapped {
    let tool = p.str("tool_name");
    let kind = match event {
        "SessionStart" => SessionStarted { source: None },
        "PromptSubmit" => TurnStarted,
        "PreToolUse" => ToolStarted {
            tool: tool.unwrap_or("tool").to_string(),
            tool_use_id: None,
        },
        "PostToolUse" => match p.get("tool_error").filter(|e| !e.is_null()) {
            Some(error) => ToolError {
                error: non_empty(error)
                    .map(|e| shorten(e.trim()))
                    .unwrap_or_else(|| format!("{} failed", tool.unwrap_or("tool"))),
            },
            None => ToolFinished {
                tool: tool.map(str::to_string),
                tool_use_id: None,
            },
        },
        "Notification" => AgentNotification {
            text: p
                .str("notification_message")
                .unwrap_or("notification")
                .to_string(),
            gate: GateRef::None,
        },
        "Stop" => match p.str("agent_stop_cause") {
            // Esc mid-turn: idle, an open gate dismissed.
            Some("interrupted") => GateDismissed,
            Some("error") => TurnFailed {
                error: "the agent stopped on an error".into(),
                usage_limit: false,
            },
            _ => TurnStopped { summary: None },
        },
        "SessionEnd" => SessionEnded { reason: None },
        _ => return Mapped::unknown(),
    };
    Mapped::known(kind)
}
