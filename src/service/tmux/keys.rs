//! Typing into a followed tmux pane (`docs/tmux.md#answers`): the bytes an answer or
//! `attend send` writes become `tmux send-keys` commands
//! ([`crate::adapters::tmux::keys::send_keys_argv`]); never while the pane is in a mode
//! such as copy-mode (the keys would move tmux's cursor, not reach the agent).

use super::run::tmux;
use std::io;

/// Where a followed pane's typed bytes go: `tmux -S SOCKET send-keys -t %N …`.
pub struct TmuxKeys {
    pub socket: String,
    pub pane: String,
}

/// True when the tmux pane is in a mode (copy-mode, a chooser): nothing may be typed.
/// `None` when tmux could not be asked.
pub fn in_mode(socket: &str, pane: &str) -> Option<bool> {
    let out = tmux(
        socket,
        &["display-message", "-p", "-t", pane, "#{pane_in_mode}"],
    )?;
    Some(String::from_utf8_lossy(&out).trim() == "1")
}

impl io::Write for TmuxKeys {
    /// Types all of `buf` (one tmux run) or nothing. Errors: the pane is in a mode, or
    /// tmux refused (the pane or its server is gone).
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match in_mode(&self.socket, &self.pane) {
            Some(false) => {}
            Some(true) => {
                return Err(io::Error::other(format!(
                    "tmux pane {} is in copy-mode (or another mode): nothing was typed",
                    self.pane
                )))
            }
            None => return Err(io::Error::other("the tmux pane is gone")),
        }
        let argv = crate::adapters::tmux::keys::send_keys_argv(&self.pane, buf);
        let args: Vec<&str> = argv.iter().map(String::as_str).collect();
        if !args.is_empty() && tmux(&self.socket, &args).is_none() {
            return Err(io::Error::other("tmux refused the keys"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
