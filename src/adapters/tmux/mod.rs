//! tmux, as Attend follows the user's own panes (`docs/tmux.md`,
//! `docs/decisions/0016-following-tmux.md`): pure parsing and building only, no I/O.
//!
//! - [`control`]: the control-mode protocol (`tmux -C`): lines in, notifications and
//!   command replies out, `%output` unescaped;
//! - [`panes`]: which process of a pane's tree is a known agent, and the bytes that draw
//!   a pane's captured screen (`capture-pane -e`) on a fresh emulator;
//! - [`keys`]: the `send-keys` argv that types given bytes into a pane;
//! - [`layout`]: each pane's size in a window layout (`%layout-change`);
//! - [`focus`]: which tmux panes a person is looking at (`list-clients`).

pub mod control;
pub mod focus;
pub mod keys;
pub mod layout;
pub mod panes;
