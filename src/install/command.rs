//! The commands Attend installs, and how an installed entry is recognised as Attend's.

use super::InstallError;
use crate::model::AgentKind;
use std::path::Path;

/// The hook command line for `agent`: `<attend> hook <agent>`, the executable shell-quoted
/// when it needs quoting (spaces, quotes, `$` …), since the agents run it through a shell.
///
/// Errors: [`InstallError::ExePath`] when the path is relative, not UTF-8 or holds a NUL.
pub(super) fn hook_command(attend_exe: &Path, agent: AgentKind) -> Result<String, InstallError> {
    let exe = exe_str(attend_exe)?;
    let quoted =
        shlex::try_quote(exe).map_err(|_| InstallError::ExePath(attend_exe.to_path_buf()))?;
    Ok(format!("{quoted} hook {}", agent.as_str()))
}

/// The Codex `notify` argv: `[<attend>, "hook", "codex", "--notify"]`
/// (`docs/adapters.md#the-hook-wire`); no quoting, Codex executes the argv directly.
pub(super) fn notify_argv(attend_exe: &Path) -> Result<Vec<String>, InstallError> {
    let exe = exe_str(attend_exe)?;
    Ok(vec![
        exe.into(),
        "hook".into(),
        "codex".into(),
        "--notify".into(),
    ])
}

fn exe_str(attend_exe: &Path) -> Result<&str, InstallError> {
    match attend_exe.to_str() {
        Some(s) if attend_exe.is_absolute() && !s.contains('\0') => Ok(s),
        _ => Err(InstallError::ExePath(attend_exe.to_path_buf())),
    }
}

/// Recognises Attend's entries, so that re-installing after the binary moved replaces the
/// old entries and uninstalling removes exactly them: an argv whose program's file name is
/// `attend` (or the file name of the current executable) followed by `hook <agent>`.
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

    /// True for an argv that is Attend's (`<…/attend> hook <agent> …`).
    pub(super) fn is_ours_argv<S: AsRef<str>>(&self, argv: &[S]) -> bool {
        let [program, verb, agent, ..] = argv else {
            return false;
        };
        let name = file_name(Path::new(program.as_ref()));
        let attend_named = name == Some("attend") || name == self.exe_name.as_deref();
        attend_named && verb.as_ref() == "hook" && agent.as_ref() == self.agent
    }
}

fn file_name(path: &Path) -> Option<&str> {
    path.file_name().and_then(|n| n.to_str())
}
