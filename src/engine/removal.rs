//! Which panes may be removed, and which go without being named
//! (`docs/lifecycle-attention.md#removing-panes`): the refusal of a running pane, the
//! selection of `attend rm --exited [--older-than]` (also the tray's "Remove exited
//! panes"), and the optional automatic removal of exited, reviewed panes. Pure: time is
//! an argument. One place for the CLI, D-Bus, the tray and the daemon's timer.

use crate::model::{Pane, PaneId, TaskState, Timestamp};

/// Why a pane cannot be removed the way it was asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Attend runs (or follows in tmux) the pane's program and it is still running:
    /// removing it would leave a program without a pane. `kill` ends it first.
    Running,
    /// `kill` was asked for a running pane Attend does not run (an external pane known
    /// through hooks): Attend cannot end its agent. Without `kill` it is only forgotten.
    CannotKill,
}

/// What removing `p` needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    /// It can go now: it has exited, or it is an external pane (only forgotten; its
    /// agent keeps running, and its next hook makes a new pane), or a pane followed in
    /// the user's tmux (only forgotten: its agent keeps running, unfollowed, until
    /// another agent starts in that tmux pane).
    Now,
    /// Attend runs or follows it and it is running: it goes once `kill` ended it.
    AfterExit,
}

/// Whether `p` can be removed, with `kill` (end a running pane Attend runs or follows in
/// tmux first) or without; the [`Refusal`] otherwise. A running pane Attend runs goes only
/// after a kill; a running pane followed in the user's tmux is, without kill, only
/// forgotten — the tmux pane is the user's, and its agent keeps running there, followed
/// by nothing until another agent starts in it (`docs/tmux.md#removing`).
pub fn removal(p: &Pane, kill: bool) -> Result<Removal, Refusal> {
    match (p.live.is_running(), p.has_terminal(), kill) {
        (false, _, _) | (true, false, false) => Ok(Removal::Now),
        (true, true, true) => Ok(Removal::AfterExit),
        (true, true, false) if p.tmux.is_some() => Ok(Removal::Now),
        (true, true, false) => Err(Refusal::Running),
        (true, false, true) => Err(Refusal::CannotKill),
    }
}

/// When `p` exited: its exit time, else (an exit recorded before exit times were kept)
/// its creation time; `None` while it runs.
pub fn exited_since(p: &Pane) -> Option<Timestamp> {
    (!p.live.is_running()).then(|| p.exited_at.unwrap_or(p.created_at))
}

/// The exited panes whose exit lies at least `older_than_ms` before `now` (0 or less:
/// every exited pane), by id: what `attend rm --exited [--older-than]` removes.
pub fn exited_panes<'a>(
    panes: impl IntoIterator<Item = &'a Pane>,
    older_than_ms: i64,
    now: Timestamp,
) -> Vec<PaneId> {
    let mut ids: Vec<PaneId> = panes
        .into_iter()
        .filter(|p| exited_since(p).is_some_and(|at| now.millis_since(at) >= older_than_ms))
        .map(|p| p.id)
        .collect();
    ids.sort();
    ids
}

/// True when the automatic removal may take `p` once it is old enough: exited, nothing
/// outstanding (attention `none`, so nothing unread; no open decision), every task
/// reported or failed, no hold, and not focused (a pane the user is looking at never vanishes).
pub fn auto_removable(p: &Pane) -> bool {
    !p.live.is_running()
        && p.items.is_empty()
        && p.pending_decision.is_none()
        && p.hold.is_none()
        && !p.focused
        && p.tasks
            .iter()
            .all(|t| matches!(t.state, TaskState::Reported | TaskState::Failed))
}

/// The automatic removal of exited, reviewed panes `age_ms` after their exit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AutoRemoval {
    /// The candidates whose exit is at least `age_ms` before now, by id.
    pub due: Vec<PaneId>,
    /// When the next candidate falls due (the oldest remaining candidate's exit plus
    /// `age_ms`); `None` when no other candidate exists (no timer is needed).
    pub next: Option<Timestamp>,
}

/// The automatic removal at `now` of the [`auto_removable`] panes `age_ms` after their
/// exit.
pub fn auto_removal<'a>(
    panes: impl IntoIterator<Item = &'a Pane>,
    age_ms: i64,
    now: Timestamp,
) -> AutoRemoval {
    let mut out = AutoRemoval::default();
    for p in panes.into_iter().filter(|p| auto_removable(p)) {
        let Some(exited) = exited_since(p) else {
            continue;
        };
        let due = Timestamp(exited.0.saturating_add(age_ms));
        if due <= now {
            out.due.push(p.id);
        } else {
            out.next = Some(out.next.map_or(due, |n: Timestamp| n.min(due)));
        }
    }
    out.due.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AgentKind, Attention, AttentionItem, Hold, Live, Source, Task};

    fn pane(id: u64, owned: bool, exited_at: Option<i64>) -> Pane {
        let mut p = Pane::new(PaneId(id), "/w", "main", "", AgentKind::Shell, Timestamp(0));
        p.owned = owned;
        if let Some(at) = exited_at {
            p.live = Live::Exited {
                code: Some(0),
                signal: None,
            };
            p.exited_at = Some(Timestamp(at));
        }
        p
    }

    #[test]
    fn a_running_pane_attend_runs_goes_only_after_a_kill() {
        assert_eq!(removal(&pane(1, true, None), false), Err(Refusal::Running));
        assert_eq!(removal(&pane(1, true, None), true), Ok(Removal::AfterExit));
        assert_eq!(removal(&pane(1, true, Some(5)), false), Ok(Removal::Now));
        assert_eq!(removal(&pane(1, true, Some(5)), true), Ok(Removal::Now));
    }

    #[test]
    fn an_external_pane_is_forgotten_and_never_killed() {
        assert_eq!(removal(&pane(1, false, None), false), Ok(Removal::Now));
        assert_eq!(
            removal(&pane(1, false, None), true),
            Err(Refusal::CannotKill)
        );
        assert_eq!(removal(&pane(1, false, Some(5)), true), Ok(Removal::Now));
    }

    #[test]
    fn a_running_pane_followed_in_tmux_is_forgotten_or_killed() {
        let mut p = pane(1, false, None);
        p.tmux = Some(crate::model::TmuxLocation {
            socket: "/tmp/tmux-1000/default".into(),
            server_pid: 42,
            pane: "%3".into(),
            place: "w:1.0".into(),
        });
        assert_eq!(removal(&p, false), Ok(Removal::Now));
        assert_eq!(removal(&p, true), Ok(Removal::AfterExit));
        p.live = Live::Exited {
            code: None,
            signal: None,
        };
        assert_eq!(removal(&p, false), Ok(Removal::Now));
    }

    #[test]
    fn older_than_measures_from_the_exit() {
        let panes = [
            pane(1, true, Some(1_000)),
            pane(2, true, Some(9_000)),
            pane(3, true, None),
            pane(4, false, Some(5_000)),
        ];
        let now = Timestamp(10_000);
        assert_eq!(
            exited_panes(&panes, 0, now),
            [PaneId(1), PaneId(2), PaneId(4)]
        );
        assert_eq!(exited_panes(&panes, 5_000, now), [PaneId(1), PaneId(4)]);
        assert_eq!(exited_panes(&panes, 9_001, now), [] as [PaneId; 0]);
        // An exit time never recorded counts from the pane's creation.
        let mut old = pane(5, true, Some(0));
        old.exited_at = None;
        assert_eq!(exited_since(&old), Some(Timestamp(0)));
    }

    #[test]
    fn automatic_removal_takes_only_reviewed_exited_panes_and_names_the_next_due_time() {
        let mut unread = pane(2, true, Some(1_000));
        unread.items.push(AttentionItem {
            level: Attention::Unread,
            source: Source::user(),
            at: Timestamp(1_000),
            decision: None,
        });
        let mut held = pane(3, true, Some(1_000));
        held.hold = Some(Hold {
            owner: "me".into(),
            wake: Timestamp(99_000),
            reason: None,
        });
        let mut tasked = pane(4, true, Some(1_000));
        tasked.tasks.push(Task {
            id: 1,
            pane: PaneId(4),
            text: "x".into(),
            state: TaskState::Open,
            message: None,
            created_at: Timestamp(0),
            updated_at: Timestamp(0),
        });
        let mut focused = pane(5, true, Some(1_000));
        focused.focused = true;
        let panes = [
            pane(1, true, Some(1_000)),
            unread,
            held,
            tasked,
            focused,
            pane(6, false, Some(4_000)),
            pane(7, true, Some(3_000)),
            pane(8, true, None),
        ];
        let r = auto_removal(&panes, 2_000, Timestamp(3_000));
        assert_eq!(r.due, [PaneId(1)]);
        assert_eq!(r.next, Some(Timestamp(5_000)), "p7 exited at 3 s");
        let r = auto_removal(&panes, 2_000, Timestamp(6_000));
        assert_eq!(r.due, [PaneId(1), PaneId(6), PaneId(7)]);
        assert_eq!(r.next, None, "no timer without a candidate");
    }
}
