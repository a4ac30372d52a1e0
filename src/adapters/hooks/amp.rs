//! Amp (`@ampcode/cli`; documented only: it needs an Amp account) → signals. Amp runs no
//! hook commands; it loads TypeScript plugins, and Attend's plugin (`data/amp/attend.ts`)
//! runs `attend-hook amp EVENT` for the events of its plugin API (`amp.on(…)`), each
//! payload `{hook_event_name, thread_id, cwd, …}`: `session.start`, `agent.start`
//! (`message`), `tool.call` (`tool_name`, `tool_use_id`), `tool.result` (`status`:
//! `done`, `error`, `cancelled`; `error`), `agent.end` (`status`: `done`, `error`,
//! `interrupted`; the turn's last assistant text as `last_assistant_message`). No event
//! of its plugin API names an approval dialog: no gate.
//!
//! Rows and decisions: `docs/adapters.md` ("Amp").

use super::mapped::{identity_with, Mapped};
use super::payload::{shorten, Payload};
use crate::model::{Identity, SignalKind::*};

/// Amp identity: the thread (`thread_id`, `T-…`), resume argv
/// `["amp","threads","continue",<id>]`, `cwd`.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    identity_with(p.str("thread_id"), p.str("cwd"), |id| {
        vec!["amp".into(), "threads".into(), "continue".into(), id.into()]
    })
}

/// Maps one event of Attend's Amp plugin (the table of `docs/adapters.md`, "Amp").
pub(super) fn map(event: &str, p: &Payload<'_>) -> Mapped {
    let tool = || p.str("tool_name").unwrap_or("tool").to_string();
    let id = || p.str("tool_use_id").map(str::to_string);
    let kind = match event {
        "session.start" => SessionStarted { source: None },
        "agent.start" => TurnStarted,
        "tool.call" => ToolStarted {
            tool: tool(),
            tool_use_id: id(),
        },
        "tool.result" if p.str("status") == Some("error") => ToolError {
            error: p
                .str("error")
                .map(shorten)
                .unwrap_or_else(|| format!("{} failed", tool())),
        },
        "tool.result" => ToolFinished {
            tool: Some(tool()),
            tool_use_id: id(),
        },
        "agent.end" => match p.str("status") {
            // Esc mid-turn: idle, an open gate dismissed.
            Some("interrupted") => GateDismissed,
            Some("error") => TurnFailed {
                error: p
                    .str("error")
                    .map(shorten)
                    .unwrap_or_else(|| "the turn ended on an error".into()),
                usage_limit: false,
            },
            _ => TurnStopped {
                summary: p.str("last_assistant_message").map(str::to_string),
            },
        },
        _ => return Mapped::unknown(),
    };
    Mapped::known(kind)
}
