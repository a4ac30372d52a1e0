//! The processes around the panes: reading `/proc` ([`procfs`]: an agent's process, its
//! start time, its children), watching external agents' processes by pidfd
//! ([`procwatch`]), a systemd scope per pane holder ([`scope`]), the descriptor limit the
//! panes need ([`fd_limit`]), and taking a state directory over from a running daemon
//! without ending its agents ([`handover`]).

pub mod fd_limit;
pub mod handover;
pub mod procfs;
pub mod procwatch;
pub mod scope;
