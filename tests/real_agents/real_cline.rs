//! Real-agent scenarios of Cline CLI: the pinned real CLI runs INSIDE an Attend pane
//! (`attend run`, `cline --auto-approve false`), with the hook files `attend install-hooks
//! cline` writes into the test's HOME (`~/.cline/hooks/`), against the scripted model
//! server's OpenAI Chat Completions API on 127.0.0.1. Every step is asserted through
//! `attend show --json` (`tests/support/scenario.rs`; docs/real-agents.md,
//! docs/adapters.md "Cline CLI").
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1`. Each test has its own daemon, bus, model server port and
//! HOME, so they run in parallel.

use crate::support;

use serde_json::Value;
use std::time::{Duration, Instant};
use support::agents::cline::{ask_question, run_commands};
use support::agents::Cli;
use support::notes::notification_server;
use support::scenario::{resolutions, text, Options, Scenario, COMMAND, DONE, FIRST};

/// The prompt of the decision the screen opens for Cline's approval dialog (its question
/// row).
const APPROVE: &str = "Approve tool call?";
/// The command the deny scenario refuses.
const REFUSED: &str = "echo refused > refused.txt";
/// The model's text after the refusal.
const NOT_RUN: &str = "Understood, the file is not written.";
/// The model's text after the question was answered.
const PICKED: &str = "You picked Blue.";

/// Scenario 1: a prompt, the model answers text, the turn ends → done/unread with the
/// model's text as last message (`TaskComplete`'s `turn.outputText`); the session can be
/// resumed by its id (`cline --id <rootSessionId>`).
#[test]
fn cline_1_prompt_ends_done_unread_with_the_models_text() {
    let Some(s) = Scenario::start("cline-1", Cli::Cline, vec![text(FIRST)]) else {
        return;
    };
    let v = s.hello_turn_done();
    assert!(v["pending_decision"].is_null());
    let session = v["session_id"].as_str().unwrap().to_string();
    assert_eq!(
        v["resume_argv"],
        serde_json::json!(["cline", "--id", session]),
        "{v}"
    );
}

/// Types `prompt` and waits for the gate the screen opens on Cline's approval dialog for
/// `command`: blocked/permission_required, a permission decision opened by the
/// needs-input chrome (rule `tool-approval`).
fn prompt_to_the_gate(s: &Scenario, prompt: &str, command: &str) -> Value {
    s.prompt(prompt);
    s.wait_screen("the approval dialog", |t| {
        t.contains(command) && t.contains("[n] Deny")
    });
    let v = s.wait("the gate", |v| v["attention"] == "permission_required");
    s.expect(&v, "blocked", "permission_required", Some(APPROVE));
    let d = &v["pending_decision"];
    assert_eq!(d["kind"], "permission", "{v}");
    assert_eq!(d["prompt"], APPROVE, "{v}");
    s.wait_explain("tool-approval");
    v
}

/// Scenario 2: a `run_commands` call → the approval dialog, which no hook reports →
/// blocked/permission_required from the screen → `attend answer PANE allow` types `y` →
/// the command runs → done. Then `deny` at the next gate types `n`: the command does not
/// run, the model hears so and ends its turn done.
#[test]
fn cline_2_permission_allow_runs_the_command_and_deny_does_not() {
    let Some(s) = Scenario::start(
        "cline-2",
        Cli::Cline,
        vec![
            run_commands(COMMAND),
            text(DONE),
            run_commands(REFUSED),
            text(NOT_RUN),
        ],
    ) else {
        return;
    };
    s.wait_ready();
    let before = s.last_seq();
    prompt_to_the_gate(&s, "write the file", COMMAND);
    s.allow_and_expect_the_tool_ran(before);

    s.attend(&["seen", &s.pane]);
    let before = s.last_seq();
    prompt_to_the_gate(&s, "write another file", REFUSED);
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
        refused.contains("rejected by the user"),
        "the model heard of the refusal: {refused}"
    );
}

/// Scenario: Cline's own question tool (`ask_question`) → its `PreToolUse` opens the
/// question: blocked/input_required with the question and options → `attend answer PANE
/// Blue` (cursor moves on "Cline is asking a question", Enter) → the answer reaches the
/// model, which ends its turn done/unread.
#[test]
fn cline_question_is_input_required_and_answered_from_attend() {
    let Some(s) = Scenario::start(
        "cline-question",
        Cli::Cline,
        vec![
            ask_question("Which color do you want?", &["Red", "Blue"]),
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
    s.wait_screen("the question's options", |t| {
        t.contains("Cline is asking a question") && t.contains("Type a response...")
    });
    s.attend(&["answer", &s.pane, "Blue"]);
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(PICKED));
    assert!(v["pending_decision"].is_null(), "{v}");
    let answered = s.last_request();
    assert!(
        answered.contains("Blue"),
        "the model received the answer: {answered}"
    );
}

/// Scenario: Esc mid-turn (the model's answer held back) → Cline's `SessionShutdown` hook
/// while its TUI goes on → idle within 1 s, nothing to attend to.
#[test]
fn cline_esc_mid_turn_reads_idle_within_one_second() {
    let Some(s) = Scenario::start("cline-esc", Cli::Cline, vec![text(FIRST)]) else {
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
    assert_eq!(v["live"]["state"], "running", "the TUI goes on: {v}");
}

/// Scenario 3: a turn ends done/unread (one notification), the human reviews it
/// (`attend seen`: done/none), then quits Cline (`/exit`: no hook, exit 0): the pane stays
/// done/none — no lifecycle event, no attention, no second notification.
#[test]
fn cline_3_review_then_quit_stays_done_none_with_one_notification() {
    let options = Options {
        notifications: true,
        ..Options::default()
    };
    let Some(s) = Scenario::start_opts("cline-3", Cli::Cline, vec![text(FIRST)], options, |_| {})
    else {
        return;
    };
    let (_server, shown) = notification_server(&s.env.bus.address);
    s.hello_turn_done();
    let marker = serde_json::json!({
        "hookName": "agent_end", "sessionContext": {"rootSessionId": "cline-3-marker"},
        "workspaceRoots": ["/tmp"], "turn": {"outputText": "marker", "status": "completed"},
    });
    let end = s.review_then_quit(&shown, "/exit", &["hook", "cline", "TaskComplete"], &marker);
    assert!(end.is_null(), "Cline has no session end hook: {end}");
}
