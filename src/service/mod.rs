//! The session service (`attend daemon`): PTY host, SQLite store, D-Bus interface.

pub mod attach;
pub mod db;
pub mod paths;
pub mod pty;
pub mod spool;
