//! Dialogs in the host: the ladder's verdict and the chrome's matched rule handed to the
//! engine's pure [`verdict_step`] after every chrome change, self-report and applied
//! signal (`docs/lifecycle-attention.md#one-verdict`,
//! `docs/lifecycle-attention.md#dialogs-no-hook-names`).
use super::{LadderHost, Outcome, Unconfirmed};
use crate::adapters::answer::{confirm_keys, Answer};
use crate::adapters::manifest::Screen;
use crate::engine::verdict::{step_rung, verdict_step, Seen};
use crate::engine::{
    closed_gate_step, dismissal_due, ClosedScreen, ShownDialog, World, ANSWER_CONFIRM_MS,
    CHROME_ORIGIN,
};
use crate::model::{PaneId, Rung, Signal, SignalKind, Source, Timestamp};

impl LadderHost {
    /// Attend typed `answer` into `pane` at `at` (its dialog may stay drawn a moment); an
    /// answer that picked an option is confirmed at its due time if the agent did not
    /// take it. Returns the timer step for the owner.
    pub fn note_answer(
        &mut self,
        world: &World,
        pane: PaneId,
        answer: &Answer,
        at: Timestamp,
    ) -> Outcome {
        let mut out = Outcome::default();
        if let Some(st) = self.panes.get_mut(&pane) {
            st.answered_at = Some(at);
            if answer.rule.is_some() {
                // The answer read its dialog off the screen now.
                st.dialog_seen_at = Some(at);
            }
            st.unconfirmed = match (&answer.rule, &answer.picked) {
                (Some(rule), Some(picked)) => Some(Unconfirmed {
                    due: Timestamp(at.0 + ANSWER_CONFIRM_MS),
                    rule: rule.clone(),
                    picked: picked.clone(),
                }),
                _ => None,
            };
        }
        self.schedule(world, pane, at, &mut out);
        out
    }

    /// At an unconfirmed answer's due time: Enter into `pane` if its dialog is still
    /// drawn with the cursor on the picked option (once; the settle time starts again so
    /// the dialog on its way out opens nothing).
    pub(super) fn confirm_answer(
        &mut self,
        world: &World,
        pane: PaneId,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        let Some(p) = world.panes.get(&pane) else {
            return;
        };
        let Some(st) = self.panes.get_mut(&pane) else {
            return;
        };
        let Some(u) = st.unconfirmed.take() else {
            return;
        };
        if !p.live.is_running() {
            return;
        }
        let Some(handle) = self.ptys.lock().get(&pane).cloned() else {
            return;
        };
        let Some(text) = handle.try_screen_text() else {
            // The parser is busy: the pane is printing, so the agent is not waiting.
            return;
        };
        let screen = Screen::new(&text, p.title.as_deref().unwrap_or(""));
        if let Some(keys) = confirm_keys(self.manifests.get(p.agent), &screen, &u.rule, &u.picked) {
            tracing::info!(%pane, rule = %u.rule, picked = %u.picked, "answer not taken: the dialog is still drawn with the cursor on the picked option; pressing Enter");
            st.answered_at = Some(now);
            out.keys.push((pane, keys));
        }
    }

    /// Queues the signal that keeps `pane`'s decision in step with the ladder's verdict
    /// and the dialog its live screen shows ([`verdict_step`]: opens a decision for a
    /// dialog the chrome or the self-report reports, enriches it, closes it when no such
    /// rung reports it; then [`closed_gate_step`]: ends a gate whose dialog the agent
    /// closed without a hook), if any.
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
        // One step at a time: a signal of this pane queued by an earlier call in the
        // same outcome is not applied yet, and the same verdict would queue it again
        // (one dialog, two decisions). The call after it is applied looks again.
        if out.signals.iter().any(|(id, _)| *id == pane) {
            return;
        }
        let seen = self
            .panes
            .get(&pane)
            .and_then(|st| st.chrome.result.matched.as_ref())
            .is_some();
        if let Some(st) = self.panes.get_mut(&pane) {
            if seen {
                st.dialog_seen_at = Some(now);
            } else if dismissal_due(st.dialog_seen_at, now).is_none() {
                // The dialog left the screen (for `DIALOG_GONE_MS`: a frame caught in the
                // middle of a redraw is no proof): the answer was taken.
                st.unconfirmed = None;
            }
        }
        let Some(st) = self.panes.get(&pane) else {
            return;
        };
        let shown = st.chrome.result.matched.as_ref().map(|m| ShownDialog {
            rule: m.rule.clone(),
            kind: m.kind,
            prompt: m.prompt.clone(),
            options: m.options.clone(),
            choices: m.choices.clone(),
        });
        let verdict = st.ladder.decide(now);
        let look = Seen {
            shown: shown.as_ref(),
            answered_at: st.answered_at,
            closed_at: st.closed_at,
        };
        let closed = closed_screen(&st.chrome.result);
        let seen_at = st.dialog_seen_at;
        let step = verdict_step(p, &verdict, look, now)
            .map(|kind| (step_rung(&verdict, look, &kind), kind))
            .or_else(|| {
                shown
                    .is_none()
                    .then(|| closed_gate_step(p, closed, seen_at))
                    .flatten()
                    .map(|kind| (Rung::NeedsInputChrome, kind))
            });
        let Some((rung, kind)) = step else {
            return;
        };
        // A frame without the dialog is not its end yet: the pane's timer asks again
        // (`schedule` arms it for `dialog_dismissal`).
        let closes = matches!(kind, SignalKind::GateDismissed | SignalKind::GateDenied);
        let by_chrome = p
            .pending_decision
            .as_ref()
            .map_or(true, |d| d.source.rung == Rung::NeedsInputChrome);
        if closes && by_chrome && dismissal_due(seen_at, now).is_some() {
            return;
        }
        tracing::debug!(pane = %pane, rule = ?shown.as_ref().map(|s| &s.rule), signal = kind.name(), rung = rung.as_str(), "verdict step");
        let origin = match rung {
            Rung::NeedsInputChrome => CHROME_ORIGIN.to_string(),
            _ => verdict
                .needs_input_by
                .as_ref()
                .map_or_else(|| "self-report".to_string(), |e| e.source_id.clone()),
        };
        let source = Source::new(rung, &origin);
        out.signals.push((pane, Signal::new(kind, source, now)));
    }

    /// A decision of `pane` was answered at `at` through a hook that waited for it (an
    /// external pane's gate): the dialog the self-report or the chrome still shows for a
    /// moment is the answered one ([`verdict_step`]).
    pub fn note_answered(&mut self, pane: PaneId, at: Timestamp) {
        if let Some(st) = self.panes.get_mut(&pane) {
            st.answered_at = Some(at);
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
