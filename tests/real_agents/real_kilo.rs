//! Real-agent scenarios of Kilo Code CLI: the pinned real CLI runs INSIDE an Attend pane
//! (`attend run`), reporting through the plugin `attend install-hooks kilo` writes into the
//! test's HOME (Attend's OpenCode plugin: Kilo is OpenCode's fork), against the scripted
//! model server's OpenAI Chat Completions API on 127.0.0.1. Every step is asserted through
//! `attend show --json` (`tests/support/scenario.rs`; docs/real-agents.md,
//! docs/adapters.md "Kilo Code CLI").
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1`. Each test has its own daemon, bus, model server port and
//! HOME, so they run in parallel.

use crate::support;

use serde_json::{json, Value};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use support::agents::Cli;
use support::model_server::Reply;
use support::notes::notification_server;
use support::scenario::{resolutions, text, Options, Scenario, COMMAND, DONE, FIRST};

/// Scenario 1: a prompt, the model answers text, the turn ends → done/unread with the
/// model's text as last message (the plugin sends the turn's last assistant text with
/// `session.idle`); the session can be resumed with `kilo --session <id>`.
#[test]
fn kilo_1_prompt_ends_done_unread_with_the_models_text() {
    let Some(s) = Scenario::start("kilo-1", Cli::Kilo, vec![text(FIRST)]) else {
        return;
    };
    let v = s.hello_turn_done();
    assert!(v["pending_decision"].is_null(), "{v}");
    let session = v["session_id"].as_str().unwrap().to_string();
    assert!(session.starts_with("ses_"), "{v}");
    assert_eq!(
        v["resume_argv"],
        json!(["kilo", "--session", session]),
        "{v}"
    );
    println!("kilo-1: {:.1} s", s.started.elapsed().as_secs_f64());
}

/// Scenario 2: a `bash` call under `"permission": {"bash": "ask"}` →
/// blocked/permission_required with the command in the decision, the screen manifest's
/// rule matched (`attend explain`) → `attend answer PANE allow` (Enter on "Allow once")
/// → the command runs, its result reaches the model → done, resolved as answered.
#[test]
fn kilo_2_permission_answered_allow_runs_the_command() {
    let Some(s) = Scenario::start(
        "kilo-2-allow",
        Cli::Kilo,
        vec![Reply::opencode_bash(COMMAND, "Write a file"), text(DONE)],
    ) else {
        return;
    };
    let before = s.last_seq();
    let v = s.prompt_to_the_gate("write the file");
    assert_eq!(
        v["pending_decision"]["prompt"],
        format!("bash: {COMMAND}"),
        "the decision names the command: {v}"
    );
    s.wait_explain("matched permission-required");
    s.allow_and_expect_the_tool_ran(before);
    let result = s.server.turns().last().map(|r| r.body.clone());
    assert!(
        result.is_some_and(|b| b.contains("tool")),
        "the tool result reached the model"
    );
    println!("kilo-2-allow: {:.1} s", s.started.elapsed().as_secs_f64());
}

/// Scenario 2, deny: `attend answer PANE deny` (Right Right Enter on "Reject", then Enter
/// on the empty "Tell Kilo what to do differently" box it opens) → the command never
/// runs; `permission.replied` `reject` dismisses the gate (idle) and the turn ends with
/// `session.idle` (no text of the model's: done), the decision resolved as answered.
#[test]
fn kilo_2_permission_answered_deny_does_not_run_the_command() {
    let Some(s) = Scenario::start(
        "kilo-2-deny",
        Cli::Kilo,
        vec![Reply::opencode_bash(COMMAND, "Write a file"), text(DONE)],
    ) else {
        return;
    };
    let before = s.last_seq();
    s.prompt_to_the_gate("write the file");
    s.wait_explain("matched permission-required");
    s.attend(&["answer", &s.pane, "deny"]);
    let v = s.wait("the turn's end after deny", |v| v["lifecycle"] == "done");
    assert!(v["pending_decision"].is_null(), "{v}");
    assert_ne!(v["last_message"], DONE, "the model said nothing more: {v}");
    assert_eq!(resolutions(&s.events_since(before)), ["answered"]);
    s.wait_screen("the input box back", |t| t.contains("ctrl+p commands"));
    assert!(
        !s.home.project.join("out.txt").exists(),
        "the denied command never ran"
    );
    assert_eq!(s.server.turns().len(), 1, "no request after the rejection");
    println!(
        "kilo-2-deny: {} {:.1} s",
        v["lifecycle"],
        s.started.elapsed().as_secs_f64()
    );
}

/// Kilo's own question tool → blocked/input_required with the question and its options
/// (`question.asked`); `attend answer PANE Blue` types the option's number (the screen
/// manifest's `question` rule reads the numbered options) → `question.replied`, the
/// answer reaches the model, the turn ends done.
#[test]
fn kilo_question_answered_from_attend() {
    let question = Reply::Tool {
        name: "question".into(),
        input_json: json!({"questions": [{
            "question": "Which color do you want?",
            "header": "Color",
            "options": [
                {"label": "Red", "description": "warm"},
                {"label": "Blue", "description": "cool"},
            ],
        }]})
        .to_string(),
    };
    let Some(s) = Scenario::start(
        "kilo-question",
        Cli::Kilo,
        vec![question, text("You picked a color.")],
    ) else {
        return;
    };
    s.wait_ready();
    s.prompt("ask me");
    // The plugin's `question.asked` names the prompt and "Red", "Blue"; the chrome's
    // reading of the dialog (before or after it: one decision) sets the options to the
    // ones drawn, which add Kilo's own "type your answer" row — the numbers Attend lists
    // are the dialog's (docs/lifecycle-attention.md#answer).
    let v = s.wait("the question with its options", |v| {
        v["pending_decision"]["kind"] == "question"
            && v["pending_decision"]["prompt"] == "Which color do you want?"
            && support::scenario::options_begin_with(&v["pending_decision"], &["Red", "Blue"])
    });
    s.expect(&v, "blocked", "input_required", v["last_message"].as_str());
    s.wait_screen("the question's options", |t| t.contains("esc dismiss"));
    s.wait_explain("matched question");
    s.answer_dialog("Blue", "esc dismiss");
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some("You picked a color."));
    let answered = s.server.turns().last().map(|r| r.body.clone());
    assert!(
        answered.is_some_and(|b| b.contains("Blue")),
        "the answer reached the model"
    );
    println!("kilo-question: {:.1} s", s.started.elapsed().as_secs_f64());
}

/// Esc Esc while the model's answer is held back: Kilo aborts the turn
/// (`session.error` `MessageAbortedError`) → idle with no attention added, within the
/// interrupt goal of 1 s from the second Esc (the one that interrupts; the first only
/// shows "esc again to interrupt"), on the daemon's clock.
#[test]
fn kilo_esc_esc_mid_turn_is_idle_at_once() {
    let Some(s) = Scenario::start("kilo-esc", Cli::Kilo, vec![text("Too late.")]) else {
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
    s.wait_screen("the turn's footer", |t| t.contains("esc interrupt"));
    let before = s.last_seq();
    s.attend(&["send", &s.pane, "\u{1b}"]);
    s.wait_screen("the second Esc's hint", |t| {
        t.contains("esc again to interrupt")
    });
    let key = wall_ms();
    let sent = Instant::now();
    s.attend(&["send", &s.pane, "\u{1b}"]);
    let v = s.wait("idle after Esc Esc", |v| v["lifecycle"] == "idle");
    s.expect(&v, "idle", "none", v["last_message"].as_str());
    let events = s.events_since(before);
    let idle = events
        .iter()
        .find(|e| e["kind"] == "agent.idle")
        .unwrap_or_else(|| s.fail("no agent.idle event"));
    let ms = idle["at"].as_i64().unwrap_or(i64::MAX) - key;
    println!(
        "kilo-esc: agent.idle {ms} ms after the second Esc (by {}), seen {:.2} s after it",
        idle["source"],
        sent.elapsed().as_secs_f64()
    );
    assert!(
        ms <= 1000,
        "idle {ms} ms after the key, over the goal of 1 s"
    );
    assert!(
        !events.iter().any(|e| e["kind"] == "attention.created"),
        "{events:?}"
    );
}

/// Scenario 3: a turn ends done/unread (one notification), the human reviews it
/// (`attend seen`: done/none), then quits Kilo (`/exit`: no event at all, exit 0): the
/// pane stays done/none — no lifecycle event, no attention, no second notification.
#[test]
fn kilo_3_review_then_quit_stays_done_none_with_one_notification() {
    let options = Options {
        notifications: true,
        ..Options::default()
    };
    let Some(s) = Scenario::start_opts("kilo-3", Cli::Kilo, vec![text(FIRST)], options, |_| {})
    else {
        return;
    };
    let (_server, shown) = notification_server(&s.env.bus.address);
    s.hello_turn_done();
    let marker = json!({
        "id": "evt_marker", "type": "session.idle", "cwd": "/tmp",
        "properties": {"sessionID": "ses_kilo3marker"},
        "last_assistant_message": "marker",
    });
    let end: Value =
        s.review_then_quit(&shown, "/exit", &["hook", "kilo", "session.idle"], &marker);
    assert!(end.is_null(), "{end}");
    println!("kilo-3: {:.1} s", s.started.elapsed().as_secs_f64());
}

/// Now on the wall clock, in ms since the epoch (the daemon's event times).
fn wall_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("a clock after 1970")
        .as_millis() as i64
}
