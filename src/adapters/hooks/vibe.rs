//! Mistral Vibe (3.0.3, documented only: it needs Python ≥ 3.12, Debian 12 has 3.11)
//! hooks → signals. Its `[[hooks]]` tables in `~/.vibe/hooks.toml` run a command per
//! `type`, the payload on stdin: `pre_tool` and `post_tool` (`tool_name`, `tool_input`)
//! and `post_agent` (the agent's turn ended: `session_id`, `transcript_path`, `cwd`,
//! `parent_session_id`, as an earlier run recorded), each named by `hook_event_name`.
//! Nothing reports a turn's start, its approval prompt or an interrupt.
//!
//! Rows and decisions: `docs/adapters.md` ("Mistral Vibe").

use super::mapped::Mapped;
use super::payload::Payload;
use crate::model::{Identity, SignalKind::*};

/// Vibe identity: `session_id` and `cwd`; no resume argv (its resume flag was not seen).
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    Identity {
        session_id: p.str("session_id").map(str::to_string),
        resume_argv: None,
        cwd: p.str("cwd").map(str::to_string),
        title: None,
    }
}

/// Maps one Vibe hook `event` (the table of `docs/adapters.md`, "Mistral Vibe"). A
/// subagent's turn end (`parent_session_id` set) is inside the main agent's turn.
pub(super) fn map(event: &str, p: &Payload<'_>) -> Mapped {
    let tool = || p.str("tool_name").unwrap_or("tool").to_string();
    let id = || p.str("tool_call_id").map(str::to_string);
    let kind = match event {
        "pre_tool" => ToolStarted {
            tool: tool(),
            tool_use_id: id(),
        },
        "post_tool" => ToolFinished {
            tool: Some(tool()),
            tool_use_id: id(),
        },
        "post_agent" if p.str("parent_session_id").is_some() => IdentityOnly,
        "post_agent" => TurnStopped { summary: None },
        _ => return Mapped::unknown(),
    };
    Mapped::known(kind)
}
