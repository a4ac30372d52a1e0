//! MastraCode's offline home and launch (docs/real-agents.md, docs/adapters.md
//! "MastraCode"): its `settings.json` in its app data directory
//! (`$XDG_DATA_HOME/mastracode/`) names the scripted model as a custom OpenAI-compatible
//! provider (`customProviders`: name, url, key, models) and picks it for every mode
//! (`models.modeDefaults`), marks its set-up wizard done and turns YOLO off (its default
//! approves every tool: no dialog); its update check and telemetry are off. Hooks go in
//! `~/.mastracode/hooks.json`: one list of entries per event at the top level.

use super::{read_json, write_json, FAKE_KEY};
use serde_json::{json, Value};
use std::path::Path;

/// The custom provider's name; its models are `scripted/<model>`.
pub const PROVIDER: &str = "scripted";

/// The model the provider offers, shown in the status row as `scripted/model`.
pub const MODEL: &str = "model";

/// Its status row once the editor is up: the mode and the model.
pub const STATUS_ROW: &str = "▐build▌scripted/model▌";

/// The hook events MastraCode 0.32.1 fires: all fourteen of its `hooks.json`.
pub const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "AgentStart",
    "PreToolUse",
    "PermissionRequest",
    "PermissionResult",
    "PostToolUse",
    "Notification",
    "AgentEnd",
    "Stop",
    "Interrupt",
    "SubagentStart",
    "SubagentEnd",
    "SessionEnd",
];

/// The `timeout` of each recorded hook entry, in milliseconds (its unit).
pub const HOOK_TIMEOUT_MS: u64 = 10_000;

/// Writes `settings.json` into `data_dir` (`$XDG_DATA_HOME/mastracode`) with the scripted
/// model at `server_url` as the model of every mode.
pub fn write_settings(data_dir: &Path, server_url: &str) {
    std::fs::create_dir_all(data_dir).unwrap();
    let model = format!("{PROVIDER}/{MODEL}");
    write_json(
        &data_dir.join("settings.json"),
        &json!({
            "onboarding": {
                "completedAt": "2026-01-01T00:00:00.000Z",
                "version": 99,
                "quietModePreferenceSelected": true,
            },
            "models": {
                "activeModelPackId": null,
                "modeDefaults": {"build": model, "plan": model, "fast": model},
            },
            "preferences": {"yolo": false},
            "customProviders": [{
                "name": PROVIDER,
                "url": format!("{server_url}/v1"),
                "apiKey": FAKE_KEY,
                "models": [MODEL],
            }],
        }),
    );
}

/// Registers `command` for each of `events` in `config_dir/hooks.json`, keeping what is
/// there.
pub fn add_hooks(config_dir: &Path, events: &[&str], command: &str) {
    std::fs::create_dir_all(config_dir).unwrap();
    let path = config_dir.join("hooks.json");
    let mut hooks = if path.exists() {
        read_json(&path)
    } else {
        json!({})
    };
    for event in events {
        let entry = json!({"type": "command", "command": command, "timeout": HOOK_TIMEOUT_MS});
        match hooks[*event].as_array_mut() {
            Some(list) => list.push(entry),
            None => hooks[*event] = Value::Array(vec![entry]),
        }
    }
    write_json(&path, &hooks);
}

/// Its environment: no update check, no telemetry.
pub fn env() -> Vec<(String, String)> {
    vec![
        ("MASTRACODE_DISABLE_UPDATE_CHECK".into(), "1".into()),
        ("MASTRA_TELEMETRY_DISABLED".into(), "1".into()),
    ]
}
