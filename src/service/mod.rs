//! The session service (`attend daemon`): PTY host, SQLite store, D-Bus interface and the
//! desktop surfaces. Its folders are the stages of the data's way
//! (`docs/architecture.md`; module rules: `docs/decisions/0006-module-graph.md`):
//!
//! 1. [`bus`] — the D-Bus surface: the `io.github.attend.Attend1` object, argument checks,
//!    the hook intake, routing of pane actions to the owner or a remote, the wire
//!    dictionaries. Methods only check and enqueue a [`command::Command`].
//! 2. `owner` (started by [`daemon`] only) — the one task that applies commands and PTY
//!    events in batches to the world of per-pane machines, commits once per batch and only
//!    then replies and emits signals.
//! 3. [`evidence`] — the sources the owner feeds to each pane's machine beside hooks: the
//!    ladder host (self-report, screen chrome, window sampling, timers) and git facts.
//! 4. [`pty`] — the panes' terminals: holders that keep the programs, one reactor and a
//!    parser pool that read them, the attach server.
//! 5. [`store`] — what survives the process: SQLite ([`store::db`]), the hook spool and its
//!    replay at start.
//! 6. [`processes`] — the processes around the panes: `/proc`, pidfd watches of external
//!    agents, systemd scopes, the descriptor limit, handing over from a running daemon.
//! 7. [`remotes`] — links to the daemons of other machines and `attend bridge`, their far
//!    end.
//! 8. [`surfaces`] — notifications, the tray, sounds and away pushes, fed by the owner's
//!    commits.
//!
//! 9. [`tmux`] — following the user's tmux: control clients whose panes' output feeds
//!    followed panes like a PTY's (`docs/tmux.md`).
//!
//! [`command`] is the channel into the owner (one `ask`); the clock, the state lock and
//! the private files are shared with the clients (`crate::system`), as is `config.toml`
//! (`crate::settings`).

pub mod bus;
pub mod command;
pub mod daemon;
pub mod evidence;
mod owner;
pub mod processes;
pub mod pty;
pub mod remotes;
pub mod store;
pub mod surfaces;
pub mod tmux;
