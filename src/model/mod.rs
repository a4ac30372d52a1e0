//! The vocabulary of Attend: lifecycle, attention, decisions, panes, signals and events.
//!
//! Everything here is plain data. No I/O, no clock: times are [`Timestamp`] values that the
//! caller passes in. The values and their meaning: `docs/lifecycle-attention.md` ("Two
//! independent axes") and `docs/taxonomy.md`.

pub mod agents;
mod attention;
mod decision;
mod event;
mod host;
mod lifecycle;
mod pane;
mod pane_id;
mod signal;
mod source;
mod task;
mod time;

pub use attention::{Attention, AttentionItem};
pub use decision::{
    is_subagent_scope, subagent_scope, AnswerKey, Decision, DecisionKind, Resolution,
};
pub use event::{Event, EventKind};
pub use host::{no_such_pane_text, HostName, PaneRef, HOST_NAME_MAX};
pub use lifecycle::{Lifecycle, Live};
pub use pane::{AgentKind, Identity, Pane, StartQuiet, TmuxLocation};
pub use pane_id::PaneId;
pub use signal::{Action, GateRef, PromptMark, Signal, SignalKind};
pub use source::{Rung, Source};
pub use task::{Hold, Task, TaskId, TaskState};
pub use time::Timestamp;
