//! The D-Bus surface of the daemon (`docs/dbus-api.md`): the one object
//! `io.github.attend.Attend1` ([`interface`]), which only checks its arguments ([`args`],
//! [`intake`] for hooks) and enqueues a command for the owner; errors on the wire
//! ([`error`]); the actions that name a pane, sent to the owner or over a remote link
//! ([`routed`]); removing panes, the one path of D-Bus, the panel and the tray
//! ([`removal`]); and the dictionaries the signals and replies carry (`crate::client::wire`).

pub mod args;
pub mod error;
pub mod intake;
pub mod interface;
pub mod removal;
pub mod routed;
