//! Kilo Code CLI's offline home and launch (docs/real-agents.md, docs/adapters.md "Kilo
//! Code CLI"): the scripted model as an OpenAI-compatible provider in
//! `~/.config/kilo/kilo.json`, every shell command asking, and the variables that keep
//! everything on loopback.

use super::FAKE_KEY;
use serde_json::{json, Value};

/// The model Kilo's `scripted` provider offers (`scripted/gpt-4.1`).
pub const MODEL: &str = "gpt-4.1";

/// `~/.config/kilo/kilo.json`: the scripted model at `server_url` as an OpenAI-compatible
/// provider (built in: nothing is fetched), `bash` asking (the default runs commands
/// unasked), no update check or sharing, and no snapshots: when its first snapshot of the
/// project takes over 10 s (`KILO_SNAPSHOT_TRACK_TIMEOUT_MS`, a loaded machine), Kilo asks
/// "Do you want to disable Snapshots for this repository?" with its question tool, in
/// the middle of whatever turn the test meant.
pub fn config(server_url: &str) -> Value {
    json!({
        "$schema": "https://app.kilo.ai/config.json",
        "provider": {"scripted": {
            "npm": "@ai-sdk/openai-compatible",
            "options": {"baseURL": format!("{server_url}/v1"), "apiKey": FAKE_KEY},
            "models": {MODEL: {}},
        }},
        "model": format!("scripted/{MODEL}"),
        "permission": {"bash": "ask"},
        "autoupdate": false,
        "share": "disabled",
        "snapshot": false,
    })
}

/// The launch's variables: no models.dev fetch (it would fail offline), update check,
/// LSP download, sharing, telemetry, session upload or presence.
pub fn env() -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = [
        "KILO_DISABLE_MODELS_FETCH",
        "KILO_DISABLE_AUTOUPDATE",
        "KILO_DISABLE_LSP_DOWNLOAD",
        "KILO_DISABLE_SHARE",
        "KILO_DISABLE_SESSION_INGEST",
        "KILO_DISABLE_PRESENCE",
    ]
    .iter()
    .map(|k| (k.to_string(), "1".to_string()))
    .collect();
    env.push(("KILO_TELEMETRY_LEVEL".into(), "off".into()));
    env
}
