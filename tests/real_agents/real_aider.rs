//! Real-agent scenarios of aider: the pinned real CLI (a virtual environment of PyPI
//! `aider-chat`, `build-aux/agents.sh`) runs INSIDE an Attend pane (`attend run`), with the
//! notification command `attend install-hooks aider` writes into the test's HOME
//! (`~/.aider.conf.yml`), against the scripted model server's OpenAI Chat Completions API
//! on 127.0.0.1. aider offers the model no tools, so its requests are routed to the
//! scenario's replies. Every step is asserted through `attend show --json`
//! (`tests/support/scenario.rs`; docs/real-agents.md, docs/adapters.md "aider").
//!
//! n/a here: aider has no question tool, and reports no interrupt (Ctrl+C at its prompt
//! fires nothing), so no Esc scenario (docs/adapters.md, "aider").

use crate::support;

use support::agents::aider::{at_prompt, is_request, shell};
use support::agents::Cli;
use support::model_server::Reply;
use support::notes::notification_server;
use support::scenario::{text, Options, Scenario, COMMAND, FIRST};

/// The prompt of the decision the screen opens for aider's "Run shell command?" row.
const RUN: &str = "Run shell command?";
/// The command the deny scenario refuses.
const REFUSED: &str = "echo refused > refused.txt";

/// Starts aider in a pane with `replies` for its requests.
fn start(name: &'static str, replies: Vec<Reply>, options: Options) -> Option<Scenario> {
    let s = Scenario::start_opts(name, Cli::Aider, Vec::new(), options, |_| {})?;
    s.server.route(is_request, replies);
    Some(s)
}

/// Scenario 1: a prompt, the model answers text, aider waits for input again (its
/// notification command) → done/unread with the model's text, read from aider's chat
/// history by the hook client.
#[test]
fn aider_1_prompt_ends_done_unread_with_the_models_text() {
    let Some(s) = start("aider-1", vec![text(FIRST)], Options::default()) else {
        return;
    };
    let v = s.hello_turn_done();
    assert!(v["pending_decision"].is_null(), "{v}");
    assert!(v["session_id"].is_null(), "aider has no session id: {v}");
}

/// Scenario 2: the model's reply offers a command (a fenced `bash` block) → aider asks
/// "Run shell command?" on its prompt row, which no hook reports →
/// blocked/permission_required from the screen → `attend answer PANE allow` types `y` and
/// Enter → the command runs. Then `deny` at the next offer types `n`: it does not run.
#[test]
fn aider_2_permission_allow_runs_the_command_and_deny_does_not() {
    let replies = vec![shell("Run this:", COMMAND), shell("Run this one:", REFUSED)];
    let Some(s) = start("aider-2", replies, Options::default()) else {
        return;
    };
    s.wait_ready();
    for (prompt, command, choice) in [
        ("write the file", COMMAND, "allow"),
        ("write another file", REFUSED, "deny"),
    ] {
        s.prompt(prompt);
        s.wait_screen("the confirmation", |t| {
            t.contains(command) && t.contains(RUN)
        });
        let v = s.wait("the gate", |v| v["attention"] == "permission_required");
        s.expect(&v, "blocked", "permission_required", Some(RUN));
        assert_eq!(v["pending_decision"]["kind"], "permission", "{v}");
        s.wait_explain("shell-command");
        s.attend(&["answer", &s.pane, choice]);
        let v = s.show();
        assert!(v["pending_decision"].is_null(), "answered at once: {v}");
        s.wait_screen("aider's prompt again", at_prompt);
        s.attend(&["seen", &s.pane]);
    }
    let out = std::fs::read_to_string(s.home.project.join("out.txt")).unwrap_or_default();
    assert_eq!(out, "attend-e2e\n", "the allowed command ran");
    assert!(
        !s.home.project.join("refused.txt").exists(),
        "the refused command never ran"
    );
}

/// Scenario 3: a turn ends done/unread (one notification), the human reviews it
/// (`attend seen`: done/none), then quits aider (`/exit`: exit 0, nothing reported): the
/// pane stays done/none — no lifecycle event, no attention, no second notification.
#[test]
fn aider_3_review_then_quit_stays_done_none_with_one_notification() {
    let options = Options {
        notifications: true,
        ..Options::default()
    };
    let Some(s) = start("aider-3", vec![text(FIRST)], options) else {
        return;
    };
    let (_server, shown) = notification_server(&s.env.bus.address);
    s.hello_turn_done();
    // aider's own notification names no session: another pane's completion is a Cline
    // turn's end (a session of its own).
    let marker = serde_json::json!({
        "hookName": "agent_end", "sessionContext": {"rootSessionId": "aider-3-marker"},
        "workspaceRoots": ["/tmp"], "turn": {"outputText": "marker", "status": "completed"},
    });
    let end = s.review_then_quit(&shown, "/exit", &["hook", "cline", "TaskComplete"], &marker);
    assert!(end.is_null(), "aider has no session end: {end}");
}
