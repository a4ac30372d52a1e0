//! The commands Attend installs, and how an installed entry is recognised as Attend's.
//!
//! New entries run the hook executable, `<dir>/attend-hook <agent>` (Codex `notify =
//! [<dir>/attend-hook, "codex", "--notify"]`), `<dir>` being the directory of `attend`;
//! entries of the older form `<attend> hook <agent>` are Attend's too: an install
//! rewrites them, an uninstall removes them (docs/decisions/0004-hook-executable.md).

use super::error::InstallError;
use crate::config::{HOOK_EXE, PANE_HOOKS_FLAG};
use crate::model::AgentKind;
use std::path::{Path, PathBuf};

/// Which program Attend's hook entries run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookForm {
    /// `<dir>/attend-hook <agent>`: the small hook executable beside `attend` (the
    /// default).
    Executable,
    /// `<attend> hook <agent>`: the older form, through the `attend` binary itself; used
    /// when no `attend-hook` is installed beside it.
    AttendHook,
}

impl HookForm {
    /// [`HookForm::Executable`] when an `attend-hook` file is beside `attend_exe`, else
    /// [`HookForm::AttendHook`] (a hook must never name a program that is not there).
    pub fn for_installed(attend_exe: &Path) -> HookForm {
        if hook_exe(attend_exe).is_file() {
            HookForm::Executable
        } else {
            HookForm::AttendHook
        }
    }
}

/// The hook executable's path: `attend-hook` in the directory of `attend_exe`.
pub fn hook_exe(attend_exe: &Path) -> PathBuf {
    attend_exe.with_file_name(HOOK_EXE)
}

/// The hook command line for `agent`: `<dir>/attend-hook <agent>` or `<attend> hook
/// <agent>` (with `pane`: followed by `--pane-hooks`, the entry Attend gives an agent it
/// starts, docs/decisions/0008-per-pane-hooks.md), the program shell-quoted when it needs
/// quoting (spaces, quotes, `$` …), since the agents run it through a shell.
///
/// Errors: [`InstallError::ExePath`] when the path is relative, not UTF-8 or holds a NUL.
pub(super) fn hook_command(
    attend_exe: &Path,
    form: HookForm,
    agent: AgentKind,
    pane: bool,
) -> Result<String, InstallError> {
    let mut argv = hook_argv(attend_exe, form, agent)?;
    if pane {
        argv.push(PANE_HOOKS_FLAG.into());
    }
    let program =
        shlex::try_quote(&argv[0]).map_err(|_| InstallError::ExePath(attend_exe.to_path_buf()))?;
    Ok(std::iter::once(program.as_ref())
        .chain(argv[1..].iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" "))
}

/// The Codex `notify` argv: `[<dir>/attend-hook, "codex", "--notify"]` or `[<attend>,
/// "hook", "codex", "--notify"]` (docs/adapters.md "Codex CLI"), with `pane` followed by
/// `--pane-hooks`; no quoting, Codex executes the argv directly.
pub(super) fn notify_argv(
    attend_exe: &Path,
    form: HookForm,
    pane: bool,
) -> Result<Vec<String>, InstallError> {
    let mut argv = hook_argv(attend_exe, form, AgentKind::Codex)?;
    argv.push("--notify".into());
    if pane {
        argv.push(PANE_HOOKS_FLAG.into());
    }
    Ok(argv)
}

/// The argv of a hook entry (program path first, as is): `[<dir>/attend-hook, <agent>]`
/// or `[<attend>, "hook", <agent>]`.
///
/// Errors: [`InstallError::ExePath`] when the path is relative, not UTF-8 or holds a NUL.
pub(super) fn hook_argv(
    attend_exe: &Path,
    form: HookForm,
    agent: AgentKind,
) -> Result<Vec<String>, InstallError> {
    exe_str(attend_exe)?;
    Ok(match form {
        HookForm::Executable => vec![
            exe_str(&hook_exe(attend_exe))?.to_string(),
            agent.as_str().into(),
        ],
        HookForm::AttendHook => vec![
            exe_str(attend_exe)?.to_string(),
            "hook".into(),
            agent.as_str().into(),
        ],
    })
}

fn exe_str(attend_exe: &Path) -> Result<&str, InstallError> {
    match attend_exe.to_str() {
        Some(s) if attend_exe.is_absolute() && !s.contains('\0') => Ok(s),
        _ => Err(InstallError::ExePath(attend_exe.to_path_buf())),
    }
}

/// Recognises Attend's entries, so that re-installing after the binary moved (or from the
/// older `attend hook` form) rewrites the old entries and uninstalling removes exactly
/// them: an argv `<…/attend-hook> <agent> …`, or `<…/attend> hook <agent> …` (also with
/// the file name of the current `attend` executable), whatever the directory.
pub(super) struct Matcher {
    agent: &'static str,
    exe_name: Option<String>,
}

impl Matcher {
    pub(super) fn new(agent: AgentKind, attend_exe: &Path) -> Matcher {
        Matcher {
            agent: agent.as_str(),
            exe_name: file_name(attend_exe).map(str::to_string),
        }
    }

    /// True for a hook command string (split with POSIX shell rules) that is Attend's.
    pub(super) fn is_ours_command(&self, command: &str) -> bool {
        shlex::split(command).is_some_and(|argv| self.is_ours_argv(&argv))
    }

    /// True for an argv that is Attend's (`<…/attend-hook> <agent> …` or `<…/attend> hook
    /// <agent> …`).
    pub(super) fn is_ours_argv<S: AsRef<str>>(&self, argv: &[S]) -> bool {
        let Some(program) = argv.first() else {
            return false;
        };
        let name = file_name(Path::new(program.as_ref()));
        let rest: Vec<&str> = argv[1..].iter().map(AsRef::as_ref).collect();
        if name == Some(HOOK_EXE) {
            return rest.first() == Some(&self.agent);
        }
        let attend_named = name == Some("attend") || name == self.exe_name.as_deref();
        attend_named && rest.len() >= 2 && rest[0] == "hook" && rest[1] == self.agent
    }
}

fn file_name(path: &Path) -> Option<&str> {
    path.file_name().and_then(|n| n.to_str())
}
