//! `attend install-hooks AGENT [--scope user|project] [--dry-run] [--uninstall]`: merges
//! Attend's hook entries into the agent's own configuration
//! (`docs/adapters.md#hook-delivery`; each agent's file format:
//! `docs/adapters.md#hook-configuration-files`).
//!
//! Every entry runs the hook executable installed beside this `attend` binary, by absolute
//! path (`<dir>/attend-hook <agent>`; Codex `notify = [<dir>/attend-hook, "codex",
//! "--notify"]`), so it works whatever the agent's `PATH`; entries of the older form
//! `<attend> hook <agent>` are rewritten in place by an install and removed by an
//! uninstall (docs/decisions/0004-hook-executable.md). Planning reads the files and
//! changes nothing; [`InstallPlan::diff`] shows the change and [`InstallPlan::apply`]
//! writes it (backup first, atomic replace).
//!
//! Guarantees: the user's other settings and hooks are kept as written (key order,
//! indentation, comments); installing twice changes nothing; uninstalling removes exactly
//! Attend's entries, and when the result equals a backup's content the backup's exact
//! bytes are restored (a file Attend created is deleted), so install → install →
//! uninstall leaves the original byte for byte. Invalid JSON or TOML is refused with the
//! parse error's line and column, and nothing is written.

mod aider;
mod amp;
mod block;
pub mod cline;
mod command;
mod continue_cli;
mod error;
mod events;
mod files;
mod hermes;
mod json;
mod kimi;
mod omp;
pub mod opencode;
pub mod pane;
pub mod pi;
mod py;
mod toml;
mod vibe;

pub(crate) use events::CLAUDE_EVENTS;
use events::*;

use crate::model::AgentKind;
use command::Matcher;
pub use command::{hook_exe, HookForm};
pub use error::InstallError;
use json::{Flat, JsonHooks, Shape};
use std::path::{Path, PathBuf};

/// Which configuration layer to edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The user's own files (`~/.claude/`, `$CODEX_HOME`, `~/.cursor/`, `~/.gemini/`,
    /// `$XDG_CONFIG_HOME/opencode/`, `~/.qwen/`, `$COPILOT_HOME`, `~/.pi/agent/`,
    /// `$XDG_CONFIG_HOME/kilo/`, `$CLINE_DIR/hooks/`).
    User,
    /// The project's files (`.claude/`, `.codex/`, `.cursor/`, `.gemini/`, `.qwen/`,
    /// `.opencode/`, `.github/hooks/`, `.pi/`, `.kilo/`, `.cline/hooks/` in the project).
    Project,
}

/// The directories the configuration paths derive from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dirs {
    /// The user's home directory.
    pub home: PathBuf,
    /// The project directory (project scope).
    pub project: PathBuf,
    /// `$CLAUDE_CONFIG_DIR`: Claude's user directory instead of `~/.claude`.
    pub claude_config_dir: Option<PathBuf>,
    /// `$CODEX_HOME`: Codex's user directory instead of `~/.codex`.
    pub codex_home: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME`: where OpenCode's and Kilo Code's user directories are
    /// (`<it>/opencode`, `<it>/kilo`) instead of `~/.config/opencode`, `~/.config/kilo`.
    pub config_home: Option<PathBuf>,
    /// `$COPILOT_HOME`: GitHub Copilot CLI's user directory instead of `~/.copilot`.
    pub copilot_home: Option<PathBuf>,
    /// `$PI_CODING_AGENT_DIR`: pi's agent directory instead of `~/.pi/agent`.
    pub pi_agent_dir: Option<PathBuf>,
    /// `$CLINE_DIR`: Cline's directory instead of `~/.cline`.
    pub cline_dir: Option<PathBuf>,
}

impl Dirs {
    /// From the environment: `$HOME` (else the password database), `$CLAUDE_CONFIG_DIR`,
    /// `$CODEX_HOME`, `$COPILOT_HOME`, `$PI_CODING_AGENT_DIR`, `$CLINE_DIR` (empty counts as unset) and `$XDG_CONFIG_HOME` (empty
    /// or relative counts as unset, as the XDG rules say), and the given project directory.
    pub fn from_env(project: &Path) -> Dirs {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        Dirs {
            home: var("HOME")
                .map(PathBuf::from)
                .or_else(std::env::home_dir)
                .unwrap_or_else(|| PathBuf::from("/")),
            project: project.to_path_buf(),
            claude_config_dir: var("CLAUDE_CONFIG_DIR").map(PathBuf::from),
            codex_home: var("CODEX_HOME").map(PathBuf::from),
            config_home: var("XDG_CONFIG_HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute()),
            copilot_home: var("COPILOT_HOME").map(PathBuf::from),
            pi_agent_dir: var("PI_CODING_AGENT_DIR").map(PathBuf::from),
            cline_dir: var("CLINE_DIR").map(PathBuf::from),
        }
    }
}

/// One file's planned change. `before`/`after` are the whole texts; `None` means the file
/// does not exist (before) or is to be deleted (after). `backup`: an existing original is
/// copied aside before it changes (the agents' own configuration files; not files that
/// are wholly Attend's, such as its OpenCode plugin).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: PathBuf,
    pub before: Option<String>,
    pub after: Option<String>,
    pub backup: bool,
}

impl FileChange {
    /// True when applying would change this file.
    pub fn changes(&self) -> bool {
        self.before != self.after
    }
}

/// One directory a plan creates (before its files are written) or removes when it is
/// empty (after its files are deleted): the `node_modules/` OpenCode's seed needs, the
/// plugin directory an uninstall leaves empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirChange {
    pub path: PathBuf,
    /// True: create (with its parents); false: remove if empty.
    pub create: bool,
}

/// The planned change for one agent: every file it touches, changed or not, and the
/// directories it creates or removes (each one a change).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallPlan {
    pub agent: AgentKind,
    pub files: Vec<FileChange>,
    pub dirs: Vec<DirChange>,
}

impl InstallPlan {
    /// True when applying would change nothing (e.g. a second install).
    pub fn is_noop(&self) -> bool {
        !self.files.iter().any(FileChange::changes) && self.dirs.is_empty()
    }

    /// A unified diff of every changed file (`/dev/null` for a created or deleted file),
    /// and a `mkdir -p DIR` / `rmdir DIR` line per directory; empty for a no-op plan. This
    /// is what `--dry-run` prints.
    pub fn diff(&self) -> String {
        let dir = |d: &DirChange| {
            let verb = if d.create { "mkdir -p" } else { "rmdir" };
            format!("{verb} {}\n", d.path.display())
        };
        let (created, removed): (Vec<&DirChange>, Vec<&DirChange>) =
            self.dirs.iter().partition(|d| d.create);
        created
            .into_iter()
            .map(dir)
            .chain(
                self.files
                    .iter()
                    .filter(|f| f.changes())
                    .map(|f| files::unified_diff(&f.path, f.before.as_deref(), f.after.as_deref())),
            )
            .chain(removed.into_iter().map(dir))
            .collect()
    }

    /// Writes the plan. First checks that no file changed since planning (else
    /// [`InstallError::Changed`] and nothing is written); then creates the directories to
    /// create, per changed file backs up an existing original to
    /// `<file>.attend-backup-<unix-ms>` (when the change says so), and writes the new text
    /// atomically (temporary file + rename, parent directories created) or deletes the
    /// file; last removes the directories to remove that are empty (one that is not is
    /// left). Returns the backups made.
    pub fn apply(&self) -> Result<Vec<PathBuf>, InstallError> {
        let changed: Vec<&FileChange> = self.files.iter().filter(|f| f.changes()).collect();
        for file in &changed {
            if files::read_optional(&file.path)? != file.before {
                return Err(InstallError::Changed {
                    path: file.path.clone(),
                });
            }
        }
        for dir in self.dirs.iter().filter(|d| d.create) {
            files::create_dir(&dir.path)?;
        }
        let mut backups = Vec::new();
        for file in changed {
            if file.before.is_some() && file.backup {
                backups.push(files::backup(&file.path)?);
            }
            match &file.after {
                Some(text) => files::write_atomic(&file.path, text)?,
                None => files::remove(&file.path)?,
            }
        }
        for dir in self.dirs.iter().filter(|d| !d.create) {
            files::remove_empty_dir(&dir.path)?;
        }
        Ok(backups)
    }
}

/// Plans installing Attend's hooks for `agent` (see the module docs): entries running
/// `<dir>/attend-hook <agent>`, `<dir>` the directory of `attend_exe`. Reads the files,
/// writes nothing.
///
/// Errors: [`InstallError::Parse`], [`InstallError::Shape`], [`InstallError::NotifyTaken`],
/// [`InstallError::ExePath`], [`InstallError::Unsupported`], [`InstallError::Io`].
pub fn plan_install(
    agent: AgentKind,
    scope: Scope,
    attend_exe: &Path,
    dirs: &Dirs,
) -> Result<InstallPlan, InstallError> {
    plan_install_as(agent, scope, attend_exe, HookForm::Executable, dirs)
}

/// [`plan_install`] with the entries' form chosen: `install-hooks` passes
/// [`HookForm::for_installed`], so that hooks never name an `attend-hook` that is not
/// there. Errors as [`plan_install`].
pub fn plan_install_as(
    agent: AgentKind,
    scope: Scope,
    attend_exe: &Path,
    form: HookForm,
    dirs: &Dirs,
) -> Result<InstallPlan, InstallError> {
    plan(agent, scope, attend_exe, form, dirs, Direction::Install)
}

/// Plans removing Attend's hooks for `agent`: exactly the entries that run
/// `attend-hook <agent>` or `attend hook <agent>` (whatever the executable's directory),
/// and nothing of the user's. Reads the files, writes nothing. Errors as [`plan_install`]
/// (except `NotifyTaken`).
pub fn plan_uninstall(
    agent: AgentKind,
    scope: Scope,
    attend_exe: &Path,
    dirs: &Dirs,
) -> Result<InstallPlan, InstallError> {
    plan(
        agent,
        scope,
        attend_exe,
        HookForm::Executable,
        dirs,
        Direction::Uninstall,
    )
}

/// The files [`plan_install`] edits for `agent` in `scope`, in order. In user scope
/// without the overrides of [`Dirs`] they are the agent's `config` in `data/agents.tsv`
/// (a unit test holds the two together).
pub fn config_paths(agent: AgentKind, scope: Scope, dirs: &Dirs) -> Vec<PathBuf> {
    let user = |default: &str, over: &Option<PathBuf>| {
        over.clone().unwrap_or_else(|| dirs.home.join(default))
    };
    let base = |dot: &str, over: &Option<PathBuf>| match scope {
        Scope::User => user(dot, over),
        Scope::Project => dirs.project.join(dot),
    };
    match agent {
        AgentKind::Claude => vec![base(".claude", &dirs.claude_config_dir).join("settings.json")],
        AgentKind::Codex => {
            let dir = base(".codex", &dirs.codex_home);
            vec![dir.join("config.toml"), dir.join("hooks.json")]
        }
        AgentKind::Cursor => vec![base(".cursor", &None).join("hooks.json")],
        AgentKind::Gemini => vec![base(".gemini", &None).join("settings.json")],
        AgentKind::Qwen => vec![base(".qwen", &None).join("settings.json")],
        AgentKind::Droid => vec![base(".factory", &None).join("settings.json")],
        AgentKind::Kimi => vec![base(".kimi-code", &None).join("config.toml")],
        AgentKind::Letta => vec![base(".letta", &None).join("settings.json")],
        AgentKind::Auggie => vec![base(".augment", &None).join("settings.json")],
        AgentKind::OpenCode | AgentKind::Kilo => match opencode::Host::of(agent) {
            Some(host) => opencode::paths(&plugin_dir(host, scope, dirs)),
            None => Vec::new(),
        },
        AgentKind::Pi => vec![pi::path(&pi_dirs(scope, dirs)[0])],
        AgentKind::Cline => cline::paths(&cline_dirs(scope, dirs)[0]),
        AgentKind::Omp => vec![pi::path(&omp_dirs(scope, dirs)[0])],
        AgentKind::Continue => vec![base(".continue", &None).join("settings.json")],
        AgentKind::Vibe => vec![base(".vibe", &None).join("hooks.toml")],
        AgentKind::Aider => vec![match scope {
            Scope::User => dirs.home.join(".aider.conf.yml"),
            Scope::Project => dirs.project.join(".aider.conf.yml"),
        }],
        AgentKind::Hermes => vec![base(".hermes", &None).join("config.yaml")],
        AgentKind::OpenHands => vec![base(".openhands", &None).join("hooks.json")],
        AgentKind::Amp => {
            let dirs = amp::dirs(&dirs.home, &dirs.project, scope == Scope::User);
            vec![dirs[0].join(amp::FILE.name)]
        }
        AgentKind::Qoder => vec![base(".qoder", &None).join("settings.json")],
        AgentKind::Crush => vec![match scope {
            Scope::User => dirs.home.join(".config/crush/crush.json"),
            Scope::Project => dirs.project.join("crush.json"),
        }],
        AgentKind::MastraCode => vec![base(".mastracode", &None).join("hooks.json")],
        AgentKind::Copilot => vec![match scope {
            Scope::User => user(".copilot", &dirs.copilot_home).join("settings.json"),
            Scope::Project => dirs.project.join(".github/hooks/attend.json"),
        }],
        AgentKind::Grok | AgentKind::Shell => Vec::new(),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Install,
    Uninstall,
}

/// How one file is edited.
enum Editor<'a> {
    Json(JsonHooks<'a>),
    CodexNotify {
        argv: Vec<String>,
        matcher: &'a Matcher,
    },
    /// Kimi Code CLI's `[[hooks]]` tables ([`kimi`]).
    Kimi {
        command: String,
        matcher: &'a Matcher,
    },
    /// Mistral Vibe's `[[hooks]]` tables ([`vibe`]).
    Vibe {
        command: String,
        matcher: &'a Matcher,
    },
    /// Attend's block of lines in a YAML file ([`block`]): aider's, Hermes Agent's.
    Block {
        agent: &'static str,
        body: String,
        keys: &'static [&'static str],
    },
}

impl Editor<'_> {
    fn edit(&self, path: &Path, text: &str, direction: Direction) -> Result<String, InstallError> {
        match (self, direction) {
            (Editor::Json(hooks), Direction::Install) => hooks.install(path, text),
            (Editor::Json(hooks), Direction::Uninstall) => hooks.uninstall(path, text),
            (Editor::CodexNotify { argv, matcher }, Direction::Install) => {
                toml::install(path, text, argv, matcher)
            }
            (Editor::CodexNotify { matcher, .. }, Direction::Uninstall) => {
                toml::uninstall(path, text, matcher)
            }
            (Editor::Kimi { command, matcher }, Direction::Install) => {
                kimi::install(path, text, KIMI_EVENTS, command, KIMI_TIMEOUT_S, matcher)
            }
            (Editor::Kimi { matcher, .. }, Direction::Uninstall) => {
                kimi::uninstall(path, text, matcher)
            }
            (Editor::Vibe { command, matcher }, Direction::Install) => {
                vibe::install(path, text, command, matcher)
            }
            (Editor::Vibe { matcher, .. }, Direction::Uninstall) => {
                vibe::uninstall(path, text, matcher)
            }
            (Editor::Block { agent, body, keys }, Direction::Install) => {
                block::install(path, text, agent, body, keys)
            }
            (Editor::Block { agent, .. }, Direction::Uninstall) => {
                block::uninstall(path, text, agent)
            }
        }
    }

    fn value(&self, text: &str) -> Option<serde_json::Value> {
        match self {
            Editor::Json(hooks) => hooks.value(text),
            Editor::CodexNotify { .. } | Editor::Kimi { .. } | Editor::Vibe { .. } => {
                toml::value(text)
            }
            Editor::Block { .. } => Some(block::value(text)),
        }
    }

    fn is_blank(&self, value: &serde_json::Value) -> bool {
        match self {
            Editor::Json(hooks) => hooks.is_blank(value),
            Editor::CodexNotify { .. } | Editor::Kimi { .. } | Editor::Vibe { .. } => {
                value.as_object().is_some_and(|m| m.is_empty())
            }
            Editor::Block { .. } => value.as_str() == Some(""),
        }
    }
}

/// Timeouts: Letta and Auggie 5000 ms, Claude 5 s, its global `PermissionRequest` entry
/// [`attend_hook::gate::ENTRY_TIMEOUT_S`] (300 s: that run may wait for a choice made in
/// Attend, docs/decisions/0015-answering-external-gates.md); Codex 3 s (it caps SessionEnd hooks at 3 s and warns about
/// more); Gemini 5000 ms; Qwen 5 s; Copilot 5 s; Kimi 5 s. The hook client itself gives up after
/// 300 ms. With `pane`, the entries Attend gives an agent it starts (`… --pane-hooks`,
/// [`pane`]); `scope` picks the file's form where it differs (Copilot).
fn editors<'a>(
    agent: AgentKind,
    scope: Scope,
    attend_exe: &Path,
    form: HookForm,
    matcher: &'a Matcher,
    pane: bool,
) -> Result<Vec<Editor<'a>>, InstallError> {
    let command = command::hook_command(attend_exe, form, agent, pane)?;
    let grouped = |events, timeout, name, match_all, allow_comments| {
        Editor::Json(JsonHooks {
            shape: Shape::Grouped {
                timeout,
                timeouts: &[],
                name,
                match_all,
            },
            events,
            allow_comments,
            command: command.clone(),
            event_argument: false,
            matcher,
        })
    };
    Ok(match agent {
        // The global PermissionRequest entry may wait for a choice made in Attend
        // (`attend_hook::gate::WAIT`): its timeout bounds that wait. A pane's own entry
        // never waits.
        AgentKind::Claude => {
            let mut editor = grouped(CLAUDE_EVENTS, 5, None, CLAUDE_TOOL_EVENTS, false);
            if let Editor::Json(JsonHooks {
                shape: Shape::Grouped { timeouts, .. },
                ..
            }) = &mut editor
            {
                if !pane {
                    *timeouts = CLAUDE_GATE_TIMEOUTS;
                }
            }
            vec![editor]
        }
        AgentKind::Codex => vec![
            Editor::CodexNotify {
                argv: command::notify_argv(attend_exe, form, pane)?,
                matcher,
            },
            grouped(CODEX_EVENTS, 3, None, &[], false),
        ],
        AgentKind::Cursor => vec![Editor::Json(JsonHooks {
            shape: Shape::Flat(Flat::CURSOR),
            events: CURSOR_EVENTS,
            allow_comments: false,
            command: command.clone(),
            event_argument: false,
            matcher,
        })],
        // Gemini strips comments from its settings files, so they are allowed there.
        AgentKind::Gemini => vec![grouped(GEMINI_EVENTS, 5000, Some("attend"), &[], true)],
        // Qwen reads its settings like Gemini (comments stripped); timeouts in seconds,
        // a group without a matcher matches every tool.
        AgentKind::Qwen => vec![grouped(QWEN_EVENTS, 5, Some("attend"), &[], true)],
        // Droid reads Claude's settings shape (`~/.factory/settings.json`, timeouts in
        // seconds); Droid 0.225.2 read no `hooks.json` beside it.
        AgentKind::Droid => vec![grouped(DROID_EVENTS, 5, None, DROID_TOOL_EVENTS, false)],
        // Copilot's payloads name no event: each entry passes its own. A repository's
        // `.github/hooks/*.json` has a version, `settings.json` none.
        AgentKind::Copilot => vec![Editor::Json(JsonHooks {
            shape: Shape::Flat(Flat {
                command_key: "bash",
                typed: true,
                timeout: Some(("timeoutSec", 5)),
                version: scope == Scope::Project,
                top_level: false,
            }),
            events: COPILOT_EVENTS,
            allow_comments: false,
            command,
            event_argument: true,
            matcher,
        })],
        // Letta reads Claude's settings shape (`~/.letta/settings.json`, or the project's
        // `.letta/settings.json`), timeouts in milliseconds, no comments.
        AgentKind::Letta => vec![grouped(
            LETTA_EVENTS,
            LETTA_TIMEOUT_MS,
            None,
            LETTA_TOOL_EVENTS,
            false,
        )],
        // Auggie reads Claude's settings shape (`~/.augment/settings.json`, the project's
        // `.augment/settings.json`), timeouts in milliseconds; a group without a matcher
        // matches every tool.
        AgentKind::Auggie => vec![grouped(AUGGIE_EVENTS, 5000, None, &[], false)],
        // Qoder reads Claude's settings shape (`~/.qoder/settings.json`, comments
        // stripped), timeouts in seconds; its matcher is a regular expression, so the
        // groups have none (all tools).
        AgentKind::Qoder => vec![grouped(QODER_EVENTS, 5, None, &[], true)],
        // Crush's `crush.json`: flat entries (`command`, `timeout` in seconds), no matcher
        // (all tools); it reads comments.
        AgentKind::Crush => vec![Editor::Json(JsonHooks {
            shape: Shape::Flat(Flat {
                command_key: "command",
                typed: false,
                timeout: Some(("timeout", 5)),
                version: false,
                top_level: false,
            }),
            events: CRUSH_EVENTS,
            allow_comments: true,
            command,
            event_argument: false,
            matcher,
        })],
        // MastraCode reads `~/.mastracode/hooks.json` and the project's
        // `.mastracode/hooks.json`: the event lists at the top level, typed entries,
        // timeouts in milliseconds, no comments.
        AgentKind::MastraCode => vec![Editor::Json(JsonHooks {
            shape: Shape::Flat(Flat {
                command_key: "command",
                typed: true,
                timeout: Some(("timeout", MASTRACODE_TIMEOUT_MS)),
                version: false,
                top_level: true,
            }),
            events: MASTRACODE_EVENTS,
            allow_comments: false,
            command,
            event_argument: false,
            matcher,
        })],
        // Kimi reads hooks from its user `config.toml` only (no project layer).
        AgentKind::Kimi if scope == Scope::Project => {
            return Err(InstallError::Shape {
                path: PathBuf::from(".kimi-code/config.toml"),
                message: "Kimi Code CLI reads hooks only from the user's \
                          ~/.kimi-code/config.toml (install without --project)"
                    .into(),
            })
        }
        AgentKind::Kimi => vec![Editor::Kimi { command, matcher }],
        // Continue reads Claude's settings shape (timeouts in seconds).
        AgentKind::Continue => vec![grouped(
            continue_cli::EVENTS,
            5,
            None,
            CLAUDE_TOOL_EVENTS,
            false,
        )],
        AgentKind::Vibe | AgentKind::Aider | AgentKind::Hermes | AgentKind::OpenHands => {
            let edits = py::edits(agent, scope == Scope::Project, command, matcher)?;
            edits
                .into_iter()
                .map(|edit| match edit {
                    py::Edit::Vibe { command, matcher } => Editor::Vibe { command, matcher },
                    py::Edit::Block { agent, body, keys } => Editor::Block { agent, body, keys },
                    py::Edit::Json(hooks) => Editor::Json(hooks),
                })
                .collect()
        }
        // Not hook entries: a plugin file ([`opencode`], [`amp`]), an extension file
        // ([`pi`]), hook files ([`cline`]).
        AgentKind::OpenCode
        | AgentKind::Amp
        | AgentKind::Kilo
        | AgentKind::Pi
        | AgentKind::Cline
        | AgentKind::Omp
        | AgentKind::Grok
        | AgentKind::Shell => return Err(InstallError::Unsupported(agent)),
    })
}

fn plan(
    agent: AgentKind,
    scope: Scope,
    attend_exe: &Path,
    form: HookForm,
    dirs: &Dirs,
    direction: Direction,
) -> Result<InstallPlan, InstallError> {
    if agent == AgentKind::Grok {
        // No hooks, nothing to write: the plan changes nothing.
        return Ok(InstallPlan {
            agent,
            files: Vec::new(),
            dirs: Vec::new(),
        });
    }
    if matches!(
        agent,
        AgentKind::Pi | AgentKind::Omp | AgentKind::Cline | AgentKind::Amp
    ) || opencode::Host::of(agent).is_some()
    {
        return plan_file(agent, scope, attend_exe, form, dirs, direction);
    }
    let matcher = Matcher::new(agent, attend_exe);
    let editors = editors(agent, scope, attend_exe, form, &matcher, false)?;
    let mut changes = Vec::new();
    for (path, editor) in config_paths(agent, scope, dirs).into_iter().zip(&editors) {
        let path = files::resolve(path);
        let before = files::read_optional(&path)?;
        let after = match (&before, direction) {
            (None, Direction::Uninstall) => None,
            (None, Direction::Install) => Some(editor.edit(&path, "", direction)?),
            (Some(text), Direction::Install) => Some(editor.edit(&path, text, direction)?),
            (Some(text), Direction::Uninstall) => {
                let edited = editor.edit(&path, text, direction)?;
                if &edited == text {
                    Some(edited)
                } else {
                    restore(&path, edited, editor)
                }
            }
        };
        changes.push(FileChange {
            path,
            before,
            after,
            backup: true,
        });
    }
    Ok(InstallPlan {
        agent,
        files: changes,
        dirs: Vec::new(),
    })
}

/// The configuration directory of a plugin `host` for `scope`: `$XDG_CONFIG_HOME/opencode`
/// (by default `~/.config/opencode`; Kilo's `…/kilo`) or the project's `.opencode`
/// (Kilo's `.kilo`).
fn plugin_dir(host: opencode::Host, scope: Scope, dirs: &Dirs) -> PathBuf {
    match scope {
        Scope::User => dirs
            .config_home
            .clone()
            .unwrap_or_else(|| dirs.home.join(".config"))
            .join(host.user_dir),
        Scope::Project => dirs.project.join(host.project_dir),
    }
}

/// pi's directories for `scope`, innermost first, that an uninstall removes when it left
/// them empty: the extensions directory of `$PI_CODING_AGENT_DIR` (the directory itself is
/// the user's), else of `~/.pi/agent` and those two; the project's `.pi/extensions` and
/// `.pi`.
fn pi_dirs(scope: Scope, dirs: &Dirs) -> Vec<PathBuf> {
    match (scope, &dirs.pi_agent_dir) {
        (Scope::User, Some(agent)) => vec![agent.join("extensions")],
        (Scope::User, None) => {
            let pi = dirs.home.join(".pi");
            vec![pi.join("agent/extensions"), pi.join("agent"), pi]
        }
        (Scope::Project, _) => {
            let pi = dirs.project.join(".pi");
            vec![pi.join("extensions"), pi]
        }
    }
}

/// oh-my-pi's directories for `scope` ([`omp::dirs`]): under `~/.omp` or the project's
/// `.omp`.
fn omp_dirs(scope: Scope, dirs: &Dirs) -> Vec<PathBuf> {
    match scope {
        Scope::User => omp::dirs(&dirs.home.join(".omp"), true),
        Scope::Project => omp::dirs(&dirs.project.join(".omp"), false),
    }
}

/// Cline's directories for `scope`, innermost first, that an uninstall removes when it
/// left them empty: `hooks/` of `$CLINE_DIR` (the directory itself is the user's), else of
/// `~/.cline` and that one; the project's `.cline/hooks` and `.cline`.
fn cline_dirs(scope: Scope, dirs: &Dirs) -> Vec<PathBuf> {
    let cline = match (scope, &dirs.cline_dir) {
        (Scope::User, Some(dir)) => return vec![dir.join("hooks")],
        (Scope::User, None) => dirs.home.join(".cline"),
        (Scope::Project, _) => dirs.project.join(".cline"),
    };
    vec![cline.join("hooks"), cline]
}

/// [`plan`] for the agents that load files of Attend's instead of running hook entries:
/// OpenCode's and Kilo Code's plugin ([`opencode`]), pi's extension ([`pi`]), Cline's hook
/// files ([`cline`]), Amp's plugin ([`amp`]); no file is backed up (each is wholly
/// Attend's).
fn plan_file(
    agent: AgentKind,
    scope: Scope,
    attend_exe: &Path,
    form: HookForm,
    dirs: &Dirs,
    direction: Direction,
) -> Result<InstallPlan, InstallError> {
    let argv = match direction {
        Direction::Install => Some(command::hook_argv(attend_exe, form, agent)?),
        Direction::Uninstall => None,
    };
    let planned = match opencode::Host::of(agent) {
        Some(host) => opencode::plan(host, &plugin_dir(host, scope, dirs), argv.as_deref())?,
        None if agent == AgentKind::Cline => {
            cline::plan(&cline_dirs(scope, dirs), argv.as_deref())?
        }
        None if agent == AgentKind::Omp => pi::plan(&omp_dirs(scope, dirs), argv.as_deref())?,
        None if agent == AgentKind::Amp => pi::plan_file(
            &amp::FILE,
            &amp::dirs(&dirs.home, &dirs.project, scope == Scope::User),
            argv.as_deref(),
        )?,
        None => pi::plan(&pi_dirs(scope, dirs), argv.as_deref())?,
    };
    Ok(InstallPlan {
        agent,
        files: planned
            .files
            .into_iter()
            .map(|(path, before, after)| FileChange {
                path,
                before,
                after,
                backup: false,
            })
            .collect(),
        dirs: planned
            .dirs
            .into_iter()
            .map(|(path, create)| DirChange { path, create })
            .collect(),
    })
}

/// The final text of an uninstalled file: the newest backup with the same content (its
/// exact bytes: the user's original formatting); else nothing when the file is blank and
/// has no backup (Attend created it); else the edited text.
fn restore(path: &Path, edited: String, editor: &Editor) -> Option<String> {
    let Some(value) = editor.value(&edited) else {
        return Some(edited);
    };
    let backups = files::backups(path);
    if let Some(original) = backups
        .iter()
        .find(|b| editor.value(b).as_ref() == Some(&value))
    {
        return Some(original.clone());
    }
    if backups.is_empty() && editor.is_blank(&value) {
        return None;
    }
    Some(edited)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_config_paths_are_those_of_the_agents_table() {
        let dirs = Dirs {
            home: PathBuf::from("/home/u"),
            project: PathBuf::from("/p"),
            claude_config_dir: None,
            codex_home: None,
            config_home: None,
            copilot_home: None,
            pi_agent_dir: None,
            cline_dir: None,
        };
        for agent in AgentKind::ALL {
            let table: Vec<PathBuf> = agent
                .row()
                .map(|row| row.config.iter().map(|c| dirs.home.join(&c[2..])).collect())
                .unwrap_or_default();
            assert_eq!(config_paths(agent, Scope::User, &dirs), table, "{agent}");
        }
    }
}
