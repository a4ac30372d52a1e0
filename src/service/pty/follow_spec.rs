//! What following a tmux pane takes (src/service/pty/followed.rs).

use std::io;
use std::os::fd::OwnedFd;

/// What a followed pane's handle is made of.
pub struct Followed {
    /// The read end of the pipe the control client writes the pane's output into.
    pub output: OwnedFd,
    /// The agent's process (its exit is the pane's).
    pub agent_pid: u32,
    /// The tmux pane's size (rows, cols).
    pub size: (u16, u16),
    /// Bytes that draw the pane's screen as it was when following began (fed first).
    pub seed: Vec<u8>,
    /// Where typed bytes go (`tmux send-keys`).
    pub keys: Box<dyn io::Write + Send>,
}
