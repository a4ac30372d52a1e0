//! `install-hooks cline`. Cline CLI runs every hook file it finds in its hooks directories,
//! one file per event named after it (`TaskStart`, `PreToolUse`, …): the user's
//! `$CLINE_DIR/hooks` (by default `~/.cline/hooks`) and the project's `.cline/hooks`
//! (also `~/Documents/Cline/Hooks` and `.clinerules/hooks`, not written here). Attend
//! writes one small shell script per event it maps ([`EVENTS`]) that hands the payload on
//! stdin to `<dir>/attend-hook cline <Event>` (docs/adapters.md "Cline CLI"). Cline runs a
//! hook file through the interpreter its `#!` line names, so no mode bit is needed.
//!
//! The files are wholly Attend's: a file of one of those names whose second line is not
//! the marker is the user's (an install refuses to replace it and writes nothing, an
//! uninstall keeps it). Uninstall deletes Attend's files, then each directory of
//! [`plan`]'s `dirs` (innermost first) that is left empty: install → uninstall leaves the
//! tree as it was.

use super::error::InstallError;
use super::files;
use super::opencode::Planned;
use std::path::{Path, PathBuf};

/// The events Attend installs a hook file for, in the order of `data/agents.tsv`: every
/// event Cline 3.0.65 runs but `PreCompact`, which says nothing of the pane's state.
pub(super) const EVENTS: [&str; 9] = [
    "TaskStart",
    "TaskResume",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "TaskComplete",
    "TaskError",
    "TaskCancel",
    "SessionShutdown",
];

/// The second line of each of Attend's hook files: a file that has it is Attend's.
const MARKER: &str = "# Attend's Cline hook";

/// The files an install writes into the hooks directory `dir`, one per [`EVENTS`].
pub(super) fn paths(dir: &Path) -> Vec<PathBuf> {
    EVENTS.iter().map(|event| dir.join(event)).collect()
}

/// The hook file of `event`: a `sh` script that runs `argv` (program first, each word
/// shell-quoted) with the event as its last argument, the payload on its stdin.
///
/// Errors: [`InstallError::ExePath`] when a word cannot be quoted (a NUL byte).
pub fn hook_file(argv: &[String], event: &str) -> Result<String, InstallError> {
    let words = argv
        .iter()
        .map(|w| {
            shlex::try_quote(w)
                .map(|q| q.into_owned())
                .map_err(|_| InstallError::ExePath(PathBuf::from(w)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(format!(
        "#!/bin/sh\n{MARKER} (attend install-hooks cline): hands Cline's {event} payload to Attend.\nexec {} {event}\n",
        words.join(" ")
    ))
}

/// True for the text of one of Attend's hook files.
fn is_ours(text: &str) -> bool {
    text.lines().nth(1).is_some_and(|l| l.starts_with(MARKER))
}

/// Plans installing Attend's hook files into `dirs[0]` (the hooks directory) with the hook
/// argv `install` (program first), or removing them (`None`); on removal, each of `dirs`
/// (innermost first: `hooks/`, then the Cline directory) that nothing else is left in is
/// removed too. Reads, writes nothing.
///
/// Errors: [`InstallError::Shape`] when a file of one of those names is not Attend's
/// (install only), [`InstallError::ExePath`], [`InstallError::Io`].
pub(super) fn plan(dirs: &[PathBuf], install: Option<&[String]>) -> Result<Planned, InstallError> {
    let Some(hooks) = dirs.first() else {
        return Ok(Planned {
            files: Vec::new(),
            dirs: Vec::new(),
        });
    };
    let mut planned = Vec::new();
    let mut gone = Vec::new();
    for (event, path) in EVENTS.iter().zip(paths(hooks)) {
        let file = files::resolve(path);
        let before = files::read_optional(&file)?;
        let ours = before.as_deref().is_some_and(is_ours);
        let after = match install {
            Some(_) if before.is_some() && !ours => {
                return Err(InstallError::Shape {
                    path: file,
                    message: "a hook file of that name is there that is not Attend's \
                              (Cline also runs `<Event>.sh`: rename yours so both run)"
                        .into(),
                })
            }
            Some(argv) => Some(hook_file(argv, event)?),
            None if ours => {
                gone.push(file.clone());
                None
            }
            None => before.clone(),
        };
        planned.push((file, before, after));
    }
    // What is left once Attend's files are gone, directory by directory outwards.
    let mut dir_changes = Vec::new();
    if install.is_none() && !gone.is_empty() {
        for dir in dirs {
            if entries(dir).iter().all(|e| gone.contains(e)) {
                dir_changes.push((dir.clone(), false));
                gone.push(dir.clone());
            } else {
                break;
            }
        }
    }
    Ok(Planned {
        files: planned,
        dirs: dir_changes,
    })
}

/// The entries of `dir` (none when it cannot be read).
fn entries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|it| it.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_file_runs_the_quoted_argv_with_its_event_and_is_known_as_attends() {
        let argv = vec!["/opt/my attend/attend-hook".to_string(), "cline".into()];
        let text = hook_file(&argv, "TaskStart").unwrap();
        assert!(text.starts_with("#!/bin/sh\n"));
        assert!(text.ends_with("\nexec '/opt/my attend/attend-hook' cline TaskStart\n"));
        assert!(is_ours(&text));
        assert!(!is_ours("#!/bin/sh\necho mine\n"));
        assert!(!is_ours(MARKER), "the marker belongs on the second line");
    }
}
