//! `Explain` on the owner task: lifecycle and attention with what set them, and the
//! ladder's part.

use super::{Batch, Owner};
use crate::client::wire::{Dict, DictBuilder};
use crate::model::{Event, EventKind, PaneId};
use crate::service::bus::error::Attend1Error;
use crate::system::clock::now;

impl Owner {
    /// `Explain` (for now): lifecycle and attention, each with the source and time of
    /// what set it.
    pub(super) fn explain(&mut self, id: PaneId, batch: &Batch) -> Result<Dict, Attend1Error> {
        let pane = self.world.pane(id)?.clone();
        let is_lifecycle = |e: &Event| e.pane == id && matches!(e.kind, EventKind::Agent { .. });
        let mut last = batch.events.iter().rev().find(|e| is_lifecycle(e)).cloned();
        if last.is_none() {
            last = self
                .db
                .last_lifecycle(id)
                .map_err(|e| Attend1Error::Internal(format!("cannot read events: {e}")))?;
        }
        let shown = pane.attention();
        let item = pane
            .items
            .iter()
            .filter(|i| i.level == shown)
            .max_by_key(|i| i.at);
        let mut b = DictBuilder::new()
            .str("pane", &id.to_string())
            .str("lifecycle", pane.lifecycle.as_str())
            .str("attention", shown.as_str())
            .str("live", pane.live.as_str());
        if let Some(e) = last {
            b = b
                .str("lifecycle_source", &e.source.to_string())
                .time("lifecycle_at", Some(e.at))
                .put("lifecycle_seq", e.seq);
        }
        if let Some(i) = item {
            b = b
                .str("attention_source", &i.source.to_string())
                .time("attention_at", Some(i.at));
        }
        if let Some(d) = &pane.pending_decision {
            b = b.str("decision_source", &d.source.to_string());
        }
        let mut d = b.build();
        d.extend(self.ladder.explain(self.world.machine(id)?, now()));
        Ok(d)
    }
}
