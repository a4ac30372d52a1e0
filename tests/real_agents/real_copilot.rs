//! Real-agent scenarios of GitHub Copilot CLI: the pinned real CLI runs INSIDE an Attend
//! pane (`attend run`), with the hooks `attend install-hooks copilot` writes into the
//! test's HOME, offline (`COPILOT_OFFLINE`) against the scripted model server's OpenAI
//! Chat Completions API on 127.0.0.1 (`COPILOT_PROVIDER_BASE_URL`). Every step is asserted
//! through `attend show --json` (`tests/support/scenario.rs`; docs/real-agents.md,
//! docs/adapters.md "GitHub Copilot CLI").
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1`. Each test has its own daemon, bus, model server port and
//! HOME (the unpacked CLI is shared: `support::agents::copilot_cache`), so they run in
//! parallel; Esc at a gate shares scenario 2's CLI (one start fewer).

use crate::support;

use support::agents::Cli;
use support::model_server::Reply;
use support::notes::notification_server;
use support::scenario::{resolutions, text, Options, Scenario, COMMAND, DONE, FIRST};

/// Scenario 1: a prompt, the model answers text, the turn ends → done/unread with the
/// model's text as last message (read from the transcript by the hook client: Copilot's
/// agentStop carries none); the session can be resumed by its id.
#[test]
fn copilot_1_prompt_ends_done_unread_with_the_models_text() {
    let Some(s) = Scenario::start("copilot-1", Cli::Copilot, vec![text(FIRST)]) else {
        return;
    };
    let v = s.hello_turn_done();
    assert!(v["pending_decision"].is_null());
    let session = v["session_id"].as_str().unwrap().to_string();
    assert_eq!(
        v["resume_argv"],
        serde_json::json!(["copilot", format!("--resume={session}")]),
        "{v}"
    );
}

/// Scenario 2: a shell command that needs approval → blocked/permission_required with the
/// command in the decision → `attend answer PANE allow` (picks "Yes" off the screen: `1`
/// and Enter) → the command runs → done, the decision resolved as answered. Then Esc at
/// the next gate: Copilot refuses the command and ends the turn without any hook; the
/// screen shows the dialog closed (its prompt back, the idle status row), which ends the
/// gate: idle, nothing to attend to, the decision dismissed
/// (docs/lifecycle-attention.md#gates-the-screen-closes).
#[test]
fn copilot_2_permission_answered_with_attend_answer_then_esc_at_the_next_gate() {
    let Some(s) = Scenario::start(
        "copilot-2",
        Cli::Copilot,
        vec![
            Reply::copilot_shell(COMMAND, "Write a file"),
            text(DONE),
            Reply::copilot_shell(REFUSED, "Write another file"),
        ],
    ) else {
        return;
    };
    let before = s.last_seq();
    let v = s.prompt_to_the_gate("write the file");
    assert_eq!(
        v["pending_decision"]["prompt"],
        format!("Run command: {COMMAND}"),
        "the decision names the command: {v}"
    );
    s.allow_and_expect_the_tool_ran(before);

    // Reviewed, so that the next gate's end shows on its own.
    s.attend(&["seen", &s.pane]);
    let before = s.last_seq();
    s.prompt("write another file");
    let v = s.wait("the next gate", |v| {
        v["pending_decision"]["prompt"] == format!("Run command: {REFUSED}")
    });
    s.expect(
        &v,
        "blocked",
        "permission_required",
        v["last_message"].as_str(),
    );
    s.wait_screen("the next dialog", |t| {
        t.contains("Write another file") && t.ends_with('╯')
    });
    s.attend(&["send", &s.pane, "\u{1b}"]);
    let v = s.wait("the gate's end", |v| v["lifecycle"] != "blocked");
    s.expect(&v, "idle", "none", v["last_message"].as_str());
    assert!(v["pending_decision"].is_null(), "{v}");
    assert_eq!(resolutions(&s.events_since(before)), ["dismissed"]);
    assert!(
        !s.home.project.join("refused.txt").exists(),
        "the refused command never ran"
    );
}

/// The command [`copilot_2_permission_answered_with_attend_answer_then_esc_at_the_next_gate`]
/// refuses with Esc.
const REFUSED: &str = "echo refused > refused.txt";

/// Scenario 3: a turn ends done/unread (one notification), the human reviews it
/// (`attend seen`: done/none), then quits Copilot (`/exit`: sessionEnd `user_exit`, exit
/// 0): the pane stays done/none — no lifecycle event, no attention, no second
/// notification.
#[test]
fn copilot_3_review_then_quit_stays_done_none_with_one_notification() {
    let options = Options {
        notifications: true,
        ..Options::default()
    };
    let Some(s) = Scenario::start_opts(
        "copilot-3",
        Cli::Copilot,
        vec![text(FIRST)],
        options,
        |_| {},
    ) else {
        return;
    };
    let (_server, shown) = notification_server(&s.env.bus.address);
    s.hello_turn_done();
    let marker = serde_json::json!({
        "sessionId": "copilot-3-marker", "cwd": "/tmp", "lastAssistantMessage": "marker",
    });
    let end = s.review_then_quit(&shown, "/exit", &["hook", "copilot", "agentStop"], &marker);
    assert_eq!(end["reason"], "user_exit", "{end}");
}

/// Scenario 4: Copilot killed at its gate by another process (`kill -9 PID` of the pane's
/// program, its npm launcher, not `attend kill`): the decision is dropped (abandoned), the
/// pane shows the crash (failed/error, killed by signal 9), and the native CLI the launcher
/// ran ends with it (the terminal's hangup), so nothing runs the command later.
#[test]
fn copilot_4_kill_9_at_the_gate_drops_the_decision_and_shows_the_crash() {
    let script = vec![Reply::copilot_shell(COMMAND, "Write a file"), text(DONE)];
    let Some(s) = Scenario::start("copilot-4", Cli::Copilot, script) else {
        return;
    };
    s.prompt_to_the_gate("write the file");
    let session = s.kill_9_at_the_gate();
    assert!(
        session.len() > 1,
        "the launcher ran the native CLI: {session:?}"
    );
    let gone = support::poll(support::scenario::STEP, || {
        session.iter().all(|m| !support::running(*m))
    });
    assert!(gone, "the native CLI ends with its launcher: {session:?}");
}
