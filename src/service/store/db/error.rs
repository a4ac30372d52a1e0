//! The errors of the store.

use std::io;
use std::path::PathBuf;

/// Errors of the store.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The directory for the database could not be created.
    #[error("cannot create directory {path}: {source}")]
    Dir { path: PathBuf, source: io::Error },
    /// SQLite could not open or configure the file (permissions, locked, read-only).
    #[error("cannot open database {path}: {source}")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    /// The file is not a sound SQLite database, or holds rows this program cannot read.
    /// The caller moves it aside ([`move_aside`]) and says so; it never starts fresh
    /// silently.
    #[error("database {path} is corrupt: {detail}")]
    Corrupt { path: PathBuf, detail: String },
    /// [`Db::commit`] was given a delivery id that is already recorded; nothing was
    /// written. Check [`Db::delivery_seen`] before applying a hook.
    #[error("hook delivery {0:?} is already recorded")]
    DuplicateDelivery(String),
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// Migrating the schema failed.
    #[error("database migration failed: {0}")]
    Migration(#[from] rusqlite_migration::Error),
    /// The file's schema version is newer than this program knows: written by a newer
    /// Attend. Not damage: it is left as it is and the caller refuses to start.
    #[error(
        "database {path} was written by a newer Attend (schema version {found}); it is left \
         untouched: run the newer Attend, or move the file away to start with an empty state"
    )]
    TooNew { path: PathBuf, found: i64 },
    #[error("cannot encode JSON: {0}")]
    Json(#[from] serde_json::Error),
}
