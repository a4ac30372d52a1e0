//! The sources' one timer per pane: armed for the earliest of the sampler's deadline, an
//! unconfirmed answer's check and the time the pane's machine asks to be woken (a pending
//! correction, a dialog dismissal: `PaneMachine::wake`); never periodic. The timer's tick
//! steps the machine with `Input::Due`; an answer the agent did not take gets one Enter.
//! The task behind the timer is [`PaneTimer`] (src/service/evidence/ladder_host/pane_timer.rs).
use super::pane_timer::PaneTimer;
use super::{LadderHost, Outcome};
use crate::engine::World;
use crate::model::{PaneId, Timestamp};

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
                if let Some(t) = &st.timer {
                    t.disarm();
                }
            }
            Some(d) => st
                .timer
                .get_or_insert_with(|| PaneTimer::start(pane, self.tx.clone()))
                .arm(d),
        }
    }
}
