//! Real-agent scenarios of oh-my-pi: the pinned real CLI runs INSIDE an Attend pane
//! (`attend run`), reporting through Attend's pi extension, which `attend install-hooks
//! omp` writes into the test's HOME (`~/.omp/agent/extensions/`), against the scripted
//! model server's OpenAI Chat Completions API on 127.0.0.1. Every step is asserted through
//! `attend show --json` (`tests/support/scenario.rs`; docs/real-agents.md,
//! docs/adapters.md "oh-my-pi").
//!
//! omp asks before each tool call here (`tools.approvalMode: always-ask`; its default,
//! `yolo`, asks nothing), but not before its question tool `ask`, whose dialog the
//! question scenario answers from Attend; its interrupt is reported (`agent_settled` with
//! `aborted`, sent from its `agent_end`).
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1`. Each test has its own daemon, bus, model server port and
//! HOME, so they run in parallel.

use crate::support;

use serde_json::json;
use std::time::{Duration, Instant};
use support::agents::Cli;
use support::model_server::Reply;
use support::notes::notification_server;
use support::scenario::{resolutions, text, Options, Scenario, COMMAND, DONE, FIRST};

/// How soon after Esc the pane must read `idle` (docs/real-agents.md).
const ESC_BOUND: Duration = Duration::from_secs(1);

/// omp's shell tool: `bash` with `{command}`.
fn bash(command: &str) -> Reply {
    Reply::Tool {
        name: "bash".into(),
        input_json: json!({ "command": command }).to_string(),
    }
}

/// Scenario 1: a prompt, the model answers text, the run settles → done/unread with the
/// model's text as last message (the extension sends the run's last assistant text with
/// the `agent_settled` it makes of omp's `agent_end`); the session can be resumed with
/// `omp --resume <id>`.
#[test]
fn omp_1_prompt_ends_done_unread_with_the_models_text() {
    let Some(s) = Scenario::start("omp-1", Cli::Omp, vec![text(FIRST)]) else {
        return;
    };
    let v = s.hello_turn_done();
    assert!(v["pending_decision"].is_null(), "{v}");
    let session = v["session_id"].as_str().unwrap_or("").to_string();
    assert_eq!(session.len(), 36, "a UUID: {v}");
    assert_eq!(v["resume_argv"], json!(["omp", "--resume", session]), "{v}");
    println!("omp-1: {:.1} s", s.started.elapsed().as_secs_f64());
}

/// Scenario 2: a `bash` call → the extension's `tool_approval_requested` reads
/// blocked/permission_required with the command in the decision, the screen manifest's
/// rule matched (`attend explain`) → `attend answer PANE allow` (Enter on "Approve") → the
/// command runs, its result reaches the model → done, resolved as answered.
#[test]
fn omp_2_permission_answered_allow_runs_the_command() {
    let Some(s) = Scenario::start("omp-2-allow", Cli::Omp, vec![bash(COMMAND), text(DONE)]) else {
        return;
    };
    let before = s.last_seq();
    let v = s.prompt_to_the_gate("write the file");
    assert_eq!(
        v["pending_decision"]["prompt"],
        format!("bash: {COMMAND}"),
        "the decision names the command: {v}"
    );
    s.wait_explain("matched tool-approval");
    s.allow_and_expect_the_tool_ran(before);
    let result = s.server.turns().last().map(|r| r.body.clone());
    assert!(
        result.is_some_and(|b| b.contains("\"tool\"")),
        "the tool result reached the model"
    );
    println!("omp-2-allow: {:.1} s", s.started.elapsed().as_secs_f64());
}

/// Scenario 2, deny: `attend answer PANE deny` (Down, Enter on "Deny") → the command never
/// runs; the model hears the denial and ends the turn with its text (done), the decision
/// resolved as answered.
#[test]
fn omp_2_permission_answered_deny_does_not_run_the_command() {
    let Some(s) = Scenario::start("omp-2-deny", Cli::Omp, vec![bash(COMMAND), text(DONE)]) else {
        return;
    };
    let before = s.last_seq();
    s.prompt_to_the_gate("write the file");
    s.wait_explain("matched tool-approval");
    s.attend(&["answer", &s.pane, "deny"]);
    let v = s.wait("the turn's end after deny", |v| v["lifecycle"] == "done");
    assert!(v["pending_decision"].is_null(), "{v}");
    assert_eq!(resolutions(&s.events_since(before)), ["answered"]);
    assert!(
        !s.home.project.join("out.txt").exists(),
        "the denied command never ran"
    );
    println!(
        "omp-2-deny: {} {:.1} s",
        v["lifecycle"],
        s.started.elapsed().as_secs_f64()
    );
}

/// Interrupt: Esc while the model's answer is held back → the pane reads `idle` within
/// [`ESC_BOUND`] of the key (the extension's `agent_settled` with `aborted`), no
/// attention.
#[test]
fn omp_esc_mid_turn_is_idle_within_a_second() {
    let Some(s) = Scenario::start("omp-esc", Cli::Omp, vec![text("Too late.")]) else {
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
            .any(|x| x == "lifecycle-hooks:omp.agent_settled"),
        "the extension reported the interrupt: {sources:?}"
    );
}

/// Scenario 3: a turn ends done/unread (one notification), the human reviews it
/// (`attend seen`: done/none), then quits omp (`/exit`, exit 0; its `session_shutdown`
/// ends the session): the pane stays done/none — no lifecycle event, no attention, no
/// second notification.
#[test]
fn omp_3_review_then_quit_stays_done_none_with_one_notification() {
    let options = Options {
        notifications: true,
        ..Options::default()
    };
    let Some(s) = Scenario::start_opts("omp-3", Cli::Omp, vec![text(FIRST)], options, |_| {})
    else {
        return;
    };
    let (_server, shown) = notification_server(&s.env.bus.address);
    s.hello_turn_done();
    // The marker: a completion of another session after the exit.
    let marker = json!({
        "hook_event_name": "agent_settled", "session_id": "omp-3-marker", "cwd": "/tmp",
        "aborted": false, "last_assistant_message": "marker",
    });
    let end = s.review_then_quit(&shown, "/exit", &["hook", "omp"], &marker);
    assert!(end.is_null(), "{end}");
    println!("omp-3: {:.1} s", s.started.elapsed().as_secs_f64());
}

/// omp's question tool: `ask` with one question and its options, Red and Blue.
fn ask_red_or_blue() -> Reply {
    Reply::Tool {
        name: "ask".into(),
        input_json: json!({"questions": [{
            "id": "color",
            "question": "Which color do you want?",
            "options": [{"label": "Red"}, {"label": "Blue"}],
        }]})
        .to_string(),
    }
}

/// The model's text after the question.
const PICKED: &str = "Blue it is.";

/// The question: the model calls `ask` (no approval: omp asks none for it) → the
/// extension's `tool_execution_start` of `ask` with its arguments opens the question
/// (blocked/input_required, the question as prompt, Red and Blue as options); the screen
/// manifest's `ask` rule reads omp's dialog (radio buttons `○` before the labels, and
/// omp's own "Other (type your own)") → `attend answer PANE Blue` moves the cursor down
/// one row and presses Enter → the decision resolves as answered, the answer reaches the
/// model, the turn ends done/unread.
#[test]
fn omp_question_is_input_required_and_answered_from_attend() {
    let Some(s) = Scenario::start(
        "omp-question",
        Cli::Omp,
        vec![ask_red_or_blue(), text(PICKED)],
    ) else {
        return;
    };
    s.wait_ready();
    s.prompt("ask me");
    // The extension does not wait for its hook runs: the chrome may read the dialog first
    // (one decision either way).
    let v = s.expect_question_opened_by(
        "Blue",
        &[
            "lifecycle-hooks:omp.tool_execution_start",
            "needs-input-chrome:screen.chrome",
        ],
    );
    assert_eq!(
        v["pending_decision"]["prompt"], "Which color do you want?",
        "{v}"
    );
    assert!(
        v["pending_decision"]["options"]
            .as_array()
            .is_some_and(|o| o.iter().any(|o| o == "Red")),
        "{v}"
    );
    s.wait_screen("the question's dialog", |t| t.contains("Enter select"));
    s.wait_explain("matched ask");
    s.answer_dialog("Blue", "Enter select");
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(PICKED));
    assert!(v["pending_decision"].is_null(), "{v}");
    let answered = s.last_request();
    assert!(
        answered.contains("User selected: Blue"),
        "the model heard the answer as the tool's result"
    );
    println!("omp-question: {:.1} s", s.started.elapsed().as_secs_f64());
}
