//! The daemon's values as the panel reads them: `ListPanes`, `ListWorkspaces` and the
//! decision inside a pane, parsed from their `a{sv}` dictionaries (keys documented in
//! `docs/dbus-api.md` and `src/client/wire.rs`).
//!
//! Parsing only: nothing here derives state. Lifecycle and attention are checked against
//! the engine's vocabulary ([`Lifecycle::parse`], [`Attention::parse`]); a dictionary
//! without the keys every pane or workspace has is refused with [`DataError`].

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

/// The open decision of a pane (`pending_decision`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecisionInfo {
    /// Decision id (`t`).
    pub id: u64,
    /// `permission`, `question`, … (the engine's `DecisionKind` wire name).
    pub kind: String,
    pub prompt: String,
    /// Every option the agent offered.
    pub options: Vec<String>,
    /// The options Attend can answer (one answer button each).
    pub choices: Vec<String>,
}

/// Process liveness (`live`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiveInfo {
    pub running: bool,
    /// Exit code, when the process exited.
    pub code: Option<i32>,
    /// Signal number, when the process was killed.
    pub signal: Option<i32>,
}

/// One pane (`ListPanes` entry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneInfo {
    /// `p3`.
    pub id: String,
    pub name: String,
    /// Workspace key.
    pub workspace: String,
    pub tab: String,
    /// Agent kind wire name (`claude`).
    pub agent: String,
    pub lifecycle: Lifecycle,
    pub attention: Attention,
    pub live: LiveInfo,
    pub decision: Option<DecisionInfo>,
    pub last_message: Option<String>,
    pub cwd: Option<String>,
    pub repo: Option<String>,
    pub branch: Option<String>,
    /// The daemon counts the pane as focused (an attach client or this panel).
    pub focused: bool,
    /// Attend owns the PTY (kill, resume, attach and answers are possible).
    pub owned: bool,
    /// The remote the pane is mirrored from (`ListRemotePanes`' `host`); `None` for this
    /// machine's panes.
    pub host: Option<String>,
    /// A mirrored pane whose host's link is down: the values are the last ones seen.
    pub offline: bool,
    /// When the pane's attention last changed (ms since the epoch), when known.
    pub attention_changed_at: Option<i64>,
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

/// A nested `a{sv}` under `key`.
fn dict(map: &Dict, key: &str) -> Option<Dict> {
    let Some(Value::Dict(d)) = field(map, key) else {
        return None;
    };
    let mut out = Dict::new();
    for (k, v) in d.iter() {
        let (Value::Str(k), Ok(v)) = (k, v.try_clone()) else {
            continue;
        };
        let v = match v {
            Value::Value(inner) => *inner,
            other => other,
        };
        if let Ok(v) = OwnedValue::try_from(v) {
            out.insert(k.to_string(), v);
        }
    }
    Some(out)
}

fn lifecycle(map: &Dict, what: &'static str, key: &'static str) -> Result<Lifecycle, DataError> {
    let s = req_str(map, what, key)?;
    Lifecycle::parse(&s).ok_or(DataError::Vocabulary {
        what: "lifecycle",
        value: s,
    })
}

fn attention(map: &Dict, what: &'static str, key: &'static str) -> Result<Attention, DataError> {
    let s = req_str(map, what, key)?;
    Attention::parse(&s).ok_or(DataError::Vocabulary {
        what: "attention",
        value: s,
    })
}

impl DecisionInfo {
    /// Parses a decision dictionary (`decision_dict` in the daemon).
    pub fn from_dict(map: &Dict) -> Result<DecisionInfo, DataError> {
        let id = int(map, "id").ok_or(DataError::Missing {
            what: "decision",
            key: "id",
        })?;
        Ok(DecisionInfo {
            id: id as u64,
            kind: req_str(map, "decision", "kind")?,
            prompt: opt_str(map, "prompt").unwrap_or_default(),
            options: strs(map, "options"),
            choices: strs(map, "choices"),
        })
    }
}

impl PaneInfo {
    /// Parses one `ListPanes` / `GetPane` dictionary.
    ///
    /// Errors: [`DataError::Missing`] without id, workspace, lifecycle or attention;
    /// [`DataError::Vocabulary`] for values outside the engine's vocabulary.
    pub fn from_dict(map: &Dict) -> Result<PaneInfo, DataError> {
        let id = req_str(map, "pane", "id")?;
        let live = dict(map, "live").unwrap_or_default();
        let decision = match dict(map, "pending_decision") {
            Some(d) => Some(DecisionInfo::from_dict(&d)?),
            None => None,
        };
        Ok(PaneInfo {
            name: opt_str(map, "name")
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| id.clone()),
            id,
            workspace: req_str(map, "pane", "workspace")?,
            tab: opt_str(map, "tab").unwrap_or_default(),
            agent: opt_str(map, "agent").unwrap_or_default(),
            lifecycle: lifecycle(map, "pane", "lifecycle")?,
            attention: attention(map, "pane", "attention")?,
            live: LiveInfo {
                running: opt_str(&live, "state").as_deref() != Some("exited"),
                code: int(&live, "code").map(|c| c as i32),
                signal: int(&live, "signal").map(|s| s as i32),
            },
            decision,
            last_message: opt_str(map, "last_message"),
            cwd: opt_str(map, "cwd"),
            repo: opt_str(map, "repo"),
            branch: opt_str(map, "branch"),
            focused: boolean(map, "focused"),
            owned: boolean(map, "owned"),
            host: opt_str(map, "host").filter(|h| !h.is_empty()),
            offline: boolean(map, "offline"),
            attention_changed_at: int(map, "attention_changed_at"),
        })
    }
}

impl PaneInfo {
    /// Attend can attach a terminal to the pane: it runs the program and it is running,
    /// on this machine (a remote pane's terminal is not carried over its link).
    /// The Attach button's sensitivity and the attach shortcut's check.
    pub fn can_attach(&self) -> bool {
        self.owned && self.live.running && self.host.is_none()
    }

    /// Attend can kill the pane's program: it runs it and it is running.
    pub fn can_kill(&self) -> bool {
        self.owned && self.live.running
    }

    /// Attend can resume the pane: it ran its program, which has exited, on this machine
    /// (`Resume` is not routed to a remote, `docs/remote.md`).
    pub fn can_resume(&self) -> bool {
        self.owned && !self.live.running && self.host.is_none()
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
    /// Parses `ListPanes` and `ListWorkspaces` replies.
    ///
    /// Errors: the first dictionary that does not parse.
    pub fn parse(panes: &[Dict], workspaces: &[Dict], seq: u64) -> Result<Snapshot, DataError> {
        Ok(Snapshot {
            panes: panes
                .iter()
                .map(PaneInfo::from_dict)
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

    fn pane_dict() -> Dict {
        let mut live: HashMap<String, Value<'static>> = HashMap::new();
        live.insert("state".into(), Value::from("exited"));
        live.insert("code".into(), Value::from(2i32));
        let mut decision: HashMap<String, Value<'static>> = HashMap::new();
        decision.insert("id".into(), Value::from(7u64));
        decision.insert("kind".into(), Value::from("permission"));
        decision.insert("prompt".into(), Value::from("Bash: npm test"));
        decision.insert(
            "options".into(),
            Value::from(vec!["allow", "deny", "other"]),
        );
        decision.insert("choices".into(), Value::from(vec!["allow", "deny"]));
        let mut d = Dict::new();
        d.insert("id".into(), ov("p4"));
        d.insert("name".into(), ov(""));
        d.insert("workspace".into(), ov("/src/api"));
        d.insert("tab".into(), ov("main"));
        d.insert("agent".into(), ov("claude"));
        d.insert("lifecycle".into(), ov("blocked"));
        d.insert("attention".into(), ov("permission_required"));
        d.insert("live".into(), ov(live));
        d.insert("pending_decision".into(), ov(decision));
        d.insert("focused".into(), ov(true));
        d
    }

    #[test]
    fn a_pane_parses_with_its_nested_live_and_decision() {
        let p = PaneInfo::from_dict(&pane_dict()).unwrap();
        assert_eq!(p.id, "p4");
        assert_eq!(p.name, "p4", "an empty name falls back to the id");
        assert_eq!(p.lifecycle, Lifecycle::Blocked);
        assert_eq!(p.attention, Attention::PermissionRequired);
        assert_eq!(
            p.live,
            LiveInfo {
                running: false,
                code: Some(2),
                signal: None
            }
        );
        let d = p.decision.unwrap();
        assert_eq!((d.id, d.kind.as_str()), (7, "permission"));
        assert_eq!(d.choices, vec!["allow", "deny"]);
        assert_eq!(d.options.len(), 3);
        assert!(p.focused);
        assert!(!p.owned);
        assert_eq!(p.last_message, None);
    }

    #[test]
    fn values_outside_the_vocabulary_and_missing_keys_are_refused() {
        let mut d = pane_dict();
        d.insert("attention".into(), ov("urgent"));
        assert_eq!(
            PaneInfo::from_dict(&d),
            Err(DataError::Vocabulary {
                what: "attention",
                value: "urgent".into()
            })
        );
        d.remove("id");
        assert!(matches!(
            PaneInfo::from_dict(&d),
            Err(DataError::Missing { key: "id", .. })
        ));
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
        let mut p = PaneInfo::from_dict(&pane_dict()).unwrap();
        assert!(!p.live.running);
        assert!(
            !(p.can_attach() || p.can_kill() || p.can_resume()),
            "not owned"
        );
        p.owned = true;
        assert!(p.can_resume() && !p.can_attach() && !p.can_kill());
        p.live.running = true;
        assert!(!p.can_resume() && p.can_attach() && p.can_kill());
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
        let s = Snapshot::parse(&[pane_dict()], &[w], 9).unwrap();
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
