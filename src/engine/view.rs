//! The columns of the pane table every surface prints (`attend ls`, `attend demo`,
//! `src/cli/pane_table.rs`) and the vocabulary check of a rendered pane.

use crate::model::{Attention, Lifecycle};

/// Most terminal columns of the message column in the `attend ls` table (`src/cli/pane_table.rs`).
pub const MESSAGE_COLUMN: usize = 40;
/// Most terminal columns of the workspace and name columns in the `attend ls` table (`src/cli/pane_table.rs`) (longer
/// names are cut with `…`; `attend show` prints them whole).
pub const NAME_COLUMN: usize = 24;
/// Most terminal columns of the tab column in the `attend ls` table (`src/cli/pane_table.rs`).
pub const TAB_COLUMN: usize = 16;

/// Checks a rendered value is inside the vocabulary (used by tests of every surface).
pub fn in_vocabulary(lifecycle: &str, attention: &str) -> bool {
    Lifecycle::parse(lifecycle).is_some() && Attention::parse(attention).is_some()
}
