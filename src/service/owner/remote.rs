//! Remote events in the owner (`docs/remote.md#how-remote-panes-are-mirrored`): a remote
//! event the mirror stamps takes the next local seq and joins the batch, so its row and
//! its host's last remote seq are committed in the batch's one transaction, and its
//! `Event` signal goes out after the commit like a local event's. The engine never
//! applies it and the surfaces never see it (src/service/owner.rs `finish`).

use super::{Batch, Owner};
use crate::client::wire::remote_event_data;
use crate::model::Timestamp;
use crate::service::bus::interface::{event_tuple, Attend1};
use crate::service::command::{EventTuple, RemoteStampRequest};
use crate::service::store::db::{LogEntry, RemoteStamp};
use crate::system::clock::now;
use zbus::object_server::SignalEmitter;

impl Owner {
    /// Stamps `req` with the next local seq into `batch`; that seq. The event's time is
    /// the remote's `at` (ms) when it sent one, else now.
    pub(super) fn stamp_remote(&mut self, req: RemoteStampRequest, batch: &mut Batch) -> u64 {
        self.world.seq += 1;
        let at = req
            .data
            .get("at")
            .and_then(|v| v.as_i64())
            .map(Timestamp)
            .unwrap_or_else(now);
        let data = match req.data {
            serde_json::Value::Object(_) => req.data,
            _ => serde_json::Value::Object(Default::default()),
        };
        batch.remote.stamps.push(RemoteStamp {
            seq: self.world.seq,
            host: req.host,
            remote_seq: req.remote_seq,
            kind: req.kind,
            pane: req.pane.map(|p| p.to_string()).unwrap_or_default(),
            data,
            at,
        });
        self.world.seq
    }
}

/// The wire form of one log entry in `Events`: (seq, kind, pane, data); a remote one's
/// pane is `NAME:pN` and its data has `host` and `remote_seq`.
pub(super) fn entry_tuple(e: &LogEntry) -> EventTuple {
    match e {
        LogEntry::Local(e) => event_tuple(e),
        LogEntry::Remote(r) => (
            r.seq,
            r.kind.clone(),
            r.pane.clone(),
            remote_event_data(&r.data, &r.host, r.remote_seq),
        ),
    }
}

impl Owner {
    /// Emits the generic `Event` signal of a remote event (no typed signal: those name
    /// local panes).
    pub(super) async fn emit_remote(emitter: &SignalEmitter<'_>, r: &RemoteStamp) {
        let data = remote_event_data(&r.data, &r.host, r.remote_seq);
        if let Err(err) = Attend1::event(emitter, r.seq, &r.kind, &r.pane, &data).await {
            tracing::warn!(seq = r.seq, "cannot emit signal: {err}");
        }
    }
}
