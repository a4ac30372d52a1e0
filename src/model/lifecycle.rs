use serde::{Deserialize, Serialize};
use std::fmt;

/// What the agent in a pane is doing (`docs/lifecycle-attention.md#lifecycle`).
///
/// Never `exited`: process liveness is [`Live`], orthogonal to this.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Lifecycle {
    /// No adapter signal yet (new pane, generic shell).
    #[default]
    Unknown,
    /// The agent is making progress.
    Working,
    /// Waiting on the human (input or permission).
    Blocked,
    /// The turn or task completed.
    Done,
    /// Alive, nothing running.
    Idle,
    /// Errored. Terminal for the turn, not for the pane.
    Failed,
}

impl Lifecycle {
    /// Every value, in declaration order.
    pub const ALL: [Lifecycle; 6] = [
        Lifecycle::Unknown,
        Lifecycle::Working,
        Lifecycle::Blocked,
        Lifecycle::Done,
        Lifecycle::Idle,
        Lifecycle::Failed,
    ];

    /// The lower-case wire name (`"working"`), as used by the CLI, D-Bus and event kinds.
    pub fn as_str(self) -> &'static str {
        match self {
            Lifecycle::Unknown => "unknown",
            Lifecycle::Working => "working",
            Lifecycle::Blocked => "blocked",
            Lifecycle::Done => "done",
            Lifecycle::Idle => "idle",
            Lifecycle::Failed => "failed",
        }
    }

    /// Parses a wire name; `None` for anything outside the vocabulary.
    pub fn parse(s: &str) -> Option<Lifecycle> {
        Lifecycle::ALL.into_iter().find(|l| l.as_str() == s)
    }

    /// Rank for the workspace summary's "worst lifecycle"
    /// (`docs/lifecycle-attention.md#workspace-summary`): blocked > failed > working >
    /// done > idle. `unknown` ranks lowest: it is the absence of a signal, so any pane that
    /// says something outranks it, and a workspace whose panes all say nothing honestly
    /// shows `unknown`.
    pub fn summary_rank(self) -> u8 {
        match self {
            Lifecycle::Blocked => 5,
            Lifecycle::Failed => 4,
            Lifecycle::Working => 3,
            Lifecycle::Done => 2,
            Lifecycle::Idle => 1,
            Lifecycle::Unknown => 0,
        }
    }

    /// `done` or `failed`: the turn is over with an outcome.
    pub fn is_terminal(self) -> bool {
        matches!(self, Lifecycle::Done | Lifecycle::Failed)
    }
}

impl fmt::Display for Lifecycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Process liveness of a pane, orthogonal to [`Lifecycle`]; on exit the pane keeps its last
/// lifecycle (`docs/lifecycle-attention.md#liveness`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Live {
    /// The pane's process is running.
    #[default]
    Running,
    /// The process is gone: exit `code` when it exited, `signal` number when killed.
    Exited {
        code: Option<i32>,
        signal: Option<i32>,
    },
}

impl Live {
    /// `"running"` or `"exited"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Live::Running => "running",
            Live::Exited { .. } => "exited",
        }
    }

    /// True while the process runs.
    pub fn is_running(self) -> bool {
        matches!(self, Live::Running)
    }
}
