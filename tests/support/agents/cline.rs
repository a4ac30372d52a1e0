//! Cline CLI's offline home and launch (docs/real-agents.md, docs/adapters.md "Cline
//! CLI"): the scripted model as its `openai-compatible` provider in
//! `~/.cline/data/settings/providers.json` (what `cline auth -p openai-compatible -k KEY -m
//! MODEL -b URL` writes), its start-up notices marked shown, the update check off, each
//! session in its own process, and `--auto-approve false` so that tool calls ask.

use super::super::model_server::Reply;
use super::{HookRecorder, FAKE_KEY};
use serde_json::json;
use std::path::Path;

/// The model the provider is given (`-m`), shown in Cline's status row.
pub const MODEL: &str = "gpt-4.1";

/// The hook files Cline 3.0.65 runs (one per event): what the recording registers.
pub const EVENTS: &[&str] = &[
    "TaskStart",
    "TaskResume",
    "TaskCancel",
    "TaskComplete",
    "TaskError",
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "PreCompact",
    "SessionShutdown",
];

/// Writes `home/.cline/data/settings/providers.json` (the scripted model at `server_url`)
/// and `cli-notices.json` beside it (the "Try ClinePass" and "Introducing Cline Desktop"
/// notices marked shown: each waits for a key at start otherwise).
pub fn write_base_config(cline_dir: &Path, server_url: &str) {
    let settings = cline_dir.join("data/settings");
    std::fs::create_dir_all(&settings).unwrap();
    let providers = json!({
        "version": 1,
        "lastUsedProvider": "openai-compatible",
        "modes": {},
        "providers": {"openai-compatible": {
            "settings": {
                "provider": "openai-compatible",
                "apiKey": FAKE_KEY,
                "model": MODEL,
                "baseUrl": format!("{server_url}/v1"),
            },
            "updatedAt": "2026-12-07T00:00:00.000Z",
            "tokenSource": "manual",
        }},
    });
    std::fs::write(
        settings.join("providers.json"),
        serde_json::to_string_pretty(&providers).unwrap(),
    )
    .unwrap();
    let notices = json!({"shown": {
        "cline-cli-cline-pass-intro": true,
        "cline-cli-desktop-launch": true,
    }});
    std::fs::write(settings.join("cli-notices.json"), notices.to_string()).unwrap();
}

/// Adds a hook file per event of `events` to `cline_dir/hooks` that runs `command` (a
/// shell command line) on the payload, named `<Event>.sh` so that it runs beside Attend's
/// `<Event>` (Cline runs every hook file of an event).
pub fn add_hooks(cline_dir: &Path, events: &[&str], command: &str) {
    let hooks = cline_dir.join("hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    for event in events {
        std::fs::write(
            hooks.join(format!("{event}.sh")),
            format!("#!/bin/sh\n{command}\n"),
        )
        .unwrap();
    }
}

/// Also records every `event` payload beside Attend's hook file.
pub fn record_also(cline_dir: &Path, recorder: &HookRecorder, event: &str) {
    add_hooks(cline_dir, &[event], &recorder.command());
}

/// The launch's arguments: tool calls ask (Cline approves every tool by default).
pub fn args() -> Vec<String> {
    vec!["--auto-approve".into(), "false".into()]
}

/// The launch's variables: no update check; the session in the CLI's own process (by
/// default a later session may run in a background "hub" daemon that outlives the test).
pub fn env() -> Vec<(String, String)> {
    vec![
        ("CLINE_NO_AUTO_UPDATE".into(), "1".into()),
        ("CLINE_SESSION_BACKEND_MODE".into(), "local".into()),
    ]
}

/// Cline's shell tool, `run_commands` (`{"commands": [..]}`, as recorded): one command.
pub fn run_commands(command: &str) -> Reply {
    Reply::Tool {
        name: "run_commands".into(),
        input_json: json!({"commands": [command]}).to_string(),
    }
}

/// Cline's question tool, `ask_question` (`{"question", "options"}`).
pub fn ask_question(question: &str, options: &[&str]) -> Reply {
    Reply::Tool {
        name: "ask_question".into(),
        input_json: json!({"question": question, "options": options}).to_string(),
    }
}
