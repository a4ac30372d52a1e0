use super::pane_id::PaneId;
use super::time::Timestamp;
use serde::{Deserialize, Serialize};

/// Task id, unique across the store, never reused.
pub type TaskId = u64;

/// State of an obligation (`docs/lifecycle-attention.md#tasks-and-holds`): open → working →
/// reported | failed | input_required.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    Open,
    Working,
    Reported,
    Failed,
    InputRequired,
}

impl TaskState {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Open => "open",
            TaskState::Working => "working",
            TaskState::Reported => "reported",
            TaskState::Failed => "failed",
            TaskState::InputRequired => "input_required",
        }
    }

    /// Open or working: still an obligation.
    pub fn is_outstanding(self) -> bool {
        matches!(self, TaskState::Open | TaskState::Working)
    }
}

/// An obligation on a pane (`docs/lifecycle-attention.md#tasks-and-holds`); open ones make
/// a stopped pane PARKED (`docs/taxonomy.md#diagnoses`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    pub id: TaskId,
    pub pane: PaneId,
    pub text: String,
    pub state: TaskState,
    pub message: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A deliberate stop (HELD, `docs/taxonomy.md#diagnoses`): armed while `now < wake`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hold {
    pub owner: String,
    pub wake: Timestamp,
    pub reason: Option<String>,
}

impl Hold {
    /// Armed until its wake passes.
    pub fn is_armed(&self, now: Timestamp) -> bool {
        now < self.wake
    }
}
