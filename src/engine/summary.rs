//! The per-workspace sidebar summary (`docs/lifecycle-attention.md#workspace-summary`),
//! derived from panes only, never from telemetry.

use crate::model::{AgentKind, Attention, Lifecycle, Pane, PaneId, Timestamp};
use serde::Serialize;
use std::collections::BTreeMap;

/// One sidebar row, of this machine's panes ([`WorkspaceSummary`]) or of a remote host's
/// mirrored panes (ids `NAME:pN`, agents as their wire names: `Summary<String, String>`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary<Id, Agent> {
    /// Workspace key (git top-level path, else cwd, or a name given with `-w`).
    pub key: String,
    /// Display name: the key's last path component.
    pub name: String,
    pub repo: Option<String>,
    pub branch: Option<String>,
    /// Agent kinds present, sorted, without duplicates.
    pub agents: Vec<Agent>,
    /// Tabs in first-seen order.
    pub tabs: Vec<String>,
    pub panes: Vec<Id>,
    /// blocked > failed > working > done > idle > unknown ([`Lifecycle::summary_rank`]).
    pub worst_lifecycle: Lifecycle,
    /// The severity order of `docs/lifecycle-attention.md#attention`.
    pub worst_attention: Attention,
    /// Latest explicit message (hook summary or notification text) across its panes.
    pub latest_message: Option<String>,
    pub latest_message_pane: Option<Id>,
    /// Most recent attention change across its panes.
    pub attention_changed_at: Option<Timestamp>,
    /// Milliseconds from that change to `now`.
    pub since_attention_change_ms: Option<i64>,
}

/// The summary of this machine's workspaces (`ListWorkspaces`).
pub type WorkspaceSummary = Summary<PaneId, AgentKind>;

/// What a workspace summary reads of a pane: a [`Pane`] here, a mirrored pane of a
/// remote host (`crate::adapters::mirror::MirroredPane`) there, so both are summed up by
/// the one rule of `docs/lifecycle-attention.md#workspace-summary`.
pub trait Member {
    /// Pane id (`PaneId` here, `NAME:pN` text for a mirrored pane).
    type Id: Clone + Ord;
    /// Agent kind (`AgentKind`, or its wire name).
    type Agent: Clone + Ord;
    fn member_id(&self) -> Self::Id;
    fn member_agent(&self) -> Self::Agent;
    fn member_tab(&self) -> &str;
    fn member_lifecycle(&self) -> Lifecycle;
    /// The pane's shown attention.
    fn member_attention(&self) -> Attention;
    fn member_last_message(&self) -> Option<&str>;
    fn member_last_message_at(&self) -> Option<Timestamp>;
    fn member_attention_changed_at(&self) -> Option<Timestamp>;
    fn member_repo(&self) -> Option<&str>;
    fn member_branch(&self) -> Option<&str>;
}

impl Member for Pane {
    type Id = PaneId;
    type Agent = AgentKind;
    fn member_id(&self) -> PaneId {
        self.id
    }
    fn member_agent(&self) -> AgentKind {
        self.agent
    }
    fn member_tab(&self) -> &str {
        &self.tab
    }
    fn member_lifecycle(&self) -> Lifecycle {
        self.lifecycle
    }
    fn member_attention(&self) -> Attention {
        self.attention()
    }
    fn member_last_message(&self) -> Option<&str> {
        self.last_message.as_deref()
    }
    fn member_last_message_at(&self) -> Option<Timestamp> {
        self.last_message_at
    }
    fn member_attention_changed_at(&self) -> Option<Timestamp> {
        self.attention_changed_at
    }
    fn member_repo(&self) -> Option<&str> {
        self.repo.as_deref()
    }
    fn member_branch(&self) -> Option<&str> {
        self.branch.as_deref()
    }
}

/// Display name of a workspace key: the last path component (`/src/attend` → `attend`).
pub fn workspace_name(key: &str) -> String {
    let trimmed = key.trim_end_matches('/');
    trimmed
        .rsplit('/')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or(key)
        .to_string()
}

/// Summaries of every workspace present among `panes`, sorted by key.
pub fn summarize_workspaces<'a>(
    panes: impl IntoIterator<Item = &'a Pane>,
    now: Timestamp,
) -> Vec<WorkspaceSummary> {
    let mut by_ws: BTreeMap<&str, Vec<&Pane>> = BTreeMap::new();
    for p in panes {
        by_ws.entry(p.workspace.as_str()).or_default().push(p);
    }
    by_ws
        .into_iter()
        .map(|(key, panes)| summarize(key, &panes, now))
        .collect()
}

/// The summary of workspace `key` whose panes are `panes` (in the order the tabs are
/// listed), at `now`.
pub fn summarize<M: Member>(key: &str, panes: &[&M], now: Timestamp) -> Summary<M::Id, M::Agent> {
    let mut agents: Vec<M::Agent> = panes.iter().map(|p| p.member_agent()).collect();
    agents.sort();
    agents.dedup();
    let mut tabs: Vec<String> = Vec::new();
    for p in panes {
        if !tabs.iter().any(|t| t == p.member_tab()) {
            tabs.push(p.member_tab().to_string());
        }
    }
    let worst_lifecycle = panes
        .iter()
        .map(|p| p.member_lifecycle())
        .max_by_key(|l| l.summary_rank())
        .unwrap_or_default();
    let worst_attention = panes
        .iter()
        .map(|p| p.member_attention())
        .max()
        .unwrap_or_default();
    let latest = panes
        .iter()
        .filter(|p| p.member_last_message().is_some())
        .max_by_key(|p| (p.member_last_message_at(), std::cmp::Reverse(p.member_id())));
    let attention_changed_at = panes
        .iter()
        .filter_map(|p| p.member_attention_changed_at())
        .max();
    let with_repo = panes.iter().find(|p| p.member_repo().is_some());
    Summary {
        key: key.to_string(),
        name: workspace_name(key),
        repo: with_repo.and_then(|p| p.member_repo().map(str::to_string)),
        branch: with_repo.and_then(|p| p.member_branch().map(str::to_string)),
        agents,
        tabs,
        panes: panes.iter().map(|p| p.member_id()).collect(),
        worst_lifecycle,
        worst_attention,
        latest_message: latest.and_then(|p| p.member_last_message().map(str::to_string)),
        latest_message_pane: latest.map(|p| p.member_id()),
        attention_changed_at,
        since_attention_change_ms: attention_changed_at.map(|t| now.millis_since(t)),
    }
}
