//! Panes followed in the user's tmux (`docs/tmux.md`): a found tmux pane becomes an
//! Attend pane (or joins the one its hooks already made, or the one it was before a
//! restart), whose terminal is fed from the control client (src/service/pty/followed.rs);
//! a hook carrying the same `TMUX` socket and `TMUX_PANE` joins it.

use super::{Batch, Owner};
use crate::engine::NewPane;
use crate::model::PaneId;
use crate::service::command::HookRequest;
use crate::service::pty::{Followed, PtyHandle};
use crate::service::surfaces::terminal_location::TerminalLocation;
use crate::service::tmux::{Found, TmuxKeys};
use crate::system::clock::now;

impl Owner {
    /// A tmux pane to follow: the running pane it already is (same server and pane: a
    /// daemon restart), else the running pane its agent's hooks made, else a new pane;
    /// then its terminal is followed and its agent's process made known.
    pub(super) fn tmux_found(&mut self, found: Found, batch: &mut Batch) {
        let at = now();
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
        let id = match same.or_else(by_hooks) {
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

    /// The followed tmux pane a hook is about: the one at the `TMUX` socket and
    /// `TMUX_PANE` of its environment, else the one whose agent process is among its
    /// ancestors. A hook naming a tmux server also makes it followed.
    pub(super) fn tmux_pane_of_hook(&self, req: &HookRequest) -> Option<PaneId> {
        let named = match &req.terminal {
            Some(TerminalLocation::Tmux { pane, socket }) => {
                if let (Some(f), Some(s)) = (&self.tmux, socket) {
                    f.know(s);
                }
                Some((pane, socket))
            }
            _ => None,
        };
        let running = || self.world.panes().values().filter(|p| p.live.is_running());
        if let Some((pane, Some(socket))) = named {
            let hit = running().find(|p| {
                p.tmux
                    .as_ref()
                    .is_some_and(|l| &l.pane == pane && &l.socket == socket)
            });
            if let Some(p) = hit {
                return Some(p.id);
            }
        }
        let ptys = self.ptys.lock();
        running()
            .filter(|p| p.tmux.is_some())
            .find(|p| {
                ptys.get(&p.id)
                    .and_then(|h| h.pid())
                    .is_some_and(|pid| req.pids.iter().any(|(a, _)| *a == pid))
            })
            .map(|p| p.id)
    }
}
