//! The real Claude Code in a pane of the user's own tmux (docs/tmux.md#answers), against
//! the scripted model: its own question and its permission gate answered from Attend
//! through `tmux send-keys` (`attend answer`, the notification's buttons), Esc at the
//! gate in tmux, and `tmux kill-pane` at the gate.
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1` (docs/real-agents.md).

use crate::support;
use crate::tmux_agent::{TmuxAgent, CLAUDE_READY};

use serde_json::json;
use std::time::{Duration, Instant};
use support::agents::Cli;
use support::model_server::Reply;
use support::scenario::{COMMAND, DONE};

/// Claude's permission dialog.
const PROCEED: &str = "Do you want to proceed?";
/// Claude's question and the model's text once it has the answer.
const QUESTION: &str = "Which color do you want?";
const PICKED: &str = "You picked a color.";

/// The scripted question: two options.
fn ask() -> Reply {
    let input = json!({"questions": [{"question": QUESTION, "header": "Color",
        "multiSelect": false, "options": [{"label": "Red", "description": "warm"},
        {"label": "Blue", "description": "cool"}]}]});
    Reply::Tool {
        name: "AskUserQuestion".into(),
        input_json: input.to_string(),
    }
}

/// The tool result the model received last (the body of the last turn request).
fn last_turn(t: &TmuxAgent) -> String {
    t.server
        .turns()
        .last()
        .map(|r| r.body.to_string())
        .unwrap_or_default()
}

/// Claude's own question in tmux, its hooks installed (the user's setup): the pane reads
/// `blocked / input_required` with the options; `attend answer PANE 1` types the answer
/// through `send-keys`, and the model receives it ("Red") in the tool result.
#[test]
fn claude_question_in_tmux_is_answered_with_attend_answer() {
    let Some(t) = TmuxAgent::start(Cli::Claude, vec![ask(), Reply::text(PICKED)], true) else {
        return;
    };
    let v = t.to_decision(CLAUDE_READY, "ask me", QUESTION);
    assert_eq!(v["attention"], "input_required", "{v:#}");
    assert!(
        v["pending_decision"].to_string().contains("Blue"),
        "the options are the decision's: {v:#}"
    );
    t.env.ok(&["answer", &t.pane, "1"]);
    t.env.wait_until("the model received the answer", || {
        t.server.turns().len() >= 2 && last_turn(&t).contains("Red")
    });
    let v = t.wait("the turn's end", |v| v["lifecycle"] == "done");
    assert!(v["pending_decision"].is_null(), "{v:#}");
    eprintln!("claude question in tmux: {:.1} s", t.took());
}

/// The question's notification on a followed pane carries its options as buttons, and
/// pressing one (dunst's context menu) answers through `send-keys`: the model receives
/// "Blue".
#[test]
fn claude_question_in_tmux_is_answered_from_its_notification() {
    let Some(t) = TmuxAgent::start(Cli::Claude, vec![ask(), Reply::text(PICKED)], true) else {
        return;
    };
    t.to_decision(CLAUDE_READY, "ask me", QUESTION);
    let mut actions = Vec::new();
    let notified = support::poll(Duration::from_secs(10), || {
        actions = t
            .calls
            .calls()
            .last()
            .map(|c| c.actions.clone())
            .unwrap_or_default();
        t.env.displayed() == 1 && actions.len() > 2
    });
    assert!(
        notified,
        "{actions:?}\n{:#}\n{}",
        t.env.show(&t.pane),
        t.env.daemon_log()
    );
    assert!(
        actions.iter().any(|a| a.contains("Blue")),
        "the options are buttons: {actions:?}"
    );
    // dunst's context menu lists each action as `#LABEL (SUMMARY) [ID,KEY]`: Blue's.
    std::fs::write(t.env.path("choice"), "#Blue (").unwrap();
    assert!(t.env.dunstctl(&["context"]).status.success());
    t.env.wait_until("the model received the answer", || {
        t.server.turns().len() >= 2 && last_turn(&t).contains("Blue")
    });
    t.wait("the turn's end", |v| v["lifecycle"] == "done");
    eprintln!("claude question's button in tmux: {:.1} s", t.took());
}

/// A gate: one Bash call writing a file, then [`DONE`].
fn gate() -> Vec<Reply> {
    vec![
        Reply::claude_bash(COMMAND, "Write a file"),
        Reply::text(DONE),
    ]
}

/// Claude's permission gate in tmux (no hooks: read from the followed screen) answered
/// with `attend answer PANE allow`: the command runs and the model receives its result.
#[test]
fn claude_gate_in_tmux_allowed_with_attend_answer_runs_the_command() {
    let Some(t) = TmuxAgent::start(Cli::Claude, gate(), false) else {
        return;
    };
    let v = t.to_decision(CLAUDE_READY, "write the file", PROCEED);
    assert_eq!(v["attention"], "permission_required", "{v:#}");
    t.env.ok(&["answer", &t.pane, "allow"]);
    t.wait_command_ran();
    t.env.wait_until("the model received the result", || {
        t.server.turns().len() >= 2 && last_turn(&t).contains("tool_result")
    });
    let v = t.wait("the decision closed", |v| v["pending_decision"].is_null());
    assert_ne!(v["attention"], "permission_required", "{v:#}");
    eprintln!("claude gate allowed in tmux: {:.1} s", t.took());
}

/// The same gate denied with `attend answer PANE deny`: the command never runs.
#[test]
fn claude_gate_in_tmux_denied_with_attend_answer_runs_nothing() {
    let Some(t) = TmuxAgent::start(Cli::Claude, gate(), false) else {
        return;
    };
    t.to_decision(CLAUDE_READY, "write the file", PROCEED);
    t.env.ok(&["answer", &t.pane, "deny"]);
    let v = t.wait("the gate closed", |v| {
        v["pending_decision"].is_null() && v["lifecycle"] != "blocked"
    });
    assert_ne!(v["attention"], "permission_required", "{v:#}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while t.screen().contains(PROCEED) {
        assert!(
            Instant::now() < deadline,
            "the dialog stays:\n{}",
            t.screen()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_secs(1));
    assert!(!t.command_ran(), "the denied command did not run");
    eprintln!("claude gate denied in tmux: {:.1} s", t.took());
}

/// Esc typed in tmux at the gate: the pane reads `idle` within 1 s of the dialog leaving
/// the screen, the decision dismissed; the command never runs.
#[test]
fn claude_gate_in_tmux_escaped_reads_idle_within_a_second() {
    let Some(t) = TmuxAgent::start(Cli::Claude, gate(), false) else {
        return;
    };
    t.to_decision(CLAUDE_READY, "write the file", PROCEED);
    let before = t.env.events().len();
    t.tmux(&["send-keys", "-t", &t.tmux_pane, "Escape"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while t.screen().contains(PROCEED) {
        assert!(Instant::now() < deadline, "Esc ignored:\n{}", t.screen());
        std::thread::sleep(Duration::from_millis(20));
    }
    let gone = Instant::now();
    let mut v = serde_json::Value::Null;
    let idle = support::poll(Duration::from_secs(10), || {
        v = t.env.show(&t.pane);
        v["lifecycle"] == "idle" && v["pending_decision"].is_null()
    });
    let took = gone.elapsed();
    assert!(idle, "{v:#}\n{}", t.env.daemon_log());
    eprintln!("claude gate escaped in tmux: idle {took:?} after the dialog left");
    assert!(took < Duration::from_secs(1), "idle after {took:?}");
    let events = t.env.events();
    assert!(
        events[before..]
            .iter()
            .any(|e| e["kind"] == "decision.resolved" && e["how"] == "dismissed"),
        "the decision dismissed: {:#?}",
        &events[before..]
    );
    assert!(!t.command_ran());
    eprintln!("claude gate escaped in tmux: {:.1} s", t.took());
}

/// `tmux kill-pane` at the gate: the pane reads exited, its decision dropped.
#[test]
fn claude_gate_in_tmux_killed_pane_is_exited_and_its_decision_dropped() {
    let Some(t) = TmuxAgent::start(Cli::Claude, gate(), false) else {
        return;
    };
    t.to_decision(CLAUDE_READY, "write the file", PROCEED);
    t.tmux(&["kill-pane", "-t", &t.tmux_pane]);
    let v = t.wait("exited", |v| v["live"]["state"] == "exited");
    assert!(v["pending_decision"].is_null(), "{v:#}");
    assert_ne!(v["attention"], "permission_required", "{v:#}");
    eprintln!("claude gate, tmux pane killed: {:.1} s", t.took());
}
