//! The daemon's side of the hook spool: taking batches to replay and finishing them. The
//! format (one JSON [`SpoolRecord`] per line in `hooks.spool`, the lock file, the names of
//! taken batches) and the hook client's [`append`] live in `attend_hook::spool`, which
//! both sides link; they are re-exported here. The daemon replays the spool on start, in
//! arrival order, before it accepts new hooks, and drains it whenever it grows
//! (src/service/store/replay.rs; docs/reliability.md "Outage").
//!
//! Exactly-once is the daemon's business (its delivery-id table, docs/dbus-api.md `Hook`):
//! a batch may be replayed twice after a crash, and the ids make that harmless.

pub use attend_hook::spool::{append, SpoolRecord, LOCK_FILE, REPLAYING_PREFIX, SPOOL_FILE};
use attend_hook::spool::{lock, taken_batches};
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

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
        taken_batches(&self.dir)
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
