//! The integration tests (CI stage `integration`, `build-aux/test.sh`): one test binary,
//! so the library is linked once for all of them. Each module is one file of this
//! directory; run one with `cargo test --test integration daemon_cli::` (libtest filters
//! match the whole test path, module included).
//!
//! The modules share one process and run side by side (as many at once as libtest's
//! threads): none may change process-wide state (current directory, environment,
//! umask, signal dispositions) other than in the children it starts.

#[path = "../desktop/mod.rs"]
mod desktop;
#[cfg(feature = "gui")]
#[path = "../panel/mod.rs"]
mod panel;
#[path = "../support/mod.rs"]
mod support;

/// proptest's configuration with `cases` cases, whose failures are saved beside the
/// test's source file and replayed first (`engine_invariant.rs` →
/// `engine_invariant.proptest-regressions`; check them in). proptest's default
/// (`SourceParallel`) would put them into `tests/proptest-regressions/`, beside the nearest
/// directory holding a `main.rs`: this one.
fn proptest_config(cases: u32) -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..proptest::test_runner::Config::with_cases(cases)
    }
}

mod adapters_hooks;
mod adapters_hooks_amp;
mod adapters_hooks_auggie;
mod adapters_hooks_cline;
mod adapters_hooks_continue;
mod adapters_hooks_crush;
mod adapters_hooks_hermes;
mod adapters_hooks_kimi;
mod adapters_hooks_letta;
mod adapters_hooks_mastracode;
mod adapters_hooks_py;
mod adapters_hooks_qoder;
mod adapters_kilo;
mod adapters_omp;
mod adapters_opencode;
mod adapters_pi;
mod away;
mod cli_output;
mod daemon_attach;
mod daemon_attach_watch;
mod daemon_cli;
mod daemon_dialogs;
mod daemon_follow;
mod daemon_gates;
mod daemon_holders;
mod daemon_hooks;
mod daemon_idle;
mod daemon_ladder;
mod daemon_remove;
mod daemon_restart;
mod daemon_spool;
mod daemon_terminal;
mod db;
mod db_remote;
mod engine_invariant;
mod engine_ladder;
mod engine_props;
mod engine_rules;
mod engine_summary;
mod engine_taxonomy;
mod install_cline;
mod install_hooks;
mod install_kilo;
mod install_kimi;
mod install_letta;
mod install_mastracode;
mod install_omp;
mod install_opencode;
mod install_pi;
mod install_py;
mod killed_test_run;
mod notifications;
mod notifications_reply;
#[cfg(feature = "gui")]
mod panel_data;
#[cfg(feature = "gui")]
mod panel_keys;
#[cfg(feature = "gui")]
mod panel_narrow;
#[cfg(feature = "gui")]
mod panel_needs;
#[cfg(feature = "gui")]
mod panel_new_agent;
#[cfg(feature = "gui")]
mod panel_terminal;
#[cfg(feature = "gui")]
mod panel_ui;
mod private_bus;
mod pty_host;
mod record_negative_screens;
mod remote_actions;
mod remote_events;
mod remote_link;
mod remote_scale;
mod remote_scenario;
mod remote_surfaces;
mod screen_corpus;
mod sound;
mod spool;
mod sshd_harness;
mod status;
mod terminal_scanner;
mod tmux_attach;
mod tmux_focus;
mod tmux_follow;
mod tmux_gone;
mod tmux_inside;
mod tmux_modes;
mod tmux_remote;
mod tmux_remove;
mod tmux_resize;
mod tmux_restart;
mod tmux_resume;
mod tmux_seat;
mod tmux_send;
mod tmux_start;
mod tmux_support;
mod tray;
mod worktree_cli;
