//! Kimi Code CLI's offline home and launch (docs/real-agents.md, docs/adapters.md "Kimi
//! Code CLI"): the scripted model as an `openai` provider in `~/.kimi-code/config.toml`,
//! the project marked trusted (no "Trust this folder?" dialog at start), telemetry and
//! the update check off; hooks as `[[hooks]]` tables of the same file.

use super::HookRecorder;
use std::path::Path;

/// The model alias Kimi is given (`default_model`); its provider `scripted` points at the
/// scripted server.
pub const MODEL: &str = "scripted/kimi-scripted";

/// The hook events Kimi 2.1.0 accepts in `config.toml` (an unknown name makes it refuse
/// the file): what the recording registers.
pub const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PermissionResult",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "StopFailure",
    "Interrupt",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "Notification",
    "SessionEnd",
];

/// Writes `home/.kimi-code/config.toml` (the scripted provider and model) and the
/// project's trust record `home/.kimi-code/workspace-trust/<key>` ([`workdir_key`]), as
/// choosing "Trust this folder" writes it.
pub fn write_base_config(config_dir: &Path, server_url: &str, project: &Path) {
    let config = format!(
        "default_model = \"{MODEL}\"\n\
         \n\
         [providers.scripted]\n\
         type = \"openai\"\n\
         base_url = \"{server_url}/v1\"\n\
         api_key = \"{key}\"\n\
         \n\
         [models.\"{MODEL}\"]\n\
         provider = \"scripted\"\n\
         model = \"kimi-scripted\"\n\
         max_context_size = 128000\n",
        key = super::FAKE_KEY,
    );
    std::fs::write(config_dir.join("config.toml"), config).unwrap();
    let trust = config_dir.join("workspace-trust");
    std::fs::create_dir_all(&trust).unwrap();
    std::fs::write(
        trust.join(workdir_key(project)),
        serde_json::json!({"root": project, "trustedAt": 1_700_000_000_000u64}).to_string(),
    )
    .unwrap();
}

/// Appends one `[[hooks]]` table per event of `events` running `command` to
/// `config.toml`.
pub fn add_hooks(config_dir: &Path, events: &[&str], command: &str) {
    let path = config_dir.join("config.toml");
    let mut text = std::fs::read_to_string(&path).unwrap();
    for event in events {
        text.push_str(&format!(
            "\n[[hooks]]\nevent = \"{event}\"\ncommand = {}\ntimeout = 10\n",
            super::toml_string(command)
        ));
    }
    std::fs::write(&path, text).unwrap();
}

/// Also records every `event` payload beside Attend's entry (a second `[[hooks]]` table).
pub fn record_also(config_dir: &Path, recorder: &HookRecorder, event: &str) {
    add_hooks(config_dir, &[event], &recorder.command());
}

/// The launch's variables: no telemetry, no update check.
pub fn env() -> Vec<(String, String)> {
    ["KIMI_DISABLE_TELEMETRY", "KIMI_CODE_NO_AUTO_UPDATE"]
        .iter()
        .map(|k| (k.to_string(), "1".to_string()))
        .collect()
}

/// Kimi's key of a directory (2.1.0, `encodeWorkDirKey`): `wd_<slug of its last
/// component>_<first 12 hex digits of the SHA-256 of the path>`.
pub fn workdir_key(dir: &Path) -> String {
    use sha2::{Digest, Sha256};
    let path = dir.display().to_string();
    let path = path.trim_end_matches('/');
    let last = path.rsplit('/').next().unwrap_or(path).to_lowercase();
    let mut slug = String::new();
    for c in last.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
            slug.push(c);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug: String = slug.trim_matches('-').chars().take(40).collect();
    let slug = slug.trim_matches('-');
    let slug = if slug.is_empty() || slug == "." || slug == ".." {
        "workspace"
    } else {
        slug
    };
    let hash = Sha256::digest(path.as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("wd_{slug}_{}", &hex[..12])
}
