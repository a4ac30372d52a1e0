//! Panes followed in the user's tmux (`docs/tmux.md`): a found tmux pane becomes an
//! Attend pane (or joins the one its hooks already made, or the one it was before a
//! restart), whose terminal is fed from the control client (src/service/pty/followed.rs);
//! a hook carrying the same `TMUX` socket and `TMUX_PANE` joins it.

use super::{Batch, Owner};
use crate::engine::machine::Input;
use crate::engine::NewPane;
use crate::model::{PaneId, Signal, SignalKind, Source, TmuxLocation};
use crate::service::bus::error::Attend1Error;
use crate::service::command::HookRequest;
use crate::service::processes::procfs;
use crate::service::processes::procwatch::looks_like;
use crate::service::pty::{Followed, PtyHandle};
use crate::service::surfaces::terminal_location::TerminalLocation;
use crate::service::tmux::{Found, InMode, TmuxKeys};
use crate::system::clock::now;

/// The error of a failed write of typed bytes into pane `id`: `PaneInMode` when its tmux
/// pane is in a mode (nothing was typed, `docs/tmux.md#answers`), else `Internal`.
pub(super) fn typing_error(id: PaneId, e: &std::io::Error) -> Attend1Error {
    match InMode::of(e) {
        Some(m) => Attend1Error::PaneInMode(format!("pane {id}: {m}")),
        None => Attend1Error::Internal(format!("cannot write to {id}: {e}")),
    }
}

impl Owner {
    /// A tmux pane to follow: the running pane it already is (same server and pane: a
    /// daemon restart), else the running pane its agent's hooks made, else the exited
    /// pane it was before (a new agent after the last one quit: a handover of that seat,
    /// [`Input::Reoccupied`]), else a new pane; then its terminal is followed and its
    /// agent's process made known.
    pub(super) fn tmux_found(&mut self, found: Found, batch: &mut Batch) {
        let at = now();
        let resumed = self.seats.resumed(&found.location);
        let same = self
            .world
            .panes()
            .values()
            .find(|p| {
                p.live.is_running()
                    && p.tmux
                        .as_ref()
                        .is_some_and(|l| l.same_pane(&found.location))
            })
            .map(|p| p.id);
        let by_hooks = || {
            self.ladder.pane_of_process(found.agent_pid).filter(|id| {
                self.world
                    .pane(*id)
                    .is_ok_and(|p| !p.owned && p.live.is_running())
            })
        };
        // The seat the tmux pane was before its last agent quit (its shell stayed): a new
        // agent there hands that pane over rather than making a second one; so does the
        // agent `attend resume` started in a new window for an exited pane.
        let seat = self
            .world
            .panes()
            .values()
            .filter(|p| {
                !p.live.is_running()
                    && p.tmux
                        .as_ref()
                        .is_some_and(|l| l.same_pane(&found.location))
            })
            .map(|p| p.id)
            .max();
        let seat = resumed.filter(|id| self.world.pane(*id).is_ok()).or(seat);
        let id = match same.or_else(by_hooks).or(seat) {
            Some(id) if seat == Some(id) => {
                if !self.reoccupy(id, found.agent, batch) {
                    return;
                }
                let _ = self.world.set_tmux(id, found.location.clone());
                id
            }
            Some(id) => {
                if self.ptys.lock().contains_key(&id) {
                    return; // Followed already.
                }
                let _ = self.world.set_tmux(id, found.location.clone());
                batch.record(id, Vec::new());
                id
            }
            None => {
                let (id, events) = self.world.add_tmux_pane(
                    NewPane {
                        workspace: found.workspace.clone(),
                        tab: String::new(),
                        name: String::new(),
                        agent: found.agent,
                        cwd: found.cwd.clone(),
                        oneshot: false,
                        session_id: None,
                        command: Vec::new(),
                        owned: false,
                        worktree: None,
                    },
                    found.location.clone(),
                    at,
                );
                batch.record(id, events);
                if let Some(cwd) = found.cwd.clone() {
                    self.lookup_git(id, cwd);
                }
                id
            }
        };
        let keys = TmuxKeys {
            socket: found.location.socket.clone(),
            pane: found.location.pane.clone(),
        };
        let followed = Followed {
            output: found.output,
            agent_pid: found.agent_pid,
            size: found.size,
            seed: found.seed,
            keys: Box::new(keys),
        };
        match PtyHandle::follow(id, followed, self.config.scrollback, self.pty_tx.clone()) {
            Ok(handle) => {
                self.ptys.lock().insert(id, handle);
            }
            Err(e) => {
                tracing::warn!(pane = %id, "cannot follow the tmux pane: {e}");
                return;
            }
        }
        if let Some(start) = crate::service::processes::procfs::living_start(found.agent_pid) {
            let pids = [(found.agent_pid, start)];
            let out = self
                .ladder
                .hook_process(&mut self.world, id, found.agent, &pids, at);
            self.ladder_outcome(out, batch);
        }
        tracing::info!(pane = %id, tmux = %found.location.pane, place = %found.location.place, "following a tmux pane");
    }

    /// Where the running panes followed in tmux are (start-up: those the previous daemon
    /// followed, for [`crate::service::tmux::Follower::recheck`]).
    pub fn followed_in_tmux(&self) -> Vec<TmuxLocation> {
        self.world
            .panes()
            .values()
            .filter(|p| !p.owned && p.live.is_running())
            .filter_map(|p| p.tmux.clone())
            .collect()
    }

    /// A followed tmux pane is gone (`tmux kill-pane`, its window or session closed, its
    /// server ended): its running Attend pane ends now, as its agent's exit would end it —
    /// status unknown, so not a failure; an open decision is dropped
    /// (`docs/lifecycle-attention.md#process-exited`) — even when the agent outlives the
    /// tmux pane (an agent that ignores SIGHUP): nothing is left to read or type into.
    /// The agent's own exit later is stale and ignored.
    pub(super) fn tmux_gone(&mut self, location: &TmuxLocation, batch: &mut Batch) {
        let running = self.world.panes().values().find(|p| {
            p.live.is_running() && p.tmux.as_ref().is_some_and(|l| l.same_pane(location))
        });
        let Some(id) = running.map(|p| p.id) else {
            return; // Its agent's exit came first.
        };
        self.ptys.lock().remove(&id);
        let signal = Signal::new(
            SignalKind::ProcessExited {
                code: None,
                signal: None,
            },
            Source::process("tmux-pane-gone"),
            now(),
        );
        self.apply(id, &signal, batch);
        self.exited_for_removal(id, batch);
        tracing::info!(pane = %id, tmux = %location.pane, "the followed tmux pane is gone: exited");
    }

    /// `PaneInMode` when pane `id` is followed in tmux and its tmux pane is in a mode
    /// (copy-mode, a chooser): an answer must not resolve a decision whose keys cannot be
    /// typed (`docs/tmux.md#answers`). Ok for every other pane, and when tmux cannot be
    /// asked (the write then says why).
    pub(super) fn refuse_in_mode(&self, id: PaneId) -> Result<(), Attend1Error> {
        let Some(loc) = self.world.pane(id)?.tmux.as_ref() else {
            return Ok(());
        };
        if !self.ptys.lock().contains_key(&id) {
            return Ok(());
        }
        match crate::service::tmux::mode(&loc.socket, &loc.pane) {
            Some(Some(mode)) => {
                let m = InMode {
                    pane: loc.pane.clone(),
                    mode,
                };
                Err(Attend1Error::PaneInMode(format!("pane {id}: {m}")))
            }
            _ => Ok(()),
        }
    }

    /// The exited pane `id` of a tmux pane gets a new agent `agent`: a handover of the
    /// seat ([`Input::Reoccupied`], `docs/tmux.md#one-seat-per-tmux-pane`). False when
    /// the engine refused (no such pane).
    fn reoccupy(&mut self, id: PaneId, agent: crate::model::AgentKind, batch: &mut Batch) -> bool {
        match self.world.step(id, Input::Reoccupied { agent }, now()) {
            Ok((events, _)) => batch.record(id, events),
            Err(e) => {
                tracing::warn!(pane = %id, "cannot hand the pane over: {e}");
                return false;
            }
        }
        self.ladder.reset_sources(id);
        tracing::info!(pane = %id, %agent, "a new agent in the tmux pane: a handover");
        true
    }

    /// The followed tmux pane a hook is about: the running one at the `TMUX` socket and
    /// `TMUX_PANE` of its environment; else, when the hook comes from a living agent
    /// process, the exited one there whose server still runs — a new agent in that seat
    /// whose hook came before the follower noticed it: handed over
    /// ([`Owner::reoccupy`]); else the one whose agent process is among its ancestors. A
    /// hook naming a tmux server also makes it followed.
    pub(super) fn tmux_pane_of_hook(
        &mut self,
        req: &HookRequest,
        batch: &mut Batch,
    ) -> Option<PaneId> {
        let named = match &req.terminal {
            Some(TerminalLocation::Tmux { pane, socket }) => {
                if let (Some(f), Some(s)) = (&self.tmux, socket) {
                    f.know(s);
                }
                Some((pane, socket))
            }
            _ => None,
        };
        if let Some((pane, Some(socket))) = named {
            let panes = self.world.panes().values();
            let hit = panes
                .clone()
                .find(|p| p.live.is_running() && at_tmux(p, pane, socket))
                .map(|p| p.id);
            if hit.is_some() {
                return hit;
            }
            let seat = panes
                .filter(|p| !p.live.is_running() && at_tmux(p, pane, socket))
                .filter(|p| {
                    p.tmux
                        .as_ref()
                        .is_some_and(|l| tmux_server_runs(l.server_pid))
                })
                .map(|p| p.id)
                .max();
            let agent = req.mapping.agent;
            let living = req.pids.iter().any(|&p| {
                procfs::alive(p) && procfs::names(p.0).iter().any(|n| looks_like(agent, n))
            });
            // Or the agent `attend resume` started in a new window (docs/tmux.md#resume).
            let seat = seat.or_else(|| {
                living
                    .then(|| self.seats.resumed_at(socket, pane))
                    .flatten()
            });
            if let Some(id) = seat.filter(|_| living) {
                if self.reoccupy(id, agent, batch) {
                    return Some(id);
                }
            }
        }
        let ptys = self.ptys.lock();
        self.world
            .panes()
            .values()
            .filter(|p| p.live.is_running() && p.tmux.is_some())
            .find(|p| {
                ptys.get(&p.id)
                    .and_then(|h| h.pid())
                    .is_some_and(|pid| req.pids.iter().any(|(a, _)| *a == pid))
            })
            .map(|p| p.id)
    }
}

/// True when pane `p` is followed at tmux pane `pane` (`%N`) of the server at `socket`.
impl Owner {
    /// True when `req` comes from a tmux pane whose Attend pane the user removed while
    /// its agent ran, and from that agent (`docs/tmux.md#removing`).
    pub(super) fn forgotten_in_tmux(&self, req: &HookRequest) -> bool {
        let Some(TerminalLocation::Tmux {
            pane,
            socket: Some(socket),
        }) = &req.terminal
        else {
            return false;
        };
        self.tmux
            .as_ref()
            .is_some_and(|f| f.forgotten(socket, pane, &req.pids))
    }
}

fn at_tmux(p: &crate::model::Pane, pane: &str, socket: &str) -> bool {
    p.tmux
        .as_ref()
        .is_some_and(|l| l.pane == pane && l.socket == socket)
}

/// True while process `pid` is a tmux server (`/proc/PID/comm` starts with `tmux`): a
/// seat of a server that ended is not taken by a pane of its successor on the same socket
/// (tmux numbers panes afresh).
pub(super) fn tmux_server_runs(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.starts_with("tmux"))
}
