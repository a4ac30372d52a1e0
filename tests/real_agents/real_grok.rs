//! Real-agent scenarios of Grok CLI: the pinned real CLI runs INSIDE an Attend pane
//! (`attend run`) against the scripted model server's OpenAI Chat Completions API on
//! 127.0.0.1 (`GROK_BASE_URL`). Grok has no hooks and sets no window title: what Attend
//! sees is its screen (docs/adapters.md "Grok CLI").
//!
//! So only its confirmation dialog is proven here, from the screen manifest: a turn's end
//! (scenario 1), Esc and review-then-quit (scenario 3) are n/a (nothing reports them), and
//! it has no question tool (docs/real-agents.md).
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1`. Each test has its own daemon, bus, model server port and
//! HOME, so they run in parallel.

use crate::support;

use serde_json::json;
use support::agents::Cli;
use support::model_server::Reply;
use support::scenario::{resolutions, text, Scenario, COMMAND, DONE};

/// Grok's shell tool: `bash` with `{command}`.
fn bash(command: &str) -> Reply {
    Reply::Tool {
        name: "bash".into(),
        input_json: json!({ "command": command }).to_string(),
    }
}

/// Prompts, waits for the confirmation on screen, and for the gate the screen manifest's
/// rule opens: blocked/permission_required, a permission decision.
fn prompt_to_the_gate(s: &Scenario) {
    s.wait_ready();
    s.prompt("write the file");
    s.wait_screen("the confirmation", |t| {
        t.contains("Do you want to proceed with this operation?") && t.contains(COMMAND)
    });
    let v = s.wait("the gate", |v| v["attention"] == "permission_required");
    assert_eq!(v["lifecycle"], "blocked", "{v}");
    assert_eq!(v["pending_decision"]["kind"], "permission", "{v}");
    s.wait_explain("matched confirmation");
}

/// Scenario 2: a `bash` call → its confirmation, which nothing but the screen shows →
/// blocked/permission_required → `attend answer PANE allow` (Enter on "Yes") → the command
/// runs and the model's next text is drawn; the decision resolved as answered.
#[test]
fn grok_2_permission_answered_allow_runs_the_command() {
    let Some(s) = Scenario::start("grok-2-allow", Cli::Grok, vec![bash(COMMAND), text(DONE)])
    else {
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
    assert_eq!(resolutions(&s.events_since(before)), ["answered"]);
    println!("grok-2-allow: {:.1} s", s.started.elapsed().as_secs_f64());
}

/// Scenario 2, deny: `attend answer PANE deny` (Esc) → the command never runs
/// ("Operation cancelled by user"); the decision resolved as answered.
#[test]
fn grok_2_permission_answered_deny_does_not_run_the_command() {
    let Some(s) = Scenario::start("grok-2-deny", Cli::Grok, vec![bash(COMMAND), text(DONE)]) else {
        return;
    };
    let before = s.last_seq();
    prompt_to_the_gate(&s);
    s.attend(&["answer", &s.pane, "deny"]);
    s.wait("the gate closed", |v| v["pending_decision"].is_null());
    s.wait_screen("the cancellation", |t| {
        t.contains("Operation cancelled by user")
    });
    assert!(
        !s.home.project.join("out.txt").exists(),
        "the denied command never ran"
    );
    assert_eq!(resolutions(&s.events_since(before)), ["answered"]);
    println!("grok-2-deny: {:.1} s", s.started.elapsed().as_secs_f64());
}
