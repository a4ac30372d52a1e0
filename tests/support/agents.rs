//! Isolated homes for the real agent CLIs, driven offline against [`ModelServer`]
//! (docs/real-agents.md).
//!
//! - [`require`] finds the pinned CLI in the cache `build-aux/agents.sh` fills (running the
//!   script once per test process when a CLI is missing); without it the test prints
//!   `SKIPPED: <reason>` and passes, unless `ATTEND_REQUIRE_REAL_AGENTS=1`, which fails it.
//! - [`AgentHome`] is a temp directory with `home/` (the CLI's `HOME`, with the config each
//!   CLI needs offline) and `proj/` (a git repository, the agent's cwd); [`AgentHome::launch`]
//!   gives the argv + environment to start the interactive CLI there (cleared environment,
//!   proxies pointing at a closed loopback port so nothing leaves loopback).
//! - [`HookRecorder`] is a hook command that saves every payload as its own file.
//! - [`Tmux`] runs a [`Launch`] in a private tmux server: type keys, read the screen.
#![allow(dead_code)]

pub mod aider;
pub mod cline;
pub mod continue_cli;
pub mod grok;
pub mod hermes;
pub mod kilo;
pub mod kimi;
pub mod letta;
pub mod mastracode;
pub mod omp;
pub mod pi;

use super::model_server::ModelServer;
use attend::model::agents::{self, AgentRow};
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A proxy URL on a loopback port where nothing listens: any request that ignores
/// `NO_PROXY` fails at once instead of leaving the machine.
pub const DEAD_PROXY: &str = "http://127.0.0.1:9";

/// The fake API key every CLI is given (20 characters: Claude records the last 20
/// characters of approved keys, so the whole key is the approved value).
pub const FAKE_KEY: &str = "sk-scripted-00000000";

/// The model name Qwen Code is given (`OPENAI_MODEL`); shown in its status line.
pub const QWEN_MODEL: &str = "qwen-scripted";

/// The model OpenCode's `scripted` provider offers (`scripted/gpt-4.1`, as recorded).
pub const OPENCODE_MODEL: &str = "gpt-4.1";
/// The model name GitHub Copilot CLI is given (`COPILOT_MODEL`, required with its own
/// provider): a name it knows, so that it needs no token limits of its own.
pub const COPILOT_MODEL: &str = "gpt-4.1";

/// Set to `1` to make a missing CLI fail the test instead of skipping it (CI sets it).
pub const REQUIRE_VAR: &str = "ATTEND_REQUIRE_REAL_AGENTS";

/// The real CLIs, each pinned in `data/agents.tsv` (`build-aux/agents.sh` installs the
/// same).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cli {
    Claude,
    Codex,
    Gemini,
    Qwen,
    OpenCode,
    Copilot,
    Pi,
    Kimi,
    Kilo,
    Cline,
    Omp,
    Continue,
    Grok,
    Letta,
    Aider,
    Hermes,
    MastraCode,
}

impl Cli {
    pub const ALL: [Cli; 17] = [
        Cli::Claude,
        Cli::Codex,
        Cli::Gemini,
        Cli::Qwen,
        Cli::OpenCode,
        Cli::Copilot,
        Cli::Pi,
        Cli::Kimi,
        Cli::Kilo,
        Cli::Cline,
        Cli::Omp,
        Cli::Continue,
        Cli::Grok,
        Cli::Letta,
        Cli::Aider,
        Cli::Hermes,
        Cli::MastraCode,
    ];

    /// The agent name as in fixtures and `attend hook AGENT`: `claude`, `codex`, `gemini`,
    /// `qwen`, `opencode`, `copilot`, `kilo`.
    pub fn name(self) -> &'static str {
        match self {
            Cli::Claude => "claude",
            Cli::Codex => "codex",
            Cli::Gemini => "gemini",
            Cli::Qwen => "qwen",
            Cli::OpenCode => "opencode",
            Cli::Copilot => "copilot",
            Cli::Pi => "pi",
            Cli::Kimi => "kimi",
            Cli::Kilo => "kilo",
            Cli::Cline => "cline",
            Cli::Omp => "omp",
            Cli::Continue => "continue",
            Cli::Grok => "grok",
            Cli::Letta => "letta",
            Cli::Aider => "aider",
            Cli::Hermes => "hermes",
            Cli::MastraCode => "mastracode",
        }
    }

    /// This CLI's row of `data/agents.tsv`, the one table of agents (its package, pinned
    /// versions and binary; `build-aux/agents.sh` installs from the same rows).
    pub fn row(self) -> &'static AgentRow<'static> {
        agents::row(self.name())
            .unwrap_or_else(|| panic!("data/agents.tsv has no row {:?}", self.name()))
    }

    /// The npm package.
    pub fn package(self) -> &'static str {
        self.row()
            .package
            .unwrap_or_else(|| panic!("data/agents.tsv names no package of {}", self.name()))
    }

    /// The pinned versions, newest first; the last is the oldest Attend supports (the
    /// row's `versions` in `data/agents.tsv`; docs/real-agents.md).
    pub fn pins(self) -> &'static [&'static str] {
        let pins = self.row().versions.as_slice();
        assert!(
            !pins.is_empty(),
            "data/agents.tsv pins no version of {}",
            self.name()
        );
        pins
    }

    /// The version under test: the one `ATTEND_AGENT_VERSIONS` (`claude=2.1.197,codex=…`)
    /// names for this CLI, else the newest pin.
    pub fn version(self) -> &'static str {
        static CHOSEN: OnceLock<Vec<(String, &'static str)>> = OnceLock::new();
        let chosen = CHOSEN.get_or_init(|| {
            std::env::var(VERSIONS_VAR)
                .unwrap_or_default()
                .split(',')
                .filter_map(|item| item.trim().split_once('='))
                .map(|(name, version)| {
                    let version: &'static str = Box::leak(version.trim().to_string().into());
                    (name.trim().to_string(), version)
                })
                .collect()
        });
        chosen
            .iter()
            .find(|(name, _)| name == self.name())
            .map(|(_, version)| *version)
            .unwrap_or(self.pins()[0])
    }

    /// True when the version under test is not the newest pin (a run against an older
    /// version, where features the newest added are absent).
    pub fn is_older_than_newest(self) -> bool {
        self.version() != self.pins()[0]
    }

    /// The hook events this CLI version fires (docs/adapters.md); [`AgentHome::install_hooks`]
    /// registers the command for each.
    pub fn hook_events(self) -> &'static [&'static str] {
        match self {
            Cli::Claude => super::hook_events::CLAUDE,
            Cli::Codex => &[
                "SessionStart",
                "UserPromptSubmit",
                "PreToolUse",
                "PermissionRequest",
                "PostToolUse",
                "PreCompact",
                "PostCompact",
                "Stop",
                "SubagentStart",
                "SubagentStop",
                "SessionEnd",
            ],
            Cli::Gemini => super::hook_events::GEMINI,
            // What install-hooks writes, and the events Attend leaves alone (recorded too).
            Cli::Qwen => &[
                "SessionStart",
                "UserPromptSubmit",
                "UserPromptExpansion",
                "PreToolUse",
                "PermissionRequest",
                "PermissionDenied",
                "PostToolUse",
                "PostToolUseFailure",
                "PostToolBatch",
                "MessageDisplay",
                "Notification",
                "Stop",
                "StopFailure",
                "SubagentStart",
                "SubagentStop",
                "PreCompact",
                "PostCompact",
                "InstructionsLoaded",
                "TodoCreated",
                "TodoCompleted",
                "SessionEnd",
                "SessionDelete",
            ],
            // No hook commands: its events reach plugins (Attend's, `install-hooks`).
            // No hook commands: their events reach plugins or extensions (Attend's,
            // `install-hooks`).
            Cli::OpenCode | Cli::Kilo | Cli::Pi | Cli::Omp => &[],
            // Continue 1.5.47 fires none of its hooks; Grok has none.
            Cli::Continue | Cli::Grok => &[],
            Cli::Copilot => super::hook_events::COPILOT_ALL,
            Cli::Kimi => kimi::EVENTS,
            Cli::Cline => cline::EVENTS,
            Cli::Letta => letta::EVENTS,
            Cli::Aider => aider::EVENTS,
            Cli::Hermes => hermes::EVENTS,
            Cli::MastraCode => mastracode::EVENTS,
        }
    }

    /// Where `bin` lives under the cache once the version under test is installed
    /// (`<cache>/<name>-<version>/node_modules/.bin/<binary>`; a PyPI agent's virtual
    /// environment `<cache>/<name>-<version>/bin/<binary>`), or why not.
    pub fn installed_binary(self) -> Result<PathBuf, String> {
        node_dir()?;
        let prefix = cache_dir().join(format!("{}-{}", self.name(), self.version()));
        if self.row().registry == agents::Registry::Pypi {
            return python_binary(self, &prefix);
        }
        let package_json = prefix
            .join("node_modules")
            .join(self.package())
            .join("package.json");
        let text = std::fs::read_to_string(&package_json).map_err(|e| {
            format!(
                "{}@{} is not installed ({}: {e})",
                self.package(),
                self.version(),
                package_json.display()
            )
        })?;
        let found = serde_json::from_str::<Value>(&text).unwrap_or(Value::Null)["version"]
            .as_str()
            .unwrap_or("")
            .to_string();
        if found != self.version() {
            return Err(format!(
                "{} {found} is installed, the tests want {}",
                self.package(),
                self.version()
            ));
        }
        let bin = prefix.join("node_modules/.bin").join(self.row().binary);
        if !bin.exists() {
            return Err(format!("{} is missing", bin.display()));
        }
        Ok(bin)
    }
}

/// A PyPI agent's binary in the virtual environment `prefix` that `build-aux/agents.sh`
/// made: `bin/<binary>`, once the package's `<name>-<version>.dist-info` is there.
fn python_binary(cli: Cli, prefix: &Path) -> Result<PathBuf, String> {
    let dist = format!(
        "{}-{}.dist-info",
        cli.package().replace('-', "_").to_lowercase(),
        cli.version()
    );
    let installed = std::fs::read_dir(prefix.join("lib"))
        .into_iter()
        .flatten()
        .flatten()
        .any(|python| python.path().join("site-packages").join(&dist).is_dir());
    if !installed {
        return Err(format!(
            "{}=={} is not installed (no {dist} under {})",
            cli.package(),
            cli.version(),
            prefix.display()
        ));
    }
    let bin = prefix.join("bin").join(cli.row().binary);
    if !bin.exists() {
        return Err(format!("{} is missing", bin.display()));
    }
    Ok(bin)
}

/// The Node.js release the CLIs run on (`data/node-version`, which `build-aux/agents.sh`
/// installs from the npm registry's `node` package; docs/real-agents.md).
pub fn node_version() -> &'static str {
    include_str!("../../data/node-version").trim()
}

/// The directory holding the pinned `node` binary (and nothing else):
/// `<cache>/node-<version>/node_modules/node/bin` ([`node_version`]), or why it is not
/// there.
pub fn node_dir() -> Result<PathBuf, String> {
    let dir = cache_dir()
        .join(format!("node-{}", node_version()))
        .join("node_modules/node/bin");
    if dir.join("node").is_file() {
        Ok(dir)
    } else {
        Err(format!(
            "node@{} is not installed ({} is missing)",
            node_version(),
            dir.join("node").display()
        ))
    }
}

/// The environment variable that picks the version under test per CLI:
/// `claude=2.1.197,codex=0.171.0` (unnamed CLIs run their newest pin).
pub const VERSIONS_VAR: &str = "ATTEND_AGENT_VERSIONS";

/// The directory `build-aux/agents.sh` installs into (one npm prefix per version):
/// `$ATTEND_AGENTS_CACHE`, else `$HOME/.cache/attend/agents`.
pub fn cache_dir() -> PathBuf {
    match std::env::var_os("ATTEND_AGENTS_CACHE") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/attend/agents")
        }
    }
}

/// Runs `build-aux/agents.sh` once per test process; its error line when it failed.
fn install_once() -> Result<(), String> {
    static RESULT: OnceLock<Result<(), String>> = OnceLock::new();
    RESULT
        .get_or_init(|| {
            let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("build-aux/agents.sh");
            let wanted: Vec<String> = Cli::ALL
                .iter()
                .map(|cli| format!("{}={}", cli.name(), cli.version()))
                .collect();
            let out = Command::new("sh")
                .arg(&script)
                .arg("--install")
                .args(&wanted)
                .output()
                .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
            if out.status.success() {
                Ok(())
            } else {
                let err = String::from_utf8_lossy(&out.stderr);
                Err(err
                    .lines()
                    .last()
                    .unwrap_or("build-aux/agents.sh failed")
                    .to_string())
            }
        })
        .clone()
}

/// Where GitHub Copilot CLI unpacks itself (235 MB on its first run, into
/// `$XDG_CACHE_HOME/copilot/pkg/`): one directory beside its npm prefix that every test
/// home shares (`<cache>/copilot-<version>-xdg-cache`).
pub fn copilot_cache() -> PathBuf {
    cache_dir().join(format!("copilot-{}-xdg-cache", Cli::Copilot.version()))
}

/// Runs `copilot --version` once per test process with [`copilot_cache`], so that its
/// first-run unpacking is done before tests start it side by side.
fn unpack_copilot(bin: &Path) -> Result<(), String> {
    static RESULT: OnceLock<Result<(), String>> = OnceLock::new();
    RESULT
        .get_or_init(|| {
            let out = Command::new(bin)
                .arg("--version")
                .env("PATH", agent_path())
                .env("XDG_CACHE_HOME", copilot_cache())
                .env("COPILOT_OFFLINE", "true")
                .env("COPILOT_AUTO_UPDATE", "false")
                .output()
                .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
            if out.status.success() {
                Ok(())
            } else {
                Err(format!(
                    "copilot --version failed: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                ))
            }
        })
        .clone()
}

/// The pinned `cli` binary, installing it with `build-aux/agents.sh` when missing.
/// `None` (after writing `SKIPPED: <reason>` straight to stderr, past the test harness's
/// output capture) when it cannot be had; panics instead when `ATTEND_REQUIRE_REAL_AGENTS=1`.
pub fn require(cli: Cli) -> Option<PathBuf> {
    let found = cli
        .installed_binary()
        .or_else(|_| install_once().and_then(|()| cli.installed_binary()))
        .and_then(|bin| match cli {
            Cli::Copilot => unpack_copilot(&bin).map(|()| bin),
            _ => Ok(bin),
        });
    match found {
        Ok(bin) => Some(bin),
        Err(reason) if std::env::var(REQUIRE_VAR).as_deref() == Ok("1") => {
            panic!(
                "{REQUIRE_VAR}=1 but the real {} CLI is unavailable: {reason}",
                cli.name()
            )
        }
        Err(reason) => {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: real {} CLI unavailable: {reason}",
                cli.name()
            );
            None
        }
    }
}

/// How to start a CLI: program, arguments, the complete environment (start it with a
/// cleared environment plus these), and the working directory.
#[derive(Debug, Clone)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
}

/// Environment variables by which CI systems announce themselves and that the agent CLIs
/// read to switch to a non-interactive mode (Gemini CLI's `isHeadlessMode`: `CI=true` or
/// `GITHUB_ACTIONS=true`). A person at a terminal has none of them.
pub const CI_MARKERS: &[&str] = &["CI", "GITHUB_ACTIONS", "CONTINUOUS_INTEGRATION"];

impl Launch {
    /// `program` followed by `args`, as strings.
    pub fn argv(&self) -> Vec<String> {
        let mut argv = vec![self.program.display().to_string()];
        argv.extend(self.args.iter().cloned());
        argv
    }

    /// A [`Command`] with a cleared environment, this environment and cwd.
    pub fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .env_clear()
            .envs(self.env.iter().cloned())
            .current_dir(&self.cwd);
        command
    }

    /// `env -i K=V … PROGRAM ARGS…`: the launch as one hermetic argv for tools that take a
    /// command (`tmux new-session`).
    pub fn env_argv(&self) -> Vec<String> {
        let mut argv = vec!["env".to_string(), "-i".to_string()];
        argv.extend(self.env.iter().map(|(k, v)| format!("{k}={v}")));
        argv.extend(self.argv());
        argv
    }

    /// `env -u CI … K=V … PROGRAM ARGS…`: the launch's variables laid over the environment
    /// the command is started with. For `attend run -- …`, where the agent must also
    /// inherit what the daemon gives it (`ATTEND_PANE`, the bus address and state
    /// directory its hook command needs). The CI markers of the machine running the tests
    /// ([`CI_MARKERS`]) are removed: Gemini CLI turns headless under `CI=true` and exits
    /// 42 ("No input provided via stdin") instead of showing its prompt.
    pub fn env_overlay_argv(&self) -> Vec<String> {
        let mut argv = vec!["env".to_string()];
        for marker in CI_MARKERS {
            argv.push("-u".to_string());
            argv.push(marker.to_string());
        }
        argv.extend(self.env.iter().map(|(k, v)| format!("{k}={v}")));
        argv.extend(self.argv());
        argv
    }

    /// Sets (or replaces) one environment variable.
    pub fn set_env(&mut self, key: &str, value: &str) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.to_string(), value.to_string()));
    }
}

/// An isolated HOME and project for one CLI, configured to use `server` offline.
/// Layout (all under one temp directory, removed on drop): `home/`, `proj/` (git repo),
/// `hooks/` (a [`HookRecorder`]'s directory, when used).
pub struct AgentHome {
    pub cli: Cli,
    pub binary: PathBuf,
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
    pub project: PathBuf,
    server_url: String,
    extra_args: Vec<String>,
}

impl AgentHome {
    /// Creates the directories and writes the CLI's offline configuration
    /// (docs/real-agents.md):
    /// - Claude: `home/.claude.json` (onboarding done, the fake key approved, the project
    ///   trusted) and `home/.claude/settings.json`.
    /// - Codex: `home/.codex/config.toml` (fake `responses` provider at the server,
    ///   on-request approvals, workspace-write sandbox, no update check, analytics and
    ///   plugins off, the project trusted).
    /// - Gemini: `home/.gemini/settings.json` (API-key auth, folder trust, auto-update,
    ///   usage statistics and telemetry off).
    /// - Qwen: `home/.qwen/settings.json` (OpenAI-compatible auth, the approval mode that
    ///   asks, auto-update, usage statistics, telemetry, ripgrep and the background memory
    ///   agents off).
    /// - Copilot: `home/.copilot/config.json` (the project in `trustedFolders`: no folder
    ///   trust dialog).
    ///
    /// Panics on I/O errors or when `git init` fails (test set-up).
    pub fn new(cli: Cli, binary: PathBuf, server: &ModelServer) -> AgentHome {
        let dir = tempfile::Builder::new()
            .prefix("attend-agent-")
            .tempdir()
            .unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("proj");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        let status = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&project)
            .env("HOME", &home)
            .status()
            .expect("git must be installed");
        assert!(status.success(), "git init failed");
        let this = AgentHome {
            cli,
            binary,
            dir,
            home,
            project,
            server_url: server.url(),
            extra_args: Vec::new(),
        };
        this.write_base_config();
        this
    }

    /// The CLI's configuration directory: `home/.claude`, `home/.codex` (`CODEX_HOME`),
    /// `home/.gemini`, `home/.qwen`, `home/.config/opencode` (`XDG_CONFIG_HOME` is
    /// `home/.config`), `home/.copilot`, `home/.config/kilo`.
    pub fn config_dir(&self) -> PathBuf {
        self.home.join(match self.cli {
            Cli::Claude => ".claude",
            Cli::Codex => ".codex",
            Cli::Gemini => ".gemini",
            Cli::Qwen => ".qwen",
            Cli::OpenCode => ".config/opencode",
            Cli::Copilot => ".copilot",
            Cli::Pi => ".pi/agent",
            Cli::Kimi => ".kimi-code",
            Cli::Kilo => ".config/kilo",
            Cli::Cline => ".cline",
            Cli::Omp => ".omp/agent",
            Cli::Continue => ".continue",
            Cli::Grok => ".grok",
            Cli::Letta => ".letta",
            Cli::Aider => ".aider",
            Cli::Hermes => ".hermes",
            Cli::MastraCode => ".mastracode",
        })
    }

    fn write_base_config(&self) {
        std::fs::create_dir_all(self.config_dir()).unwrap();
        let project = self.project.display().to_string();
        match self.cli {
            Cli::Claude => {
                write_json(
                    &self.home.join(".claude.json"),
                    &json!({
                        "hasCompletedOnboarding": true,
                        // 2.1.332's one-time offers at start-up (a scenario opts back in
                        // with `offer_auto_mode`).
                        "hasSeenAutoDefaultNudge": true,
                        "hasSeenAutoDefaultNotice": true,
                        "customApiKeyResponses": {"approved": [FAKE_KEY], "rejected": []},
                        "projects": {project: {"hasTrustDialogAccepted": true}},
                    }),
                );
                // Manual approval, as in 2.1.197: 2.1.332 defaults to auto mode, which
                // opens no permission dialog.
                write_json(
                    &self.config_dir().join("settings.json"),
                    &json!({"permissions": {"defaultMode": "default"}}),
                );
            }
            Cli::Codex => {
                let config = format!(
                    "model = \"gpt-scripted\"\n\
                     model_provider = \"fake\"\n\
                     approval_policy = \"on-request\"\n\
                     sandbox_mode = \"workspace-write\"\n\
                     check_for_update_on_startup = false\n\
                     \n\
                     [model_providers.fake]\n\
                     name = \"Scripted\"\n\
                     base_url = \"{}/v1\"\n\
                     env_key = \"ATTEND_FAKE_OPENAI_KEY\"\n\
                     wire_api = \"responses\"\n\
                     \n\
                     [analytics]\n\
                     enabled = false\n\
                     \n\
                     [features]\n\
                     plugins = false\n\
                     \n\
                     [projects.{}]\n\
                     trust_level = \"trusted\"\n",
                    self.server_url,
                    toml_string(&project),
                );
                std::fs::write(self.config_dir().join("config.toml"), config).unwrap();
            }
            Cli::Gemini => write_json(
                &self.config_dir().join("settings.json"),
                &json!({
                    "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
                    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
                    "privacy": {"usageStatisticsEnabled": false},
                    "telemetry": {"enabled": false},
                }),
            ),
            Cli::Qwen => write_json(
                &self.config_dir().join("settings.json"),
                &json!({
                    "security": {"auth": {"selectedType": "openai"}},
                    "general": {"enableAutoUpdate": false},
                    "privacy": {"usageStatisticsEnabled": false},
                    "telemetry": {"enabled": false},
                    // The default is `auto` (a model classifier approves tools): no dialog.
                    // The packaged ripgrep is not executable (a warning box at start-up).
                    "tools": {"approvalMode": "default", "useRipgrep": false},
                    // Background agents that send model requests with tools after a turn
                    // (memory extraction, consolidation): they would take scripted replies.
                    "memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false},
                }),
            ),
            // The scripted model as an OpenAI-compatible provider (built in: nothing is
            // fetched); every shell command asks (the default runs them unasked).
            Cli::OpenCode => write_json(
                &self.config_dir().join("opencode.json"),
                &json!({
                    "$schema": "https://opencode.ai/config.json",
                    "provider": {"scripted": {
                        "npm": "@ai-sdk/openai-compatible",
                        "options": {"baseURL": format!("{}/v1", self.server_url), "apiKey": FAKE_KEY},
                        "models": {OPENCODE_MODEL: {}},
                    }},
                    "model": format!("scripted/{OPENCODE_MODEL}"),
                    "permission": {"bash": "ask"},
                    "autoupdate": false,
                    "share": "disabled",
                }),
            ),
            Cli::Copilot => write_json(
                &self.config_dir().join("config.json"),
                &json!({"trustedFolders": [project]}),
            ),
            Cli::Pi => pi::write_config(&self.config_dir(), &self.server_url),
            Cli::Kimi => {
                kimi::write_base_config(&self.config_dir(), &self.server_url, &self.project)
            }
            Cli::Kilo => write_json(
                &self.config_dir().join("kilo.json"),
                &kilo::config(&self.server_url),
            ),
            Cli::Cline => cline::write_base_config(&self.config_dir(), &self.server_url),
            Cli::Omp => omp::write_config(&self.config_dir(), &self.server_url, FAKE_KEY),
            Cli::Continue => continue_cli::write_config(&self.config_dir(), &self.server_url),
            Cli::Grok => {}
            // Letta writes its settings itself; the hooks' file starts empty.
            Cli::Letta => write_json(&self.config_dir().join("settings.json"), &json!({})),
            // aider: its arguments and variables ([`aider::args`], [`aider::env`]).
            Cli::Aider => {}
            Cli::Hermes => hermes::write_base_config(&self.config_dir(), &self.server_url),
            Cli::MastraCode => mastracode::write_settings(
                &self.home.join(".local/share/mastracode"),
                &self.server_url,
            ),
        }
    }

    /// Registers `command` (a shell command line) for every event in
    /// [`Cli::hook_events`]: Claude and Gemini in their `settings.json` (Gemini's timeout
    /// in ms), Codex in `$CODEX_HOME/hooks.json`, and the Codex launch gets
    /// `--dangerously-bypass-hook-trust` (untrusted hooks do not run; the flag also implies
    /// `--no-daemon`). Copilot's payloads do not name their event: its entries
    /// (`{type, bash, timeoutSec}` in `settings.json`) run `command` behind [`tag_event`],
    /// which records the event too.
    pub fn install_hooks(&mut self, command: &str) {
        if self.cli == Cli::Kimi {
            kimi::add_hooks(&self.config_dir(), self.cli.hook_events(), command);
            return;
        }
        if self.cli == Cli::Cline {
            cline::add_hooks(&self.config_dir(), self.cli.hook_events(), command);
            return;
        }
        if self.cli == Cli::MastraCode {
            mastracode::add_hooks(&self.config_dir(), self.cli.hook_events(), command);
            return;
        }
        if self.cli == Cli::Copilot {
            let hooks: serde_json::Map<String, Value> = self
                .cli
                .hook_events()
                .iter()
                .map(|event| {
                    let entry = json!({"type": "command", "bash": tag_event(command, event), "timeoutSec": 10});
                    (event.to_string(), json!([entry]))
                })
                .collect();
            let path = self.config_dir().join("settings.json");
            let mut settings = read_json(&path);
            settings["hooks"] = Value::Object(hooks);
            write_json(&path, &settings);
            return;
        }
        let timeout = match self.cli {
            Cli::Gemini => 10_000,
            Cli::Letta => letta::HOOK_TIMEOUT_MS,
            _ => 10,
        };
        let groups = json!([{"matcher": "", "hooks": [{"type": "command", "command": command, "timeout": timeout}]}]);
        let hooks: serde_json::Map<String, Value> = self
            .cli
            .hook_events()
            .iter()
            .map(|event| (event.to_string(), groups.clone()))
            .collect();
        match self.cli {
            Cli::OpenCode | Cli::Kilo => {
                panic!("OpenCode and Kilo run no hook commands: their events reach plugins")
            }
            Cli::Pi | Cli::Omp => {
                panic!("pi and omp run no hook commands: their events reach extensions")
            }
            Cli::Continue | Cli::Grok => panic!("Continue 1.5.47 runs no hook, Grok has none"),
            Cli::Kimi | Cli::Cline | Cli::MastraCode => unreachable!("written above"),
            Cli::Aider | Cli::Hermes => {
                panic!("aider and Hermes hooks come from install-hooks only")
            }
            Cli::Claude | Cli::Gemini | Cli::Qwen | Cli::Copilot | Cli::Letta => {
                let path = self.config_dir().join("settings.json");
                let mut settings = read_json(&path);
                settings["hooks"] = Value::Object(hooks);
                write_json(&path, &settings);
            }
            Cli::Codex => {
                write_json(
                    &self.config_dir().join("hooks.json"),
                    &json!({"hooks": hooks}),
                );
                self.extra_args
                    .push("--dangerously-bypass-hook-trust".into());
            }
        }
    }

    /// Codex only: `notify = argv` at the top of `config.toml` (Codex appends the JSON
    /// payload as the last argument).
    pub fn set_codex_notify(&self, argv: &[String]) {
        assert_eq!(self.cli, Cli::Codex, "notify is a Codex setting");
        let path = self.config_dir().join("config.toml");
        let list: Vec<String> = argv.iter().map(|a| toml_string(a)).collect();
        let old = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("notify = [{}]\n{old}", list.join(", "))).unwrap();
    }

    /// The interactive CLI in `proj/`: argv (Codex adds `--no-daemon`) and the environment:
    /// `PATH` (the pinned Node's directory, [`node_dir`], then the inherited one), `HOME`, `LANG`, `XDG_*` under the home, the loopback
    /// proxies, and per CLI the server URL and fake key (Claude also
    /// `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`, `DISABLE_TELEMETRY=1`,
    /// `DISABLE_AUTOUPDATER=1`; Codex `CODEX_HOME`; OpenCode `OPENCODE_DISABLE_*`). `TERM`
    /// is left to the terminal that runs it.
    pub fn launch(&self) -> Launch {
        let home = self.home.display().to_string();
        let mut env: Vec<(String, String)> = vec![
            ("PATH".into(), agent_path()),
            ("HOME".into(), home.clone()),
            ("LANG".into(), "C.UTF-8".into()),
            ("XDG_CONFIG_HOME".into(), format!("{home}/.config")),
            ("XDG_CACHE_HOME".into(), format!("{home}/.cache")),
            ("XDG_DATA_HOME".into(), format!("{home}/.local/share")),
            ("XDG_STATE_HOME".into(), format!("{home}/.local/state")),
        ];
        for key in [
            "HTTPS_PROXY",
            "HTTP_PROXY",
            "ALL_PROXY",
            "https_proxy",
            "http_proxy",
            "all_proxy",
        ] {
            env.push((key.into(), DEAD_PROXY.into()));
        }
        for key in ["NO_PROXY", "no_proxy"] {
            env.push((key.into(), "127.0.0.1,localhost".into()));
        }
        let mut args = Vec::new();
        match self.cli {
            Cli::Claude => {
                env.push(("ANTHROPIC_BASE_URL".into(), self.server_url.clone()));
                env.push(("ANTHROPIC_API_KEY".into(), FAKE_KEY.into()));
                env.push((
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
                    "1".into(),
                ));
                env.push(("DISABLE_TELEMETRY".into(), "1".into()));
                env.push(("DISABLE_AUTOUPDATER".into(), "1".into()));
            }
            Cli::Codex => {
                env.push(("CODEX_HOME".into(), self.config_dir().display().to_string()));
                env.push(("ATTEND_FAKE_OPENAI_KEY".into(), FAKE_KEY.into()));
                if !self
                    .extra_args
                    .iter()
                    .any(|a| a == "--dangerously-bypass-hook-trust")
                {
                    args.push("--no-daemon".into());
                }
            }
            Cli::Gemini => {
                env.push(("GEMINI_API_KEY".into(), FAKE_KEY.into()));
                env.push(("GOOGLE_GEMINI_BASE_URL".into(), self.server_url.clone()));
            }
            Cli::Qwen => {
                env.push(("OPENAI_API_KEY".into(), FAKE_KEY.into()));
                env.push(("OPENAI_BASE_URL".into(), format!("{}/v1", self.server_url)));
                env.push(("OPENAI_MODEL".into(), QWEN_MODEL.into()));
            }
            // No model list, update check, LSP download or sharing: nothing leaves loopback.
            Cli::OpenCode => {
                for key in [
                    "OPENCODE_DISABLE_MODELS_FETCH",
                    "OPENCODE_DISABLE_AUTOUPDATE",
                    "OPENCODE_DISABLE_LSP_DOWNLOAD",
                    "OPENCODE_DISABLE_SHARE",
                ] {
                    env.push((key.into(), "1".into()));
                }
            }
            Cli::Kilo => env.extend(kilo::env()),
            Cli::Copilot => {
                // No GitHub sign-in, telemetry or update check; its own provider at the
                // scripted server; the unpacked CLI shared between homes.
                env.push(("COPILOT_OFFLINE".into(), "true".into()));
                env.push(("COPILOT_AUTO_UPDATE".into(), "false".into()));
                env.push((
                    "COPILOT_PROVIDER_BASE_URL".into(),
                    format!("{}/v1", self.server_url),
                ));
                env.push(("COPILOT_MODEL".into(), COPILOT_MODEL.into()));
                env.retain(|(k, _)| k != "XDG_CACHE_HOME");
                env.push((
                    "XDG_CACHE_HOME".into(),
                    copilot_cache().display().to_string(),
                ));
            }
            Cli::Pi => env.extend(pi::ENV.iter().map(|(k, v)| (k.to_string(), v.to_string()))),
            Cli::Kimi => env.extend(kimi::env()),
            Cli::Cline => {
                env.extend(cline::env());
                args.extend(cline::args());
            }
            Cli::Omp => {
                let path = omp::path(&self.binary, &agent_path());
                env.retain(|(k, _)| k != "PATH");
                env.push(("PATH".into(), path));
            }
            Cli::Continue => args.extend(continue_cli::args(&self.config_dir())),
            Cli::Grok => env.extend(grok::env(&self.server_url)),
            Cli::Letta => {
                env.extend(letta::env(&self.server_url));
                args.extend(letta::args());
            }
            Cli::Aider => {
                env.extend(aider::env(&self.server_url));
                args.extend(aider::args());
            }
            Cli::Hermes => env.extend(hermes::env()),
            Cli::MastraCode => env.extend(mastracode::env()),
        }
        args.extend(self.extra_args.iter().cloned());
        Launch {
            program: self.binary.clone(),
            args,
            env,
            cwd: self.project.clone(),
        }
    }

    /// Replaces every occurrence of this home's temp paths in `text` with stable
    /// placeholders (`/tmp/proj` for the project, `/tmp/agent-home` for HOME, `/tmp/agent` for the
    /// rest), for fixtures.
    /// Claude's per-project directory name (every non-alphanumeric character of the path
    /// becomes `-`) is scrubbed the same way (`-tmp-proj`).
    pub fn scrub(&self, text: &str) -> String {
        self.replacements()
            .iter()
            .fold(text.to_string(), |text, (from, to)| text.replace(from, to))
    }

    /// [`AgentHome::scrub`] for a terminal screen: each replacement is padded with spaces
    /// to the original length, so boxes drawn around a path stay aligned.
    pub fn scrub_screen(&self, screen: &str) -> String {
        self.replacements()
            .iter()
            .fold(screen.to_string(), |text, (from, to)| {
                text.replace(from, &format!("{to:<width$}", width = from.chars().count()))
            })
    }

    /// (temp path, placeholder) pairs, most specific first.
    fn replacements(&self) -> Vec<(String, String)> {
        let dashed = |p: &Path| -> String {
            p.display()
                .to_string()
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect()
        };
        vec![
            (self.project.display().to_string(), "/tmp/proj".into()),
            (dashed(&self.project), "-tmp-proj".into()),
            (self.home.display().to_string(), "/tmp/agent-home".into()),
            (self.dir.path().display().to_string(), "/tmp/agent".into()),
        ]
    }
}

/// The `PATH` the CLIs run with: the pinned Node's directory ([`node_dir`]) first, then the
/// test's own `PATH`, so `#!/usr/bin/env node` finds the pinned Node whatever else is
/// installed.
pub fn agent_path() -> String {
    let inherited = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
    match node_dir() {
        Ok(dir) => format!("{}:{inherited}", dir.display()),
        Err(_) => inherited,
    }
}

/// A TOML basic string (quoted, with `\` and `"` escaped).
pub(crate) fn toml_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn read_json(path: &Path) -> Value {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| json!({}))
}

fn write_json(path: &Path, value: &Value) {
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

/// Records hook payloads: each invocation of [`HookRecorder::command`] saves its stdin as
/// `<dir>/<ns-timestamp>-<pid>.json` (written then renamed, so readers never see half a
/// file); [`HookRecorder::notify_argv`] does the same with Codex `notify`'s last argument.
pub struct HookRecorder {
    pub dir: PathBuf,
}

impl HookRecorder {
    /// Creates `dir`.
    pub fn new(dir: PathBuf) -> HookRecorder {
        std::fs::create_dir_all(&dir).unwrap();
        HookRecorder { dir }
    }

    /// A shell command line that saves its stdin as one payload file.
    pub fn command(&self) -> String {
        format!(
            "f='{}'/$(date +%s%N)-$$; cat > \"$f.tmp\" && mv \"$f.tmp\" \"$f.json\"",
            self.dir.display()
        )
    }

    /// A Codex `notify` argv that saves the payload (its last argument) as one file.
    pub fn notify_argv(&self) -> Vec<String> {
        vec![
            "sh".into(),
            "-c".into(),
            format!(
                "f='{}'/$(date +%s%N)-$$; printf '%s' \"$1\" > \"$f.tmp\" && mv \"$f.tmp\" \"$f.json\"",
                self.dir.display()
            ),
            "sh".into(),
        ]
    }

    /// Every payload so far, in arrival order (unparsable files become `Value::String`).
    pub fn payloads(&self) -> Vec<Value> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "json"))
                    .collect()
            })
            .unwrap_or_default();
        files.sort_by_key(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.split('-')
                .next()
                .and_then(|n| n.parse::<u128>().ok())
                .unwrap_or(0)
        });
        files
            .iter()
            .map(|p| {
                let text = std::fs::read_to_string(p).unwrap_or_default();
                serde_json::from_str(&text).unwrap_or(Value::String(text))
            })
            .collect()
    }

    /// The event names so far: `hook_event_name`, or `type` for notify payloads.
    pub fn events(&self) -> Vec<String> {
        self.payloads()
            .iter()
            .map(|p| event_name(p).to_string())
            .collect()
    }

    /// Waits until a payload with this event name has arrived (after `skip` payloads);
    /// returns it. `Err` lists the events seen.
    pub fn wait_for(&self, event: &str, skip: usize, timeout: Duration) -> Result<Value, String> {
        self.wait_matching(event, skip, timeout, |_| true)
    }

    /// Like [`HookRecorder::wait_for`], for the first such payload that also satisfies
    /// `check` (e.g. a Codex notify of one thread).
    pub fn wait_matching(
        &self,
        event: &str,
        skip: usize,
        timeout: Duration,
        check: impl Fn(&Value) -> bool,
    ) -> Result<Value, String> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(found) = self
                .payloads()
                .into_iter()
                .skip(skip)
                .find(|p| event_name(p) == event && check(p))
            {
                return Ok(found);
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "no matching {event} hook within {timeout:?}; events so far: {:?}",
                    self.events()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A payload's event name: the event [`tag_event`] recorded (Copilot), else
/// `hook_event_name`, else `event_type` (Letta), else `type` (Codex notify), else "".
pub fn event_name(payload: &Value) -> &str {
    payload[RECORDED_EVENT]
        .as_str()
        .or_else(|| payload["hook_event_name"].as_str())
        .or_else(|| payload["event_type"].as_str())
        .or_else(|| payload["type"].as_str())
        .or_else(|| payload["hookName"].as_str())
        .unwrap_or("")
}

/// The field [`tag_event`] puts first in a recorded payload: the event its hook entry
/// was registered for (for CLIs whose payloads do not name their event).
pub const RECORDED_EVENT: &str = "attend_recorded_event";

/// A recorder's `command` that also records `event`: the payload (one JSON object on
/// stdin, starting with `{`) gets `"attend_recorded_event": "<event>"` as its first field.
pub fn tag_event(command: &str, event: &str) -> String {
    format!("sed '1s/^{{/{{\"{RECORDED_EVENT}\":\"{event}\",/' | {{ {command}; }}")
}

/// How long [`type_then_enter`] waits for the typed text to be drawn before it presses
/// Enter anyway (a text that scrolled an earlier copy of itself off the screen).
pub const ECHO_WAIT: Duration = Duration::from_secs(10);

/// Types `text` (`type_text`), then presses Enter (`enter`) once the CLI has drawn it:
/// `screen` shows it once more than before, or [`ECHO_WAIT`] passed, and 400 ms more. A
/// CLI that had not read the text yet (busy starting or running its hooks, on a loaded
/// machine) reads text and Enter in one go and takes the Enter as part of a paste (seen:
/// Codex left `say hello` in its input box; Gemini drew `/quit` and never ran it).
pub fn type_then_enter(
    text: &str,
    screen: impl Fn() -> String,
    type_text: impl FnOnce(),
    enter: impl FnOnce(),
) {
    let shown = screen().matches(text).count();
    type_text();
    let deadline = Instant::now() + ECHO_WAIT;
    while screen().matches(text).count() <= shown && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(400));
    enter();
}

/// One program in a private tmux server (its own socket in a temp dir, killed on drop).
pub struct Tmux {
    dir: tempfile::TempDir,
    socket: PathBuf,
}

impl Tmux {
    /// Starts `launch` hermetically (its environment only, plus `TERM=tmux-256color`) in a
    /// `cols`×`rows` window.
    pub fn start(launch: &Launch, cols: u16, rows: u16) -> Result<Tmux, String> {
        let mut launch = launch.clone();
        launch.set_env("TERM", "tmux-256color");
        Tmux::start_argv(&launch.env_argv(), &launch.cwd, cols, rows)
    }

    /// Starts `argv` (run directly, not through a shell; it inherits the test's environment
    /// with tmux's `TERM`) in `cwd` in a `cols`×`rows` window, e.g. `attend attach PANE`.
    /// The pane stays after the program exits so its last screen can be read.
    pub fn start_argv(argv: &[String], cwd: &Path, cols: u16, rows: u16) -> Result<Tmux, String> {
        let dir = tempfile::Builder::new()
            .prefix("attend-tmux-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        let socket = dir.path().join("sock");
        let tmux = Tmux { dir, socket };
        let cols = cols.to_string();
        let rows = rows.to_string();
        let cwd = cwd.display().to_string();
        let mut args: Vec<String> = [
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "agent",
            "-x",
            &cols,
            "-y",
            &rows,
            "-c",
            &cwd,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(argv.iter().cloned());
        args.extend([";", "set-option", "-g", "remain-on-exit", "on"].map(String::from));
        tmux.run(&args)?;
        Ok(tmux)
    }

    fn run(&self, args: &[String]) -> Result<String, String> {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .env_remove("TMUX")
            .output()
            .map_err(|e| format!("cannot run tmux: {e}"))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(format!(
                "tmux {args:?}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    /// The visible screen as text (trailing blanks trimmed per line).
    pub fn screen(&self) -> String {
        let text = self
            .run(&[
                "capture-pane".into(),
                "-p".into(),
                "-t".into(),
                "agent".into(),
            ])
            .unwrap_or_default();
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        lines.join("\n").trim_end().to_string() + "\n"
    }

    /// The window title the program set (OSC 0/2), as tmux keeps it.
    pub fn title(&self) -> String {
        self.run(&[
            "display-message".into(),
            "-p".into(),
            "-t".into(),
            "agent".into(),
            "#{pane_title}".into(),
        ])
        .map(|s| s.trim_end_matches('\n').to_string())
        .unwrap_or_default()
    }

    /// Waits until the screen contains `needle`; returns that screen. `Err` shows the last
    /// screen.
    pub fn wait_for_text(&self, needle: &str, timeout: Duration) -> Result<String, String> {
        self.wait_for_screen(needle, timeout, |s| s.contains(needle))
    }

    /// Presses `key` on the dialog that shows `question` until the question leaves the
    /// screen (at most 4 presses, 2 s apart). Claude Code 2.1.332 ignores keys for a
    /// moment after a dialog opens (a guard against keys meant for the prompt), which a
    /// scripted test, unlike a person, hits. Returns the screen from before the first press.
    pub fn answer_dialog(&self, question: &str, key: &str) -> Result<String, String> {
        let before = self.screen();
        for _ in 0..4 {
            self.keys(&[key]);
            let gone = self.wait_for_screen(
                &format!("the dialog {question:?} answered"),
                Duration::from_secs(2),
                |s| !s.contains(question),
            );
            if gone.is_ok() {
                return Ok(before);
            }
        }
        Err(format!(
            "the dialog {question:?} stayed after 4 presses of {key:?}:\n{}",
            self.screen()
        ))
    }

    /// Waits until `check(screen)` holds; returns that screen.
    pub fn wait_for_screen(
        &self,
        what: &str,
        timeout: Duration,
        check: impl Fn(&str) -> bool,
    ) -> Result<String, String> {
        let deadline = Instant::now() + timeout;
        loop {
            let screen = self.screen();
            if check(&screen) {
                return Ok(screen);
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "screen never showed {what:?} within {timeout:?}; last screen:\n{screen}"
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Types `text` and presses Enter once the CLI has drawn it ([`type_then_enter`]).
    pub fn submit(&self, text: &str) {
        type_then_enter(
            text,
            || self.screen(),
            || self.type_text(text),
            || self.keys(&["Enter"]),
        );
    }

    /// Types `text` literally (no Enter).
    pub fn type_text(&self, text: &str) {
        self.run(&[
            "send-keys".into(),
            "-t".into(),
            "agent".into(),
            "-l".into(),
            text.into(),
        ])
        .unwrap();
    }

    /// Sends tmux key names (`Enter`, `Escape`, `C-c`, …).
    pub fn keys(&self, keys: &[&str]) {
        let mut args: Vec<String> = vec!["send-keys".into(), "-t".into(), "agent".into()];
        args.extend(keys.iter().map(|k| k.to_string()));
        self.run(&args).unwrap();
    }

    /// True while the program in the pane runs.
    pub fn alive(&self) -> bool {
        self.run(&[
            "display-message".into(),
            "-p".into(),
            "-t".into(),
            "agent".into(),
            "#{pane_dead}".into(),
        ])
        .map(|s| s.trim() == "0")
        .unwrap_or(false)
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let panes = ["list-panes", "-a", "-F", "#{pane_pid}"].map(String::from);
        if let Ok(pids) = self.run(&panes) {
            end_pane_sessions(&pids);
        }
        let _ = self.run(&["kill-server".into()]);
    }
}

/// SIGKILLs every process of the sessions that the pane programs listed in `pids` (one
/// pid a line, `#{pane_pid}`) lead: tmux starts each pane's program in a session of its
/// own, and an agent that ignores the SIGHUP of `kill-server` (Gemini CLI does) would
/// otherwise outlive the test.
pub fn end_pane_sessions(pids: &str) {
    for pid in pids.split_whitespace() {
        let _ = Command::new("pkill").args(["-KILL", "-s", pid]).status();
    }
}

impl Drop for AgentHome {
    /// Ends the strays of this home: a process still running with `HOME` set to it that
    /// is not a descendant of the test (an agent's background daemon that detached, as
    /// Cline's session hub does now and then despite its local mode, would otherwise
    /// outlive the test and keep writing into the removed home).
    fn drop(&mut self) {
        end_strays_of_home(&self.home);
    }
}

/// SIGKILLs every process whose environment has `HOME=<home>` and whose parent chain does
/// not lead to this test process (see `Drop for AgentHome`).
pub fn end_strays_of_home(home: &Path) {
    let want = format!("HOME={}", home.display());
    let me = std::process::id();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(env) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if env.split(|b| *b == 0).any(|v| v == want.as_bytes()) && !descends_from(pid, me) {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
}

/// True when `ancestor` is `pid` or on its parent chain (`/proc/PID/stat`'s 4th field).
fn descends_from(mut pid: u32, ancestor: u32) -> bool {
    for _ in 0..64 {
        if pid == ancestor {
            return true;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        // The command name is in parentheses and may hold spaces: the fields after the
        // last `)` are state, ppid, …
        let Some(ppid) = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            return false;
        };
        if ppid <= 1 {
            return false;
        }
        pid = ppid;
    }
    false
}
