//! Cline CLI (3.0.65 recorded) hooks → signals. Cline runs one hook file per event from
//! its hooks directories (`~/.cline/hooks/TaskStart`, …); Attend's files run `attend-hook
//! cline <Event>`, so the event is the file's name (the EVENT argument). Its payloads are
//! camelCase and name the event by `hookName` (`agent_start`, `tool_call`, …, [`event_of`]),
//! the session by `sessionContext.rootSessionId`, the workspace by
//! `workspaceInfo.rootPath`; a subagent's events carry a `parent_agent_id`.
//!
//! No hook reports its approval dialog ("Approve tool call?", `PreToolUse` fires before
//! it): the screen manifest (`data/manifests/cline.toml`) opens that gate. Esc mid-turn
//! fires `SessionShutdown` while the session goes on: an interrupt.
//!
//! Rows and decisions: `docs/adapters.md` ("Cline CLI").

use super::mapped::{identity_with, Mapped};
use super::payload::{non_empty, render, shorten, Payload};
use crate::model::{subagent_scope, Identity, SignalKind, SignalKind::*};
use serde_json::Value;

/// Cline's question tool: its call opens a question (its dialog "Cline is asking a
/// question"), not a tool run.
const ASK_QUESTION: &str = "ask_question";

/// What Cline's tool result says of a call the human denied in the approval dialog
/// ("This tool call was rejected by the user and not executed. …").
const REJECTED: &str = "rejected by the user";

/// The hook file names (the events) and the `hookName` each sends, in Cline's order.
/// `PreCompact` sends no `hookName` of its own.
pub(super) const EVENTS: [(&str, &str); 9] = [
    ("TaskStart", "agent_start"),
    ("TaskResume", "agent_resume"),
    ("TaskCancel", "agent_abort"),
    ("TaskComplete", "agent_end"),
    ("TaskError", "agent_error"),
    ("PreToolUse", "tool_call"),
    ("PostToolUse", "tool_result"),
    ("UserPromptSubmit", "prompt_submit"),
    ("SessionShutdown", "session_shutdown"),
];

/// The event (hook file name) of a payload's `hookName`, for a payload delivered without
/// the EVENT argument (`attend hook cline < payload`).
pub(super) fn event_of(hook_name: &str) -> Option<&'static str> {
    EVENTS
        .iter()
        .find(|(_, name)| *name == hook_name)
        .map(|(event, _)| *event)
}

/// Cline identity: the session (`sessionContext.rootSessionId`, what `cline --id` takes),
/// resume argv `["cline","--id",<id>]`, the workspace (`workspaceInfo.rootPath`, else the
/// first of `workspaceRoots`).
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    let session = p
        .at(&["sessionContext", "rootSessionId"])
        .and_then(non_empty);
    let cwd = p
        .at(&["workspaceInfo", "rootPath"])
        .and_then(non_empty)
        .or_else(|| {
            p.get("workspaceRoots")
                .and_then(Value::as_array)
                .and_then(|roots| roots.first())
                .and_then(non_empty)
        });
    identity_with(session, cwd, |id| {
        vec!["cline".into(), "--id".into(), id.into()]
    })
}

/// Maps one Cline hook `event` (the table of `docs/adapters.md`, "Cline CLI").
pub(super) fn map(event: &str, p: &Payload<'_>) -> Mapped {
    // A subagent's run (spawned by the main agent) starts and ends inside the main
    // agent's turn; its tools are the pane's, scoped to it.
    let subagent = p.str("parent_agent_id").and(p.str("agent_id"));
    let kind = match event {
        "TaskStart" | "TaskResume" | "UserPromptSubmit" | "TaskComplete" | "TaskError"
        | "TaskCancel" | "SessionShutdown"
            if subagent.is_some() =>
        {
            IdentityOnly
        }
        // TaskResume: every run of a session resumed with `cline --id`.
        "TaskStart" | "TaskResume" | "UserPromptSubmit" => TurnStarted,
        "PreToolUse" => tool_started(p, subagent),
        "PostToolUse" => tool_finished(p, subagent),
        "TaskComplete" => TurnStopped {
            summary: p
                .at(&["turn", "outputText"])
                .and_then(non_empty)
                .map(|t| t.trim().to_string()),
        },
        "TaskError" => {
            let message = p
                .at(&["error", "message"])
                .and_then(non_empty)
                .map(|m| shorten(m.trim()))
                .unwrap_or_else(|| "the run failed".into());
            TurnFailed {
                usage_limit: is_usage_limit(&message),
                error: format!("API error: {message}"),
            }
        }
        // Esc mid-turn: the run was aborted (TaskCancel only when its reason names the
        // cancel; SessionShutdown always), the session goes on: idle, an open gate
        // dismissed. Cline fires no hook when it exits (`/exit`): the process exit ends it.
        "TaskCancel" | "SessionShutdown" => GateDismissed,
        "PreCompact" => IdentityOnly,
        _ => return Mapped::unknown(),
    };
    Mapped::known(kind)
}

/// `PreToolUse`: the tool starts (`tool_call` `{id, name, input}`); `ask_question` opens
/// its question (`input` `{question, options}`).
fn tool_started(p: &Payload<'_>, subagent: Option<&str>) -> SignalKind {
    let name = p.at(&["tool_call", "name"]).and_then(non_empty);
    if name == Some(ASK_QUESTION) {
        return question(p.at(&["tool_call", "input"]));
    }
    ToolStarted {
        tool: name.unwrap_or("tool").to_string(),
        tool_use_id: call_id(p, "tool_call", subagent),
    }
}

/// `PostToolUse` (`tool_result` `{id, name, input, output, error?}`): the tool finished;
/// the call the human denied in the dialog → the gate was denied and the turn goes on; a
/// failed call → a tool error; the question answered → the turn goes on.
fn tool_finished(p: &Payload<'_>, subagent: Option<&str>) -> SignalKind {
    let name = p.at(&["tool_result", "name"]).and_then(non_empty);
    if name == Some(ASK_QUESTION) {
        return TurnStarted;
    }
    let failed = p
        .at(&["tool_result", "error"])
        .is_some_and(|e| !e.is_null())
        || p.at(&["postToolUse", "success"]).and_then(Value::as_bool) == Some(false);
    match failed.then(|| error_text(p)) {
        Some(error) if error.contains(REJECTED) => GateDenied,
        Some(error) => ToolError { error },
        None => ToolFinished {
            tool: Some(name.unwrap_or("tool").to_string()),
            tool_use_id: call_id(p, "tool_result", subagent),
        },
    }
}

/// The call id of `tool_call`/`tool_result`, or the subagent's scope for a subagent's
/// call (`docs/lifecycle-attention.md#subagent-gates`).
fn call_id(p: &Payload<'_>, field: &str, subagent: Option<&str>) -> Option<String> {
    match subagent {
        Some(agent) => Some(subagent_scope(agent)),
        None => p.at(&[field, "id"]).and_then(non_empty).map(str::to_string),
    }
}

/// A failed call's words: the output's `error` (an object `{error: "…"}`), else the
/// output as text, else the record's `error` (`String(output)`: `"[object Object]"` for an
/// object, so last), else `"<tool> failed"`.
fn error_text(p: &Payload<'_>) -> String {
    let output = p.at(&["tool_result", "output"]);
    output
        .and_then(|o| o.get("error"))
        .and_then(non_empty)
        .map(|e| shorten(e.trim()))
        .or_else(|| output.and_then(non_empty).map(|o| shorten(o.trim())))
        .or_else(|| {
            p.at(&["tool_result", "error"])
                .filter(|e| !e.is_null())
                .map(render)
        })
        .filter(|e| !e.is_empty())
        .unwrap_or_else(|| {
            let tool = p.at(&["tool_result", "name"]).and_then(non_empty);
            format!("{} failed", tool.unwrap_or("tool"))
        })
}

/// The question of `ask_question` (`{question, options}`, options as strings or
/// `{label}` objects). Answer keys are left empty: the answer picks from the dialog on
/// screen (`data/manifests/cline.toml`).
fn question(input: Option<&Value>) -> SignalKind {
    let prompt = input
        .and_then(|i| i.get("question"))
        .and_then(non_empty)
        .map(|q| shorten(q.trim()))
        .unwrap_or_else(|| "Cline is asking a question".into());
    let options = input
        .and_then(|i| i.get("options"))
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|o| non_empty(o).or_else(|| o.get("label").and_then(non_empty)))
                .map(|o| shorten(o.trim()))
                .collect()
        })
        .unwrap_or_default();
    QuestionAsked {
        prompt,
        options,
        answer_keys: Vec::new(),
    }
}

/// True for a provider's rate or usage limit (`429 …`, "rate limit", "quota").
fn is_usage_limit(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    lower.starts_with("429")
        || lower.contains(" 429")
        || lower.contains("rate limit")
        || lower.contains("usage limit")
        || lower.contains("quota")
}
