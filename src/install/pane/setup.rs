//! What the pane hooks of one agent are made of: the setup [`super::plan`] reads, the
//! result it returns ([`PaneHooks`], which writes its files), and the pieces every agent
//! shares: Attend's entries in the agent's settings shape and their merge into the user's
//! settings.

use crate::install::command::Matcher;
use crate::install::error::InstallError;
use crate::install::{editors, Editor, HookForm};
use crate::model::AgentKind;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What the pane's process gets: its argv, the variables added to its environment, and
/// the generated files to write before it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneHooks {
    /// The argv to spawn: the user's, with Attend's hook arguments added.
    pub argv: Vec<String>,
    /// Added to the environment: `ATTEND_PANE_HOOKS=<agent>`.
    pub env: Vec<(String, String)>,
    /// Generated files (absolute path, whole text) the argv or environment names.
    pub files: Vec<(PathBuf, String)>,
}

impl PaneHooks {
    /// Writes [`PaneHooks::files`]: each through a temporary file renamed over the
    /// target, readable by the user only (0600; they may hold the user's settings),
    /// parent directories created (0700).
    ///
    /// Errors: [`InstallError::Io`] naming the file.
    pub fn write(&self) -> Result<(), InstallError> {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        for (path, text) in &self.files {
            let io = |source| InstallError::Io {
                path: path.clone(),
                source,
            };
            let dir = path.parent().unwrap_or(Path::new("/"));
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(io)?;
            let mut tmp = path.clone().into_os_string();
            tmp.push(format!(".tmp-{}", std::process::id()));
            let tmp = PathBuf::from(tmp);
            let written = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(&tmp)
                .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
                .and_then(|()| std::fs::rename(&tmp, path));
            if let Err(e) = written {
                let _ = std::fs::remove_file(&tmp);
                return Err(io(e));
            }
        }
        Ok(())
    }
}

/// Reads a user file for [`PaneSetup::read`]: `Ok(None)` when it does not exist.
///
/// Errors: [`InstallError::Io`], also for text that is not UTF-8.
pub fn read_user_file(path: &Path) -> Result<Option<String>, InstallError> {
    crate::install::files::read_optional(path)
}

/// Everything [`plan`] reads, passed in so it stays free of I/O.
pub struct PaneSetup<'a> {
    /// The agent the pane runs (the `--agent` flag, else detected from the program).
    pub agent: AgentKind,
    /// The command as the user gave it (or the resume argv).
    pub argv: &'a [String],
    /// The pane's working directory (a relative `--settings` path is read from there).
    pub cwd: &'a Path,
    /// The `attend` executable whose `attend-hook` the entries run.
    pub attend_exe: &'a Path,
    /// Which program the entries run ([`HookForm::for_installed`]).
    pub form: HookForm,
    /// Where the generated files go (the daemon's runtime directory).
    pub dir: &'a Path,
    /// The pane id, which names the generated files (`p3-claude-settings.json`).
    pub pane: &'a str,
    /// The pane's environment as the agent will see it before `env NAME=VALUE` prefixes
    /// of the argv (those are applied on top by [`plan`]).
    pub var: &'a dyn Fn(&str) -> Option<String>,
    /// Reads a user file: `Ok(None)` when it does not exist.
    pub read: &'a dyn Fn(&Path) -> Result<Option<String>, InstallError>,
}

/// Attend's entries for `agent` as its settings file holds them (`{"hooks": {"<Event>":
/// [group, …]}}`, the shape `install-hooks` writes, every command marked `--pane-hooks`),
/// and Codex's notify argv.
pub(super) fn entries(setup: &PaneSetup<'_>) -> Result<(Value, Option<Vec<String>>), InstallError> {
    let matcher = Matcher::new(setup.agent, setup.attend_exe);
    let editors = editors(
        setup.agent,
        crate::install::Scope::User,
        setup.attend_exe,
        setup.form,
        &matcher,
        true,
    )?;
    let mut hooks = Value::Null;
    let mut notify = None;
    for editor in &editors {
        match editor {
            Editor::Json(json) => {
                let text = json.install(Path::new("<pane>"), "")?;
                hooks = serde_json::from_str(&text).unwrap_or(Value::Null);
            }
            Editor::CodexNotify { argv, .. } => notify = Some(argv.clone()),
            // Kimi, Vibe, aider and Hermes panes get no hooks of their own (`super::plan`).
            Editor::Kimi { .. } | Editor::Vibe { .. } | Editor::Block { .. } => {}
        }
    }
    Ok((hooks, notify))
}

/// `base` (a settings object) with Attend's `entries` appended to its `hooks`, event by
/// event after the user's own groups. Errors: [`InstallError::Shape`] when `base` is not
/// an object, or its `hooks` or an event's value has another type.
pub(super) fn merge_hooks(
    path: &Path,
    mut base: Value,
    entries: &Value,
) -> Result<Value, InstallError> {
    let shape = |message: &str| InstallError::Shape {
        path: path.to_path_buf(),
        message: message.to_string(),
    };
    let top = base
        .as_object_mut()
        .ok_or_else(|| shape("the settings are not a JSON object"))?;
    let hooks = top
        .entry("hooks")
        .or_insert_with(|| Value::Object(Default::default()))
        .as_object_mut()
        .ok_or_else(|| shape("`hooks` is not an object"))?;
    for (event, groups) in entries["hooks"].as_object().into_iter().flatten() {
        let list = hooks
            .entry(event.clone())
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| shape(&format!("`hooks.{event}` is not a list")))?;
        list.extend(groups.as_array().into_iter().flatten().cloned());
    }
    Ok(base)
}

/// The generated file `<dir>/<pane>-<name>`.
pub(super) fn generated(setup: &PaneSetup<'_>, name: &str) -> PathBuf {
    setup.dir.join(format!("{}-{name}", setup.pane))
}
