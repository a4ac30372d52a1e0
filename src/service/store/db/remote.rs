//! Remote events in the local log and the last remote seq per host
//! (`docs/remote.md#how-remote-panes-are-mirrored`; schema version 5 in [`super::schema`]).
//!
//! A remote event takes the next local seq like any event, and its row names its host and
//! its seq in that host's log (`host`, `remote_seq`; both NULL for a local event). Its
//! payload is the remote's event data (cleaned by the mirror), not a local [`Event`]: the
//! local engine never applies it, and nothing that reads the log for local panes
//! (`last_lifecycle`, the world at start) sees it (its `pane` is `NAME:pN` or empty,
//! never a local id).

use super::codec::Json;
use super::error::DbError;
use crate::model::{Event, HostName, Timestamp};
use rusqlite::{params, Transaction};

/// One remote event as stamped into the local log.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteStamp {
    /// Its seq in the local log (the world's next seq).
    pub seq: u64,
    pub host: HostName,
    /// Its seq in the host's own log.
    pub remote_seq: u64,
    /// The remote kind (`agent.working` …), cleaned.
    pub kind: String,
    /// `NAME:pN`, or empty when the remote named no valid pane.
    pub pane: String,
    /// The remote's event data as a JSON object (cleaned and bounded by the mirror),
    /// without `host` and `remote_seq`.
    pub data: serde_json::Value,
    /// The remote's `at` when it sent one, else when it was stamped here.
    pub at: Timestamp,
}

/// One entry of the local event log: a local event, or a remote one stamped here.
#[derive(Debug, Clone, PartialEq)]
pub enum LogEntry {
    Local(Event),
    Remote(RemoteStamp),
}

impl LogEntry {
    /// The entry's local seq.
    pub fn seq(&self) -> u64 {
        match self {
            LogEntry::Local(e) => e.seq,
            LogEntry::Remote(r) => r.seq,
        }
    }
}

/// The remote side of one batch ([`super::Db::commit_batch`]): remote events to append (the
/// host's last seq becomes each one's `remote_seq`), then hosts whose last seq is
/// forgotten (a remote removed from `config.toml`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RemoteWrites {
    pub stamps: Vec<RemoteStamp>,
    pub forget: Vec<HostName>,
}

impl RemoteWrites {
    /// True when there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.stamps.is_empty() && self.forget.is_empty()
    }
}

/// Appends the stamps and records each host's last seq, then forgets the hosts of
/// `forget`; part of the batch's transaction.
pub(super) fn write(tx: &Transaction, writes: &RemoteWrites) -> Result<(), DbError> {
    for r in &writes.stamps {
        let text = |k: &str| r.data.get(k).and_then(|v| v.as_str()).map(str::to_string);
        let source = text("source").unwrap_or_else(|| "remote".into());
        tx.prepare_cached(
            "INSERT INTO events \
             (seq, pane, kind, previous, value, source, at, payload, host, remote_seq) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?
        .execute(params![
            r.seq,
            r.pane,
            r.kind,
            text("previous"),
            text("value"),
            source,
            r.at.0,
            Json(&r.data),
            r.host.as_str(),
            r.remote_seq,
        ])?;
        tx.prepare_cached(
            "INSERT INTO remote_seqs (host, last_seq) VALUES (?1, ?2) \
             ON CONFLICT (host) DO UPDATE SET last_seq = excluded.last_seq",
        )?
        .execute(params![r.host.as_str(), r.remote_seq])?;
    }
    for host in &writes.forget {
        tx.prepare_cached("DELETE FROM remote_seqs WHERE host = ?1")?
            .execute([host.as_str()])?;
    }
    Ok(())
}
