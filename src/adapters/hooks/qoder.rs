//! Qoder CLI (1.1.52; documented only: it needs a Qoder sign-in before any turn) hooks →
//! signals. Its hook engine copies Claude Code's: `hooks` in `~/.qoder/settings.json` (and
//! a project's `.qoder/settings.json`, `.qoder/settings.local.json`), Claude's event names
//! and payload fields (`hook_event_name`, `session_id`, `transcript_path`, `cwd`,
//! `tool_name`, `tool_input`, `tool_use_id`, `tool_response`, `error`, `is_interrupt`,
//! `notification_type`, `message`, `last_assistant_message`, `reason`), as its bundled
//! hook guide and the payload builders of its `qodercli.js` say. So the rows are Claude
//! Code's ([`super::claude::map`]); its permission dialog was never seen, so a gate
//! carries no option labels (Claude's would be a guess).
//!
//! Rows and decisions: `docs/adapters.md` ("Qoder CLI").

use super::claude::{self, Dialect};
use super::mapped::{identity_with, Mapped};
use super::notification::NotificationPolicy;
use super::payload::Payload;
use crate::model::{Identity, SignalKind};

/// Qoder identity: `session_id`, resume argv `["qodercli","--resume",<id>]` (its
/// `-r, --resume [id]`), `cwd`.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    identity_with(p.str("session_id"), p.str("cwd"), |id| {
        vec!["qodercli".into(), "--resume".into(), id.into()]
    })
}

/// Maps one Qoder hook `event`: Claude Code's rows, a gate without option labels.
pub(super) fn map(event: &str, p: &Payload<'_>, policy: &NotificationPolicy) -> Mapped {
    let mut mapped = claude::map(event, p, policy, Dialect::Claude);
    if let SignalKind::PermissionRequested { options, .. } = &mut mapped.kind {
        options.clear();
    }
    mapped
}
