//! One pane's timer task ([`PaneTimer`]), behind the sources' timer
//! (src/service/evidence/ladder_host/timers.rs).
//!
//! A working agent's output moves the deadline with every frame of its spinner, so
//! re-arming must be cheap: each pane has one task ([`PaneTimer`]) for its life that
//! sleeps until the deadline it reads from a shared cell. Moving the deadline later only
//! writes the cell (the task finds the later deadline when it wakes and sleeps on,
//! without waking the owner); moving it earlier also wakes the task; the owner hears of
//! the timer only when the deadline is due.
use crate::model::{PaneId, Timestamp};
use crate::service::command::{Command, LadderCommand, LadderInput};
use crate::system::clock::now;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Notify};

/// The cell's value while the timer is disarmed.
const DISARMED: i64 = i64::MAX;

/// One pane's timer task and the deadline it sleeps for; the task ends when this is
/// dropped.
pub(super) struct PaneTimer {
    /// Ms since the epoch ([`Timestamp`]), [`DISARMED`] when none.
    deadline: Arc<AtomicI64>,
    /// Wakes the task to read an earlier deadline.
    wake: Arc<Notify>,
    task: tokio::task::JoinHandle<()>,
}

/// What the timer task does next with the deadline `deadline` at `now`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    /// Disarmed: wait until woken.
    Wait,
    /// Not due yet: sleep this long (or until woken), then read the deadline again.
    Sleep(Duration),
    /// Due: tell the owner.
    Fire,
}

fn next(deadline: i64, now: Timestamp) -> Next {
    if deadline == DISARMED {
        return Next::Wait;
    }
    match until(Timestamp(deadline), now) {
        d if d.is_zero() => Next::Fire,
        d => Next::Sleep(d),
    }
}

impl PaneTimer {
    /// A disarmed timer of `pane`; its tick sends `LadderInput::Due(pane)` on `tx`. Must
    /// run inside the tokio runtime.
    pub(super) fn start(pane: PaneId, tx: mpsc::Sender<Command>) -> PaneTimer {
        let deadline = Arc::new(AtomicI64::new(DISARMED));
        let wake = Arc::new(Notify::new());
        let (cell, woken) = (deadline.clone(), wake.clone());
        let task = tokio::spawn(async move {
            loop {
                let d = cell.load(Ordering::Acquire);
                match next(d, now()) {
                    Next::Wait => woken.notified().await,
                    Next::Sleep(wait) => {
                        tokio::select! {
                            _ = tokio::time::sleep(wait) => {}
                            _ = woken.notified() => {}
                        }
                    }
                    Next::Fire => {
                        // Re-armed meanwhile: read the new deadline instead.
                        if cell
                            .compare_exchange(d, DISARMED, Ordering::AcqRel, Ordering::Acquire)
                            .is_ok()
                        {
                            let cmd = Command::Ladder(LadderCommand::Input(LadderInput::Due(pane)));
                            if tx.send(cmd).await.is_err() {
                                return;
                            }
                        }
                    }
                }
            }
        });
        PaneTimer {
            deadline,
            wake,
            task,
        }
    }

    /// Arms the timer for `at` (replacing any other deadline).
    pub(super) fn arm(&self, at: Timestamp) {
        let old = self.deadline.swap(at.0, Ordering::AcqRel);
        if at.0 < old {
            self.wake.notify_one();
        }
    }

    /// Disarms the timer (the task sleeps on until its old deadline, finds none and
    /// waits).
    pub(super) fn disarm(&self) {
        self.deadline.store(DISARMED, Ordering::Release);
    }
}

impl Drop for PaneTimer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Time from `now` until `t` (zero when past).
fn until(t: Timestamp, now: Timestamp) -> Duration {
    Duration::from_millis(t.millis_since(now).max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn the_task_waits_sleeps_or_fires_by_the_deadline() {
        assert_eq!(next(DISARMED, Timestamp(5)), Next::Wait);
        assert_eq!(
            next(100, Timestamp(40)),
            Next::Sleep(Duration::from_millis(60))
        );
        assert_eq!(next(100, Timestamp(100)), Next::Fire);
        assert_eq!(next(100, Timestamp(250)), Next::Fire, "late");
    }

    fn is_due(cmd: Option<Command>, pane: PaneId) -> bool {
        matches!(cmd, Some(Command::Ladder(LadderCommand::Input(LadderInput::Due(p)))) if p == pane)
    }

    #[tokio::test]
    async fn a_deadline_moved_later_fires_once_at_the_later_time() {
        let (tx, mut rx) = mpsc::channel(8);
        let pane = PaneId(7);
        let timer = PaneTimer::start(pane, tx);
        let start = Instant::now();
        timer.arm(Timestamp(now().0 + 50));
        timer.arm(Timestamp(now().0 + 150));
        assert!(is_due(rx.recv().await, pane));
        assert!(
            start.elapsed() >= Duration::from_millis(140),
            "not before the later deadline"
        );
        // Once: disarmed after it fired.
        let more = tokio::time::timeout(Duration::from_millis(200), rx.recv()).await;
        assert!(more.is_err(), "fired once");
    }

    #[tokio::test]
    async fn a_deadline_moved_earlier_fires_at_the_earlier_time() {
        let (tx, mut rx) = mpsc::channel(8);
        let pane = PaneId(3);
        let timer = PaneTimer::start(pane, tx);
        timer.arm(Timestamp(now().0 + 60_000));
        let start = Instant::now();
        timer.arm(Timestamp(now().0 + 30));
        let due = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await;
        assert!(is_due(due.expect("fired"), pane));
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn a_disarmed_or_dropped_timer_never_fires() {
        let (tx, mut rx) = mpsc::channel(8);
        let timer = PaneTimer::start(PaneId(1), tx.clone());
        timer.arm(Timestamp(now().0 + 30));
        timer.disarm();
        let dropped = PaneTimer::start(PaneId(2), tx);
        dropped.arm(Timestamp(now().0 + 30));
        drop(dropped);
        let got = tokio::time::timeout(Duration::from_millis(200), rx.recv()).await;
        assert!(got.is_err(), "nothing fired");
        // Armed again, it fires.
        timer.arm(Timestamp(now().0 + 10));
        let due = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await;
        assert!(is_due(due.expect("fired"), PaneId(1)));
    }
}
