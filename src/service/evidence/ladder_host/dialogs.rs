//! Dialogs in the sources: what the chrome reads of the live screen, handed to the pane's
//! machine ([`Input::Chrome`], which opens, enriches and closes the decision:
//! `docs/lifecycle-attention.md#one-verdict`), and the answers Attend typed — delivered
//! ([`Input::Answered`]) and, when the agent did not take them, confirmed with one Enter
//! (`docs/lifecycle-attention.md#answer`).
use super::{LadderHost, Outcome, Unconfirmed};
use crate::adapters::answer::{confirm_keys, Answer};
use crate::adapters::manifest::Screen;
use crate::engine::machine::Input;
use crate::engine::{dismissal_due, ClosedScreen, ShownDialog, World, ANSWER_CONFIRM_MS};
use crate::model::{PaneId, Timestamp};
use crate::service::evidence::chrome::ChromeResult;

impl LadderHost {
    /// Attend typed `answer` into `pane` at `at` (its dialog may stay drawn a moment); an
    /// answer that picked an option is confirmed at its due time if the agent did not
    /// take it. The answer's own step (`Action::Answer`) told the machine.
    pub fn note_answer(
        &mut self,
        world: &mut World,
        pane: PaneId,
        answer: &Answer,
        at: Timestamp,
    ) -> Outcome {
        let mut out = Outcome::default();
        if let Some(st) = self.panes.get_mut(&pane) {
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
        world: &mut World,
        pane: PaneId,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        let Ok(p) = world.pane(pane) else {
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
            out.keys.push((pane, keys));
            self.step(world, pane, Input::Answered, now, out);
        }
    }

    /// Hands the chrome's reading of `pane`'s screen to its machine (`changed`: the
    /// matched rule changed, which is chrome evidence); an answer whose dialog left the
    /// screen for `DIALOG_GONE_MS` was taken.
    pub(super) fn chrome_step(
        &mut self,
        world: &mut World,
        pane: PaneId,
        changed: bool,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        let Some(st) = self.panes.get(&pane) else {
            return;
        };
        let r = &st.chrome.result;
        let shown = r.matched.as_ref().map(|m| ShownDialog {
            rule: m.rule.clone(),
            reason: m.reason.clone(),
            kind: m.kind,
            prompt: m.prompt.clone(),
            options: m.options.clone(),
            choices: m.choices.clone(),
        });
        let closed = closed_screen(r);
        let input = Input::Chrome {
            shown,
            closed,
            changed,
        };
        self.step(world, pane, input, now, out);
        let seen_at = world.machine(pane).ok().and_then(|m| m.dialog_seen_at());
        let gone = world.machine(pane).is_ok_and(|m| m.shown().is_none());
        if gone && dismissal_due(seen_at, now).is_none() {
            // The dialog left the screen (for `DIALOG_GONE_MS`: a frame caught in the
            // middle of a redraw is no proof): the answer was taken.
            if let Some(st) = self.panes.get_mut(&pane) {
                st.unconfirmed = None;
            }
        }
    }
}

/// The closed screen `result` shows, if any, for `crate::engine::closed_gate_step`.
fn closed_screen(result: &ChromeResult) -> Option<ClosedScreen> {
    result.closed.as_ref()?;
    Some(ClosedScreen {
        by_reviewer: result.closed_by == crate::adapters::manifest::ClosedBy::Reviewer,
        since: result.closed_since?,
    })
}
