//! "Jump to next unread" (`docs/lifecycle-attention.md#next-unread`).

use crate::model::{Attention, Pane, PaneId};
use std::cmp::Reverse;

/// Panes with attention above `none`, ordered by severity (highest first), then the most
/// recent attention change, then pane id; focused panes are skipped. One function, used
/// by the CLI, D-Bus, tray, panel and status bar.
pub fn next_unread_order<'a>(panes: impl IntoIterator<Item = &'a Pane>) -> Vec<PaneId> {
    let mut v: Vec<&Pane> = panes
        .into_iter()
        .filter(|p| p.attention() > Attention::None && !p.focused)
        .collect();
    v.sort_by_key(|p| {
        (
            Reverse(p.attention()),
            Reverse(p.attention_changed_at),
            p.id,
        )
    });
    v.into_iter().map(|p| p.id).collect()
}
