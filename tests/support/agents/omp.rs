//! oh-my-pi's offline home and launch for the real-agent tests (docs/real-agents.md,
//! "oh-my-pi"): the scripted model as a custom OpenAI-compatible provider in `models.yml`,
//! picked as the default model in `config.yml`, with every tool call asked for
//! (`tools.approvalMode: always-ask`), no completion notification of its own
//! (`completion.notify: off`: docs/adapters.md "oh-my-pi" says what it does to a pane), and
//! no setup wizard, update check or splash. omp's
//! launcher runs under `bun` (`#!/usr/bin/env bun`), which `build-aux/agents.sh` installs
//! into the same npm prefix: that prefix's `node_modules/.bin` goes first on `PATH`.

use std::path::Path;

/// The provider name omp is given for the scripted model (`models.yml`).
pub const PROVIDER: &str = "scripted";
/// The model id the provider offers; omp shows it in its status line.
pub const MODEL: &str = "omp-scripted";

/// Writes `models.yml` (the provider at `server_url`, Chat Completions) and `config.yml`
/// into omp's agent directory `dir`.
pub fn write_config(dir: &Path, server_url: &str, key: &str) {
    std::fs::write(
        dir.join("models.yml"),
        format!(
            "providers:\n  {PROVIDER}:\n    baseUrl: {server_url}/v1\n    \
             api: openai-completions\n    apiKey: {key}\n    models:\n      - id: {MODEL}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("config.yml"),
        format!(
            "modelRoles:\n  default: {PROVIDER}/{MODEL}\n\
             tools:\n  approvalMode: always-ask\n\
             completion:\n  notify: \"off\"\n\
             startup:\n  setupWizard: false\n  checkUpdate: false\n  quiet: true\n"
        ),
    )
    .unwrap();
}

/// `PATH` for omp: the directory of its launcher (where `bun` is too), then `rest`.
pub fn path(binary: &Path, rest: &str) -> String {
    let dir = binary.parent().expect("the launcher's directory");
    format!("{}:{rest}", dir.display())
}
