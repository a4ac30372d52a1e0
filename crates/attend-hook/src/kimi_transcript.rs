//! The reply text of a Kimi Code CLI turn, for its `Stop` hook, whose payload carries none
//! (Kimi 2.1.0; docs/adapters.md, "Kimi Code CLI"): the hook client reads the end of the
//! session's wire log — `$KIMI_CODE_HOME` (else `~/.kimi-code`)
//! `/sessions/<workspace>/<session_id>/agents/main/wire.jsonl`, one JSON record per line,
//! the hook inheriting the agent's environment — and adds the turn's last assistant text
//! to the payload as `last_assistant_message` (Claude's field, which the adapter's `Stop`
//! row reads) before it is sent or spooled. Kimi appends the reply's record before it runs
//! `Stop` (recorded); a turn without one is polled for only [`WAIT`]. Bounded like
//! Copilot's ([`crate::transcript`]): the last [`crate::transcript::TAIL_BYTES`] only, at
//! most [`crate::transcript::MAX_TEXT`] bytes added. The text is the turn's reply, never a
//! measure of activity (docs/decisions/0001-rejected-oracles.md).

use crate::transcript::{cut, read_tail, POLL};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a `Stop` without reply text in the wire log waits for one.
pub const WAIT: Duration = Duration::from_millis(300);

/// The field added to a `Stop` payload: Claude Code's name for the turn's last reply.
pub const LAST_MESSAGE_FIELD: &str = "last_assistant_message";

/// `payload` (a `Stop` JSON object) with [`LAST_MESSAGE_FIELD`] set to the turn's last
/// reply from the wire log of its `session_id` under `kimi_home` ([`home_from_env`]);
/// unchanged when it already has the field, is no object, names no usable session id, or
/// the log has no reply text for the turn.
pub fn with_last_message(payload: String, kimi_home: Option<&Path>) -> String {
    let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(&payload) else {
        return payload;
    };
    if map.contains_key(LAST_MESSAGE_FIELD) {
        return payload;
    }
    let Some(session) = map.get("session_id").and_then(Value::as_str) else {
        return payload;
    };
    let Some(path) = kimi_home.and_then(|home| wire_log(home, session)) else {
        return payload;
    };
    let deadline = Instant::now() + WAIT;
    let text = loop {
        match read_tail(&path).and_then(|tail| last_reply(&tail)) {
            Some(reply) => break reply,
            None if Instant::now() < deadline => std::thread::sleep(POLL),
            None => return payload,
        }
    };
    map.insert(LAST_MESSAGE_FIELD.into(), Value::String(cut(text)));
    Value::Object(map).to_string()
}

/// Kimi's data directory as the hook process sees it: `$KIMI_CODE_HOME` when set and
/// absolute, else `$HOME/.kimi-code`.
pub fn home_from_env() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    match var("KIMI_CODE_HOME") {
        Some(home) if home.is_absolute() => Some(home),
        _ => var("HOME")
            .filter(|h| h.is_absolute())
            .map(|h| h.join(".kimi-code")),
    }
}

/// `<home>/sessions/<workspace>/<session>/agents/main/wire.jsonl` for the one workspace
/// directory that holds the session; `None` for a session id that is no plain file name.
fn wire_log(home: &Path, session: &str) -> Option<PathBuf> {
    let plain = !session.is_empty()
        && session
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !plain {
        return None;
    }
    std::fs::read_dir(home.join("sessions"))
        .ok()?
        .flatten()
        .map(|workspace| {
            workspace
                .path()
                .join(session)
                .join("agents/main/wire.jsonl")
        })
        .find(|path| path.is_file())
}

/// The text of the last assistant message of the turn in `lines` (the wire log's
/// `agent.message.appended` records), searched from the end up to the user's prompt (a
/// user message with text that is not a `<system-reminder>`); tool results and assistant
/// messages that only call tools are passed over. Several text parts are joined by a blank
/// line.
pub fn last_reply(lines: &str) -> Option<String> {
    crate::droid_transcript::last_reply_by(lines, |record| {
        (record.get("type").and_then(Value::as_str) == Some("agent.message.appended"))
            .then(|| record.pointer("/message/message"))
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn appended(role: &str, content: Value) -> String {
        json!({"message": {"message": {"role": role, "content": content}},
            "type": "agent.message.appended", "kind": "event"})
        .to_string()
            + "\n"
    }

    fn text(role: &str, t: &str) -> String {
        appended(role, json!([{"type": "text", "text": t}]))
    }

    #[test]
    fn the_turns_last_reply_is_found_past_tool_calls_and_results() {
        // As Kimi 2.1.0 wrote a turn with one approved command (recorded, shortened).
        let turn = [
            text("user", "write the file"),
            r#"{"type":"context.append_message","agentId":"main"}"#.to_string() + "\n",
            text("user", "<system-reminder>\nToday's date is …"),
            appended("assistant", json!([])),
            text("tool", "Command executed successfully."),
            text("assistant", "Done writing."),
            r#"{"turnId":0,"outcome":"done","type":"agent.turn.ended"}"#.to_string() + "\n",
        ]
        .concat();
        assert_eq!(last_reply(&turn).as_deref(), Some("Done writing."));
        let tools_only = [
            text("user", "hi"),
            text("assistant", "Old."),
            text("user", "again"),
            appended("assistant", json!([])),
        ]
        .concat();
        assert_eq!(last_reply(&tools_only), None);
        assert_eq!(last_reply("not json\n{\"type\": 1}\n"), None);
    }

    #[test]
    fn the_field_is_added_from_the_sessions_wire_log_and_nothing_else_changes() {
        let home = tempfile::tempdir().unwrap();
        let dir = home
            .path()
            .join("sessions/wd_proj_1/session_abc/agents/main");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("wire.jsonl"),
            [text("user", "hi"), text("assistant", "Hello.")].concat(),
        )
        .unwrap();
        let payload = json!({"hook_event_name": "Stop", "session_id": "session_abc"});
        let out: Value =
            serde_json::from_str(&with_last_message(payload.to_string(), Some(home.path())))
                .unwrap();
        assert_eq!(out[LAST_MESSAGE_FIELD], "Hello.");
        assert_eq!(out["session_id"], "session_abc");
        for unchanged in [
            json!({"session_id": "session_other"}).to_string(),
            json!({"session_id": "../session_abc"}).to_string(),
            json!({"session_id": "session_abc", LAST_MESSAGE_FIELD: "kept"}).to_string(),
            json!({"hook_event_name": "Stop"}).to_string(),
            "[1]".to_string(),
        ] {
            assert_eq!(
                with_last_message(unchanged.clone(), Some(home.path())),
                unchanged
            );
        }
        let none = payload.to_string();
        assert_eq!(with_last_message(none.clone(), None), none);
    }
}
