//! Removing panes on the owner task (`docs/lifecycle-attention.md#removing-panes`): the
//! steps of `Remove` (src/service/bus/removal.rs drives them), `RemoveExited`, and the
//! optional automatic removal of exited, reviewed panes with its one timer.
//!
//! A removed pane leaves the world and every per-pane table of the daemon (PTY entry,
//! environment, process watch, ladder, terminal location); the commit deletes its row
//! (with its decisions, tasks and hold) and the tabs and workspaces left empty, and
//! appends `pane.removed` to the log, which keeps every earlier event of the pane. Its id
//! is never handed out again.

use super::{Batch, Owner};
use crate::engine::removal::{self, Refusal, Removal};
use crate::model::{Action, PaneId, Rung, Source};
use crate::service::bus::error::Attend1Error;
use crate::service::command::{Command, RemoveRequest, RemoveStep};
use crate::system::clock::now;
use crate::system::ending::ENDING;
use tokio::sync::oneshot;

/// The origin of the automatic removal's `pane.removed` events (`user:auto-remove`: the
/// user's own setting acting).
pub const AUTO_REMOVE_ORIGIN: &str = "auto-remove";

impl Owner {
    /// One step of `Remove`: refuses every pane if one cannot go; with `kill` and running
    /// panes Attend runs, sends them the first signal of [`ENDING`] (the user's kill) and
    /// answers with their exit waiters, removing nothing yet; else removes them all in
    /// this batch.
    pub(super) fn remove_step(
        &mut self,
        req: RemoveRequest,
        batch: &mut Batch,
    ) -> Result<RemoveStep, Attend1Error> {
        let mut running = Vec::new();
        for &id in &req.panes {
            match removal::removal(self.world.pane(id)?, req.kill) {
                Ok(Removal::Now) => {}
                Ok(Removal::AfterExit) => running.push(id),
                Err(Refusal::Running) => {
                    return Err(Attend1Error::InvalidArgument(format!(
                        "pane {id} is still running: end it first (attend rm --kill {id})"
                    )))
                }
                Err(Refusal::CannotKill) => {
                    return Err(Attend1Error::NotOwned(format!(
                        "pane {id} runs outside Attend, which cannot end its agent; removed \
                         without kill it is only forgotten (its agent keeps running)"
                    )))
                }
            }
        }
        if running.is_empty() {
            self.remove_now(&req.panes, Source::user(), batch);
            return Ok(RemoveStep::Removed(req.panes));
        }
        let mut waits = Vec::new();
        for id in running {
            let handle = self.handle(id)?;
            handle
                .kill(ENDING[0].0 as i32)
                .map_err(|e| Attend1Error::Internal(format!("cannot signal {id}: {e}")))?;
            // The exit that follows is the user's own act
            // (`docs/lifecycle-attention.md#process-exited`).
            self.act(id, &Action::Kill, batch)?;
            let (tx, rx) = oneshot::channel();
            self.exit_waiters.entry(id).or_default().push(tx);
            waits.push((id, rx));
        }
        Ok(RemoveStep::Killing(waits))
    }

    /// `RemoveExited`: the exited panes whose exit lies at least `older_than_ms` back,
    /// removed unless `dry_run`.
    pub(super) fn remove_exited(
        &mut self,
        older_than_ms: i64,
        dry_run: bool,
        batch: &mut Batch,
    ) -> Vec<PaneId> {
        let ids = removal::exited_panes(self.world.pane_values(), older_than_ms, now());
        if !dry_run {
            self.remove_now(&ids, Source::user(), batch);
        }
        ids
    }

    /// Removes `ids` from the world and from every per-pane table of the daemon, on
    /// behalf of `source`.
    fn remove_now(&mut self, ids: &[PaneId], source: Source, batch: &mut Batch) {
        let at = now();
        for &id in ids {
            // A running pane followed in tmux is only forgotten: its agent runs on in the
            // user's tmux pane, followed no more (`docs/tmux.md#removing`).
            let followed = self
                .world
                .pane(id)
                .ok()
                .filter(|p| p.live.is_running())
                .and_then(|p| p.tmux.clone());
            let Ok(events) = self.world.remove_pane(id, source.clone(), at) else {
                continue;
            };
            batch.record(id, events);
            let handle = self.ptys.lock().remove(&id);
            if let (Some(location), Some(follower)) = (&followed, &self.tmux) {
                follower.forget(location);
            } else if let Some(h) = handle {
                // Never reached for a running pane Attend runs (refused above); no orphan
                // either way.
                let _ = h.kill(libc::SIGKILL);
            }
            self.envs.remove(&id);
            self.procs.forget(id);
            self.ladder.forget(id);
            self.surfaces.note_terminal(id, None);
            // Dropped: a removal waiting for this pane's exit stops waiting.
            self.exit_waiters.remove(&id);
            tracing::info!(pane = %id, source = %source, "pane removed");
        }
    }

    /// After the exit of `pane` is applied: wakes the removals waiting for it, once the
    /// batch is committed.
    pub(super) fn exited_for_removal(&mut self, pane: PaneId, batch: &mut Batch) {
        if let Some(waiters) = self.exit_waiters.remove(&pane) {
            batch.effects.push(Box::new(move |_: &mut Owner| {
                for w in waiters {
                    let _ = w.send(());
                }
            }));
        }
    }

    /// The automatic removal (`[panes] remove_exited_after`, off by default): removes the
    /// exited, reviewed panes whose exit is that long ago, in `batch`.
    pub(super) fn auto_remove(&mut self, batch: &mut Batch) {
        // The timer that brought us here has fired; the next one is armed after commit.
        self.auto_timer = None;
        let Some(age) = self.config.remove_exited_after else {
            return;
        };
        let due = removal::auto_removal(self.world.pane_values(), age_ms(age), now()).due;
        let source = Source::new(Rung::User, AUTO_REMOVE_ORIGIN);
        self.remove_now(&due, source, batch);
    }

    /// Arms the automatic removal's one timer for the next candidate's due time, or
    /// disarms it when there is none: no timer (and no wake-up) while no exited,
    /// reviewed pane exists. Called at start and after every commit.
    pub(super) fn arm_auto_removal(&mut self) {
        let Some(age) = self.config.remove_exited_after else {
            return;
        };
        let at = now();
        let plan = removal::auto_removal(self.world.pane_values(), age_ms(age), at);
        let next = if plan.due.is_empty() {
            plan.next
        } else {
            Some(at)
        };
        match next {
            None => {
                if let Some((_, h)) = self.auto_timer.take() {
                    h.abort();
                }
            }
            Some(due) => {
                if self.auto_timer.as_ref().is_some_and(|(t, _)| *t == due) {
                    return;
                }
                if let Some((_, h)) = self.auto_timer.take() {
                    h.abort();
                }
                let tx = self.cmd_tx.clone();
                let wait = std::time::Duration::from_millis(due.millis_since(at).max(0) as u64);
                let task = tokio::spawn(async move {
                    tokio::time::sleep(wait).await;
                    let _ = tx.send(Command::AutoRemove).await;
                });
                self.auto_timer = Some((due, task));
            }
        }
    }
}

/// `age` in milliseconds (saturating).
fn age_ms(age: std::time::Duration) -> i64 {
    i64::try_from(age.as_millis()).unwrap_or(i64::MAX)
}
