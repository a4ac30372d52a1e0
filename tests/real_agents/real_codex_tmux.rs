//! The real Codex CLI in a pane of the user's own tmux (docs/tmux.md#answers), with no
//! hook installed, against the scripted model: its approval dialog, read from the
//! followed screen, answered with `attend answer PANE allow` (the command runs, the
//! model receives its result) and `deny` (it never runs), typed through `tmux send-keys`.
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1` (docs/real-agents.md).

use crate::support;
use crate::tmux_agent::TmuxAgent;

use std::time::{Duration, Instant};
use support::agents::Cli;
use support::model_server::Reply;
use support::scenario::{COMMAND, DONE};

/// Codex's header, drawn once it is up.
const READY: &str = "OpenAI Codex";
/// Codex's approval dialog.
const RUN: &str = "Would you like to run the following command?";

/// One escalated command, then [`DONE`].
fn gate() -> Vec<Reply> {
    vec![
        Reply::codex_escalated(COMMAND, "Write a file"),
        Reply::text(DONE),
    ]
}

#[test]
fn codex_gate_in_tmux_allowed_with_attend_answer_runs_the_command() {
    let Some(t) = TmuxAgent::start(Cli::Codex, gate(), false) else {
        return;
    };
    let v = t.to_decision(READY, "write the file", RUN);
    assert_eq!(v["attention"], "permission_required", "{v:#}");
    t.env.ok(&["answer", &t.pane, "allow"]);
    t.wait_command_ran();
    t.env.wait_until("the model received the result", || {
        t.server.turns().len() >= 2
    });
    t.wait("the decision closed", |v| v["pending_decision"].is_null());
    eprintln!("codex gate allowed in tmux: {:.1} s", t.took());
}

#[test]
fn codex_gate_in_tmux_denied_with_attend_answer_runs_nothing() {
    let Some(t) = TmuxAgent::start(Cli::Codex, gate(), false) else {
        return;
    };
    t.to_decision(READY, "write the file", RUN);
    t.env.ok(&["answer", &t.pane, "deny"]);
    t.wait("the decision closed", |v| {
        v["pending_decision"].is_null() && v["attention"] != "permission_required"
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    while t.screen().contains(RUN) {
        assert!(
            Instant::now() < deadline,
            "the dialog stays:\n{}",
            t.screen()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_secs(1));
    assert!(!t.command_ran(), "the denied command did not run");
    eprintln!("codex gate denied in tmux: {:.1} s", t.took());
}
