//! Reading remote events and the last remote seqs back (the rows of [`super::remote`]).

use super::codec::Json;
use super::remote::{write, LogEntry, RemoteStamp, RemoteWrites};
use super::{Db, DbError};
use crate::model::{Event, HostName, Timestamp};
use rusqlite::Row;
use std::collections::BTreeMap;

impl Db {
    /// Up to `limit` entries of the log (local and remote) with `seq > after_seq`,
    /// ascending by seq (the D-Bus `Events(after_seq, limit)`). Errors: `Corrupt`,
    /// `Sqlite`.
    pub fn log_after(&self, after_seq: u64, limit: u32) -> Result<Vec<LogEntry>, DbError> {
        self.read_log(after_seq, limit)
            .map_err(|e| self.classify(e))
    }

    /// The last remote seq stamped of each host (hosts never stamped, or forgotten, are
    /// absent). Errors: `Corrupt`, `Sqlite`.
    pub fn remote_seqs(&self) -> Result<BTreeMap<HostName, u64>, DbError> {
        let read = || -> Result<BTreeMap<HostName, u64>, DbError> {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT host, last_seq FROM remote_seqs")?;
            let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, u64>(1)?)))?;
            let mut out = BTreeMap::new();
            for row in rows {
                let (host, seq) = row?;
                // A name the grammar refuses is no configured remote: nothing continues it.
                if let Ok(host) = HostName::parse(&host) {
                    out.insert(host, seq);
                }
            }
            Ok(out)
        };
        read().map_err(|e| self.classify(e))
    }

    /// Forgets the last remote seq of every host not in `keep` (remotes removed from
    /// `config.toml` while the daemon was stopped); the hosts forgotten. Errors: `Sqlite`.
    pub fn forget_remotes_except(&mut self, keep: &[HostName]) -> Result<Vec<HostName>, DbError> {
        let gone: Vec<HostName> = self
            .remote_seqs()?
            .into_keys()
            .filter(|h| !keep.contains(h))
            .collect();
        if !gone.is_empty() {
            let writes = RemoteWrites {
                stamps: Vec::new(),
                forget: gone.clone(),
            };
            let result = (|| {
                let tx = self.conn.transaction()?;
                write(&tx, &writes)?;
                tx.commit()?;
                Ok(())
            })();
            result.map_err(|e| self.classify(e))?;
        }
        Ok(gone)
    }

    fn read_log(&self, after_seq: u64, limit: u32) -> Result<Vec<LogEntry>, DbError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, pane, kind, at, payload, host, remote_seq FROM events \
             WHERE seq > ?1 ORDER BY seq LIMIT ?2",
        )?;
        let after = i64::try_from(after_seq).unwrap_or(i64::MAX);
        let entries = stmt.query_map((after, limit), entry)?;
        Ok(entries.collect::<rusqlite::Result<_>>()?)
    }
}

/// One row of the log as an entry.
fn entry(r: &Row) -> rusqlite::Result<LogEntry> {
    let Some(host) = r.get::<_, Option<String>>("host")? else {
        return Ok(LogEntry::Local(r.get::<_, Json<Event>>("payload")?.0));
    };
    let host = HostName::parse(&host).map_err(|e| {
        let column = r.as_ref().column_index("host").unwrap_or(0);
        rusqlite::Error::FromSqlConversionFailure(column, rusqlite::types::Type::Text, e.into())
    })?;
    Ok(LogEntry::Remote(RemoteStamp {
        seq: r.get("seq")?,
        host,
        remote_seq: r.get("remote_seq")?,
        kind: r.get("kind")?,
        pane: r.get("pane")?,
        data: r.get::<_, Json<serde_json::Value>>("payload")?.0,
        at: Timestamp(r.get("at")?),
    }))
}
