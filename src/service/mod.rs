//! The session service (`attend daemon`): PTY host, SQLite store, D-Bus interface.

pub mod args;
pub mod attach;
pub mod chrome;
pub mod clock;
pub mod command;
pub mod daemon;
pub mod db;
pub mod dbus;
pub mod error;
pub mod git;
pub mod intake;
pub mod ladder_host;
pub mod owner;
pub mod procfs;
pub mod procwatch;
pub mod pty;
pub mod replay;
pub mod sampling;
pub mod selfreport;
pub mod spool;
pub mod surfaces;
pub mod wire;
