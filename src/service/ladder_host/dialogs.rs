//! Dialogs no hook names, in the host: the chrome's matched rule handed to the engine's
//! pure [`chrome_dialog_step`] after every chrome change and every applied signal
//! (`docs/lifecycle-attention.md#dialogs-no-hook-names`).
use super::{LadderHost, Outcome};
use crate::engine::{
    chrome_dialog_step, closed_gate_step, dismissal_due, ClosedScreen, ShownDialog, World,
    CHROME_ORIGIN,
};
use crate::model::{PaneId, Rung, Signal, Source, Timestamp};

impl LadderHost {
    /// Attend typed an answer into `pane` at `at` (its dialog may stay drawn a moment).
    pub fn note_answer(&mut self, pane: PaneId, at: Timestamp) {
        if let Some(st) = self.panes.get_mut(&pane) {
            st.answered_at = Some(at);
        }
    }

    /// Queues the signal that keeps `pane`'s decision in step with the dialog its live
    /// screen shows (opens a question for a dialog no hook names, closes it when the
    /// dialog is gone; ends a gate whose dialog the agent closed without a hook,
    /// [`closed_gate_step`]), if any.
    pub(super) fn sync_dialog(
        &mut self,
        world: &World,
        pane: PaneId,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        let Some(p) = world.panes.get(&pane) else {
            return;
        };
        let seen = self
            .panes
            .get(&pane)
            .and_then(|st| st.chrome.result.matched.as_ref())
            .is_some();
        if let Some(st) = self.panes.get_mut(&pane) {
            if seen {
                st.dialog_seen_at = Some(now);
            }
        }
        let st = self.panes.get(&pane);
        let answered_at = st.and_then(|st| st.answered_at);
        let shown = st
            .and_then(|st| st.chrome.result.matched.as_ref())
            .map(|m| ShownDialog {
                rule: m.rule.clone(),
                kind: m.kind,
                prompt: m.prompt.clone(),
                options: m.options.clone(),
                choices: m.choices.clone(),
            });
        let closed = st.and_then(|st| closed_screen(&st.chrome.result));
        let seen_at = st.and_then(|st| st.dialog_seen_at);
        let step = chrome_dialog_step(p, shown.as_ref(), answered_at, now).or_else(|| {
            shown
                .is_none()
                .then(|| closed_gate_step(p, closed, seen_at))
                .flatten()
        });
        if let Some(kind) = step {
            // A frame without the dialog is not its end yet: the pane's timer asks again
            // (`schedule` arms it for `dialog_dismissal`).
            if kind == crate::model::SignalKind::GateDismissed
                && dismissal_due(seen_at, now).is_some()
            {
                return;
            }
            tracing::debug!(pane = %pane, rule = ?shown.as_ref().map(|s| &s.rule), "dialog step");
            let source = Source::new(Rung::NeedsInputChrome, CHROME_ORIGIN);
            out.signals.push((pane, Signal::new(kind, source, now)));
        }
    }
}

impl LadderHost {
    /// When `pane`'s open chrome question, or the gate its agent closed on screen
    /// ([`closed_gate_step`]), may be dismissed (its dialog left the screen less than
    /// `DIALOG_GONE_MS` ago), for the pane's timer.
    pub(super) fn dialog_dismissal(
        &self,
        world: &World,
        pane: PaneId,
        now: Timestamp,
    ) -> Option<Timestamp> {
        let p = world.panes.get(&pane)?;
        let by_chrome = p
            .pending_decision
            .as_ref()
            .is_some_and(|d| d.source.rung == Rung::NeedsInputChrome);
        let st = self.panes.get(&pane)?;
        if st.chrome.result.matched.is_some() {
            return None;
        }
        let closed = closed_screen(&st.chrome.result);
        if !by_chrome && closed_gate_step(p, closed, st.dialog_seen_at).is_none() {
            return None;
        }
        dismissal_due(st.dialog_seen_at, now)
    }
}

/// The closed screen `result` shows, if any, for [`closed_gate_step`].
fn closed_screen(result: &crate::service::chrome::ChromeResult) -> Option<ClosedScreen> {
    result.closed.as_ref()?;
    Some(ClosedScreen {
        by_reviewer: result.closed_by == crate::adapters::manifest::ClosedBy::Reviewer,
        since: result.closed_since?,
    })
}
