//! Dialogs no hook names (`docs/lifecycle-attention.md#dialogs-no-hook-names`): a dialog
//! the needs-input chrome sees on the live screen (a folder trust dialog, a one-time
//! offer, any list of options with the selection cursor) waits for a key, so the pane is
//! `blocked`/`input_required` with a `question` decision, whatever a hook said a moment
//! before; the dialog leaving the screen (answered in the pane) closes that decision.
//!
//! Pure: [`chrome_dialog_step`] takes the pane and what the chrome shows and returns the
//! signal to apply, if any.

use crate::model::{DecisionKind, Lifecycle, Live, Pane, Rung, SignalKind, Timestamp};

/// What the needs-input chrome shows on a pane's live screen now: the matched dialog rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownDialog {
    /// The manifest rule's name.
    pub rule: String,
    /// The rule's kind: `permission` dialogs are opened by the agents' hooks; `question`
    /// dialogs are the ones no hook names.
    pub kind: DecisionKind,
    /// What the dialog asks (its question row, else the rule's reason).
    pub prompt: String,
    /// The option labels read off the screen.
    pub options: Vec<String>,
    /// The rule's answer choice names.
    pub choices: Vec<String>,
}

/// The source origin of the signals [`chrome_dialog_step`] returns (rung
/// `needs-input-chrome`).
pub const CHROME_ORIGIN: &str = "screen.chrome";

/// After Attend typed an answer, a dialog still drawn for this long (ms) is the answered
/// one on its way out, not a new dialog: no decision is opened for it.
/// Measured: Claude Code 2.1.197 redrew its answered dialog 1.56 s after the key on a
/// loaded machine, so 1.5 s re-opened answered dialogs; a key the agent swallowed (its
/// dialog stays) re-opens the question after this long.
pub const ANSWER_SETTLE_MS: i64 = 3_000;

/// After Attend typed an answer, a dialog of the same rule still drawn this long (ms)
/// later, with its selection cursor on the picked option and no hook from the agent
/// since, did not take the answer's confirming key: Attend presses Enter once. Below
/// [`ANSWER_SETTLE_MS`], so the question is not opened again first. Measured: Claude
/// Code 2.1.332 moved its cursor to a number typed 0.1 s after its permission dialog was
/// drawn, yet kept the dialog open (it ignores a submit in the dialog's first moment).
pub const ANSWER_CONFIRM_MS: i64 = 2_000;

/// A dialog the chrome opened a question for must be gone from the screen this long (ms)
/// before the question is dismissed: agents that repaint their whole screen (Gemini CLI)
/// show a frame or two without it while the dialog is still there.
pub const DIALOG_GONE_MS: i64 = 700;

/// When a `GateDismissed` from [`chrome_dialog_step`] may be applied: `seen_at` is when the
/// dialog was last on the screen. `None`: now; `Some(t)`: not before `t` (the caller
/// waits and asks again then).
pub fn dismissal_due(seen_at: Option<Timestamp>, now: Timestamp) -> Option<Timestamp> {
    let due = Timestamp(seen_at?.0 + DIALOG_GONE_MS);
    (due > now).then_some(due)
}

/// The signal that keeps `pane`'s decision in step with the dialog on its screen:
/// - a `question` dialog shown, the pane running and no decision open → `QuestionAsked`
///   (blocked, input_required, a question decision with the dialog's options);
/// - no such dialog shown (gone, or a permission dialog, which hooks report) while the
///   open decision is one the chrome opened → `GateDismissed` (resolved `dismissed`: the
///   user acted at the terminal; the lifecycle back to idle);
/// - else `None` (a decision of a hook is never closed by the screen).
///
/// `answered_at`: when Attend last typed an answer into the pane; within
/// [`ANSWER_SETTLE_MS`] of it nothing is opened (the answered dialog is still drawn).
pub fn chrome_dialog_step(
    pane: &Pane,
    shown: Option<&ShownDialog>,
    answered_at: Option<Timestamp>,
    now: Timestamp,
) -> Option<SignalKind> {
    if !matches!(pane.live, Live::Running) {
        return None;
    }
    let settling = answered_at.is_some_and(|a| now.millis_since(a) < ANSWER_SETTLE_MS);
    let by_chrome = pane
        .pending_decision
        .as_ref()
        .map(|d| d.source.rung == Rung::NeedsInputChrome);
    match (
        shown.filter(|d| d.kind == DecisionKind::Question),
        by_chrome,
    ) {
        (Some(_), None) if settling => None,
        (Some(d), None) => Some(SignalKind::QuestionAsked {
            prompt: d.prompt.clone(),
            options: d.options.clone(),
            answer_keys: d
                .choices
                .iter()
                .map(|c| crate::model::AnswerKey {
                    choice: c.clone(),
                    keys: String::new(),
                })
                .collect(),
        }),
        (None, Some(true)) => Some(SignalKind::GateDismissed),
        _ => None,
    }
}

/// A rule's closed screen on the live screen ([`closed_gate_step`]): who closes its
/// dialog and since when it has shown without a break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClosedScreen {
    /// The agent's own reviewer closed it (Codex's auto-review denial), not the user.
    pub by_reviewer: bool,
    /// The first evaluation that saw it (it has shown since).
    pub since: Timestamp,
}

/// The signal that ends a gate the agent closed on screen without any hook
/// (`docs/lifecycle-attention.md#gates-the-screen-closes`). `closed`: no rule matches the
/// screen and a rule's closed screen shows; `seen_at`: when the chrome last saw a dialog.
/// For a running, `blocked` pane:
/// - closed by the user (GitHub Copilot CLI's Esc on its approval dialog: no hook, the
///   turn ends; the agent's prompt back, not working):
///   - a permission decision a hook opened whose dialog the chrome saw after it opened →
///     `GateDismissed` (resolved `dismissed`, the user acted at the terminal; idle);
///   - no decision (an answer Attend typed resolved it at once) after a dialog was seen →
///     `GateDismissed` (idle: a denial by Esc ends the turn without a hook);
/// - closed by the agent's reviewer (Codex's auto-review denial: no dialog drawn, the turn
///   goes on): a permission decision a hook opened, no dialog seen since it opened, and
///   the closed screen appeared after it opened → `GateDenied` (resolved `dismissed`;
///   working);
/// - else `None` (the dialog not seen yet, a question the chrome opened: that is
///   [`chrome_dialog_step`]'s).
///
/// The caller applies a `GateDismissed` only once the dialog has been gone for
/// [`DIALOG_GONE_MS`] ([`dismissal_due`]); a `GateDenied` at once (no dialog was drawn).
pub fn closed_gate_step(
    pane: &Pane,
    closed: Option<ClosedScreen>,
    seen_at: Option<Timestamp>,
) -> Option<SignalKind> {
    let closed = closed?;
    if !matches!(pane.live, Live::Running) || pane.lifecycle != Lifecycle::Blocked {
        return None;
    }
    let hooks_gate = pane
        .pending_decision
        .as_ref()
        .filter(|d| d.kind == DecisionKind::Permission && d.source.rung != Rung::NeedsInputChrome);
    if closed.by_reviewer {
        let d = hooks_gate?;
        let unseen = !seen_at.is_some_and(|s| s >= d.opened_at);
        return (unseen && closed.since >= d.opened_at).then_some(SignalKind::GateDenied);
    }
    let seen = seen_at?;
    let ends = match &pane.pending_decision {
        Some(_) => hooks_gate.is_some_and(|d| seen >= d.opened_at),
        None => true,
    };
    ends.then_some(SignalKind::GateDismissed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dialog_gone_for_one_frame_is_not_dismissed_yet() {
        assert_eq!(dismissal_due(None, Timestamp(5)), None);
        assert_eq!(
            dismissal_due(Some(Timestamp(1_000)), Timestamp(1_100)),
            Some(Timestamp(1_000 + DIALOG_GONE_MS))
        );
        assert_eq!(
            dismissal_due(Some(Timestamp(1_000)), Timestamp(1_000 + DIALOG_GONE_MS)),
            None
        );
    }
    use crate::engine::World;
    use crate::model::{AgentKind, Signal, Source};

    fn dialog(kind: DecisionKind) -> ShownDialog {
        ShownDialog {
            rule: "folder-trust".into(),
            kind,
            prompt: "Do you trust the files in this folder?".into(),
            options: vec!["Yes, I trust this folder".into(), "No, exit".into()],
            choices: vec!["allow".into(), "deny".into()],
        }
    }

    /// The user's closed screen, shown since long ago.
    fn user() -> Option<ClosedScreen> {
        Some(ClosedScreen {
            by_reviewer: false,
            since: Timestamp(0),
        })
    }

    fn chrome(kind: SignalKind, at: i64) -> Signal {
        Signal::new(
            kind,
            Source::new(Rung::NeedsInputChrome, CHROME_ORIGIN),
            Timestamp(at),
        )
    }

    #[test]
    fn a_question_dialog_opens_a_decision_and_its_end_closes_it() {
        let mut w = World::new();
        let (p, _) = w.add_pane(
            crate::engine::NewPane {
                agent: AgentKind::Claude,
                ..Default::default()
            },
            Timestamp(1),
        );
        let shown = dialog(DecisionKind::Question);
        let step =
            chrome_dialog_step(&w.panes[&p], Some(&shown), None, Timestamp(2)).expect("opens");
        w.apply_signal(p, &chrome(step, 2)).unwrap();
        let pane = &w.panes[&p];
        assert_eq!(pane.lifecycle, Lifecycle::Blocked);
        assert_eq!(pane.attention().as_str(), "input_required");
        let d = pane.pending_decision.as_ref().unwrap();
        assert_eq!(d.kind, DecisionKind::Question);
        assert_eq!(d.options, shown.options);
        // Still shown: nothing more.
        assert_eq!(
            chrome_dialog_step(pane, Some(&shown), None, Timestamp(2)),
            None
        );
        // A hook says idle a moment later: the gate invariant keeps it blocked.
        let hook = Signal::new(
            SignalKind::SessionStarted { source: None },
            Source::hook("claude", "SessionStart"),
            Timestamp(3),
        );
        w.apply_signal(p, &hook).unwrap();
        assert_eq!(w.panes[&p].lifecycle, Lifecycle::Blocked);
        // Answered in the pane: the dialog leaves the screen.
        let step = chrome_dialog_step(&w.panes[&p], None, None, Timestamp(4)).expect("closes");
        assert_eq!(step, SignalKind::GateDismissed);
        w.apply_signal(p, &chrome(step, 4)).unwrap();
        let pane = &w.panes[&p];
        assert!(pane.pending_decision.is_none());
        assert_eq!(pane.lifecycle, Lifecycle::Idle);
        assert_eq!(pane.attention().as_str(), "none");
    }

    #[test]
    fn an_answered_dialog_still_drawn_opens_nothing_until_it_settles() {
        let mut w = World::new();
        let (p, _) = w.add_pane(Default::default(), Timestamp(1));
        let shown = dialog(DecisionKind::Question);
        let pane = &w.panes[&p];
        let answered = Some(Timestamp(1_000));
        assert_eq!(
            chrome_dialog_step(
                pane,
                Some(&shown),
                answered,
                Timestamp(1_000 + ANSWER_SETTLE_MS - 1)
            ),
            None
        );
        assert!(matches!(
            chrome_dialog_step(
                pane,
                Some(&shown),
                answered,
                Timestamp(1_000 + ANSWER_SETTLE_MS)
            ),
            Some(SignalKind::QuestionAsked { .. })
        ));
    }

    #[test]
    fn permission_dialogs_and_hook_decisions_are_left_to_the_hooks() {
        let mut w = World::new();
        let (p, _) = w.add_pane(Default::default(), Timestamp(1));
        // A permission dialog on screen without a decision: the hook opens it, not chrome.
        assert_eq!(
            chrome_dialog_step(
                &w.panes[&p],
                Some(&dialog(DecisionKind::Permission)),
                None,
                Timestamp(2)
            ),
            None
        );
        // A hook's decision is never closed by the screen.
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
        assert_eq!(
            chrome_dialog_step(&w.panes[&p], None, None, Timestamp(4)),
            None
        );
        // Nor does a question dialog open a second decision beside it.
        assert_eq!(
            chrome_dialog_step(
                &w.panes[&p],
                Some(&dialog(DecisionKind::Question)),
                None,
                Timestamp(3)
            ),
            None
        );
    }

    #[test]
    fn an_exited_pane_gets_no_dialog_decision() {
        let mut w = World::new();
        let (p, _) = w.add_pane(Default::default(), Timestamp(1));
        let exit = Signal::new(
            SignalKind::ProcessExited {
                code: Some(0),
                signal: None,
            },
            Source::new(Rung::Process, "process.exit"),
            Timestamp(2),
        );
        w.apply_signal(p, &exit).unwrap();
        assert_eq!(
            chrome_dialog_step(
                &w.panes[&p],
                Some(&dialog(DecisionKind::Question)),
                None,
                Timestamp(3)
            ),
            None
        );
    }

    /// A gate the agent closed on screen without a hook (Copilot's Esc): dismissed once
    /// its dialog was seen after the gate opened and the closed screen shows; after an
    /// answer Attend typed (no decision left) the blocked pane goes idle the same way.
    #[test]
    fn a_gate_whose_dialog_closed_without_a_hook_is_dismissed() {
        let mut w = World::new();
        let (p, _) = w.add_pane(Default::default(), Timestamp(1));
        let gate = Signal::new(
            SignalKind::PermissionRequested {
                prompt: "Run command: echo hi > out.txt".into(),
                options: vec![],
                answer_keys: vec![],
                tool_use_id: None,
            },
            Source::hook("copilot", "Notification"),
            Timestamp(10),
        );
        w.apply_signal(p, &gate).unwrap();
        let pane = &w.panes[&p];
        assert_eq!(pane.lifecycle, Lifecycle::Blocked);
        // The dialog not seen since the gate opened (an earlier one at 5), or no closed
        // screen (an approved command still running): nothing.
        assert_eq!(closed_gate_step(pane, user(), Some(Timestamp(5))), None);
        assert_eq!(closed_gate_step(pane, user(), None), None);
        assert_eq!(closed_gate_step(pane, None, Some(Timestamp(12))), None);
        let step = closed_gate_step(pane, user(), Some(Timestamp(12)));
        assert_eq!(step, Some(SignalKind::GateDismissed));
        w.apply_signal(p, &chrome(step.unwrap(), 13)).unwrap();
        let pane = &w.panes[&p];
        assert_eq!(pane.lifecycle, Lifecycle::Idle);
        assert!(pane.pending_decision.is_none());
        assert_eq!(pane.attention(), crate::model::Attention::None);
        // Not blocked any more: nothing.
        assert_eq!(closed_gate_step(pane, user(), Some(Timestamp(12))), None);

        // Answered from Attend (resolved at once, the lifecycle still blocked): idle too.
        w.apply_signal(
            p,
            &Signal {
                at: Timestamp(20),
                ..gate.clone()
            },
        )
        .unwrap();
        let answer = crate::model::Action::Answer {
            choice: "deny".into(),
        };
        w.apply_action(p, &answer, Timestamp(21)).unwrap();
        let pane = &w.panes[&p];
        assert_eq!(
            (pane.lifecycle, pane.pending_decision.is_none()),
            (Lifecycle::Blocked, true)
        );
        assert_eq!(
            closed_gate_step(pane, user(), Some(Timestamp(21))),
            Some(SignalKind::GateDismissed)
        );
    }

    /// The agent's reviewer denied the gate's call (Codex's auto-review: no dialog, no
    /// hook, the turn goes on): a closed screen that appeared after the gate opened ends
    /// it as `dismissed`, back to working; one shown since before (an earlier denial
    /// still on screen), or a gate whose dialog was drawn, is not the reviewer's.
    #[test]
    fn a_gate_the_reviewer_denied_is_dismissed_and_the_turn_goes_on() {
        let mut w = World::new();
        let (p, _) = w.add_pane(Default::default(), Timestamp(1));
        let working = Signal::new(
            SignalKind::TurnStarted,
            Source::hook("codex", "UserPromptSubmit"),
            Timestamp(5),
        );
        w.apply_signal(p, &working).unwrap();
        let gate = Signal::new(
            SignalKind::PermissionRequested {
                prompt: "Bash: echo hi > out.txt".into(),
                options: vec![],
                answer_keys: vec![],
                tool_use_id: None,
            },
            Source::hook("codex", "PermissionRequest"),
            Timestamp(10),
        );
        w.apply_signal(p, &gate).unwrap();
        let reviewer = |since| {
            Some(ClosedScreen {
                by_reviewer: true,
                since: Timestamp(since),
            })
        };
        let pane = &w.panes[&p];
        assert_eq!(closed_gate_step(pane, reviewer(8), None), None);
        assert_eq!(
            closed_gate_step(pane, reviewer(12), Some(Timestamp(11))),
            None
        );
        let step = closed_gate_step(pane, reviewer(12), Some(Timestamp(3)));
        assert_eq!(step, Some(SignalKind::GateDenied));
        w.apply_signal(p, &chrome(step.unwrap(), 12)).unwrap();
        let pane = &w.panes[&p];
        assert_eq!(pane.lifecycle, Lifecycle::Working);
        assert!(pane.pending_decision.is_none());
        assert_eq!(pane.attention(), crate::model::Attention::None);
        assert_eq!(closed_gate_step(pane, reviewer(12), None), None);
    }

    #[test]
    fn a_question_the_chrome_opened_is_not_a_closed_gate() {
        let mut w = World::new();
        let (p, _) = w.add_pane(Default::default(), Timestamp(1));
        let ask = chrome_dialog_step(
            &w.panes[&p],
            Some(&dialog(DecisionKind::Question)),
            None,
            Timestamp(2),
        )
        .unwrap();
        w.apply_signal(p, &chrome(ask, 2)).unwrap();
        assert_eq!(
            closed_gate_step(&w.panes[&p], user(), Some(Timestamp(3))),
            None
        );
    }
}
