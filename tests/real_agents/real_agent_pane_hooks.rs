//! Hooks for the panes Attend starts (docs/adapters.md "Hooks for panes Attend starts",
//! docs/decisions/0008-per-pane-hooks.md): the real Claude Code and Codex CLIs in Attend
//! panes, against the scripted model server, report their turns through the hooks Attend
//! passes on their command line — without `attend install-hooks` (nothing in the CLI's
//! configuration), and with it (then the globally installed entries exit at once and
//! every event is applied exactly once).
//!
//! Each scenario runs two turns and a clean exit, and counts what the daemon applied:
//! its `hook applied` log lines for the pane (one per applied delivery,
//! `src/service/owner/hooks.rs`) and the `agent.*` events. The counts are final when
//! read: an agent runs a turn's hooks before it takes the next prompt, and its last hooks
//! before it exits.
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1` (docs/real-agents.md).

use crate::support;

use serde_json::Value;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use support::agents::{Cli, HookRecorder};
use support::scenario::{edit_json, text, Options, Scenario, FIRST, STEP};

const SECOND: &str = "Second answer from the scripted model.";

/// The daemon logs one line per applied hook delivery.
const DAEMON_VARS: &[(&str, &str)] = &[("RUST_LOG", "info,attend::service::owner::hooks=debug")];

/// What differs between the CLIs in these scenarios.
struct Agent {
    cli: Cli,
    /// The event names of a session's start, a turn's start and end, the session's end.
    start: &'static str,
    turn: &'static str,
    stop: &'static str,
    end: &'static str,
    /// The CLI's own quit command.
    quit: &'static str,
    /// A plain hook of the user's records what the CLI fired (Claude; Codex would need it
    /// trusted, so its counts are the script's).
    records: bool,
}

const CLAUDE: Agent = Agent {
    cli: Cli::Claude,
    start: "SessionStart",
    turn: "UserPromptSubmit",
    stop: "Stop",
    end: "SessionEnd",
    quit: "/exit",
    records: true,
};

const CODEX: Agent = Agent {
    cli: Cli::Codex,
    start: "SessionStart",
    turn: "UserPromptSubmit",
    stop: "Stop",
    end: "SessionEnd",
    quit: "/quit",
    records: false,
};

/// Starts the CLI in a pane, with or without `attend install-hooks` (`global`), by name
/// from `PATH` (`on_path`, [`Options::on_path`]) or by path; where `agent.records`,
/// `fired` records every payload of the events counted.
fn start(
    name: &'static str,
    agent: &Agent,
    global: bool,
    on_path: bool,
    fired: &HookRecorder,
) -> Option<Scenario> {
    let options = Options {
        install_hooks: global,
        daemon_vars: DAEMON_VARS,
        on_path,
        ..Options::default()
    };
    let command = fired.command();
    let events = [agent.start, agent.turn, agent.stop, agent.end];
    let records = agent.records;
    let script = vec![text(FIRST), text(SECOND)];
    Scenario::start_opts(name, agent.cli, script, options, |home| {
        if !records {
            return;
        }
        edit_json(&home.config_dir().join("settings.json"), |settings| {
            let hook = serde_json::json!({"type": "command", "command": command, "timeout": 10});
            for event in events {
                let group = serde_json::json!({"hooks": [hook.clone()]});
                match settings["hooks"][event].as_array_mut() {
                    Some(groups) => groups.push(group),
                    None => settings["hooks"][event] = Value::Array(vec![group]),
                }
            }
        });
    })
}

/// The events of the hooks the daemon applied to the pane, counted by event name.
fn applied(s: &Scenario) -> BTreeMap<String, usize> {
    let pane = format!("pane=Some(\"{}\")", s.pane);
    let mut counts = BTreeMap::new();
    for line in s.env.daemon_log().lines() {
        if !line.contains("hook applied") || !line.contains(&pane) {
            continue;
        }
        let event = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("event="))
            .unwrap_or("?");
        *counts.entry(event.to_string()).or_default() += 1;
    }
    counts
}

/// Waits (within [`STEP`]) until the daemon applied `event` at least once to the pane.
fn wait_applied(s: &Scenario, event: &str) {
    let deadline = Instant::now() + STEP;
    while !applied(s).contains_key(event) {
        if Instant::now() > deadline {
            s.fail(&format!("no {event} hook applied: {:?}", applied(s)));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The events a recorder saw fired, by name.
fn fired_counts(fired: &HookRecorder) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for event in fired.events() {
        *counts.entry(event).or_default() += 1;
    }
    counts
}

/// Two turns and a clean exit; then every event the CLI fired was applied exactly as
/// often as it fired (SessionStart once, each turn's start and end once a turn, the
/// session's end as often as the CLI fires it), and each turn is one `agent.working` from
/// the turn's start and one `agent.done` from its end.
fn two_turns_each_event_applied_once(name: &'static str, agent: &Agent, global: bool) {
    let recorder = tempfile::tempdir().unwrap();
    let fired = HookRecorder::new(recorder.path().join("fired"));
    let Some(s) = start(name, agent, global, false, &fired) else {
        return;
    };
    s.wait_ready();
    s.prompt("say hello");
    let v = s.wait("the first turn's end", |v| {
        v["lifecycle"] == "done" && v["last_message"] == FIRST
    });
    s.expect(&v, "done", "unread", Some(FIRST));
    if v["session_id"].is_null() {
        s.fail("no session id: the SessionStart hook was not applied");
    }
    s.prompt("again");
    let v = s.wait("the second turn's end", |v| {
        v["lifecycle"] == "done" && v["last_message"] == SECOND
    });
    s.expect(&v, "done", "unread", Some(SECOND));
    s.prompt(agent.quit);
    s.expect_exit_0();
    wait_applied(&s, agent.end);

    let applied = applied(&s);
    let fired = fired_counts(&fired);
    println!("{name}: fired {fired:?}, applied {applied:?}");
    let end = if agent.records {
        fired.get(agent.end).copied().unwrap_or(0).max(1)
    } else {
        1
    };
    for (event, n) in [
        (agent.start, 1),
        (agent.turn, 2),
        (agent.stop, 2),
        (agent.end, end),
    ] {
        let fired_ok = !agent.records || fired.get(event) == Some(&n);
        if !fired_ok || applied.get(event) != Some(&n) {
            s.fail(&format!(
                "{event}: fired {:?}, applied {:?} times, expected {n} (fired {fired:?}, \
                 applied {applied:?})",
                fired.get(event),
                applied.get(event)
            ));
        }
    }
    // Codex's turn-complete notify at most once a turn: Codex runs one notify program (the
    // pane's, or the user's own) and does not wait for it.
    if applied.get("notify").is_some_and(|n| *n > 2) {
        s.fail(&format!(
            "notify applied more than once a turn: {applied:?}"
        ));
    }

    let sources: Vec<(String, String)> = s
        .events_since(0)
        .iter()
        .filter(|e| e["kind"].as_str().is_some_and(|k| k.starts_with("agent.")))
        .map(|e| {
            let field = |k: &str| e[k].as_str().unwrap_or("").to_string();
            (field("kind"), field("source"))
        })
        .collect();
    let hook = |event: &str| format!("lifecycle-hooks:{}.{event}", agent.cli.name());
    let count = |kind: &str, source: &str| {
        sources
            .iter()
            .filter(|(k, src)| k == kind && *src == hook(source))
            .count()
    };
    let done = sources.iter().filter(|(k, _)| k == "agent.done").count();
    if count("agent.working", agent.turn) != 2 || count("agent.done", agent.stop) != 2 || done != 2
    {
        s.fail(&format!(
            "expected one agent.working ({}) and one agent.done ({}) per turn: {sources:?}",
            agent.turn, agent.stop
        ));
    }
}

/// Without `install-hooks` (nothing of Attend's in `~/.claude`), `attend run -- claude`
/// reports SessionStart (the session id), UserPromptSubmit (working), Stop (done/unread
/// with the reply) and SessionEnd through the `--settings` file Attend passes.
#[test]
fn claude_reports_through_its_pane_hooks_without_install_hooks() {
    two_turns_each_event_applied_once("claude-pane-hooks", &CLAUDE, false);
}

/// With `install-hooks` too, each event is applied exactly once: the global entries see
/// `ATTEND_PANE_HOOKS` and exit without calling the daemon.
#[test]
fn claude_with_global_hooks_too_applies_each_event_once() {
    two_turns_each_event_applied_once("claude-pane-and-global-hooks", &CLAUDE, true);
}

/// Without `install-hooks` (no `hooks.json`, no `notify`, no hook trust in `config.toml`,
/// and no `--dangerously-bypass-hook-trust`), `attend run -- codex` reports its turns
/// through the `-c` hooks Attend passes with their trust pinned.
#[test]
fn codex_reports_through_its_pane_hooks_without_install_hooks() {
    two_turns_each_event_applied_once("codex-pane-hooks", &CODEX, false);
}

/// With `install-hooks` too (its `hooks.json` run with `--dangerously-bypass-hook-trust`,
/// as the scenarios do), each event is applied exactly once.
#[test]
fn codex_with_global_hooks_too_applies_each_event_once() {
    two_turns_each_event_applied_once("codex-pane-and-global-hooks", &CODEX, true);
}

/// `attend resume` restarts an exited pane with the session's resume argv (`claude
/// --resume <id>`, from the SessionStart payload): the hooks are added again, so the
/// resumed session reports (its SessionStart, then a turn) without `install-hooks`.
#[test]
fn claude_resumed_pane_gets_its_hooks_again() {
    let recorder = tempfile::tempdir().unwrap();
    let fired = HookRecorder::new(recorder.path().join("fired"));
    let Some(s) = start("claude-pane-hooks-resume", &CLAUDE, false, true, &fired) else {
        return;
    };
    s.wait_ready();
    s.prompt("say hello");
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(FIRST));
    let session = v["session_id"].as_str().unwrap_or_default().to_string();
    s.prompt("/exit");
    let v = s.expect_exit_0();
    assert_eq!(
        v["resume_argv"],
        serde_json::json!(["claude", "--resume", session])
    );

    s.attend(&["resume", &s.pane]);
    let deadline = Instant::now() + STEP;
    while applied(&s).get("SessionStart") != Some(&2) {
        if Instant::now() > deadline {
            s.fail(&format!(
                "the resumed session's SessionStart: {:?}",
                applied(&s)
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    s.wait_ready();
    s.prompt("again");
    let v = s.wait("the resumed session's turn", |v| {
        v["lifecycle"] == "done" && v["last_message"] == SECOND
    });
    s.expect(&v, "done", "unread", Some(SECOND));
    assert_eq!(
        v["session_id"],
        session.as_str(),
        "the same session, resumed"
    );
}
