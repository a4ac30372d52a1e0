//! The screen-side rungs of the ladder: PTY output sampling and the needs-input chrome
//! (the agent's screen manifest evaluated on the live screen), and the keys that answer
//! the dialog on screen.
use super::{LadderHost, Outcome};
use crate::adapters::answer::{resolve, Answer, Refusal};
use crate::adapters::manifest::Screen;
use crate::engine::ladder::{Claim, Evidence};
use crate::engine::World;
use crate::model::{EventKind, Pane, PaneId, Rung, Source, Timestamp};
use crate::service::bus::error::Attend1Error;

/// How often [`LadderHost::dialog_answer`] tries for the screen (5 ms apart) while the
/// pane's parser holds it.
const SCREEN_TRIES: usize = 20;

/// The source origin of a screen notice's warning (`needs-input-chrome:screen.notice`).
pub const NOTICE_ORIGIN: &str = "screen.notice";
use crate::service::evidence::sampling::Step;

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
            self.observe(world, pane, ev, now, out);
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
        let Ok(p) = world.pane(pane) else {
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
        // A retry line appearing on screen is a warning (`docs/adapters.md#screen-notices`).
        let notice = crate::adapters::notices::retry_notice(p.agent, &text);
        if notice.is_some() && st.notice.is_none() {
            let text = notice.clone().unwrap_or_default();
            let source = Source::new(Rung::NeedsInputChrome, NOTICE_ORIGIN);
            let kind = crate::model::SignalKind::Warning { text };
            out.signals
                .push((pane, crate::model::Signal::new(kind, source, now)));
        }
        st.notice = notice;
        // An API error drawn as the last history cell may end the turn no hook ended
        // (`docs/lifecycle-attention.md#api-failures-and-policy-denials`).
        let error = crate::adapters::turn_errors::turn_error(p.agent, &text);
        if let Some(e) = error
            .as_ref()
            .filter(|e| st.turn_error.as_ref() != Some(*e))
        {
            if let Some(kind) = crate::engine::screen_error_step(p, &e.text, e.usage_limit, now) {
                let source = Source::new(Rung::NeedsInputChrome, crate::engine::ERROR_ORIGIN);
                out.signals
                    .push((pane, crate::model::Signal::new(kind, source, now)));
            }
        }
        st.turn_error = error;
        let screen = Screen::new(&text, p.title.as_deref().unwrap_or(""));
        let changed = st.chrome.evaluate(manifest, screen, now);
        if changed {
            out.events.push(world.stamp(
                pane,
                EventKind::PaneChanged,
                Source::new(Rung::NeedsInputChrome, "screen.chrome"),
                now,
            ));
        }
        // Every evaluation goes to the machine: a dialog still shown after an answer
        // settled may need its decision, a change is chrome evidence.
        self.chrome_step(world, pane, changed, now, out);
    }

    /// The keys that answer `choice` on the dialog on `p`'s screen now
    /// (`docs/lifecycle-attention.md#answer`, ADR 0007): the agent's manifest and
    /// [`crate::adapters::answer::resolve`] on the live screen.
    ///
    /// Errors: `NotOwned` when the pane has no PTY here; `InvalidArgument` for a choice
    /// that is no choice, number or label of the dialog; `DialogUnreadable` for every
    /// other [`Refusal`] and when the screen stays busy (written by the pane's parser)
    /// for about 100 ms.
    pub fn dialog_answer(&self, p: &Pane, choice: &str) -> Result<Answer, Attend1Error> {
        let Some(handle) = self.ptys.lock().get(&p.id).cloned() else {
            return Err(Attend1Error::NotOwned(format!(
                "pane {} has no terminal in this service",
                p.id
            )));
        };
        let mut read = handle.try_screen_for_answer();
        for _ in 0..SCREEN_TRIES {
            if read.is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
            read = handle.try_screen_for_answer();
        }
        let Some((text, app_cursor)) = read else {
            return Err(Attend1Error::DialogUnreadable(format!(
                "pane {} is printing too fast to read its dialog; nothing was typed, try again",
                p.id
            )));
        };
        let screen = Screen::new(&text, p.title.as_deref().unwrap_or(""));
        let answer = resolve(self.manifests.get(p.agent), &screen, choice, app_cursor).map_err(
            |r| match r {
                Refusal::UnknownChoice { .. } => Attend1Error::InvalidArgument(r.to_string()),
                other => Attend1Error::DialogUnreadable(other.to_string()),
            },
        )?;
        listed_as_picked(p, choice, &answer)?;
        Ok(answer)
    }
}

/// A number means the option Attend listed under that number (`attend needs`, `attend
/// show`, the panel): when the open decision lists options and the dialog on screen
/// draws another label at that number (the decision's options came from a hook that
/// names fewer than the dialog draws: Claude Code 2.1.332's hook lists three, its dialog
/// four, and its `3` switches to auto mode), nothing is typed
/// (`docs/lifecycle-attention.md#answer`).
fn listed_as_picked(p: &Pane, choice: &str, answer: &Answer) -> Result<(), Attend1Error> {
    let Ok(n) = choice.trim().parse::<usize>() else {
        return Ok(());
    };
    let listed = p
        .pending_decision
        .as_ref()
        .and_then(|d| d.options.get(n.checked_sub(1)?));
    match (listed, &answer.picked) {
        (Some(listed), Some(picked)) if !same_label(listed, picked) => {
            Err(Attend1Error::DialogUnreadable(format!(
                "option {n} listed for pane {} is {listed:?}, but the dialog on its screen \
                 draws {picked:?} there; nothing was typed (answer by name: allow, deny, \
                 or the option's label)",
                p.id
            )))
        }
        _ => Ok(()),
    }
}

/// True when two option labels are the same once case and spacing are set aside (a label
/// cut at the screen's edge counts as the same when one begins the other).
fn same_label(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let (a, b) = (norm(a), norm(b));
    !a.is_empty() && !b.is_empty() && (a.starts_with(&b) || b.starts_with(&a))
}

#[cfg(test)]
mod listed_tests {
    use super::*;
    use crate::model::{Decision, DecisionKind, PaneId, Source, Timestamp};

    fn pane_with(options: &[&str]) -> Pane {
        let mut p = Pane::new(
            PaneId(1),
            "/w",
            "main",
            "",
            crate::model::AgentKind::Claude,
            Timestamp(0),
        );
        p.pending_decision = Some(Decision {
            id: 1,
            kind: DecisionKind::Permission,
            prompt: "Bash".into(),
            options: options.iter().map(|o| o.to_string()).collect(),
            answer_keys: Vec::new(),
            tool_use_id: None,
            source: Source::hook("claude", "PermissionRequest"),
            opened_at: Timestamp(0),
        });
        p
    }

    fn picked(label: &str) -> Answer {
        Answer {
            keys: "3".into(),
            rule: Some("permission-dialog".into()),
            picked: Some(label.into()),
        }
    }

    /// Claude Code 2.1.332: its hook lists "Yes · Yes, and don't ask again · No", its
    /// dialog draws four options with "3. Yes, and switch to auto mode".
    #[test]
    fn a_number_whose_listed_option_differs_from_the_screens_is_refused() {
        let p = pane_with(&["Yes", "Yes, and don't ask again", "No"]);
        let err = listed_as_picked(&p, "3", &picked("Yes, and switch to auto mode")).unwrap_err();
        assert!(matches!(err, Attend1Error::DialogUnreadable(_)), "{err:?}");
        assert!(listed_as_picked(&p, "1", &picked("Yes")).is_ok());
        assert!(listed_as_picked(&p, "3", &picked("No")).is_ok());
        // Names and numbers past the list are the screen's alone.
        assert!(listed_as_picked(&p, "allow", &picked("Yes, and switch to auto mode")).is_ok());
        assert!(listed_as_picked(&p, "4", &picked("No")).is_ok());
        // A label cut at the screen's edge is the same label.
        let q = pane_with(&["Yes, and always allow access to /tmp/x from this project"]);
        assert!(
            listed_as_picked(&q, "1", &picked("Yes, and always allow access to /tmp/x")).is_ok()
        );
    }
}
