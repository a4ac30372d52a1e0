//! The evidence ladder (docs/taxonomy.md) against the real Claude Code CLI: the
//! CLI runs in an Attend pane (`attend run --agent claude -- env … claude`) against the
//! scripted model server, with Attend's hooks installed by `attend install-hooks claude`
//! into its HOME, and writes its self-report file under that HOME, where the daemon
//! watches (it reads the pane process's environment).
//!
//! Claude fires no hook when a permission dialog is cancelled with Esc, nor when Esc
//! interrupts a turn (docs/adapters.md, "Hooks that do not fire"): only the ladder's
//! self-report rung can tell. Each expectation has a generous bound ([`BOUND`]); the
//! measured delays are printed (`ladder:` lines) and recorded in docs/benchmarks.md.
//!
//! A missing CLI prints `SKIPPED: <reason>` and passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1`. With `ATTEND_RECORD_FIXTURES=1` the prose screen of
//! [`claude_prose_that_quotes_the_dialog_is_not_a_dialog`] is written to
//! `tests/fixtures/screens/claude/<version>/prose-proceed.txt`.

use crate::support;

use serde_json::Value;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use support::agents::{require, AgentHome, Cli, Tmux};
use support::model_server::{ModelServer, Reply};
use support::{attend_bin, Env};

/// Bound of each ladder expectation (a generous bound: 10 s).
const BOUND: Duration = Duration::from_secs(10);
/// Bound of steps that wait for the agent itself (start-up, a model turn) on a loaded
/// 2-core machine.
const AGENT_STEP: Duration = Duration::from_secs(60);

/// One real Claude at a time: the delays measured here should not include another
/// Claude's start-up on the same two cores.
static SERIAL: Mutex<()> = Mutex::new(());

/// A daemon, a scripted model, and the real Claude in one Attend pane.
struct Rig {
    env: Env,
    server: ModelServer,
    home: AgentHome,
    pane: String,
}

impl Rig {
    /// Starts everything and waits until Claude is at its prompt and its self-report is
    /// bound to the pane. `None` when the CLI is unavailable (skipped).
    fn start(script: Vec<Reply>) -> Option<Rig> {
        let binary = require(Cli::Claude)?;
        let server = ModelServer::start(script);
        let env = Env::with_daemon();
        let home = AgentHome::new(Cli::Claude, binary, &server);
        let home_dir = home.home.display().to_string();
        let out = env.attend_with(&["install-hooks", "claude"], b"", &[("HOME", &home_dir)]);
        assert!(
            out.status.success(),
            "install-hooks: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let launch = home.launch();
        let project = home.project.display().to_string();
        let overlay = launch.env_overlay_argv();
        let mut args: Vec<&str> = vec!["--agent", "claude", "--cwd", &project, "--"];
        args.extend(overlay.iter().map(String::as_str));
        let pane = env.run(&args);
        let rig = Rig {
            env,
            server,
            home,
            pane,
        };
        rig.wait("the SessionStart hook", AGENT_STEP, |s, _| {
            s["session_id"].is_string()
        });
        rig.wait("the self-report bound and idle", AGENT_STEP, |_, x| {
            x["self_report"].is_object() && self_report(x)["note"] == "status=idle"
        });
        Some(rig)
    }

    fn show(&self) -> Value {
        self.env.show(&self.pane)
    }

    fn explain(&self) -> Value {
        serde_json::from_str(&self.env.ok(&["explain", &self.pane, "--json"])).unwrap()
    }

    /// Polls `show` and `explain` until `cond(show, explain)` holds; the time it took.
    fn wait(&self, what: &str, bound: Duration, cond: impl Fn(&Value, &Value) -> bool) -> Duration {
        let start = Instant::now();
        loop {
            let (s, x) = (self.show(), self.explain());
            if cond(&s, &x) {
                return start.elapsed();
            }
            if start.elapsed() > bound {
                self.fail(&format!("{what} within {bound:?}"), &s, &x);
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Polls only `show` (cheaper: the delay measurements use it).
    fn wait_show(&self, what: &str, bound: Duration, cond: impl Fn(&Value) -> bool) -> Duration {
        let start = Instant::now();
        loop {
            let s = self.show();
            if cond(&s) {
                return start.elapsed();
            }
            if start.elapsed() > bound {
                self.fail(&format!("{what} within {bound:?}"), &s, &self.explain());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn fail(&self, what: &str, s: &Value, x: &Value) -> ! {
        panic!(
            "expected {what}\n--- show ---\n{s:#}\n--- explain ---\n{x:#}\n--- events ---\n{}\n--- model server ---\n{}\n--- daemon log ---\n{}",
            self.env.ok(&["events"]),
            self.server.summary(),
            self.env.daemon_log()
        )
    }

    /// Types a prompt, then Enter separately (one write with the newline reads as a
    /// paste).
    fn prompt(&self, text: &str) {
        self.env.ok(&["send", &self.pane, text]);
        std::thread::sleep(Duration::from_millis(300));
        self.env.ok(&["send", &self.pane, "", "--enter"]);
    }

    fn esc(&self) {
        self.env.ok(&["send", &self.pane, "\x1b"]);
    }

    /// The events of this pane after `after`.
    fn events_after(&self, after: u64) -> Vec<Value> {
        self.env
            .events()
            .into_iter()
            .filter(|e| e["seq"].as_u64().unwrap_or(0) > after && e["pane"] == self.pane.as_str())
            .collect()
    }

    fn last_seq(&self) -> u64 {
        self.env
            .events()
            .last()
            .and_then(|e| e["seq"].as_u64())
            .unwrap_or(0)
    }

    /// The pane's live screen, through `attend attach` in a private tmux.
    fn screen(&self) -> String {
        let mut argv = vec!["env".to_string()];
        for (k, v) in [
            ("DBUS_SESSION_BUS_ADDRESS", self.env.bus.address.clone()),
            (
                "ATTEND_STATE_DIR",
                self.env.state_dir().display().to_string(),
            ),
            (
                "XDG_RUNTIME_DIR",
                self.env.dir.path().join("run").display().to_string(),
            ),
        ] {
            argv.push(format!("{k}={v}"));
        }
        argv.extend([attend_bin().to_string(), "attach".into(), self.pane.clone()]);
        let term = Tmux::start_argv(&argv, &self.home.project, 80, 24).expect("tmux starts");
        term.wait_for_screen("the pane's screen", AGENT_STEP, |s| s.lines().count() > 3)
            .unwrap_or_else(|e| panic!("{e}"))
    }
}

/// The self-report rung of an `explain`.
fn self_report(x: &Value) -> &Value {
    x["rungs"]
        .as_array()
        .and_then(|rs| rs.iter().find(|r| r["rung"] == "self-report"))
        .unwrap_or(&Value::Null)
}

/// The window-sampling rung of `explain` (its latest evidence: `seq`, `claims_activity`).
fn sampling(x: &Value) -> &Value {
    x["rungs"]
        .as_array()
        .and_then(|rs| rs.iter().find(|r| r["rung"] == "window-sampling"))
        .unwrap_or(&Value::Null)
}

fn lifecycle(s: &Value) -> &str {
    s["lifecycle"].as_str().unwrap_or("")
}

#[test]
fn claude_permission_dialog_cancelled_with_esc_is_dismissed_without_a_hook() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(rig) = Rig::start(vec![
        Reply::claude_bash("echo attend-ladder > out.txt", "Write a file"),
        Reply::text("The marker turn."),
    ]) else {
        return;
    };
    rig.prompt("write the file");
    rig.wait_show("blocked on the permission dialog", AGENT_STEP, |s| {
        lifecycle(s) == "blocked"
    });

    // (c) The self-report's `waiting` reason is the needs-input reason.
    rig.wait(
        "self-report waiting as the needs-input reason",
        BOUND,
        |s, x| {
            s["taxonomy"]["needs_input"]["reason"] == "permission prompt"
                && s["taxonomy"]["display"] == "needs-input"
                && self_report(x)["note"] == "status=waiting waitingFor=\"permission prompt\""
                && self_report(x)["claims_reason"] == "permission prompt"
        },
    );
    // The dialog is also seen on the live screen by Claude's manifest.
    rig.wait("the permission-dialog rule to match", BOUND, |_, x| {
        x["chrome"]["matched_rule"] == "permission-dialog"
    });
    let x = rig.explain();
    assert_eq!(
        x["needs_input_evidence"]["rung"], "needs-input-chrome",
        "{x:#}"
    );
    println!(
        "ladder: explain with the dialog open:\n{}",
        rig.env.ok(&["explain", &rig.pane])
    );

    // (a) Esc: no hook fires; the self-report goes waiting → idle.
    let before = rig.last_seq();
    let esc = Instant::now();
    rig.esc();
    rig.wait_show("the pane to leave blocked", BOUND, |s| {
        lifecycle(s) != "blocked"
    });
    let delay = esc.elapsed();
    println!(
        "ladder: permission dialog dismissed with Esc → pane left blocked in {} ms",
        delay.as_millis()
    );
    let s = rig.show();
    assert_eq!(lifecycle(&s), "idle", "{s:#}");
    assert!(s["pending_decision"].is_null(), "{s:#}");
    assert_eq!(s["attention"], "none", "{s:#}");
    let events = rig.events_after(before);
    let resolved = events
        .iter()
        .find(|e| e["kind"] == "decision.resolved")
        .unwrap_or_else(|| panic!("no decision.resolved: {events:#?}"));
    assert_eq!(resolved["how"], "dismissed", "{events:#?}");
    let source = resolved["source"].as_str().unwrap_or("");
    assert!(
        source.starts_with("self-report:claude.sessions/"),
        "{source}"
    );
    let hooks: Vec<&Value> = events
        .iter()
        .filter(|e| {
            e["seq"].as_u64() < resolved["seq"].as_u64()
                && e["source"]
                    .as_str()
                    .is_some_and(|s| s.starts_with("lifecycle-hooks:"))
        })
        .collect();
    assert!(
        hooks.is_empty(),
        "a hook fired before the dismissal: {hooks:#?}"
    );
    // The dismissal sticks: no late hook of the cancelled dialog. A marker through the
    // same ordered path — the next prompt, whose UserPromptSubmit hook Claude runs after
    // any hook still due — bounds the wait; no hook may come between the two.
    assert_eq!(lifecycle(&rig.show()), "idle");
    let resolved_seq = resolved["seq"].as_u64().unwrap();
    rig.prompt("marker");
    let marker_source = "lifecycle-hooks:claude.UserPromptSubmit";
    rig.wait("the marker prompt's hook", AGENT_STEP, |_, _| {
        rig.events_after(resolved_seq)
            .iter()
            .any(|e| e["source"] == marker_source)
    });
    let after = rig.events_after(resolved_seq);
    let late: Vec<&Value> = after
        .iter()
        .take_while(|e| e["source"] != marker_source)
        .filter(|e| {
            e["kind"] == "decision.opened"
                || e["source"]
                    .as_str()
                    .is_some_and(|s| s.starts_with("lifecycle-hooks:"))
        })
        .collect();
    assert!(
        late.is_empty(),
        "a late hook after the dismissal: {late:#?}\n--- all after it ---\n{after:#?}"
    );
    assert!(
        !Path::new(&rig.home.project.join("out.txt")).exists(),
        "the cancelled command did not run"
    );
}

#[test]
fn claude_esc_during_a_working_turn_stops_working() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(rig) = Rig::start(vec![Reply::text("This answer took a long time.")]) else {
        return;
    };
    // The first turn is answered only after a minute: Claude stays busy until Esc.
    rig.server.slow_turn(1, Duration::from_secs(60));
    rig.prompt("answer slowly");
    rig.wait("working, with the self-report busy", AGENT_STEP, |s, x| {
        lifecycle(s) == "working" && self_report(x)["note"] == "status=busy"
    });
    rig.server
        .wait_until("the slow turn request", AGENT_STEP, |log| {
            log.iter().any(|r| r.is_turn())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let before = rig.last_seq();
    let esc = Instant::now();
    rig.esc();
    rig.wait_show("the pane to stop working", BOUND, |s| {
        lifecycle(s) != "working"
    });
    let delay = esc.elapsed();
    println!(
        "ladder: Esc during a turn → pane stopped working in {} ms",
        delay.as_millis()
    );
    let s = rig.show();
    assert_eq!(lifecycle(&s), "idle", "{s:#}");
    assert_eq!(s["taxonomy"]["activity"], "idle-at-prompt", "{s:#}");
    let events = rig.events_after(before);
    let idle = events
        .iter()
        .find(|e| e["kind"] == "agent.idle")
        .unwrap_or_else(|| panic!("no agent.idle: {events:#?}"));
    assert!(
        idle["source"]
            .as_str()
            .is_some_and(|s| s.starts_with("self-report:")),
        "{idle:#}"
    );
    assert!(
        !events.iter().any(|e| e["kind"] == "agent.done"),
        "no Stop hook on an interrupted turn: {events:#?}"
    );
}

/// What the model answers: the dialog's words as prose, and even as a quoted list.
const PROSE: &str = "Before editing I could ask: Do you want to proceed? 1. Yes or 2. No. \
No dialog is needed here.\n\nA dialog would read:\n\nDo you want to proceed?\n1. Yes\n3. No\n\nEsc to cancel";

#[test]
fn claude_prose_that_quotes_the_dialog_is_not_a_dialog() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(rig) = Rig::start(vec![Reply::text(PROSE)]) else {
        return;
    };
    let before = rig.last_seq();
    let sampled = sampling(&rig.explain())["seq"].as_u64().unwrap_or(0);
    rig.prompt("quote the dialog");
    rig.wait_show("the turn to end", AGENT_STEP, |s| lifecycle(s) == "done");
    // The marker: the sampler's idle claim after the turn (quiet past the silence window
    // and the debounce). The same per-pane sampler evaluates the chrome of the last
    // screen within the chrome interval of the last output, before the silence window
    // ends: once the claim is recorded, the settled screen was evaluated and whatever it
    // caused is committed.
    rig.wait(
        "the sampler's idle claim after the turn",
        AGENT_STEP,
        |_, x| {
            let r = sampling(x);
            r["claims_activity"] == "idle-at-prompt" && r["seq"].as_u64() > Some(sampled)
        },
    );
    let screen = rig.screen();
    assert!(
        screen.contains("Do you want to proceed? 1. Yes"),
        "the prose is on the live screen:\n{screen}"
    );
    let (s, x) = (rig.show(), rig.explain());
    assert_eq!(lifecycle(&s), "done", "{s:#}");
    assert_eq!(s["taxonomy"]["needs_input"]["count"], 0, "{s:#}");
    assert!(x["chrome"]["matched_rule"].is_null(), "{x:#}");
    assert!(x["chrome"]["evaluated_at"].is_string(), "{x:#}");
    let events = rig.events_after(before);
    assert!(
        !events
            .iter()
            .any(|e| e["kind"] == "agent.blocked" || e["kind"] == "decision.opened"),
        "prose made the pane blocked: {events:#?}"
    );
    println!(
        "ladder: prose screen: nearest rule {} ({}/{} gates)",
        x["chrome"]["nearest_rule"], x["chrome"]["nearest_satisfied"], x["chrome"]["nearest_total"]
    );
    if std::env::var("ATTEND_RECORD_FIXTURES").as_deref() == Ok("1") {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/screens/claude")
            .join(Cli::Claude.version());
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("prose-proceed.txt"),
            rig.home.scrub_screen(&screen),
        )
        .unwrap();
        println!("ladder: fixture prose-proceed.txt recorded");
    }
}
