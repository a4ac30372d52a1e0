//! The CLI's standard output (`docs/cli.md#broken-pipes`): when the reader goes away
//! (`attend man | head -1`, `attend events --follow | head`), the command ends quietly
//! with status 0 — no message, no panic — as `cat` and `grep` end under a shell that
//! ignores SIGPIPE. Every command writes through [`write`].

use super::client::{CliError, EXIT_INTERNAL};
use std::io::Write;

/// Writes `s` to stdout and flushes. Errors: [`CliError::closed`] when the reader went
/// away (`EPIPE`), exit 4 for any other write failure.
pub fn write(s: &str) -> Result<(), CliError> {
    write_bytes(s.as_bytes())
}

/// [`write`] for bytes (roff, completions).
pub fn write_bytes(b: &[u8]) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(b)
        .and_then(|_| out.flush())
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::BrokenPipe => CliError::closed(),
            _ => CliError::new(EXIT_INTERNAL, format!("cannot write to stdout: {e}")),
        })
}

/// [`write`] with a newline after `s`.
pub fn line(s: &str) -> Result<(), CliError> {
    write(&format!("{s}\n"))
}
