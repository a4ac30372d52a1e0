//! Dialogs on the screen (`docs/lifecycle-attention.md#dialogs-no-hook-names`): what the
//! needs-input chrome shows ([`ShownDialog`]), the times an answered or vanished dialog
//! is given, and the gates an agent closes on screen without a hook
//! ([`closed_gate_step`]). Opening and closing the decisions of dialogs no hook names is
//! [`super::verdict::verdict_step`]'s.
//!
//! Pure: the pane and what the chrome shows in, the signal to apply out.

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
    /// The rule's needs-input reason ("permission prompt", "folder trust").
    pub reason: String,
    /// The option labels read off the screen.
    pub options: Vec<String>,
    /// The rule's answer choice names.
    pub choices: Vec<String>,
}

/// The source origin of the chrome's signals ([`super::verdict::verdict_step`], rung
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

/// When a `GateDismissed` from [`super::verdict::verdict_step`] may be applied: `seen_at` is when the
/// dialog was last on the screen. `None`: now; `Some(t)`: not before `t` (the caller
/// waits and asks again then).
pub fn dismissal_due(seen_at: Option<Timestamp>, now: Timestamp) -> Option<Timestamp> {
    let due = Timestamp(seen_at?.0 + DIALOG_GONE_MS);
    (due > now).then_some(due)
}

/// When a pane left `blocked` by an answer Attend typed may leave it
/// (`docs/lifecycle-attention.md#answered-without-a-hook`): the answer at `answered_at`
/// resolved the pane's last decision and the pane is still `blocked`, with no decision
/// open, no dialog drawn and no hook ever heard from its agent (an agent with no hooks,
/// or none installed: nothing else will say the dialog is behind it). Due once the answer
/// settled ([`ANSWER_SETTLE_MS`]) and the dialog has been gone for [`DIALOG_GONE_MS`]
/// (`seen_at`: when the chrome last saw a dialog); the caller then applies, if no
/// deciding rung reports needs-input, `GateDenied` (working) when the self-report says
/// the agent works, else `GateDismissed` (idle). `None`: not such a pane.
pub fn answered_leave_due(
    pane: &Pane,
    answered_at: Option<Timestamp>,
    shown: bool,
    seen_at: Option<Timestamp>,
) -> Option<Timestamp> {
    let at = answered_at?;
    let waiting = matches!(pane.live, Live::Running)
        && pane.lifecycle == Lifecycle::Blocked
        && pane.pending_decision.is_none()
        && !pane.hooks_seen
        && !shown;
    if !waiting {
        return None;
    }
    let settled = at.0 + ANSWER_SETTLE_MS;
    let gone = seen_at.map_or(settled, |s| s.0 + DIALOG_GONE_MS);
    Some(Timestamp(settled.max(gone)))
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
///   [`super::verdict::verdict_step`]'s).
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
    use crate::model::{Signal, Source};

    fn dialog(kind: DecisionKind) -> ShownDialog {
        ShownDialog {
            rule: "folder-trust".into(),
            reason: "folder-trust".into(),
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
        let d = dialog(DecisionKind::Question);
        let ask = SignalKind::QuestionAsked {
            prompt: d.prompt,
            options: d.options,
            answer_keys: vec![],
        };
        w.apply_signal(p, &chrome(ask, 2)).unwrap();
        assert_eq!(
            closed_gate_step(&w.panes[&p], user(), Some(Timestamp(3))),
            None
        );
    }
}
