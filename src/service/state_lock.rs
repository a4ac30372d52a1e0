//! One daemon owns a state directory: an exclusive `flock` on `daemon.lock` in it, held
//! for the daemon's lifetime (the kernel drops it when the process ends, even on
//! `kill -9`, so a crash never leaves a stale lock). Two daemons on two session buses (a
//! desktop session and an SSH login) that share `~/.local/state/attend` would otherwise
//! both write `attend.db`, mark each other's live panes exited and fail each other's
//! commits (`docs/decisions/0005-one-service-thin-clients.md`).

use nix::fcntl::{Flock, FlockArg};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// File name of the lock inside the state directory; it holds the owner's pid (text).
pub const LOCK_FILE: &str = "daemon.lock";

/// Why the state directory could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum StateLockError {
    /// Another process holds the lock.
    #[error(
        "another attend daemon{} already uses the state directory {} (perhaps on another \
         D-Bus session bus); stop it first, or give this one its own ATTEND_STATE_DIR",
        .holder.map(|p| format!(" (pid {p})")).unwrap_or_default(),
        .dir.display()
    )]
    InUse { dir: PathBuf, holder: Option<u32> },
    /// The directory or the lock file cannot be made or opened.
    #[error("cannot lock the state directory {}: {source}", .dir.display())]
    Io {
        dir: PathBuf,
        source: std::io::Error,
    },
}

/// The held lock; dropping it releases the directory.
#[derive(Debug)]
pub struct StateLock {
    _lock: Flock<File>,
}

/// Takes `dir` for this process (creating it 0700 when missing) and writes this pid into
/// the lock file (best effort). Errors: [`StateLockError::InUse`] with the holder's pid when another
/// process holds it (nothing is touched), [`StateLockError::Io`] otherwise.
pub fn lock(dir: &Path) -> Result<StateLock, StateLockError> {
    let io = |source| StateLockError::Io {
        dir: dir.to_path_buf(),
        source,
    };
    if !dir.is_dir() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(io)?;
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(dir.join(LOCK_FILE))
        .map_err(io)?;
    let mut lock = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(l) => l,
        Err((mut file, nix::errno::Errno::EWOULDBLOCK)) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            return Err(StateLockError::InUse {
                dir: dir.to_path_buf(),
                holder: text.trim().parse().ok(),
            });
        }
        Err((_, e)) => return Err(io(e.into())),
    };
    // The pid is for the message a second daemon prints; a full disk must not stop the
    // daemon from starting (hooks spool until space returns), so writing it is best effort.
    let _ = lock
        .set_len(0)
        .and_then(|()| lock.rewind())
        .and_then(|()| writeln!(lock, "{}", std::process::id()));
    Ok(StateLock { _lock: lock })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_directory_is_refused_with_the_holders_pid() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("state");
        let first = lock(&dir).expect("the first lock");
        match lock(&dir) {
            Err(StateLockError::InUse { holder, .. }) => {
                assert_eq!(holder, Some(std::process::id()))
            }
            other => panic!("expected InUse, got {other:?}"),
        }
        drop(first);
        lock(&dir).expect("free again once the first is dropped");
    }
}
