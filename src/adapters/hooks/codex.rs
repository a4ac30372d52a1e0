//! Codex CLI (0.171.0): the `notify` payload and what its hooks do differently from
//! Claude's schema (the approval dialog, the resume command). The hook events themselves
//! map through [`super::claude::map`].

use super::mapped::{identity_with, Mapped};
use super::payload::{allow_deny_keys, labels, render, Payload};
use crate::model::{Identity, SignalKind};

/// The event name of a `notify` payload (`attend hook codex --notify`).
pub(super) const NOTIFY_EVENT: &str = "notify";

/// The notify `type` that ends a turn.
const TURN_COMPLETE: &str = "agent-turn-complete";

/// Labels of Codex's approval dialog ("Would you like to run the following command?").
const PERMISSION_OPTIONS: [&str; 3] = [
    "Yes, proceed",
    "Yes, and don't ask again",
    "No, and tell Codex what to do differently",
];

/// Codex hook identity: `session_id` (the thread id), resume argv
/// `["codex","resume",<id>]`, `cwd`.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    identity_with(p.str("session_id"), p.str("cwd"), |id| {
        vec!["codex".into(), "resume".into(), id.into()]
    })
}

/// Notify identity: `cwd` only. The thread id is *not* a session id here: the title side
/// thread notifies too, and must never hand the pane over (see [`notify_thread`]).
pub(super) fn notify_identity(p: &Payload<'_>) -> Identity {
    Identity {
        cwd: p.str("cwd").map(str::to_string),
        ..Identity::default()
    }
}

/// The `thread-id` a notify payload may touch (`HookMapping::require_session`).
pub(super) fn notify_thread(p: &Payload<'_>) -> Option<String> {
    p.str("thread-id").map(str::to_string)
}

/// `{"type":"agent-turn-complete", …, "last-assistant-message"}` → turn stopped with
/// that summary; any other `type` is unknown.
pub(super) fn map_notify(p: &Payload<'_>) -> Mapped {
    if p.str("type") != Some(TURN_COMPLETE) {
        return Mapped::unknown();
    }
    Mapped::known(SignalKind::TurnStopped {
        summary: p.str("last-assistant-message").map(str::to_string),
    })
}

/// `PermissionRequest`: prompt `"<tool>: <tool_input.command>"`, plus `" — <description>"`
/// (the model's justification) when given; Codex's three dialog labels; allow → `1`,
/// deny → `3`.
pub(super) fn permission(p: &Payload<'_>) -> SignalKind {
    let tool = p.str("tool_name").unwrap_or("Bash");
    let input = p.get("tool_input");
    let field = |k: &str| {
        input
            .and_then(|i| i.get(k))
            .map(render)
            .filter(|s| !s.is_empty())
    };
    let mut prompt = match field("command") {
        Some(command) => format!("{tool}: {command}"),
        None => tool.to_string(),
    };
    if let Some(description) = field("description") {
        prompt.push_str(" — ");
        prompt.push_str(&description);
    }
    SignalKind::PermissionRequested {
        prompt,
        options: labels(&PERMISSION_OPTIONS),
        answer_keys: allow_deny_keys(),
        tool_use_id: p.str("tool_use_id").map(str::to_string),
    }
}
