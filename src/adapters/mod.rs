//! Adapters: turn what agents and terminals send into the engine's signals (pure
//! parsing, no I/O).

pub mod answer;
pub mod dialog;
pub mod hooks;
pub mod keys;
pub mod manifest;
pub mod mirror;
pub mod notices;
pub mod permission;
pub mod terminal_signals;
pub mod tmux;
pub mod turn_errors;
