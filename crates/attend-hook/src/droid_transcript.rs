//! The reply text of a Factory Droid turn, for its `Stop` hook, whose payload carries none
//! (Droid 0.225.2; docs/adapters.md, "Factory Droid"): the hook client reads the end of
//! the session's transcript (`transcript_path`,
//! `~/.factory/sessions/<cwd>/<id>.jsonl`, one JSON record per line) and adds the turn's
//! last assistant text to the payload as `last_assistant_message` — Claude's field, which
//! the adapter's `Stop` row reads — before it is sent or spooled. Droid writes the reply's
//! record before it runs the `Stop` hook (recorded), so a turn without one is polled for
//! only [`WAIT`] (not Copilot's longer wait, which every text-less turn end would pay),
//! then left without. Bounded like Copilot's
//! ([`crate::transcript`]): the last [`crate::transcript::TAIL_BYTES`] only, at most
//! [`crate::transcript::MAX_TEXT`] bytes added. The text is the turn's reply, never a
//! measure of activity (docs/decisions/0001-rejected-oracles.md).

use crate::transcript::{cut, read_tail, transcript_of, POLL};
use serde_json::Value;
use std::time::{Duration, Instant};

/// How long a `Stop` without reply text in the transcript waits for one (Droid wrote it
/// before the hook ran in every recorded turn).
pub const WAIT: Duration = Duration::from_millis(120);

/// The field added to a `Stop` payload: Claude Code's name for the turn's last reply.
pub const LAST_MESSAGE_FIELD: &str = "last_assistant_message";

/// The text Droid puts before the context it adds to a user record (tool lists, skills,
/// the date): such a record is no prompt of the user's.
const REMINDER: &str = "<system-reminder>";

/// `payload` (a `Stop` JSON object) with [`LAST_MESSAGE_FIELD`] set to the turn's last
/// reply from the transcript its `transcript_path` names (an absolute path); unchanged
/// when it already has the field, is no object, names no transcript, or the transcript
/// has no reply text for the turn.
pub fn with_last_message(payload: String) -> String {
    let Some((mut map, path)) = transcript_of(&payload, "transcript_path", LAST_MESSAGE_FIELD)
    else {
        return payload;
    };
    let path = path.as_path();
    let deadline = Instant::now() + WAIT;
    let text = loop {
        let reply = read_tail(path).and_then(|tail| last_reply(&tail));
        match reply {
            Some(reply) => break reply,
            None if Instant::now() < deadline => std::thread::sleep(POLL),
            None => return payload,
        }
    };
    map.insert(LAST_MESSAGE_FIELD.into(), Value::String(cut(text)));
    Value::Object(map).to_string()
}

/// The text of the last assistant record of the turn in `lines` (JSON Lines), searched
/// from the end up to the user's prompt (a user record with text that is not a
/// `<system-reminder>`); hook records, tool results and assistant records that only call
/// tools are passed over. Several text parts are joined by a blank line.
pub fn last_reply(lines: &str) -> Option<String> {
    last_reply_by(lines, |record| {
        (record.get("type").and_then(Value::as_str) == Some("message"))
            .then(|| record.get("message"))
            .flatten()
    })
}

/// The last reply of a JSON-lines transcript whose records hold a `{role, content}`
/// message where `message_of` finds it (`None`: not a message record): read back from
/// the end, the first assistant message with text, unless a user message with text other
/// than a system reminder comes first (`None`: the turn has no reply). Shared by the
/// transcript readers of Droid and Kimi Code CLI (`crate::kimi_transcript`).
pub fn last_reply_by(lines: &str, message_of: impl Fn(&Value) -> Option<&Value>) -> Option<String> {
    for line in lines.lines().rev() {
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let Some(message) = message_of(&record) else {
            continue;
        };
        let texts: Vec<&str> = message
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|part| part.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect();
        match message.get("role").and_then(Value::as_str) {
            Some("assistant") if !texts.is_empty() => return Some(texts.join("\n\n")),
            Some("user") if texts.iter().any(|t| !t.starts_with(REMINDER)) => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(role: &str, content: Value) -> String {
        json!({"type": "message", "message": {"role": role, "content": content}}).to_string() + "\n"
    }

    fn text(role: &str, t: &str) -> String {
        record(role, json!([{"type": "text", "text": t}]))
    }

    /// A hook's record, as Droid writes it after the hook ran.
    fn hook(event: &str) -> String {
        json!({"type": "message", "message": {"role": "user", "content": [],
            "hookEventName": event}})
        .to_string()
            + "\n"
    }

    #[test]
    fn the_turns_last_reply_is_found_past_hooks_and_tool_results() {
        // As Droid 0.225.2 wrote a turn with two tool calls (recorded).
        let turn = [
            hook("SessionStart"),
            text("user", "<system-reminder>\nThe tools listed below"),
            text("user", "Run echo hi, then false"),
            record(
                "assistant",
                json!([{"type": "tool_use", "name": "Execute"}]),
            ),
            hook("PreToolUse"),
            hook("PostToolUse"),
            record("user", json!([{"type": "tool_result", "content": "hi"}])),
            text("assistant", "Both commands ran."),
        ]
        .concat();
        assert_eq!(last_reply(&turn).as_deref(), Some("Both commands ran."));
        // Only tool calls since the prompt: the previous turn's text is not this turn's.
        let tools_only = [
            text("user", "hi"),
            text("assistant", "Old."),
            text("user", "again"),
            record(
                "assistant",
                json!([{"type": "tool_use", "name": "Execute"}]),
            ),
        ]
        .concat();
        assert_eq!(last_reply(&tools_only), None);
        assert_eq!(last_reply("not json\n{\"type\": 1}\n"), None);
    }

    #[test]
    fn the_field_is_added_from_the_transcript_and_nothing_else_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.jsonl");
        std::fs::write(
            &path,
            [text("user", "hi"), text("assistant", "Hello.")].concat(),
        )
        .unwrap();
        let payload = json!({"hook_event_name": "Stop", "session_id": "s1",
            "transcript_path": path});
        let out: Value = serde_json::from_str(&with_last_message(payload.to_string())).unwrap();
        assert_eq!(out[LAST_MESSAGE_FIELD], "Hello.");
        assert_eq!(out["session_id"], "s1");
        for unchanged in [
            json!({"transcript_path": "/dev/zero"}).to_string(),
            json!({"transcript_path": dir.path().join("missing.jsonl")}).to_string(),
            json!({"transcript_path": "session.jsonl"}).to_string(),
            json!({"transcript_path": path, LAST_MESSAGE_FIELD: "kept"}).to_string(),
            "[1]".to_string(),
        ] {
            assert_eq!(with_last_message(unchanged.clone()), unchanged);
        }
    }
}
