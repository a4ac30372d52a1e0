//! Real-agent scenarios of Kimi Code CLI: the pinned real CLI runs INSIDE an Attend pane
//! (`attend run`), with the `[[hooks]]` tables `attend install-hooks kimi` writes into the
//! test's HOME (`~/.kimi-code/config.toml`), against the scripted model server's OpenAI
//! Chat Completions API on 127.0.0.1. Every step is asserted through `attend show --json`
//! (`tests/support/scenario.rs`; docs/real-agents.md, docs/adapters.md "Kimi Code CLI").
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1`. Each test has its own daemon, bus, model server port and
//! HOME, so they run in parallel.

use crate::support;

use std::time::{Duration, Instant};
use support::agents::Cli;
use support::model_server::Reply;
use support::notes::notification_server;
use support::scenario::{resolutions, text, Options, Scenario, COMMAND, DONE, FIRST};

/// Scenario 1: a prompt, the model answers text, the turn ends → done/unread with the
/// model's text as last message (read from the session's wire log by the hook client:
/// Kimi's Stop carries none); the session can be resumed by its id.
#[test]
fn kimi_1_prompt_ends_done_unread_with_the_models_text() {
    let Some(s) = Scenario::start("kimi-1", Cli::Kimi, vec![text(FIRST)]) else {
        return;
    };
    let v = s.hello_turn_done();
    assert!(v["pending_decision"].is_null());
    let session = v["session_id"].as_str().unwrap().to_string();
    assert!(session.starts_with("session_"), "{v}");
    assert_eq!(
        v["resume_argv"],
        serde_json::json!(["kimi", "--session", session]),
        "{v}"
    );
}

/// Scenario 2: a `Bash` call that needs approval → blocked/permission_required with the
/// command in the decision → `attend answer PANE allow` (picks "1. Approve once" off the
/// screen) → the command runs → done, the decision resolved as answered. Then `deny` at
/// the next gate picks "3. Reject": the command does not run, the model hears so and
/// ends its turn done.
#[test]
fn kimi_2_permission_allow_runs_the_command_and_deny_does_not() {
    let Some(s) = Scenario::start(
        "kimi-2",
        Cli::Kimi,
        vec![
            Reply::claude_bash(COMMAND, "Write a file"),
            text(DONE),
            Reply::claude_bash(REFUSED, "Write another file"),
            text(NOT_RUN),
        ],
    ) else {
        return;
    };
    let before = s.last_seq();
    let v = s.prompt_to_the_gate("write the file");
    assert_eq!(
        v["pending_decision"]["prompt"],
        format!("Bash: {COMMAND}"),
        "the decision names the command: {v}"
    );
    s.allow_and_expect_the_tool_ran(before);

    s.attend(&["seen", &s.pane]);
    let before = s.last_seq();
    s.prompt("write another file");
    let v = s.wait("the next gate", |v| {
        v["pending_decision"]["prompt"] == format!("Bash: {REFUSED}")
    });
    s.expect(
        &v,
        "blocked",
        "permission_required",
        v["last_message"].as_str(),
    );
    s.wait_screen("the next dialog", |t| {
        t.contains(REFUSED) && t.contains("1. Approve once")
    });
    s.attend(&["answer", &s.pane, "deny"]);
    let v = s.wait("the turn after the refusal", |v| {
        v["lifecycle"] == "done" && v["last_message"] == NOT_RUN
    });
    s.expect(&v, "done", "unread", Some(NOT_RUN));
    assert!(v["pending_decision"].is_null(), "{v}");
    assert_eq!(resolutions(&s.events_since(before)), ["answered"]);
    assert!(
        !s.home.project.join("refused.txt").exists(),
        "the refused command never ran"
    );
    let refused = s.last_request();
    assert!(
        refused.contains("rejected the approval request"),
        "the model heard of the refusal: {refused}"
    );
}

/// The command [`kimi_2_permission_allow_runs_the_command_and_deny_does_not`] refuses.
const REFUSED: &str = "echo refused > refused.txt";
/// The model's text after the refusal.
const NOT_RUN: &str = "Understood, the file is not written.";

/// Scenario: Esc mid-turn (the model's answer held back) → Kimi's `Interrupt` hook →
/// idle within 1 s, nothing to attend to.
#[test]
fn kimi_esc_mid_turn_reads_idle_within_one_second() {
    let Some(s) = Scenario::start("kimi-esc", Cli::Kimi, vec![text(FIRST)]) else {
        return;
    };
    s.server.slow_turn(1, Duration::from_secs(30));
    s.wait_ready();
    s.prompt("say hello slowly");
    s.wait("the turn", |v| v["lifecycle"] == "working");
    // The model's request is in flight (its answer held back).
    let asked = support::poll(support::scenario::STEP, || !s.server.turns().is_empty());
    assert!(asked, "the turn reached the model");
    std::thread::sleep(Duration::from_millis(300));
    let pressed = Instant::now();
    s.attend(&["send", &s.pane, "\u{1b}"]);
    let v = s.wait("idle after Esc", |v| v["lifecycle"] == "idle");
    let took = pressed.elapsed();
    s.expect(&v, "idle", "none", v["last_message"].as_str());
    assert!(
        took <= Duration::from_secs(1),
        "idle {took:?} after Esc (want ≤ 1 s)"
    );
}

/// Scenario 3: a turn ends done/unread (one notification), the human reviews it
/// (`attend seen`: done/none), then quits Kimi (`/exit`: SessionEnd `exit`, exit 0): the
/// pane stays done/none — no lifecycle event, no attention, no second notification.
#[test]
fn kimi_3_review_then_quit_stays_done_none_with_one_notification() {
    let options = Options {
        notifications: true,
        ..Options::default()
    };
    let Some(s) = Scenario::start_opts("kimi-3", Cli::Kimi, vec![text(FIRST)], options, |_| {})
    else {
        return;
    };
    let (_server, shown) = notification_server(&s.env.bus.address);
    s.hello_turn_done();
    let marker = serde_json::json!({
        "hook_event_name": "Stop", "session_id": "kimi-3-marker", "cwd": "/tmp",
        "last_assistant_message": "marker",
    });
    let end = s.review_then_quit(&shown, "/exit", &["hook", "kimi"], &marker);
    assert_eq!(end["reason"], "exit", "{end}");
}

/// Scenario: Kimi's own question tool (`AskUserQuestion`) → blocked/input_required with
/// the question and its options → `attend answer PANE 2` (its number as drawn, `[2] Blue`)
/// → Kimi's review tab, whose `1` (Submit) is sent from Attend too → the answer reaches
/// the model, which ends its turn done/unread.
#[test]
fn kimi_question_is_input_required_and_answered_from_attend() {
    let question = serde_json::json!({"questions": [{"question": "Which color do you want?",
        "header": "Color", "options": [{"label": "Red", "description": "warm"},
        {"label": "Blue", "description": "cool"}]}]});
    let Some(s) = Scenario::start(
        "kimi-question",
        Cli::Kimi,
        vec![
            Reply::Tool {
                name: "AskUserQuestion".into(),
                input_json: question.to_string(),
            },
            text(PICKED),
        ],
    ) else {
        return;
    };
    s.wait_ready();
    s.prompt("ask me");
    let v = s.wait("the question", |v| v["attention"] == "input_required");
    s.expect(&v, "blocked", "input_required", v["last_message"].as_str());
    let d = &v["pending_decision"];
    assert_eq!(d["prompt"], "Which color do you want?", "{v}");
    // The hook's "Red", "Blue" first (the chrome's reading may add the rows the dialog
    // draws after them: docs/lifecycle-attention.md#answer).
    assert!(
        support::scenario::options_begin_with(d, &["Red", "Blue"]),
        "{v}"
    );
    s.wait_screen("the question's options", |t| t.contains("[2] Blue"));
    s.attend(&["answer", &s.pane, "2"]);
    s.wait_screen("the review tab", |t| {
        t.contains("Ready to submit your answers?")
    });
    s.attend(&["send", &s.pane, "1"]);
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(PICKED));
    assert!(v["pending_decision"].is_null(), "{v}");
    let answered = s.last_request();
    assert!(
        answered.contains("Blue"),
        "the model received the answer: {answered}"
    );
}

/// The model's text after the question was answered.
const PICKED: &str = "You picked Blue.";
