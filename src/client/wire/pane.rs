//! The one wire shape of a pane: [`WirePane`], the Pane dictionary of `GetPane`,
//! `ListPanes` and `ListRemotePanes` (`docs/dbus-api.md#pane-getpane-listpanes`), with its
//! nested dictionaries. The daemon builds it ([`WirePane::of`], the ladder's read-time
//! parts, the mirror's `crate::client::wire::remote_pane`); the CLI, the panel and the
//! remote mirror read it back with the same derive.
//!
//! Each struct is an `a{sv}` dictionary (zvariant's `SerializeDict`/`DeserializeDict`):
//! the field names are the documented keys, and an `Option` field that is `None` is left
//! out of the dictionary (D-Bus has no null), a missing key reads back as `None`. Times
//! are `x`, milliseconds since the Unix epoch (the engine's [`Timestamp`]); vocabulary
//! values are the engine's lower-case wire names. Keys a reader does not know are
//! ignored, a missing key of a non-`Option` field refuses the dictionary.

use crate::model::{AttentionItem, Decision, Live, Pane};
use zbus::zvariant::{DeserializeDict, SerializeDict, Type};

/// `live`: `state` s (`running`, `exited`, or a remote's raw value), `code` i? and
/// `signal` i? (only when known, after an exit).
#[derive(Debug, Clone, PartialEq, Eq, SerializeDict, DeserializeDict, Type)]
#[zvariant(signature = "a{sv}")]
pub struct WireLive {
    pub state: String,
    pub code: Option<i32>,
    pub signal: Option<i32>,
}

impl WireLive {
    /// The engine's liveness.
    pub fn of(live: Live) -> WireLive {
        let (code, signal) = match live {
            Live::Running => (None, None),
            Live::Exited { code, signal } => (code, signal),
        };
        WireLive {
            state: live.as_str().to_string(),
            code,
            signal,
        }
    }

    /// The process has exited (`state` is `exited`).
    pub fn exited(&self) -> bool {
        self.state == "exited"
    }

    /// The live column as shown in tables and `attend show`: `running`, `exited 0`,
    /// `exited sig 9`.
    pub fn text(&self) -> String {
        match (self.state.as_str(), self.code, self.signal) {
            ("exited", _, Some(s)) => format!("exited sig {s}"),
            ("exited", Some(c), None) => format!("exited {c}"),
            (s, _, _) => s.to_string(),
        }
    }
}

/// A decision (`docs/dbus-api.md#decision`): `id` t, `kind` s, `prompt` s, `options` as
/// (the agent's labels), `choices` as (the answer choice names), `source` s
/// (`rung:origin`, `remote` on a mirrored pane), `opened_at` x, `tool_use_id` s?, `gate`
/// b? (`Some(true)` only on an external pane's gate in `GetPane`/`ListPanes`, never in
/// event data; absent otherwise).
#[derive(Debug, Clone, PartialEq, Eq, SerializeDict, DeserializeDict, Type)]
#[zvariant(signature = "a{sv}")]
pub struct WireDecision {
    pub id: u64,
    pub kind: String,
    pub prompt: String,
    pub options: Vec<String>,
    pub choices: Vec<String>,
    pub source: String,
    pub opened_at: i64,
    pub tool_use_id: Option<String>,
    pub gate: Option<bool>,
}

impl WireDecision {
    /// The engine's decision, without `gate` (the daemon sets it on a gated pane).
    pub fn of(d: &Decision) -> WireDecision {
        WireDecision {
            id: d.id,
            kind: d.kind.as_str().to_string(),
            prompt: d.prompt.clone(),
            options: d.options.clone(),
            choices: d.choices(),
            source: d.source.to_string(),
            opened_at: d.opened_at.0,
            tool_use_id: d.tool_use_id.clone(),
            gate: None,
        }
    }

    /// True on an external pane's gate that the daemon answers through the agent's
    /// waiting hook run.
    pub fn is_gate(&self) -> bool {
        self.gate == Some(true)
    }
}

/// An outstanding attention item: `level` s, `source` s, `at` x, `decision` t? (the id of
/// the decision that raised it).
#[derive(Debug, Clone, PartialEq, Eq, SerializeDict, DeserializeDict, Type)]
#[zvariant(signature = "a{sv}")]
pub struct WireItem {
    pub level: String,
    pub source: String,
    pub at: i64,
    pub decision: Option<u64>,
}

impl WireItem {
    /// The engine's item.
    pub fn of(i: &AttentionItem) -> WireItem {
        WireItem {
            level: i.level.as_str().to_string(),
            source: i.source.to_string(),
            at: i.at.0,
            decision: i.decision,
        }
    }
}

/// `needs_input` of the taxonomy: `count` u (prompts waiting), `reason` s?.
#[derive(Debug, Clone, PartialEq, Eq, SerializeDict, DeserializeDict, Type)]
#[zvariant(signature = "a{sv}")]
pub struct WireNeedsInput {
    pub count: u32,
    pub reason: Option<String>,
}

/// `taxonomy`: the projection of `docs/taxonomy.md#axes`, computed at read time:
/// `session` s, `activity` s, `needs_input` a{sv}, `display` s, `resumability` s.
#[derive(Debug, Clone, PartialEq, Eq, SerializeDict, DeserializeDict, Type)]
#[zvariant(signature = "a{sv}")]
pub struct WireTaxonomy {
    pub session: String,
    pub activity: String,
    pub needs_input: WireNeedsInput,
    pub display: String,
    pub resumability: String,
}

/// `diagnoses`: `parked`, `held`, `done_unseen` (b), computed at read time.
#[derive(Debug, Clone, PartialEq, Eq, SerializeDict, DeserializeDict, Type)]
#[zvariant(signature = "a{sv}")]
pub struct WireDiagnoses {
    pub parked: bool,
    pub held: bool,
    pub done_unseen: bool,
}

/// One task of the pane: `id` t, `pane` s, `text` s, `state` s (`open`, `working`,
/// `reported`, `failed`, `input_required`), `message` s?, `created_at` x, `updated_at` x.
#[derive(Debug, Clone, PartialEq, Eq, SerializeDict, DeserializeDict, Type)]
#[zvariant(signature = "a{sv}")]
pub struct WireTask {
    pub id: u64,
    pub pane: String,
    pub text: String,
    pub state: String,
    pub message: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// `hold`: `owner` s, `wake_at` x, `reason` s?, `armed` b (the wake is still ahead).
#[derive(Debug, Clone, PartialEq, Eq, SerializeDict, DeserializeDict, Type)]
#[zvariant(signature = "a{sv}")]
pub struct WireHold {
    pub owner: String,
    pub wake_at: i64,
    pub reason: Option<String>,
    pub armed: bool,
}

/// One pane on the wire: the Pane dictionary (`docs/dbus-api.md#pane-getpane-listpanes`)
/// of `GetPane` and `ListPanes`, and the Remote pane dictionary of `ListRemotePanes`
/// (`docs/dbus-api.md#remote-pane`), which keeps fewer keys.
///
/// The `Option` fields marked "this machine's panes" are always set by `GetPane` and
/// `ListPanes` and absent on a mirrored pane; `taxonomy`, `diagnoses` and `tasks` are the
/// daemon's read-time parts (absent from [`WirePane::of`] until it adds them); `host`,
/// `offline` and `degraded` are set on a mirrored pane only.
#[derive(Debug, Clone, PartialEq, Eq, SerializeDict, DeserializeDict, Type)]
#[zvariant(signature = "a{sv}")]
pub struct WirePane {
    /// `pN`, or `NAME:pN` for a mirrored pane.
    pub id: String,
    pub name: String,
    /// The workspace key (git top level of the cwd, else the cwd, or what `-w` gave).
    pub workspace: String,
    pub tab: String,
    pub agent: String,
    pub lifecycle: String,
    /// The lifecycle when the process exited.
    pub last_lifecycle: Option<String>,
    /// The highest outstanding attention item's level.
    pub attention: String,
    pub live: WireLive,
    /// Outstanding attention items (this machine's panes).
    pub items: Option<Vec<WireItem>>,
    pub pending_decision: Option<WireDecision>,
    /// The last explicit message (hook summary, notification text).
    pub last_message: Option<String>,
    pub last_message_at: Option<i64>,
    pub last_seen_at: Option<i64>,
    pub attention_changed_at: Option<i64>,
    pub done_at: Option<i64>,
    /// When the process last exited; absent while it runs.
    pub exited_at: Option<i64>,
    /// When the pane was created (this machine's panes).
    pub created_at: Option<i64>,
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub title: Option<String>,
    /// The git top level's directory name.
    pub repo: Option<String>,
    pub branch: Option<String>,
    pub limit_reason: Option<String>,
    /// How to resume the agent session.
    pub resume_argv: Option<Vec<String>>,
    /// The argv Attend spawned, empty for an external pane (this machine's panes).
    pub command: Option<Vec<String>>,
    pub focused: bool,
    /// Exit 0 means done (this machine's panes).
    pub oneshot: Option<bool>,
    /// Attend owns the PTY.
    pub owned: bool,
    /// A hook of the pane's agent has arrived (this machine's panes).
    pub hooks_seen: Option<bool>,
    pub taxonomy: Option<WireTaxonomy>,
    pub diagnoses: Option<WireDiagnoses>,
    pub tasks: Option<Vec<WireTask>>,
    pub hold: Option<WireHold>,
    /// The remote a mirrored pane comes from.
    pub host: Option<String>,
    /// A mirrored pane whose link is down: the values are the last ones seen.
    pub offline: Option<bool>,
    /// A mirrored pane with a value this side does not know, shown raw.
    pub degraded: Option<bool>,
    /// Where the pane lives (this machine's panes; `docs/tmux.md#identity`): `kind`
    /// `owned`, `tmux` (with `socket`, `server_pid`, `pane` `%N` and `place`
    /// `session:window.pane`) or `external`.
    pub location: Option<std::collections::BTreeMap<String, String>>,
    /// The folder of the git worktree Attend made for the pane (`attend run
    /// --worktree`, `docs/worktrees.md`); absent for every other pane.
    pub worktree: Option<String>,
}

impl WirePane {
    /// The pane as `GetPane` sends it, without the daemon's read-time parts (`taxonomy`,
    /// `diagnoses`, `tasks`, `hold`) and without `gate` on its decision: the one place
    /// the engine's state becomes the wire shape.
    pub fn of(p: &Pane) -> WirePane {
        WirePane {
            id: p.id.to_string(),
            name: p.name.clone(),
            workspace: p.workspace.clone(),
            tab: p.tab.clone(),
            agent: p.agent.as_str().to_string(),
            lifecycle: p.lifecycle.as_str().to_string(),
            last_lifecycle: p.last_lifecycle.map(|l| l.as_str().to_string()),
            attention: p.attention().as_str().to_string(),
            live: WireLive::of(p.live),
            items: Some(p.items.iter().map(WireItem::of).collect()),
            pending_decision: p.pending_decision.as_ref().map(WireDecision::of),
            last_message: p.last_message.clone(),
            last_message_at: p.last_message_at.map(|t| t.0),
            last_seen_at: p.last_seen_at.map(|t| t.0),
            attention_changed_at: p.attention_changed_at.map(|t| t.0),
            done_at: p.done_at.map(|t| t.0),
            exited_at: p.exited_at.map(|t| t.0),
            created_at: Some(p.created_at.0),
            session_id: p.session_id.clone(),
            cwd: p.cwd.clone(),
            title: p.title.clone(),
            repo: p.repo.clone(),
            branch: p.branch.clone(),
            limit_reason: p.limit_reason.clone(),
            resume_argv: p.resume_argv.clone(),
            command: Some(p.command.clone()),
            focused: p.focused,
            oneshot: Some(p.oneshot),
            owned: p.owned,
            hooks_seen: Some(p.hooks_seen),
            taxonomy: None,
            diagnoses: None,
            tasks: None,
            hold: None,
            host: None,
            offline: None,
            degraded: None,
            location: Some(location(p)),
            worktree: p.worktree.clone(),
        }
    }

    /// A mirrored pane whose host's link is down.
    pub fn is_offline(&self) -> bool {
        self.offline == Some(true)
    }
}

/// The `location` dictionary of pane `p` (see [`WirePane::location`]).
fn location(p: &Pane) -> std::collections::BTreeMap<String, String> {
    let mut m = std::collections::BTreeMap::new();
    match (&p.tmux, p.owned) {
        (Some(l), _) => {
            m.insert("kind".into(), "tmux".into());
            m.insert("socket".into(), l.socket.clone());
            m.insert("server_pid".into(), l.server_pid.to_string());
            m.insert("pane".into(), l.pane.clone());
            m.insert("place".into(), l.place.clone());
        }
        (None, true) => {
            m.insert("kind".into(), "owned".into());
        }
        (None, false) => {
            m.insert("kind".into(), "external".into());
        }
    }
    m
}

#[cfg(test)]
mod tests;
