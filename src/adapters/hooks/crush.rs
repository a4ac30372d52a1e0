//! Crush (Charm's CLI; documented only: its npm package downloads its binary from GitHub)
//! hooks → signals. Crush runs one hook event, `PreToolUse`, from `hooks` in
//! `~/.config/crush/crush.json` (or a project's `crush.json`, `.crush.json`): flat entries
//! `{"matcher", "command", "timeout"}`, the payload `{"event", "session_id", "cwd",
//! "tool_name", "tool_input"}` on stdin (its hooks guide and `internal/hooks/input.go`),
//! the event named by `event`. Its turn's end and its permission prompt are desktop
//! notifications ("Crush is waiting..."), which reach Attend as terminal notifications
//! (OSC 777 or 99) when Crush's `notifications` option is `osc`: no hook reports them.
//!
//! Rows and decisions: `docs/adapters.md` ("Crush").

use super::mapped::{identity_with, Mapped};
use super::payload::Payload;
use crate::model::{Identity, SignalKind::*};

/// The payload field that names the event.
pub(super) const EVENT_FIELD: &str = "event";

/// Crush identity: `session_id`, resume argv `["crush","--session",<id>]` (its `-s,
/// --session`), `cwd`.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    identity_with(p.str("session_id"), p.str("cwd"), |id| {
        vec!["crush".into(), "--session".into(), id.into()]
    })
}

/// Maps one Crush hook `event` (its names are case-insensitive and may be snake case:
/// `PreToolUse`, `pre_tool_use`); anything but `PreToolUse` is unknown.
pub(super) fn map(event: &str, p: &Payload<'_>) -> Mapped {
    if event.replace('_', "").eq_ignore_ascii_case("PreToolUse") {
        Mapped::known(ToolStarted {
            tool: p.str("tool_name").unwrap_or("tool").to_string(),
            tool_use_id: None,
        })
    } else {
        Mapped::unknown()
    }
}
