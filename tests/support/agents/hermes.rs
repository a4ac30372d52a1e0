//! Hermes Agent's offline home and launch (docs/real-agents.md, docs/adapters.md "Hermes
//! Agent"): the scripted model as its `custom` provider in `~/.hermes/config.yaml`, the
//! hooks `attend install-hooks hermes` adds accepted without asking
//! (`HERMES_ACCEPT_HOOKS=1`), no update check.

use super::super::model_server::Reply;
use super::FAKE_KEY;
use serde_json::json;
use std::path::Path;

/// The model Hermes is given (`model.default`).
pub const MODEL: &str = "gpt-4.1";

/// The hook events Hermes 0.19.0 runs (`hooks:` keys): what the recording registers.
pub const EVENTS: &[&str] = &[
    "on_session_start",
    "on_session_reset",
    "pre_llm_call",
    "pre_tool_call",
    "pre_approval_request",
    "post_approval_response",
    "post_tool_call",
    "post_llm_call",
    "on_session_end",
    "on_session_finalize",
];

/// Writes `hermes_dir/config.yaml`: the scripted model at `server_url`.
pub fn write_base_config(hermes_dir: &Path, server_url: &str) {
    std::fs::create_dir_all(hermes_dir).unwrap();
    std::fs::write(
        hermes_dir.join("config.yaml"),
        format!(
            "model:\n  provider: custom\n  base_url: {server_url}/v1\n  default: {MODEL}\n  api_key: {FAKE_KEY}\n"
        ),
    )
    .unwrap();
}

/// The launch's variables: its hooks accepted, no update check.
pub fn env() -> Vec<(String, String)> {
    vec![
        ("HERMES_ACCEPT_HOOKS".into(), "1".into()),
        ("HERMES_NO_UPDATE_CHECK".into(), "1".into()),
    ]
}

/// Hermes's shell tool, `terminal` (`{"command"}`).
pub fn terminal(command: &str) -> Reply {
    Reply::Tool {
        name: "terminal".into(),
        input_json: json!({"command": command}).to_string(),
    }
}

/// Hermes's question tool, `clarify` (`{"question", "choices"}`).
pub fn clarify(question: &str, choices: &[&str]) -> Reply {
    Reply::Tool {
        name: "clarify".into(),
        input_json: json!({"question": question, "choices": choices}).to_string(),
    }
}
