//! Real-agent scenarios of Hermes Agent: the pinned real CLI (a virtual environment of
//! PyPI `hermes-agent`, `build-aux/agents.sh`) runs INSIDE an Attend pane (`attend run`),
//! with the shell hooks `attend install-hooks hermes` adds to the test's
//! `~/.hermes/config.yaml` (accepted with `HERMES_ACCEPT_HOOKS=1`), against the scripted
//! model server's OpenAI Chat Completions API on 127.0.0.1. Every step is asserted through
//! `attend show --json` (`tests/support/scenario.rs`; docs/real-agents.md,
//! docs/adapters.md "Hermes Agent").

use crate::support;

use std::time::{Duration, Instant};
use support::agents::hermes::{clarify, terminal};
use support::agents::Cli;
use support::notes::notification_server;
use support::scenario::{resolutions, text, Options, Scenario, DONE, FIRST};

/// The command the allow scenario approves (a recursive delete: Hermes asks for it).
const ALLOWED: &str = "rm -rf scratch";
/// The command the deny scenario refuses.
const REFUSED: &str = "rm -rf keep";
/// The model's text after the refusal.
const NOT_RUN: &str = "Understood, nothing is deleted.";

/// Scenario 1: a prompt, the model answers text, the turn ends → done/unread with the
/// model's text (`post_llm_call`'s `assistant_response`); the session can be resumed by
/// its id (`hermes --resume <id>`).
#[test]
fn hermes_1_prompt_ends_done_unread_with_the_models_text() {
    let Some(s) = Scenario::start("hermes-1", Cli::Hermes, vec![text(FIRST)]) else {
        return;
    };
    let v = s.hello_turn_done();
    assert!(v["pending_decision"].is_null(), "{v}");
    let session = v["session_id"].as_str().unwrap().to_string();
    assert_eq!(
        v["resume_argv"],
        serde_json::json!(["hermes", "--resume", session]),
        "{v}"
    );
}

/// Types `prompt` and waits for the gate `pre_approval_request` opens for `command`:
/// blocked/permission_required, its "Dangerous Command" dialog on screen.
fn prompt_to_the_gate(s: &Scenario, prompt: &str, command: &str) {
    s.prompt(prompt);
    let want = format!("terminal: {command}");
    let v = s.wait("the gate", |v| {
        v["attention"] == "permission_required" && v["pending_decision"]["prompt"] == want
    });
    s.expect(&v, "blocked", "permission_required", Some(want.as_str()));
    s.wait_screen("the dialog's options", |t| {
        t.contains("Dangerous Command") && t.contains("4. Deny")
    });
}

/// Scenario 2: a dangerous command (`rm -rf`) → Hermes's approval dialog and its
/// `pre_approval_request` hook → blocked/permission_required → `attend answer PANE allow`
/// picks "Allow once" → the command runs → done. Then `deny` at the next gate picks
/// "Deny": the command does not run, the model hears so and ends its turn done.
#[test]
fn hermes_2_permission_allow_runs_the_command_and_deny_does_not() {
    let Some(s) = Scenario::start_opts(
        "hermes-2",
        Cli::Hermes,
        vec![
            terminal(ALLOWED),
            text(DONE),
            terminal(REFUSED),
            text(NOT_RUN),
        ],
        Options::default(),
        |home| {
            std::fs::create_dir_all(home.project.join("scratch")).unwrap();
            std::fs::create_dir_all(home.project.join("keep")).unwrap();
        },
    ) else {
        return;
    };
    s.wait_ready();
    let before = s.last_seq();
    prompt_to_the_gate(&s, "clean up", ALLOWED);
    s.attend(&["answer", &s.pane, "allow"]);
    let v = s.wait("the turn after the tool", |v| {
        v["lifecycle"] == "done" && v["last_message"] == DONE
    });
    s.expect(&v, "done", "unread", Some(DONE));
    assert!(v["pending_decision"].is_null(), "{v}");
    assert_eq!(resolutions(&s.events_since(before)), ["answered"]);
    assert!(
        !s.home.project.join("scratch").exists(),
        "the allowed command ran"
    );

    s.attend(&["seen", &s.pane]);
    prompt_to_the_gate(&s, "clean up more", REFUSED);
    s.attend(&["answer", &s.pane, "deny"]);
    let v = s.wait("the turn after the refusal", |v| {
        v["lifecycle"] == "done" && v["last_message"] == NOT_RUN
    });
    s.expect(&v, "done", "unread", Some(NOT_RUN));
    assert!(
        s.home.project.join("keep").exists(),
        "the refused command never ran"
    );
}

/// The model's text after the question.
const PICKED: &str = "Blue it is.";

/// Scenario: Hermes's question tool, `clarify` (`{question, choices}`, no approval) →
/// its `pre_tool_call` opens the question with its choices → blocked/input_required; its
/// panel ("Hermes needs your input", the choices numbered, "Other (type your answer)"
/// after them) is read by the manifest's `clarify` rule → `attend answer PANE Blue` types
/// its number → the answer reaches the model (the tool result), which ends its turn
/// done/unread.
#[test]
fn hermes_question_is_input_required_and_answered_from_attend() {
    let Some(s) = Scenario::start(
        "hermes-question",
        Cli::Hermes,
        vec![
            clarify("Which color do you want?", &["Red", "Blue"]),
            text(PICKED),
        ],
    ) else {
        return;
    };
    s.wait_ready();
    s.prompt("ask me");
    s.wait_screen("the question's panel", |t| {
        t.contains("Hermes needs your input") && t.contains("Other (type your answer)")
    });
    let v = s.expect_question_opened_by("Blue", &["lifecycle-hooks:hermes.pre_tool_call"]);
    assert_eq!(
        v["pending_decision"]["prompt"], "Which color do you want?",
        "{v}"
    );
    // The hook names "Red", "Blue"; once the chrome reads the panel the options are the
    // ones drawn, "Other (type your answer)" after them (docs/lifecycle-attention.md#answer).
    assert!(
        support::scenario::options_begin_with(&v["pending_decision"], &["Red", "Blue"]),
        "{v}"
    );
    s.wait_explain("matched clarify");
    s.answer_dialog("Blue", "Hermes needs your input");
    let v = s.wait("the turn's end", |v| {
        v["lifecycle"] == "done" && v["last_message"] == PICKED
    });
    s.expect(&v, "done", "unread", Some(PICKED));
    assert!(v["pending_decision"].is_null(), "{v}");
    let answered = s.last_request();
    // The tool result: `{"question": …, "choices_offered": […], "user_response": "Blue"}`.
    assert!(
        answered.contains(r#"\"user_response\": \"Blue\""#),
        "the model heard the answer: {answered}"
    );
}

/// Scenario: Ctrl+C mid-turn (the model's answer held back; Esc does nothing in Hermes)
/// → its turn ends interrupted (`on_session_end`, `interrupted: true`) → idle within 1 s,
/// nothing to attend to, the CLI still running.
#[test]
fn hermes_interrupt_mid_turn_reads_idle_within_one_second() {
    let Some(s) = Scenario::start("hermes-interrupt", Cli::Hermes, vec![text(FIRST)]) else {
        return;
    };
    s.server.slow_turn(1, Duration::from_secs(30));
    s.wait_ready();
    s.prompt("say hello slowly");
    s.wait("the turn", |v| v["lifecycle"] == "working");
    let asked = support::poll(support::scenario::STEP, || !s.server.turns().is_empty());
    assert!(asked, "the turn reached the model");
    std::thread::sleep(Duration::from_millis(300));
    let pressed = Instant::now();
    s.attend(&["send", &s.pane, "\u{3}"]);
    let v = s.wait("idle after Ctrl+C", |v| v["lifecycle"] == "idle");
    let took = pressed.elapsed();
    s.expect(&v, "idle", "none", v["last_message"].as_str());
    assert!(
        took <= Duration::from_secs(1),
        "idle {took:?} after Ctrl+C (want ≤ 1 s)"
    );
    assert_eq!(v["live"]["state"], "running", "the CLI goes on: {v}");
}

/// Scenario 3: a turn ends done/unread (one notification), the human reviews it
/// (`attend seen`: done/none), then quits Hermes (`/exit`: `on_session_finalize`, exit
/// 0): the pane stays done/none — no lifecycle event, no attention, no second
/// notification.
#[test]
fn hermes_3_review_then_quit_stays_done_none_with_one_notification() {
    let options = Options {
        notifications: true,
        ..Options::default()
    };
    let Some(s) = Scenario::start_opts("hermes-3", Cli::Hermes, vec![text(FIRST)], options, |_| {})
    else {
        return;
    };
    let (_server, shown) = notification_server(&s.env.bus.address);
    s.hello_turn_done();
    let marker = serde_json::json!({"hook_event_name": "post_llm_call",
        "session_id": "hermes-3-marker", "cwd": "/tmp",
        "extra": {"assistant_response": "marker"}});
    let end = s.review_then_quit(&shown, "/exit", &["hook", "hermes"], &marker);
    assert!(end.is_null(), "no session end recorder: {end}");
}
