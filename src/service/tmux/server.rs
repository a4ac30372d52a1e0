//! One tmux server: its sessions' control clients and the panes followed in it.

use super::client::{self, Handler};
use super::first_session;
use super::run::tmux;
use crate::adapters::tmux::panes::{find_agent, ProcInfo};
use crate::model::{AgentKind, TmuxLocation};
use crate::service::command::Command;
use crate::service::processes::procfs;
use crate::settings::TmuxPanes;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Write;
use std::process::{Command as Process, Stdio};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::mpsc;

/// State shared by the servers' threads.
pub(super) struct Shared {
    pub(super) tx: mpsc::Sender<Command>,
    pub(super) panes: TmuxPanes,
    /// The servers followed, by socket path.
    pub(super) servers: Mutex<HashMap<String, Arc<Server>>>,
}

/// How long after a followed server ended its socket's path is looked at again
/// ([`Server::look_again`]): one look, not a poll; long enough that a socket still being
/// removed by the ending server is gone.
pub(super) const LOOK_AGAIN_AFTER: std::time::Duration = std::time::Duration::from_millis(100);

/// A pane followed: where its output goes and which process it follows.
pub(super) struct Followed {
    /// The write end of the pane's output pipe.
    pipe: File,
    /// The agent's process (pid, start time).
    agent: (u32, u64),
    /// The session whose control client writes it (a window linked into two sessions
    /// sends its output to both).
    session: String,
    /// Where it is (the owner's key for the pane: [`Command::TmuxGone`]).
    location: TmuxLocation,
    /// Its size (rows, cols) as last told to the owner ([`Command::TmuxResized`]).
    size: (u16, u16),
}

/// A server followed.
pub(super) struct Server {
    pub(super) socket: String,
    shared: Arc<Shared>,
    state: Mutex<State>,
    /// Held for the whole of a [`Server::check`]: two checks of one pane at once (a
    /// client's first look and a subscription's change, 7 ms apart in a CI run) both saw
    /// it unfollowed and followed it twice — two pipes, the owner reading only the first,
    /// so the pane's output went nowhere and its screen stayed as it was.
    checks: Mutex<()>,
}

#[derive(Default)]
struct State {
    /// Sessions (`$N`) with a running control client.
    sessions: HashSet<String>,
    /// Panes followed, by tmux pane number.
    followed: HashMap<u32, Followed>,
    /// Set once no session is left: the server ended (or never answered).
    dead: bool,
    /// Panes the user removed from Attend while their agent ran (`attend rm`), with that
    /// agent's process (pid, start time): not followed again until another agent starts
    /// there ([`Server::forget`]).
    forgotten: HashMap<u32, (u32, u64)>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Server {
    pub(super) fn new(socket: String, shared: Arc<Shared>) -> Arc<Server> {
        Arc::new(Server {
            socket,
            shared,
            state: Mutex::new(State::default()),
            checks: Mutex::new(()),
        })
    }

    /// False once the server ended.
    pub(super) fn alive(&self) -> bool {
        !lock(&self.state).dead
    }

    /// Starts a control client for each session. A server found as its socket appears
    /// (`tmux new-session` binds the socket before it makes the session) may have no
    /// session yet: a thread of its own (no caller waits) asks for one with plain clients
    /// ([`first_session::wait`]; never a control client before the first session: tmux
    /// 3.3a crashes), for up to [`first_session::FIRST_SESSION_WAIT`]; still none, it
    /// counts as ended, so that the next sign of it (a socket event, a hook) follows it
    /// afresh.
    pub(super) fn start(self: &Arc<Self>) {
        self.sessions_changed();
        if !lock(&self.state).sessions.is_empty() {
            return;
        }
        let me = self.clone();
        let spawned = std::thread::Builder::new()
            .name("tmux-start".into())
            .spawn(move || {
                let found = first_session::wait(first_session::FIRST_SESSION_WAIT, || {
                    me.list_sessions();
                    !lock(&me.state).sessions.is_empty()
                });
                if !found {
                    lock(&me.state).dead = true;
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(socket = %self.socket, "cannot wait for the tmux server's first session: {e}");
            lock(&self.state).dead = true;
        }
    }

    /// `%sessions-changed` (or the start): a control client for every session that has
    /// none yet.
    pub(super) fn sessions_changed(self: &Arc<Self>) {
        self.list_sessions();
    }

    /// Lists the sessions and starts the missing clients.
    fn list_sessions(self: &Arc<Self>) {
        let Some(out) = tmux(&self.socket, &["list-sessions", "-F", "#{session_id}"]) else {
            let mut st = lock(&self.state);
            if st.sessions.is_empty() {
                st.dead = true;
            }
            return;
        };
        let ids: Vec<String> = String::from_utf8_lossy(&out)
            .lines()
            .map(str::to_string)
            .filter(|l| l.starts_with('$'))
            .collect();
        if !ids.is_empty() {
            lock(&self.state).dead = false;
        }
        for id in ids {
            if !lock(&self.state).sessions.insert(id.clone()) {
                continue;
            }
            let me = self.clone();
            let spawned = std::thread::Builder::new()
                .name("tmux-control".into())
                .spawn(move || {
                    client::run(&me.socket, &id, &me);
                    me.client_ended(&id);
                });
            if let Err(e) = spawned {
                tracing::warn!(socket = %self.socket, "cannot start a tmux control client: {e}");
            }
        }
    }

    /// A control client ended (its session or the server ended): the panes it followed
    /// that are gone (killed with the session's last window, or with the server) end
    /// ([`Server::panes_changed`]); the others are no longer followed.
    fn client_ended(&self, session: &str) {
        self.panes_changed();
        let mut st = lock(&self.state);
        st.sessions.remove(session);
        st.followed.retain(|_, f| f.session != session);
        if st.sessions.is_empty() {
            st.dead = true;
            tracing::info!(socket = %self.socket, "tmux server no longer followed (it ended)");
            drop(st);
            self.look_again();
        }
    }

    /// After this server ended: a socket at its path is another server's — one started
    /// while this one was still ending (`kill-server`, then at once `new-session`): its
    /// socket event came while this one still counted as followed, so nothing followed it
    /// (`docs/tmux.md#what-is-followed`). Looked at once, [`LOOK_AGAIN_AFTER`] later, on a
    /// thread of its own.
    fn look_again(&self) {
        if !std::path::Path::new(&self.socket).exists() {
            return;
        }
        let shared = self.shared.clone();
        let socket = self.socket.clone();
        let spawned = std::thread::Builder::new()
            .name("tmux-look-again".into())
            .spawn(move || {
                std::thread::sleep(LOOK_AGAIN_AFTER);
                Server::know(&shared, &socket);
            });
        if let Err(e) = spawned {
            tracing::warn!(socket = %self.socket, "cannot look for a new tmux server: {e}");
        }
    }

    /// Follows the server at `socket` unless it is followed already (a hook named it, or
    /// its socket appeared). Nothing happens when no socket is there.
    pub(super) fn know(shared: &Arc<Shared>, socket: &str) {
        if !std::path::Path::new(socket).exists() {
            return;
        }
        let mut servers = lock(&shared.servers);
        if servers.get(socket).is_some_and(|s| s.alive()) {
            return;
        }
        let server = Server::new(socket.to_string(), shared.clone());
        servers.insert(socket.to_string(), server.clone());
        drop(servers);
        server.start();
    }

    /// Panes may have gone (`%layout-change`, `%window-close`, `%unlinked-window-close`,
    /// a client's end): every followed pane the server no longer lists — all of them when
    /// the server does not answer (it ended) — stops being followed and the owner is told
    /// ([`Command::TmuxGone`]): its Attend pane ends even when its agent outlives the
    /// tmux pane (`docs/tmux.md#exit`).
    pub(super) fn panes_changed(&self) {
        if lock(&self.state).followed.is_empty() {
            return;
        }
        let listed = tmux(&self.socket, &["list-panes", "-a", "-F", "#{pane_id}"]);
        let alive: HashSet<u32> = listed
            .as_deref()
            .map(String::from_utf8_lossy)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().strip_prefix('%')?.parse().ok())
            .collect();
        let mut gone = Vec::new();
        lock(&self.state).followed.retain(|pane, f| {
            let keep = alive.contains(pane);
            if !keep {
                gone.push(f.location.clone());
            }
            keep
        });
        for location in gone {
            tracing::info!(socket = %self.socket, pane = %location.pane, "a followed tmux pane is gone");
            if self
                .shared
                .tx
                .blocking_send(Command::TmuxGone(location))
                .is_err()
            {
                return; // The daemon is stopping.
            }
        }
    }

    /// Output of pane `pane` seen by the control client of `session`: written to the
    /// pane's pipe when it is followed (a pipe whose reader went, the agent ended, stops
    /// the following).
    pub(super) fn output(&self, session: &str, pane: u32, bytes: &[u8]) {
        let mut st = lock(&self.state);
        let Some(f) = st.followed.get_mut(&pane).filter(|f| f.session == session) else {
            return;
        };
        if f.pipe.write_all(bytes).is_err() {
            st.followed.remove(&pane);
        }
    }

    /// Pane `pane` was paused and continued: its screen is drawn again from a capture.
    pub(super) fn reseed(&self, session: &str, pane: u32) {
        if !lock(&self.state).followed.contains_key(&pane) {
            return;
        }
        let target = format!("%{pane}");
        let Some(info) = tmux(
            &self.socket,
            &[
                "display-message",
                "-p",
                "-t",
                &target,
                "#{cursor_x} #{cursor_y} #{alternate_on}",
            ],
        ) else {
            return;
        };
        let info = String::from_utf8_lossy(&info).to_string();
        let f: Vec<u16> = info
            .split_whitespace()
            .map(|w| w.parse().unwrap_or(0))
            .collect();
        let captured =
            tmux(&self.socket, &["capture-pane", "-p", "-e", "-t", &target]).unwrap_or_default();
        let (x, y, alt) = (
            f.first().copied().unwrap_or(0),
            f.get(1).copied().unwrap_or(0),
            f.get(2) == Some(&1),
        );
        let seed = crate::adapters::tmux::panes::seed(&captured, (x, y), alt);
        self.output(session, pane, &seed);
    }

    /// The program in pane `pane` (whose own process is `shell`) changed: follows it
    /// when it runs a known agent (any pane with `panes = "all"`) and is not followed yet.
    pub(super) fn check(&self, session: &str, pane: u32, shell: u32) {
        let _one_at_a_time = lock(&self.checks);
        {
            let mut st = lock(&self.state);
            if let Some(f) = st.followed.get(&pane) {
                if procfs::alive(f.agent) {
                    return;
                }
                st.followed.remove(&pane);
            }
        }
        let Some((agent, pid)) = agent_in(shell, self.shared.panes) else {
            return;
        };
        let Some(start) = procfs::living_start(pid) else {
            return;
        };
        {
            let mut st = lock(&self.state);
            if st.forgotten.get(&pane) == Some(&(pid, start)) {
                return;
            }
            st.forgotten.remove(&pane);
        }
        if let Err(e) = self.follow(session, pane, agent, (pid, start)) {
            tracing::warn!(socket = %self.socket, pane, "cannot follow the tmux pane: {e}");
        }
    }

    /// Starts following pane `pane`: its place, size and screen, a pipe, the owner told.
    fn follow(
        &self,
        session: &str,
        pane: u32,
        agent: AgentKind,
        proc: (u32, u64),
    ) -> std::io::Result<()> {
        let target = format!("%{pane}");
        let format = "#{pane_width}\t#{pane_height}\t#{cursor_x}\t#{cursor_y}\t#{alternate_on}\t\
                      #{pid}\t#{socket_path}\t#{session_name}:#{window_index}.#{pane_index}\t\
                      #{pane_current_path}";
        let info = tmux(
            &self.socket,
            &["display-message", "-p", "-t", &target, format],
        )
        .ok_or_else(|| std::io::Error::other("the pane is gone"))?;
        let info = String::from_utf8_lossy(&info)
            .trim_end_matches('\n')
            .to_string();
        let f: Vec<&str> = info.splitn(9, '\t').collect();
        if f.len() < 9 {
            return Err(std::io::Error::other(format!(
                "unexpected pane facts {info:?}"
            )));
        }
        let num = |s: &str| s.parse::<u16>().unwrap_or(0);
        let (cols, rows) = (num(f[0]), num(f[1]));
        let cursor = (num(f[2]), num(f[3]));
        let captured =
            tmux(&self.socket, &["capture-pane", "-p", "-e", "-t", &target]).unwrap_or_default();
        let seed = crate::adapters::tmux::panes::seed(&captured, cursor, f[4] == "1");
        let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
        let cwd = (!f[8].is_empty()).then(|| f[8].to_string());
        let workspace = cwd.as_deref().map(toplevel).unwrap_or_default();
        let location = TmuxLocation {
            socket: f[6].to_string(),
            server_pid: f[5].parse().unwrap_or(0),
            pane: target,
            place: f[7].to_string(),
        };
        let found = super::found::Found {
            location: location.clone(),
            agent,
            agent_pid: proc.0,
            cwd,
            workspace,
            size: (rows, cols),
            seed,
            output: read,
        };
        lock(&self.state).followed.insert(
            pane,
            Followed {
                pipe: File::from(write),
                agent: proc,
                session: session.to_string(),
                location,
                size: (rows, cols),
            },
        );
        tracing::info!(socket = %self.socket, pane, agent = %agent, pid = proc.0, "following a tmux pane");
        let cmd = Command::TmuxFound(Box::new(found));
        self.shared
            .tx
            .blocking_send(cmd)
            .map_err(|_| std::io::Error::other("the daemon is stopping"))?;
        // The user may be looking at it already (an agent started where they type).
        self.focus_changed();
        Ok(())
    }

    /// Sends `cmd` to the owner; false when the daemon is stopping.
    pub(super) fn send(&self, cmd: Command) -> bool {
        self.shared.tx.blocking_send(cmd).is_ok()
    }

    /// The followed panes: number, location, the session whose client writes it, size.
    pub(super) fn followed(&self) -> Vec<(u32, TmuxLocation, String, (u16, u16))> {
        lock(&self.state)
            .followed
            .iter()
            .map(|(n, f)| (*n, f.location.clone(), f.session.clone(), f.size))
            .collect()
    }

    /// The user removed followed pane `pane` from Attend while its agent runs (`attend
    /// rm`, `docs/tmux.md#removing`): it is no longer followed (its pipe closes) and that
    /// agent's process is not followed there again; another agent started in the tmux
    /// pane is. False when the pane was not followed.
    pub(super) fn forget(&self, pane: u32) -> bool {
        let mut st = lock(&self.state);
        let Some(f) = st.followed.remove(&pane) else {
            return false;
        };
        st.forgotten.insert(pane, f.agent);
        true
    }

    /// True when tmux pane `pane` was forgotten ([`Server::forget`]) and one of `pids`
    /// (pid, start time) is its agent's process: a hook of the forgotten agent.
    pub(super) fn forgotten(&self, pane: u32, pids: &[(u32, u64)]) -> bool {
        lock(&self.state)
            .forgotten
            .get(&pane)
            .is_some_and(|agent| pids.contains(agent))
    }

    /// Records pane `pane`'s new size (rows, cols); false when it is not followed or
    /// already has that size.
    pub(super) fn set_size(&self, pane: u32, size: (u16, u16)) -> bool {
        let mut st = lock(&self.state);
        match st.followed.get_mut(&pane) {
            Some(f) if f.size != size => {
                f.size = size;
                true
            }
            _ => false,
        }
    }
}

impl Handler for Arc<Server> {
    fn output(&self, session: &str, pane: u32, bytes: &[u8]) {
        Server::output(self, session, pane, bytes);
    }

    fn check(&self, session: &str, pane: u32, shell: u32) {
        Server::check(self, session, pane, shell);
    }

    fn reseed(&self, session: &str, pane: u32) {
        Server::reseed(self, session, pane);
    }

    fn sessions_changed(&self) {
        self.list_sessions();
    }

    fn panes_changed(&self) {
        Server::panes_changed(self);
    }

    fn resized(&self, sizes: &[crate::adapters::tmux::layout::PaneSize]) {
        Server::resized(self, sizes);
    }

    fn focus_changed(&self) {
        Server::focus_changed(self);
    }
}

/// The agent a tmux pane whose own process is `shell` runs, and its pid
/// ([`find_agent`] on the pane's process tree); the shell itself with `panes = "all"`;
/// `None` for a pane that runs no known agent. The daemon's own process and its
/// descendants are not the pane's (a daemon started inside tmux: the panes it runs are
/// its own, never a tmux pane's, `docs/tmux.md#configuration`).
pub(super) fn agent_in(shell: u32, panes: TmuxPanes) -> Option<(AgentKind, u32)> {
    let tree: Vec<ProcInfo> = procfs::tree_except(shell, std::process::id())
        .into_iter()
        .map(|pid| ProcInfo {
            pid,
            names: procfs::names(pid),
            argv: cmdline(pid),
        })
        .collect();
    find_agent(&tree).or_else(|| (panes == TmuxPanes::All).then_some((AgentKind::Shell, shell)))
}

/// The argv of `pid` (`/proc/PID/cmdline`); empty when unreadable.
fn cmdline(pid: u32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| {
            b.split(|c| *c == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The git top level of `cwd`, else `cwd` (`docs/lifecycle-attention.md#workspace-key`).
fn toplevel(cwd: &str) -> String {
    Process::new("git")
        .args(["-C", cwd, "rev-parse", "--show-toplevel"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| cwd.to_string())
}
