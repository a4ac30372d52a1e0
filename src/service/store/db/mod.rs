//! SQLite persistence of the world and the event log (rusqlite, WAL, event log;
//! `docs/decisions/0005-one-service-thin-clients.md#acknowledged-means-committed`: the
//! daemon "can crash and restart without losing anything").
//!
//! One file, `attend.db` in the state directory ([`attend_hook::paths::state_dir`]). The
//! service keeps the [`World`] in memory and, after each batch of changes, calls
//! [`Db::commit`] with the panes it touched, the events it stamped and the hook deliveries
//! it applied; only after that returns `Ok` may it acknowledge them. On start it calls
//! [`Db::load`] and goes on from the stored counters, so pane ids, decision ids, task ids
//! and event seqs are never reused (`docs/lifecycle-attention.md#event-seqs`).

mod codec;
mod error;
mod read;
mod remote;
mod remote_read;
mod schema;
mod write;

pub use error::DbError;
pub use remote::{LogEntry, RemoteStamp, RemoteWrites};

use crate::engine::World;
use crate::model::{Event, PaneId, Timestamp};
use rusqlite::{Connection, ErrorCode, OptionalExtension, TransactionBehavior};
use std::fs::DirBuilder;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use std::{fmt, io};

/// Creates an empty `path` with mode 0600 when nothing is there (SQLite would make it
/// 0644 less the umask; an empty file is an empty database to it). Anything already
/// there, a directory included, is left to SQLite to open or refuse.
fn create_private(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(crate::system::private::FILE_MODE)
        .open(path)
    {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(e),
        _ => Ok(()),
    }
}

/// File name of the database inside the state directory (`docs/dbus-api.md#names`).
pub const DB_FILE: &str = "attend.db";

/// How long a statement waits for another connection's lock before `SQLITE_BUSY`.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// An open `attend.db`: one connection, used by one thread (the service's store task).
pub struct Db {
    conn: Connection,
    path: PathBuf,
}

impl fmt::Debug for Db {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Db")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Db {
    /// Opens (creating when missing) the database at `path`: creates the parent
    /// directories with mode 0700 and a missing file with mode 0600 whatever the umask
    /// (SQLite gives the `-wal` and `-shm` files it makes the database file's mode;
    /// src/system/private.rs), checks the file with `PRAGMA quick_check` (which reads
    /// every page, so start-up time grows with the file), switches to WAL, and migrates the
    /// schema to the latest version. Opening twice is harmless.
    ///
    /// Errors: `Dir`, `Open`, `Corrupt` (not a database, or quick_check found damage),
    /// `TooNew` (a newer Attend's file, left untouched), `Migration`.
    pub fn open(path: &Path) -> Result<Db, DbError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|source| DbError::Dir {
                    path: dir.to_path_buf(),
                    source,
                })?;
        }
        // When this fails SQLite fails the same way just below, with its own message.
        let _ = create_private(path);
        let opening = |source: rusqlite::Error| match corruption(&source) {
            true => DbError::Corrupt {
                path: path.to_path_buf(),
                detail: source.to_string(),
            },
            false => DbError::Open {
                path: path.to_path_buf(),
                source,
            },
        };
        let mut conn = Connection::open(path).map_err(opening)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(opening)?;
        let problems = quick_check(&conn).map_err(opening)?;
        if problems != ["ok"] {
            let detail = format!("quick_check: {}", problems.join("; "));
            return Err(DbError::Corrupt {
                path: path.to_path_buf(),
                detail,
            });
        }
        let mode: String = conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
            .map_err(opening)?;
        if !mode.eq_ignore_ascii_case("wal") {
            tracing::warn!(path = %path.display(), mode, "SQLite refused WAL mode");
        }
        // Durability: an event is acknowledged only after its commit returns, and it must
        // survive a kill -9 of the daemon. In WAL mode every commit is written to the WAL
        // file (the OS page cache) before COMMIT returns, so synchronous=NORMAL survives
        // any process crash; it syncs only at checkpoints, so a power loss or kernel crash
        // can roll back the last transactions (the database stays consistent). We accept
        // that: a power loss also kills every pane and agent whose state those
        // transactions described, and NORMAL keeps an fsync off the hooks' hot path
        // (Claude waits for `attend hook` before every tool call). FULL would also survive
        // power loss at the cost of one fsync per commit.
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(opening)?;
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(opening)?;
        match schema::migrations().to_latest(&mut conn) {
            Err(rusqlite_migration::Error::MigrationDefinition(
                rusqlite_migration::MigrationDefinitionError::DatabaseTooFarAhead,
            )) => {
                let found = conn
                    .pragma_query_value(None, "user_version", |r| r.get(0))
                    .map_err(opening)?;
                return Err(DbError::TooNew {
                    path: path.to_path_buf(),
                    found,
                });
            }
            other => other?,
        }
        conn.set_prepared_statement_cache_capacity(32);
        Ok(Db {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Opens `state_dir/attend.db` (see [`Db::open`]).
    pub fn open_in(state_dir: &Path) -> Result<Db, DbError> {
        Db::open(&state_dir.join(DB_FILE))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The stored world: every pane with its items, open decision, tasks (by id) and
    /// hold, and the counters. An empty database gives `World::default()`.
    ///
    /// Errors: `Corrupt` for rows that do not decode, `Sqlite`.
    pub fn load(&self) -> Result<World, DbError> {
        self.read_world().map_err(|e| self.classify(e))
    }

    /// Writes one batch in one transaction, all or nothing: appends `events` (their seqs
    /// must be new), records `deliveries` as `(delivery_id, seq, at)`, upserts every pane
    /// of `touched` that is in `world` (with its open decision, tasks and hold) and deletes
    /// the ones that are not, marks decisions resolved (from `decision.resolved` events,
    /// and any that are no longer open), drops tabs and workspaces left without panes, and
    /// writes the counters. Only after this returns `Ok` may the caller acknowledge.
    ///
    /// Errors: `DuplicateDelivery`, `Sqlite` (e.g. a seq already in the log), `Json`.
    pub fn commit(
        &mut self,
        world: &World,
        touched: &[PaneId],
        events: &[Event],
        deliveries: &[(String, u64, Timestamp)],
    ) -> Result<(), DbError> {
        self.commit_batch(world, touched, events, deliveries, &RemoteWrites::default())
    }

    /// [`Db::commit`] with the remote side of the batch in the same transaction: the
    /// remote events stamped (their seqs must be new, below or at `world.seq`) with each
    /// host's last remote seq, and the hosts forgotten
    /// (`docs/remote.md#how-remote-panes-are-mirrored`).
    ///
    /// Errors: as [`Db::commit`].
    pub fn commit_batch(
        &mut self,
        world: &World,
        touched: &[PaneId],
        events: &[Event],
        deliveries: &[(String, u64, Timestamp)],
        remote: &RemoteWrites,
    ) -> Result<(), DbError> {
        let result = (|| {
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            write::batch(&tx, world, touched, events, deliveries)?;
            remote::write(&tx, remote)?;
            tx.commit()?;
            Ok(())
        })();
        result.map_err(|e| self.classify(e))
    }

    /// Up to `limit` local events with `seq > after_seq`, ascending by seq; remote events
    /// stamped into the log are left out (the whole log: [`Db::log_after`]).
    /// Errors: `Corrupt`, `Sqlite`.
    pub fn events_after(&self, after_seq: u64, limit: u32) -> Result<Vec<Event>, DbError> {
        self.read_events(after_seq, limit)
            .map_err(|e| self.classify(e))
    }

    /// The latest lifecycle event (`agent.*`) of `pane`, or `None` when it has none; one
    /// lookup in the `(pane, seq)` index.
    pub fn last_lifecycle(&self, pane: PaneId) -> Result<Option<Event>, DbError> {
        self.read_last_lifecycle(pane).map_err(|e| self.classify(e))
    }

    /// The seq recorded for hook delivery `delivery_id`, or `None` when it was never
    /// committed (`docs/adapters.md#the-hook-wire`: the delivery id de-duplicates live
    /// calls and spool replay).
    pub fn delivery_seen(&self, delivery_id: &str) -> Result<Option<u64>, DbError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT seq FROM deliveries WHERE delivery_id = ?1")?;
        let seq = stmt.query_row([delivery_id], |r| r.get(0)).optional();
        seq.map_err(|e| self.classify(e.into()))
    }

    /// Reports corruption found while reading or writing as `Corrupt`.
    fn classify(&self, e: DbError) -> DbError {
        match e {
            DbError::Sqlite(e) if corruption(&e) => DbError::Corrupt {
                path: self.path.clone(),
                detail: e.to_string(),
            },
            other => other,
        }
    }
}

/// Renames a bad database `path` to `<name>.corrupt-<unix-ms>` beside it, with its `-wal`,
/// `-shm` and `-journal` companions when present, and returns the new path. Errors: the
/// rename's (`NotFound` when `path` does not exist).
pub fn move_aside(path: &Path) -> io::Result<PathBuf> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let mut ms = now.as_millis();
    let target = loop {
        let candidate = with_suffix(path, &format!(".corrupt-{ms}"));
        if !candidate.exists() {
            break candidate;
        }
        ms += 1;
    };
    std::fs::rename(path, &target)?;
    for companion in ["-wal", "-shm", "-journal"] {
        let from = with_suffix(path, companion);
        if from.exists() {
            std::fs::rename(&from, with_suffix(&target, companion))?;
        }
    }
    Ok(target)
}

/// `path` with `suffix` appended to its file name.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The rows of `PRAGMA quick_check`: `["ok"]` for a sound file.
fn quick_check(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("PRAGMA quick_check(20)")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    rows.collect()
}

/// True for errors that mean the file or its rows are damaged, not that an operation
/// failed: SQLITE_CORRUPT, SQLITE_NOTADB, and values that do not decode.
fn corruption(e: &rusqlite::Error) -> bool {
    match e {
        rusqlite::Error::FromSqlConversionFailure(..)
        | rusqlite::Error::InvalidColumnType(..)
        | rusqlite::Error::IntegralValueOutOfRange(..) => true,
        _ => matches!(
            e.sqlite_error_code(),
            Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
        ),
    }
}
