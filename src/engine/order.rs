//! "Jump to next unread" (`docs/lifecycle-attention.md#next-unread`).

use crate::model::{Attention, Pane, PaneId, Timestamp};
use std::cmp::Reverse;

/// A pane's place in the `next` order before its id: severity (highest first), then the
/// most recent attention change; `None` when it is no candidate (attention `none`, or
/// focused). The one rule of the order, for local panes ([`next_unread_order`]) and for
/// the panes mirrored from other hosts (`adapters::mirror`).
pub type NextRank = (Reverse<Attention>, Reverse<Option<Timestamp>>);

/// The [`NextRank`] of a pane with `attention` changed at `changed_at`.
pub fn next_rank(
    attention: Attention,
    changed_at: Option<Timestamp>,
    focused: bool,
) -> Option<NextRank> {
    (attention > Attention::None && !focused).then_some((Reverse(attention), Reverse(changed_at)))
}

/// Panes with attention above `none`, ordered by [`next_rank`], then pane id; focused
/// panes are skipped. One function, used by the CLI, D-Bus, tray, panel and status bar.
pub fn next_unread_order<'a>(panes: impl IntoIterator<Item = &'a Pane>) -> Vec<PaneId> {
    let mut v: Vec<(NextRank, PaneId)> = panes
        .into_iter()
        .filter_map(|p| {
            Some((
                next_rank(p.attention(), p.attention_changed_at, p.focused)?,
                p.id,
            ))
        })
        .collect();
    v.sort();
    v.into_iter().map(|(_, id)| id).collect()
}
