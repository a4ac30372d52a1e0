//! The per-pane machine dismisses a decision only on a deciding rung's positive word that
//! its dialog is gone (`docs/lifecycle-attention.md#one-verdict`, "Dismissed only on
//! newer word"): the sequences of a real Claude Code 2.1.332 followed in tmux, where the
//! chrome read the permission dialog before Claude rewrote its session file.

use super::ladder::{Activity, Claim, Evidence, NeedsInput};
use super::machine::{Input, PaneMachine};
use super::ShownDialog;
use crate::model::{AgentKind, DecisionKind, EventKind, Lifecycle, Pane, PaneId, Rung, Timestamp};

fn machine() -> PaneMachine {
    let pane = Pane::new(PaneId(1), "/w", "main", "", AgentKind::Claude, Timestamp(0));
    PaneMachine::new(pane)
}

/// Claude's `sessions/<pid>.json` read at `at` (`waiting`: `status=waiting
/// waitingFor="permission prompt"`, else `status=idle`).
fn self_report(seq: u64, waiting: bool, at: i64) -> Input {
    Input::Evidence(Evidence {
        rung: Rung::SelfReport,
        source_id: "claude.sessions/7.json".into(),
        seq,
        observed_at: Timestamp(at),
        claim: Claim {
            activity: Some(Activity::IdleAtPrompt),
            needs_input: Some(NeedsInput {
                count: u32::from(waiting),
                reason: waiting.then(|| "permission prompt".to_string()),
            }),
        },
        note: if waiting {
            "status=waiting"
        } else {
            "status=idle"
        }
        .into(),
    })
}

fn proceed() -> ShownDialog {
    ShownDialog {
        rule: "permission-dialog".into(),
        reason: "permission prompt".into(),
        kind: DecisionKind::Permission,
        prompt: "Do you want to proceed?".into(),
        options: vec!["Yes".into(), "No".into()],
        choices: vec!["allow".into(), "deny".into()],
    }
}

fn chrome(shown: Option<ShownDialog>) -> Input {
    Input::Chrome {
        shown,
        closed: None,
        changed: true,
    }
}

fn dismissed(events: &crate::engine::Emitted) -> bool {
    events.iter().any(|(k, _)| {
        matches!(k, EventKind::DecisionResolved { resolution, .. }
            if resolution.as_str() == "dismissed")
    })
}

/// The invariant: needs-input decided ⇒ blocked with an open decision.
fn assert_invariant(m: &PaneMachine, at: i64) {
    let v = m.verdict(Timestamp(at));
    if v.needs_input.count > 0 {
        assert!(
            m.pending_decision.is_some(),
            "needs-input without a decision: {v:?}"
        );
        assert_eq!(m.lifecycle, Lifecycle::Blocked, "{v:?}");
    }
}

/// The self-report last said `idle` (read before the turn's busy write reached the
/// daemon); the chrome reads the permission dialog: the older `idle` is no word on
/// this dialog, so its correction does not dismiss the decision the chrome just opened;
/// the self-report's `waiting` that follows keeps it open.
#[test]
fn an_older_idle_self_report_does_not_dismiss_the_dialog_the_chrome_reads() {
    let mut m = machine();
    let mut next = 0;
    m.step(self_report(1, false, 1_000), Timestamp(1_000), &mut next)
        .unwrap();
    let out = m
        .step(chrome(Some(proceed())), Timestamp(5_000), &mut next)
        .unwrap();
    assert!(!dismissed(&out.events), "{:?}", out.events);
    assert!(m.pending_decision.is_some());
    assert_invariant(&m, 5_000);
    let out = m
        .step(self_report(2, true, 5_200), Timestamp(5_200), &mut next)
        .unwrap();
    assert!(!dismissed(&out.events), "{:?}", out.events);
    assert_eq!(m.lifecycle, Lifecycle::Blocked);
    let d = m
        .pending_decision
        .as_ref()
        .expect("the decision stays open");
    assert_eq!(d.kind, DecisionKind::Permission);
    // Timers change nothing while both rungs report the dialog.
    m.step(Input::Due, Timestamp(9_000), &mut next).unwrap();
    assert!(m.pending_decision.is_some());
    assert_invariant(&m, 9_000);
}

/// A frame without the dialog (a redraw) while the self-report's last word predates the
/// dialog: no dismissal before the dialog has been gone `DIALOG_GONE_MS`, and the
/// dialog drawn again keeps the one decision.
#[test]
fn a_frame_without_the_dialog_and_an_older_idle_self_report_dismiss_nothing_at_once() {
    let mut m = machine();
    let mut next = 0;
    m.step(self_report(1, false, 1_000), Timestamp(1_000), &mut next)
        .unwrap();
    m.step(chrome(Some(proceed())), Timestamp(5_000), &mut next)
        .unwrap();
    let id = m.pending_decision.as_ref().unwrap().id;
    let out = m.step(chrome(None), Timestamp(5_050), &mut next).unwrap();
    assert!(!dismissed(&out.events), "{:?}", out.events);
    let out = m
        .step(chrome(Some(proceed())), Timestamp(5_100), &mut next)
        .unwrap();
    assert!(!dismissed(&out.events), "{:?}", out.events);
    assert_eq!(m.pending_decision.as_ref().map(|d| d.id), Some(id));
}

/// Evidence spent by a close falls through to the next deciding rung: a self-report
/// `waiting` written after a `Stop` hook ended the turn counts (it is newer word), while
/// the chrome's reading from before the close still stands on top of the ladder.
#[test]
fn a_spent_chrome_reading_lets_a_newer_self_report_decide() {
    use crate::model::{Signal, SignalKind, Source};
    let mut m = machine();
    let mut next = 0;
    m.step(chrome(Some(proceed())), Timestamp(1_000), &mut next)
        .unwrap();
    let stop = Signal::new(
        SignalKind::TurnStopped { summary: None },
        Source::hook("claude", "Stop"),
        Timestamp(2_000),
    );
    m.step(Input::Signal(stop), Timestamp(2_000), &mut next)
        .unwrap();
    m.step(self_report(1, true, 3_000), Timestamp(3_000), &mut next)
        .unwrap();
    let v = m.verdict(Timestamp(3_000));
    assert_eq!(v.needs_input.count, 1, "{v:?}");
    assert_eq!(v.needs_input_by.map(|e| e.rung), Some(Rung::SelfReport));
    assert!(m.pending_decision.is_some(), "{:?}", m.pending_decision);
    assert_invariant(&m, 3_000);
}

fn trust() -> ShownDialog {
    ShownDialog {
        rule: "folder-trust".into(),
        reason: "folder trust".into(),
        kind: DecisionKind::Question,
        prompt: "Accessing workspace".into(),
        options: vec!["No, exit".into(), "Yes, I trust this folder".into()],
        choices: vec!["allow".into(), "deny".into()],
    }
}

fn answer() -> Input {
    Input::Action(crate::model::Action::Answer {
        choice: "allow".into(),
    })
}

/// An agent no hook speaks for (its screen is all Attend reads): the dialog the chrome
/// read is answered through Attend and leaves the screen; once the answer settled and the
/// dialog has been gone `DIALOG_GONE_MS`, the pane is no longer `blocked` — no hook would
/// ever say so (`docs/lifecycle-attention.md#answered-without-a-hook`). The machine asks
/// for a timer for it.
#[test]
fn an_answered_dialog_of_an_agent_without_hooks_leaves_blocked_once_gone() {
    use super::dialogs::{ANSWER_SETTLE_MS, DIALOG_GONE_MS};
    let mut m = machine();
    let mut next = 0;
    m.step(chrome(Some(trust())), Timestamp(1_000), &mut next)
        .unwrap();
    assert_eq!(m.lifecycle, Lifecycle::Blocked);
    m.step(answer(), Timestamp(2_000), &mut next).unwrap();
    assert!(m.pending_decision.is_none());
    assert_eq!(
        m.lifecycle,
        Lifecycle::Blocked,
        "until the dialog is behind it"
    );
    m.step(chrome(None), Timestamp(2_200), &mut next).unwrap();
    assert_eq!(
        m.lifecycle,
        Lifecycle::Blocked,
        "the answer not settled yet"
    );
    let due = Timestamp(2_000 + ANSWER_SETTLE_MS);
    assert_eq!(m.wake(Timestamp(2_200)), Some(due));
    assert!(2_200 + DIALOG_GONE_MS < due.0);
    let out = m.step(Input::Due, due, &mut next).unwrap();
    assert_eq!(m.lifecycle, Lifecycle::Idle, "{:?}", out.events);
    assert_eq!(m.taxonomy(true, due).0.needs_input.count, 0);
    assert_eq!(m.wake(due), None, "nothing more to wait for");
}

/// The same with a hook heard from the agent: its next hook says what the agent does,
/// so the pane stays `blocked` with nothing to answer until then; and a pane an answer
/// left working is not put back to idle later.
#[test]
fn an_answered_dialog_of_an_agent_with_hooks_waits_for_its_hook() {
    let mut m = machine();
    let mut next = 0;
    m.edit(|p| p.hooks_seen = true);
    m.step(chrome(Some(trust())), Timestamp(1_000), &mut next)
        .unwrap();
    m.step(answer(), Timestamp(2_000), &mut next).unwrap();
    m.step(chrome(None), Timestamp(2_200), &mut next).unwrap();
    m.step(Input::Due, Timestamp(9_000), &mut next).unwrap();
    assert_eq!(m.lifecycle, Lifecycle::Blocked);
    assert_eq!(m.wake(Timestamp(9_000)), None);
}

/// A daemon restart restores a decision the chrome opened, not the chrome's evidence;
/// the user answered the dialog while no daemon ran. The chrome's first reading (nothing
/// matched, nothing "changed" since the empty start) is word that the dialog is gone:
/// after `DIALOG_GONE_MS` the decision resolves `dismissed` and the pane is idle.
#[test]
fn a_restored_chrome_decision_whose_dialog_went_while_no_daemon_ran_is_dismissed() {
    use super::dialogs::DIALOG_GONE_MS;
    let mut before = machine();
    let mut next = 0;
    before
        .step(chrome(Some(trust())), Timestamp(1_000), &mut next)
        .unwrap();
    let pane = (*before).clone();
    assert!(pane.pending_decision.is_some());
    let mut m = PaneMachine::restore(pane);
    let unchanged = Input::Chrome {
        shown: None,
        closed: None,
        changed: false,
    };
    let out = m
        .step(unchanged.clone(), Timestamp(60_000), &mut next)
        .unwrap();
    assert!(
        !dismissed(&out.events),
        "not on one frame: {:?}",
        out.events
    );
    let due = Timestamp(60_000 + DIALOG_GONE_MS);
    assert_eq!(m.wake(Timestamp(60_000)), Some(due));
    let out = m.step(Input::Due, due, &mut next).unwrap();
    assert!(dismissed(&out.events), "{:?}", out.events);
    assert!(m.pending_decision.is_none());
    assert_eq!(m.lifecycle, Lifecycle::Idle);
}

/// The same, with the agent's self-report saying it works after the answer (Claude
/// Code followed in tmux without Attend's hooks: its session file): the pane is
/// `working`, not `idle`.
#[test]
fn an_answered_dialog_of_an_agent_without_hooks_is_working_on_the_self_reports_word() {
    use super::dialogs::ANSWER_SETTLE_MS;
    let mut m = machine();
    let mut next = 0;
    m.step(chrome(Some(trust())), Timestamp(1_000), &mut next)
        .unwrap();
    m.step(answer(), Timestamp(2_000), &mut next).unwrap();
    m.step(chrome(None), Timestamp(2_200), &mut next).unwrap();
    let busy = Input::Evidence(Evidence {
        rung: Rung::SelfReport,
        source_id: "claude.sessions/7.json".into(),
        seq: 1,
        observed_at: Timestamp(2_500),
        claim: Claim {
            activity: Some(Activity::Working),
            needs_input: Some(NeedsInput::default()),
        },
        note: "status=busy".into(),
    });
    m.step(busy, Timestamp(2_500), &mut next).unwrap();
    let due = Timestamp(2_000 + ANSWER_SETTLE_MS);
    m.step(Input::Due, due, &mut next).unwrap();
    assert_eq!(m.lifecycle, Lifecycle::Working);
}
