//! Lenient reading of a hook payload object: missing or mistyped fields read as absent,
//! never as errors (`docs/adapters.md#common-rules`: unknown fields are normal).

use crate::model::AnswerKey;
use serde_json::{Map, Value};

/// Longest rendering of a tool input or error detail kept in a prompt, in characters.
const MAX_RENDER_CHARS: usize = 200;

/// A borrowed payload object.
pub(super) struct Payload<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> Payload<'a> {
    pub(super) fn new(map: &'a Map<String, Value>) -> Payload<'a> {
        Payload { map }
    }

    /// The value at `key`, if any.
    pub(super) fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    /// The string at `key` when it is a non-empty string.
    pub(super) fn str(&self, key: &str) -> Option<&'a str> {
        non_empty(self.map.get(key)?)
    }

    /// The first non-empty string among `keys`.
    pub(super) fn first_str(&self, keys: &[&str]) -> Option<&'a str> {
        keys.iter().find_map(|k| self.str(k))
    }

    /// The value at `key` rendered as one short line ([`render`]), when present, not null
    /// and not empty.
    pub(super) fn text(&self, key: &str) -> Option<String> {
        self.map
            .get(key)
            .filter(|v| !v.is_null())
            .map(render)
            .filter(|t| !t.is_empty())
    }

    /// The boolean at `key`; false when absent or not a boolean.
    pub(super) fn flag(&self, key: &str) -> bool {
        self.map.get(key).and_then(Value::as_bool).unwrap_or(false)
    }

    /// The value at the object path `path` (`["details", "command"]`).
    pub(super) fn at(&self, path: &[&str]) -> Option<&'a Value> {
        let (first, rest) = path.split_first()?;
        rest.iter()
            .try_fold(self.map.get(*first)?, |v, k| v.get(*k))
    }
}

/// `v` as a non-empty string.
pub(super) fn non_empty(v: &Value) -> Option<&str> {
    v.as_str().filter(|s| !s.trim().is_empty())
}

/// A short, one-line text for `v`: a string as is, an array of strings joined by spaces
/// (argv-style commands), anything else as compact JSON; cut to 200 characters.
pub(super) fn render(v: &Value) -> String {
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Array(items) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    };
    shorten(text.trim())
}

/// `text` cut to 200 characters, with `…` when cut.
pub(super) fn shorten(text: &str) -> String {
    match text.char_indices().nth(MAX_RENDER_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// Keys of a tool input that say best what the call does, in order of preference.
const TOOL_INPUT_KEYS: [&str; 8] = [
    "command",
    "file_path",
    "path",
    "notebook_path",
    "url",
    "pattern",
    "query",
    "prompt",
];

/// The prompt of a permission gate: `"<tool>: <what>"`, where `what` is the tool input's
/// command (`"Bash: echo hi > /tmp/x"`), else its first file path, path, url, pattern,
/// query or prompt, else the whole input as compact JSON; just `"<tool>"` when the input
/// is empty or absent. At most 200 characters of input.
pub(super) fn tool_prompt(tool: &str, input: Option<&Value>) -> String {
    let what = match input {
        Some(Value::Object(map)) => TOOL_INPUT_KEYS
            .iter()
            .find_map(|k| map.get(*k).filter(|v| !v.is_null()))
            .map(render)
            .or_else(|| (!map.is_empty()).then(|| render(&Value::Object(map.clone())))),
        Some(Value::Null) | None => None,
        Some(other) => Some(render(other)),
    };
    match what.filter(|w| !w.is_empty()) {
        Some(w) => format!("{tool}: {w}"),
        None => tool.to_string(),
    }
}

/// The answer choices of an approval gate, `allow` and `deny`, without keys: an answer's
/// keys are derived from the dialog on screen when answering, never from a fixed
/// position (`docs/lifecycle-attention.md#answer`).
pub(super) fn allow_deny_keys() -> Vec<AnswerKey> {
    ["allow", "deny"]
        .into_iter()
        .map(|choice| AnswerKey {
            choice: choice.into(),
            keys: String::new(),
        })
        .collect()
}

/// `labels` as owned strings.
pub(super) fn labels(labels: &[&str]) -> Vec<String> {
    labels.iter().map(|l| l.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_prompt_prefers_command_then_paths_then_json() {
        assert_eq!(
            tool_prompt("Bash", Some(&json!({"command": "ls", "description": "x"}))),
            "Bash: ls"
        );
        assert_eq!(
            tool_prompt(
                "Write",
                Some(&json!({"file_path": "/tmp/a", "content": "…"}))
            ),
            "Write: /tmp/a"
        );
        assert_eq!(
            tool_prompt("Odd", Some(&json!({"n": 1}))),
            r#"Odd: {"n":1}"#
        );
        assert_eq!(tool_prompt("Odd", Some(&json!({}))), "Odd");
        assert_eq!(tool_prompt("Odd", None), "Odd");
        assert_eq!(
            tool_prompt("Sh", Some(&json!({"command": ["bash", "-lc", "ls"]}))),
            "Sh: bash -lc ls"
        );
    }

    #[test]
    fn shorten_cuts_on_a_char_boundary() {
        let long = "é".repeat(300);
        let cut = shorten(&long);
        assert_eq!(cut.chars().count(), MAX_RENDER_CHARS + 1);
        assert!(cut.ends_with('…'));
        assert_eq!(shorten("short"), "short");
    }
}
