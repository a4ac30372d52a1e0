//! Gemini CLI hooks (0.61.0 event order observed; payloads reconstructed from the field
//! lists) → signals. Rows and decisions: `docs/adapters.md` ("Gemini CLI").

use super::mapped::{identity_with, Mapped};
use super::notification::NotificationPolicy;
use super::payload::{allow_deny_keys, labels, non_empty, Payload};
use crate::model::{Identity, SignalKind::*};

/// The notification type of Gemini's approval dialog.
const TOOL_PERMISSION: &str = "ToolPermission";

/// What `AfterAgent` says as `prompt_response` when the turn produced no text.
const NO_RESPONSE: &str = "[no response text]";

/// Labels of Gemini's approval dialog ("Allow execution of [Shell]?").
const PERMISSION_OPTIONS: [&str; 3] = [
    "Allow once",
    "Allow for this session",
    "No, suggest changes",
];

/// Gemini identity: `session_id`, resume argv `["gemini","--resume"]` (Gemini resumes
/// the project's latest session), `cwd`.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    identity_with(p.str("session_id"), p.str("cwd"), |_| {
        vec!["gemini".into(), "--resume".into()]
    })
}

/// Maps one Gemini hook `event`. Gemini fires `SessionEnd` three times on one `/quit`;
/// each maps to the same signal and the engine makes the repeats no-ops.
pub(super) fn map(event: &str, p: &Payload<'_>, policy: &NotificationPolicy) -> Mapped {
    let tool = || p.str("tool_name").unwrap_or("tool").to_string();
    let kind = match event {
        // The reference names the field `source`; some docs call it `trigger`.
        "SessionStart" => SessionStarted {
            source: p.first_str(&["source", "trigger"]).map(str::to_string),
        },
        "SessionEnd" => SessionEnded {
            reason: p.first_str(&["reason", "trigger"]).map(str::to_string),
        },
        "BeforeAgent" => TurnStarted,
        // Gemini's placeholder for a turn that produced no text (an API error ended it):
        // nothing said.
        "AfterAgent" => TurnStopped {
            summary: p
                .str("prompt_response")
                .filter(|r| *r != NO_RESPONSE)
                .map(str::to_string),
        },
        "BeforeTool" => ToolStarted {
            tool: tool(),
            tool_use_id: p.str("tool_use_id").map(str::to_string),
        },
        "AfterTool" => ToolFinished {
            tool: Some(tool()),
            tool_use_id: p.str("tool_use_id").map(str::to_string),
        },
        "Notification" if p.str("notification_type") == Some(TOOL_PERMISSION) => {
            let prompt = p
                .at(&["details", "command"])
                .and_then(non_empty)
                .or_else(|| p.str("message"))
                .or_else(|| p.at(&["details", "title"]).and_then(non_empty))
                .unwrap_or("permission requested");
            PermissionRequested {
                prompt: prompt.to_string(),
                options: labels(&PERMISSION_OPTIONS),
                answer_keys: allow_deny_keys(),
                tool_use_id: None,
            }
        }
        "Notification" => policy.signal(p),
        // The hook client sends `llm_request` as `{model, message_count}` (the conversation
        // itself is not Attend's business); a payload straight from Gemini has `messages`.
        "BeforeModel" => ModelRequest {
            model: p
                .at(&["llm_request", "model"])
                .and_then(non_empty)
                .map(str::to_string),
            messages: p
                .at(&["llm_request", "message_count"])
                .and_then(serde_json::Value::as_u64)
                .or_else(|| {
                    p.at(&["llm_request", "messages"])
                        .and_then(serde_json::Value::as_array)
                        .map(|m| m.len() as u64)
                }),
        },
        "AfterModel" | "BeforeToolSelection" | "PreCompress" => IdentityOnly,
        _ => return Mapped::unknown(),
    };
    Mapped::known(kind)
}
