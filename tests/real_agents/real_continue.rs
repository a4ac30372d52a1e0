//! Real-agent scenarios of Continue CLI (`cn`): the pinned real CLI runs INSIDE an Attend
//! pane (`attend run`) against the scripted model server's OpenAI Chat Completions API on
//! 127.0.0.1, with the hooks `attend install-hooks continue` writes, which 1.5.47 never
//! runs: what Attend sees is its screen (docs/adapters.md "Continue CLI").
//!
//! So its dialogs are proven here, from the screen manifest: the approval dialog
//! (scenario 2) and its question tool (`AskQuestion`). A turn's end (scenario 1), Esc
//! mid-turn and review-then-quit are n/a until a release fires its hooks: the screen never
//! decides a lifecycle (docs/decisions/0001-rejected-oracles.md, docs/real-agents.md).
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1`. Each test has its own daemon, bus, model server port and
//! HOME, so they run in parallel.

use crate::support;

use serde_json::json;
use support::agents::Cli;
use support::model_server::Reply;
use support::scenario::{resolutions, text, Scenario, COMMAND, DONE};

/// Continue's shell tool: `Bash` with `{command}`.
fn bash(command: &str) -> Reply {
    Reply::Tool {
        name: "Bash".into(),
        input_json: json!({ "command": command }).to_string(),
    }
}

/// The model's text after the question was answered.
const PICKED: &str = "You picked Blue.";

/// Continue's question tool: `AskQuestion` with `{question, options}`.
fn ask_question(question: &str, options: &[&str]) -> Reply {
    Reply::Tool {
        name: "AskQuestion".into(),
        input_json: json!({ "question": question, "options": options }).to_string(),
    }
}

/// Prompts, waits for the approval dialog on screen, and for the gate the screen
/// manifest's rule opens: blocked/permission_required, a permission decision.
fn prompt_to_the_gate(s: &Scenario) {
    s.wait_ready();
    s.prompt("write the file");
    s.wait_screen("the approval dialog", |t| {
        t.contains("Would you like to continue?") && t.contains(COMMAND)
    });
    let v = s.wait("the gate", |v| v["attention"] == "permission_required");
    assert_eq!(v["lifecycle"], "blocked", "{v}");
    assert_eq!(v["pending_decision"]["kind"], "permission", "{v}");
    s.wait_explain("matched tool-permission");
}

/// Scenario 2: a `Bash` call → its approval dialog, which no hook reports → the screen
/// rule reads blocked/permission_required → `attend answer PANE allow` (Tab) → the command
/// runs and its result reaches the model; the decision resolved as answered.
#[test]
fn continue_2_permission_answered_allow_runs_the_command() {
    let Some(s) = Scenario::start(
        "continue-2-allow",
        Cli::Continue,
        vec![bash(COMMAND), text(DONE)],
    ) else {
        return;
    };
    let before = s.last_seq();
    prompt_to_the_gate(&s);
    s.attend(&["answer", &s.pane, "allow"]);
    s.wait_screen("the model's last text", |t| t.contains(DONE));
    let out = std::fs::read_to_string(s.home.project.join("out.txt")).unwrap_or_default();
    assert_eq!(out, "attend-e2e\n", "the approved command ran");
    let v = s.show();
    assert!(v["pending_decision"].is_null(), "{v}");
    assert_ne!(v["attention"], "permission_required", "{v}");
    assert_eq!(resolutions(&s.events_since(before)), ["answered"]);
    println!(
        "continue-2-allow: {:.1} s",
        s.started.elapsed().as_secs_f64()
    );
}

/// Scenario 2, deny: `attend answer PANE deny` (Esc) → the command never runs; the
/// decision resolved as answered.
#[test]
fn continue_2_permission_answered_deny_does_not_run_the_command() {
    let Some(s) = Scenario::start(
        "continue-2-deny",
        Cli::Continue,
        vec![bash(COMMAND), text(DONE)],
    ) else {
        return;
    };
    let before = s.last_seq();
    prompt_to_the_gate(&s);
    s.attend(&["answer", &s.pane, "deny"]);
    s.wait("the gate closed", |v| v["pending_decision"].is_null());
    s.wait_screen("the input box back", |t| t.contains("Ask anything"));
    assert!(
        !s.home.project.join("out.txt").exists(),
        "the denied command never ran"
    );
    assert_eq!(resolutions(&s.events_since(before)), ["answered"]);
    println!(
        "continue-2-deny: {:.1} s",
        s.started.elapsed().as_secs_f64()
    );
}

/// Scenario: Continue's own question (`AskQuestion`), which no hook reports → the screen
/// rule `question` reads blocked/input_required with the question and its two options
/// (not the hint row under them) → `attend answer PANE Blue` moves the cursor and presses
/// Enter → the model receives the answer and its text is drawn; resolved answered.
#[test]
fn continue_question_is_input_required_and_answered_from_attend() {
    let Some(s) = Scenario::start(
        "continue-question",
        Cli::Continue,
        vec![
            ask_question("Which color do you want?", &["Red", "Blue"]),
            text(PICKED),
        ],
    ) else {
        return;
    };
    s.wait_ready();
    s.prompt("ask me");
    s.wait_screen("the question", |t| {
        t.contains("? Which color do you want?") && t.contains("↑/↓ navigate, Enter select")
    });
    let v = s.expect_dialog_question("Blue");
    let d = &v["pending_decision"];
    assert_eq!(d["prompt"], "Which color do you want?", "{v}");
    assert_eq!(d["options"], json!(["Red", "Blue"]), "{v}");
    s.wait_explain("matched question");
    s.answer_dialog("Blue", "? Which color do you want?");
    s.wait_screen("the model's text", |t| t.contains(PICKED));
    let answered = s.last_request();
    assert!(
        answered.contains("User selected option 2") && answered.contains("Blue"),
        "the model received the answer: {answered}"
    );
    let v = s.show();
    assert!(v["pending_decision"].is_null(), "{v}");
    assert_ne!(v["attention"], "input_required", "{v}");
    println!(
        "continue-question: {:.1} s",
        s.started.elapsed().as_secs_f64()
    );
}
