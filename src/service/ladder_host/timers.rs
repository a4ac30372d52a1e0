//! The ladder's one timer per pane: armed for the earliest of the sampler's deadline, a
//! pending correction's due time, a dialog dismissal and an unconfirmed answer's check;
//! never periodic. A correction that is due becomes a signal for the owner; an answer
//! the agent did not take, one Enter.
use super::{until, LadderHost, Outcome};
use crate::engine::World;
use crate::model::{PaneId, Rung, Signal, Source, Timestamp};
use crate::service::command::{Command, LadderCommand, LadderInput};

impl LadderHost {
    /// Applies a correction that is due, and arms the pane's timer for the earliest of
    /// the sampler's deadline and a pending correction.
    pub(super) fn schedule(
        &mut self,
        world: &World,
        pane: PaneId,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        let Some(p) = world.panes.get(&pane) else {
            return;
        };
        let dismissal = self.dialog_dismissal(world, pane, now);
        let confirm = self
            .panes
            .get(&pane)
            .and_then(|st| st.unconfirmed.as_ref())
            .map(|u| u.due);
        if confirm.is_some_and(|due| due <= now) {
            self.confirm_answer(world, pane, now, out);
        }
        let Some(st) = self.panes.get_mut(&pane) else {
            return;
        };
        let mut deadline = st.sampler.deadline();
        let confirm = st.unconfirmed.as_ref().map(|u| u.due);
        for due in dismissal.into_iter().chain(confirm) {
            deadline = Some(deadline.map_or(due, |d| d.min(due)));
        }
        if p.live.is_running() {
            if let Some((kind, due)) = st.ladder.correction(p, now) {
                let by = st
                    .ladder
                    .rungs
                    .get(&Rung::SelfReport)
                    .and_then(|r| r.last.as_ref())
                    .map(|e| (e.source_id.clone(), e.seq));
                if by.is_some() && by != st.corrected {
                    if due <= now {
                        let source = by.as_ref().map_or("self-report", |b| b.0.as_str());
                        let signal = Signal::new(kind, Source::new(Rung::SelfReport, source), now);
                        st.corrected = by;
                        out.signals.push((pane, signal));
                    } else {
                        deadline = Some(deadline.map_or(due, |d| d.min(due)));
                    }
                }
            }
        }
        match deadline {
            None => {
                if let Some((_, h)) = st.timer.take() {
                    h.abort();
                }
            }
            Some(d) => {
                // An armed timer that fires no later is kept: its tick re-arms.
                if st.timer.as_ref().is_some_and(|(t, _)| *t <= d) {
                    return;
                }
                if let Some((_, h)) = st.timer.take() {
                    h.abort();
                }
                let tx = self.tx.clone();
                let wait = until(d, now);
                let task = tokio::spawn(async move {
                    tokio::time::sleep(wait).await;
                    let cmd = Command::Ladder(LadderCommand::Input(LadderInput::Due(pane)));
                    let _ = tx.send(cmd).await;
                });
                st.timer = Some((d, task));
            }
        }
    }
}
