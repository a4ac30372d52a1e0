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

mod support;

use support::agents::Cli;
use support::model_server::Reply;
use support::notes::{notification_server, wait_notes};
use support::scenario::{resolutions, text, Options, Scenario, COMMAND, DONE, FIRST};

/// Scenario 1: a prompt, the model answers text, the turn ends → done/unread with the
/// model's text as last message (read from the transcript by the hook client: Copilot's
/// agentStop carries none); the session can be resumed by its id.
#[test]
fn copilot_1_prompt_ends_done_unread_with_the_models_text() {
    let Some(s) = Scenario::start("copilot-1", Cli::Copilot, vec![text(FIRST)]) else {
        return;
    };
    s.wait_ready();
    s.prompt("say hello");
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(FIRST));
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
    s.wait_ready();
    let before = s.last_seq();
    s.prompt("write the file");
    let v = s.expect_gate();
    assert_eq!(
        v["pending_decision"]["prompt"],
        format!("Run command: {COMMAND}"),
        "the decision names the command: {v}"
    );
    s.attend(&["answer", &s.pane, "allow"]);
    let v = s.show();
    if !v["pending_decision"].is_null() || v["attention"] == "permission_required" {
        s.fail("answering resolves the decision at once");
    }
    s.expect_tool_ran("unread");
    assert_eq!(resolutions(&s.events_since(before)), ["answered"]);

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
    s.wait_ready();
    s.prompt("say hello");
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(FIRST));
    wait_notes(&s, &shown, 1);
    s.attend(&["seen", &s.pane]);
    s.expect(&s.show(), "done", "none", Some(FIRST));
    let before = s.last_seq();
    s.prompt("/exit");
    let v = s.expect_exit_0();
    s.expect(&v, "done", "none", Some(FIRST));
    let ends = s.session_ends.as_ref().unwrap();
    let end = ends
        .wait_for("sessionEnd", 0, support::scenario::STEP)
        .unwrap_or_else(|e| s.fail(&e));
    assert_eq!(end["reason"], "user_exit", "{end}");
    let kinds: Vec<String> = s
        .events_since(before)
        .iter()
        .map(|e| e["kind"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        !kinds
            .iter()
            .any(|k| k.starts_with("agent.") || k == "attention.created"),
        "the reviewed pane stays quiet: {kinds:?}"
    );
    // The marker for "no second notification": a completion on another pane after the
    // exit is notified, and nothing came between.
    let marker = serde_json::json!({
        "sessionId": "copilot-3-marker", "cwd": "/tmp", "lastAssistantMessage": "marker",
    });
    let out = s.env.attend_with(
        &["hook", "copilot", "agentStop"],
        marker.to_string().as_bytes(),
        &[],
    );
    assert!(out.status.success(), "{out:?}");
    wait_notes(&s, &shown, 2);
    let notes = shown.lock().unwrap().clone();
    assert!(notes[1].contains("marker"), "{notes:?}");
    assert_eq!(notes.len(), 2, "one notification for the pane: {notes:?}");
}

/// Scenario 4: Copilot killed at its gate by another process (`kill -9 PID` of the pane's
/// program, its npm launcher, not `attend kill`): the decision is dropped (abandoned), the
/// pane shows the crash (failed/error, killed by signal 9), and the native CLI the launcher
/// ran ends with it (the terminal's hangup), so nothing runs the command later.
#[test]
fn copilot_4_kill_9_at_the_gate_drops_the_decision_and_shows_the_crash() {
    let Some(s) = Scenario::start(
        "copilot-4",
        Cli::Copilot,
        vec![Reply::copilot_shell(COMMAND, "Write a file"), text(DONE)],
    ) else {
        return;
    };
    s.wait_ready();
    s.prompt("write the file");
    s.expect_gate();
    let before = s.last_seq();
    let pid = support::program_of(&s.env.state_dir(), &s.pane)
        .unwrap_or_else(|| s.fail("no program pid"));
    let members = support::session_members(pid);
    assert!(
        members.len() > 1,
        "the launcher runs the native CLI: {members:?}"
    );
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let v = s.wait("the crash", |v| v["live"]["state"] == "exited");
    assert_eq!(v["live"]["signal"], 9, "{v}");
    assert_eq!(v["lifecycle"], "failed", "{v}");
    assert_eq!(v["attention"], "error", "a kill from outside Attend: {v}");
    assert!(
        v["pending_decision"].is_null(),
        "the decision is dropped: {v}"
    );
    assert_eq!(resolutions(&s.events_since(before)), ["abandoned"]);
    let gone = support::poll(support::scenario::STEP, || {
        members.iter().all(|m| !support::running(*m))
    });
    assert!(gone, "the native CLI ends with its launcher: {members:?}");
    assert!(
        !std::fs::read_to_string(s.home.project.join("out.txt")).is_ok_and(|t| !t.is_empty()),
        "the command never ran"
    );
}
