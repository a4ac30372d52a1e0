//! Real-agent scenarios: the pinned real Claude Code, Codex and Gemini CLIs run INSIDE
//! Attend panes (`attend run`), with the hooks `attend install-hooks` writes into the
//! test's HOME, against the scripted model server on 127.0.0.1 (every other route points
//! at a closed loopback proxy). Every step is asserted through `attend show --json`:
//! lifecycle, attention, decision, last message (`tests/support/scenario.rs`).
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1` (docs/real-agents.md).

use crate::support;

use serde_json::Value;
use std::time::{Duration, Instant};
use support::agents::{Cli, Tmux};
use support::attend_bin;
use support::model_server::{Reply, Served};
use support::scenario::{edit_json, resolutions, text, Scenario, COMMAND, DONE, FIRST, STEP};

/// Scenario 1: a prompt, the model answers text, the turn ends → done/unread with the
/// model's text as last message.
#[test]
fn claude_1_prompt_ends_done_unread_with_the_models_text() {
    let Some(s) = Scenario::start("claude-1", Cli::Claude, vec![text(FIRST)]) else {
        return;
    };
    let v = s.wait("SessionStart", |v| !v["session_id"].is_null());
    s.expect(&v, "idle", "none", None);
    s.wait_ready();
    s.prompt("say hello");
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(FIRST));
    assert!(v["pending_decision"].is_null());
    assert_eq!(v["owned"], true);
    assert_eq!(
        v["resume_argv"][1], "--resume",
        "identity from SessionStart: {v}"
    );
}

/// Scenario 2: a tool call → the permission dialog → blocked/permission_required with a
/// decision naming the command → `attend answer PANE allow` (types `1`) → the tool runs →
/// done/unread, the decision resolved as answered.
#[test]
fn claude_2_permission_answered_with_attend_answer() {
    let Some(s) = Scenario::start(
        "claude-2",
        Cli::Claude,
        vec![Reply::claude_bash(COMMAND, "Write a file"), text(DONE)],
    ) else {
        return;
    };
    s.wait_ready();
    let before = s.last_seq();
    s.prompt("write the file");
    let v = s.expect_gate();
    assert!(
        v["last_message"].as_str().unwrap_or("").contains(COMMAND),
        "the gate's last message names the tool and command: {v}"
    );

    s.attend(&["answer", &s.pane, "allow"]);
    let v = s.show();
    if !v["pending_decision"].is_null() || v["attention"] == "permission_required" {
        s.fail("answering resolves the decision at once");
    }
    s.expect_tool_ran("unread");
    let how = resolutions(&s.events_since(before));
    assert_eq!(how, vec!["answered"], "resolved once, by the answer");
}

/// Scenario 3: the same gate answered by typing `1` through `attend attach` (in a tmux
/// terminal). An attached pane is focused (docs/lifecycle-attention.md#focus), so the turn's end counts as seen
/// at once: done/none.
#[test]
fn claude_3_permission_answered_by_typing_through_attend_attach() {
    let Some(s) = Scenario::start(
        "claude-3",
        Cli::Claude,
        vec![Reply::claude_bash(COMMAND, "Write a file"), text(DONE)],
    ) else {
        return;
    };
    s.wait_ready();
    let before = s.last_seq();
    s.prompt("write the file");
    s.expect_gate();

    let argv: Vec<String> = [
        "env".to_string(),
        format!("DBUS_SESSION_BUS_ADDRESS={}", s.env.bus.address),
        format!("XDG_RUNTIME_DIR={}", s.env.dir.path().join("run").display()),
        format!("ATTEND_STATE_DIR={}", s.env.state_dir().display()),
        attend_bin().to_string(),
        "attach".into(),
        s.pane.clone(),
    ]
    .into_iter()
    .collect();
    let term = Tmux::start_argv(&argv, &s.home.project, 120, 40).expect("tmux starts");
    if let Err(e) = term.wait_for_text("Do you want to proceed?", STEP) {
        s.fail(&format!("the attached terminal shows no dialog: {e}"));
    }
    let v = s.show();
    s.expect(
        &v,
        "blocked",
        "permission_required",
        v["last_message"].as_str(),
    );
    if let Err(e) = term.answer_dialog("Do you want to proceed?", "1") {
        s.fail(&e);
    }
    let v = s.expect_tool_ran("none");
    assert_eq!(v["focused"], true, "attached: focused");
    let dialog = term.screen();
    drop(term); // Detach.
    let v = s.wait("the detach", |v| v["focused"] == false);
    s.expect(&v, "done", "none", Some(DONE));
    assert!(v["pending_decision"].is_null(), "{v}\n{dialog}");
    let how = resolutions(&s.events_since(before));
    assert_eq!(how, vec!["approved"], "resolved by the tool's PostToolUse");
}

/// Scenario 4 (spec 024): after review (`attend seen`), `/exit` → SessionEnd and the
/// process exit change nothing: done/none, the summary kept, `live` exited 0.
#[test]
fn claude_4_seen_then_exit_stays_done_none() {
    let Some(s) = Scenario::start("claude-4", Cli::Claude, vec![text(FIRST)]) else {
        return;
    };
    s.wait_ready();
    s.prompt("say hello");
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(FIRST));
    s.attend(&["seen", &s.pane]);
    let v = s.show();
    s.expect(&v, "done", "none", Some(FIRST));

    let before = s.last_seq();
    s.prompt("/exit");
    let v = s.expect_exit_0();
    s.expect(&v, "done", "none", Some(FIRST));
    let ends = s.session_ends.as_ref().unwrap().payloads();
    assert!(!ends.is_empty(), "SessionEnd fired");
    assert_eq!(ends[0]["reason"], "prompt_input_exit");
    let after = s.events_since(before);
    let kinds: Vec<&str> = after.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert!(
        !kinds
            .iter()
            .any(|k| k.starts_with("agent.") || *k == "attention.created"),
        "a reviewed pane stays quiet: {kinds:?}"
    );
    assert!(kinds.contains(&"pane.exited"), "{kinds:?}");
    assert_eq!(
        s.env.attend(&["next"]).status.code(),
        Some(1),
        "nothing unread after the review"
    );
}

/// Scenario 5, Codex: one turn → done/unread; the `notify` of Codex's title side thread
/// (another thread id) does not touch the pane; an escalated command → the approval
/// dialog → blocked/permission_required → `attend answer PANE allow` → done.
#[test]
fn codex_5_turn_side_thread_and_escalation() {
    let Some(s) = Scenario::start(
        "codex-5",
        Cli::Codex,
        vec![
            text(FIRST),
            Reply::codex_escalated(COMMAND, "Write a file for the test"),
            text(DONE),
        ],
    ) else {
        return;
    };
    s.wait_ready();
    s.prompt("say hello");
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(FIRST));
    let session = v["session_id"].as_str().unwrap_or_default().to_string();
    assert!(!session.is_empty(), "the thread id is the session: {v}");

    // The title side thread's notify (another thread id) arrives around now.
    let side = s
        .server
        .wait_until("Codex's title side request", STEP, |log| {
            log.iter()
                .any(|r| matches!(&r.served, Served::Side(t) if t.contains("\"title\"")))
        });
    if let Err(e) = side {
        s.fail(&e);
    }
    let notifies = s.notifies.as_ref().unwrap();
    let other = notifies.wait_matching("agent-turn-complete", 0, STEP, |p| {
        p["thread-id"].as_str().is_some_and(|t| t != session)
    });
    if let Err(e) = other {
        s.fail(&e);
    }
    // The side thread's notify went to `attend hook codex --notify` like the session's.
    // The marker: every recorded notify's own completion (written by the notify command
    // after `attend hook codex --notify` returned, i.e. after the daemon answered), and no
    // hook left in the spool.
    s.wait_notifies_delivered();
    let v = s.show();
    s.expect(&v, "done", "unread", Some(FIRST));
    assert_eq!(v["session_id"], session.as_str());
    let panes: Vec<Value> = serde_json::from_str(&s.attend(&["ls", "--json"])).unwrap();
    assert_eq!(panes.len(), 1, "no pane for the side thread: {panes:?}");

    s.prompt("write the file");
    s.expect_gate();
    s.attend(&["answer", &s.pane, "allow"]);
    s.expect_tool_ran("unread");
}

/// Scenario 6, Gemini: one turn → done/unread; a shell tool call →
/// Notification(ToolPermission) → blocked/permission_required; answered → done; after
/// review, `/quit` (SessionEnd, possibly several) → spec 024: done/none, `live` exited 0,
/// no transition.
#[test]
fn gemini_6_turn_shell_permission_and_quit() {
    let Some(s) = Scenario::start(
        "gemini-6",
        Cli::Gemini,
        vec![
            text(FIRST),
            Reply::gemini_shell(COMMAND, "Write a file"),
            text(DONE),
        ],
    ) else {
        return;
    };
    let v = s.wait("SessionStart", |v| !v["session_id"].is_null());
    s.expect(&v, "idle", "none", None);
    s.wait_ready();
    s.prompt("say hello");
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(FIRST));

    s.prompt("write the file");
    s.expect_gate();
    s.attend(&["answer", &s.pane, "allow"]);
    s.expect_tool_ran("unread");

    s.attend(&["seen", &s.pane]);
    let before = s.last_seq();
    s.prompt("/quit");
    let v = s.expect_exit_0();
    s.expect(&v, "done", "none", Some(DONE));
    let ends = s.session_ends.as_ref().unwrap().payloads();
    println!("gemini-6: SessionEnd fired {} time(s)", ends.len());
    assert!(!ends.is_empty(), "SessionEnd fired");
    let kinds: Vec<String> = s
        .events_since(before)
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_string())
        .collect();
    assert!(
        !kinds
            .iter()
            .any(|k| k.starts_with("agent.") || k == "attention.created"),
        "SessionEnd on a reviewed pane changes nothing: {kinds:?}"
    );
}

/// An answer presses what the screen offers: `attend answer PANE deny` on the permission
/// dialog picks the option labelled "No" wherever the version draws it (2.1.197: `3. No`;
/// 2.1.332: `4. No`, where `3` is "Yes, and switch to auto mode"). The command never runs,
/// the decision is resolved as answered, and the pane is no longer blocked. The answer
/// comes at once, in the dialog's first moment, where Claude Code takes the number as a
/// cursor move only: Attend sees its answer not taken and confirms it with Enter.
#[test]
fn claude_7_permission_denied_with_attend_answer_runs_nothing() {
    let Some(s) = Scenario::start(
        "claude-7",
        Cli::Claude,
        vec![
            Reply::claude_bash(COMMAND, "Write a file"),
            text("Understood, nothing written."),
        ],
    ) else {
        return;
    };
    s.wait_ready();
    let before = s.last_seq();
    s.prompt("write the file");
    s.expect_gate_hook();
    s.attend(&["answer", &s.pane, "deny"]);
    let v = s.wait("the gate closed", |v| {
        v["lifecycle"] != "blocked" && v["pending_decision"].is_null()
    });
    assert_ne!(v["attention"], "permission_required", "{v}");
    // The dialog is gone from the screen (the key was taken), and the command never ran.
    let screen = || s.env.attend1().get_screen(&s.pane).unwrap_or_default();
    let deadline = Instant::now() + STEP;
    while screen().contains("Do you want to proceed?") {
        if Instant::now() > deadline {
            s.fail("the dialog stayed on screen after the answer");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(1500));
    if s.home.project.join("out.txt").exists() {
        s.fail("the denied command ran");
    }
    let how = resolutions(&s.events_since(before));
    assert_eq!(how, vec!["answered"], "resolved once, by the answer");
    let shown = screen();
    assert!(
        !shown.contains("auto mode on"),
        "the answer did not switch the permission mode:\n{shown}"
    );
}

/// Dialogs no hook names: Claude Code's folder trust dialog at the first start in a folder
/// fires no hook, yet the screen waits for a key → blocked/input_required with a question
/// decision (2.1.197 draws "1. Yes, I trust this folder"; 2.1.332 "No, exit" first,
/// without numbers). `attend answer PANE allow` presses what it shows; the session then
/// starts and a turn runs.
#[test]
fn claude_8_folder_trust_dialog_is_a_question_answered_by_what_it_shows() {
    let Some(s) = Scenario::start_with("claude-8", Cli::Claude, vec![text(FIRST)], |home| {
        edit_json(&home.home.join(".claude.json"), |v| {
            v["projects"] = serde_json::json!({})
        })
    }) else {
        return;
    };
    s.expect_dialog_question("Yes, I trust this folder");
    s.answer_dialog("allow", "I trust this folder");
    s.wait_ready();
    s.prompt("say hello");
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(FIRST));
}

/// Claude Code 2.1.332's one-time offer at start-up ("Make auto mode your default
/// permission mode?", options without numbers, no hook): a question; `attend answer PANE
/// deny` picks "No, keep manual mode" with the cursor. Not in 2.1.197.
#[test]
fn claude_9_one_time_offer_is_a_question_answered_with_the_cursor() {
    if Cli::Claude.version() == "2.1.197" {
        println!("claude 2.1.197 shows no auto mode offer");
        return;
    }
    let Some(s) = Scenario::start_with("claude-9", Cli::Claude, vec![text(FIRST)], |home| {
        edit_json(&home.home.join(".claude.json"), |v| {
            v["hasSeenAutoDefaultNudge"] = false.into()
        })
    }) else {
        return;
    };
    let v = s.expect_dialog_question("No, keep manual mode");
    assert_eq!(
        v["pending_decision"]["prompt"],
        "Make auto mode your default permission mode?"
    );
    s.answer_dialog("deny", "Make auto mode your default");
    let settings = std::fs::read_to_string(s.home.config_dir().join("settings.json")).unwrap();
    assert!(
        !settings.contains("\"auto\""),
        "deny kept the manual mode: {settings}"
    );
}

/// Codex's folder trust dialog (no hook): a question; `attend answer PANE allow` picks
/// "1. Trust and continue".
#[test]
fn codex_10_folder_trust_dialog_is_a_question() {
    let Some(s) = Scenario::start_with("codex-10", Cli::Codex, vec![text(FIRST)], |home| {
        let path = home.config_dir().join("config.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        let cut = text.find("[projects.").expect("the trusted project");
        std::fs::write(&path, &text[..cut]).unwrap();
    }) else {
        return;
    };
    s.expect_dialog_question("Trust and continue");
    s.answer_dialog("allow", "Trust this folder?");
}

/// Gemini CLI's folder trust dialog (folder trust on; no hook): a question with its three
/// options; `attend answer PANE 3` ("Don't trust") presses what it shows.
#[test]
fn gemini_11_folder_trust_dialog_is_a_question() {
    let Some(s) = Scenario::start_with("gemini-11", Cli::Gemini, vec![text(FIRST)], |home| {
        edit_json(&home.config_dir().join("settings.json"), |v| {
            v["security"]["folderTrust"]["enabled"] = true.into()
        })
    }) else {
        return;
    };
    s.expect_dialog_question("Don't trust");
    s.answer_dialog("3", "Do you trust the files in this folder?");
}
