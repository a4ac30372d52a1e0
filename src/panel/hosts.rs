//! Remote panes in the panel (`docs/remote.md`, `docs/desktop-surfaces.md#panel`): the
//! `Remotes()` and `ListRemotePanes()` dictionaries parsed into the [`Snapshot`], the
//! workspaces of each remote grouped from its panes, and the sidebar's order by host:
//! this machine first, then each remote by name.
//!
//! A remote pane is a [`PaneInfo`] like a local one (same parser, same vocabulary) with
//! `host` set; its workspace key is qualified by the host ([`workspace_key`]), so the same
//! path on two hosts is two workspaces. The daemon serves no workspace summaries of
//! remotes: they are summed up here from the mirrored panes by the rules of
//! `docs/lifecycle-attention.md#workspace-summary` (`src/engine/summary.rs`).

use super::data::{sidebar_order, Dict, HostInfo, PaneInfo, SidebarOrder, Snapshot, WorkspaceInfo};
use crate::engine::workspace_name;
use std::collections::BTreeMap;

/// The panel's key of workspace `key` of remote `host`: `HOST:KEY` (never a local key,
/// which is a path or a name without the host's prefix in practice).
pub fn workspace_key(host: &str, key: &str) -> String {
    format!("{host}:{key}")
}

impl Snapshot {
    /// Adds the remote panes (`ListRemotePanes()`) and the remotes (`Remotes()`) to a
    /// snapshot of this machine, with the remotes' workspaces summed up at `now_ms` (ms
    /// since the epoch, the panel's clock). A remote pane that does not parse (a value
    /// this side does not know) is left out and logged, never read as another value.
    pub fn with_remotes(mut self, panes: &[Dict], remotes: &[Dict], now_ms: i64) -> Snapshot {
        let mut mirrored: Vec<PaneInfo> = panes
            .iter()
            .filter_map(|d| match PaneInfo::from_dict(d) {
                Ok(p) if p.host.is_some() => Some(p),
                Ok(p) => {
                    tracing::warn!(pane = %p.id, "a remote pane without its host left out");
                    None
                }
                Err(e) => {
                    tracing::warn!("a remote pane left out: {e}");
                    None
                }
            })
            .collect();
        self.workspaces.extend(remote_workspaces(&mirrored, now_ms));
        for p in &mut mirrored {
            p.workspace = workspace_key(p.host.as_deref().unwrap_or_default(), &p.workspace);
        }
        self.panes.extend(mirrored);
        self.hosts = remotes.iter().filter_map(HostInfo::from_dict).collect();
        self.hosts.sort_by(|a, b| a.name.cmp(&b.name));
        self
    }

    /// The remote `name`, when `Remotes()` listed it.
    pub fn host(&self, name: &str) -> Option<&HostInfo> {
        self.hosts.iter().find(|h| h.name == name)
    }

    /// The sidebar: this machine's workspaces in `order`, then each remote's (by host
    /// name) in `order`.
    pub fn sidebar(&self, order: SidebarOrder) -> Vec<&WorkspaceInfo> {
        let mut by_host: BTreeMap<Option<&str>, Vec<WorkspaceInfo>> = BTreeMap::new();
        for w in &self.workspaces {
            by_host
                .entry(w.host.as_deref())
                .or_default()
                .push(w.clone());
        }
        // `None` (this machine) sorts first.
        by_host
            .values()
            .flat_map(|ws| sidebar_order(ws, order))
            .filter_map(|w| self.workspace(&w.key))
            .collect()
    }
}

/// The workspaces of mirrored panes (keys still the hosts' own), one per host and
/// workspace key, by host then key; keys qualified with [`workspace_key`]. The rules of
/// `ListWorkspaces` (`docs/lifecycle-attention.md#workspace-summary`): agents sorted
/// without duplicates, tabs in first-seen order, the worst lifecycle by its summary rank,
/// the highest attention, repo and branch of the first pane that has one, the latest
/// message of the pane whose attention changed last, and the time since that change.
pub fn remote_workspaces(panes: &[PaneInfo], now_ms: i64) -> Vec<WorkspaceInfo> {
    let mut groups: BTreeMap<(&str, &str), Vec<&PaneInfo>> = BTreeMap::new();
    for p in panes {
        let host = p.host.as_deref().unwrap_or_default();
        groups.entry((host, &p.workspace)).or_default().push(p);
    }
    groups
        .into_iter()
        .map(|((host, key), panes)| {
            let mut agents: Vec<String> = panes.iter().map(|p| p.agent.clone()).collect();
            agents.sort();
            agents.dedup();
            let mut tabs: Vec<String> = Vec::new();
            for p in &panes {
                if !tabs.contains(&p.tab) {
                    tabs.push(p.tab.clone());
                }
            }
            let with_repo = panes.iter().find(|p| p.repo.is_some());
            let changed = panes.iter().filter_map(|p| p.attention_changed_at).max();
            let latest = panes
                .iter()
                .filter(|p| p.last_message.is_some())
                .max_by_key(|p| p.attention_changed_at);
            WorkspaceInfo {
                key: workspace_key(host, key),
                name: workspace_name(key),
                repo: with_repo.and_then(|p| p.repo.clone()),
                branch: with_repo.and_then(|p| p.branch.clone()),
                agents,
                tabs,
                panes: panes.iter().map(|p| p.id.clone()).collect(),
                worst_lifecycle: panes
                    .iter()
                    .map(|p| p.lifecycle)
                    .max_by_key(|l| l.summary_rank())
                    .unwrap_or_default(),
                worst_attention: panes.iter().map(|p| p.attention).max().unwrap_or_default(),
                latest_message: latest.and_then(|p| p.last_message.clone()),
                since_attention_change_ms: changed.map(|t| (now_ms - t).max(0)),
                host: Some(host.to_string()),
                offline: panes.iter().all(|p| p.offline),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Attention, Lifecycle};
    use zbus::zvariant::{OwnedValue, Value};

    fn ov(v: impl Into<Value<'static>>) -> OwnedValue {
        OwnedValue::try_from(v.into()).unwrap()
    }

    fn remote_pane(host: &str, n: u32, ws: &str, attention: &str, changed: i64) -> Dict {
        let mut d = Dict::new();
        d.insert("id".into(), ov(format!("{host}:p{n}")));
        d.insert("name".into(), ov(""));
        d.insert("workspace".into(), ov(ws.to_string()));
        d.insert("tab".into(), ov("main"));
        d.insert("agent".into(), ov("claude"));
        d.insert("lifecycle".into(), ov("working"));
        d.insert("attention".into(), ov(attention.to_string()));
        d.insert("attention_changed_at".into(), ov(changed));
        d.insert("last_message".into(), ov(format!("message {n}")));
        d.insert("host".into(), ov(host.to_string()));
        d.insert("offline".into(), ov(host == "zed"));
        d
    }

    fn remote(name: &str, state: &str) -> Dict {
        let mut d = Dict::new();
        d.insert("name".into(), ov(name.to_string()));
        d.insert("state".into(), ov(state.to_string()));
        d.insert("since_at".into(), ov(1_000i64));
        d
    }

    fn local_ws(key: &str, attention: Attention) -> WorkspaceInfo {
        WorkspaceInfo {
            key: key.into(),
            name: key.into(),
            repo: None,
            branch: None,
            agents: vec![],
            tabs: vec![],
            panes: vec![],
            worst_lifecycle: Lifecycle::Idle,
            worst_attention: attention,
            latest_message: None,
            since_attention_change_ms: None,
            host: None,
            offline: false,
        }
    }

    #[test]
    fn remote_workspaces_are_keyed_by_host_and_come_after_this_machines_by_host_name() {
        let mut snap = Snapshot::default();
        snap.workspaces
            .push(local_ws("/src/quiet", Attention::None));
        let panes = [
            remote_pane("zed", 1, "/src/api", "error", 5_000),
            remote_pane("box", 1, "/src/api", "unread", 4_000),
            remote_pane("box", 2, "/src/api", "none", 6_000),
            remote_pane("box", 3, "/src/web", "input_required", 2_000),
        ];
        let mut bad = remote_pane("box", 4, "/src/x", "none", 0);
        bad.insert("lifecycle".into(), ov("pondering"));
        let mut all = panes.to_vec();
        all.push(bad);
        let snap = snap.with_remotes(
            &all,
            &[remote("zed", "offline"), remote("box", "connected")],
            10_000,
        );
        let order: Vec<&str> = snap
            .sidebar(SidebarOrder::Attention)
            .iter()
            .map(|w| w.key.as_str())
            .collect();
        assert_eq!(
            order,
            ["/src/quiet", "box:/src/web", "box:/src/api", "zed:/src/api"],
            "this machine first even when calmer, then hosts by name; attention within"
        );
        assert!(
            snap.pane("box:p4").is_none(),
            "an unknown value is left out"
        );
        let api = snap.workspace("box:/src/api").unwrap();
        assert_eq!(api.name, "api");
        assert_eq!(api.panes, ["box:p1", "box:p2"]);
        assert_eq!(api.worst_attention, Attention::Unread);
        assert_eq!(api.since_attention_change_ms, Some(4_000));
        assert_eq!(api.latest_message.as_deref(), Some("message 2"));
        assert!(!api.offline);
        let ids: Vec<&str> = snap
            .panes_of("box:/src/api")
            .map(|p| p.id.as_str())
            .collect();
        assert_eq!(ids, ["box:p1", "box:p2"]);
        assert!(snap.workspace("zed:/src/api").unwrap().offline);
        assert!(snap.pane("zed:p1").unwrap().offline);
        assert_eq!(
            snap.hosts
                .iter()
                .map(|h| h.name.as_str())
                .collect::<Vec<_>>(),
            ["box", "zed"]
        );
        assert!(snap.host("zed").unwrap().is_offline());
        let p = snap.pane("box:p1").unwrap();
        assert_eq!(p.host.as_deref(), Some("box"));
        assert!(!p.can_attach() && !p.can_resume());
    }
}
