//! oh-my-pi (18.2.3 recorded) → signals. oh-my-pi (`omp`) is a fork of pi that loads the
//! same TypeScript extensions: Attend's pi extension (`data/pi/attend.ts`, installed with
//! `attend-hook omp` in its hook line) sends pi's payloads, and [`super::pi::map`] maps
//! them. Two things differ, both handled in the extension and here:
//!
//! - omp settles a run with `agent_end` (it has no `agent_settled`): the extension sends
//!   `agent_settled` from it, with `aborted` when the run's last assistant message stopped
//!   as `aborted` (Esc), and nothing when omp says the run goes on (`willContinue`).
//! - omp asks before a tool runs (its `tools.approvalMode` setting): the extension sends
//!   `tool_approval_requested` (with the call's arguments, remembered from
//!   `tool_execution_start`, which omp fires first) and `tool_approval_resolved`.
//! - omp's question tool `ask` waits for the user in a dialog, with no event of its own:
//!   the extension sends `ask`'s arguments with its `tool_execution_start` (`tool_input`),
//!   read here as the question; its `tool_execution_end` closes it (the run goes on).
//!
//! Rows and decisions: `docs/adapters.md` ("oh-my-pi").

use super::mapped::{identity_with, Mapped};
use super::payload::{allow_deny_keys, labels, shorten, tool_prompt, Payload};
use super::pi;
use crate::model::{Identity, SignalKind, SignalKind::*};
use serde_json::Value;

/// The choices of omp's approval dialog ("Allow tool: bash": `Approve`, `Deny`).
const PERMISSION_OPTIONS: [&str; 2] = ["Approve", "Deny"];

/// omp identity: the session (`session_id`), resume argv `["omp","--resume",<id>]`,
/// `cwd`.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    identity_with(p.str("session_id"), p.str("cwd"), |id| {
        vec!["omp".into(), "--resume".into(), id.into()]
    })
}

/// Maps one event of Attend's extension running in omp: the approval events and `ask`'s
/// start and end here, every other one as pi's ([`pi::map`]).
pub(super) fn map(event: &str, p: &Payload<'_>) -> Mapped {
    let tool = p.str("tool_name").unwrap_or("tool");
    let call = p.str("tool_call_id").map(str::to_string);
    let kind = match event {
        "tool_approval_requested" => PermissionRequested {
            prompt: tool_prompt(tool, p.get("tool_input")),
            options: labels(&PERMISSION_OPTIONS),
            answer_keys: allow_deny_keys(),
            tool_use_id: call,
        },
        // Approved: the tool runs now, which approves the gate as its finish would.
        // Denied: the model hears so and the run goes on.
        "tool_approval_resolved" if p.flag("approved") => ToolFinished {
            tool: Some(tool.to_string()),
            tool_use_id: call,
        },
        "tool_approval_resolved" => GateDenied,
        "tool_execution_start" if tool == "ask" => question(p.get("tool_input")),
        // Answered (or cancelled): the run goes on, and the question is closed. The
        // extension does not wait for its hook runs, so this may come after the run's
        // end: `GateDenied` closes the question and moves only a blocked pane to working.
        "tool_execution_end" if tool == "ask" => GateDenied,
        _ => return pi::map(event, p),
    };
    Mapped::known(kind)
}

/// The question of an `ask` call (`{questions: [{question, options: [{label}]}]}`): its
/// dialog shows the first question first. Answer keys are left empty: the answer picks
/// from the dialog on screen (`data/manifests/omp.toml`, rule `ask`), which also offers
/// omp's own "Other (type your own)".
fn question(input: Option<&Value>) -> SignalKind {
    let first = input
        .and_then(|i| i.get("questions"))
        .and_then(Value::as_array)
        .and_then(|q| q.first());
    let text = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(shorten)
    };
    let options = first
        .and_then(|q| q.get("options"))
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(|o| text(o.get("label"))).collect())
        .unwrap_or_default();
    QuestionAsked {
        prompt: text(first.and_then(|q| q.get("question")))
            .unwrap_or_else(|| "omp is asking a question".into()),
        options,
        answer_keys: Vec::new(),
    }
}
