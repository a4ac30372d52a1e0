//! Typing into a followed tmux pane (`docs/tmux.md#answers`): the bytes an answer or
//! `attend send` writes become `tmux send-keys` commands
//! ([`crate::adapters::tmux::keys::send_keys_runs`]: a long text in several command lines); never while the pane is in a mode
//! such as copy-mode (the keys would move tmux's cursor, not reach the agent): that
//! refusal is an [`InMode`] error, which the caller gets as the named error `PaneInMode`.

use super::run::tmux;
use std::fmt;
use std::io;

/// Where a followed pane's typed bytes go: `tmux -S SOCKET send-keys -t %N …`.
pub struct TmuxKeys {
    pub socket: String,
    pub pane: String,
}

/// The tmux mode pane `pane` (`%N`) of the server at `socket` is in: `Some(Some(name))`
/// (`#{pane_mode}`: `copy-mode`, `tree-mode`, `view-mode`, …) while `#{pane_in_mode}` is
/// set, `Some(None)` in no mode; `None` when tmux could not be asked (the pane or its
/// server is gone).
pub fn mode(socket: &str, pane: &str) -> Option<Option<String>> {
    let out = tmux(
        socket,
        &[
            "display-message",
            "-p",
            "-t",
            pane,
            "#{pane_in_mode} #{pane_mode}",
        ],
    )?;
    let out = String::from_utf8_lossy(&out);
    let mut words = out.split_whitespace();
    Some(match words.next() {
        Some("0") | None => None,
        Some(_) => Some(words.next().unwrap_or("a mode").to_string()),
    })
}

/// Why nothing was typed: the tmux pane `pane` is in the mode `mode` (the error inside
/// the [`io::Error`] of [`TmuxKeys`]'s `write`; [`InMode::of`] finds it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InMode {
    /// The tmux pane, `%N`.
    pub pane: String,
    /// The mode's name (`#{pane_mode}`).
    pub mode: String,
}

impl InMode {
    /// The [`InMode`] inside `e`, if that is why it failed.
    pub fn of(e: &io::Error) -> Option<&InMode> {
        e.get_ref()?.downcast_ref()
    }
}

impl fmt::Display for InMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tmux pane {} is in {}: nothing was typed (the keys would go to tmux, not to the \
             agent); leave the mode (q in copy-mode) and try again",
            self.pane, self.mode
        )
    }
}

impl std::error::Error for InMode {}

impl io::Write for TmuxKeys {
    /// Types all of `buf` (one tmux command line, or several in order for a long text:
    /// one refused after the first leaves the earlier ones typed, and the error says so).
    /// Errors: the pane is in a mode (an [`InMode`] inside), or tmux refused (the pane or
    /// its server is gone).
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match mode(&self.socket, &self.pane) {
            Some(None) => {}
            Some(Some(mode)) => {
                return Err(io::Error::other(InMode {
                    pane: self.pane.clone(),
                    mode,
                }))
            }
            None => return Err(io::Error::other("the tmux pane is gone")),
        }
        let runs = crate::adapters::tmux::keys::send_keys_runs(&self.pane, buf);
        for (n, argv) in runs.iter().enumerate() {
            let args: Vec<&str> = argv.iter().map(String::as_str).collect();
            if tmux(&self.socket, &args).is_none() {
                return Err(io::Error::other(if n == 0 {
                    "tmux refused the keys".to_string()
                } else {
                    format!(
                        "tmux refused the keys after {n} of {} command lines were typed",
                        runs.len()
                    )
                }));
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
