//! Process facts for hooks (`docs/adapters.md#which-pane`;
//! `docs/adapters.md#the-hook-wire`: ancestor pids with their start times): which process a
//! hook runs under, and the liveness of external panes.
//!
//! - [`runs_under`]: does a hook that claims `ATTEND_PANE=pN` really run under that pane's
//!   PTY child? (the child's pid and start time are among the hook's ancestors).
//! - [`pick_agent`]: the agent's process among a hook's ancestors: the nearest one whose
//!   command name or executable looks like the agent (its `processes` in
//!   `data/agents.tsv`: `node`, `claude`, `codex`, `gemini`, `cursor-agent`), else the
//!   hook's parent.
//! - [`ProcWatch`]: one `pidfd` per external pane (`pidfd_open(2)`, registered with
//!   tokio's [`AsyncFd`]: no polling) that reports the agent's exit as
//!   [`PtyEvent::Exited`] with code and signal unknown. The engine counts an exit with
//!   neither a code nor a signal as no failure (`process_exited` in
//!   `src/engine/transition.rs`): the pane keeps its lifecycle and gets `live` = exited.
//!
//! Start times are field 22 of `/proc/<pid>/stat` (clock ticks since boot), as the hook
//! client reports them; a pid whose start time differs is another process (pid reuse).

use crate::engine::World;
use crate::model::{AgentKind, Live, Pane, PaneId};
use crate::service::processes::procfs::{alive, living_start, names, start_time, Proc};
use crate::service::pty::{EventTx, PtyEvent, PtyRegistry};
use std::collections::HashMap;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

/// True when the PTY child `child` (pid) is one of the hook's ancestors `pids` with its
/// current start time: the hook runs inside that pane's process tree. An ancestor chain
/// always passes through the child when the hook descends from it, so checking the
/// child's own entry covers its descendants too.
pub fn runs_under(child: u32, pids: &[Proc]) -> bool {
    let Some(start) = start_time(child) else {
        return false;
    };
    pids.iter().any(|&(pid, s)| pid == child && s == start)
}

/// Whether a hook that names pane `id` (its `ATTEND_PANE`) is believed. It is when the
/// pane exists, is Attend's own, and
/// - the hook sent no `pids` (a direct D-Bus caller: nothing to check), or
/// - the pane's PTY child is one of the hook's ancestors ([`runs_under`]), or
/// - the pane has no living PTY child to check against (e.g. spooled hooks replayed
///   after a daemon restart), or
/// - the hook names the session the pane already has (a hook orphaned by an agent that
///   exited before the hook read its ancestors).
///
/// Otherwise (no such pane, an external pane, a process outside the pane) the claim is
/// dropped with a warning in the log and the hook is treated as external.
pub fn claim_holds(
    world: &World,
    ptys: &PtyRegistry,
    id: PaneId,
    pids: &[Proc],
    session: Option<&String>,
) -> bool {
    let Some(pane) = world.panes().get(&id) else {
        tracing::warn!(pane = %id, "a hook names a pane that does not exist (ATTEND_PANE); treating it as external");
        return false;
    };
    if !pane.owned {
        tracing::warn!(pane = %id, "a hook names an external pane (ATTEND_PANE); treating it as external");
        return false;
    }
    if pids.is_empty() || session.is_some_and(|s| pane.session_id.as_ref() == Some(s)) {
        return true;
    }
    let child = ptys.lock().get(&id).and_then(|h| h.pid());
    match child {
        Some(child) if living_start(child).is_some() && !runs_under(child, pids) => {
            tracing::warn!(
                pane = %id,
                child,
                "a hook names a pane (ATTEND_PANE) but does not run under its process; \
                 treating it as external"
            );
            false
        }
        _ => true,
    }
}

/// True when a command name or executable file name looks like `agent`'s process: it
/// carries one of the agent's process names ([`AgentKind::process_names`], its row of
/// `data/agents.tsv`: `claude.exe`, `codex-x86_64-…`, and `node` for the agents whose npm
/// launcher runs under it), whole or before a separator
/// ([`crate::model::agents::names_process`]: `pi` is not `pip`).
pub fn looks_like(agent: AgentKind, name: &str) -> bool {
    agent
        .process_names()
        .iter()
        .any(|n| crate::model::agents::names_process(n, name))
}

/// The agent's process among a hook's ancestors `pids` (nearest first): the nearest whose
/// names ([`looks_like`]) match `agent`, else the first (the hook's parent). `None` only
/// when `pids` is empty. `names` gives a pid's names (`/proc` in the daemon).
pub fn pick_agent_with(
    agent: AgentKind,
    pids: &[Proc],
    names: impl Fn(u32) -> Vec<String>,
) -> Option<Proc> {
    pids.iter()
        .copied()
        .find(|&(pid, _)| names(pid).iter().any(|n| looks_like(agent, n)))
        .or_else(|| pids.first().copied())
}

/// [`pick_agent_with`] reading the names from `/proc`.
pub fn pick_agent(agent: AgentKind, pids: &[Proc]) -> Option<Proc> {
    pick_agent_with(agent, pids, names)
}

/// Opens a pidfd for `pid` (`pidfd_open(2)`, Linux ≥ 5.3), non-blocking.
fn pidfd_open(pid: u32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, libc::O_NONBLOCK) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the descriptor was just created and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// What [`ProcWatch::arm`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Armed {
    /// The hook names no process (no `pids`): nothing to watch.
    NoProcess,
    /// Already watching this very process.
    Same,
    /// A new watch on a living process (the first, or a new one after a resume).
    Watching(Proc),
    /// The process had already exited: its exit is reported now.
    Gone(Proc),
}

/// The per-pane watched agent process of external panes, shared with the watch tasks.
type Targets = Arc<Mutex<HashMap<PaneId, Proc>>>;

/// Watches the agent process of each external pane with a pidfd and reports its exit to
/// the owner as [`PtyEvent::Exited`] `{code: None, signal: None}`.
#[derive(Default)]
pub struct ProcWatch {
    targets: Targets,
    tasks: HashMap<PaneId, tokio::task::JoinHandle<()>>,
}

impl ProcWatch {
    /// Watches the agent's process of external pane `pane`, picked from the hook's
    /// ancestors `pids` ([`pick_agent`]). A process already watched for the pane is kept;
    /// another one replaces the old watch. A process that already exited (or whose pid now
    /// belongs to another process) is reported exited at once. Exits go to `tx`. Must run
    /// inside a tokio runtime.
    pub fn arm(&mut self, pane: PaneId, agent: AgentKind, pids: &[Proc], tx: &EventTx) -> Armed {
        let Some(proc) = pick_agent(agent, pids) else {
            return Armed::NoProcess;
        };
        let mut targets = self.targets.lock().unwrap_or_else(PoisonError::into_inner);
        if targets.get(&pane) == Some(&proc) {
            return Armed::Same;
        }
        targets.insert(pane, proc);
        drop(targets);
        if let Some(old) = self.tasks.remove(&pane) {
            old.abort();
        }
        // Open first, then check the start time: a pid reused before the open shows a
        // different start time; after the open the descriptor pins the process.
        let fd = match pidfd_open(proc.0) {
            Ok(fd) if alive(proc) => fd,
            _ => {
                tracing::info!(%pane, pid = proc.0, "the agent process of the external pane is gone");
                if still_watched(&self.targets, pane, proc) {
                    // The owner calls this: never wait for room in its own queue.
                    tx.send_now(exited(pane));
                }
                return Armed::Gone(proc);
            }
        };
        let targets = self.targets.clone();
        let tx = tx.clone();
        let task = tokio::spawn(async move {
            // SAFETY: an OwnedFd stays open and returns the same descriptor until the
            // AsyncFd that owns it is dropped.
            match unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) } {
                Ok(afd) => {
                    // A pidfd turns readable when its process exits.
                    let _ = afd.readable().await;
                }
                Err(e) => {
                    tracing::warn!(%pane, pid = proc.0, "cannot watch the agent process: {e}");
                    return;
                }
            }
            tracing::info!(%pane, pid = proc.0, "the agent process of the external pane exited");
            if still_watched(&targets, pane, proc) {
                tx.send(exited(pane)).await;
            }
        });
        self.tasks.insert(pane, task);
        Armed::Watching(proc)
    }

    /// Stops watching the agent process of `pane` (a removed pane): its exit is no longer
    /// reported.
    pub fn forget(&mut self, pane: PaneId) {
        self.targets
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&pane);
        if let Some(task) = self.tasks.remove(&pane) {
            task.abort();
        }
    }

    /// True when an exit report for pane `p` is stale and must be ignored: `p` is an
    /// external pane that is already exited, or whose current agent process (a newer one,
    /// after a resume) is alive. Owned panes' exits always apply.
    pub fn stale_exit(&self, p: &Pane) -> bool {
        if p.owned {
            return false;
        }
        if matches!(p.live, Live::Exited { .. }) {
            return true;
        }
        let targets = self.targets.lock().unwrap_or_else(PoisonError::into_inner);
        targets.get(&p.id).is_some_and(|&proc| alive(proc))
    }
}

impl Drop for ProcWatch {
    fn drop(&mut self) {
        for task in self.tasks.values() {
            task.abort();
        }
    }
}

/// True when `proc` is still the watched process of `pane` (its exit is to be reported).
fn still_watched(targets: &Targets, pane: PaneId, proc: Proc) -> bool {
    let targets = targets.lock().unwrap_or_else(PoisonError::into_inner);
    targets.get(&pane) == Some(&proc)
}

/// The exit report of an external pane's agent process: code and signal unknown.
fn exited(pane: PaneId) -> PtyEvent {
    PtyEvent::Exited {
        pane,
        code: None,
        signal: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agent_is_the_nearest_ancestor_with_its_name_else_the_parent() {
        let names = |pid: u32| -> Vec<String> {
            match pid {
                10 => vec!["sh".into(), "dash".into()],
                20 => vec!["claude.exe".into()],
                30 => vec!["node".into()],
                _ => vec!["bash".into()],
            }
        };
        let pids = [(10, 1), (20, 2), (30, 3), (40, 4)];
        assert_eq!(
            pick_agent_with(AgentKind::Claude, &pids, names),
            Some((20, 2))
        );
        assert_eq!(
            pick_agent_with(AgentKind::Gemini, &pids, names),
            Some((30, 3)),
            "gemini runs under node"
        );
        assert_eq!(
            pick_agent_with(AgentKind::Gemini, &[(10, 1), (40, 4)], names),
            Some((10, 1)),
            "no match: the parent"
        );
        assert_eq!(pick_agent_with(AgentKind::Codex, &[], names), None);
        assert!(looks_like(AgentKind::Cursor, "cursor-agent"));
        assert!(!looks_like(AgentKind::Codex, "claude"));
        // OpenCode's native binary, run through npm's `opencode` link or as `opencode.exe`.
        assert!(looks_like(AgentKind::OpenCode, "opencode.exe"));
        assert!(!looks_like(AgentKind::OpenCode, "node"));
    }

    #[test]
    fn our_own_parent_is_alive_and_we_run_under_it() {
        let parent = std::os::unix::process::parent_id();
        let start = start_time(parent).expect("our parent exists");
        assert!(alive((parent, start)));
        assert!(!alive((parent, start + 1)), "another start time: pid reuse");
        assert!(runs_under(parent, &[(parent, start)]));
        assert!(!runs_under(parent, &[(parent, start + 1)]));
        assert!(!runs_under(parent, &[]));
    }

    #[test]
    fn a_zombie_is_not_alive() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let start = start_time(pid).unwrap();
        // Not reaped yet: a zombie once it exits.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while alive((pid, start)) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(
            !alive((pid, start)),
            "an exited, unreaped child is not alive"
        );
        assert_eq!(
            start_time(pid),
            Some(start),
            "its /proc entry is still there"
        );
        child.wait().unwrap();
    }

    #[tokio::test]
    async fn an_exit_is_reported_once_through_the_pidfd() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id();
        let proc = (pid, start_time(pid).unwrap());
        let (tx, mut rx) = crate::service::pty::event_channel();
        let mut watch = ProcWatch::default();
        let pane = PaneId(7);
        // Any name: the only ancestor is the pick.
        assert_eq!(
            watch.arm(pane, AgentKind::Claude, &[proc], &tx),
            Armed::Watching(proc)
        );
        assert_eq!(
            watch.arm(pane, AgentKind::Claude, &[proc], &tx),
            Armed::Same
        );
        assert!(rx.try_recv().is_err(), "nothing while it runs");
        child.kill().unwrap();
        child.wait().unwrap();
        let ev = tokio::time::timeout(std::time::Duration::from_secs(5), rx.recv())
            .await
            .expect("the exit is reported")
            .unwrap();
        assert!(matches!(
            ev,
            PtyEvent::Exited {
                pane: PaneId(7),
                code: None,
                signal: None
            }
        ));
        // The same (now dead) process named again is not reported twice.
        assert_eq!(
            watch.arm(pane, AgentKind::Claude, &[proc], &tx),
            Armed::Same
        );
        // Another, already dead process is reported at once.
        let other = (pid, proc.1 + 1);
        assert_eq!(
            watch.arm(pane, AgentKind::Claude, &[other], &tx),
            Armed::Gone(other)
        );
        assert!(matches!(rx.try_recv(), Ok(PtyEvent::Exited { .. })));
    }
}
