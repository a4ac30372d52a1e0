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
