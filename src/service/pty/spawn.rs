//! What to spawn ([`SpawnSpec`]), why it could not be ([`SpawnError`]), and the checks
//! that run before anything is started: the working directory and the program as exec
//! would find it.

use std::io;
use std::path::{Path, PathBuf};

/// History lines kept per pane unless the caller asks otherwise.
pub const DEFAULT_SCROLLBACK: usize = 2000;

/// What to spawn and how big its terminal is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnSpec {
    /// Program and arguments; `argv[0]` is looked up in `PATH` (the one in `env` if given).
    pub argv: Vec<String>,
    /// Working directory; must exist.
    pub cwd: PathBuf,
    /// Added to the daemon's environment (the caller puts `ATTEND_PANE=<pane>` here).
    /// `TERM=xterm-256color` is added when this has no `TERM`.
    pub env: Vec<(String, String)>,
    pub rows: u16,
    pub cols: u16,
    /// History lines kept ([`DEFAULT_SCROLLBACK`]): rows that scrolled off the top of the
    /// screen, see [`PtyHandle::history`].
    pub scrollback: usize,
}

impl SpawnSpec {
    /// `argv` in `cwd` with a 24×80 terminal, no extra environment and the default
    /// scrollback.
    pub fn new(argv: Vec<String>, cwd: impl Into<PathBuf>) -> SpawnSpec {
        SpawnSpec {
            argv,
            cwd: cwd.into(),
            env: Vec::new(),
            rows: 24,
            cols: 80,
            scrollback: DEFAULT_SCROLLBACK,
        }
    }
}

/// Why a program could not be started. Nothing is left running when this is returned.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("cannot spawn: the command is empty")]
    EmptyCommand,
    /// The program was not found, is not executable, or exec failed:
    /// "cannot spawn `nosuchprog`: No such file or directory (os error 2)".
    #[error("cannot spawn `{program}`: {source}")]
    Program { program: String, source: io::Error },
    #[error("cannot spawn `{program}` in {}: {source}", cwd.display())]
    Cwd {
        program: String,
        cwd: PathBuf,
        source: io::Error,
    },
    #[error("cannot open a pseudo-terminal: {0}")]
    Pty(String),
}

/// Checks `spec` before anything is started: a program is named, the working directory
/// exists, and the program can be executed as exec would find it (`PATH` from `spec.env`
/// when given there). Returns the program (`argv[0]`).
pub fn check(spec: &SpawnSpec) -> Result<String, SpawnError> {
    let program = spec.argv.first().ok_or(SpawnError::EmptyCommand)?.clone();
    if !spec.cwd.is_dir() {
        let source = std::fs::metadata(&spec.cwd)
            .err()
            .unwrap_or_else(|| io::Error::from_raw_os_error(nix::libc::ENOTDIR));
        return Err(SpawnError::Cwd {
            program,
            cwd: spec.cwd.clone(),
            source,
        });
    }
    let path_var = spec
        .env
        .iter()
        .rev()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone().into())
        .or_else(|| std::env::var_os("PATH"));
    resolve_program(&program, &spec.cwd, path_var.as_deref()).map_err(|source| {
        SpawnError::Program {
            program: program.clone(),
            source,
        }
    })?;
    Ok(program)
}

/// Checks that `program` can be executed the way exec would find it: a path containing
/// `/` relative to `cwd`, else the first match in `path`. Errors are the OS errors exec
/// would give (ENOENT, EACCES, EISDIR).
fn resolve_program(
    program: &str,
    cwd: &Path,
    path: Option<&std::ffi::OsStr>,
) -> io::Result<PathBuf> {
    use nix::unistd::{access, AccessFlags};
    let check = |candidate: &Path| -> io::Result<()> {
        if candidate.is_dir() {
            return Err(io::Error::from_raw_os_error(nix::libc::EISDIR));
        }
        access(candidate, AccessFlags::X_OK).map_err(io::Error::from)
    };
    if program.contains('/') {
        let candidate = cwd.join(program);
        check(&candidate)?;
        return Ok(candidate);
    }
    let mut first_error = None;
    for dir in std::env::split_paths(path.unwrap_or_default()) {
        let candidate = cwd.join(dir).join(program);
        match check(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.unwrap_or_else(|| io::Error::from_raw_os_error(nix::libc::ENOENT)))
}
