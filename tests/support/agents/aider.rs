//! aider's offline home and launch (docs/real-agents.md, docs/adapters.md "aider"): the
//! scripted model as an OpenAI-compatible API (`OPENAI_API_BASE`, the model
//! `openai/<name>`), the `diff` edit format (its fenced `bash` blocks are commands it
//! offers to run), and the start-up questions and checks off.

use super::super::model_server::Reply;
use super::FAKE_KEY;
use serde_json::Value;

/// The model aider is given (`--model openai/<it>`).
pub const MODEL: &str = "gpt-4.1";

/// aider has no hooks to record: its notification command is its only report.
pub const EVENTS: &[&str] = &[];

/// The launch's arguments: the scripted model, the `diff` edit format, no update check,
/// analytics, model warnings, `.gitignore` offer or release notes.
pub fn args() -> Vec<String> {
    [
        "--model",
        &format!("openai/{MODEL}"),
        "--edit-format",
        "diff",
        "--no-check-update",
        "--analytics-disable",
        "--no-show-model-warnings",
        "--no-gitignore",
        "--no-show-release-notes",
        "--no-auto-commits",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// The launch's variables: the scripted API and its key.
pub fn env(server_url: &str) -> Vec<(String, String)> {
    vec![
        ("OPENAI_API_BASE".into(), format!("{server_url}/v1")),
        ("OPENAI_API_KEY".into(), FAKE_KEY.into()),
    ]
}

/// Every chat request of aider (it offers the model no tools, so the scripted server
/// would take them for side requests): what [`super::super::model_server::ModelServer::route`]
/// sends its replies to.
pub fn is_request(_body: &Value) -> bool {
    true
}

/// A reply that offers `command` to run (a fenced `bash` block), after `words`.
pub fn shell(words: &str, command: &str) -> Reply {
    Reply::text(format!("{words}\n\n```bash\n{command}\n```\n"))
}

/// True when aider waits at its input prompt: the screen's last row starts with `>` (the
/// edit format's name before it when that is not the model's default: `diff>`).
pub fn at_prompt(screen: &str) -> bool {
    screen.trim_end().lines().last().is_some_and(|l| {
        l.trim_start_matches(|c: char| c.is_ascii_alphabetic())
            .starts_with('>')
    })
}
