//! The reply text of an aider turn and its working directory, for its notification
//! command, which gets no payload (aider 0.86.2; docs/adapters.md, "aider"): Attend's
//! command passes `{}`, and the hook client adds `cwd` (its own working directory, which
//! aider's shell hands down) and `last_assistant_message`, the turn's reply read from the
//! end of aider's chat history, `.aider.chat.history.md` in that directory or the nearest
//! parent up to the git top level (where aider writes it by default). In that Markdown
//! file a user message is a `#### ` line, aider's own output a `> ` line, and the model's
//! reply the plain lines after the last user message. Bounded like Copilot's
//! ([`crate::transcript`]): the last [`crate::transcript::TAIL_BYTES`] only, at most
//! [`crate::transcript::MAX_TEXT`] bytes added. The text is the turn's reply, never a
//! measure of activity (docs/decisions/0001-rejected-oracles.md).

use crate::transcript::{cut, read_tail};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The file name of aider's chat history.
pub const HISTORY_FILE: &str = ".aider.chat.history.md";

/// The field added to the payload: Claude Code's name for the turn's last reply.
pub const LAST_MESSAGE_FIELD: &str = "last_assistant_message";

/// `payload` (a JSON object) with `cwd` set to `cwd` and [`LAST_MESSAGE_FIELD`] to the
/// last reply of the chat history found from `cwd`; a field it already has is kept;
/// unchanged when it is no object.
pub fn with_last_message(payload: String, cwd: Option<&Path>) -> String {
    let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(&payload) else {
        return payload;
    };
    let Some(cwd) = cwd else {
        return payload;
    };
    if !map.contains_key("cwd") {
        if let Some(dir) = cwd.to_str() {
            map.insert("cwd".into(), Value::String(dir.into()));
        }
    }
    if !map.contains_key(LAST_MESSAGE_FIELD) {
        if let Some(reply) = history_file(cwd)
            .and_then(|path| read_tail(&path))
            .and_then(|tail| last_reply(&tail))
        {
            map.insert(LAST_MESSAGE_FIELD.into(), Value::String(cut(reply)));
        }
    }
    Value::Object(map).to_string()
}

/// The chat history in `dir` or its nearest parent that has one, looking no higher than
/// the first directory holding `.git`.
fn history_file(dir: &Path) -> Option<PathBuf> {
    for d in dir.ancestors() {
        let path = d.join(HISTORY_FILE);
        if path.is_file() {
            return Some(path);
        }
        if d.join(".git").exists() {
            return None;
        }
    }
    None
}

/// The model's reply after the last user message (`#### `) of a chat history's tail: its
/// plain lines (not aider's `> ` lines), trimmed; `None` when there is none.
pub fn last_reply(history: &str) -> Option<String> {
    let after = history
        .rfind("\n#### ")
        .map(|at| &history[at + 1..])
        .or_else(|| history.starts_with("#### ").then_some(history))?;
    let reply: Vec<&str> = after
        .lines()
        .skip_while(|l| l.starts_with("#### "))
        .filter(|l| !l.starts_with('>'))
        .collect();
    let text = reply.join("\n").trim().to_string();
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HISTORY: &str = "\n# aider chat started at 2026-12-07 07:53:28\n\n> Aider v0.86.2  \n\n#### say hi  \n\nDone: offline reply.\n\n> Tokens: 581 sent, 5 received.  \n";

    #[test]
    fn the_reply_is_the_plain_text_after_the_last_user_message() {
        assert_eq!(last_reply(HISTORY).as_deref(), Some("Done: offline reply."));
        let two =
            format!("{HISTORY}\n#### again  \n\nFirst line.\n\nSecond line.\n\n> Tokens: 1\n");
        assert_eq!(
            last_reply(&two).as_deref(),
            Some("First line.\n\nSecond line.")
        );
        assert_eq!(last_reply("#### only a question\n"), None);
        assert_eq!(last_reply("> aider output only\n"), None);
    }

    #[test]
    fn the_payload_gets_the_cwd_and_the_reply_of_the_history_found_there() {
        let dir = std::env::temp_dir().join(format!("attend-aider-history-{}", std::process::id()));
        let sub = dir.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(dir.join(HISTORY_FILE), HISTORY).unwrap();
        let out: Value = serde_json::from_str(&with_last_message("{}".into(), Some(&sub))).unwrap();
        assert_eq!(out["cwd"], sub.to_str().unwrap());
        assert_eq!(out[LAST_MESSAGE_FIELD], "Done: offline reply.");
        // A git top level without a history stops the search.
        std::fs::create_dir_all(sub.join(".git")).unwrap();
        let out: Value = serde_json::from_str(&with_last_message("{}".into(), Some(&sub))).unwrap();
        assert!(out.get(LAST_MESSAGE_FIELD).is_none(), "{out}");
        assert_eq!(with_last_message("[1]".into(), Some(&sub)), "[1]");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
