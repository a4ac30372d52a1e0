//! Continue CLI's offline home and launch for the real-agent tests (docs/real-agents.md,
//! docs/adapters.md "Continue CLI"): the scripted model in a YAML model configuration
//! that `cn --config FILE` loads (a model named `gpt-4.1`: with a name Continue does not
//! know it warns and sends no tools).

use super::FAKE_KEY;
use std::path::{Path, PathBuf};

/// The model Continue is given, shown under its logo (`Model: gpt-4.1`).
pub const MODEL: &str = "gpt-4.1";

/// The model configuration's file in Continue's directory `dir` (`~/.continue`).
pub fn config_file(dir: &Path) -> PathBuf {
    dir.join("attend-scripted.yaml")
}

/// Writes [`config_file`]: the scripted model at `server_url` (OpenAI Chat Completions).
pub fn write_config(dir: &Path, server_url: &str) {
    std::fs::write(
        config_file(dir),
        format!(
            "name: scripted\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: {MODEL}\n    \
             provider: openai\n    model: {MODEL}\n    apiBase: {server_url}/v1\n    \
             apiKey: {FAKE_KEY}\n    roles: [chat, edit, apply]\n"
        ),
    )
    .unwrap();
}

/// The launch's arguments: that configuration.
pub fn args(dir: &Path) -> Vec<String> {
    vec!["--config".into(), config_file(dir).display().to_string()]
}
