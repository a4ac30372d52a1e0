//! Factory Droid (0.225.2 recorded in `droid exec`; the interactive events as documented):
//! what its hooks do differently from Claude's schema, whose event names and fields they
//! copy (the events themselves map through [`super::claude::map`]): the resume command,
//! a `Notification` that names no `notification_type`, a `PermissionRequest` whose dialog
//! was never seen here (Droid's interactive mode asks for a Factory sign-in first), and a
//! `Stop` without `last_assistant_message`.
//!
//! Rows and decisions: `docs/adapters.md` ("Factory Droid").

use super::mapped::identity_with;
use super::notification::NotificationPolicy;
use super::payload::{allow_deny_keys, tool_prompt, Payload};
use crate::model::{DecisionKind, GateRef, Identity, SignalKind};

/// The word a documented Droid notification uses when it waits for an approval ("Droid
/// needs your permission to use Execute"); matched case-insensitively.
const PERMISSION_WORD: &str = "permission";

/// Droid identity: `session_id`, resume argv `["droid","--resume",<id>]`, `cwd`.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    identity_with(p.str("session_id"), p.str("cwd"), |id| {
        vec!["droid".into(), "--resume".into(), id.into()]
    })
}

/// `PermissionRequest`: prompt `"<tool>: <command or path>"`, no labels (the dialog's
/// words are unrecorded; the answer's keys come from the screen when answering), the
/// main agent's next finished tool approves it.
pub(super) fn permission(p: &Payload<'_>) -> SignalKind {
    SignalKind::PermissionRequested {
        prompt: tool_prompt(p.str("tool_name").unwrap_or("tool"), p.get("tool_input")),
        options: Vec::new(),
        answer_keys: allow_deny_keys(),
        tool_use_id: p.str("agent_id").map(crate::model::subagent_scope),
    }
}

/// `Notification`: with a `notification_type`, as Claude's ([`NotificationPolicy`]);
/// without one (Droid's documented payload is `message` only), a message that speaks of
/// permission names a permission gate, any other message is plain (unread).
pub(super) fn notification(p: &Payload<'_>, policy: &NotificationPolicy) -> SignalKind {
    if p.str("notification_type").is_some() {
        return policy.signal(p);
    }
    match p.str("message") {
        Some(m) if m.to_lowercase().contains(PERMISSION_WORD) => SignalKind::AgentNotification {
            text: m.to_string(),
            gate: GateRef::Names(DecisionKind::Permission),
        },
        _ => policy.signal(p),
    }
}
