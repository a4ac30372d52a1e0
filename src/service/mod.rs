//! The session service (`attend daemon`): PTY host, SQLite store, D-Bus interface.

pub mod attach;
pub mod command;
pub mod daemon;
pub mod db;
pub mod dbus;
pub mod git;
pub mod owner;
pub mod paths;
pub mod pty;
pub mod spool;
pub mod wire;
