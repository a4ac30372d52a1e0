//! Continue CLI (`cn`, 1.5.47) hooks → signals. Its hooks copy Claude Code's schema
//! (`hook_event_name`, `session_id`, `cwd`, `tool_name`, `tool_input`, `tool_use_id`, the
//! same event names), so [`claude::map`] maps them; they differ in `transcript_path`, which
//! Continue always sends empty (it keeps no transcript file), and in the resume argv.
//!
//! Continue reads hooks from Claude's `settings.json` files too (before its own
//! `~/.continue/settings.json`): a payload that reaches Claude's hook with an empty
//! `transcript_path` is Continue's ([`is_continue_payload`]), and `map_hook` files it
//! under Continue, never under Claude.
//!
//! 1.5.47 (the newest release) loads its hooks but never runs them: nothing in it fires
//! an event (its bundle has no caller of the hook service), so the screen carries it
//! today. Rows and decisions: `docs/adapters.md` ("Continue CLI").

use super::claude::{self, Dialect};
use super::mapped::{identity_with, Mapped};
use super::notification::NotificationPolicy;
use super::payload::Payload;
use crate::model::Identity;

/// Continue identity: `session_id`, resume argv `["cn","--fork",<id>]` (its `--resume`
/// takes no id: it resumes the last session), `cwd`.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    identity_with(p.str("session_id"), p.str("cwd"), |id| {
        vec!["cn".into(), "--fork".into(), id.into()]
    })
}

/// Maps one Continue hook `event`: Claude Code's table ([`claude::map`]).
pub(super) fn map(event: &str, p: &Payload<'_>, policy: &NotificationPolicy) -> Mapped {
    claude::map(event, p, policy, Dialect::Claude)
}

/// True when a payload sent to Claude's hook is Continue's: its `transcript_path` is
/// present and empty (Claude Code always names its transcript file).
pub(super) fn is_continue_payload(p: &Payload<'_>) -> bool {
    p.get("transcript_path")
        .and_then(|v| v.as_str())
        .is_some_and(str::is_empty)
}
