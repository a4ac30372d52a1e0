//! Cursor agent hooks (IDE agent and `cursor-agent`; the documented field lists, not yet
//! recorded) → signals. Rows and decisions: `docs/adapters.md` ("Cursor").

use super::mapped::{identity_with, Mapped};
use super::payload::Payload;
use crate::model::{Identity, SignalKind::*};
use serde_json::Value;

/// The tool name given to shell executions (`beforeShellExecution` names none).
const SHELL_TOOL: &str = "Shell";

/// Cursor identity: session id = `conversation_id`, resume argv
/// `["cursor-agent","--resume",<id>]`, cwd = `workspace_roots[0]` (the agent's workspace;
/// a shell execution's own `cwd` is the command's directory, not the agent's).
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    let cwd = p
        .get("workspace_roots")
        .and_then(Value::as_array)
        .and_then(|roots| roots.first())
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty());
    identity_with(p.str("conversation_id"), cwd, |id| {
        vec!["cursor-agent".into(), "--resume".into(), id.into()]
    })
}

/// Maps one Cursor hook `event`.
pub(super) fn map(event: &str, p: &Payload<'_>) -> Mapped {
    let tool = || p.str("tool_name").unwrap_or("tool").to_string();
    let tool_use_id = || p.str("tool_use_id").map(str::to_string);
    let kind = match event {
        "sessionStart" => SessionStarted {
            source: p.str("source").map(str::to_string),
        },
        "sessionEnd" => SessionEnded {
            reason: p.str("reason").map(str::to_string),
        },
        "beforeSubmitPrompt" => TurnStarted,
        "beforeShellExecution" => ToolStarted {
            tool: SHELL_TOOL.into(),
            tool_use_id: None,
        },
        "afterShellExecution" => ToolFinished {
            tool: Some(SHELL_TOOL.into()),
            tool_use_id: None,
        },
        "preToolUse" => ToolStarted {
            tool: tool(),
            tool_use_id: tool_use_id(),
        },
        "postToolUse" => ToolFinished {
            tool: Some(tool()),
            tool_use_id: tool_use_id(),
        },
        "postToolUseFailure" => ToolError {
            error: error_text(p).unwrap_or_else(|| format!("{} failed", tool())),
        },
        "stop" => match p.str("status") {
            // The user stopped the agent: they acted at the terminal, nothing to flag.
            Some("aborted") => GateDismissed,
            Some("error") => TurnFailed {
                error: error_text(p).unwrap_or_else(|| "agent stopped with an error".into()),
                usage_limit: false,
            },
            // `completed`, a missing or a future status: the loop is over.
            _ => TurnStopped { summary: None },
        },
        // Documented events that carry no state of their own. `afterAgentResponse` has
        // the reply text, but no signal records a message without a state change (see
        // docs/adapters.md).
        "afterAgentResponse" | "afterAgentThought" | "beforeMCPExecution" | "afterMCPExecution"
        | "beforeReadFile" | "afterFileEdit" | "subagentStart" | "subagentStop" | "preCompact" => {
            IdentityOnly
        }
        _ => return Mapped::unknown(),
    };
    Mapped::known(kind)
}

/// The failure text of a payload: `error_message`, else `error`.
fn error_text(p: &Payload<'_>) -> Option<String> {
    ["error_message", "error"].iter().find_map(|k| p.text(k))
}
