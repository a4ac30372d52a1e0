//! The daemon's values as the panel reads them: the panes of `ListPanes` (the one wire
//! struct, [`WirePane`]) and the workspaces of `ListWorkspaces`, parsed from their `a{sv}`
//! dictionaries (keys documented in `docs/dbus-api.md` and `src/client/wire.rs`).
//!
//! Parsing only: nothing here derives state. Lifecycle and attention are checked against
//! the engine's vocabulary ([`Lifecycle::parse`], [`Attention::parse`]); a dictionary
//! without the keys every pane or workspace has is refused with [`DataError`].

use crate::client::wire::WirePane;
use crate::model::{Attention, Lifecycle};
use std::collections::HashMap;
use zbus::zvariant::{OwnedValue, Value};

pub use crate::client::Dict;

/// A dictionary the panel cannot render.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DataError {
    /// A required key is absent or has the wrong type.
    #[error("the daemon sent a {what} without a valid `{key}`")]
    Missing {
        what: &'static str,
        key: &'static str,
    },
    /// A vocabulary value the engine does not know.
    #[error("the daemon sent an unknown {what} value {value:?}")]
    Vocabulary { what: &'static str, value: String },
}

/// One pane (a `ListPanes` or `ListRemotePanes` entry): the daemon's [`WirePane`], read
/// through [`Deref`](std::ops::Deref), with its lifecycle and attention checked against
/// the engine's vocabulary, an empty name replaced by the id and an empty host by none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneInfo {
    /// The pane as the daemon sent it (its workspace key qualified by host for a remote
    /// pane, [`super::hosts::workspace_key`]).
    pub pane: WirePane,
    pub lifecycle: Lifecycle,
    pub attention: Attention,
}

impl std::ops::Deref for PaneInfo {
    type Target = WirePane;

    fn deref(&self) -> &WirePane {
        &self.pane
    }
}

/// One sidebar row (`ListWorkspaces` entry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceInfo {
    /// Workspace key.
    pub key: String,
    /// Display name.
    pub name: String,
    pub repo: Option<String>,
    pub branch: Option<String>,
    /// Agent kind wire names.
    pub agents: Vec<String>,
    /// Tabs in the daemon's order.
    pub tabs: Vec<String>,
    /// Pane ids.
    pub panes: Vec<String>,
    pub worst_lifecycle: Lifecycle,
    pub worst_attention: Attention,
    pub latest_message: Option<String>,
    /// Milliseconds from the last attention change to the daemon's clock at the call.
    pub since_attention_change_ms: Option<i64>,
    /// The remote whose panes these are; `None` for this machine's workspaces.
    pub host: Option<String>,
    /// Every pane of the workspace is a mirrored pane whose link is down.
    pub offline: bool,
}

/// The value under `key`, unwrapping a variant nested in the variant.
fn field<'a>(map: &'a HashMap<String, OwnedValue>, key: &str) -> Option<&'a Value<'static>> {
    map.get(key).map(|v| match &**v {
        Value::Value(inner) => &**inner,
        other => other,
    })
}

fn opt_str(map: &Dict, key: &str) -> Option<String> {
    match field(map, key) {
        Some(Value::Str(s)) => Some(s.to_string()),
        _ => None,
    }
}

fn req_str(map: &Dict, what: &'static str, key: &'static str) -> Result<String, DataError> {
    opt_str(map, key).ok_or(DataError::Missing { what, key })
}

fn strs(map: &Dict, key: &str) -> Vec<String> {
    match field(map, key) {
        Some(Value::Array(a)) => a
            .inner()
            .iter()
            .filter_map(|v| match v {
                Value::Str(s) => Some(s.to_string()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn int(map: &Dict, key: &str) -> Option<i64> {
    match field(map, key) {
        Some(Value::I32(n)) => Some(i64::from(*n)),
        Some(Value::I64(n)) => Some(*n),
        Some(Value::U32(n)) => Some(i64::from(*n)),
        Some(Value::U64(n)) => i64::try_from(*n).ok(),
        _ => None,
    }
}

fn boolean(map: &Dict, key: &str) -> bool {
    matches!(field(map, key), Some(Value::Bool(true)))
}

fn lifecycle_of(s: &str) -> Result<Lifecycle, DataError> {
    Lifecycle::parse(s).ok_or_else(|| DataError::Vocabulary {
        what: "lifecycle",
        value: s.to_string(),
    })
}

fn attention_of(s: &str) -> Result<Attention, DataError> {
    Attention::parse(s).ok_or_else(|| DataError::Vocabulary {
        what: "attention",
        value: s.to_string(),
    })
}

fn lifecycle(map: &Dict, what: &'static str, key: &'static str) -> Result<Lifecycle, DataError> {
    lifecycle_of(&req_str(map, what, key)?)
}

fn attention(map: &Dict, what: &'static str, key: &'static str) -> Result<Attention, DataError> {
    attention_of(&req_str(map, what, key)?)
}

impl PaneInfo {
    /// Checks one pane the daemon sent.
    ///
    /// Errors: [`DataError::Vocabulary`] for a lifecycle or attention outside the engine's
    /// vocabulary.
    pub fn of(mut pane: WirePane) -> Result<PaneInfo, DataError> {
        let lifecycle = lifecycle_of(&pane.lifecycle)?;
        let attention = attention_of(&pane.attention)?;
        if pane.name.is_empty() {
            pane.name = pane.id.clone();
        }
        pane.host = pane.host.filter(|h| !h.is_empty());
        Ok(PaneInfo {
            pane,
            lifecycle,
            attention,
        })
    }

    /// The pane's program runs (`live` is not `exited`).
    pub fn running(&self) -> bool {
        !self.live.exited()
    }

    /// The pane is followed in the user's tmux (`location.kind` is `tmux`).
    pub fn in_tmux(&self) -> bool {
        self.location
            .as_ref()
            .is_some_and(|l| l.get("kind").is_some_and(|k| k == "tmux"))
    }

    /// Attend can attach a terminal to the pane: it runs the program and it is running,
    /// on this machine (a remote pane's terminal is not carried over its link).
    /// The Attach button's sensitivity and the attach shortcut's check.
    pub fn can_attach(&self) -> bool {
        self.owned && self.running() && self.host.is_none()
    }

    /// Attend can kill the pane's program: it runs it and it is running.
    pub fn can_kill(&self) -> bool {
        self.owned && self.running()
    }

    /// Attend can resume the pane: it ran its program, which has exited, on this machine
    /// (`Resume` is not routed to a remote, `docs/remote.md`).
    pub fn can_resume(&self) -> bool {
        self.owned && !self.running() && self.host.is_none()
    }
}

impl WorkspaceInfo {
    /// Parses one `ListWorkspaces` dictionary.
    ///
    /// Errors: [`DataError::Missing`] without key, worst lifecycle or worst attention;
    /// [`DataError::Vocabulary`] for values outside the engine's vocabulary.
    pub fn from_dict(map: &Dict) -> Result<WorkspaceInfo, DataError> {
        let key = req_str(map, "workspace", "key")?;
        Ok(WorkspaceInfo {
            name: opt_str(map, "name").unwrap_or_else(|| key.clone()),
            key,
            repo: opt_str(map, "repo"),
            branch: opt_str(map, "branch"),
            agents: strs(map, "agents"),
            tabs: strs(map, "tabs"),
            panes: strs(map, "panes"),
            worst_lifecycle: lifecycle(map, "workspace", "worst_lifecycle")?,
            worst_attention: attention(map, "workspace", "worst_attention")?,
            latest_message: opt_str(map, "latest_message"),
            since_attention_change_ms: int(map, "since_attention_change_ms"),
            host: None,
            offline: false,
        })
    }

    /// Parses one `ListRemoteWorkspaces` dictionary: a summary as [`Self::from_dict`]
    /// (its `key` still the host's own) with `host` and `offline`.
    ///
    /// Errors: those of [`Self::from_dict`], and [`DataError::Missing`] without `host`.
    pub fn from_remote_dict(map: &Dict) -> Result<WorkspaceInfo, DataError> {
        Ok(WorkspaceInfo {
            host: Some(req_str(map, "remote workspace", "host")?),
            offline: boolean(map, "offline"),
            ..WorkspaceInfo::from_dict(map)?
        })
    }
}

/// One remote and its link (`Remotes()`, `docs/dbus-api.md#remote`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostInfo {
    /// The host name: its panes are `NAME:pN`.
    pub name: String,
    /// `connecting`, `connected` or `offline` (shown raw when unknown).
    pub state: String,
    /// When the link entered `state` (ms since the epoch).
    pub since_at: Option<i64>,
    /// Why the link last failed (one line).
    pub last_error: Option<String>,
}

impl HostInfo {
    /// Parses one `Remotes()` dictionary; `None` without a `name`.
    pub fn from_dict(map: &Dict) -> Option<HostInfo> {
        Some(HostInfo {
            name: opt_str(map, "name").filter(|n| !n.is_empty())?,
            state: opt_str(map, "state").unwrap_or_default(),
            since_at: int(map, "since_at"),
            last_error: opt_str(map, "last_error").filter(|e| !e.is_empty()),
        })
    }

    /// The link is down: the host's panes show their last values, greyed.
    pub fn is_offline(&self) -> bool {
        self.state == "offline"
    }
}

/// How the sidebar orders workspaces (`docs/desktop-surfaces.md#panel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SidebarOrder {
    /// Worst attention first (the severity order of `Attention`), then the most recent
    /// attention change (a workspace that never had one last), then name, then key.
    #[default]
    Attention,
    /// By name (case-insensitive), then key.
    Name,
}

/// The workspaces of `workspaces` in sidebar order.
pub fn sidebar_order(workspaces: &[WorkspaceInfo], order: SidebarOrder) -> Vec<&WorkspaceInfo> {
    let mut v: Vec<&WorkspaceInfo> = workspaces.iter().collect();
    let name = |w: &WorkspaceInfo| (w.name.to_lowercase(), w.key.clone());
    match order {
        SidebarOrder::Attention => v.sort_by_key(|w| {
            (
                std::cmp::Reverse(w.worst_attention),
                w.since_attention_change_ms.unwrap_or(i64::MAX),
                name(w),
            )
        }),
        SidebarOrder::Name => v.sort_by_key(|w| name(w)),
    }
    v
}

/// The daemon's state as last rendered: the only state the panel keeps.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Snapshot {
    /// Panes in the daemon's order.
    pub panes: Vec<PaneInfo>,
    /// Workspaces in the daemon's order.
    pub workspaces: Vec<WorkspaceInfo>,
    /// The newest event seq the panel had seen when it fetched this (0 before any).
    pub seq: u64,
    /// The remotes of `config.toml` with their links (`Remotes()`), by name; empty
    /// without remotes (then the sidebar shows no host headers).
    pub hosts: Vec<HostInfo>,
}

impl Snapshot {
    /// Reads `ListPanes` and `ListWorkspaces` replies.
    ///
    /// Errors: the first pane or dictionary that does not parse.
    pub fn parse(
        panes: Vec<WirePane>,
        workspaces: &[Dict],
        seq: u64,
    ) -> Result<Snapshot, DataError> {
        Ok(Snapshot {
            panes: panes
                .into_iter()
                .map(PaneInfo::of)
                .collect::<Result<_, _>>()?,
            workspaces: workspaces
                .iter()
                .map(WorkspaceInfo::from_dict)
                .collect::<Result<_, _>>()?,
            seq,
            hosts: Vec::new(),
        })
    }

    /// The pane with id `id`.
    pub fn pane(&self, id: &str) -> Option<&PaneInfo> {
        self.panes.iter().find(|p| p.id == id)
    }

    /// The workspace with key `key`.
    pub fn workspace(&self, key: &str) -> Option<&WorkspaceInfo> {
        self.workspaces.iter().find(|w| w.key == key)
    }

    /// Panes of workspace `key`, in the daemon's order.
    pub fn panes_of<'s>(&'s self, key: &'s str) -> impl Iterator<Item = &'s PaneInfo> + 's {
        self.panes.iter().filter(move |p| p.workspace == key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ov(v: impl Into<Value<'static>>) -> OwnedValue {
        OwnedValue::try_from(v.into()).unwrap()
    }

    fn wire_pane() -> WirePane {
        let mut p = WirePane::of(&crate::model::Pane::new(
            crate::model::PaneId(4),
            "/src/api",
            "main",
            "",
            crate::model::AgentKind::Claude,
            crate::model::Timestamp(0),
        ));
        p.lifecycle = "blocked".into();
        p.attention = "permission_required".into();
        p.live = crate::client::wire::WireLive {
            state: "exited".into(),
            code: Some(2),
            signal: None,
        };
        p.focused = true;
        p.owned = false;
        p
    }

    #[test]
    fn a_pane_reads_with_its_vocabulary_checked() {
        let p = PaneInfo::of(wire_pane()).unwrap();
        assert_eq!(p.id, "p4");
        assert_eq!(p.name, "p4", "an empty name falls back to the id");
        assert_eq!(p.lifecycle, Lifecycle::Blocked);
        assert_eq!(p.attention, Attention::PermissionRequired);
        assert!(!p.running());
        assert!(p.focused && !p.owned);
        let mut w = wire_pane();
        w.attention = "urgent".into();
        assert_eq!(
            PaneInfo::of(w),
            Err(DataError::Vocabulary {
                what: "attention",
                value: "urgent".into()
            })
        );
    }

    fn ws(key: &str, attention: Attention, since: Option<i64>) -> WorkspaceInfo {
        WorkspaceInfo {
            key: format!("/src/{key}"),
            name: key.to_string(),
            repo: None,
            branch: None,
            agents: vec![],
            tabs: vec![],
            panes: vec![],
            worst_lifecycle: Lifecycle::Idle,
            worst_attention: attention,
            latest_message: None,
            since_attention_change_ms: since,
            host: None,
            offline: false,
        }
    }

    #[test]
    fn the_sidebar_sorts_by_worst_attention_then_recency_or_by_name() {
        let all = [
            ws("alpha", Attention::None, None),
            ws("Beta", Attention::Unread, Some(5_000)),
            ws("gamma", Attention::Error, Some(90_000)),
            ws("delta", Attention::PermissionRequired, Some(1_000)),
            ws("eps", Attention::Unread, Some(1_000)),
            ws("zeta", Attention::None, Some(10)),
            ws("eta", Attention::Warning, None),
        ];
        let keys = |order| -> Vec<String> {
            sidebar_order(&all, order)
                .into_iter()
                .map(|w| w.name.clone())
                .collect()
        };
        assert_eq!(
            keys(SidebarOrder::Attention),
            ["gamma", "delta", "eta", "eps", "Beta", "zeta", "alpha"],
            "error, permission, warning, then the newer unread first; never-changed last"
        );
        assert_eq!(
            keys(SidebarOrder::Name),
            ["alpha", "Beta", "delta", "eps", "eta", "gamma", "zeta"]
        );
    }

    #[test]
    fn pane_actions_follow_ownership_and_liveness() {
        let mut p = PaneInfo::of(wire_pane()).unwrap();
        assert!(!p.running());
        assert!(
            !(p.can_attach() || p.can_kill() || p.can_resume()),
            "not owned"
        );
        p.pane.owned = true;
        assert!(p.can_resume() && !p.can_attach() && !p.can_kill());
        p.pane.live = crate::client::wire::WireLive::of(crate::model::Live::Running);
        assert!(!p.can_resume() && p.can_attach() && p.can_kill());
    }

    #[test]
    fn a_pane_followed_in_tmux_is_known_by_its_location() {
        let mut p = PaneInfo::of(wire_pane()).unwrap();
        assert!(!p.in_tmux());
        p.pane.location = Some([("kind".to_string(), "tmux".to_string())].into());
        assert!(p.in_tmux());
        p.pane.location = Some([("kind".to_string(), "external".to_string())].into());
        assert!(!p.in_tmux());
    }

    #[test]
    fn a_workspace_parses_and_the_snapshot_finds_its_panes() {
        let mut w = Dict::new();
        w.insert("key".into(), ov("/src/api"));
        w.insert("name".into(), ov("api"));
        w.insert("agents".into(), ov(vec!["claude", "shell"]));
        w.insert("tabs".into(), ov(vec!["main"]));
        w.insert("panes".into(), ov(vec!["p4"]));
        w.insert("worst_lifecycle".into(), ov("blocked"));
        w.insert("worst_attention".into(), ov("permission_required"));
        w.insert("since_attention_change_ms".into(), ov(65_000i64));
        let s = Snapshot::parse(vec![wire_pane()], &[w], 9).unwrap();
        let ws = s.workspace("/src/api").unwrap();
        assert_eq!(ws.name, "api");
        assert_eq!(ws.agents, vec!["claude", "shell"]);
        assert_eq!(ws.since_attention_change_ms, Some(65_000));
        assert_eq!(ws.worst_attention, Attention::PermissionRequired);
        let ids: Vec<&str> = s.panes_of("/src/api").map(|p| p.id.as_str()).collect();
        assert_eq!(ids, vec!["p4"]);
        assert!(s.pane("p9").is_none());
    }
}
