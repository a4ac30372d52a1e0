//! Gates of external panes that Attend can answer: Claude Code's `PermissionRequest` hook
//! run waits (`AwaitGate`) for a choice made in Attend, and `Answer` on such a pane hands
//! the choice to that run instead of refusing with `NotOwned`
//! (docs/decisions/0015-answering-external-gates.md; docs/adapters.md "Answering gates of
//! external agents").
//!
//! One gate per external pane: the decision its `PermissionRequest` hook opened, that
//! hook's delivery id, and the waiting run's reply once `AwaitGate` arrived. A gate ends
//! when a choice is made in Attend (the run gets `allow` or `deny`), when its decision is
//! no longer the pane's open one (resolved otherwise, e.g. at the terminal: the run gets
//! `""`), or when its pane is gone.

use super::{Batch, Gate, Owner};
use crate::model::{Action, AgentKind, PaneId, SignalKind};
use crate::service::bus::error::Attend1Error;
use crate::service::command::{HookRequest, Reply};
use crate::system::clock::now;
use attend_hook::gate::{behavior_of, CHOICES};

impl Gate {
    /// True while a hook run waits for this gate's answer.
    fn waiting(&self) -> bool {
        self.waiter.as_ref().is_some_and(|w| !w.is_closed())
    }
}

impl Owner {
    /// After hook `req` was applied to pane `id`: a Claude `PermissionRequest` on an
    /// external pane that left a decision open makes it the pane's gate (replacing an
    /// older one, whose run [`Owner::settle_gates`] releases).
    pub(super) fn note_gate(&mut self, id: PaneId, req: &HookRequest) {
        let Some(delivery) = &req.delivery_id else {
            return;
        };
        let asks = matches!(
            req.mapping.signal.kind,
            SignalKind::PermissionRequested { .. }
        );
        if !asks || req.mapping.agent != AgentKind::Claude {
            return;
        }
        let Ok(pane) = self.world.pane(id) else {
            return;
        };
        let Some(decision) = pane.pending_decision.as_ref().filter(|_| !pane.owned) else {
            return;
        };
        let gate = Gate {
            delivery: delivery.clone(),
            decision: decision.id,
            waiter: None,
        };
        if let Some(old) = self.gates.insert(id, gate) {
            if let Some(w) = old.waiter {
                let _ = w.send(Ok(String::new()));
            }
        }
    }

    /// True when pane `p`'s open decision is its gate: `allow` and `deny` in Attend go to
    /// the hook run that opened it (`gate` in `GetPane`, so a remote host's mirror offers
    /// them too).
    pub(super) fn gated(&self, p: &crate::model::Pane) -> bool {
        let open = p.pending_decision.as_ref().map(|d| d.id);
        self.gates
            .get(&p.id)
            .is_some_and(|g| Some(g.decision) == open)
    }

    /// `AwaitGate(delivery)`: the hook run of `delivery` waits on its gate while that is
    /// open; otherwise (no such gate, already resolved) it gets `""` now. The caller
    /// bounds the wait.
    pub(super) fn await_gate(&mut self, delivery: &str, reply: Reply<String>, batch: &mut Batch) {
        let open = self.gates.iter_mut().find(|(id, g)| {
            g.delivery == delivery
                && self
                    .world
                    .panes()
                    .get(id)
                    .and_then(|p| p.pending_decision.as_ref())
                    .is_some_and(|d| d.id == g.decision)
        });
        match open {
            Some((_, gate)) => {
                if let Some(old) = gate.waiter.replace(reply) {
                    let _ = old.send(Ok(String::new()));
                }
            }
            None => batch.respond(reply, Ok(String::new())),
        }
    }

    /// `Answer` on an external pane: `None` when no hook run waits on the pane's open
    /// decision (the caller refuses with `NotOwned`); else the choice is handed to that run
    /// (`allow` or `deny`, [`behavior_of`]) and the decision resolved, or `InvalidArgument`
    /// listing [`CHOICES`] for another choice (the gate stays open).
    pub(super) fn answer_gate(
        &mut self,
        id: PaneId,
        choice: &str,
        batch: &mut Batch,
    ) -> Option<Result<(), Attend1Error>> {
        let open = self.world.pane(id).ok()?.pending_decision.as_ref()?.id;
        let gate = self.gates.get(&id)?;
        if gate.decision != open || !gate.waiting() {
            return None;
        }
        let Some(behavior) = behavior_of(choice) else {
            return Some(Err(Attend1Error::InvalidArgument(format!(
                "pane {id} takes one of: {}",
                CHOICES.join(", ")
            ))));
        };
        let action = Action::Answer {
            choice: behavior.to_string(),
        };
        let events = match self.world.apply_action(id, &action, now()) {
            Ok((events, _)) => events,
            Err(e) => return Some(Err(e.into())),
        };
        tracing::info!(pane = %id, behavior, "gate answered for the waiting hook");
        batch.record(id, events);
        let waiter = self.gates.remove(&id).and_then(|g| g.waiter);
        if let Some(w) = waiter {
            batch.respond(w, Ok(behavior.to_string()));
        }
        Some(Ok(()))
    }

    /// Before a batch is committed: every gate whose pane is gone, or whose decision is
    /// no longer the pane's open one, ends; its waiting run gets `""` after the commit.
    /// A gate whose run gave up waiting ends too.
    pub(super) fn settle_gates(&mut self, batch: &mut Batch) {
        if self.gates.is_empty() {
            return;
        }
        let world = &self.world;
        let ended: Vec<PaneId> = self
            .gates
            .iter()
            .filter(|(id, g)| {
                let open = world
                    .panes()
                    .get(id)
                    .and_then(|p| p.pending_decision.as_ref())
                    .map(|d| d.id);
                open != Some(g.decision) || g.waiter.as_ref().is_some_and(|w| w.is_closed())
            })
            .map(|(id, _)| *id)
            .collect();
        for id in ended {
            if let Some(w) = self.gates.remove(&id).and_then(|g| g.waiter) {
                batch.respond(w, Ok(String::new()));
            }
        }
    }
}
