//! What survives the daemon: the SQLite file ([`db`]: panes, decisions, the append-only
//! event log, remote seqs; WAL, one commit per owner batch), the hook spool the hook
//! executable writes while the daemon is down ([`spool`]), and its replay into the owner
//! at start ([`replay`]).

pub mod db;
pub mod replay;
pub mod spool;
