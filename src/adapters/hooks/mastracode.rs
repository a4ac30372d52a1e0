//! MastraCode (0.32.1 recorded) hooks → signals. Its `~/.mastracode/hooks.json` holds one
//! list of commands per event (no matcher groups); every payload names `session_id` (the
//! thread), `cwd` and `hook_event_name`, and the events of a run carry its `run_id`.
//! Beside Claude Code's names it has a run's own start and end (`AgentStart`, `AgentEnd`
//! with `stop_reason` `complete`, `aborted`, `error` or `suspended`), the approval
//! dialog's request and answer (`PermissionRequest`, `PermissionResult` with `decision`),
//! and `Interrupt` (Esc mid-turn).
//!
//! What the recorded runs showed, and the table follows:
//! - `AgentEnd` ends the turn, not `Stop`: a run that stops for the question tool
//!   (`ask_user`) ends `suspended`, but its `Stop` says `complete`, and comes only once
//!   the question was answered. `Stop` carries no reply text (0.32.1 passes none).
//! - The question opens with `Notification` `ask_question` (once per question): its
//!   `PreToolUse` fires again after the answer, and its first `PostToolUse` fires at once,
//!   before any answer, without `tool_output`; the answered one carries it.
//! - A new thread's `SessionStart` and first `UserPromptSubmit` name the placeholder
//!   session `session-init`; the thread's id follows from `AgentStart` on.
//!
//! Rows and decisions: `docs/adapters.md` ("MastraCode").

use super::mapped::Mapped;
use super::payload::{allow_deny_keys, labels, shorten, tool_prompt, Payload};
use crate::model::{Identity, SignalKind::*};
use serde_json::Value;

/// The question tool: its call opens a question (through its notification), not a run.
const ASK_USER: &str = "ask_user";

/// The session id a new thread's first events carry before the thread exists.
const PLACEHOLDER_SESSION: &str = "session-init";

/// The answers of MastraCode's approval dialog ("⚠ Tool Approval Required", "Allow? yes
/// no always allow <category> Yolo", pressed as `y`, `n`, `a`, `Y`).
const PERMISSION_OPTIONS: [&str; 4] = ["yes", "no", "always allow", "Yolo"];

/// MastraCode identity: the thread (`session_id`, the placeholder `session-init` read as
/// none), no resume argv (its TUI takes no thread argument: started in a directory it
/// reopens that directory's latest thread, whichever that is), `cwd`.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    Identity {
        session_id: p
            .str("session_id")
            .filter(|s| *s != PLACEHOLDER_SESSION)
            .map(str::to_string),
        resume_argv: None,
        cwd: p.str("cwd").map(str::to_string),
        title: None,
    }
}

/// Maps one MastraCode hook `event` (the table of `docs/adapters.md`, "MastraCode").
pub(super) fn map(event: &str, p: &Payload<'_>) -> Mapped {
    let tool = p.str("tool_name");
    let asks_question = tool == Some(ASK_USER);
    let kind = match event {
        "SessionStart" => SessionStarted { source: None },
        "UserPromptSubmit" => TurnStarted,
        // A run starts: after a prompt, and after an answered question (a new run).
        "AgentStart" => TurnStarted,
        "PreToolUse" if asks_question => IdentityOnly,
        "PreToolUse" => ToolStarted {
            tool: tool.unwrap_or("tool").to_string(),
            tool_use_id: None,
        },
        "PermissionRequest" => PermissionRequested {
            prompt: tool_prompt(tool.unwrap_or("tool"), p.get("tool_input")),
            options: labels(&PERMISSION_OPTIONS),
            answer_keys: allow_deny_keys(),
            tool_use_id: p.str("tool_call_id").map(str::to_string),
        },
        "PermissionResult" => match p.str("decision") {
            Some("approved" | "auto_approved") => ToolFinished {
                tool: None,
                tool_use_id: p.str("tool_call_id").map(str::to_string),
            },
            Some("declined" | "auto_declined") => GateDenied,
            Some("dismissed") => GateDismissed,
            _ => IdentityOnly,
        },
        // The question's answer reached the model (`tool_output` holds it); its first
        // `PostToolUse`, before any answer, holds none.
        "PostToolUse" if asks_question => match p.get("tool_output") {
            Some(_) => TurnStarted,
            None => IdentityOnly,
        },
        "PostToolUse" if p.flag("tool_error") => ToolError {
            error: tool_error(p).unwrap_or_else(|| format!("{} failed", tool.unwrap_or("tool"))),
        },
        "PostToolUse" => ToolFinished {
            tool: tool.map(str::to_string),
            tool_use_id: None,
        },
        "Notification" => notification(p),
        "AgentEnd" => match p.str("stop_reason") {
            Some("complete") => TurnStopped { summary: None },
            // Esc mid-turn: the turn ends without a reply (idle; an open gate dismissed).
            Some("aborted") => GateDismissed,
            Some("error") => TurnFailed {
                error: "MastraCode run failed".to_string(),
                usage_limit: false,
            },
            // The question tool suspended the run: the question is open.
            _ => IdentityOnly,
        },
        // Esc mid-turn; `AgentEnd` `aborted` follows.
        "Interrupt" => GateDismissed,
        "SessionEnd" => SessionEnded { reason: None },
        "Stop" | "SubagentStart" | "SubagentEnd" => IdentityOnly,
        _ => return Mapped::unknown(),
    };
    Mapped::known(kind)
}

/// `Notification` (`reason`, `message`): `ask_question` opens the question (its text the
/// message); `agent_done` and `tool_approval` repeat `AgentEnd` and `PermissionRequest`;
/// any other (`plan_approval`, `sandbox_access`) is a plain notification.
fn notification(p: &Payload<'_>) -> crate::model::SignalKind {
    let message = p.str("message").map(str::trim).filter(|m| !m.is_empty());
    match p.str("reason") {
        Some("ask_question") => QuestionAsked {
            prompt: message.unwrap_or("question").to_string(),
            options: Vec::new(),
            answer_keys: Vec::new(),
        },
        Some("agent_done" | "tool_approval") => IdentityOnly,
        reason => AgentNotification {
            text: message.or(reason).unwrap_or("notification").to_string(),
            gate: crate::model::GateRef::None,
        },
    }
}

/// A failed tool's `tool_output`: the text itself, or its `content`, shortened.
fn tool_error(p: &Payload<'_>) -> Option<String> {
    let output = p.get("tool_output")?;
    let text = match output {
        Value::String(s) => s.as_str(),
        Value::Object(o) => o.get("content").and_then(Value::as_str)?,
        _ => return None,
    };
    Some(shorten(text.trim())).filter(|t| !t.is_empty())
}
