//! The one error type of hook installation, a leaf every file of `install` names.

use crate::model::AgentKind;
use std::path::PathBuf;

/// Why planning or applying failed. Planning errors leave every file untouched.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The user's file is not valid JSON or TOML; `line` and `column` are 1-based.
    #[error("{}: line {line}, column {column}: {message}; nothing was changed", path.display())]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// The file parses, but a value Attend must add to has another type.
    #[error("{}: {message}; nothing was changed", path.display())]
    Shape { path: PathBuf, message: String },
    /// Codex `config.toml` already has a `notify` program that is not Attend's.
    #[error(
        "{}: `notify` is already set to {existing}. Codex runs only one notify program, so \
         Attend will not replace yours; remove that line (or make your program call \
         `attend-hook codex --notify` too) and run install-hooks again; nothing was changed",
        path.display()
    )]
    NotifyTaken { path: PathBuf, existing: String },
    /// The attend executable path is relative, not UTF-8 or holds a NUL byte.
    #[error("the attend executable path {} must be absolute UTF-8", .0.display())]
    ExePath(PathBuf),
    /// The agent kind has no hooks (`shell`).
    #[error("{0} has no hooks to install")]
    Unsupported(AgentKind),
    /// A file changed between planning and applying; nothing was written.
    #[error("{} changed since the plan was made; nothing was written", path.display())]
    Changed { path: PathBuf },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}
