//! What the follower hands the owner for a tmux pane to follow.

use crate::model::{AgentKind, TmuxLocation};
use std::os::fd::OwnedFd;

/// A tmux pane to follow, for the owner ([`Command::TmuxFound`]).
#[derive(Debug)]
pub struct Found {
    pub location: TmuxLocation,
    pub agent: AgentKind,
    /// The agent's process (the pane's shell with `panes = "all"` and no agent).
    pub agent_pid: u32,
    /// The pane's working directory (`#{pane_current_path}`).
    pub cwd: Option<String>,
    /// The git top level of `cwd`, else `cwd` (the new pane's workspace).
    pub workspace: String,
    /// The pane's size (rows, cols).
    pub size: (u16, u16),
    /// Bytes that draw its screen as captured ([`crate::adapters::tmux::panes::seed`]).
    pub seed: Vec<u8>,
    /// The read end of the pipe its output is written into.
    pub output: OwnedFd,
}
