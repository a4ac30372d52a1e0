//! The hook spool (DESIGN "Shape": "never lose an event"): when the daemon is unreachable
//! the hook client appends the event here; the daemon replays the spool on start, in
//! arrival order, before it accepts new hooks, and drains it whenever it grows.
//!
//! Layout, in a directory that is normally [`super::paths::runtime_dir`]
//! (`$XDG_RUNTIME_DIR/attend`, else the state directory):
//! - [`SPOOL_FILE`] `hooks.spool`: one [`SpoolRecord`] per line of JSON (the payload is a
//!   JSON string inside it, so its newlines are escaped);
//! - `hooks.spool.lock`: the `flock` every writer and the taker hold; never renamed or
//!   deleted, so a writer can never append to a file the daemon already took;
//! - `hooks.spool.replaying-<unix-ms>`: a batch the daemon took and has not finished yet
//!   (left behind by a crash during replay, and then replayed first, in name order).
//!
//! Exactly-once is the daemon's business (its delivery-id table, CONTRACT §8): a batch may
//! be replayed twice after a crash, and the ids make that harmless.

use nix::fcntl::{Flock, FlockArg};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The live spool file's name.
pub const SPOOL_FILE: &str = "hooks.spool";
/// The lock file's name.
pub const LOCK_FILE: &str = "hooks.spool.lock";
/// Name prefix of taken batches: `hooks.spool.replaying-<unix-ms, 20 digits>`.
pub const REPLAYING_PREFIX: &str = "hooks.spool.replaying-";

/// One undelivered hook call: the arguments of the D-Bus `Hook` method (CONTRACT §8) plus
/// the arrival time.
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

/// A line of a spool file that is not a complete record: cut short by a writer that
/// crashed mid-write, or otherwise unreadable. Reported, never fatal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornRecord {
    /// Byte offset of the line in its file.
    pub offset: u64,
    /// The line's bytes (without the newline).
    pub bytes: Vec<u8>,
    /// Why it was skipped.
    pub reason: String,
}

/// One batch taken from the spool: the complete records in arrival order and the torn
/// lines. Give it back to [`Spool::finish`] once the records are committed.
#[derive(Debug)]
pub struct Replay {
    /// The batch file (`hooks.spool.replaying-…`).
    pub path: PathBuf,
    /// True for a batch taken earlier and not finished (left by an interrupted replay);
    /// false for one this call took from the live spool.
    pub leftover: bool,
    pub records: Vec<SpoolRecord>,
    pub torn: Vec<TornRecord>,
}

/// Appends one record to `dir`/[`SPOOL_FILE`] (the hook client's side), creating `dir`
/// (mode 0700) and the file (mode 0600) when missing.
///
/// Under an exclusive `flock` on the lock file, the record's line is written with one
/// `write` on an `O_APPEND` descriptor and fsynced (and the directory too when the file was
/// just created), so concurrent writers never interleave and a returned `Ok` survives a
/// crash. If the file ends in a torn line (a writer died mid-write), a newline is written
/// first so the new record stays whole.
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

/// True when the spool in `dir` holds records the daemon has not applied yet: a non-empty
/// [`SPOOL_FILE`], or a batch it took and has not finished (`hooks.spool.replaying-*`).
/// The hook client then spools behind them rather than overtake them with a live call
/// (src/cli/hook.rs), so an agent's hooks are applied in the order they ran. A directory
/// that cannot be read counts as nothing pending.
pub fn pending(dir: &Path) -> bool {
    fs::metadata(dir.join(SPOOL_FILE)).is_ok_and(|m| m.len() > 0)
        || Spool::new(dir)
            .leftovers()
            .is_ok_and(|batches| !batches.is_empty())
}

/// The daemon's side of the spool in one directory.
#[derive(Debug, Clone)]
pub struct Spool {
    dir: PathBuf,
}

impl Spool {
    /// The spool in `dir` (nothing is created until something is appended or taken).
    pub fn new(dir: impl Into<PathBuf>) -> Spool {
        Spool { dir: dir.into() }
    }

    /// The spool directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends a record: [`append`] in this spool's directory.
    pub fn append(&self, rec: &SpoolRecord) -> io::Result<()> {
        append(&self.dir, rec)
    }

    /// The oldest pending batch, or `None` when nothing is pending.
    ///
    /// A batch left over by an earlier replay (`hooks.spool.replaying-*`, oldest name
    /// first) comes first and is returned as is; otherwise, under the lock, the live spool
    /// is renamed to a new batch file, so writers arriving meanwhile start a fresh spool.
    /// Torn lines are reported in [`Replay::torn`], never as an error. Until
    /// [`Spool::finish`] is called the same batch is returned again, so drain with:
    /// `while let Some(b) = spool.take_batch()? { commit(&b.records); spool.finish(b)?; }`.
    ///
    /// Errors: I/O errors reading the directory or the batch file.
    pub fn take_batch(&self) -> io::Result<Option<Replay>> {
        if let Some(path) = self.leftovers()?.into_iter().next() {
            return read_batch(path, true).map(Some);
        }
        let live = self.dir.join(SPOOL_FILE);
        let path = {
            let _lock = match lock(&self.dir) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                other => other?,
            };
            match fs::metadata(&live) {
                Ok(meta) if meta.len() > 0 => {}
                Ok(_) => return Ok(None),
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(e),
            }
            let path = self.free_batch_name();
            fs::rename(&live, &path)?;
            File::open(&self.dir)?.sync_all()?;
            path
        };
        read_batch(path, false).map(Some)
    }

    /// Deletes a replayed batch file; call it after the batch's records are committed.
    pub fn finish(&self, replay: Replay) -> io::Result<()> {
        match fs::remove_file(&replay.path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => File::open(&self.dir)?.sync_all(),
        }
    }

    /// Batch files left by a previous replay, in name (= take) order.
    fn leftovers(&self) -> io::Result<Vec<PathBuf>> {
        let entries = match fs::read_dir(&self.dir) {
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

    /// `hooks.spool.replaying-<now, ms>`, bumped past any existing name so it sorts after
    /// every batch already taken.
    fn free_batch_name(&self) -> PathBuf {
        let mut stamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        loop {
            let path = self.dir.join(format!("{REPLAYING_PREFIX}{stamp:020}"));
            if !path.exists() {
                return path;
            }
            stamp += 1;
        }
    }
}

/// Takes the exclusive lock of the spool in `dir` (blocking), creating the lock file.
fn lock(dir: &Path) -> io::Result<Flock<File>> {
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(dir.join(LOCK_FILE))?;
    Flock::lock(file, FlockArg::LockExclusive).map_err(|(_, errno)| io::Error::from(errno))
}

/// Parses a batch file: every complete line in order; the rest reported as torn.
fn read_batch(path: PathBuf, leftover: bool) -> io::Result<Replay> {
    let bytes = fs::read(&path)?;
    let mut records = Vec::new();
    let mut torn = Vec::new();
    let mut offset = 0usize;
    while offset < bytes.len() {
        let rest = &bytes[offset..];
        let (line, complete) = match rest.iter().position(|&b| b == b'\n') {
            Some(end) => (&rest[..end], true),
            None => (rest, false),
        };
        if !complete {
            torn.push(TornRecord {
                offset: offset as u64,
                bytes: line.to_vec(),
                reason: "no trailing newline: the writer stopped mid-record".into(),
            });
        } else if !line.is_empty() {
            match serde_json::from_slice::<SpoolRecord>(line) {
                Ok(rec) => records.push(rec),
                Err(e) => torn.push(TornRecord {
                    offset: offset as u64,
                    bytes: line.to_vec(),
                    reason: format!("not a spool record: {e}"),
                }),
            }
        }
        offset += line.len() + 1;
    }
    Ok(Replay {
        path,
        leftover,
        records,
        torn,
    })
}
