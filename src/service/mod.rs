//! The session service (`attend daemon`): PTY host, SQLite store, D-Bus interface.
//!
//! The data path of a hook, top to bottom (the module rules:
//! `docs/decisions/0006-module-graph.md`):
//!
//! 1. [`dbus`] receives `Hook` (or [`replay`] reads it from the spool, [`spool`]); it only
//!    checks the arguments ([`args`], [`intake`]) and sends a [`command::Command`] to the
//!    owner with one [`command::ask`], answering with [`error::Attend1Error`] on failure.
//! 2. The owner task (`owner`, started by [`daemon`] only) applies commands and PTY
//!    events in batches, hooks and user commands first (`owner/hooks.rs`: intake and a
//!    session's first sight, whose git lookup, [`git`], runs off the owner task), feeds
//!    the evidence ladder ([`ladder_host`]: self-report [`selfreport`], screen chrome
//!    [`chrome`], window sampling [`sampling`]), commits once per batch ([`db`]) and only
//!    then replies and emits signals ([`wire`] builds the dictionaries).
//! 3. The desktop surfaces ([`surfaces`]: notifications, tray, the snapshot they share)
//!    follow the owner's signals; [`attach`] serves attached terminals; [`pty`] runs the
//!    programs (an agent with hooks of its own on its command line, [`pane_hooks`]), [`procwatch`]/[`procfs`] read `/proc`, [`clock`] is the one clock;
//!    [`state_lock`] makes one daemon the owner of a state directory and [`private`] keeps
//!    its files closed to other users; [`private_bus`] is the session bus `attend up`
//!    starts where there is none; [`fd_limit`] gives the daemon the descriptors its
//!    panes need.
//! 4. Removing panes: [`removal`] drives the owner's steps (a kill first, bounded), for
//!    D-Bus, the panel and the tray alike.
//! 5. [`settings`] reads the user's `config.toml` once at start-up (notification levels,
//!    sound, the automatic removal's age, the remotes), entry by entry.
//! 6. Other machines (`docs/decisions/0014-remote-link.md`): [`remotes`] keeps a link to
//!    each remote daemon (ssh or a `via` carrier); [`bridge`] is `attend bridge --stdio`,
//!    the remote end of such a link; [`routed`] sends the actions that name a pane
//!    (`pN` or `NAME:pN`) to the owner or over a link, and ends a focus whose bus client
//!    left.

pub mod args;
pub mod attach;
pub mod bridge;
pub mod chrome;
pub mod clock;
pub mod command;
pub mod daemon;
pub mod db;
pub mod dbus;
pub mod error;
pub mod fd_limit;
pub mod git;
pub mod holders;
pub mod intake;
pub mod ladder_host;
pub mod owner;
pub mod pane_hooks;
pub mod private;
pub mod private_bus;
pub mod procfs;
pub mod procwatch;
pub mod pty;
pub mod remotes;
pub mod removal;
pub mod replace;
pub mod replay;
pub mod routed;
pub mod sampling;
pub mod scope;
pub mod selfreport;
pub mod settings;
pub mod spool;
pub mod state_lock;
pub mod surfaces;
pub mod wire;
