//! Letta Code's offline home and launch (docs/real-agents.md, docs/adapters.md "Letta
//! Code"): its experimental local backend (`--backend local`, no Letta server or sign-in)
//! with the scripted model as its LM Studio provider (`LMSTUDIO_BASE_URL`, an
//! OpenAI-compatible server; Letta asks for its model list and goes on without it), the
//! `standard` permission mode (0.25.9 starts `unrestricted`: no command would ask), the
//! update check off. Hooks go in `~/.letta/settings.json`, which Letta rewrites with its
//! own state and keeps them.

/// The model Letta is given (`-m lmstudio/<it>`), shown in its status row.
pub const MODEL: &str = "letta-scripted";

/// The hook events Letta 0.25.9 fires that the recording registers: not
/// `PermissionRequest`, whose hook exiting 0 would approve every call.
pub const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionEnd",
];

/// Its hook timeouts are in milliseconds.
pub const HOOK_TIMEOUT_MS: u64 = 10_000;

/// The launch's variables: the local backend, the scripted server as its LM Studio
/// provider, no update check.
pub fn env(server_url: &str) -> Vec<(String, String)> {
    vec![
        ("LETTA_LOCAL_BACKEND_EXPERIMENTAL".into(), "1".into()),
        ("LMSTUDIO_BASE_URL".into(), format!("{server_url}/v1")),
        ("DISABLE_AUTOUPDATER".into(), "1".into()),
    ]
}

/// The launch's arguments: the local backend, the scripted model, commands that ask.
pub fn args() -> Vec<String> {
    [
        "--backend",
        "local",
        "-m",
        &format!("lmstudio/{MODEL}"),
        "--permission-mode",
        "standard",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect()
}
