//! pi's offline home and launch for the real-agent tests (docs/real-agents.md, "pi"):
//! the scripted model as a custom OpenAI-compatible provider in `models.json`, picked as
//! the default in `settings.json`, and no network of pi's own (`PI_OFFLINE=1`: no model
//! catalog refresh, no fd/ripgrep download; no version check, no telemetry).

use super::{write_json, FAKE_KEY};
use serde_json::json;
use std::path::Path;

/// The provider name pi is given for the scripted model (`models.json`).
pub const PROVIDER: &str = "scripted";
/// The model id the provider offers; pi shows it at the right of its footer.
pub const MODEL: &str = "pi-scripted";

/// Writes `models.json` (the provider at `server_url`, Chat Completions) and
/// `settings.json` (it is the default model) into pi's agent directory `dir`.
pub fn write_config(dir: &Path, server_url: &str) {
    write_json(
        &dir.join("models.json"),
        &json!({"providers": {PROVIDER: {
            "baseUrl": format!("{server_url}/v1"),
            "api": "openai-completions",
            "apiKey": FAKE_KEY,
            "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
            "models": [{"id": MODEL}],
        }}}),
    );
    write_json(
        &dir.join("settings.json"),
        &json!({"defaultProvider": PROVIDER, "defaultModel": MODEL}),
    );
}

/// The variables pi runs with offline.
pub const ENV: &[(&str, &str)] = &[
    ("PI_OFFLINE", "1"),
    ("PI_SKIP_VERSION_CHECK", "1"),
    ("PI_TELEMETRY", "0"),
];
