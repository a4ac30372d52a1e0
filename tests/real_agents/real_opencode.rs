//! Real-agent scenarios of OpenCode: the pinned real CLI runs INSIDE an Attend pane
//! (`attend run`), reporting through the plugin `attend install-hooks opencode` writes into
//! the test's HOME, against the scripted model server's OpenAI Chat Completions API on
//! 127.0.0.1. Every step is asserted through `attend show --json`
//! (`tests/support/scenario.rs`; docs/real-agents.md, docs/adapters.md "OpenCode").
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1`. Each test has its own daemon, bus, model server port and
//! HOME, so they run in parallel.

use crate::support;

use support::agents::{AgentHome, Cli};
use support::model_server::Reply;
use support::notes::notification_server;
use support::scenario::{resolutions, text, Options, Scenario, COMMAND, DONE, FIRST};

/// The most hook processes one turn may start: the plugin forwards lifecycle events only.
/// A one-tool turn whose gate is answered makes seven events: `session.created` (the
/// session's first turn only), `chat.message`, `tool.execute.before`, `permission.asked`,
/// `permission.replied`, `tool.execute.after`, `session.idle`; one `session.status` more
/// at most (a busy status that no prompt started, or a retry). OpenCode publishes about a
/// hundred events in such a turn (`plugin.added` ×45 on the first prompt, a
/// `message.part.delta` per streamed chunk, `message.updated`, `session.updated`, …).
const MAX_HOOKS_PER_TURN: usize = 8;

/// Scenario 1: a prompt, the model answers text, the turn ends → done/unread with the
/// model's text as last message (the plugin sends the turn's last assistant text with
/// `session.idle`); the session can be resumed by its id.
///
/// The same run counts the plugin's hook processes (a wrapper around the installed
/// `attend-hook` notes each, then execs it; one OpenCode start less for the stage's
/// budget): the text turn, then a one-tool turn whose gate is answered at the terminal
/// (Enter in the pane: `permission.replied` approves the gate). Each turn stays within
/// [`MAX_HOOKS_PER_TURN`], and the events are exactly the lifecycle ones, in order.
#[test]
fn opencode_1_prompt_ends_done_unread_with_the_models_text_in_few_hook_processes() {
    let options = Options {
        after_install: Some(count_hook_processes),
        ..Options::default()
    };
    let Some(s) = Scenario::start_opts(
        "opencode-1",
        Cli::OpenCode,
        vec![
            text(FIRST),
            Reply::opencode_bash(COMMAND, "Write a file"),
            text(DONE),
        ],
        options,
        |_| {},
    ) else {
        return;
    };
    s.wait_ready();
    s.prompt("say hello");
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(FIRST));
    assert!(v["pending_decision"].is_null());
    let session = v["session_id"].as_str().unwrap().to_string();
    assert!(session.starts_with("ses_"), "{v}");
    assert_eq!(
        v["resume_argv"],
        serde_json::json!(["opencode", "--session", session]),
        "{v}"
    );
    let first = hook_processes(&s.home);
    assert_eq!(
        first,
        ["session.created", "chat.message", "session.idle"],
        "the text turn"
    );

    let before = s.last_seq();
    s.prompt("write the file");
    s.expect_gate();
    s.attend(&["send", &s.pane, "", "--enter"]);
    s.expect_tool_ran("unread");
    let events = s.events_since(before);
    assert_eq!(resolutions(&events), ["approved"], "{events:#?}");
    let second = hook_processes(&s.home)[first.len()..].to_vec();
    assert_eq!(
        second,
        [
            "chat.message",
            "tool.execute.before",
            "permission.asked",
            "permission.replied",
            "tool.execute.after",
            "session.idle",
        ],
        "the tool turn"
    );
    for turn in [&first, &second] {
        assert!(turn.len() <= MAX_HOOKS_PER_TURN, "{turn:?}");
    }
    println!(
        "{}: hook processes per turn: text {}, one tool with its gate {}",
        s.name,
        first.len(),
        second.len()
    );
}

/// Scenario 2: a `bash` call under `"permission": {"bash": "ask"}` →
/// blocked/permission_required with the command in the decision, the screen manifest's
/// rule matched (`attend explain`) → `attend answer PANE allow` (Enter on "Allow once")
/// → the command runs → done, the decision resolved as answered.
#[test]
fn opencode_2_permission_answered_with_attend_answer() {
    let Some(s) = Scenario::start(
        "opencode-2",
        Cli::OpenCode,
        vec![Reply::opencode_bash(COMMAND, "Write a file"), text(DONE)],
    ) else {
        return;
    };
    s.wait_ready();
    let before = s.last_seq();
    s.prompt("write the file");
    let v = s.expect_gate();
    assert_eq!(
        v["pending_decision"]["prompt"],
        format!("bash: {COMMAND}"),
        "the decision names the command: {v}"
    );
    // The screen manifest's rule matches the dialog on screen (`attend explain`; the
    // chrome is read once the screen settles, a moment after the dialog is drawn).
    s.wait_explain("matched permission-required");
    s.allow_and_expect_the_tool_ran(before);
}

/// Scenario 3: a turn ends done/unread (one notification), the human reviews it
/// (`attend seen`: done/none), then quits OpenCode (`/exit`: no event at all, exit 0): the
/// pane stays done/none — no lifecycle event, no attention, no second notification.
#[test]
fn opencode_3_review_then_quit_stays_done_none_with_one_notification() {
    let options = Options {
        notifications: true,
        ..Options::default()
    };
    let Some(s) = Scenario::start_opts(
        "opencode-3",
        Cli::OpenCode,
        vec![text(FIRST)],
        options,
        |_| {},
    ) else {
        return;
    };
    let (_server, shown) = notification_server(&s.env.bus.address);
    s.hello_turn_done();
    // The marker: a completion of another session after the exit (OpenCode's `/exit`
    // sends no event at all, so there is no session end to record).
    let marker = serde_json::json!({
        "id": "evt_marker", "type": "session.idle", "cwd": "/tmp",
        "properties": {"sessionID": "ses_opencode3marker"},
        "last_assistant_message": "marker",
    });
    let end = s.review_then_quit(
        &shown,
        "/exit",
        &["hook", "opencode", "session.idle"],
        &marker,
    );
    assert!(end.is_null(), "{end}");
}

/// Scenario 4: OpenCode killed at its gate by another process (`kill -9 PID` of the pane's
/// program, not `attend kill`): the decision is dropped (abandoned), the pane shows the
/// crash (failed/error, killed by signal 9).
#[test]
fn opencode_4_kill_9_at_the_gate_drops_the_decision_and_shows_the_crash() {
    let Some(s) = Scenario::start(
        "opencode-4",
        Cli::OpenCode,
        vec![Reply::opencode_bash(COMMAND, "Write a file"), text(DONE)],
    ) else {
        return;
    };
    s.prompt_to_the_gate("write the file");
    s.kill_9_at_the_gate();
}

/// The file where [`count_hook_processes`]' wrapper notes each hook process's event.
fn hook_log(home: &AgentHome) -> std::path::PathBuf {
    home.dir.path().join("hook-processes")
}

/// The events of the hook processes so far, in the order they started.
fn hook_processes(home: &AgentHome) -> Vec<String> {
    std::fs::read_to_string(hook_log(home))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Makes the installed plugin run `sh -c 'note EVENT; exec <attend-hook> opencode EVENT'`
/// instead of `<attend-hook> opencode EVENT` (the same process: `exec`).
fn count_hook_processes(home: &AgentHome) {
    let path = home.config_dir().join("plugin/attend.js");
    let plugin = std::fs::read_to_string(&path).unwrap();
    let line = plugin
        .lines()
        .find(|l| l.starts_with("const HOOK = "))
        .expect("the plugin's hook line");
    let argv: Vec<String> = serde_json::from_str(
        line.trim_start_matches("const HOOK = ")
            .trim_end_matches(';'),
    )
    .unwrap();
    let script = format!(
        "printf '%s\\n' \"$1\" >> '{}'; exec '{}' opencode \"$1\"",
        hook_log(home).display(),
        argv[0]
    );
    let wrapped = serde_json::json!(["sh", "-c", script, "sh"]);
    std::fs::write(
        &path,
        plugin.replace(line, &format!("const HOOK = {wrapped};")),
    )
    .unwrap();
}
