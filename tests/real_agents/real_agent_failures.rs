//! Real-agent scenarios of API failures and of tools the agent's own settings decide: the
//! pinned real CLIs inside Attend panes (`tests/support/scenario.rs`) against the scripted
//! model, which answers a step with an HTTP error ([`Reply::Error`]) where the scenario
//! needs one. Every step is asserted through `attend show --json` and the event log
//! (`docs/real-agents.md#scenario-matrix`).
//!
//! - An API error the agent retries (529 once): its retry line on screen raises `warning`
//!   while the pane stays `working`; the turn then ends `done`, and the warning stays until
//!   seen.
//! - A rejected key and a usage limit (no retry): Claude's `StopFailure` → `failed`/`error`
//!   with the reason in the message; the usage limit also sets the needs-input reason.
//! - A tool the settings allow (Claude 2.1.332's auto mode, a `permissions.allow` rule)
//!   opens no gate; one a `permissions.deny` rule denies is a `warning` naming the command.
//! - (Claude Code 2.1.332's auto mode behind a gateway, its notice and the approval after
//!   it, are in `tests/real_agents/real_claude_dialogs.rs`, at every pane size.)
//! - Codex's auto-review: the reviewer's approval closes the gate at once, and so does its
//!   denial (from the screen), withdrawing the gate's notification.
//! - An API error that ends a Codex or Gemini turn, which no hook reports: the error the
//!   agent draws fails the turn (`failed`/`error` with the reason in words).
//!
//! With `ATTEND_RECORD_FIXTURES=1` the payloads and screens the adapters rely on are written
//! under `tests/fixtures/` (scrubbed). A CLI that cannot be installed prints `SKIPPED: …`
//! and the test passes, unless `ATTEND_REQUIRE_REAL_AGENTS=1`.

use crate::support;

use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};
use support::agents::{AgentHome, Cli, HookRecorder};
use support::attend_bin;
use support::model_server::Reply;
use support::notes::{notification_server_with_closes, wait_notes};
use support::scenario::{
    edit_json, text, Options, Scenario, COMMAND, DONE, FIRST, HOOKS_LOGGED, STEP,
};

/// Whether this run records fixtures (`ATTEND_RECORD_FIXTURES=1`).
fn recording() -> bool {
    std::env::var("ATTEND_RECORD_FIXTURES").as_deref() == Ok("1")
}

/// Writes `payload`, scrubbed, as `tests/fixtures/<agent>/<version>/observed/<name>.json`
/// when recording.
fn record_payload(s: &Scenario, name: &str, payload: &Value) {
    if !recording() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(s.cli.name())
        .join(s.cli.version())
        .join("observed");
    std::fs::create_dir_all(&dir).unwrap();
    let text = s
        .home
        .scrub(&serde_json::to_string_pretty(payload).unwrap());
    std::fs::write(dir.join(format!("{name}.json")), text + "\n").unwrap();
}

/// Writes the pane's screen, scrubbed, as `tests/fixtures/notices/<agent>/<version>/<name>.txt`
/// when recording (the screens of `src/adapters/notices.rs`'s tests).
fn record_screen(s: &Scenario, name: &str, screen: &str) {
    if !recording() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/notices")
        .join(s.cli.name())
        .join(s.cli.version());
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.txt")), s.home.scrub_screen(screen)).unwrap();
}

/// The pane's live screen.
fn screen(s: &Scenario) -> String {
    s.env.attend1().get_screen(&s.pane).unwrap_or_default()
}

/// Claude: one more hook group for `event` in `settings.json` (written before
/// `attend install-hooks`, which keeps it): a recorder of its payloads, and when `deliver`
/// Attend's own hook client too — for events `install-hooks` does not register. The
/// client runs as `exec …` so that install-hooks does not take the entry for a stale one
/// of its own.
fn claude_hook(home: &AgentHome, event: &str, deliver: bool) -> HookRecorder {
    let recorder = HookRecorder::new(home.dir.path().join(format!("recorded-{event}")));
    let mut hooks = vec![json!({"type": "command", "command": recorder.command(), "timeout": 10})];
    if deliver {
        hooks.push(json!({"type": "command", "command": format!("exec {} hook claude", attend_bin()), "timeout": 10}));
    }
    edit_json(&home.config_dir().join("settings.json"), |v| {
        let list = v["hooks"][event].as_array().cloned().unwrap_or_default();
        let mut list = list;
        list.push(json!({"hooks": hooks}));
        v["hooks"][event] = Value::Array(list);
    });
    recorder
}

/// The first payload `recorder` got, within [`STEP`].
fn first_payload(s: &Scenario, recorder: &HookRecorder, event: &str) -> Value {
    recorder
        .wait_for(event, 0, STEP)
        .unwrap_or_else(|e| s.fail(&e))
}

/// The `kind` events of this pane after `after`, as (kind, level, source).
fn kinds(s: &Scenario, after: u64) -> Vec<(String, String, String)> {
    s.events_since(after)
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap_or("").to_string(),
                e["level"].as_str().unwrap_or("").to_string(),
                e["source"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// Asserts that since `after` no gate opened (no decision, never blocked) and the only
/// attention raised is the turn's final unread.
fn expect_no_gate(s: &Scenario, after: u64) {
    let events = kinds(s, after);
    let gates: Vec<_> = events
        .iter()
        .filter(|(k, _, _)| k == "decision.opened" || k == "agent.blocked")
        .collect();
    let attention: Vec<&str> = events
        .iter()
        .filter(|(k, _, _)| k == "attention.created")
        .map(|(_, level, _)| level.as_str())
        .collect();
    if !gates.is_empty() || attention != ["unread"] {
        s.fail(&format!(
            "expected no gate and only the final unread; gates {gates:?}, attention {attention:?}"
        ));
    }
}

// ---------------------------------------------------------------- API failures

/// An overloaded API (529, `retry-after: 2`) answered once, then the reply: Claude shows
/// "API error · Retrying in 2s · attempt 1/10" (no hook fires), which raises `warning` while
/// the pane stays `working`; the retried request succeeds, `Stop` makes it `done` and the
/// warning stays (shown above the unread) until the pane is seen.
#[test]
fn claude_api_overloaded_once_warns_while_it_retries_and_the_turn_recovers() {
    let Some(s) = Scenario::start(
        "claude-529",
        Cli::Claude,
        vec![
            Reply::anthropic_error(529, "overloaded_error", "Overloaded")
                .with_header("retry-after", "2"),
            text(FIRST),
        ],
    ) else {
        return;
    };
    s.wait_ready();
    let before = s.last_seq();
    s.prompt("say hello");
    let v = s.wait("the retry's warning", |v| v["attention"] == "warning");
    if v["lifecycle"] != "working"
        || !v["last_message"]
            .as_str()
            .is_some_and(|m| m.to_lowercase().contains("retrying in"))
    {
        s.fail("expected working/warning with the retry line as the message");
    }
    let shown = screen(&s);
    if shown.to_lowercase().contains("retrying in") {
        record_screen(&s, "api-retry", &shown);
    }
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "warning", Some(FIRST));
    record_screen(&s, "done", &screen(&s));
    retried_turn_kept_one_warning(&s, before, "needs-input-chrome:screen.notice");
}

/// After a turn whose first model request failed and whose retry answered: two requests
/// reached the model, the lifecycle went working → done once, exactly one `warning`
/// (from `source`) was raised, and it clears when the pane is seen.
fn retried_turn_kept_one_warning(s: &Scenario, before: u64, source: &str) {
    assert_eq!(
        s.server.turns().len(),
        2,
        "one failed request, one retried:\n{}",
        s.server.summary()
    );
    let events = kinds(s, before);
    // The turn starts at its first `agent.working`: on a loaded machine the CLI's
    // SessionStart hook (its `agent.idle`) can come after the pane looked ready.
    let lifecycle: Vec<&str> = events
        .iter()
        .filter(|(k, _, _)| k.starts_with("agent."))
        .map(|(k, _, _)| k.as_str())
        .skip_while(|k| *k != "agent.working")
        .collect();
    assert_eq!(lifecycle, ["agent.working", "agent.done"], "{events:?}");
    let warnings: Vec<&str> = events
        .iter()
        .filter(|(k, level, _)| k == "attention.created" && level == "warning")
        .map(|(_, _, source)| source.as_str())
        .collect();
    assert_eq!(warnings, [source], "one warning: {events:?}");
    s.attend(&["seen", &s.pane]);
    s.expect(&s.show(), "done", "none", Some(FIRST));
}

/// A rejected key (401 `authentication_error`, `x-should-retry: false` as the API sends
/// for it): Claude fires `StopFailure` with `error: authentication_failed` and the reason
/// as `last_assistant_message` ("Invalid API key · Fix external API key") → `failed`/
/// `error`, message "authentication failed: Invalid API key …", no usage limit.
#[test]
fn claude_api_key_rejected_fails_the_turn_with_authentication_failed() {
    let mut recorder = None;
    let Some(s) = Scenario::start_with(
        "claude-401",
        Cli::Claude,
        vec![
            Reply::anthropic_error(401, "authentication_error", "invalid x-api-key")
                .with_header("x-should-retry", "false"),
        ],
        |home| recorder = Some(claude_hook(home, "StopFailure", false)),
    ) else {
        return;
    };
    s.wait_ready();
    s.prompt("say hello");
    let v = s.wait("the failed turn", |v| v["lifecycle"] == "failed");
    let message = v["last_message"].as_str().unwrap_or("");
    s.expect(&v, "failed", "error", Some(message));
    if !message.starts_with("authentication failed: Invalid API key") {
        s.fail("expected the reason in the message");
    }
    assert_eq!(v["taxonomy"]["needs_input"]["count"], 0, "{v}");
    let payload = first_payload(&s, recorder.as_ref().unwrap(), "StopFailure");
    assert_eq!(payload["error"], "authentication_failed", "{payload}");
    record_payload(&s, "StopFailure-authentication_failed", &payload);
    assert_eq!(
        s.server.turns().len(),
        1,
        "no retry:\n{}",
        s.server.summary()
    );
}

/// A usage limit (429 `rate_limit_error` naming when it resets, not retried): `StopFailure`
/// `error: rate_limit` → `failed`/`error` with "usage limit: … resets at 18:00 UTC" and
/// the needs-input reason "usage limit"; the next prompt clears the reason.
#[test]
fn claude_usage_limit_fails_the_turn_with_the_usage_limit_reason() {
    let mut recorder = None;
    let Some(s) = Scenario::start_with(
        "claude-429",
        Cli::Claude,
        vec![
            Reply::anthropic_error(
                429,
                "rate_limit_error",
                "Usage limit reached for your plan; resets at 18:00 UTC",
            )
            .with_header("x-should-retry", "false"),
            text(FIRST),
        ],
        |home| recorder = Some(claude_hook(home, "StopFailure", false)),
    ) else {
        return;
    };
    s.wait_ready();
    s.prompt("say hello");
    let v = s.wait("the failed turn", |v| v["lifecycle"] == "failed");
    let message = v["last_message"].as_str().unwrap_or("");
    s.expect(&v, "failed", "error", Some(message));
    if !message.starts_with("usage limit: ") || !message.contains("resets at 18:00 UTC") {
        s.fail("expected the usage limit and its reset time in the message");
    }
    assert_eq!(
        v["taxonomy"]["needs_input"],
        json!({"count": 1, "reason": "usage limit"}),
        "{v}"
    );
    let payload = first_payload(&s, recorder.as_ref().unwrap(), "StopFailure");
    assert_eq!(payload["error"], "rate_limit", "{payload}");
    record_payload(&s, "StopFailure-rate_limit", &payload);

    s.prompt("try again");
    let v = s.wait("the next turn's end", |v| v["lifecycle"] == "done");
    assert_eq!(v["last_message"], FIRST, "{v}");
    assert_eq!(v["taxonomy"]["needs_input"]["count"], 0, "{v}");
}

// ---------------------------------------------------------------- auto-allow and deny

/// Claude Code 2.1.332 defaults to auto mode: with the harness's `defaultMode: "default"`
/// removed, a tool the mode allows runs (`PreToolUse`, `PostToolUse`, no
/// `PermissionRequest`): no gate opens and the only attention is the turn's unread (so no
/// notification either). Not in 2.1.197, whose default mode asks.
#[test]
fn claude_auto_mode_runs_an_allowed_tool_without_a_gate() {
    if Cli::Claude.version() == "2.1.197" {
        println!("claude 2.1.197 has no auto mode by default");
        return;
    }
    let Some(s) = Scenario::start_with(
        "claude-auto",
        Cli::Claude,
        vec![Reply::claude_bash(COMMAND, "Write a file"), text(DONE)],
        |home| {
            edit_json(&home.config_dir().join("settings.json"), |v| {
                v.as_object_mut().unwrap().remove("permissions");
            })
        },
    ) else {
        return;
    };
    s.wait_ready();
    let before = s.last_seq();
    s.prompt("write the file");
    s.expect_tool_ran("unread");
    expect_no_gate(&s, before);
    assert!(screen(&s).contains("auto mode on"), "{}", screen(&s));
}

/// A `permissions.allow` rule (`Bash(mkdir:*)`) lets the tool run without the dialog it
/// otherwise opens (both versions): no gate, only the turn's unread.
#[test]
fn claude_allow_rule_runs_the_tool_without_a_gate() {
    let Some(s) = Scenario::start_with(
        "claude-allow",
        Cli::Claude,
        vec![
            Reply::claude_bash("mkdir attend-allowed", "Make a directory"),
            text(DONE),
        ],
        |home| {
            edit_json(&home.config_dir().join("settings.json"), |v| {
                v["permissions"]["allow"] = json!(["Bash(mkdir:*)"])
            })
        },
    ) else {
        return;
    };
    s.wait_ready();
    let before = s.last_seq();
    s.prompt("make the directory");
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(DONE));
    assert!(
        s.home.project.join("attend-allowed").is_dir(),
        "the allowed tool ran"
    );
    expect_no_gate(&s, before);
}

/// A `permissions.deny` rule (`Bash(rm:*)`): Claude refuses the call without a dialog and
/// fires no `PermissionDenied` (that hook is for auto mode's classifier); the refusal is
/// the tool result in `PostToolBatch` ("Permission to use Bash with command rm -rf build
/// has been denied."). The pane shows `warning` with the denied command while the turn
/// goes on (the model is slow to answer the refusal here), and after `Stop` the warning
/// stays. No gate opens.
#[test]
fn claude_deny_rule_shows_a_warning_with_the_denied_command() {
    let mut recorder = None;
    let Some(s) = Scenario::start_with(
        "claude-deny",
        Cli::Claude,
        vec![
            Reply::claude_bash("rm -rf build", "Clean up"),
            text("Understood, nothing removed."),
        ],
        |home| {
            edit_json(&home.config_dir().join("settings.json"), |v| {
                v["permissions"]["deny"] = json!(["Bash(rm:*)"])
            });
            recorder = Some(claude_hook(home, "PostToolBatch", true));
        },
    ) else {
        return;
    };
    // The model answers the refusal only after 3 s: time to see the turn go on.
    s.server.slow_turn(2, Duration::from_secs(3));
    s.wait_ready();
    let before = s.last_seq();
    s.prompt("clean up");
    let v = s.wait("the denial's warning", |v| v["attention"] == "warning");
    s.expect(&v, "working", "warning", Some("denied: Bash: rm -rf build"));
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "warning", Some("Understood, nothing removed."));
    let events = kinds(&s, before);
    assert!(
        !events.iter().any(|(k, _, _)| k == "decision.opened"),
        "no gate: {events:?}"
    );
    let payload = first_payload(&s, recorder.as_ref().unwrap(), "PostToolBatch");
    record_payload(&s, "PostToolBatch-denied", &payload);
}

// ---------------------------------------------------------------- Codex

/// Codex 0.171.0's auto-review (`approvals_reviewer = "auto_review"`): an escalated command
/// fires `PermissionRequest` (the gate opens: nothing in the payload says a reviewer will
/// decide), then a reviewer model request (three tools and a JSON schema `{outcome,
/// risk_level, user_authorization, rationale}`) decides. Its `allow` runs the command, and
/// `PostToolUse` closes the gate as approved at once — before the model's next turn.
#[test]
fn codex_auto_review_approval_closes_the_gate_when_the_reviewer_decides() {
    let verdict = json!({"outcome": "allow", "risk_level": "low", "user_authorization": "high", "rationale": "the user asked for it"});
    let Some(s) = Scenario::start_with(
        "codex-review",
        Cli::Codex,
        vec![
            Reply::codex_escalated(COMMAND, "Write a file"),
            text(&verdict.to_string()),
            text(DONE),
        ],
        codex_auto_review,
    ) else {
        return;
    };
    // The reviewer takes 2 s to decide, the model 3 s to answer after the command ran.
    s.server.slow_turn(2, Duration::from_secs(2));
    s.server.slow_turn(3, Duration::from_secs(3));
    s.wait_ready();
    let before = s.last_seq();
    s.prompt("write the file");
    let v = s.wait("the gate", |v| v["lifecycle"] == "blocked");
    if v["attention"] != "permission_required" {
        s.fail("expected the gate open while the reviewer decides");
    }
    s.server
        .wait_until("the reviewer's request", STEP, |log| {
            log.iter().any(|r| {
                r.body
                    .contains("You are judging one planned coding-agent action")
            })
        })
        .unwrap_or_else(|e| s.fail(&e));
    let v = s.wait("the gate closed", |v| v["pending_decision"].is_null());
    // Closed by the approval while the turn goes on: the model answers only 3 s after the
    // command ran, so a gate closed by the turn's Stop would find the pane done.
    if v["lifecycle"] != "working" || v["attention"] != "none" {
        s.fail("expected working/none once the reviewer approved");
    }
    let how: Vec<(String, String)> = s
        .events_since(before)
        .iter()
        .filter(|e| e["kind"] == "decision.resolved")
        .map(|e| {
            (
                e["how"].as_str().unwrap_or("").to_string(),
                e["source"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        how,
        [(
            "approved".to_string(),
            "lifecycle-hooks:codex.PostToolUse".to_string()
        )]
    );
    s.expect_tool_ran("unread");
}

/// Codex with auto-review on (`approvals_reviewer = "auto_review"` in its `config.toml`).
fn codex_auto_review(home: &AgentHome) {
    let path = home.config_dir().join("config.toml");
    let config = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        format!("approvals_reviewer = \"auto_review\"\n{config}"),
    )
    .unwrap();
}

/// The reviewer's denial fires no hook and the turn goes on (Codex sends the refusal to
/// the model): the screen's "✗ Request denied for codex to run …", where the reviewing
/// row was, closes the gate at once (the approval dialog's `closed` screen, `by =
/// "reviewer"`): resolved `dismissed` by the chrome, the pane back to `working` while the
/// model (5 s slow) answers, and the permission notification sent for the gate is
/// withdrawn — long before the turn's `Stop`.
#[test]
fn codex_auto_review_denial_closes_the_gate_and_withdraws_its_notification() {
    let verdict = json!({"outcome": "deny", "risk_level": "high", "user_authorization": "low", "rationale": "the user did not ask for it"});
    let options = Options {
        notifications: true,
        ..Options::default()
    };
    let Some(s) = Scenario::start_opts(
        "codex-review-deny",
        Cli::Codex,
        vec![
            Reply::codex_escalated(COMMAND, "Write a file"),
            text(&verdict.to_string()),
            text("Understood, nothing written."),
        ],
        options,
        codex_auto_review,
    ) else {
        return;
    };
    let (_notes, shown, closed) = notification_server_with_closes(&s.env.bus.address);
    // The reviewer takes 2 s to decide (the gate's notification goes out meanwhile), the
    // model 5 s to answer the refusal.
    s.server.slow_turn(2, Duration::from_secs(2));
    s.server.slow_turn(3, Duration::from_secs(5));
    s.wait_ready();
    let before = s.last_seq();
    s.prompt("write the file");
    let v = s.wait("the gate", |v| v["lifecycle"] == "blocked");
    if v["attention"] != "permission_required" {
        s.fail("expected the gate open while the reviewer decides");
    }
    wait_notes(&s, &shown, 1);
    let denied = s.wait_screen("the reviewer's denial", |t| {
        t.contains("✗ Request denied for codex to run")
    });
    let denied_at = Instant::now();
    let v = s.wait("the gate closed", |v| v["pending_decision"].is_null());
    println!(
        "gate closed {:?} after the denial was seen",
        denied_at.elapsed()
    );
    // The model answers the refusal only 5 s after it: a gate closed by the turn's Stop
    // would find the pane done.
    if v["lifecycle"] != "working" || v["attention"] != "none" {
        s.fail("expected working/none once the reviewer denied");
    }
    let explain = s.attend(&["explain", &s.pane]);
    assert!(
        explain.contains("closed approval-dialog"),
        "explain names the rule whose closed screen shows: {explain}"
    );
    let deadline = Instant::now() + STEP;
    while closed.lock().unwrap().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    println!(
        "notification closed {:?} after the denial was seen",
        denied_at.elapsed()
    );
    let still_working = s.show();
    assert_eq!(
        *closed.lock().unwrap(),
        [1],
        "the gate's notification is withdrawn: {:?}",
        shown.lock().unwrap()
    );
    assert_eq!(still_working["lifecycle"], "working", "before the Stop");
    let resolved: Vec<(String, String)> = s
        .events_since(before)
        .iter()
        .filter(|e| e["kind"] == "decision.resolved")
        .map(|e| {
            (
                e["how"].as_str().unwrap_or("").to_string(),
                e["source"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        resolved,
        [(
            "dismissed".to_string(),
            "needs-input-chrome:screen.chrome".to_string()
        )]
    );
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some("Understood, nothing written."));
    assert!(
        !s.home.project.join("out.txt").exists(),
        "the denied command never ran"
    );
    if recording() {
        let dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/screens/negative/codex");
        std::fs::write(
            dir.join("0.171.0-review-denied.txt"),
            s.home.scrub_screen(&denied),
        )
        .unwrap();
    }
}

/// A rejected key with Codex's default retries: Codex fires no hook while it reconnects,
/// but draws "• Reconnecting... 1/5 (0s • esc to interrupt)" with the reason below it; that
/// row raises `warning` with the reason while the pane stays `working`. (When the retries
/// are spent Codex draws the error and fires no hook either: that error fails the turn,
/// `codex_api_error_that_ends_the_turn_fails_it_with_the_reason_on_screen`.)
#[test]
fn codex_api_key_rejected_warns_while_it_reconnects() {
    let Some(s) = Scenario::start(
        "codex-401",
        Cli::Codex,
        vec![
            Reply::openai_error(
                401,
                "invalid_request_error",
                "invalid_api_key",
                "Incorrect API key provided"
            );
            6
        ],
    ) else {
        return;
    };
    s.wait_ready();
    s.prompt("say hello");
    let v = s.wait("the reconnect's warning", |v| v["attention"] == "warning");
    let expected =
        "Reconnecting 1/5: Unexpected status 401 Unauthorized: Incorrect API key provided";
    let message = v["last_message"].as_str().unwrap_or("");
    if v["lifecycle"] != "working"
        || !message.starts_with("Reconnecting ")
        || !message.contains("401 Unauthorized")
    {
        s.fail(&format!("expected working/warning like {expected:?}"));
    }
    if recording() {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            let shown = screen(&s);
            if shown.contains("Reconnecting... ") && shown.contains("└ Unexpected status 401") {
                record_screen(&s, "reconnecting", &shown);
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Codex with no retries (`request_max_retries = 0`, `stream_max_retries = 0` on its
/// provider), so that an API error ends the turn at once.
fn codex_without_retries(home: &AgentHome) {
    let path = home.config_dir().join("config.toml");
    let mut doc: toml_edit::DocumentMut = std::fs::read_to_string(&path).unwrap().parse().unwrap();
    doc["model_providers"]["fake"]["request_max_retries"] = toml_edit::value(0);
    doc["model_providers"]["fake"]["stream_max_retries"] = toml_edit::value(0);
    std::fs::write(&path, doc.to_string()).unwrap();
}

/// The lifecycle events of this pane after `after` with their sources.
fn lifecycle_events(s: &Scenario, after: u64) -> Vec<(String, String)> {
    kinds(s, after)
        .into_iter()
        .filter(|(k, _, _)| k.starts_with("agent."))
        .map(|(k, _, source)| (k, source))
        .collect()
}

/// An API error that ends Codex's turn (its retries spent; none configured here) fires no
/// hook and no `notify`: Codex draws `■ <error>` as the last history cell and takes the
/// next prompt. That cell ends the turn `failed`/`error` with the error in words, from the
/// screen (`needs-input-chrome:screen.error`): a rejected key (401) "authentication
/// failed: …", a spent quota (429 `insufficient_quota`) "usage limit: …" with the
/// needs-input reason, a server error (500) "API error: …". Each failure is one turn; the
/// next prompt runs and ends `done`.
#[test]
fn codex_api_error_that_ends_the_turn_fails_it_with_the_reason_on_screen() {
    let Some(s) = Scenario::start_with(
        "codex-api-errors",
        Cli::Codex,
        vec![
            Reply::openai_error(
                401,
                "invalid_request_error",
                "invalid_api_key",
                "Incorrect API key provided",
            ),
            Reply::openai_error(
                429,
                "insufficient_quota",
                "insufficient_quota",
                "You exceeded your current quota",
            ),
            Reply::openai_error(
                500,
                "server_error",
                "server_error",
                "The server had an error",
            ),
            text(FIRST),
        ],
        codex_without_retries,
    ) else {
        return;
    };
    s.wait_ready();
    let steps = [
        (
            "say hello",
            "authentication failed: unexpected status 401 Unauthorized: Incorrect API key provided",
            false,
            "turn-error-401",
        ),
        (
            "try again",
            "usage limit: Quota exceeded. Check your plan and billing details.",
            true,
            "turn-error-quota",
        ),
        (
            "once more",
            "API error: We’re currently experiencing high demand, which may cause temporary errors.",
            false,
            "turn-error-500",
        ),
    ];
    for (prompt, message, limit, fixture) in steps {
        let before = s.last_seq();
        s.prompt(prompt);
        let v = s.wait("the failed turn", |v| {
            v["lifecycle"] == "failed" && v["last_message"] == message
        });
        s.expect(&v, "failed", "error", Some(message));
        let needs = &v["taxonomy"]["needs_input"];
        let reason = needs["reason"].as_str().filter(|_| needs["count"] == 1);
        if reason != limit.then_some("usage limit") {
            s.fail("expected the needs-input reason only for the usage limit");
        }
        // Codex starts its session with the first prompt.
        let mut events = lifecycle_events(&s, before);
        events.retain(|(_, src)| src != "lifecycle-hooks:codex.SessionStart");
        let expected = [
            ("agent.working", "lifecycle-hooks:codex.UserPromptSubmit"),
            ("agent.failed", "needs-input-chrome:screen.error"),
        ]
        .map(|(k, src)| (k.to_string(), src.to_string()));
        if events != expected {
            s.fail(&format!(
                "expected working then failed by the screen: {events:?}"
            ));
        }
        record_screen(&s, fixture, &screen(&s));
        s.attend(&["seen", &s.pane]);
    }
    s.prompt("and now?");
    let v = s.wait("the next turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(FIRST));
    assert_eq!(v["taxonomy"]["needs_input"]["count"], 0, "{v}");
    assert_eq!(
        s.server.turns().len(),
        4,
        "no retries:\n{}",
        s.server.summary()
    );
}

/// Gemini CLI answers a rejected key (401 `UNAUTHENTICATED`, not retried) with
/// `✕ [API Error: {…}]` and ends the turn with `AfterAgent` whose `prompt_response` is only
/// `[no response text]`. The screen's error fails the turn: `failed`/`error` "authentication
/// failed: API key not valid. …" — in either order with the stop hook, which then changes
/// nothing (the failed turn's end).
#[test]
fn gemini_api_key_rejected_fails_the_turn_with_authentication_failed() {
    let Some(s) = Scenario::start_opts(
        "gemini-401",
        Cli::Gemini,
        vec![Reply::gemini_error(
            401,
            "UNAUTHENTICATED",
            "API key not valid. Please pass a valid API key.",
        )],
        Options {
            daemon_vars: HOOKS_LOGGED,
            ..Options::default()
        },
        |_| {},
    ) else {
        return;
    };
    s.wait_ready();
    let stops = s.applied("AfterAgent");
    s.prompt("say hello");
    let message = "authentication failed: API key not valid. Please pass a valid API key.";
    let v = s.wait("the failed turn", |v| v["lifecycle"] == "failed");
    s.expect(&v, "failed", "error", Some(message));
    s.wait_applied("AfterAgent", stops);
    let v = s.show();
    s.expect(&v, "failed", "error", Some(message));
    assert_eq!(v["taxonomy"]["needs_input"]["count"], 0, "{v}");
    record_screen(&s, "turn-error-401", &screen(&s));
    assert_eq!(
        s.server.turns().len(),
        1,
        "no retry:\n{}",
        s.server.summary()
    );
}

/// Gemini CLI retries a 429 (`RESOURCE_EXHAUSTED`) after about 5 s under "Thinking…",
/// without a word on its screen, but fires `BeforeModel` again with the same request (the
/// hook `install-hooks` registers for this): that retry raises `warning` while the pane
/// stays `working`; the retried request succeeds, `AfterAgent` makes it `done`, and the
/// warning stays until the pane is seen.
#[test]
fn gemini_silent_retry_warns_and_the_turn_recovers() {
    let Some(s) = Scenario::start(
        "gemini-429",
        Cli::Gemini,
        vec![
            Reply::gemini_error(
                429,
                "RESOURCE_EXHAUSTED",
                "Resource has been exhausted (e.g. check quota).",
            ),
            text(FIRST),
        ],
    ) else {
        return;
    };
    // The retried request is answered only after 2 s: time to see the pane working with
    // the warning (the hook comes before the request).
    s.server.slow_turn(2, Duration::from_secs(2));
    s.wait_ready();
    let before = s.last_seq();
    s.prompt("say hello");
    let v = s.wait("the retry's warning", |v| v["attention"] == "warning");
    if v["lifecycle"] != "working"
        || !v["last_message"]
            .as_str()
            .is_some_and(|m| m.starts_with("model request failed · retrying"))
    {
        s.fail("expected working/warning with the retry as the message");
    }
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "warning", Some(FIRST));
    retried_turn_kept_one_warning(&s, before, "lifecycle-hooks:gemini.BeforeModel");
}
