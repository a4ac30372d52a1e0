//! The screen-side rungs of the ladder: PTY output sampling and the needs-input chrome
//! (the agent's screen manifest evaluated on the live screen), with the manifests' answer
//! keys for a decision that has none.
use super::{stamp_health, LadderHost, Outcome};
use crate::adapters::manifest::Screen;
use crate::engine::ladder::{Claim, Evidence};
use crate::engine::World;
use crate::model::{AnswerKey, EventKind, Pane, PaneId, Rung, Source, Timestamp};
use crate::service::sampling::Step;

impl LadderHost {
    /// Records a sampling claim and evaluates the chrome when the step asks.
    pub(super) fn sampling_step(
        &mut self,
        world: &mut World,
        pane: PaneId,
        step: Step,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        let Some(st) = self.panes.get_mut(&pane) else {
            return;
        };
        if let Some(activity) = step.claim {
            let seq = st.next_seq();
            let ev = Evidence {
                rung: Rung::WindowSampling,
                source_id: "pty.output".into(),
                seq,
                observed_at: now,
                claim: Claim {
                    activity: Some(activity),
                    needs_input: None,
                },
                note: match activity {
                    crate::engine::ladder::Activity::Working => "output after a quiet spell".into(),
                    _ => "quiet past the silence window and idle debounce".into(),
                },
            };
            let health = st.ladder.observe(ev, now).health;
            stamp_health(world, pane, health, out);
        }
        if step.evaluate_chrome {
            self.evaluate_chrome(world, pane, now, out);
        }
    }

    /// Evaluates the pane's manifest on its live screen; a change of the matched rule is
    /// chrome evidence and a `pane.changed`.
    pub(super) fn evaluate_chrome(
        &mut self,
        world: &mut World,
        pane: PaneId,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        let Some(p) = world.panes.get(&pane) else {
            return;
        };
        let Some(manifest) = self.manifests.get(p.agent) else {
            return;
        };
        let Some(handle) = self.ptys.lock().get(&pane).cloned() else {
            return;
        };
        let Some(st) = self.panes.get_mut(&pane) else {
            return;
        };
        // The owner never waits for a parser feeding a fast pane's screen
        // (`docs/reliability.md#load`): the evaluation stays pending and the pane's timer
        // retries it.
        let Some(text) = handle.try_screen_text() else {
            st.sampler.chrome_deferred();
            return;
        };
        let screen = Screen::new(&text, p.title.as_deref().unwrap_or(""));
        if !st.chrome.evaluate(manifest, screen, now) {
            return;
        }
        let (claim, note) = match &st.chrome.result.matched {
            Some(m) => (
                Claim {
                    activity: None,
                    needs_input: Some(crate::engine::ladder::NeedsInput {
                        count: 1,
                        reason: Some(m.reason.clone()),
                    }),
                },
                format!("rule {:?} matched", m.rule),
            ),
            // No dialog visible: chrome says nothing (another rung may know of a dialog
            // no rule describes).
            None => (Claim::default(), "no rule matched".to_string()),
        };
        let seq = st.next_seq();
        let ev = Evidence {
            rung: Rung::NeedsInputChrome,
            source_id: "screen.chrome".into(),
            seq,
            observed_at: now,
            claim,
            note: note.clone(),
        };
        let health = st.ladder.observe(ev, now).health;
        stamp_health(world, pane, health, out);
        out.events.push(world.stamp(
            pane,
            EventKind::PaneChanged,
            Source::new(Rung::NeedsInputChrome, "screen.chrome"),
            now,
        ));
    }

    /// Keys to add to the manifest's answer keys when a decision has none
    /// (`docs/lifecycle-attention.md#answer`): the matched chrome rule's, else those of the
    /// agent's first manifest rule of the same kind.
    pub fn answer_keys(&self, p: &Pane, kind: crate::model::DecisionKind) -> Vec<AnswerKey> {
        if let Some(m) = self
            .panes
            .get(&p.id)
            .and_then(|st| st.chrome.result.matched.as_ref())
        {
            if !m.answers.is_empty() {
                return m.answers.clone();
            }
        }
        self.manifests
            .get(p.agent)
            .and_then(|m| {
                m.rules
                    .iter()
                    .find(|r| r.kind == kind && !r.answers.is_empty())
            })
            .map(|r| r.answers.clone())
            .unwrap_or_default()
    }
}
