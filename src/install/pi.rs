//! `install-hooks pi`. pi runs no hook commands; it loads TypeScript extensions: Attend's
//! extension (`data/pi/attend.ts`, compiled in, the one source of the file Meson also
//! installs) is written as `extensions/attend.ts` into pi's agent directory
//! (`$PI_CODING_AGENT_DIR`, by default `~/.pi/agent`) or the project's `.pi/`, with the
//! hook argv (`<dir>/attend-hook pi`, absolute) in its `const HOOK = …` line
//! (docs/adapters.md "pi").
//!
//! The file is wholly Attend's: a file of that name whose first line is not the marker is
//! the user's (an install refuses to replace it, an uninstall keeps it). Uninstall deletes
//! Attend's file, then each directory of [`plan`]'s `dirs` (innermost first) that is left
//! empty: install → uninstall leaves the tree as it was.

use super::error::InstallError;
use super::files;
use super::opencode::Planned;
use std::path::{Path, PathBuf};

/// The extension as shipped (`const HOOK = ["attend-hook", "pi"];`: found on `PATH`).
pub const EXTENSION: &str = include_str!("../../data/pi/attend.ts");

/// The extension's first line: a file of [`FILE`] that starts with it is Attend's.
const MARKER: &str = "// Attend's pi extension";

/// The start of the line that holds the hook argv.
const HOOK_LINE: &str = "const HOOK = ";

/// The extension's file name in the extensions directory.
const FILE: &str = "attend.ts";

/// The file an install writes into the extensions directory `dir`.
pub(super) fn path(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// [`EXTENSION`] with `argv` (program first) in its `const HOOK = […];` line, each element
/// a JSON string.
pub fn extension_text(argv: &[String]) -> String {
    with_hook(EXTENSION, argv)
}

/// `template` (a file of Attend's with a `const HOOK = […];` line: pi's extension, Amp's
/// plugin) with `argv` (program first) in that line, each element a JSON string.
pub(super) fn with_hook(template: &str, argv: &[String]) -> String {
    let list: Vec<String> = argv
        .iter()
        .map(|a| serde_json::Value::String(a.clone()).to_string())
        .collect();
    let line = format!("{HOOK_LINE}[{}];", list.join(", "));
    template
        .split_inclusive('\n')
        .map(|l| {
            if l.starts_with(HOOK_LINE) {
                format!("{line}\n")
            } else {
                l.to_string()
            }
        })
        .collect()
}

/// Plans installing Attend's pi extension into `dirs[0]` (the extensions directory) with
/// the hook argv `install` (program first), or removing it (`None`); on removal, each of
/// `dirs` (innermost first: `extensions/`, the agent directory, `.pi/`) that nothing else
/// is left in is removed too. Reads, writes nothing.
///
/// Errors: [`InstallError::Shape`] when a file of that name is not Attend's (install
/// only), [`InstallError::Io`].
pub(super) fn plan(dirs: &[PathBuf], install: Option<&[String]>) -> Result<Planned, InstallError> {
    plan_file(&PI, dirs, install)
}

/// A file that is wholly Attend's, written from a template with a hook line.
pub(super) struct OwnFile {
    /// The shipped text (its hook line runs `attend-hook` from `PATH`).
    pub template: &'static str,
    /// How the file starts: a file of that name that starts otherwise is the user's.
    pub marker: &'static str,
    /// Its file name in the first of the plan's directories.
    pub name: &'static str,
}

/// pi's extension.
const PI: OwnFile = OwnFile {
    template: EXTENSION,
    marker: MARKER,
    name: FILE,
};

/// [`plan`] for any [`OwnFile`]: written into `dirs[0]` with the hook argv `install`, or
/// removed (`None`) with each of `dirs` that nothing else is left in. Errors as [`plan`].
pub(super) fn plan_file(
    own: &OwnFile,
    dirs: &[PathBuf],
    install: Option<&[String]>,
) -> Result<Planned, InstallError> {
    let Some(extensions) = dirs.first() else {
        return Ok(Planned {
            files: Vec::new(),
            dirs: Vec::new(),
        });
    };
    let file = files::resolve(extensions.join(own.name));
    let before = files::read_optional(&file)?;
    let ours = before.as_deref().is_some_and(|t| t.starts_with(own.marker));
    let mut dir_changes = Vec::new();
    let after = match install {
        Some(argv) => {
            if before.is_some() && !ours {
                return Err(InstallError::Shape {
                    path: file,
                    message: "a file of that name is there that is not Attend's".into(),
                });
            }
            Some(with_hook(own.template, argv))
        }
        None if ours => {
            // What is left once the file is gone, directory by directory outwards.
            let mut gone = vec![file.clone()];
            for dir in dirs {
                if entries(dir).iter().all(|e| gone.contains(e)) {
                    dir_changes.push((dir.clone(), false));
                    gone.push(dir.clone());
                } else {
                    break;
                }
            }
            None
        }
        None => before.clone(),
    };
    Ok(Planned {
        files: vec![(file, before, after)],
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
    fn the_hook_line_is_replaced_and_nothing_else() {
        let argv = vec!["/opt/my attend/attend-hook".to_string(), "pi".into()];
        let text = extension_text(&argv);
        assert!(text.contains("\nconst HOOK = [\"/opt/my attend/attend-hook\", \"pi\"];\n"));
        let differing = text
            .lines()
            .zip(EXTENSION.lines())
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(differing, 1);
        assert_eq!(text.lines().count(), EXTENSION.lines().count());
        assert!(text.starts_with(MARKER) && EXTENSION.starts_with(MARKER));
        // The shipped file runs the hook executable from PATH.
        assert_eq!(
            extension_text(&["attend-hook".into(), "pi".into()]),
            EXTENSION
        );
    }
}
