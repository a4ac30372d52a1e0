//! Remote panes in the panel (`docs/remote.md`, `docs/desktop-surfaces.md#panel`): the
//! `Remotes()`, `ListRemotePanes()` and `ListRemoteWorkspaces()` dictionaries parsed into
//! the [`Snapshot`], and the sidebar's order by host: this machine first, then each remote
//! by name.
//!
//! A remote pane is a [`PaneInfo`] like a local one (same wire struct, same vocabulary) with
//! `host` set; its workspace key is qualified by the host ([`workspace_key`]), so the same
//! path on two hosts is two workspaces. The remotes' workspace summaries are the daemon's
//! (the engine's rule, `docs/lifecycle-attention.md#workspace-summary`): the panel sums
//! nothing up itself.

use super::data::{sidebar_order, Dict, HostInfo, PaneInfo, SidebarOrder, Snapshot, WorkspaceInfo};
use crate::client::wire::WirePane;
use std::collections::BTreeMap;

/// The panel's key of workspace `key` of remote `host`: `HOST:KEY` (never a local key,
/// which is a path or a name without the host's prefix in practice).
pub fn workspace_key(host: &str, key: &str) -> String {
    format!("{host}:{key}")
}

impl Snapshot {
    /// Adds the remote panes (`ListRemotePanes()`), their workspaces
    /// (`ListRemoteWorkspaces()`) and the remotes (`Remotes()`) to a snapshot of this
    /// machine, the workspace keys qualified by host. A remote pane or workspace that does
    /// not parse (a value this side does not know) is left out and logged, never read as
    /// another value.
    pub fn with_remotes(
        mut self,
        panes: Vec<WirePane>,
        workspaces: &[Dict],
        remotes: &[Dict],
    ) -> Snapshot {
        for d in workspaces {
            match WorkspaceInfo::from_remote_dict(d) {
                Ok(mut w) => {
                    w.key = workspace_key(w.host.as_deref().unwrap_or_default(), &w.key);
                    self.workspaces.push(w);
                }
                Err(e) => tracing::warn!("a remote workspace left out: {e}"),
            }
        }
        for d in panes {
            match PaneInfo::of(d) {
                Ok(mut p) => match p.host.clone() {
                    Some(host) => {
                        p.pane.workspace = workspace_key(&host, &p.workspace);
                        self.panes.push(p);
                    }
                    None => tracing::warn!(pane = %p.id, "a remote pane without its host left out"),
                },
                Err(e) => tracing::warn!("a remote pane left out: {e}"),
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::mirror::{remote_workspaces, MirroredPane};
    use crate::client::wire::remote_pane;
    use crate::model::{Attention, HostName, Lifecycle, Timestamp};
    use crate::service::remotes::panes::remote_workspace_dict;
    use zbus::zvariant::{OwnedValue, Value};

    fn ov(v: impl Into<Value<'static>>) -> OwnedValue {
        OwnedValue::try_from(v.into()).unwrap()
    }

    /// A daemon's dictionary as the panel receives it.
    fn received(d: crate::client::wire::Dict) -> Dict {
        d.into_iter()
            .map(|(k, v)| (k, v.try_to_owned().unwrap()))
            .collect()
    }

    /// A mirrored pane as the daemon holds it.
    fn mirrored(host: &str, n: u32, ws: &str, attention: &str, message_at: i64) -> MirroredPane {
        let v = crate::client::wire::WirePane {
            workspace: ws.into(),
            last_message: Some(format!("message {n}")),
            last_message_at: Some(message_at),
            attention_changed_at: Some(message_at),
            ..crate::client::wire::WirePane::of(&crate::model::Pane::new(
                crate::model::PaneId(n.into()),
                ws,
                "main",
                "",
                crate::model::AgentKind::Claude,
                Timestamp(0),
            ))
        };
        let mut v = v;
        v.attention = attention.into();
        let mut p = crate::client::wire::mirrored(&HostName::parse(host).unwrap(), &v).unwrap();
        p.offline = host == "zed";
        p
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
    fn remote_workspaces_are_the_daemons_keyed_by_host_after_this_machines_by_host_name() {
        let mut snap = Snapshot::default();
        snap.workspaces
            .push(local_ws("/src/quiet", Attention::None));
        let held = [
            mirrored("zed", 1, "/src/api", "error", 5_000),
            mirrored("box", 1, "/src/api", "unread", 4_000),
            mirrored("box", 2, "/src/api", "none", 6_000),
            mirrored("box", 3, "/src/web", "input_required", 2_000),
        ];
        let mut panes: Vec<WirePane> = held.iter().map(remote_pane).collect();
        let mut bad = panes[1].clone();
        bad.id = "box:p4".into();
        bad.lifecycle = "pondering".into();
        panes.push(bad);
        let workspaces: Vec<Dict> = remote_workspaces(&held, Timestamp(10_000))
            .iter()
            .map(|w| received(remote_workspace_dict(w)))
            .collect();
        let snap = snap.with_remotes(
            panes,
            &workspaces,
            &[remote("zed", "offline"), remote("box", "connected")],
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
        assert_eq!(api.host.as_deref(), Some("box"));
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
        assert!(snap.pane("zed:p1").unwrap().is_offline());
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
