//! Letta Code (0.25.9 recorded) hooks → signals. Its hooks copy Claude Code's event names
//! and settings shape (`hooks` in `~/.letta/settings.json`), with payloads of its own: the
//! event is `event_type` (not `hook_event_name`), the directory `working_directory`, the
//! conversation `conversation_id` (on the session and prompt events only), a tool call's
//! id `tool_call_id`, `Stop`'s reply `assistant_message`; no event carries a session id
//! on every payload.
//!
//! Its approval dialog ("Run this command?") fires no hook of its own that Attend can
//! register: a `PermissionRequest` hook that exits 0 approves the call ("Allowed by
//! hook"), and Attend's hook client always exits 0, so `install-hooks letta` leaves that
//! event out. The dialog is told by the `Notification` "Approval needed" it sends as it
//! opens; the call's `PreToolUse` comes only after the human approved it.
//!
//! Rows and decisions: `docs/adapters.md` ("Letta Code").

use super::mapped::{identity_with, Mapped};
use super::payload::{allow_deny_keys, labels, shorten, tool_prompt, Payload};
use crate::model::{DecisionKind, GateRef, Identity, SignalKind::*};

/// The `Notification` message Letta sends as its approval dialog opens.
const APPROVAL_NEEDED: &str = "Approval needed";

/// The `Notification` message Letta sends right after every turn's `Stop` (the same
/// completion).
const TURN_COMPLETED: &str = "Turn completed, awaiting your input";

/// The `level` of a `Notification` Letta sends when a turn ended in an error ("Stream
/// error", "Execution error", "Processing error").
const ERROR_LEVEL: &str = "error";

/// Labels of Letta's approval dialog ("Run this command?": `1. Yes` / `2. Yes, and don't
/// ask again for '<command>' in this project` / `3. No, and tell Letta Code what to do
/// differently`); the last two name more, so they are given by their common start.
const PERMISSION_OPTIONS: [&str; 3] =
    ["Yes", "Yes, and don't ask again", "No, and tell Letta Code"];

/// The conversation id of an agent's default conversation: the same in every agent.
const DEFAULT_CONVERSATION: &str = "default";

/// Letta identity: the conversation (`conversation_id`), resume argv
/// `["letta","--conv",<id>]` (the command Letta prints at `/exit` to continue it); for an
/// agent's default conversation (`"default"`, the same word in every agent) the agent
/// (`agent_id`), resume argv `["letta","--agent",<id>]` (which opens that conversation);
/// the directory (`working_directory`).
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    let cwd = p.str("working_directory");
    match (p.str("conversation_id"), p.str("agent_id")) {
        (Some(DEFAULT_CONVERSATION), Some(agent)) => identity_with(Some(agent), cwd, |id| {
            vec!["letta".into(), "--agent".into(), id.into()]
        }),
        (Some(DEFAULT_CONVERSATION), None) => identity_with(None, cwd, |_| Vec::new()),
        (conversation, _) => identity_with(conversation, cwd, |id| {
            vec!["letta".into(), "--conv".into(), id.into()]
        }),
    }
}

/// Maps one Letta hook `event` (the table of `docs/adapters.md`, "Letta Code").
pub(super) fn map(event: &str, p: &Payload<'_>) -> Mapped {
    let tool = p.str("tool_name");
    let kind = match event {
        "SessionStart" => SessionStarted {
            source: Some(
                if p.flag("is_new_session") {
                    "startup"
                } else {
                    "resume"
                }
                .into(),
            ),
        },
        "UserPromptSubmit" => TurnStarted,
        "PreToolUse" => ToolStarted {
            tool: tool.unwrap_or("tool").to_string(),
            tool_use_id: p.str("tool_call_id").map(str::to_string),
        },
        // Registered by hand only (an exit 0 would approve the call): the dialog's gate.
        "PermissionRequest" => PermissionRequested {
            prompt: tool_prompt(tool.unwrap_or("tool"), p.get("tool_input")),
            options: labels(&PERMISSION_OPTIONS),
            answer_keys: allow_deny_keys(),
            tool_use_id: None,
        },
        "PostToolUse" => ToolFinished {
            tool: tool.map(str::to_string),
            tool_use_id: p.str("tool_call_id").map(str::to_string),
        },
        "PostToolUseFailure" => ToolError {
            error: p
                .str("error_message")
                .map(|m| shorten(m.trim()))
                .unwrap_or_else(|| format!("{} failed", tool.unwrap_or("tool"))),
        },
        "Notification" => notification(p),
        "Stop" => TurnStopped {
            summary: p.str("assistant_message").map(|m| m.trim().to_string()),
        },
        "SessionEnd" => SessionEnded { reason: None },
        "SubagentStop" | "PreCompact" => IdentityOnly,
        _ => return Mapped::unknown(),
    };
    Mapped::known(kind)
}

/// `Notification` (`message`, `level`): "Approval needed" names the permission gate its
/// dialog opened; "Turn completed, awaiting your input" repeats the `Stop` just before it;
/// a message of level `error` is a turn that ended in that error; any other is a plain
/// notification.
fn notification(p: &Payload<'_>) -> crate::model::SignalKind {
    let message = p.str("message").map(str::trim).unwrap_or("notification");
    match message {
        APPROVAL_NEEDED => AgentNotification {
            text: message.to_string(),
            gate: GateRef::Names(DecisionKind::Permission),
        },
        TURN_COMPLETED => IdentityOnly,
        _ if p.str("level") == Some(ERROR_LEVEL) => TurnFailed {
            error: message.to_string(),
            usage_limit: false,
        },
        _ => AgentNotification {
            text: message.to_string(),
            gate: GateRef::None,
        },
    }
}
