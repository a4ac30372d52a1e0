//! The reply text of a GitHub Copilot CLI turn, for its `agentStop` hook, whose payload
//! carries none (docs/adapters.md, "GitHub Copilot CLI"): the hook client reads the end of
//! the session's transcript (`transcriptPath`, `~/.copilot/session-state/<id>/events.jsonl`,
//! one JSON event per line) and adds the turn's last `assistant.message` text to the
//! payload as [`LAST_MESSAGE_FIELD`] before it is sent or spooled. The CLI writes the
//! transcript a moment behind (its first turn's reply reached the file after the hook
//! started, in runs recorded here): the turn is read once the transcript holds this hook's
//! own `hook.start` line (same `timestamp`), polled for at most [`WAIT`]; after that, what
//! is there. Bounded: only the last [`TAIL_BYTES`] of the file are read; nothing found (no
//! file, no such line there, a turn that ended without text) adds nothing. The text is
//! the turn's reply, never a measure of activity (docs/decisions/0001-rejected-oracles.md).

use serde_json::Value;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::{Duration, Instant};

/// How long the hook client waits for the transcript to reach this hook's `hook.start`
/// line, before its call's own `crate::client::DEADLINE` starts. Usually a few ms; 120 ms
/// were too few on a loaded machine (the CLI's event loop wrote the line later and the
/// turn's end went out without its reply), and the agent waits for this hook either way
/// (its hook timeout is 5 s).
pub const WAIT: Duration = Duration::from_millis(1000);

/// How often the transcript is read again while waiting.
pub(crate) const POLL: Duration = Duration::from_millis(10);

/// The field added to an `agentStop` payload: the turn's last reply text.
pub const LAST_MESSAGE_FIELD: &str = "lastAssistantMessage";

/// How much of the transcript's end is read (bytes). A reply longer than this is not
/// found whole and is left out.
pub const TAIL_BYTES: u64 = 256 * 1024;

/// The longest text added (bytes, cut on a character boundary): the daemon keeps 8 KiB of
/// any payload string.
pub const MAX_TEXT: usize = 8 * 1024;

/// `payload` (an `agentStop` JSON object) with [`LAST_MESSAGE_FIELD`] set to the last
/// reply of the turn from the transcript its `transcriptPath` names (an absolute path);
/// unchanged when it already has the field, is no object, names no transcript, or the
/// transcript has no reply text for the turn.
pub fn with_last_message(payload: String) -> String {
    let Some((mut map, path)) = transcript_of(&payload, "transcriptPath", LAST_MESSAGE_FIELD)
    else {
        return payload;
    };
    let path = path.as_path();
    let stamp = map.get("timestamp").and_then(Value::as_i64);
    let deadline = Instant::now() + WAIT;
    let text = loop {
        let tail = read_tail(path).unwrap_or_default();
        match turn_reply(&tail, stamp) {
            Some(reply) => break reply,
            None if Instant::now() < deadline => std::thread::sleep(POLL),
            None => break last_reply(&tail),
        }
    };
    let Some(text) = text else {
        return payload;
    };
    map.insert(LAST_MESSAGE_FIELD.into(), Value::String(cut(text)));
    Value::Object(map).to_string()
}

/// A turn-end payload's object and the absolute transcript path its `path_key` names;
/// `None` (send it as it is) when it is no JSON object, already has `field`, or names no
/// absolute path.
pub(crate) fn transcript_of(
    payload: &str,
    path_key: &str,
    field: &str,
) -> Option<(serde_json::Map<String, Value>, std::path::PathBuf)> {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(payload) else {
        return None;
    };
    if map.contains_key(field) {
        return None;
    }
    let path = Path::new(map.get(path_key)?.as_str()?).to_path_buf();
    path.is_absolute().then_some((map, path))
}

/// The last [`TAIL_BYTES`] of the regular file at `path`, without a first line cut in
/// half; `None` when it cannot be read or is no regular file (a payload may name any
/// path: a FIFO or a device is never opened for long, the open does not wait).
pub(crate) fn read_tail(path: &Path) -> Option<String> {
    use std::os::unix::fs::OpenOptionsExt;
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let start = meta.len().saturating_sub(TAIL_BYTES);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut bytes = Vec::new();
    file.take(TAIL_BYTES).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Some(match (start, text.find('\n')) {
        (0, _) => text,
        (_, Some(nl)) => text[nl + 1..].to_string(),
        (_, None) => String::new(),
    })
}

/// The turn's reply once the transcript holds the `hook.start` line of the `agentStop`
/// whose payload has `timestamp` (the reply of the lines before it, [`last_reply`]);
/// `None` while that line is not there yet.
pub fn turn_reply(lines: &str, timestamp: Option<i64>) -> Option<Option<String>> {
    let is_this_hook = |line: &str| {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            return false;
        };
        event.get("type").and_then(Value::as_str) == Some("hook.start")
            && event.pointer("/data/hookType").and_then(Value::as_str) == Some("agentStop")
            && event
                .pointer("/data/input/timestamp")
                .and_then(Value::as_i64)
                == timestamp
    };
    let at = lines
        .match_indices('\n')
        .map(|(i, _)| i)
        .chain(std::iter::once(lines.len()));
    let mut start = 0;
    for end in at {
        if is_this_hook(&lines[start..end]) {
            return Some(last_reply(&lines[..start]));
        }
        start = (end + 1).min(lines.len());
    }
    None
}

/// The text of the last `assistant.message` event of the turn in `lines` (JSON Lines):
/// searched from the end, up to the turn's `user.message`; messages that only call tools
/// (empty `content`) are skipped.
pub fn last_reply(lines: &str) -> Option<String> {
    for line in lines.lines().rev() {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        match event.get("type").and_then(Value::as_str) {
            Some("assistant.message") => {
                let content = event
                    .pointer("/data/content")
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|c| !c.is_empty());
                if let Some(c) = content {
                    return Some(c.to_string());
                }
            }
            Some("user.message") => return None,
            _ => {}
        }
    }
    None
}

/// `text` cut to at most [`MAX_TEXT`] bytes on a character boundary.
pub(crate) fn cut(text: String) -> String {
    if text.len() <= MAX_TEXT {
        return text;
    }
    let mut end = MAX_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(v: Value) -> String {
        v.to_string() + "\n"
    }

    fn user(text: &str) -> String {
        line(json!({"type": "user.message", "data": {"content": text}}))
    }

    fn reply(text: &str) -> String {
        line(json!({"type": "assistant.message", "data": {"content": text, "toolRequests": []}}))
    }

    /// On a loaded machine the CLI wrote the turn's reply and this hook's `hook.start`
    /// line a few hundred ms after the hook started: the client waits for them.
    #[test]
    fn a_transcript_written_late_still_gives_the_reply() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        std::fs::write(&path, user("hi")).unwrap();
        let stamp = 1_796_000_000_000i64;
        let late = path.clone();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(400));
            let hook = line(
                json!({"type": "hook.start", "data": {"hookType": "agentStop",
                "input": {"timestamp": stamp}}}),
            );
            let mut f = std::fs::OpenOptions::new().append(true).open(late).unwrap();
            std::io::Write::write_all(&mut f, (reply("Late reply.") + &hook).as_bytes()).unwrap();
        });
        let payload = json!({"timestamp": stamp, "transcriptPath": path}).to_string();
        let out: Value = serde_json::from_str(&with_last_message(payload)).unwrap();
        writer.join().unwrap();
        assert_eq!(out[LAST_MESSAGE_FIELD], "Late reply.");
    }

    #[test]
    fn the_turns_last_reply_is_found_and_a_turn_without_one_has_none() {
        let hook = line(json!({"type": "hook.start", "data": {"hookType": "agentStop"}}));
        let turn = [
            user("hi"),
            reply("first"),
            reply(""),
            reply("Done."),
            hook.clone(),
        ]
        .concat();
        assert_eq!(last_reply(&turn).as_deref(), Some("Done."));
        // Only tool calls since the prompt: the previous turn's text is not this turn's.
        let tools_only = [user("hi"), reply("Old."), user("again"), reply(""), hook].concat();
        assert_eq!(last_reply(&tools_only), None);
        assert_eq!(last_reply("not json\n{\"type\": 1}\n"), None);
    }

    fn hook_start(timestamp: i64) -> String {
        line(
            json!({"type": "hook.start", "data": {"hookType": "agentStop",
            "input": {"stopReason": "end_turn", "timestamp": timestamp}}}),
        )
    }

    #[test]
    fn the_turn_is_read_once_its_hook_line_is_written() {
        // The reply not written yet: wait.
        assert_eq!(turn_reply(&user("hi"), Some(7)), None);
        let written = [user("hi"), reply("Hello."), hook_start(7)].concat();
        assert_eq!(turn_reply(&written, Some(7)), Some(Some("Hello.".into())));
        // Another turn's hook line is not this one's.
        assert_eq!(turn_reply(&written, Some(8)), None);
        // What follows this hook's line (the next turn) is not its turn.
        let next = [written.clone(), user("again"), reply("Later.")].concat();
        assert_eq!(turn_reply(&next, Some(7)), Some(Some("Hello.".into())));
    }

    #[test]
    fn the_field_is_added_from_the_transcript_and_nothing_else_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        // A long start (the system prompt) beyond the tail: only the end is read.
        let filler =
            line(json!({"type": "system.message", "data": {"content": "x".repeat(300_000)}}));
        std::fs::write(
            &path,
            [filler, user("hi"), reply("Hello."), hook_start(5)].concat(),
        )
        .unwrap();
        let payload = json!({"sessionId": "s1", "transcriptPath": path, "timestamp": 5});
        let out: Value = serde_json::from_str(&with_last_message(payload.to_string())).unwrap();
        assert_eq!(out[LAST_MESSAGE_FIELD], "Hello.");
        assert_eq!(out["sessionId"], "s1");
        // No transcript, a relative path, no regular file, a field already there, no
        // object: as they are.
        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        for unchanged in [
            json!({"transcriptPath": fifo}).to_string(),
            json!({"transcriptPath": "/dev/zero"}).to_string(),
            json!({"transcriptPath": dir.path().join("missing.jsonl")}).to_string(),
            json!({"transcriptPath": "events.jsonl"}).to_string(),
            json!({"transcriptPath": path, LAST_MESSAGE_FIELD: "kept"}).to_string(),
            "[1]".to_string(),
        ] {
            assert_eq!(with_last_message(unchanged.clone()), unchanged);
        }
    }

    /// The CLI's first turn reached its transcript after the hook started (recorded).
    #[test]
    fn a_reply_written_a_moment_after_the_hook_started_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        std::fs::write(&path, user("hi")).unwrap();
        let late = path.clone();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            let mut f = std::fs::OpenOptions::new().append(true).open(late).unwrap();
            std::io::Write::write_all(&mut f, [reply("Late."), hook_start(9)].concat().as_bytes())
                .unwrap();
        });
        let payload = json!({"transcriptPath": path, "timestamp": 9}).to_string();
        let out: Value = serde_json::from_str(&with_last_message(payload)).unwrap();
        writer.join().unwrap();
        assert_eq!(out[LAST_MESSAGE_FIELD], "Late.");
    }

    #[test]
    fn a_long_reply_is_cut_on_a_character_boundary() {
        let long = "é".repeat(MAX_TEXT);
        let got = cut(long);
        assert!(got.len() <= MAX_TEXT && got.chars().all(|c| c == 'é'));
    }
}
