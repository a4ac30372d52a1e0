//! The CLI's standard output (`docs/cli.md#broken-pipes`): when the reader goes away
//! (`attend man | head -1`, `attend events --follow | head`), the command ends quietly
//! with status 0 — no message, no panic — as `cat` and `grep` end under a shell that
//! ignores SIGPIPE. Every command writes through [`write`]; a follower, which may wait
//! long between two lines, also watches for the reader leaving ([`reader_gone`]).

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

/// Resolves once the reader of stdout went away while nothing is written: the read end of
/// the pipe closed (`POLLERR`), or the socket's peer or the terminal hung up (`POLLHUP`).
/// Never for a file or `/dev/null`. A follower waits on it beside its next line, so
/// `attend events --follow | head -2` ends when `head` does, not at the next event.
pub async fn reader_gone() {
    let (tx, rx) = tokio::sync::oneshot::channel();
    // A thread of its own rather than the runtime's blocking pool, which the runtime
    // would wait for at exit; it blocks in poll(2) until the process ends.
    let watch = std::thread::Builder::new()
        .name("stdout-watch".into())
        .spawn(move || {
            use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
            use std::os::fd::AsFd;
            let stdout = std::io::stdout();
            // No events asked for: poll(2) reports only POLLERR, POLLHUP and POLLNVAL.
            let mut fds = [PollFd::new(stdout.as_fd(), PollFlags::empty())];
            loop {
                match poll(&mut fds, PollTimeout::NONE) {
                    Ok(_) => {
                        let gone = PollFlags::POLLERR | PollFlags::POLLHUP;
                        if fds[0].revents().is_some_and(|r| r.intersects(gone)) {
                            let _ = tx.send(());
                        }
                        // POLLNVAL (no stdout at all) or gone: nothing more to watch.
                        return;
                    }
                    Err(nix::errno::Errno::EINTR) => continue,
                    Err(_) => return,
                }
            }
        });
    // Without the watch (no thread, no stdout), only a failed write tells.
    if watch.is_err() || rx.await.is_err() {
        std::future::pending::<()>().await;
    }
}
