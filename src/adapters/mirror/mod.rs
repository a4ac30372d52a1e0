//! The mirror of a remote host's panes: what another machine's Attend daemon shows here,
//! as pure decisions (no I/O, no clock: the daemon's shell holds the connection and
//! passes the time in). The rules: `docs/remote.md#how-remote-panes-are-mirrored`; pane
//! ids `NAME:pN`: docs/decisions/0013-pane-ids-across-hosts.md.
//!
//! - [`vocab`]: remote values read with the local vocabulary (unknown ones raw and
//!   degraded) and every remote string cleaned and bounded;
//! - [`MirroredPane`]: one remote pane here;
//! - [`HostMirror`]: one host's panes, last seq and link, and the [`Effect`]s its inputs
//!   ask of the shell (catch up, stamp, notify, withdraw);
//! - [`route`], [`tray_attention`], [`next_order`]: where an action goes, what the tray
//!   and `next` count;
//! - [`remote_workspaces`]: the remote hosts' workspaces, summed up by the engine.

mod host;
#[cfg(test)]
mod host_tests;
mod pane;
mod route;
pub mod vocab;
mod workspaces;

pub use host::{
    seq_step, Effect, HostMirror, Link, NotifyRules, Origin, RemoteEvent, SeqStep, MAX_KIND,
};
pub use pane::{MirroredDecision, MirroredPane, Touch, WorkspaceRef};
pub use route::{
    local_next_key, next_key, next_order, route, tray_attention, NextKey, PaneAction, Refusal,
    Route,
};
pub use vocab::Vocab;
pub use workspaces::{remote_workspaces, RemoteWorkspace};
