//! The sources' one timer per pane: armed for the earliest of the sampler's deadline, an
//! unconfirmed answer's check and the time the pane's machine asks to be woken (a pending
//! correction, a dialog dismissal: `PaneMachine::wake`); never periodic. The timer's tick
//! steps the machine with `Input::Due`; an answer the agent did not take gets one Enter.
use super::{until, LadderHost, Outcome};
use crate::engine::World;
use crate::model::{PaneId, Timestamp};
use crate::service::command::{Command, LadderCommand, LadderInput};

impl LadderHost {
    /// Checks an unconfirmed answer that is due, and arms the pane's timer for the
    /// earliest of the sampler's deadline, the answer's check and the machine's wake.
    pub(super) fn schedule(
        &mut self,
        world: &mut World,
        pane: PaneId,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        let confirm = self
            .panes
            .get(&pane)
            .and_then(|st| st.unconfirmed.as_ref())
            .map(|u| u.due);
        if confirm.is_some_and(|due| due <= now) {
            self.confirm_answer(world, pane, now, out);
        }
        let Ok(m) = world.machine(pane) else {
            return;
        };
        let wake = m.wake(now);
        let Some(st) = self.panes.get_mut(&pane) else {
            return;
        };
        let confirm = st.unconfirmed.as_ref().map(|u| u.due);
        let deadline = [st.sampler.deadline(), confirm, wake]
            .into_iter()
            .flatten()
            .min();
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
