//! pi (1.6.0 recorded) → signals. pi runs no hook commands: Attend's extension
//! (`data/pi/attend.ts`) runs `attend-hook pi EVENT` for its lifecycle events only, each
//! payload `{hook_event_name, session_id, session_file, cwd, …}` with the event's own
//! fields in snake case; it adds the run's last assistant text (`last_assistant_message`)
//! and the failed request's message (`error`) to `agent_settled`.
//!
//! Rows and decisions: `docs/adapters.md` ("pi").

use super::mapped::{identity_with, Mapped};
use super::payload::{shorten, Payload};
use crate::model::{Identity, SignalKind::*};

/// pi identity: the session (`session_id`, a UUID), resume argv
/// `["pi","--session",<id>]`, `cwd`.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    identity_with(p.str("session_id"), p.str("cwd"), |id| {
        vec!["pi".into(), "--session".into(), id.into()]
    })
}

/// Maps one pi event.
pub(super) fn map(event: &str, p: &Payload<'_>) -> Mapped {
    let kind = match event {
        "session_start" => match p.str("reason") {
            // The same session's extensions reloaded: nothing started.
            Some("reload") => IdentityOnly,
            reason => SessionStarted {
                source: Some(session_source(reason).to_string()),
            },
        },
        "agent_start" => TurnStarted,
        "tool_execution_start" => ToolStarted {
            tool: p.str("tool_name").unwrap_or("tool").to_string(),
            tool_use_id: p.str("tool_call_id").map(str::to_string),
        },
        // A failed call (a command's non-zero exit included) is the model's to handle: the
        // turn goes on.
        "tool_execution_end" => ToolFinished {
            tool: Some(p.str("tool_name").unwrap_or("tool").to_string()),
            tool_use_id: p.str("tool_call_id").map(str::to_string),
        },
        "agent_settled" if p.flag("aborted") => GateDismissed,
        "agent_settled" => match p.str("error") {
            Some(error) => TurnFailed {
                error: shorten(error),
                usage_limit: is_usage_limit(error),
            },
            None => TurnStopped {
                summary: p.str("last_assistant_message").map(str::to_string),
            },
        },
        "ui_prompt_start" => QuestionAsked {
            prompt: p
                .str("title")
                .map(shorten)
                .unwrap_or_else(|| format!("{} dialog", p.str("kind").unwrap_or("extension"))),
            options: Vec::new(),
            answer_keys: Vec::new(),
        },
        // Answered: the run goes on; a dialog of an extension command while idle: idle.
        "ui_prompt_end" if p.flag("busy") => TurnStarted,
        "ui_prompt_end" => GateDismissed,
        "session_shutdown" => match p.str("reason") {
            Some("reload") => IdentityOnly,
            reason => SessionEnded {
                reason: Some(shutdown_reason(reason).to_string()),
            },
        },
        _ => return Mapped::unknown(),
    };
    Mapped::known(kind)
}

/// A `session_start` reason as Attend's session sources: `new` (`/new`) is a `clear`,
/// `fork` (`/fork`, `/clone`) a `resume` of another session's history.
fn session_source(reason: Option<&str>) -> &str {
    match reason {
        Some("new") => "clear",
        Some("fork") => "resume",
        Some(other) => other,
        None => "startup",
    }
}

/// A `session_shutdown` reason as Attend's session-end reasons: `quit` (the user's exit:
/// `/quit`, Ctrl+C twice, Ctrl+D, SIGHUP, SIGTERM) as it is; `new`, `resume` and `fork` hand
/// the pane to another session (`clear`, `resume`).
fn shutdown_reason(reason: Option<&str>) -> &str {
    match reason {
        Some("quit") | None => "quit",
        Some("new") => "clear",
        Some("resume") | Some("fork") => "resume",
        Some(other) => other,
    }
}

/// True for a provider's rate or usage limit: pi's message starts with the HTTP status
/// (`429 …`) or names the limit.
fn is_usage_limit(error: &str) -> bool {
    let lower = error.to_ascii_lowercase();
    lower.starts_with("429") || lower.contains("rate limit") || lower.contains("usage limit")
}
