//! The reliability suite (CI stage `reliability`, docs/reliability.md): crashes, outages,
//! load, damaged storage, hostile input and file modes against the real daemon. One test
//! binary; each module is one file of this directory, e.g.
//! `cargo test --test reliability reliability_faults:: -- --nocapture`.

#[path = "../desktop/mod.rs"]
mod desktop;
#[path = "../support/mod.rs"]
mod support;

mod reliability_access;
mod reliability_db;
mod reliability_faults;
mod reliability_input;
mod reliability_load;
mod reliability_modes;
mod reliability_outage;
