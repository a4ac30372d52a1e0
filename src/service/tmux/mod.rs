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
//! client), `keys` (typing into a pane with `send-keys`), `run` (one tmux command),
//! [`found`] (what the owner gets).

mod client;
pub mod found;
mod keys;
mod run;
mod server;

pub use found::Found;
pub use keys::{in_mode, TmuxKeys};

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
        f.watch_dir(default);
        Some(f)
    }

    /// Follows the server at `socket` unless already (a hook named it, or its socket
    /// appeared). Nothing happens when no server listens there.
    pub fn know(&self, socket: &str) {
        if !std::path::Path::new(socket).exists() {
            return;
        }
        let mut servers = self
            .shared
            .servers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if servers.get(socket).is_some_and(|s| s.alive()) {
            return;
        }
        let server = server::Server::new(socket.to_string(), self.shared.clone());
        servers.insert(socket.to_string(), server.clone());
        drop(servers);
        server.start();
    }

    /// Watches the default socket's directory (and its parent while the directory does
    /// not exist: no tmux ran yet): a socket created there is a server to follow.
    fn watch_dir(&self, default: PathBuf) {
        use notify::{RecursiveMode, Watcher};
        let Some(dir) = default.parent().map(PathBuf::from) else {
            return;
        };
        let (tx, rx) = std::sync::mpsc::channel();
        let mut watcher = match notify::recommended_watcher(tx) {
            Ok(w) => w,
            Err(e) => {
                tracing::warn!("cannot watch for tmux servers: {e}");
                return;
            }
        };
        let mut watching = watcher.watch(&dir, RecursiveMode::NonRecursive).is_ok();
        if !watching {
            if let Some(parent) = dir.parent() {
                let _ = watcher.watch(parent, RecursiveMode::NonRecursive);
            }
        }
        let me = self.clone();
        let spawned = std::thread::Builder::new()
            .name("tmux-watch".into())
            .spawn(move || {
                // The thread owns the watch for the life of the daemon.
                while let Ok(_event) = rx.recv() {
                    if !watching {
                        watching = watcher.watch(&dir, RecursiveMode::NonRecursive).is_ok();
                    }
                    me.know(&default.to_string_lossy());
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot watch for tmux servers: {e}");
        }
    }
}
