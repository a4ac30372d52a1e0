//! OpenHands CLI (1.16.0, documented only: it needs Python 3.12, Debian 12 has 3.11)
//! hooks → signals. Its hooks file, `.openhands/hooks.json` in the project or else
//! `~/.openhands/hooks.json` (the first found is the only one read), takes Claude Code's
//! shape and event names (`SessionStart`, `UserPromptSubmit`, `PreToolUse`,
//! `PostToolUse`, `Stop`, `SessionEnd`); its payload names the event by `event_type` and
//! the directory by `working_dir`, with Claude's `tool_name` and `tool_input`. So the
//! rows are Claude Code's ([`super::claude::map`]); it has no `PermissionRequest`: its
//! confirmation prompt is not reported.
//!
//! Rows and decisions: `docs/adapters.md` ("OpenHands CLI").

use super::claude::{self, Dialect};
use super::mapped::{identity_with, Mapped};
use super::notification::NotificationPolicy;
use super::payload::Payload;
use crate::model::Identity;

/// The payload field that names the event (Claude's `hook_event_name` is read too).
pub(super) const EVENT_FIELD: &str = "event_type";

/// OpenHands identity: `session_id`, resume argv `["openhands","--resume",<id>]`, the
/// directory (`working_dir`, else `cwd`).
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    identity_with(
        p.str("session_id"),
        p.first_str(&["working_dir", "cwd"]),
        |id| vec!["openhands".into(), "--resume".into(), id.into()],
    )
}

/// Maps one OpenHands hook `event`: Claude Code's rows for its six events, anything else
/// unknown.
pub(super) fn map(event: &str, p: &Payload<'_>, policy: &NotificationPolicy) -> Mapped {
    match event {
        "SessionStart" | "UserPromptSubmit" | "PreToolUse" | "PostToolUse" | "Stop"
        | "SessionEnd" => claude::map(event, p, policy, Dialect::Claude),
        _ => Mapped::unknown(),
    }
}
