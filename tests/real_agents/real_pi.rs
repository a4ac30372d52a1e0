//! Real-agent scenarios of pi: the pinned real CLI runs INSIDE an Attend pane (`attend
//! run`), reporting through the extension `attend install-hooks pi` writes into the
//! test's HOME, against the scripted model server's OpenAI Chat Completions API on
//! 127.0.0.1. Every step is asserted through `attend show --json`
//! (`tests/support/scenario.rs`; docs/real-agents.md, docs/adapters.md "pi").
//!
//! pi has no permission prompts and no question tool of its own (scenario 2 and the
//! question scenario are n/a: docs/adapters.md "pi"); its interrupt is reported
//! (`agent_settled` with `aborted`), so Esc mid-turn is scenario 2 here.
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1`. Each test has its own daemon, bus, model server port and
//! HOME, so they run in parallel.

use crate::support;

use serde_json::json;
use std::time::{Duration, Instant};
use support::model_server::Reply;
use support::notes::notification_server;
use support::scenario::{text, Options, Scenario, COMMAND, DONE, FIRST};

/// How soon after Esc the pane must read `idle` (docs/real-agents.md).
const ESC_BOUND: Duration = Duration::from_secs(1);

/// pi's shell tool: `bash` with `{command}` (it runs unasked: pi has no permission
/// prompts).
fn bash(command: &str) -> Reply {
    Reply::Tool {
        name: "bash".into(),
        input_json: json!({ "command": command }).to_string(),
    }
}

/// Scenario 1: a prompt, the model answers text, the run settles → done/unread with the
/// model's text as last message (the extension sends the run's last assistant text with
/// `agent_settled`); the session can be resumed by its id. Then a one-tool turn: pi runs
/// the command unasked (no gate at any point), the result reaches the model, done with its
/// last text.
#[test]
fn pi_1_prompt_ends_done_unread_with_the_models_text() {
    let Some(s) = Scenario::start("pi-1", support::agents::Cli::Pi, vec![text(FIRST)]) else {
        return;
    };
    let v = s.hello_turn_done();
    assert!(v["pending_decision"].is_null(), "{v}");
    let session = v["session_id"].as_str().unwrap_or("").to_string();
    assert_eq!(session.len(), 36, "a UUID: {v}");
    assert_eq!(v["resume_argv"], json!(["pi", "--session", session]), "{v}");

    s.server.push(bash(COMMAND));
    s.server.push(text(DONE));
    let before = s.last_seq();
    s.prompt("write the file");
    // The pane reads done from the first turn until this one's start is applied: wait
    // for this turn's end by its text.
    s.wait("the tool turn's end", |v| v["last_message"] == DONE);
    let v = s.expect_tool_ran("unread");
    let kinds: Vec<String> = s
        .events_since(before)
        .iter()
        .map(|e| e["kind"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        !kinds.iter().any(|k| k == "decision.opened"),
        "pi asks nothing: {kinds:?}"
    );
    assert_eq!(v["session_id"], session.as_str(), "the same session");
}

/// Scenario 2 (interrupt): Esc while the model's answer is held back → the pane reads
/// `idle` within [`ESC_BOUND`] of the key (the extension's `agent_settled` with
/// `aborted`), no attention, no last message.
#[test]
fn pi_2_esc_mid_turn_is_idle_within_a_second() {
    let Some(s) = Scenario::start("pi-2", support::agents::Cli::Pi, vec![text("Too late.")]) else {
        return;
    };
    s.server.slow_turn(1, Duration::from_secs(60));
    s.wait_ready();
    s.prompt("think slowly");
    s.server
        .wait_until("the slow turn request", s.step(), |log| {
            log.iter().any(|r| r.is_turn())
        })
        .unwrap_or_else(|e| s.fail(&e));
    s.wait("working", |v| v["lifecycle"] == "working");
    std::thread::sleep(Duration::from_millis(500));
    let before = s.last_seq();
    s.attend(&["send", &s.pane, "\x1b"]);
    let sent = Instant::now();
    let v = loop {
        let v = s.show();
        if v["lifecycle"] == "idle" {
            break v;
        }
        if sent.elapsed() > ESC_BOUND * 5 {
            s.fail("not idle after Esc");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = sent.elapsed();
    println!("{}: idle {took:?} after Esc", s.name);
    assert!(took <= ESC_BOUND, "idle only {took:?} after Esc");
    s.expect(&v, "idle", "none", None);
    let sources: Vec<String> = s
        .events_since(before)
        .iter()
        .map(|e| e["source"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        sources
            .iter()
            .any(|x| x == "lifecycle-hooks:pi.agent_settled"),
        "the extension reported the interrupt: {sources:?}"
    );
    s.wait_screen("pi's abort notice", |screen| {
        screen.contains("Operation aborted")
    });
}

/// Scenario 3: a turn ends done/unread (one notification), the human reviews it
/// (`attend seen`: done/none), then quits pi (`/quit`, exit 0; its `session_shutdown`
/// ends the session): the pane stays done/none — no lifecycle event, no attention, no
/// second notification.
#[test]
fn pi_3_review_then_quit_stays_done_none_with_one_notification() {
    let options = Options {
        notifications: true,
        ..Options::default()
    };
    let Some(s) = Scenario::start_opts(
        "pi-3",
        support::agents::Cli::Pi,
        vec![text(FIRST)],
        options,
        |_| {},
    ) else {
        return;
    };
    let (_server, shown) = notification_server(&s.env.bus.address);
    s.hello_turn_done();
    // The marker: a completion of another session after the exit.
    let marker = json!({
        "hook_event_name": "agent_settled", "session_id": "pi-3-marker", "cwd": "/tmp",
        "aborted": false, "last_assistant_message": "marker",
    });
    let end = s.review_then_quit(&shown, "/quit", &["hook", "pi"], &marker);
    assert!(end.is_null(), "{end}");
}
