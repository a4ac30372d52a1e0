//! OpenCode (1.18.33 recorded) → signals. OpenCode has no hook commands: Attend's plugin
//! (`data/opencode/attend.js`) runs `attend-hook opencode EVENT` for its lifecycle events
//! only. A bus event arrives as OpenCode publishes it (`{id, type, properties}`), a plugin
//! hook as `{input, output}`; the plugin adds `cwd` (its `directory`), the last assistant
//! text to `session.idle` (`last_assistant_message`), the guarded tool call to a reply
//! (`tool`) and, for a subagent's session, `parentID`.
//!
//! Rows and decisions: `docs/adapters.md` ("OpenCode").

use super::mapped::{identity_with, Mapped};
use super::payload::{allow_deny_keys, labels, non_empty, render, shorten, Payload};
use crate::model::{subagent_scope, Identity, SignalKind::*};
use serde_json::Value;

/// Labels of OpenCode's permission dialog (`△ Permission required`), left to right.
const PERMISSION_OPTIONS: [&str; 3] = ["Allow once", "Allow always", "Reject"];

/// The `session.error` name of a turn the user interrupted (Esc twice).
const ABORTED: &str = "MessageAbortedError";

/// OpenCode identity: the session (`properties.sessionID`, `properties.info.id` of
/// `session.created`, `input.sessionID` of a plugin hook; a subagent's events carry the
/// pane's session as `parentID`), resume argv `["opencode","--session",<id>]`, `cwd` (the
/// plugin's directory, else the session's `directory`).
pub(super) fn identity(event: &str, p: &Payload<'_>) -> Identity {
    identity_of("opencode", event, p)
}

/// [`identity`] of an agent that runs the same plugin (OpenCode, or its fork Kilo Code),
/// `program` first in the resume argv (`[program,"--session",<id>]`).
pub(super) fn identity_of(program: &str, event: &str, p: &Payload<'_>) -> Identity {
    let session = p
        .str("parentID")
        .or_else(|| p.at(&["properties", "sessionID"]).and_then(non_empty))
        .or_else(|| {
            (event == "session.created")
                .then(|| p.at(&["properties", "info", "id"]).and_then(non_empty))
                .flatten()
        })
        .or_else(|| p.at(&["input", "sessionID"]).and_then(non_empty));
    let cwd = p.str("cwd").or_else(|| {
        p.at(&["properties", "info", "directory"])
            .and_then(non_empty)
    });
    identity_with(session, cwd, |id| {
        vec![program.into(), "--session".into(), id.into()]
    })
}

/// Maps one OpenCode event.
pub(super) fn map(event: &str, p: &Payload<'_>) -> Mapped {
    let prop = |key: &str| p.at(&["properties", key]).and_then(non_empty);
    let input = |key: &str| p.at(&["input", key]).and_then(non_empty);
    let kind = match event {
        "session.created" => SessionStarted { source: None },
        "chat.message" => TurnStarted,
        "session.status" => match p
            .at(&["properties", "status", "type"])
            .and_then(Value::as_str)
        {
            Some("busy") => TurnStarted,
            Some("retry") => Warning {
                text: retry_text(p),
            },
            _ => IdentityOnly,
        },
        "tool.execute.before" => ToolStarted {
            tool: input("tool").unwrap_or("tool").to_string(),
            tool_use_id: input("callID").map(str::to_string),
        },
        "tool.execute.after" => ToolFinished {
            tool: Some(input("tool").unwrap_or("tool").to_string()),
            tool_use_id: input("callID").map(str::to_string),
        },
        "permission.asked" => PermissionRequested {
            prompt: permission_prompt(p),
            options: labels(&PERMISSION_OPTIONS),
            answer_keys: allow_deny_keys(),
            tool_use_id: gated_call(p, &["properties", "tool", "callID"]),
        },
        // Allowed (once or always): the tool runs now, which approves the gate as its
        // finish would (the plugin names the call the request guarded). Rejected: the
        // tool errs without `tool.execute.after` and the turn ends (`session.idle`).
        "permission.replied" => match prop("reply") {
            Some("reject") => GateDismissed,
            _ => ToolFinished {
                tool: None,
                tool_use_id: gated_call(p, &["tool", "callID"]),
            },
        },
        "question.asked" => question(p),
        // The answer reaches the model, which goes on (as Claude's answered question).
        "question.replied" => TurnStarted,
        "question.rejected" => GateDismissed,
        "session.idle" => TurnStopped {
            summary: p.str("last_assistant_message").map(str::to_string),
        },
        "session.error" => match p
            .at(&["properties", "error", "name"])
            .and_then(Value::as_str)
        {
            Some(ABORTED) => GateDismissed,
            _ => failure(p),
        },
        _ => return Mapped::unknown(),
    };
    Mapped::known(kind)
}

/// The id of the tool call a gate guards: the subagent's scope for a subagent's session
/// (`parentID` present: its gate is the subagent's, `docs/lifecycle-attention.md#subagent-gates`),
/// else the call id at `path`.
fn gated_call(p: &Payload<'_>, path: &[&str]) -> Option<String> {
    if p.str("parentID").is_some() {
        let child = p.at(&["properties", "sessionID"]).and_then(non_empty)?;
        return Some(subagent_scope(child));
    }
    p.at(path).and_then(non_empty).map(str::to_string)
}

/// `"<permission>: <what>"`: the command (`metadata.command`), else the file
/// (`metadata.filepath`), else the patterns asked for; just the permission without them.
fn permission_prompt(p: &Payload<'_>) -> String {
    let permission = p
        .at(&["properties", "permission"])
        .and_then(non_empty)
        .unwrap_or("tool");
    let what = p
        .at(&["properties", "metadata", "command"])
        .or_else(|| p.at(&["properties", "metadata", "filepath"]))
        .or_else(|| p.at(&["properties", "patterns"]))
        .filter(|v| !v.is_null())
        .map(render)
        .filter(|w| !w.is_empty());
    match what {
        Some(w) => format!("{permission}: {w}"),
        None => permission.to_string(),
    }
}

/// The first question of a `question.asked` and its options' labels (more questions:
/// `(+N more)` after the first).
fn question(p: &Payload<'_>) -> crate::model::SignalKind {
    let questions = p
        .at(&["properties", "questions"])
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let first = questions.first();
    let text = first
        .and_then(|q| q.get("question"))
        .and_then(non_empty)
        .unwrap_or("question");
    let prompt = match questions.len() {
        0 | 1 => shorten(text),
        n => format!("{} (+{} more)", shorten(text), n - 1),
    };
    let options = first
        .and_then(|q| q.get("options"))
        .and_then(Value::as_array)
        .map(|options| {
            options
                .iter()
                .filter_map(|o| o.get("label").and_then(non_empty))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    QuestionAsked {
        prompt,
        options,
        answer_keys: Vec::new(),
    }
}

/// A `session.status` `retry`: the provider's message and the attempt
/// (`"The server is overloaded (retry 2)"`).
fn retry_text(p: &Payload<'_>) -> String {
    let status = |key: &str| p.at(&["properties", "status", key]);
    let message = status("message")
        .and_then(non_empty)
        .map_or_else(|| "the model request failed".to_string(), shorten);
    match status("attempt").and_then(Value::as_u64) {
        Some(n) => format!("{message} (retry {n})"),
        None => format!("{message} (retrying)"),
    }
}

/// A `session.error` other than an interruption: the turn failed. The message says what
/// failed and what the provider said: `API error (HTTP 401): Incorrect API key provided`;
/// HTTP 429 is a usage limit.
fn failure(p: &Payload<'_>) -> crate::model::SignalKind {
    let error = p.at(&["properties", "error"]);
    let data = |key: &str| error.and_then(|e| e.get("data")).and_then(|d| d.get(key));
    let name = error
        .and_then(|e| e.get("name"))
        .and_then(non_empty)
        .unwrap_or("error");
    let status = data("statusCode").and_then(Value::as_u64);
    let what = match (name, status) {
        ("APIError", Some(code)) => format!("API error (HTTP {code})"),
        ("APIError", None) => "API error".to_string(),
        ("ProviderAuthError", _) => "authentication failed".to_string(),
        (other, _) => other.to_string(),
    };
    TurnFailed {
        error: match data("message").and_then(non_empty) {
            Some(m) => format!("{what}: {}", shorten(m)),
            None => what,
        },
        usage_limit: status == Some(429),
    }
}
