//! The per-workspace sidebar summary (`docs/lifecycle-attention.md#workspace-summary`),
//! derived from panes only, never from telemetry.

use crate::model::{AgentKind, Attention, Lifecycle, Pane, PaneId, Timestamp};
use serde::Serialize;
use std::collections::BTreeMap;

/// One sidebar row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkspaceSummary {
    /// Workspace key (git top-level path, else cwd, or a name given with `-w`).
    pub key: String,
    /// Display name: the key's last path component.
    pub name: String,
    pub repo: Option<String>,
    pub branch: Option<String>,
    /// Agent kinds present, sorted, without duplicates.
    pub agents: Vec<AgentKind>,
    /// Tabs in first-seen order.
    pub tabs: Vec<String>,
    pub panes: Vec<PaneId>,
    /// blocked > failed > working > done > idle > unknown ([`Lifecycle::summary_rank`]).
    pub worst_lifecycle: Lifecycle,
    /// The severity order of `docs/lifecycle-attention.md#attention`.
    pub worst_attention: Attention,
    /// Latest explicit message (hook summary or notification text) across its panes.
    pub latest_message: Option<String>,
    pub latest_message_pane: Option<PaneId>,
    /// Most recent attention change across its panes.
    pub attention_changed_at: Option<Timestamp>,
    /// Milliseconds from that change to `now`.
    pub since_attention_change_ms: Option<i64>,
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

fn summarize(key: &str, panes: &[&Pane], now: Timestamp) -> WorkspaceSummary {
    let mut agents: Vec<AgentKind> = panes.iter().map(|p| p.agent).collect();
    agents.sort();
    agents.dedup();
    let mut tabs: Vec<String> = Vec::new();
    for p in panes {
        if !tabs.contains(&p.tab) {
            tabs.push(p.tab.clone());
        }
    }
    let worst_lifecycle = panes
        .iter()
        .map(|p| p.lifecycle)
        .max_by_key(|l| l.summary_rank())
        .unwrap_or_default();
    let worst_attention = panes
        .iter()
        .map(|p| p.attention())
        .max()
        .unwrap_or_default();
    let latest = panes
        .iter()
        .filter(|p| p.last_message.is_some())
        .max_by_key(|p| (p.last_message_at, std::cmp::Reverse(p.id)));
    let attention_changed_at = panes.iter().filter_map(|p| p.attention_changed_at).max();
    let with_repo = panes.iter().find(|p| p.repo.is_some());
    WorkspaceSummary {
        key: key.to_string(),
        name: workspace_name(key),
        repo: with_repo.and_then(|p| p.repo.clone()),
        branch: with_repo.and_then(|p| p.branch.clone()),
        agents,
        tabs,
        panes: panes.iter().map(|p| p.id).collect(),
        worst_lifecycle,
        worst_attention,
        latest_message: latest.and_then(|p| p.last_message.clone()),
        latest_message_pane: latest.map(|p| p.id),
        attention_changed_at,
        since_attention_change_ms: attention_changed_at.map(|t| now.millis_since(t)),
    }
}
