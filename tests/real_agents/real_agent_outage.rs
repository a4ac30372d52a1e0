//! A daemon outage under a real agent (docs/decisions/0009-pane-holders.md): the pinned
//! real Claude Code (both pinned versions), Codex and Gemini CLIs in Attend panes against
//! the scripted model (`tests/support/scenario.rs`). The daemon dies in the middle of a
//! turn (`kill -9`, SIGTERM, or a kill of its whole process group); the turn goes on and
//! ends while no daemon runs, its hooks wait in the spool; the next daemon re-adopts the
//! pane (same pane, same process), replays the spooled hooks, and the pane shows the
//! turn's end once; the next prompt works. A reviewed pane whose agent ends during the
//! outage stays quiet (docs/lifecycle-attention.md "Reviewed terminal").
//!
//! Each test prints its measured times (`-- --nocapture`; docs/reliability.md "Agents
//! through a daemon outage (real CLIs)"). A missing CLI prints `SKIPPED: <reason>` and
//! passes, unless `ATTEND_REQUIRE_REAL_AGENTS=1` (docs/real-agents.md).

use crate::support;

use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};
use support::agents::{event_name, Cli};
use support::model_server::Reply;
use support::notes::{notification_server, wait_notes};
use support::scenario::{edit_json, text, Options, Scenario, STEP};
use support::{program_of, running, session_members};

/// What the model says once the tool that ran through the outage returned.
const AFTER_OUTAGE: &str = "The wait is over: the file appeared.";
/// The answer to the prompt typed after the restart.
const SECOND: &str = "Second turn, after the restart.";
/// The answer of a reviewed pane's only turn.
const REVIEWED: &str = "Reviewed answer.";

/// How the daemon goes away.
#[derive(Debug, Clone, Copy)]
enum Outage {
    /// `kill -9` of the daemon.
    Kill9,
    /// SIGTERM: the daemon stops cleanly.
    Term,
    /// SIGKILL to the daemon's whole process group (a service manager stopping it).
    Group,
}

/// Ends the scenario's daemon the `how` way and reaps it.
fn end_daemon(s: &mut Scenario, how: Outage) {
    match how {
        Outage::Kill9 => s.env.kill_daemon(),
        Outage::Term => {
            let status = s.env.stop_daemon();
            assert!(status.success(), "SIGTERM: the daemon exits 0: {status:?}");
        }
        Outage::Group => {
            let group = nix::unistd::Pid::from_raw(s.env.daemon_pid() as i32);
            nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL).unwrap();
            s.env.kill_daemon();
        }
    }
}

/// The event names of the hook records waiting in the spool (`hook_event_name` of each
/// payload, else the record's event).
fn spooled_events(s: &Scenario) -> Vec<String> {
    s.env
        .spool_records()
        .iter()
        .map(|r| {
            let payload: Value = serde_json::from_str(&r.payload).unwrap_or(Value::Null);
            match event_name(&payload) {
                "" => r.event.clone(),
                name => name.to_string(),
            }
        })
        .collect()
}

/// Waits (within [`STEP`]) until a spooled hook record is `event`; the spooled events.
fn wait_spooled(s: &Scenario, event: &str) -> Vec<String> {
    let deadline = Instant::now() + STEP;
    loop {
        let events = spooled_events(s);
        if events.iter().any(|e| e == event) {
            return events;
        }
        if Instant::now() >= deadline {
            s.fail(&format!("no {event} hook in the spool: {events:?}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Levels of the `attention.created` events among the pane's events after `seq`.
fn raised(s: &Scenario, seq: u64) -> Vec<String> {
    s.events_since(seq)
        .iter()
        .filter(|e| e["kind"] == "attention.created")
        .map(|e| e["level"].as_str().unwrap_or("").to_string())
        .collect()
}

/// Milliseconds between the first daemon log lines (of the last start) containing `from`
/// and `to`, by their timestamps (`2025-01-01T10:00:00.123456Z …`).
fn log_span_ms(log: &str, from: &str, to: &str) -> Option<f64> {
    let at = |needle: &str| -> Option<f64> {
        let line = log.lines().rev().find(|l| l.contains(needle))?;
        let t = line.get(11..26)?;
        let (h, rest) = t.split_once(':')?;
        let (m, sec) = rest.split_once(':')?;
        Some(
            (h.parse::<f64>().ok()? * 3600.0 + m.parse::<f64>().ok()? * 60.0)
                + sec.trim_end_matches('Z').parse::<f64>().ok()?,
        )
    };
    Some((at(to)? - at(from)?) * 1000.0)
}

/// The measured steps of one restart, printed as one line.
fn report_restart(s: &Scenario, started: Instant, ready: Duration) {
    let log = s.env.daemon_log();
    let adopt = log_span_ms(&log, "state loaded", "re-adopted from their holders");
    let replay = log_span_ms(
        &log,
        "re-adopted from their holders",
        "replayed the hook spool",
    );
    println!(
        "{}: restart: ready after {} ms (state loaded → re-adopted {} ms, → spool replayed {} ms); pane shown {} ms after the start",
        s.name,
        ready.as_millis(),
        adopt.map_or("?".into(), |ms| format!("{ms:.0}")),
        replay.map_or("?".into(), |ms| format!("{ms:.0}")),
        started.elapsed().as_millis()
    );
}

/// The tool of the turn that runs through the outage, per CLI: a shell command that
/// writes `started` in the project, then waits until `go` exists there, then prints.
fn waiting_tool(cli: Cli) -> Reply {
    let command = "touch started; until [ -e go ]; do sleep 0.1; done; echo released";
    match cli {
        Cli::Claude => Reply::claude_bash(command, "Wait for the go file"),
        Cli::Codex => Reply::Tool {
            name: "exec_command".into(),
            input_json: json!({"cmd": command}).to_string(),
        },
        Cli::Gemini => Reply::gemini_shell(command, "Wait for the go file"),
        Cli::Qwen => Reply::qwen_shell(command, "Wait for the go file"),
        Cli::OpenCode | Cli::Kilo => Reply::opencode_bash(command, "Wait for the go file"),
        Cli::Copilot => Reply::copilot_shell(command, "Wait for the go file"),
        Cli::Pi | Cli::Omp | Cli::Continue | Cli::Grok => {
            panic!("no outage scenario runs pi, omp, Continue or Grok")
        }
        Cli::Kimi => Reply::claude_bash(command, "Wait for the go file"),
        Cli::Cline => panic!("no outage scenario runs Cline CLI"),
        Cli::Letta | Cli::Aider | Cli::Hermes | Cli::MastraCode => {
            panic!("no outage scenario runs Letta Code, aider, Hermes Agent or MastraCode")
        }
    }
}

/// Lets the scenario's CLI run [`waiting_tool`] without a permission dialog.
fn allow_the_tool(cli: Cli, home: &support::agents::AgentHome) {
    match cli {
        Cli::Claude => edit_json(&home.config_dir().join("settings.json"), |v| {
            v["permissions"]["allow"] = json!(["Bash"]);
        }),
        Cli::Codex => {}
        Cli::Gemini => edit_json(&home.config_dir().join("settings.json"), |v| {
            v["tools"]["allowed"] = json!(["run_shell_command"]);
        }),
        Cli::Qwen => edit_json(&home.config_dir().join("settings.json"), |v| {
            v["tools"]["approvalMode"] = json!("yolo");
        }),
        Cli::OpenCode => edit_json(&home.config_dir().join("opencode.json"), |v| {
            v["permission"]["bash"] = json!("allow");
        }),
        Cli::Kilo => edit_json(&home.config_dir().join("kilo.json"), |v| {
            v["permission"]["bash"] = json!("allow");
        }),
        // Its allow list is a command-line flag (`--allow-tool`), not a setting.
        Cli::Copilot => panic!("no outage scenario runs Copilot"),
        Cli::Pi | Cli::Omp | Cli::Continue | Cli::Grok => {
            panic!("no outage scenario runs pi, omp, Continue or Grok")
        }
        Cli::Kimi => panic!("no outage scenario runs Kimi Code CLI"),
        Cli::Cline => panic!("no outage scenario runs Cline CLI"),
        Cli::Letta | Cli::Aider | Cli::Hermes | Cli::MastraCode => {
            panic!("no outage scenario runs Letta Code, aider, Hermes Agent or MastraCode")
        }
    }
}

/// Waits (within [`STEP`]) until `path` exists.
fn wait_file(s: &Scenario, path: &Path, what: &str) {
    let deadline = Instant::now() + STEP;
    while !path.exists() {
        if Instant::now() >= deadline {
            s.fail(&format!("timed out waiting for {what}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The outage scenario: a turn whose tool waits for a file; the daemon goes away `how`
/// while the tool runs; the file appears, the turn ends with no daemon (its `stop` hook
/// is spooled); the daemon starts again: same pane, same process, the pane done/unread
/// with the turn's answer and exactly one `unread` for it, the spool empty; a second
/// prompt through `attend send` ends done/unread with its answer.
fn turn_through_an_outage(name: &'static str, cli: Cli, how: Outage, stop: &str) {
    let options = Options {
        own_group: true,
        ..Options::default()
    };
    let Some(mut s) =
        Scenario::start_opts(name, cli, vec![], options, |home| allow_the_tool(cli, home))
    else {
        return;
    };
    s.wait_ready();
    let pane = s.pane.clone();
    let state_dir = s.env.state_dir();
    let pid = program_of(&state_dir, &pane).unwrap_or_else(|| s.fail("no program pid"));
    s.server.push(waiting_tool(cli));
    s.server.push(text(AFTER_OUTAGE));
    let before = s.last_seq();
    s.prompt("wait for the go file");
    s.wait("working", |v| v["lifecycle"] == "working");
    // The tool runs: the hooks before it have returned (delivered or spooled).
    wait_file(&s, &s.home.project.join("started"), "the tool to start");

    let down = Instant::now();
    end_daemon(&mut s, how);
    println!(
        "{name}: daemon ended ({how:?}) in {} ms",
        down.elapsed().as_millis()
    );
    assert!(
        running(pid),
        "{name}: the agent outlives the daemon ({how:?})"
    );
    std::fs::write(s.home.project.join("go"), "").unwrap();
    let go = Instant::now();
    let spooled = wait_spooled(&s, stop);
    println!(
        "{name}: {stop} spooled {} ms after the tool was released; spooled: {spooled:?}",
        go.elapsed().as_millis()
    );
    assert!(running(pid), "{name}: the agent runs on after its turn");

    let start = Instant::now();
    s.start_daemon_again();
    let ready = start.elapsed();
    let outage = down.elapsed();
    let v = s.wait("the turn's end, re-adopted", |v| v["lifecycle"] == "done");
    report_restart(&s, start, ready);
    println!("{name}: outage {} ms in all", outage.as_millis());
    s.expect(&v, "done", "unread", Some(AFTER_OUTAGE));
    if v["live"]["state"] != "running" {
        s.fail("the re-adopted pane is not running");
    }
    let panes: Vec<Value> = serde_json::from_str(&s.attend(&["ls", "--json"])).unwrap();
    assert_eq!(panes.len(), 1, "{name}: the same pane, no other: {panes:?}");
    assert_eq!(panes[0]["id"], pane.as_str(), "{name}: {panes:?}");
    assert_eq!(
        program_of(&state_dir, &pane),
        Some(pid),
        "{name}: the same process in the same pane"
    );
    assert!(running(pid));
    assert_eq!(s.env.spooled(), 0, "{name}: the spool is replayed");
    assert_eq!(
        raised(&s, before),
        ["unread"],
        "{name}: one unread for the turn"
    );

    // The next prompt, typed through the re-adopted terminal.
    s.server.push(text(SECOND));
    let second = Instant::now();
    s.prompt("once more");
    let v = s.wait("the second turn's end", |v| {
        v["last_message"] == SECOND && v["lifecycle"] == "done"
    });
    println!(
        "{name}: second turn done {} ms after its prompt",
        second.elapsed().as_millis()
    );
    s.expect(&v, "done", "unread", Some(SECOND));
    assert_eq!(raised(&s, before), ["unread", "unread"], "{name}");
    assert_eq!(program_of(&state_dir, &pane), Some(pid), "{name}");
}

#[test]
fn claude_kill_9_mid_turn_the_turn_ends_during_the_outage_and_is_shown_after_re_adoption() {
    turn_through_an_outage("claude-outage-kill-9", Cli::Claude, Outage::Kill9, "Stop");
}

#[test]
fn claude_sigterm_mid_turn_the_turn_ends_during_the_outage_and_is_shown_after_re_adoption() {
    turn_through_an_outage("claude-outage-term", Cli::Claude, Outage::Term, "Stop");
}

#[test]
fn claude_process_group_kill_mid_turn_the_turn_ends_during_the_outage_and_is_shown_after_re_adoption(
) {
    turn_through_an_outage("claude-outage-group", Cli::Claude, Outage::Group, "Stop");
}

#[test]
fn codex_kill_9_mid_turn_the_turn_ends_during_the_outage_and_is_shown_after_re_adoption() {
    turn_through_an_outage("codex-outage-kill-9", Cli::Codex, Outage::Kill9, "Stop");
}

#[test]
fn gemini_kill_9_mid_turn_the_turn_ends_during_the_outage_and_is_shown_after_re_adoption() {
    turn_through_an_outage(
        "gemini-outage-kill-9",
        Cli::Gemini,
        Outage::Kill9,
        "AfterAgent",
    );
}

/// A reviewed pane (done, then `attend seen`: done/none) whose agent ends (SIGTERM to
/// its process) while no daemon runs: the holder records the exit, hooks the agent fired
/// on its way out are spooled; after the restart the pane is exited and stays done/none —
/// no lifecycle event, no attention, no notification (spec 024's quiet exit, through an
/// outage).
#[test]
fn claude_reviewed_pane_whose_agent_ends_during_the_outage_stays_quiet() {
    let options = Options {
        notifications: true,
        ..Options::default()
    };
    let name = "claude-outage-reviewed-exit";
    let Some(mut s) = Scenario::start_opts(name, Cli::Claude, vec![], options, |_| {}) else {
        return;
    };
    let (_server, shown) = notification_server(&s.env.bus.address);
    s.wait_ready();
    let pane = s.pane.clone();
    let state_dir = s.env.state_dir();
    let pid = program_of(&state_dir, &pane).unwrap_or_else(|| s.fail("no program pid"));
    s.server.push(text(REVIEWED));
    s.prompt("say something");
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    s.expect(&v, "done", "unread", Some(REVIEWED));
    wait_notes(&s, &shown, 1);
    s.attend(&["seen", &pane]);
    s.expect(&s.show(), "done", "none", Some(REVIEWED));
    let before = s.last_seq();

    s.env.kill_daemon();
    let term = Instant::now();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    // Claude and everything it started on its terminal (its SessionEnd hooks) are gone.
    let deadline = Instant::now() + STEP;
    while !session_members(pid).is_empty() {
        if Instant::now() >= deadline {
            s.fail(&format!(
                "the agent's session is still running: {:?}",
                session_members(pid)
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    println!(
        "{name}: the agent ended {} ms after SIGTERM; spooled: {:?}",
        term.elapsed().as_millis(),
        spooled_events(&s)
    );
    let holder = support::holder_of(&state_dir, &pane);
    assert!(
        holder.is_some(),
        "{name}: the holder keeps the exit until a daemon collects it"
    );

    let start = Instant::now();
    s.start_daemon_again();
    let ready = start.elapsed();
    let v = s.wait("the exit applied", |v| v["live"]["state"] == "exited");
    report_restart(&s, start, ready);
    println!("{name}: exit recorded as {}", v["live"]);
    s.expect(&v, "done", "none", Some(REVIEWED));
    let kinds: Vec<String> = s
        .events_since(before)
        .iter()
        .map(|e| e["kind"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        kinds.contains(&"pane.exited".to_string()),
        "{name}: {kinds:?}"
    );
    assert!(
        !kinds
            .iter()
            .any(|k| k.starts_with("agent.") || k == "attention.created"),
        "{name}: a reviewed pane stays quiet through the outage: {kinds:?}"
    );
    assert_eq!(s.env.attend(&["next"]).status.code(), Some(1), "{name}");
    assert_eq!(s.env.spooled(), 0, "{name}: the spool is replayed");
    // The marker for "no notification": a completion on another pane, after the exit was
    // applied, is notified; nothing came before it.
    let payload = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/claude/2.1.197/observed/Stop.json"),
    )
    .unwrap();
    let mut stop: Value = serde_json::from_str(&payload).unwrap();
    stop["session_id"] = "outage-marker".into();
    stop["last_assistant_message"] = "marker".into();
    let out = s
        .env
        .attend_with(&["hook", "claude"], stop.to_string().as_bytes(), &[]);
    assert!(out.status.success(), "{out:?}");
    wait_notes(&s, &shown, 2);
    let notes = shown.lock().unwrap().clone();
    assert!(
        notes[1].contains("marker"),
        "{name}: no notification for the reviewed pane's exit: {notes:?}"
    );
    assert_eq!(notes.len(), 2, "{name}: {notes:?}");
    let deadline = Instant::now() + STEP;
    while support::holder_of(&state_dir, &pane).is_some() {
        if Instant::now() >= deadline {
            s.fail("the holder stays after its exit was collected");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
