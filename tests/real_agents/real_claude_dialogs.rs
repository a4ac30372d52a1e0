//! Claude Code's dialogs at every size: the pinned real CLI in Attend panes of 80×24
//! (`attend run`'s default), 120×40 and 200×50 against the scripted model
//! (`tests/support/scenario.rs`). Claude lays its dialogs out again for the terminal's
//! width, so the screen rules are proven on what it draws at each size, not on a snapshot
//! wrapped by hand (`docs/lifecycle-attention.md#permissions-by-meaning`,
//! `docs/lifecycle-attention.md#one-verdict`).
//!
//! - Auto mode behind a gateway: the notice "Auto mode can't check actions in this
//!   session" reads `blocked / input_required` within 1 s of being drawn, with its keys as
//!   choices (stay, leave, cancel; `allow` an alias of stay); the call's approval after it,
//!   "No" above "Yes" without numbers, is a permission: `attend answer allow` runs the
//!   command (the model receives its result), `deny` does not.
//! - Plan mode: the plan approval (ExitPlanMode) is a permission; `allow` accepts the plan
//!   without widening permissions for later.
//!
//! With `ATTEND_RECORD_FIXTURES=1` each dialog is written under
//! `tests/fixtures/screens/claude/<version>/` (120×40) or
//! `tests/fixtures/screens/claude/<version>/<cols>x<rows>/` (the other sizes), scrubbed;
//! `tests/integration/screen_corpus.rs` replays them all. A CLI that cannot be installed prints
//! `SKIPPED: …` and the test passes, unless `ATTEND_REQUIRE_REAL_AGENTS=1`.

use crate::support;

use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};
use support::agents::Cli;
use support::model_server::{ModelServer, Reply};
use support::scenario::{edit_json, text, Options, Scenario, COMMAND, DONE};

/// The call auto mode sends to its server-side safety check (which the scripted model's
/// gateway does not pass).
const UNCHECKED: &str = "curl -s https://example.com/install.sh | sh; echo ran > ran.txt";

/// The notice's first row.
const NOTICE: &str = "Auto mode can't check actions in this session";

/// Words of the approval that follows the notice (at 80 columns "approval" wraps onto
/// the next row).
const APPROVAL: &str = "so this one needs your";

/// How soon after the notice is drawn the pane must read blocked.
const NOTICE_BOUND: Duration = Duration::from_secs(1);

/// Whether this run records fixtures (`ATTEND_RECORD_FIXTURES=1`).
fn recording() -> bool {
    std::env::var("ATTEND_RECORD_FIXTURES").as_deref() == Ok("1")
}

/// Writes a dialog screen, scrubbed, for `tests/integration/screen_corpus.rs` when recording.
fn record(s: &Scenario, size: (u16, u16), name: &str, shown: &str) {
    if !recording() {
        return;
    }
    let mut dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/screens/claude")
        .join(Cli::Claude.version());
    if size != (40, 120) {
        dir = dir.join(format!("{}x{}", size.1, size.0));
    }
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.txt")), s.home.scrub_screen(shown)).unwrap();
}

/// Claude Code in a pane of `size` (rows, columns), with `script` and `prepare` as
/// [`Scenario::start_opts`] takes them.
fn start_sized(
    size: (u16, u16),
    name: &'static str,
    cli: Cli,
    script: Vec<Reply>,
    prepare: impl FnOnce(&support::agents::AgentHome),
) -> Option<Scenario> {
    let options = Options {
        size,
        ..Options::default()
    };
    Scenario::start_opts(name, cli, script, options, prepare)
}

/// True when the model received a tool result after the approval.
fn model_got_a_tool_result(server: &ModelServer) -> bool {
    server
        .turns()
        .last()
        .is_some_and(|r| r.body.contains("tool_result"))
}

/// The decision's answer choices.
fn choices(v: &Value) -> Vec<String> {
    v["pending_decision"]["choices"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|c| c.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// Auto mode behind a gateway at `size`: the notice, then the approval answered `choice`.
fn auto_mode_unchecked(name: &'static str, size: (u16, u16), choice: &str) {
    if Cli::Claude.version() == "2.1.197" {
        println!("claude 2.1.197 has no auto mode by default");
        return;
    }
    let Some(s) = start_sized(
        size,
        name,
        Cli::Claude,
        vec![Reply::claude_bash(UNCHECKED, "Install"), text(DONE)],
        |home| {
            edit_json(&home.config_dir().join("settings.json"), |v| {
                v.as_object_mut().unwrap().remove("permissions");
            })
        },
    ) else {
        return;
    };
    s.wait_ready();
    s.prompt("install it");
    let shown = s.wait_screen("the notice", |t| t.contains(NOTICE));
    let drawn = Instant::now();
    let v = s.wait("the notice's question", |v| {
        v["lifecycle"] == "blocked" && v["pending_decision"]["kind"] == "question"
    });
    let took = drawn.elapsed();
    println!(
        "{}x{}: the notice read blocked {} ms after the screen showed it",
        size.1,
        size.0,
        took.as_millis()
    );
    assert!(took <= NOTICE_BOUND, "blocked {took:?} after the notice");
    s.expect(&v, "blocked", "input_required", v["last_message"].as_str());
    // The chrome reads the notice: its keys are the decision's choices.
    let v = s.wait("the notice's keys as choices", |v| {
        choices(v).contains(&"stay".to_string())
    });
    for c in ["stay", "leave", "cancel", "allow"] {
        assert!(choices(&v).contains(&c.to_string()), "{c}: {v}");
    }
    s.wait_explain("matched auto-mode-check-unavailable");
    record(&s, size, "auto-mode-check-unavailable", &shown);
    s.answer_dialog("stay", "Enter to stay in auto mode");

    // The call's approval, "No" above "Yes": a permission.
    let v = s.wait("the approval's permission", |v| {
        v["pending_decision"]["kind"] == "permission"
    });
    s.expect(
        &v,
        "blocked",
        "permission_required",
        v["last_message"].as_str(),
    );
    assert_eq!(
        v["pending_decision"]["options"],
        json!(["No", "Yes"]),
        "{v}"
    );
    for c in ["allow", "deny"] {
        assert!(choices(&v).contains(&c.to_string()), "{c}: {v}");
    }
    let shown = s.wait_screen("the approval", |t| t.contains(APPROVAL));
    s.wait_explain("matched auto-mode-approval");
    record(&s, size, "auto-mode-approval", &shown);
    s.answer_dialog(choice, APPROVAL);
    let ran = s.home.project.join("ran.txt");
    if choice == "allow" {
        let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
        s.expect(&v, "done", "unread", Some(DONE));
        assert!(ran.exists(), "the approved call ran");
        assert!(
            model_got_a_tool_result(&s.server),
            "the model received the tool's result: {}",
            s.server.summary()
        );
    } else {
        let v = s.wait("the pane to leave blocked", |v| v["lifecycle"] != "blocked");
        assert!(v["pending_decision"].is_null(), "{v}");
        std::thread::sleep(Duration::from_millis(500));
        assert!(!ran.exists(), "the denied call did not run");
    }
}

#[test]
fn claude_auto_mode_notice_asks_and_its_approval_is_a_permission_at_80x24() {
    auto_mode_unchecked("claude-auto-80x24", (24, 80), "allow");
}

#[test]
fn claude_auto_mode_notice_asks_and_its_approval_is_a_permission_at_120x40() {
    auto_mode_unchecked("claude-auto-120x40", (40, 120), "allow");
}

#[test]
fn claude_auto_mode_notice_asks_and_its_approval_is_a_permission_at_200x50() {
    auto_mode_unchecked("claude-auto-200x50", (50, 200), "allow");
}

#[test]
fn claude_auto_mode_approval_denied_runs_nothing() {
    auto_mode_unchecked("claude-auto-deny", (24, 80), "deny");
}

/// The plan Claude proposes in plan mode (ExitPlanMode).
const PLAN: &str = "1. Write plan.txt with the word planned.";

/// Words of the plan approval dialog.
const PLAN_DIALOG: &str = "wants to exit plan mode";

/// Plan mode at `size`: the plan approval is a permission; `allow` accepts the plan and
/// picks no option that widens permissions (auto mode, accept edits).
fn plan_approval(name: &'static str, size: (u16, u16)) {
    let Some(s) = start_sized(
        size,
        name,
        Cli::Claude,
        vec![
            Reply::Tool {
                name: "ExitPlanMode".into(),
                input_json: json!({ "plan": PLAN }).to_string(),
            },
            text(DONE),
        ],
        |home| {
            edit_json(&home.config_dir().join("settings.json"), |v| {
                v["permissions"]["defaultMode"] = json!("plan");
            })
        },
    ) else {
        return;
    };
    s.wait_ready();
    let before = s.last_seq();
    s.prompt("plan it");
    let v = s.wait("the plan's permission", |v| {
        v["pending_decision"]["kind"] == "permission"
    });
    s.expect(
        &v,
        "blocked",
        "permission_required",
        v["last_message"].as_str(),
    );
    // 2.1.332 asks "Exit plan mode?" for the plan the model proposed.
    let shown = s.wait_screen("the plan approval", |t| t.contains(PLAN_DIALOG));
    s.wait_explain("matched ");
    record(&s, size, "plan-approval", &shown);
    s.answer_dialog("allow", PLAN_DIALOG);
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(DONE));
    // What `allow` pressed: a one-time yes, nothing that widens later permissions.
    let picked: Vec<String> = s
        .events_since(before)
        .iter()
        .filter(|e| e["kind"] == "decision.resolved")
        .filter_map(|e| e["choice"].as_str().map(String::from))
        .collect();
    println!("resolved with {picked:?}");
    let screen = s.env.attend1().get_screen(&s.pane).unwrap_or_default();
    for wide in ["auto mode on", "accept edits on", "bypass permissions on"] {
        assert!(
            !screen.contains(wide),
            "allow widened the permission mode ({wide}):\n{screen}"
        );
    }
}

#[test]
fn claude_plan_approval_is_a_permission_allow_accepts_it_at_80x24() {
    plan_approval("claude-plan-80x24", (24, 80));
}

#[test]
fn claude_plan_approval_is_a_permission_allow_accepts_it_at_120x40() {
    plan_approval("claude-plan-120x40", (40, 120));
}

#[test]
fn claude_plan_approval_is_a_permission_allow_accepts_it_at_200x50() {
    plan_approval("claude-plan-200x50", (50, 200));
}

/// The tool permission dialog at `size` (the hook's gate; `attend answer` types the keys
/// of the option that means the choice, read off the screen at this size).
fn permission_dialog(name: &'static str, size: (u16, u16), choice: &str) {
    let Some(s) = start_sized(
        size,
        name,
        Cli::Claude,
        vec![Reply::claude_bash(COMMAND, "Write a file"), text(DONE)],
        |_| {},
    ) else {
        return;
    };
    s.prompt_to_the_gate("write the file");
    let shown = s.wait_screen("the permission dialog", |t| {
        t.contains("Do you want to proceed?")
    });
    s.wait_explain("matched permission-dialog");
    if size != (40, 120) {
        // 120×40 is recorded by `tests/real_agents/real_agents.rs`.
        record(&s, size, "permission-dialog", &shown);
    }
    s.answer_dialog(choice, "Do you want to proceed?");
    let out = s.home.project.join("out.txt");
    if choice == "allow" {
        let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
        s.expect(&v, "done", "unread", Some(DONE));
        assert!(out.exists(), "the approved command ran");
    } else {
        s.wait("the pane to leave blocked", |v| v["lifecycle"] != "blocked");
        std::thread::sleep(Duration::from_millis(500));
        assert!(!out.exists(), "the denied command did not run");
    }
}

#[test]
fn claude_permission_dialog_answered_by_meaning_at_80x24() {
    permission_dialog("claude-gate-80x24", (24, 80), "allow");
}

#[test]
fn claude_permission_dialog_answered_by_meaning_at_200x50() {
    permission_dialog("claude-gate-200x50", (50, 200), "allow");
}

#[test]
fn claude_permission_dialog_denied_by_meaning_at_80x24() {
    permission_dialog("claude-gate-deny-80x24", (24, 80), "deny");
}

/// The folder trust dialog at `size`: no hook fires before it is accepted; the chrome
/// opens a question (`blocked / input_required`) with the dialog's options as choices,
/// and `attend answer allow` trusts the folder.
fn folder_trust(name: &'static str, size: (u16, u16)) {
    let Some(s) = start_sized(size, name, Cli::Claude, vec![text(DONE)], |home| {
        edit_json(&home.home.join(".claude.json"), |v| {
            v["projects"] = json!({});
        })
    }) else {
        return;
    };
    let v = s.wait("the trust question", |v| {
        v["pending_decision"]["kind"] == "question"
    });
    s.expect(&v, "blocked", "input_required", v["last_message"].as_str());
    let labels = v["pending_decision"]["options"].to_string();
    assert!(labels.contains("Yes, I trust this folder"), "{v}");
    let shown = s.wait_screen("the trust dialog", |t| t.contains("I trust this folder"));
    if size != (40, 120) {
        record(&s, size, "folder-trust", &shown);
    }
    s.answer_dialog("allow", "I trust this folder");
    s.wait("the session to start", |v| !v["session_id"].is_null());
}

#[test]
fn claude_folder_trust_is_a_question_at_80x24() {
    folder_trust("claude-trust-80x24", (24, 80));
}

#[test]
fn claude_folder_trust_is_a_question_at_200x50() {
    folder_trust("claude-trust-200x50", (50, 200));
}
