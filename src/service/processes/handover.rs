//! `attend daemon --replace`: hand over to this process without ending any agent
//! (`docs/decisions/0009-pane-holders.md`; upgrade = install + restart). Ask the running
//! daemon to quit over D-Bus, wait for its state lock a bounded time, then SIGTERM, then
//! SIGKILL the pid recorded with the lock. The agents live in their holders either way;
//! the new daemon re-adopts them.

use crate::config::{BUS_NAME, INTERFACE, OBJECT_PATH};
use crate::system::state_lock::{self, StateLock, StateLockError, LOCK_FILE};
use std::path::Path;
use std::time::{Duration, Instant};

/// How long the running daemon gets after `Quit`, and again after SIGTERM, to release
/// the state directory.
pub const REPLACE_WAIT: Duration = Duration::from_secs(5);

/// How often the lock is tried while waiting.
const POLL: Duration = Duration::from_millis(50);

/// Takes the state directory `dir` from the daemon that holds it (see the module docs).
/// Errors: [`StateLockError::InUse`] when it still holds it after SIGKILL (another user's
/// process, say), [`StateLockError::Io`] when the lock cannot be taken at all.
pub async fn take_over(conn: &zbus::Connection, dir: &Path) -> Result<StateLock, StateLockError> {
    match state_lock::lock(dir) {
        Err(StateLockError::InUse { .. }) => {}
        other => return other,
    }
    let quit = conn.call_method(Some(BUS_NAME), OBJECT_PATH, Some(INTERFACE), "Quit", &());
    match tokio::time::timeout(Duration::from_secs(2), quit).await {
        Ok(Ok(_)) => tracing::info!("--replace: asked the running daemon to quit"),
        Ok(Err(e)) => tracing::info!("--replace: the running daemon did not take Quit ({e})"),
        Err(_) => tracing::warn!("--replace: the running daemon did not answer Quit"),
    }
    if let Some(lock) = wait_for_lock(dir, REPLACE_WAIT).await? {
        return Ok(lock);
    }
    for signal in [
        nix::sys::signal::Signal::SIGTERM,
        nix::sys::signal::Signal::SIGKILL,
    ] {
        if let Some(pid) = holder_pid(dir) {
            tracing::warn!(pid, ?signal, "--replace: the running daemon is still there");
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal);
        }
        if let Some(lock) = wait_for_lock(dir, REPLACE_WAIT).await? {
            return Ok(lock);
        }
    }
    state_lock::lock(dir)
}

/// Waits until the lock is free (and takes it), at most `limit`.
async fn wait_for_lock(dir: &Path, limit: Duration) -> Result<Option<StateLock>, StateLockError> {
    let start = Instant::now();
    loop {
        match state_lock::lock(dir) {
            Ok(lock) => return Ok(Some(lock)),
            Err(StateLockError::InUse { .. }) if start.elapsed() < limit => {
                tokio::time::sleep(POLL).await
            }
            Err(StateLockError::InUse { .. }) => return Ok(None),
            Err(e) => return Err(e),
        }
    }
}

/// The pid written in the lock file (its first number).
fn holder_pid(dir: &Path) -> Option<i32> {
    let text = std::fs::read_to_string(dir.join(LOCK_FILE)).ok()?;
    text.split(|c: char| !c.is_ascii_digit())
        .find(|w| !w.is_empty())?
        .parse()
        .ok()
        .filter(|pid| *pid > 1)
}

/// Requests `BUS_NAME` until the previous owner let it go, at most [`REPLACE_WAIT`].
pub async fn wait_for_name(conn: &zbus::Connection) -> zbus::Result<()> {
    let start = Instant::now();
    loop {
        let reply = conn
            .request_name_with_flags(BUS_NAME, zbus::fdo::RequestNameFlags::DoNotQueue.into())
            .await;
        match reply {
            Err(zbus::Error::NameTaken) if start.elapsed() < REPLACE_WAIT => {
                tokio::time::sleep(POLL).await
            }
            Ok(zbus::fdo::RequestNameReply::Exists) if start.elapsed() < REPLACE_WAIT => {
                tokio::time::sleep(POLL).await
            }
            Ok(_) | Err(zbus::Error::NameTaken) => return Ok(()),
            Err(e) => return Err(e),
        }
    }
}
