//! The three-axis taxonomy and derived diagnoses (`docs/taxonomy.md`), computed at read
//! time and never stored. One function projects, one bridge renders; every surface shows
//! these values.
//!
//! The activity oracle here never reads tasks or holds
//! (`docs/taxonomy.md#the-oracle-never-reads-tasks-or-holds`): [`diagnose`] is a separate
//! query layer over [`project`]'s output.

use super::ladder::{Activity, NeedsInput};
use crate::model::{Lifecycle, Live, Pane, Timestamp};
use serde::Serialize;

/// Session presence: does a process exist (`docs/taxonomy.md#axes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Presence {
    /// Running, and a client is attached or the pane is focused.
    Present,
    /// Running with no client.
    Detached,
    /// The process exited.
    Exited,
    /// An external pane whose process is no longer known.
    Absent,
}

impl Presence {
    /// Wire name: `present`, `detached`, `exited`, `absent`.
    pub fn as_str(self) -> &'static str {
        match self {
            Presence::Present => "present",
            Presence::Detached => "detached",
            Presence::Exited => "exited",
            Presence::Absent => "absent",
        }
    }
}

/// What a non-present agent can come back as (`docs/taxonomy.md#axes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Resumability {
    /// Running.
    Live,
    /// Exited with a resume argv.
    Resumable,
    /// Exited without a way back (no resume argv known).
    Gone,
}

impl Resumability {
    /// Wire name: `live`, `resumable`, `gone`.
    pub fn as_str(self) -> &'static str {
        match self {
            Resumability::Live => "live",
            Resumability::Resumable => "resumable",
            Resumability::Gone => "gone",
        }
    }
}

/// The projection of one pane on the taxonomy's axes (`docs/taxonomy.md#axes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Taxonomy {
    pub session: Presence,
    pub activity: Activity,
    pub needs_input: NeedsInput,
    /// The one display bridge: `needs-input` whenever count > 0, else the activity.
    pub display: String,
    pub resumability: Resumability,
}

/// The derived diagnoses (`docs/taxonomy.md#diagnoses`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct Diagnoses {
    /// (idle-at-prompt or needs-input) × open obligations, and not held.
    pub parked: bool,
    /// An armed hold with a named owner.
    pub held: bool,
    /// Finished work nobody consumed: done, and not seen since the latest `agent.done`.
    pub done_unseen: bool,
}

/// Runtime facts the projection needs beyond the stored pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RuntimeFacts {
    /// An attach client is connected.
    pub attached: bool,
    /// For external panes: whether the agent's process is known (a pid is watched).
    pub process_known: bool,
    /// Needs-input gates the evidence ladder sees without an open decision: a dialog
    /// matched by screen chrome, or one the agent's self-report says it waits on.
    pub chrome_gates: u32,
}

/// The needs-input reason of a pane `blocked` by a signal that opens no decision (a
/// terminal notification while an agent without hooks works).
pub const BLOCKED_WITHOUT_DECISION_REASON: &str = "terminal notification";

/// The display string of the activity axis ([`Taxonomy::display`]): one of `working`,
/// `idle-at-prompt`, `unknown`, `needs-input`.
pub fn display_activity(activity: Activity, needs_input: &NeedsInput) -> &'static str {
    if needs_input.count > 0 {
        "needs-input"
    } else {
        activity.as_str()
    }
}

/// Projects `pane` (`docs/taxonomy.md#axes`). `ladder_reason` is the needs-input reason the
/// evidence ladder decided (chrome first, then self-report, then hooks: `Ladder::decide`);
/// when given it names the reason of a non-zero count, else the open decision's kind does
/// ("permission prompt", "input needed"), else "usage limit".
pub fn project(pane: &Pane, facts: RuntimeFacts, ladder_reason: Option<&str>) -> Taxonomy {
    let session = match pane.live {
        Live::Exited { .. } => Presence::Exited,
        Live::Running if !pane.owned && !facts.process_known => Presence::Absent,
        Live::Running if facts.attached || pane.focused => Presence::Present,
        Live::Running => Presence::Detached,
    };
    let activity = match pane.lifecycle {
        Lifecycle::Working => Activity::Working,
        Lifecycle::Blocked | Lifecycle::Idle | Lifecycle::Done | Lifecycle::Failed => {
            Activity::IdleAtPrompt
        }
        Lifecycle::Unknown => Activity::Unknown,
    };
    let decisions = u32::from(pane.pending_decision.is_some());
    let mut count = decisions + facts.chrome_gates;
    let mut reason = ladder_reason.map(str::to_string).or_else(|| {
        pane.pending_decision.as_ref().map(|d| match d.kind {
            crate::model::DecisionKind::Permission => "permission prompt".to_string(),
            crate::model::DecisionKind::Question => "input needed".to_string(),
        })
    });
    if let Some(limit) = &pane.limit_reason {
        count = count.max(1);
        reason.get_or_insert_with(|| limit.clone());
    }
    // A blocked pane always shows needs-input (`docs/lifecycle-attention.md#one-verdict`):
    // one that blocked without a decision (a terminal notification on an agent without
    // hooks) waits for what its signal said.
    if pane.lifecycle == Lifecycle::Blocked && count == 0 {
        count = 1;
        reason.get_or_insert_with(|| BLOCKED_WITHOUT_DECISION_REASON.to_string());
    }
    let needs_input = NeedsInput { count, reason };
    let resumability = match pane.live {
        Live::Running => Resumability::Live,
        Live::Exited { .. } if pane.resume_argv.is_some() || !pane.command.is_empty() => {
            Resumability::Resumable
        }
        Live::Exited { .. } => Resumability::Gone,
    };
    Taxonomy {
        display: display_activity(activity, &needs_input).to_string(),
        session,
        activity,
        needs_input,
        resumability,
    }
}

/// The diagnoses over a projection: PARKED, HELD, DONE-UNSEEN
/// (`docs/taxonomy.md#diagnoses`).
pub fn diagnose(pane: &Pane, taxonomy: &Taxonomy, now: Timestamp) -> Diagnoses {
    let held = pane
        .hold
        .as_ref()
        .is_some_and(|h| !h.owner.is_empty() && h.is_armed(now));
    let open_tasks = pane.tasks.iter().any(|t| t.state.is_outstanding());
    let stopped = taxonomy.activity == Activity::IdleAtPrompt || taxonomy.needs_input.count > 0;
    let done_unseen = pane.lifecycle == Lifecycle::Done
        && match (pane.last_seen_at, pane.done_at) {
            (None, _) => true,
            (Some(seen), Some(done)) => seen < done,
            (Some(_), None) => false,
        };
    Diagnoses {
        parked: stopped && open_tasks && !held,
        held,
        done_unseen,
    }
}
