//! One verdict (`docs/lifecycle-attention.md#one-verdict`): what the evidence ladder
//! decides about needs-input and what the pane shows never disagree.
//!
//! Pure: [`verdict_step`] takes the pane, the ladder's [`Verdict`] and the dialog the
//! chrome shows, and returns the signal that brings the pane's decision in line with the
//! verdict, if any:
//! - a deciding rung other than the hooks (the needs-input chrome, the agent's
//!   self-report) reports needs-input and no decision is open → the decision opens
//!   (`PermissionRequested` when the dialog asks to approve an action, else
//!   `QuestionAsked`): the pane is `blocked` with the reason's required attention;
//! - a decision the self-report opened while the chrome now shows its dialog → the
//!   chrome's reading enriches it (prompt, options, kind; one decision, no second
//!   notification: `crate::engine::transition` enriches instead of superseding when the
//!   rungs differ);
//! - a decision the chrome opened while the chrome shows another dialog (another rule's
//!   prompt or kind) → that dialog opens, superseding it;
//! - a decision the chrome or the self-report opened that no such rung reports any more
//!   (the user answered or cancelled it at the terminal: no hook says so) → it resolves
//!   `dismissed`; the lifecycle is `working` when the self-report says so (`GateDenied`),
//!   else `idle` (`GateDismissed`).
//!
//! - a decision a hook opened while the chrome shows a dialog of the same kind with other
//!   options (none named, or fewer than drawn) → the chrome's reading sets the options
//!   (and the keys that pick them), nothing else.
//!
//! Hooks' gates are opened and closed by the hooks' own signals; the screen never closes
//! a decision a hook opened here (see [`super::dialogs::closed_gate_step`]).

use super::dialogs::{ShownDialog, ANSWER_SETTLE_MS};
use super::ladder::{Activity, Verdict};
use crate::model::{AnswerKey, DecisionKind, Live, Pane, Rung, SignalKind, Timestamp};

/// The needs-input reason that makes a decision opened from a reason alone (no dialog
/// read off the screen) a permission: Claude's self-report `waitingFor` for its approval
/// dialogs. Every other reason ("dialog open", "input needed", "sandbox request", …) is a
/// question (`docs/lifecycle-attention.md#one-verdict`).
pub const PERMISSION_REASON: &str = "permission prompt";

/// True for the rungs whose needs-input opens a decision through [`verdict_step`]: the
/// needs-input chrome and the self-report (a hook's gate is its own signal).
pub fn opens_decisions(rung: Rung) -> bool {
    matches!(rung, Rung::NeedsInputChrome | Rung::SelfReport)
}

/// The decision kind of a needs-input reported without a readable dialog.
pub fn kind_of_reason(reason: Option<&str>) -> DecisionKind {
    if reason.is_some_and(|r| r.eq_ignore_ascii_case(PERMISSION_REASON)) {
        DecisionKind::Permission
    } else {
        DecisionKind::Question
    }
}

/// The prompt of a decision opened from a needs-input reason alone ("Waiting for you:
/// dialog open").
pub fn reason_prompt(reason: Option<&str>) -> String {
    format!("Waiting for you: {}", reason.unwrap_or("input needed"))
}

/// What [`verdict_step`] reads besides the pane and the verdict.
#[derive(Debug, Clone, Copy, Default)]
pub struct Seen<'a> {
    /// The dialog the chrome matches on the live screen now.
    pub shown: Option<&'a ShownDialog>,
    /// When Attend last answered a decision of this pane (keys typed, or a hook's gate
    /// answered): within [`ANSWER_SETTLE_MS`] nothing is opened, and a self-report older
    /// than the answer opens nothing (it still shows the answered dialog).
    pub answered_at: Option<Timestamp>,
}

/// The signal of a dialog read off the screen.
fn dialog_signal(d: &ShownDialog) -> SignalKind {
    let answer_keys = d
        .choices
        .iter()
        .map(|c| AnswerKey {
            choice: c.clone(),
            keys: String::new(),
        })
        .collect();
    match d.kind {
        DecisionKind::Permission => SignalKind::PermissionRequested {
            prompt: d.prompt.clone(),
            options: d.options.clone(),
            answer_keys,
            tool_use_id: None,
        },
        DecisionKind::Question => SignalKind::QuestionAsked {
            prompt: d.prompt.clone(),
            options: d.options.clone(),
            answer_keys,
        },
    }
}

/// The signal of a needs-input known only by its reason.
fn reason_signal(reason: Option<&str>) -> SignalKind {
    let prompt = reason_prompt(reason);
    match kind_of_reason(reason) {
        DecisionKind::Permission => SignalKind::PermissionRequested {
            prompt,
            options: Vec::new(),
            answer_keys: Vec::new(),
            tool_use_id: None,
        },
        DecisionKind::Question => SignalKind::QuestionAsked {
            prompt,
            options: Vec::new(),
            answer_keys: Vec::new(),
        },
    }
}

/// The signal that keeps `pane`'s decision in step with the verdict (module doc), or
/// `None`. The source of a returned signal is the rung named by [`step_rung`].
pub fn verdict_step(
    pane: &Pane,
    verdict: &Verdict,
    seen: Seen<'_>,
    now: Timestamp,
) -> Option<SignalKind> {
    if !matches!(pane.live, Live::Running) {
        return None;
    }
    let by = verdict
        .needs_input_by
        .as_ref()
        .filter(|e| opens_decisions(e.rung) && verdict.needs_input.count > 0);
    let reason = verdict.needs_input.reason.as_deref();
    match &pane.pending_decision {
        None => {
            let by = by?;
            let settling = seen
                .answered_at
                .is_some_and(|a| now.millis_since(a) < ANSWER_SETTLE_MS);
            let before_answer = seen.answered_at.is_some_and(|a| by.observed_at <= a);
            if settling || (by.rung == Rung::SelfReport && before_answer) {
                return None;
            }
            Some(match seen.shown {
                Some(d) => dialog_signal(d),
                None => reason_signal(reason),
            })
        }
        Some(d) if opens_decisions(d.source.rung) => {
            let Some(_) = by else {
                // Back to work only on the self-report's word (approved at the
                // terminal); output sampling never decides it.
                let working = verdict.activity == Activity::Working
                    && verdict
                        .activity_by
                        .as_ref()
                        .is_some_and(|e| e.rung == Rung::SelfReport);
                return Some(if working {
                    SignalKind::GateDenied
                } else {
                    SignalKind::GateDismissed
                });
            };
            let shown = seen.shown?;
            let other_dialog = d.source.rung == Rung::NeedsInputChrome
                && (shown.kind != d.kind || shown.prompt != d.prompt);
            let enrich = d.source.rung == Rung::SelfReport;
            (enrich || other_dialog).then(|| dialog_signal(shown))
        }
        // A hook's decision takes its options from the same dialog on screen when they
        // differ: the hook named none (MastraCode's `ask_question` notification), or
        // other ones than the dialog draws (Claude Code 2.1.332's `PermissionRequest`
        // names three, its dialog draws four: the numbers Attend lists must be the
        // dialog's); a hook's permission gate without options (Letta's "Approval
        // needed", sent for its question tool too) is the question the chrome reads.
        Some(d) => {
            let shown = seen.shown?;
            let names_none = d.options.is_empty()
                && d.kind == DecisionKind::Permission
                && shown.kind == DecisionKind::Question;
            let fits = shown.kind == d.kind || names_none;
            let new_options = !shown.options.is_empty() && shown.options != d.options && fits;
            new_options.then(|| dialog_signal(shown))
        }
    }
}

/// The rung a [`verdict_step`] signal comes from: the chrome when it reads a dialog (an
/// open, an enrichment), else the rung that decided the verdict (an open from a reason,
/// a dismissal).
pub fn step_rung(verdict: &Verdict, seen: Seen<'_>, kind: &SignalKind) -> Rung {
    let opens = matches!(
        kind,
        SignalKind::PermissionRequested { .. } | SignalKind::QuestionAsked { .. }
    );
    if opens && seen.shown.is_some() {
        return Rung::NeedsInputChrome;
    }
    match &verdict.needs_input_by {
        Some(e) if opens_decisions(e.rung) => e.rung,
        _ if opens => Rung::SelfReport,
        Some(e) => e.rung,
        None => Rung::NeedsInputChrome,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ladder::{Claim, Evidence, NeedsInput};
    use crate::model::{AgentKind, EventKind, Lifecycle, PaneId, Signal, Source};
    use std::collections::BTreeMap;

    /// The pane transitions alone: these tests hand [`verdict_step`] verdicts of their
    /// own, so no machine may step its own ladder in between (the machine's tests drive
    /// the whole step).
    #[derive(Default)]
    struct World {
        panes: BTreeMap<PaneId, crate::model::Pane>,
        next_decision: u64,
    }

    /// An event as the transitions emit it.
    #[derive(Debug)]
    struct Emitted {
        kind: EventKind,
    }

    impl World {
        fn new() -> World {
            World::default()
        }

        fn apply_signal(&mut self, p: PaneId, signal: &Signal) -> Result<Vec<Emitted>, ()> {
            let pane = self.panes.get_mut(&p).ok_or(())?;
            let emitted =
                crate::engine::transition::apply_signal(pane, signal, &mut self.next_decision);
            Ok(emitted
                .into_iter()
                .map(|(kind, _)| Emitted { kind })
                .collect())
        }
    }

    fn verdict(rung: Rung, count: u32, reason: &str, activity: Activity, at: i64) -> Verdict {
        let ev = Evidence {
            rung,
            source_id: "s".into(),
            seq: 1,
            observed_at: Timestamp(at),
            claim: Claim {
                activity: Some(activity),
                needs_input: Some(NeedsInput {
                    count,
                    reason: Some(reason.into()),
                }),
            },
            note: String::new(),
        };
        Verdict {
            activity,
            activity_by: Some(ev.clone()),
            needs_input: NeedsInput {
                count,
                reason: (count > 0).then(|| reason.to_string()),
            },
            needs_input_by: Some(ev),
        }
    }

    fn notice() -> ShownDialog {
        ShownDialog {
            rule: "auto-mode-check-unavailable".into(),
            reason: "auto-mode-check-unavailable".into(),
            kind: DecisionKind::Question,
            prompt: "Auto mode can't check actions in this session".into(),
            options: vec![],
            choices: vec!["stay".into(), "leave".into(), "cancel".into()],
        }
    }

    fn pane(world: &mut World) -> PaneId {
        let mut real = crate::engine::World::new();
        let spec = crate::engine::NewPane {
            agent: AgentKind::Claude,
            owned: true,
            ..Default::default()
        };
        let (id, _) = real.add_pane(spec, Timestamp(0));
        world.panes.insert(id, real.pane(id).unwrap().clone());
        id
    }

    /// Runs one [`verdict_step`] (it must return a signal) and applies its signal from
    /// the rung [`step_rung`] names; returns the events.
    fn apply(world: &mut World, p: PaneId, v: &Verdict, seen: Seen, at: i64) -> Vec<Emitted> {
        let kind = verdict_step(&world.panes[&p], v, seen, Timestamp(at)).expect("a step");
        let rung = step_rung(v, seen, &kind);
        let signal = Signal::new(kind, Source::new(rung, "test"), Timestamp(at));
        world.apply_signal(p, &signal).unwrap()
    }

    /// True when `events` neither open a decision nor create attention (an enrichment).
    fn only_enriches(events: &[Emitted]) -> bool {
        !events.iter().any(|e| {
            matches!(
                e.kind,
                EventKind::DecisionOpened { .. } | EventKind::AttentionCreated { .. }
            )
        })
    }

    /// Claude's self-report says `waiting` ("dialog open") mid-turn while no rule matches
    /// the screen: the pane is blocked / input_required with a question decision.
    #[test]
    fn a_self_report_waiting_opens_a_question() {
        let mut w = World::new();
        let p = pane(&mut w);
        let v = verdict(
            Rung::SelfReport,
            1,
            "dialog open",
            Activity::IdleAtPrompt,
            1,
        );
        apply(&mut w, p, &v, Seen::default(), 1);
        let pane = &w.panes[&p];
        assert_eq!(pane.lifecycle, Lifecycle::Blocked);
        assert_eq!(pane.attention(), crate::model::Attention::InputRequired);
        let d = pane.pending_decision.as_ref().unwrap();
        assert_eq!(d.kind, DecisionKind::Question);
        assert_eq!(d.source.rung, Rung::SelfReport);
        assert_eq!(d.prompt, "Waiting for you: dialog open");
        // Nothing more while the verdict holds.
        assert_eq!(verdict_step(pane, &v, Seen::default(), Timestamp(2)), None);
    }

    #[test]
    fn a_self_report_waiting_for_a_permission_prompt_opens_a_permission() {
        let mut w = World::new();
        let p = pane(&mut w);
        let v = verdict(
            Rung::SelfReport,
            1,
            "permission prompt",
            Activity::IdleAtPrompt,
            1,
        );
        apply(&mut w, p, &v, Seen::default(), 1);
        let pane = &w.panes[&p];
        assert_eq!(
            pane.attention(),
            crate::model::Attention::PermissionRequired
        );
    }

    /// The chrome then reads the same dialog: one decision, enriched (no second
    /// `decision.opened`, no `superseded`).
    #[test]
    fn the_chrome_enriches_the_self_reports_decision() {
        let mut w = World::new();
        let p = pane(&mut w);
        let v = verdict(
            Rung::SelfReport,
            1,
            "dialog open",
            Activity::IdleAtPrompt,
            1,
        );
        apply(&mut w, p, &v, Seen::default(), 1);
        let id = w.panes[&p].pending_decision.as_ref().unwrap().id;
        let shown = notice();
        let seen = Seen {
            shown: Some(&shown),
            answered_at: None,
        };
        let kind = verdict_step(&w.panes[&p], &v, seen, Timestamp(2)).expect("enriches");
        assert_eq!(step_rung(&v, seen, &kind), Rung::NeedsInputChrome);
        let signal = Signal::new(
            kind,
            Source::new(Rung::NeedsInputChrome, "screen.chrome"),
            Timestamp(2),
        );
        let events = w.apply_signal(p, &signal).unwrap();
        assert!(
            !events.iter().any(|e| matches!(
                e.kind,
                EventKind::DecisionOpened { .. } | EventKind::DecisionResolved { .. }
            )),
            "{events:?}"
        );
        let d = w.panes[&p].pending_decision.clone().unwrap();
        assert_eq!(d.id, id);
        assert_eq!(d.prompt, shown.prompt);
        assert_eq!(d.choices(), vec!["stay", "leave", "cancel"]);
        // The enriched decision asks nothing more of the same screen.
        assert_eq!(verdict_step(&w.panes[&p], &v, seen, Timestamp(3)), None);
    }

    /// The user answers the dialog at the terminal (no hook): the self-report goes busy and
    /// the decision resolves dismissed; the pane is working again.
    #[test]
    fn a_verdict_without_needs_input_dismisses_the_ladders_decision() {
        let mut w = World::new();
        let p = pane(&mut w);
        let v = verdict(
            Rung::SelfReport,
            1,
            "dialog open",
            Activity::IdleAtPrompt,
            1,
        );
        apply(&mut w, p, &v, Seen::default(), 1);
        let busy = verdict(Rung::SelfReport, 0, "", Activity::Working, 5);
        assert_eq!(
            verdict_step(&w.panes[&p], &busy, Seen::default(), Timestamp(5)),
            Some(SignalKind::GateDenied)
        );
        apply(&mut w, p, &busy, Seen::default(), 5);
        assert_eq!(w.panes[&p].lifecycle, Lifecycle::Working);
        assert!(w.panes[&p].pending_decision.is_none());
        let idle = verdict(Rung::SelfReport, 0, "", Activity::IdleAtPrompt, 6);
        apply(&mut w, p, &v, Seen::default(), 7);
        assert_eq!(
            verdict_step(&w.panes[&p], &idle, Seen::default(), Timestamp(8)),
            Some(SignalKind::GateDismissed)
        );
    }

    /// After an answer, the self-report that still shows the answered dialog opens
    /// nothing, nor does the chrome while the answer settles.
    #[test]
    fn an_answered_dialog_is_not_opened_again() {
        let mut w = World::new();
        let p = pane(&mut w);
        let v = verdict(
            Rung::SelfReport,
            1,
            "dialog open",
            Activity::IdleAtPrompt,
            1,
        );
        let seen = Seen {
            shown: None,
            answered_at: Some(Timestamp(10)),
        };
        assert_eq!(verdict_step(&w.panes[&p], &v, seen, Timestamp(20)), None);
        assert_eq!(
            verdict_step(&w.panes[&p], &v, seen, Timestamp(10 + ANSWER_SETTLE_MS)),
            None,
            "the report predates the answer"
        );
        let newer = verdict(
            Rung::SelfReport,
            1,
            "dialog open",
            Activity::IdleAtPrompt,
            11,
        );
        assert!(
            verdict_step(&w.panes[&p], &newer, seen, Timestamp(10 + ANSWER_SETTLE_MS)).is_some()
        );
        let _ = pane;
    }

    /// Hooks' gates are the hooks' own: the verdict neither opens nor closes them, and a
    /// low-trust or hook verdict opens nothing.
    #[test]
    fn hook_verdicts_and_hook_decisions_are_left_to_the_hooks() {
        let mut w = World::new();
        let p = pane(&mut w);
        let hooks = verdict(
            Rung::LifecycleHooks,
            1,
            "permission prompt",
            Activity::IdleAtPrompt,
            1,
        );
        assert_eq!(
            verdict_step(&w.panes[&p], &hooks, Seen::default(), Timestamp(1)),
            None
        );
        let gate = Signal::new(
            SignalKind::PermissionRequested {
                prompt: "Bash: ls".into(),
                options: vec![],
                answer_keys: vec![],
                tool_use_id: None,
            },
            Source::hook("claude", "PermissionRequest"),
            Timestamp(2),
        );
        w.apply_signal(p, &gate).unwrap();
        let busy = verdict(Rung::SelfReport, 0, "", Activity::Working, 3);
        assert_eq!(
            verdict_step(&w.panes[&p], &busy, Seen::default(), Timestamp(3)),
            None
        );
    }

    /// A chrome verdict: the rule matched on the screen at `at`.
    fn chrome(at: i64) -> Verdict {
        let mut v = verdict(
            Rung::NeedsInputChrome,
            1,
            "folder trust",
            Activity::IdleAtPrompt,
            at,
        );
        v.activity = Activity::Unknown;
        v
    }

    fn trust(kind: DecisionKind) -> ShownDialog {
        ShownDialog {
            rule: "folder-trust".into(),
            reason: "folder-trust".into(),
            kind,
            prompt: "Do you trust the files in this folder?".into(),
            options: vec!["Yes, I trust this folder".into(), "No, exit".into()],
            choices: vec!["allow".into(), "deny".into()],
        }
    }

    #[test]
    fn a_question_dialog_opens_a_decision_and_its_end_closes_it() {
        let mut w = World::new();
        let p = pane(&mut w);
        let shown = trust(DecisionKind::Question);
        let seen = Seen {
            shown: Some(&shown),
            answered_at: None,
        };
        apply(&mut w, p, &chrome(2), seen, 2);
        let pane = &w.panes[&p];
        assert_eq!(pane.lifecycle, Lifecycle::Blocked);
        assert_eq!(pane.attention().as_str(), "input_required");
        let d = pane.pending_decision.as_ref().unwrap();
        assert_eq!(d.kind, DecisionKind::Question);
        assert_eq!(d.options, shown.options);
        assert_eq!(d.source.rung, Rung::NeedsInputChrome);
        // Still shown: nothing more.
        assert_eq!(verdict_step(pane, &chrome(2), seen, Timestamp(2)), None);
        // A hook says idle a moment later: the gate invariant keeps it blocked.
        let hook = Signal::new(
            SignalKind::SessionStarted { source: None },
            Source::hook("claude", "SessionStart"),
            Timestamp(3),
        );
        w.apply_signal(p, &hook).unwrap();
        assert_eq!(w.panes[&p].lifecycle, Lifecycle::Blocked);
        // Answered in the pane: the dialog leaves the screen; nothing reports it.
        let gone = verdict(Rung::LifecycleHooks, 0, "", Activity::IdleAtPrompt, 4);
        let step = verdict_step(&w.panes[&p], &gone, Seen::default(), Timestamp(4));
        assert_eq!(step, Some(SignalKind::GateDismissed));
        apply(&mut w, p, &gone, Seen::default(), 4);
        let pane = &w.panes[&p];
        assert!(pane.pending_decision.is_none());
        assert_eq!(pane.lifecycle, Lifecycle::Idle);
        assert_eq!(pane.attention().as_str(), "none");
    }

    #[test]
    fn an_answered_dialog_still_drawn_opens_nothing_until_it_settles() {
        let mut w = World::new();
        let p = pane(&mut w);
        let shown = trust(DecisionKind::Question);
        let seen = Seen {
            shown: Some(&shown),
            answered_at: Some(Timestamp(1_000)),
        };
        let pane = &w.panes[&p];
        let v = chrome(900);
        let t = Timestamp(1_000 + ANSWER_SETTLE_MS - 1);
        assert_eq!(verdict_step(pane, &v, seen, t), None);
        let t = Timestamp(1_000 + ANSWER_SETTLE_MS);
        assert!(matches!(
            verdict_step(pane, &v, seen, t),
            Some(SignalKind::QuestionAsked { .. })
        ));
    }

    /// A dialog that asks to approve an action, drawn with no hook (auto mode fires no
    /// `PermissionRequest`): a permission decision, `permission_required`. The hook that
    /// reports the same dialog later enriches it (one decision).
    #[test]
    fn a_permission_dialog_on_screen_opens_a_permission_the_hook_enriches() {
        let mut w = World::new();
        let p = pane(&mut w);
        let shown = trust(DecisionKind::Permission);
        let seen = Seen {
            shown: Some(&shown),
            answered_at: None,
        };
        apply(&mut w, p, &chrome(2), seen, 2);
        let d = w.panes[&p].pending_decision.clone().unwrap();
        assert_eq!(d.kind, DecisionKind::Permission);
        assert_eq!(
            w.panes[&p].attention(),
            crate::model::Attention::PermissionRequired
        );
        let gate = Signal::new(
            SignalKind::PermissionRequested {
                prompt: "Bash: ls".into(),
                options: vec![],
                answer_keys: vec![],
                tool_use_id: Some("toolu_1".into()),
            },
            Source::hook("claude", "PermissionRequest"),
            Timestamp(3),
        );
        let events = w.apply_signal(p, &gate).unwrap();
        assert!(!events.iter().any(|e| matches!(
            e.kind,
            EventKind::DecisionOpened { .. }
                | EventKind::DecisionResolved { .. }
                | EventKind::AttentionCreated { .. }
        )));
        let e = w.panes[&p].pending_decision.clone().unwrap();
        assert_eq!((e.id, e.prompt.as_str()), (d.id, "Bash: ls"));
        assert_eq!(e.options, shown.options, "the screen's options stay");
        assert_eq!(e.tool_use_id.as_deref(), Some("toolu_1"));
        assert_eq!(e.source.rung, Rung::LifecycleHooks);
        // A hook's decision now: the screen no longer closes it.
        assert_eq!(
            verdict_step(&w.panes[&p], &chrome(9), Seen::default(), Timestamp(9)),
            None
        );
    }

    /// A hook opens a question without options (MastraCode's `ask_question`
    /// notification); the chrome then reads its box: the same decision takes the box's
    /// options, keeps the hook's prompt and rung, and no second decision opens. A dialog
    /// of another kind, or a decision that has options, is left alone.
    #[test]
    fn the_chrome_adds_options_to_a_hooks_question_without_any() {
        let mut w = World::new();
        let p = pane(&mut w);
        let asked = Signal::new(
            SignalKind::QuestionAsked {
                prompt: "Which color?".into(),
                options: vec![],
                answer_keys: vec![],
            },
            Source::hook("mastracode", "Notification"),
            Timestamp(1),
        );
        w.apply_signal(p, &asked).unwrap();
        let d = w.panes[&p].pending_decision.clone().unwrap();
        let other = trust(DecisionKind::Permission);
        let seen_other = Seen {
            shown: Some(&other),
            answered_at: None,
        };
        assert_eq!(
            verdict_step(&w.panes[&p], &chrome(2), seen_other, Timestamp(2)),
            None,
            "a dialog of another kind adds nothing"
        );
        let shown = trust(DecisionKind::Question);
        let seen = Seen {
            shown: Some(&shown),
            answered_at: None,
        };
        let events = apply(&mut w, p, &chrome(2), seen, 2);
        assert!(only_enriches(&events));
        let e = w.panes[&p].pending_decision.clone().unwrap();
        assert_eq!((e.id, e.prompt.as_str()), (d.id, "Which color?"));
        assert_eq!(e.options, shown.options);
        assert_eq!(e.source.rung, Rung::LifecycleHooks);
        assert_eq!(
            verdict_step(&w.panes[&p], &chrome(3), seen, Timestamp(3)),
            None,
            "once it has options, nothing more"
        );
    }

    /// A hook opens a permission gate that names nothing but "Approval needed" (Letta
    /// sends it for its question tool too); the chrome then reads a question: the same
    /// decision becomes that question (kind, prompt, options, the chrome's rung), its item
    /// input_required, no second decision opens.
    #[test]
    fn a_hooks_bare_permission_gate_becomes_the_question_on_screen() {
        let mut w = World::new();
        let p = pane(&mut w);
        let gate = Signal::new(
            SignalKind::PermissionRequested {
                prompt: "Approval needed".into(),
                options: vec![],
                answer_keys: vec![],
                tool_use_id: None,
            },
            Source::hook("letta", "Notification"),
            Timestamp(1),
        );
        w.apply_signal(p, &gate).unwrap();
        let d = w.panes[&p].pending_decision.clone().unwrap();
        let shown = ShownDialog {
            prompt: "Which color do you want?".into(),
            ..trust(DecisionKind::Question)
        };
        let seen = Seen {
            shown: Some(&shown),
            answered_at: None,
        };
        let events = apply(&mut w, p, &chrome(2), seen, 2);
        assert!(only_enriches(&events));
        let pane = &w.panes[&p];
        let e = pane.pending_decision.clone().unwrap();
        assert_eq!(e.id, d.id);
        assert_eq!(e.kind, DecisionKind::Question);
        assert_eq!(e.prompt, "Which color do you want?");
        assert_eq!(e.options, shown.options);
        assert_eq!(e.source.rung, Rung::NeedsInputChrome);
        assert_eq!(pane.attention(), crate::model::Attention::InputRequired);
        assert_eq!(
            verdict_step(&w.panes[&p], &chrome(3), seen, Timestamp(3)),
            None,
            "the same question again changes nothing"
        );
    }

    #[test]
    fn an_exited_pane_gets_no_dialog_decision() {
        let mut w = World::new();
        let p = pane(&mut w);
        let exit = Signal::new(
            SignalKind::ProcessExited {
                code: Some(0),
                signal: None,
            },
            Source::new(Rung::Process, "process.exit"),
            Timestamp(2),
        );
        w.apply_signal(p, &exit).unwrap();
        let shown = trust(DecisionKind::Question);
        let seen = Seen {
            shown: Some(&shown),
            answered_at: None,
        };
        assert_eq!(
            verdict_step(&w.panes[&p], &chrome(3), seen, Timestamp(3)),
            None
        );
    }

    #[test]
    fn reasons_name_their_kind() {
        assert_eq!(
            kind_of_reason(Some("permission prompt")),
            DecisionKind::Permission
        );
        for r in ["dialog open", "input needed", "sandbox request", "other"] {
            assert_eq!(kind_of_reason(Some(r)), DecisionKind::Question, "{r}");
        }
        assert_eq!(kind_of_reason(None), DecisionKind::Question);
    }
}
