//! Qwen Code (0.24.4): what its hooks do differently from Claude's schema, whose event
//! names and fields they copy (the events themselves map through
//! [`super::claude::map`]): the approval dialog's labels, the resume command, and an
//! `idle_prompt` notification that only repeats the turn's end.
//!
//! Rows and decisions: `docs/adapters.md` ("Qwen Code").

use super::mapped::identity_with;
use super::payload::{allow_deny_keys, labels, tool_prompt, Payload};
use crate::model::{Identity, SignalKind};

/// Labels of Qwen Code's approval dialog ("Allow execution of: 'echo'?": `1. Yes, allow
/// once`, `2./3. Always allow …` in this project / for this user, `4. No, suggest changes
/// (esc)`); the middle two name the command, so they are given by their common start.
const PERMISSION_OPTIONS: [&str; 3] = ["Yes, allow once", "Always allow", "No, suggest changes"];

/// The notification type Qwen Code sends each time its prompt becomes idle, right after
/// every turn's `Stop` (not after a delay as Claude's).
const IDLE_PROMPT: &str = "idle_prompt";

/// Qwen identity: `session_id`, resume argv `["qwen","--resume",<id>]`, `cwd`.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    identity_with(p.str("session_id"), p.str("cwd"), |id| {
        vec!["qwen".into(), "--resume".into(), id.into()]
    })
}

/// `PermissionRequest` (fired as the dialog opens, before `PreToolUse`, without a
/// `tool_use_id`): prompt `"<tool>: <command or path>"`, the dialog's labels, no id (the
/// main agent's next finished tool approves it).
pub(super) fn permission(p: &Payload<'_>) -> SignalKind {
    SignalKind::PermissionRequested {
        prompt: tool_prompt(p.str("tool_name").unwrap_or("tool"), p.get("tool_input")),
        options: labels(&PERMISSION_OPTIONS),
        answer_keys: allow_deny_keys(),
        tool_use_id: p.str("agent_id").map(crate::model::subagent_scope),
    }
}

/// True for the `idle_prompt` notification: it repeats the `Stop` just before it (the
/// same completion), so it maps to identity only whatever the notification policy says.
pub(super) fn repeats_stop(p: &Payload<'_>) -> bool {
    p.str("notification_type") == Some(IDLE_PROMPT)
}
