//! The workspaces of mirrored panes (`ListRemoteWorkspaces()`): one per host and workspace
//! key, summed up by the engine's one rule ([`crate::engine::summarize`],
//! `docs/lifecycle-attention.md#workspace-summary`), so the panel shows a remote's
//! workspaces as the daemon computes them and never sums panes up itself.

use super::pane::MirroredPane;
use crate::engine::{summarize, Member, Summary};
use crate::model::{Attention, HostName, Lifecycle, PaneRef, Timestamp};
use std::collections::BTreeMap;

impl Member for MirroredPane {
    type Id = PaneRef;
    type Agent = String;
    fn member_id(&self) -> PaneRef {
        self.id.clone()
    }
    /// The wire name; a name this side does not know, raw.
    fn member_agent(&self) -> String {
        self.agent.to_string()
    }
    fn member_tab(&self) -> &str {
        &self.tab
    }
    /// A lifecycle this side does not know ranks as `unknown`.
    fn member_lifecycle(&self) -> Lifecycle {
        self.lifecycle.known().unwrap_or_default()
    }
    /// The shown attention as last seen (kept while the host is offline: the row is
    /// greyed, not emptied); a level this side does not know ranks as `none`.
    fn member_attention(&self) -> Attention {
        self.known_attention().unwrap_or_default()
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

/// One workspace of a remote host: the engine's summary (its `key` the host's own) and
/// whether every pane of it is on an offline link.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteWorkspace {
    pub host: HostName,
    pub summary: Summary<PaneRef, String>,
    pub offline: bool,
}

/// The workspaces of `panes` (mirrored panes of any hosts), by host then key, summed up
/// at `now`; panes without a host are left out.
pub fn remote_workspaces(panes: &[MirroredPane], now: Timestamp) -> Vec<RemoteWorkspace> {
    let mut groups: BTreeMap<(&HostName, &str), Vec<&MirroredPane>> = BTreeMap::new();
    for p in panes {
        if let Some(host) = &p.workspace.host {
            groups.entry((host, &p.workspace.key)).or_default().push(p);
        }
    }
    groups
        .into_iter()
        .map(|((host, key), panes)| RemoteWorkspace {
            host: host.clone(),
            summary: summarize(key, &panes, now),
            offline: panes.iter().all(|p| p.offline),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::mirror::pane::tests::view;

    fn pane(host: &str, n: u32, ws: &str, attention: &str, message_at: i64) -> MirroredPane {
        let mut v = view(&format!("p{n}"), attention, "working");
        v.workspace = ws.into();
        v.last_message = Some(format!("message {n}"));
        v.last_message_at = Some(message_at);
        // Attention changed in the opposite order of the messages.
        v.attention_changed_at = Some(10_000 - message_at);
        let mut p = crate::client::wire::mirrored(&HostName::parse(host).unwrap(), &v).unwrap();
        p.offline = host == "zed";
        p
    }

    #[test]
    fn keyed_by_host_summed_by_the_engines_rule_offline_when_every_pane_is() {
        let panes = [
            pane("zed", 1, "/src/api", "error", 5_000),
            pane("box", 1, "/src/api", "unread", 4_000),
            pane("box", 2, "/src/api", "none", 6_000),
            pane("box", 3, "/src/web", "input_required", 2_000),
        ];
        let ws = remote_workspaces(&panes, Timestamp(20_000));
        let keys: Vec<(String, &str, bool)> = ws
            .iter()
            .map(|w| (w.host.to_string(), w.summary.key.as_str(), w.offline))
            .collect();
        assert_eq!(
            keys,
            [
                ("box".into(), "/src/api", false),
                ("box".into(), "/src/web", false),
                ("zed".into(), "/src/api", true),
            ]
        );
        let api = &ws[0].summary;
        assert_eq!(api.worst_attention, Attention::Unread);
        assert_eq!(api.panes.len(), 2);
        // The latest message by when it was recorded (p2 at 6 000), as for local panes,
        // not by the latest attention change (p1).
        assert_eq!(api.latest_message.as_deref(), Some("message 2"));
        assert_eq!(
            api.latest_message_pane.as_ref().unwrap().to_string(),
            "box:p2"
        );
        assert_eq!(api.attention_changed_at, Some(Timestamp(6_000)));
        assert_eq!(api.since_attention_change_ms, Some(14_000));
        assert_eq!(api.agents, ["claude"]);
        assert_eq!(ws[2].summary.worst_attention, Attention::Error);
    }
}
