//! Dialogs no hook names, in the host: the chrome's matched rule handed to the engine's
//! pure [`chrome_dialog_step`] after every chrome change and every applied signal
//! (`docs/lifecycle-attention.md#dialogs-no-hook-names`).
use super::{LadderHost, Outcome};
use crate::engine::{chrome_dialog_step, ShownDialog, World, CHROME_ORIGIN};
use crate::model::{PaneId, Rung, Signal, Source, Timestamp};

impl LadderHost {
    /// Attend typed an answer into `pane` at `at` (its dialog may stay drawn a moment).
    pub fn note_answer(&mut self, pane: PaneId, at: Timestamp) {
        if let Some(st) = self.panes.get_mut(&pane) {
            st.answered_at = Some(at);
        }
    }

    /// Queues the signal that keeps `pane`'s question decision in step with the dialog its
    /// live screen shows (opens one for a dialog no hook names, closes it when the dialog
    /// is gone), if any.
    pub(super) fn sync_dialog(
        &self,
        world: &World,
        pane: PaneId,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        let Some(p) = world.panes.get(&pane) else {
            return;
        };
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
        if let Some(kind) = chrome_dialog_step(p, shown.as_ref(), answered_at, now) {
            tracing::debug!(pane = %pane, rule = ?shown.as_ref().map(|s| &s.rule), "dialog step");
            let source = Source::new(Rung::NeedsInputChrome, CHROME_ORIGIN);
            out.signals.push((pane, Signal::new(kind, source, now)));
        }
    }
}
