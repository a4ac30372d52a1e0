//! The pure state engine: transitions, ordering and summaries.
//!
//! Inputs are [`crate::model::Signal`]s and [`crate::model::Action`]s with their time;
//! outputs are the new state and the [`crate::model::Event`]s it emitted. No I/O, no clock.
//! The rules: `docs/lifecycle-attention.md` (signals, clearing rules, session end and exit,
//! names and ordering) and spec 024.

pub mod away;
mod dialogs;
pub mod ladder;
pub mod machine;
mod order;
mod quiet;
pub mod removal;
mod retries;
mod screen_errors;
mod summary;
mod table;
pub mod taxonomy;
mod transition;
pub mod verdict;
mod view;
mod world;

pub use dialogs::{
    closed_gate_step, dismissal_due, ClosedScreen, ShownDialog, ANSWER_CONFIRM_MS,
    ANSWER_SETTLE_MS, CHROME_ORIGIN, DIALOG_GONE_MS,
};
pub use order::{next_rank, next_unread_order, NextRank};
pub use quiet::{is_interactive_shell, start_quiet, SHELL_QUIET_MS};
pub use retries::ModelRetries;
pub use screen_errors::{screen_error_step, ERROR_AFTER_STOP_MS, ERROR_ORIGIN};
pub use summary::{
    summarize, summarize_workspaces, workspace_name, Member, Summary, WorkspaceSummary,
};
pub use table::{clip, escape_controls, is_bidi_control, width, Column, Table};
pub use transition::{
    apply_action, apply_signal, output_is_signal, Emitted, KILLED_BY_YOU, KILL_INTENT_MS,
};
pub use view::{in_vocabulary, MESSAGE_COLUMN, NAME_COLUMN, TAB_COLUMN};
pub use world::{EngineError, HookAgent, NewPane, World};

#[cfg(test)]
mod machine_dismissal_tests;
