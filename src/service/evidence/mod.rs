//! The evidence sources beside hooks (`docs/lifecycle-attention.md`, the evidence ladder;
//! `docs/decisions/0003-ladder-in-the-daemon.md`): the [`ladder_host`] binds each pane to
//! its sources and hands every reading to the pane's machine as an input — the agent's
//! self-report file ([`selfreport`], inotify), the screen's chrome ([`chrome`]: the screen
//! manifests' rules over the vt100 screen), window sampling ([`sampling`]) — and arms the
//! one timer the machine asks for. [`git`] looks up a working directory's git facts off
//! the owner task.

pub mod chrome;
pub mod git;
pub mod ladder_host;
pub mod sampling;
pub mod selfreport;
