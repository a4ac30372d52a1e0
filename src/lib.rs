//! Attend: lifecycle and attention tracking for AI coding agents on the Linux desktop.
//!
//! - [`model`]: the vocabulary (`docs/lifecycle-attention.md`, `docs/taxonomy.md`).
//! - [`engine`]: pure transitions, ordering and summaries (`docs/lifecycle-attention.md`,
//!   spec 024).
//! - [`cli`]: the `attend` command line.

pub mod adapters;
pub mod cli;
pub mod client;
pub mod config;
pub mod engine;
pub mod entry;
pub mod install;
pub mod model;
#[cfg(feature = "gui")]
pub mod panel;
pub mod service;
pub mod settings;
pub mod system;
