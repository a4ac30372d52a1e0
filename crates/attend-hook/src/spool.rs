//! The hook spool's format and its writer's side: when the daemon cannot take a hook, the
//! client appends it here, and the daemon replays it later, in arrival order, exactly
//! once (docs/reliability.md "Outage"; the daemon's side is `attend::service::store::spool`).
//!
//! Layout, in a directory that is normally [`crate::paths::runtime_dir`]
//! (`$XDG_RUNTIME_DIR/attend`, else the state directory):
//! - [`SPOOL_FILE`] `hooks.spool`: one [`SpoolRecord`] per line of JSON (the payload is a
//!   JSON string inside it, so its newlines are escaped);
//! - [`LOCK_FILE`] `hooks.spool.lock`: the `flock` every writer and the taker hold; never
//!   renamed or deleted, so a writer can never append to a file the daemon already took;
//! - `hooks.spool.replaying-<unix-ms>` ([`REPLAYING_PREFIX`]): a batch the daemon took and
//!   has not finished yet (left behind by a crash during replay, and then replayed first,
//!   in name order).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The live spool file's name.
pub const SPOOL_FILE: &str = "hooks.spool";
/// The lock file's name.
pub const LOCK_FILE: &str = "hooks.spool.lock";
/// Name prefix of taken batches: `hooks.spool.replaying-<unix-ms, 20 digits>`.
pub const REPLAYING_PREFIX: &str = "hooks.spool.replaying-";

/// One undelivered hook call: the arguments of the D-Bus `Hook` method
/// (docs/dbus-api.md) plus the arrival time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpoolRecord {
    /// Made by the client before its first delivery attempt; de-duplicates replays.
    pub delivery_id: String,
    /// Agent wire name (`claude`, `codex`, …).
    pub agent: String,
    /// Event name as the client got it (may be empty: Claude's is in the payload).
    pub event: String,
    /// The agent's own JSON text, verbatim.
    pub payload: String,
    /// The delivery context: `pane`, `cwd`, `tty`, `pids`, `monotonic`, … (the `Hook`
    /// method's `a{sv}` as JSON values).
    #[serde(default)]
    pub context: BTreeMap<String, serde_json::Value>,
    /// When the client spooled the event, in ms since the Unix epoch.
    pub arrived_at: i64,
}

/// The exclusive `flock` on a spool directory's [`LOCK_FILE`]; released when dropped.
#[derive(Debug)]
pub struct SpoolLock {
    _file: File,
}

/// Takes the exclusive lock of the spool in `dir` (blocking), creating the lock file
/// (mode 0600).
///
/// Errors: the lock file cannot be opened or created (`NotFound` when `dir` is missing),
/// or `flock` fails.
pub fn lock(dir: &Path) -> io::Result<SpoolLock> {
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(dir.join(LOCK_FILE))?;
    loop {
        // SAFETY: flock on a descriptor this function owns for the call's duration.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
            return Ok(SpoolLock { _file: file });
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Appends one record to `dir`/[`SPOOL_FILE`] (the hook client's side), creating `dir`
/// (mode 0700) and the file (mode 0600) when missing.
///
/// Under an exclusive `flock` on the lock file, the record's line is written with one
/// `write` on an `O_APPEND` descriptor and fsynced (and the directory too when the file was
/// just created), so concurrent writers never interleave and a returned `Ok` survives a
/// crash. If the file ends in a torn line (a writer died mid-write), a newline is written
/// first so the new record stays whole.
///
/// Errors: any I/O error creating the directory, locking, writing or syncing.
pub fn append(dir: &Path, rec: &SpoolRecord) -> io::Result<()> {
    let mut line = serde_json::to_vec(rec)?;
    line.push(b'\n');
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let _lock = lock(dir)?;
    let path = dir.join(SPOOL_FILE);
    let (file, created) = match OpenOptions::new().append(true).read(true).open(&path) {
        Ok(file) => (file, false),
        Err(e) if e.kind() == io::ErrorKind::NotFound => (
            OpenOptions::new()
                .append(true)
                .read(true)
                .create(true)
                .mode(0o600)
                .open(&path)?,
            true,
        ),
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    if len > 0 {
        let mut last = [0u8; 1];
        file.read_exact_at(&mut last, len - 1)?;
        if last[0] != b'\n' {
            line.insert(0, b'\n');
        }
    }
    (&file).write_all(&line)?;
    file.sync_data()?;
    if created {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// Batch files the daemon took and has not finished (`hooks.spool.replaying-*` in `dir`),
/// in name (= take) order. A missing `dir` has none.
///
/// Errors: `dir` cannot be read.
pub fn taken_batches(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        if name
            .to_str()
            .is_some_and(|n| n.starts_with(REPLAYING_PREFIX))
        {
            found.push(entry.path());
        }
    }
    found.sort();
    Ok(found)
}

/// True when the spool in `dir` holds records the daemon has not applied yet: a non-empty
/// [`SPOOL_FILE`], or a batch it took and has not finished ([`taken_batches`]). The hook
/// client then spools behind them rather than overtake them with a live call, so an
/// agent's hooks are applied in the order they ran. A directory that cannot be read
/// counts as nothing pending.
pub fn pending(dir: &Path) -> bool {
    fs::metadata(dir.join(SPOOL_FILE)).is_ok_and(|m| m.len() > 0)
        || taken_batches(dir).is_ok_and(|batches| !batches.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str) -> SpoolRecord {
        SpoolRecord {
            delivery_id: id.into(),
            agent: "claude".into(),
            event: String::new(),
            payload: "{\"hook_event_name\":\"Stop\"}\n".into(),
            context: BTreeMap::from([("pane".to_string(), "p1".into())]),
            arrived_at: 1_700_000_000_000,
        }
    }

    #[test]
    fn records_append_as_whole_lines_after_a_torn_one() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("run/attend");
        assert!(!pending(&dir), "a missing directory has nothing pending");
        append(&dir, &record("a")).unwrap();
        assert!(pending(&dir));
        let spool = dir.join(SPOOL_FILE);
        let mut f = OpenOptions::new().append(true).open(&spool).unwrap();
        f.write_all(b"{\"delivery_id\":\"torn").unwrap();
        append(&dir, &record("b")).unwrap();
        let text = fs::read_to_string(&spool).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        let first: SpoolRecord = serde_json::from_str(lines[0]).unwrap();
        let last: SpoolRecord = serde_json::from_str(lines[2]).unwrap();
        assert_eq!((first, last), (record("a"), record("b")));
        assert!(text.ends_with('\n'));
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(&dir), mode(&spool)), (0o700, 0o600));
    }

    #[test]
    fn a_taken_batch_is_pending_too() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join(SPOOL_FILE), "").unwrap();
        assert!(!pending(tmp.path()), "an empty live spool holds nothing");
        let late = tmp.path().join(format!("{REPLAYING_PREFIX}{:020}", 2));
        let early = tmp.path().join(format!("{REPLAYING_PREFIX}{:020}", 1));
        fs::write(&late, "x\n").unwrap();
        fs::write(&early, "x\n").unwrap();
        assert!(pending(tmp.path()));
        assert_eq!(taken_batches(tmp.path()).unwrap(), vec![early, late]);
    }
}
