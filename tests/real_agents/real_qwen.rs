//! Real-agent scenarios of Qwen Code: the pinned real CLI runs INSIDE an Attend pane
//! (`attend run`), with the hooks `attend install-hooks qwen` writes into the test's HOME,
//! against the scripted model server's OpenAI Chat Completions API on 127.0.0.1. Every
//! step is asserted through `attend show --json` (`tests/support/scenario.rs`;
//! docs/real-agents.md, docs/adapters.md "Qwen Code").
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1`. Each test has its own daemon, bus, model server port and
//! HOME, so they run in parallel.

use crate::support;

use support::agents::Cli;
use support::model_server::Reply;
use support::notes::notification_server;
use support::scenario::{resolutions, text, Options, Scenario, COMMAND, DONE, FIRST};

/// Scenario 1: a prompt, the model answers text, the turn ends → done/unread with the
/// model's text as last message; the session can be resumed by its id.
#[test]
fn qwen_1_prompt_ends_done_unread_with_the_models_text() {
    let Some(s) = Scenario::start("qwen-1", Cli::Qwen, vec![text(FIRST)]) else {
        return;
    };
    let v = s.wait("SessionStart", |v| !v["session_id"].is_null());
    s.expect(&v, "idle", "none", None);
    s.wait_ready();
    s.prompt("say hello");
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(FIRST));
    assert!(v["pending_decision"].is_null());
    let session = v["session_id"].as_str().unwrap().to_string();
    assert_eq!(
        v["resume_argv"],
        serde_json::json!(["qwen", "--resume", session]),
        "{v}"
    );
}

/// Scenario 2: a shell tool call that needs approval → blocked/permission_required with
/// the command in the decision → `attend answer PANE allow` (picks "Yes, allow once" off
/// the screen) → the command runs → done, the decision resolved as answered.
#[test]
fn qwen_2_permission_answered_with_attend_answer() {
    let Some(s) = Scenario::start(
        "qwen-2",
        Cli::Qwen,
        vec![Reply::qwen_shell(COMMAND, "Write a file"), text(DONE)],
    ) else {
        return;
    };
    s.wait_ready();
    let before = s.last_seq();
    s.prompt("write the file");
    let v = s.expect_gate();
    let d = &v["pending_decision"];
    assert_eq!(
        d["prompt"],
        format!("run_shell_command: {COMMAND}"),
        "the decision names the command: {v}"
    );
    s.attend(&["answer", &s.pane, "allow"]);
    let v = s.show();
    if !v["pending_decision"].is_null() || v["attention"] == "permission_required" {
        s.fail("answering resolves the decision at once");
    }
    s.expect_tool_ran("unread");
    assert_eq!(resolutions(&s.events_since(before)), ["answered"]);
}

/// Scenario 3: a turn ends done/unread (one notification), the human reviews it
/// (`attend seen`: done/none), then quits Qwen (`/quit`: SessionEnd, exit 0): the pane
/// stays done/none — no lifecycle event, no attention, no second notification (neither
/// for the exit nor for the `idle_prompt` notification Qwen sends after every turn).
#[test]
fn qwen_3_review_then_quit_stays_done_none_with_one_notification() {
    let options = Options {
        notifications: true,
        ..Options::default()
    };
    let Some(s) = Scenario::start_opts("qwen-3", Cli::Qwen, vec![text(FIRST)], options, |_| {})
    else {
        return;
    };
    let (_server, shown) = notification_server(&s.env.bus.address);
    s.wait_ready();
    s.prompt("say hello");
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(FIRST));
    let marker = serde_json::json!({
        "hook_event_name": "Stop", "session_id": "qwen-3-marker", "cwd": "/tmp",
        "last_assistant_message": "marker",
    });
    s.review_then_quit(&shown, "/quit", &["hook", "qwen"], &marker);
}

/// Scenario 4: Qwen killed at its gate by another process (`kill -9 PID` of the pane's
/// program, not `attend kill`): the decision is dropped (abandoned), the pane shows the
/// crash (failed/error, killed by signal 9).
#[test]
fn qwen_4_kill_9_at_the_gate_drops_the_decision_and_shows_the_crash() {
    let Some(s) = Scenario::start(
        "qwen-4",
        Cli::Qwen,
        vec![Reply::qwen_shell(COMMAND, "Write a file"), text(DONE)],
    ) else {
        return;
    };
    s.wait_ready();
    s.prompt("write the file");
    s.expect_gate();
    s.kill_9_at_the_gate();
}
