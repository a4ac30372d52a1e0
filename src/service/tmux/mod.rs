//! Following the user's tmux (`docs/tmux.md`, ADR `docs/decisions/0016-following-tmux.md`):
//! the daemon is a control-mode client (`tmux -C`) of every tmux server it knows — the
//! user's default socket (`$TMUX_TMPDIR/tmux-UID/default`, found by an inotify watch of
//! its directory), the one the daemon was started in, the sockets hooks name in their
//! `TMUX`, and `[tmux] sockets` — with one control client per session (control mode
//! sends `%output` only for the panes of the client's own session), kept current through
//! `%sessions-changed`. No polling: a format subscription on each pane's current
//! command tells when a program starts or ends in a pane; a server's end is its control
//! clients' exit.
//!
//! A pane whose process tree runs a known agent
//! ([`crate::adapters::tmux::panes::find_agent`]; every pane with `[tmux] panes = "all"`)
//! is followed: its screen is captured (`capture-pane -e`), a pipe is made for its
//! output, and the owner gets a [`Found`] ([`Command::TmuxFound`]) and makes it a pane
//! whose terminal is fed from that pipe (src/service/pty/followed.rs).
//!
//! Files: `server` (a server's sessions and followed panes), `client` (one control
//! client), `keys` (typing into a pane with `send-keys`), `looking` (focus, resize and
//! selecting a pane), `run` (one tmux command), `restart` (the panes followed before a
//! restart), `first_session` (a new server's first session awaited), [`found`] (what the
//! owner gets).

mod client;
mod first_session;
pub mod found;
mod keys;
mod looking;
mod restart;
mod run;
mod server;

pub use found::Found;
pub use keys::{mode, InMode, TmuxKeys};
pub use looking::select;

use crate::service::command::Command;
use crate::settings::Tmux;
use server::Shared;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use tokio::sync::mpsc;

/// The `TMUX` value the daemon was started with (its own server's socket is followed
/// too), taken out of its environment by [`take_own_env`].
static OWN_TMUX: OnceLock<Option<String>> = OnceLock::new();

/// Removes `TMUX` and `TMUX_PANE` from the daemon's environment, so that no pane Attend
/// runs carries them (its panes are not that tmux pane), and remembers the server.
/// Must run while the process is single-threaded (`set_var` races with `getenv`).
pub fn take_own_env() {
    let tmux = std::env::var("TMUX").ok();
    std::env::remove_var("TMUX");
    std::env::remove_var("TMUX_PANE");
    let _ = OWN_TMUX.set(tmux);
}

/// The socket of a `TMUX` value (`socket,pid,session`).
fn socket_of(tmux: &str) -> Option<String> {
    tmux.split(',')
        .next()
        .filter(|s| s.starts_with('/'))
        .map(str::to_string)
}

/// The user's default socket: `$TMUX_TMPDIR/tmux-UID/default` (`/tmp` without it).
fn default_socket() -> PathBuf {
    let dir = std::env::var_os("TMUX_TMPDIR")
        .filter(|d| !d.is_empty())
        .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
    dir.join(format!("tmux-{}", nix::unistd::getuid()))
        .join("default")
}

/// The follower of the user's tmux servers. Cheap to clone.
#[derive(Clone)]
pub struct Follower {
    shared: Arc<Shared>,
}

impl Follower {
    /// Starts following (`None` when `[tmux] follow = false`): the default socket (and
    /// its directory's watch), the daemon's own server, `[tmux] sockets`.
    pub fn start(tx: mpsc::Sender<Command>, settings: &Tmux) -> Option<Follower> {
        if !settings.follow {
            return None;
        }
        let f = Follower {
            shared: Arc::new(Shared {
                tx,
                panes: settings.panes,
                servers: Mutex::new(HashMap::new()),
            }),
        };
        let own = OWN_TMUX.get().cloned().flatten();
        for s in own
            .as_deref()
            .and_then(socket_of)
            .into_iter()
            .chain(settings.sockets.clone())
        {
            f.know(&s);
        }
        let default = default_socket();
        f.know(&default.to_string_lossy());
        // A configured server that ends and starts again is followed again, as the
        // default one is: their sockets' directories are watched too.
        let mut watched = vec![default];
        watched.extend(settings.sockets.iter().map(PathBuf::from));
        f.watch_dirs(watched);
        Some(f)
    }

    /// After a restart: the panes the previous daemon followed that still run in the
    /// store (`locations`) end when their tmux pane, its server or its agent ended
    /// meanwhile ([`Command::TmuxGone`]); the others are followed again as their
    /// servers' control clients find them (`docs/tmux.md#exit`).
    pub fn recheck(&self, locations: Vec<crate::model::TmuxLocation>) {
        for socket in locations.iter().map(|l| l.socket.clone()) {
            self.know(&socket);
        }
        restart::recheck(locations, self.shared.panes, self.shared.tx.clone());
    }

    /// Follows the server at `socket` unless already (a hook named it, or its socket
    /// appeared). Nothing happens when no server listens there.
    pub fn know(&self, socket: &str) {
        server::Server::know(&self.shared, socket);
    }

    /// The server followed at `socket` and the number of its tmux pane `pane` (`%N`), if
    /// both are known.
    fn server_pane(&self, socket: &str, pane: &str) -> Option<(Arc<server::Server>, u32)> {
        let number = pane.strip_prefix('%')?.parse().ok()?;
        let server = self
            .shared
            .servers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(socket)
            .cloned()?;
        Some((server, number))
    }

    /// Stops following the tmux pane at `location` whose Attend pane the user removed
    /// while its agent runs (`docs/tmux.md#removing`): its agent is not followed there
    /// again; another agent started in that tmux pane is. False when it was not followed.
    pub fn forget(&self, location: &crate::model::TmuxLocation) -> bool {
        self.server_pane(&location.socket, &location.pane)
            .is_some_and(|(server, pane)| server.forget(pane))
    }

    /// True when a hook from tmux pane `pane` (`%N`) of the server at `socket`, run under
    /// the processes `pids` (pid, start time), comes from an agent whose pane the user
    /// removed ([`Follower::forget`]): the hook is dropped.
    pub fn forgotten(&self, socket: &str, pane: &str, pids: &[(u32, u64)]) -> bool {
        self.server_pane(socket, pane)
            .is_some_and(|(server, pane)| server.forgotten(pane, pids))
    }

    /// Draws the followed tmux pane at `location` again from a capture (its screen got a
    /// new size, `docs/tmux.md#resize`). Blocking (tmux runs).
    pub fn redraw(&self, location: &crate::model::TmuxLocation) {
        if let Some((server, pane)) = self.server_pane(&location.socket, &location.pane) {
            server.redraw(pane);
        }
    }

    /// Watches the directories of `sockets` (the default socket's and `[tmux] sockets`;
    /// a directory's parent while it does not exist: no tmux ran there yet): a socket
    /// created there is a server to follow, also one that ended and started again.
    fn watch_dirs(&self, sockets: Vec<PathBuf>) {
        use notify::{RecursiveMode, Watcher};
        let mut dirs: Vec<PathBuf> = sockets
            .iter()
            .filter_map(|s| s.parent().map(PathBuf::from))
            .collect();
        dirs.sort();
        dirs.dedup();
        let (tx, rx) = std::sync::mpsc::channel();
        let mut watcher = match notify::recommended_watcher(tx) {
            Ok(w) => w,
            Err(e) => {
                tracing::warn!("cannot watch for tmux servers: {e}");
                return;
            }
        };
        // The directories not watched yet: their parents are, until they appear.
        let mut waiting: Vec<PathBuf> = Vec::new();
        for dir in dirs {
            if watcher.watch(&dir, RecursiveMode::NonRecursive).is_err() {
                if let Some(parent) = dir.parent() {
                    let _ = watcher.watch(parent, RecursiveMode::NonRecursive);
                }
                waiting.push(dir);
            }
        }
        let me = self.clone();
        let spawned = std::thread::Builder::new()
            .name("tmux-watch".into())
            .spawn(move || {
                // The thread owns the watch for the life of the daemon.
                while let Ok(_event) = rx.recv() {
                    waiting.retain(|dir| watcher.watch(dir, RecursiveMode::NonRecursive).is_err());
                    for socket in &sockets {
                        me.know(&socket.to_string_lossy());
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot watch for tmux servers: {e}");
        }
    }
}
