use super::attention::Attention;
use super::decision::{Decision, Resolution};
use super::lifecycle::Lifecycle;
use super::pane_id::PaneId;
use super::source::Source;
use super::task::{TaskId, TaskState};
use super::time::Timestamp;
use serde::{Deserialize, Serialize};

/// What happened (every lifecycle change emits `agent.<state>` with the previous value and
/// the source, `docs/lifecycle-attention.md#every-lifecycle-change-is-an-event`;
/// attention.created / .cleared; decisions; exit; tasks).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// `agent.<value>`: lifecycle changed from `previous`.
    Agent {
        previous: Lifecycle,
        value: Lifecycle,
    },
    /// `attention.created`: an item of `level` was raised; `shown` is the pane's new
    /// attention.
    AttentionCreated { level: Attention, shown: Attention },
    /// `attention.cleared`: items of `levels` were removed; `shown` is what remains.
    AttentionCleared {
        levels: Vec<Attention>,
        shown: Attention,
    },
    /// `decision.opened`.
    DecisionOpened { decision: Decision },
    /// `decision.resolved`.
    DecisionResolved { id: u64, resolution: Resolution },
    /// `pane.exited`.
    PaneExited {
        code: Option<i32>,
        signal: Option<i32>,
    },
    /// `pane.handover`: a new session occupies the pane.
    PaneHandover {
        previous_session: Option<String>,
        session_id: Option<String>,
    },
    /// `pane.added`.
    PaneAdded,
    /// `pane.removed`.
    PaneRemoved,
    /// `pane.changed`: identity or message fields changed without a state event.
    PaneChanged,
    /// `task.<state>`.
    Task { id: TaskId, state: TaskState },
    /// `rung.health`: the trust of an evidence rung changed
    /// (`docs/taxonomy.md#trust-and-promotion`: promotion after an agreement window,
    /// degradation on persistent contradiction). `from` and `to` are trust wire names
    /// (`authoritative`, `trial`, `identity-only`, `absent`).
    RungHealth {
        rung: super::source::Rung,
        from: String,
        to: String,
        reason: String,
    },
}

impl EventKind {
    /// The dotted kind name: `agent.working`, `attention.created`, `task.reported` …
    pub fn name(&self) -> String {
        match self {
            EventKind::Agent { value, .. } => format!("agent.{value}"),
            EventKind::AttentionCreated { .. } => "attention.created".into(),
            EventKind::AttentionCleared { .. } => "attention.cleared".into(),
            EventKind::DecisionOpened { .. } => "decision.opened".into(),
            EventKind::DecisionResolved { .. } => "decision.resolved".into(),
            EventKind::PaneExited { .. } => "pane.exited".into(),
            EventKind::PaneHandover { .. } => "pane.handover".into(),
            EventKind::PaneAdded => "pane.added".into(),
            EventKind::PaneRemoved => "pane.removed".into(),
            EventKind::PaneChanged => "pane.changed".into(),
            EventKind::Task { state, .. } => format!("task.{}", state.as_str()),
            EventKind::RungHealth { .. } => "rung.health".into(),
        }
    }
}

/// One entry of the event log. `seq` is assigned by the store, monotonic, never reused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub seq: u64,
    pub pane: PaneId,
    pub kind: EventKind,
    pub source: Source,
    pub at: Timestamp,
}
