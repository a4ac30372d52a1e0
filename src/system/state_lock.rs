//! One daemon owns a state directory: an exclusive `flock` on `daemon.lock` in it, held
//! for the daemon's lifetime (the kernel drops it when the process ends, even on
//! `kill -9`, so a crash never leaves a stale lock). Two daemons on two session buses (a
//! desktop session and an SSH login) that share `~/.local/state/attend` would otherwise
//! both write `attend.db`, mark each other's live panes exited and fail each other's
//! commits (`docs/decisions/0005-one-service-thin-clients.md`).

use nix::fcntl::{Flock, FlockArg};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// File name of the lock inside the state directory. Its text names the owner: the pid on
/// the first line, the owner's bus ([`lock`]'s `bus`) on the second (an older Attend wrote
/// the pid only).
pub const LOCK_FILE: &str = "daemon.lock";

/// Who holds a state directory, as its lock file says (each part best effort: `None`
/// when the file does not say).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Holder {
    /// The holder's process id.
    pub pid: Option<u32>,
    /// The holder's session bus: its address and its connection's unique name, e.g.
    /// `unix:path=/run/user/1000/bus (:1.42)`.
    pub bus: Option<String>,
}

impl Holder {
    /// The holder's bus address: [`Holder::bus`] without the ` (:1.N)` of its connection.
    pub fn address(&self) -> Option<&str> {
        let bus = self.bus.as_deref()?;
        Some(bus.rsplit_once(" (").map_or(bus, |(address, _)| address))
    }

    /// Parses the lock file's text (see [`LOCK_FILE`]).
    pub fn parse(text: &str) -> Holder {
        let mut lines = text.lines().map(str::trim);
        let pid = lines.next().and_then(|l| l.parse().ok());
        let bus = lines.next().filter(|l| !l.is_empty()).map(str::to_string);
        Holder { pid, bus }
    }
}

impl std::fmt::Display for Holder {
    /// ` (pid N, bus B)`, the parts that are known; empty when none is.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .pid
            .map(|p| format!("pid {p}"))
            .into_iter()
            .chain(self.bus.as_ref().map(|b| format!("bus {b}")))
            .collect();
        if parts.is_empty() {
            return Ok(());
        }
        write!(f, " ({})", parts.join(", "))
    }
}

/// Why the state directory could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum StateLockError {
    /// Another process holds the lock (the daemon exits 2, `docs/dbus-api.md`).
    #[error(
        "another attend daemon{holder} already uses the state directory {} (perhaps on \
         another D-Bus session bus); stop it first, or give this one its own ATTEND_STATE_DIR",
        .dir.display()
    )]
    InUse { dir: PathBuf, holder: Holder },
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
    lock: Flock<File>,
}

/// Who holds `dir` now, as its lock file says; `None` when the file cannot be read.
/// (The file outlives its owner: ask [`lock`] whether the directory is free.)
pub fn holder(dir: &Path) -> Option<Holder> {
    std::fs::read_to_string(dir.join(LOCK_FILE))
        .ok()
        .map(|t| Holder::parse(&t))
}

/// Takes `dir` for this process (creating it 0700 when missing, closing it and Attend's
/// files in it to others when they are open: src/system/private.rs) and writes this pid
/// into the lock file, mode 0600 (best effort; [`StateLock::record_bus`] adds the bus).
/// Errors: [`StateLockError::InUse`] with what the lock file says of the holder when
/// another process holds it (nothing is touched), [`StateLockError::Io`] otherwise.
pub fn lock(dir: &Path) -> Result<StateLock, StateLockError> {
    let io = |source| StateLockError::Io {
        dir: dir.to_path_buf(),
        source,
    };
    if !dir.is_dir() {
        crate::system::private::dir(dir).map_err(io)?;
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(crate::system::private::FILE_MODE)
        .open(dir.join(LOCK_FILE))
        .map_err(io)?;
    let lock = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(l) => l,
        Err((mut file, nix::errno::Errno::EWOULDBLOCK)) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            return Err(StateLockError::InUse {
                dir: dir.to_path_buf(),
                holder: Holder::parse(&text),
            });
        }
        Err((_, e)) => return Err(io(e.into())),
    };
    // Ours now: the directory and the files an older Attend or an open umask left in it
    // are closed to other users before anything is read (the database, the log).
    let changed = crate::system::private::tighten_dir(dir);
    if changed > 0 {
        tracing::info!(
            dir = %dir.display(),
            paths = changed,
            "closed the state directory to other users (it was readable by them)"
        );
    }
    let mut lock = StateLock { lock };
    lock.write_holder(None);
    Ok(lock)
}

impl StateLock {
    /// Records `bus` (the daemon's bus, [`Holder::bus`]) beside the pid in the lock file,
    /// for the message a second daemon prints. Best effort, as the pid.
    pub fn record_bus(&mut self, bus: &str) {
        self.write_holder(Some(bus));
    }

    /// Writes this pid (and `bus`) as the lock file's text. The holder is for the message
    /// a second daemon prints and for `--replace`; a full disk must not stop the daemon
    /// from starting (hooks spool until space returns), so writing it is best effort.
    fn write_holder(&mut self, bus: Option<&str>) {
        let mut text = format!("{}\n", std::process::id());
        if let Some(bus) = bus {
            text.push_str(&bus.replace('\n', " "));
            text.push('\n');
        }
        let _ = self
            .lock
            .set_len(0)
            .and_then(|()| self.lock.rewind())
            .and_then(|()| self.lock.write_all(text.as_bytes()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_directory_is_refused_naming_the_holders_pid_and_bus() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("state");
        let mut first = lock(&dir).expect("the first lock");
        first.record_bus("unix:path=/tmp/bus-a (:1.7)");
        let me = Holder {
            pid: Some(std::process::id()),
            bus: Some("unix:path=/tmp/bus-a (:1.7)".into()),
        };
        match lock(&dir) {
            Err(e @ StateLockError::InUse { .. }) => {
                let StateLockError::InUse { holder, .. } = &e else {
                    unreachable!()
                };
                assert_eq!(holder, &me);
                assert_eq!(holder.address(), Some("unix:path=/tmp/bus-a"));
                let text = e.to_string();
                assert!(
                    text.contains(&format!(
                        "daemon (pid {}, bus unix:path=/tmp/bus-a (:1.7)) already uses",
                        std::process::id()
                    )),
                    "{text}"
                );
            }
            other => panic!("expected InUse, got {other:?}"),
        }
        assert_eq!(holder(&dir), Some(me));
        drop(first);
        lock(&dir).expect("free again once the first is dropped");
    }

    #[test]
    fn an_older_lock_file_with_the_pid_only_still_names_the_pid() {
        assert_eq!(
            Holder::parse("4242\n"),
            Holder {
                pid: Some(4242),
                bus: None
            }
        );
        assert_eq!(Holder::parse("4242\n").to_string(), " (pid 4242)");
        assert_eq!(Holder::parse("").to_string(), "");
    }
}
