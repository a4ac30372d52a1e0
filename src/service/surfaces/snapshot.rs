//! What the owner hands every surface after a commit: the batch's events and a snapshot
//! of every pane, with the engine's orderings and summaries read from it.

use crate::adapters::mirror::MirroredPane;
use crate::client::overview::Overview;
use crate::engine::{next_unread_order, summarize_workspaces, WorkspaceSummary};
use crate::model::{Event, Pane, PaneId, Timestamp};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Every pane after a commit.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub panes: BTreeMap<PaneId, Pane>,
    /// External panes whose open decision a waiting `PermissionRequest` hook run can take
    /// an answer for (`allow`, `deny`: docs/decisions/0015-answering-external-gates.md).
    pub gates: BTreeSet<PaneId>,
    /// When the snapshot was taken.
    pub at: Timestamp,
}

impl Snapshot {
    /// The engine's next-unread order (`docs/lifecycle-attention.md#next-unread`; focused
    /// panes skipped).
    pub fn next_unread(&self) -> Vec<PaneId> {
        next_unread_order(self.panes.values())
    }

    /// The engine's workspace summaries, by key.
    pub fn workspaces(&self) -> Vec<WorkspaceSummary> {
        summarize_workspaces(self.panes.values(), self.at)
    }

    /// Counts and the most urgent pane ([`Overview`]) of these panes and the `mirrored`
    /// panes of remote hosts (those of offline hosts not counted: [`counted_view`]); the
    /// next pane by the one order of local and mirrored panes
    /// ([`crate::adapters::mirror::next_order`]).
    pub fn overview(&self, mirrored: &[MirroredPane]) -> Overview {
        Overview::of(&self.panes, mirrored)
    }
}

/// One committed batch: its events (ascending seq) and the panes after it. The first
/// update a surface receives has no events: the state at start-up.
#[derive(Debug, Clone)]
pub struct Update {
    pub events: Vec<Event>,
    pub snapshot: Arc<Snapshot>,
}
