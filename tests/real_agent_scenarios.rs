//! The six real-agent scenarios of issue 4 ("Real agents end to end"): the pinned real
//! Claude Code, Codex and Gemini CLIs run INSIDE Attend panes (`attend run`), with the
//! hooks `attend install-hooks` writes into the test's HOME, against the scripted model
//! server on 127.0.0.1 (every other route points at a closed loopback proxy). Every step
//! is asserted through `attend show --json`: lifecycle, attention, decision, last message.
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1` (docs/real-agents.md).

mod support;

use serde_json::{json, Value};
use std::time::{Duration, Instant};
use support::agents::{require, AgentHome, Cli, HookRecorder, Tmux};
use support::model_server::{ModelServer, Reply, Served};
use support::{attend_bin, Env};

/// Generous bound for one step (a CLI starting on a loaded 2-core machine included).
const STEP: Duration = Duration::from_secs(30);

const FIRST: &str = "Hello from the scripted model.";
const DONE: &str = "Done: the file is written.";
const COMMAND: &str = "echo attend-e2e > out.txt";

/// One real CLI in an Attend pane: the daemon and its bus, the scripted model, the CLI's
/// home, the pane.
struct Scenario {
    name: &'static str,
    cli: Cli,
    env: Env,
    server: ModelServer,
    home: AgentHome,
    pane: String,
    /// A recorder of the SessionEnd payloads (Claude and Gemini).
    session_ends: Option<HookRecorder>,
    /// A recorder of Codex's `notify` payloads.
    notifies: Option<HookRecorder>,
    started: Instant,
}

impl Scenario {
    /// Starts a daemon, the model server with `script`, installs the hooks with
    /// `attend install-hooks` into the CLI's home, and runs the interactive CLI in a
    /// 40×120 Attend pane. `None` (after `SKIPPED: …`) when the CLI is unavailable.
    fn start(name: &'static str, cli: Cli, script: Vec<Reply>) -> Option<Scenario> {
        Scenario::start_with(name, cli, script, |_| {})
    }

    /// [`Scenario::start`] with `prepare` run on the CLI's home before the launch.
    fn start_with(
        name: &'static str,
        cli: Cli,
        script: Vec<Reply>,
        prepare: impl FnOnce(&AgentHome),
    ) -> Option<Scenario> {
        let binary = require(cli)?;
        let started = Instant::now();
        let env = Env::with_daemon();
        let server = ModelServer::start(script);
        let home = AgentHome::new(cli, binary, &server);
        prepare(&home);
        let out = env
            .cmd()
            .args(["install-hooks", cli.name()])
            .env("HOME", &home.home)
            .env("CODEX_HOME", home.config_dir())
            .env_remove("CLAUDE_CONFIG_DIR")
            .current_dir(&home.project)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "install-hooks {}: {}",
            cli.name(),
            String::from_utf8_lossy(&out.stderr)
        );
        let session_ends = (cli != Cli::Codex).then(|| record_also(&home, "SessionEnd"));
        let notifies = (cli == Cli::Codex).then(|| record_notify(&home));
        let mut launch = home.launch();
        if cli == Cli::Codex {
            // Hooks from install-hooks are not trusted yet: run them for this invocation
            // (the flag implies --no-daemon, so no app-server outlives the test).
            launch.args.retain(|a| a != "--no-daemon");
            launch.args.push("--dangerously-bypass-hook-trust".into());
        }
        let mut args = vec![
            "run".to_string(),
            "--agent".into(),
            cli.name().into(),
            "--cwd".into(),
            home.project.display().to_string(),
            "--".into(),
        ];
        args.extend(launch.env_overlay_argv());
        let out = env
            .cmd()
            .args(&args)
            .env("TERM", "xterm-256color")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "attend run: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let pane = String::from_utf8(out.stdout).unwrap().trim().to_string();
        env.attend1()
            .resize(&pane, 40, 120)
            .expect("the pane resizes");
        Some(Scenario {
            name,
            cli,
            env,
            server,
            home,
            pane,
            session_ends,
            notifies,
            started,
        })
    }

    fn show(&self) -> Value {
        self.env.show(&self.pane)
    }

    /// Panics with `what`, the pane, its events, the model server's log and the daemon's.
    fn fail(&self, what: &str) -> ! {
        let events: Vec<String> = self.env.events().iter().map(|e| e.to_string()).collect();
        panic!(
            "{}: {what}\n--- pane ---\n{:#}\n--- events ---\n{}\n--- model server ---\n{}\n--- daemon log ---\n{}",
            self.name,
            self.show(),
            events.join("\n"),
            self.server.summary(),
            self.env.daemon_log()
        )
    }

    /// Polls the pane until `cond` holds (within [`STEP`]); returns that state.
    fn wait(&self, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + STEP;
        loop {
            let v = self.show();
            if cond(&v) {
                println!(
                    "{}: {what} after {:.1} s",
                    self.name,
                    self.started.elapsed().as_secs_f64()
                );
                return v;
            }
            if Instant::now() >= deadline {
                self.fail(&format!("timed out waiting for {what}"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits (within [`STEP`]) until every Codex notify recorded so far has returned from
    /// `attend hook codex --notify` with status 0 (its `.done` file beside its payload: the
    /// daemon answered, so what the notify caused is committed) and no hook waits in the
    /// spool (a hook that spooled is applied when its batch is gone).
    fn wait_notifies_delivered(&self) {
        let dir = &self.notifies.as_ref().expect("a Codex scenario").dir;
        let deadline = Instant::now() + STEP;
        loop {
            let mut pending = Vec::new();
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let path = e.path();
                if path.extension().is_some_and(|x| x == "json") {
                    match std::fs::read_to_string(path.with_extension("done")) {
                        Ok(status) => {
                            assert_eq!(status, "0", "{}: the hook failed", path.display())
                        }
                        Err(_) => pending.push(path),
                    }
                }
            }
            let spooled = self.env.spooled();
            if pending.is_empty() && spooled == 0 {
                return;
            }
            if Instant::now() >= deadline {
                self.fail(&format!(
                    "notifies not delivered: {pending:?}, {spooled} spooled hook(s)"
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Asserts the four values every step checks.
    fn expect(&self, v: &Value, lifecycle: &str, attention: &str, message: Option<&str>) {
        let got = (
            v["lifecycle"].as_str(),
            v["attention"].as_str(),
            v["last_message"].as_str(),
        );
        if got != (Some(lifecycle), Some(attention), message) {
            self.fail(&format!(
                "expected {lifecycle}/{attention} with last message {message:?}, got {got:?}"
            ));
        }
    }

    /// Runs `attend ARGS` against this daemon; asserts success.
    fn attend(&self, args: &[&str]) -> String {
        let out = self.env.attend(args);
        if !out.status.success() {
            self.fail(&format!(
                "attend {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        String::from_utf8(out.stdout).unwrap()
    }

    /// Types `text` into the pane with `attend send`, then Enter as a separate write (a
    /// text and its Enter in one write can be taken as a paste).
    fn prompt(&self, text: &str) {
        self.attend(&["send", &self.pane, text]);
        std::thread::sleep(Duration::from_millis(400));
        self.attend(&["send", &self.pane, "", "--enter"]);
    }

    /// Waits until the CLI shows its prompt: its session started (Claude and Gemini fire
    /// SessionStart at launch) or its window title is set, then a moment for the input
    /// box to take keys.
    fn wait_ready(&self) {
        self.wait("the CLI is up", |v| {
            !v["session_id"].is_null() || v["title"].as_str().is_some_and(|t| !t.is_empty())
        });
        std::thread::sleep(Duration::from_millis(1500));
    }

    /// The events of this pane after `after_seq`.
    fn events_since(&self, after_seq: u64) -> Vec<Value> {
        self.env
            .events()
            .into_iter()
            .filter(|e| e["pane"] == self.pane.as_str() && e["seq"].as_u64() > Some(after_seq))
            .collect()
    }

    fn last_seq(&self) -> u64 {
        self.env
            .events()
            .last()
            .and_then(|e| e["seq"].as_u64())
            .unwrap_or(0)
    }

    /// The gate of a tool call: `blocked`/`permission_required` with a permission decision
    /// naming [`COMMAND`] that can be answered `allow`.
    fn expect_gate(&self) -> Value {
        let v = self.wait("the permission gate", |v| v["lifecycle"] == "blocked");
        let d = &v["pending_decision"];
        if v["attention"] != "permission_required"
            || d["kind"] != "permission"
            || !d["prompt"].as_str().unwrap_or("").contains(COMMAND)
        {
            self.fail("expected blocked/permission_required with a decision naming the command");
        }
        // The hook can come before the dialog takes keys. Codex and Gemini title their
        // window "Action Required" once it shows (AGENTS-REFERENCE.md); Claude fires
        // PermissionRequest as its dialog opens.
        if self.cli == Cli::Claude {
            std::thread::sleep(Duration::from_millis(500));
        } else {
            self.wait("the dialog on screen", |v| {
                v["title"]
                    .as_str()
                    .is_some_and(|t| t.contains("Action Required"))
            });
        }
        v
    }

    /// After an approved tool call: the turn ended with [`DONE`], the decision is gone,
    /// the command ran in the project and its result reached the model.
    fn expect_tool_ran(&self, attention: &str) -> Value {
        let v = self.wait("the turn after the tool", |v| v["lifecycle"] == "done");
        self.expect(&v, "done", attention, Some(DONE));
        if !v["pending_decision"].is_null() {
            self.fail("the decision is still open");
        }
        let out = std::fs::read_to_string(self.home.project.join("out.txt")).unwrap_or_default();
        if out != "attend-e2e\n" {
            self.fail(&format!("the approved command did not run: {out:?}"));
        }
        v
    }

    /// Waits until the pane's process exited; asserts exit code 0.
    fn expect_exit_0(&self) -> Value {
        let v = self.wait("the process exit", |v| v["live"]["state"] == "exited");
        if v["live"]["code"] != 0 || !v["live"]["signal"].is_null() {
            self.fail("expected exit code 0");
        }
        v
    }
}

/// Also records every `event` payload: a second hook command beside Attend's in the CLI's
/// `settings.json` (Claude, Gemini), to count what the CLI fired.
fn record_also(home: &AgentHome, event: &str) -> HookRecorder {
    let recorder = HookRecorder::new(home.dir.path().join(format!("recorded-{event}")));
    let path = home.config_dir().join("settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let groups = settings["hooks"][event]
        .as_array_mut()
        .expect("install-hooks registered the event");
    groups.push(
        json!({"hooks": [{"type": "command", "command": recorder.command(), "timeout": 5000}]}),
    );
    std::fs::write(&path, serde_json::to_string_pretty(&settings).unwrap()).unwrap();
    recorder
}

/// Codex: wraps the `notify` argv that install-hooks wrote so that each payload (the last
/// argument) is also recorded before the installed command runs with the same arguments,
/// and its exit status after that command returned (see
/// [`Scenario::wait_notifies_delivered`]).
fn record_notify(home: &AgentHome) -> HookRecorder {
    let recorder = HookRecorder::new(home.dir.path().join("recorded-notify"));
    let path = home.config_dir().join("config.toml");
    let mut doc: toml_edit::DocumentMut = std::fs::read_to_string(&path).unwrap().parse().unwrap();
    let installed: Vec<String> = doc["notify"]
        .as_array()
        .expect("install-hooks set notify")
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    // `FILE.json`: the payload, before the hook; `FILE.done`: the hook's exit status, after
    // it returned.
    let script = format!(
        "for a; do last=$a; done; f='{}'/$(date +%s%N)-$$; printf '%s' \"$last\" > \"$f.tmp\" && mv \"$f.tmp\" \"$f.json\"; \"$@\"; s=$?; printf '%s' $s > \"$f.tmp\" && mv \"$f.tmp\" \"$f.done\"; exit $s",
        recorder.dir.display()
    );
    let mut argv = toml_edit::Array::new();
    for a in ["sh", "-c", &script, "sh"] {
        argv.push(a);
    }
    for a in &installed {
        argv.push(a.as_str());
    }
    doc["notify"] = toml_edit::value(argv);
    std::fs::write(&path, doc.to_string()).unwrap();
    recorder
}

fn text(s: &str) -> Reply {
    Reply::text(s)
}

/// A decision.resolved event among `events` and how it was resolved.
fn resolutions(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["kind"] == "decision.resolved")
        .map(|e| e["how"].as_str().unwrap_or("").to_string())
        .collect()
}

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
/// terminal). An attached pane is focused (CONTRACT §3), so the turn's end counts as seen
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
/// the decision is resolved as answered, and the pane is no longer blocked.
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
    s.expect_gate();
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

/// Edits the JSON file at `path` with `edit`.
fn edit_json(path: &std::path::Path, edit: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

impl Scenario {
    /// A dialog no hook names is up: blocked/input_required with a question decision from
    /// the screen chrome, the option labels read off the screen.
    fn expect_dialog_question(&self, option: &str) -> Value {
        let v = self.wait("the dialog's question decision", |v| {
            v["pending_decision"]["kind"] == "question"
        });
        let d = &v["pending_decision"];
        self.expect(&v, "blocked", "input_required", d["prompt"].as_str());
        let options: Vec<&str> = d["options"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if !options.contains(&option) {
            self.fail(&format!(
                "the options read off the screen lack {option:?}: {d}"
            ));
        }
        let seq = self.last_seq();
        let decision = self
            .env
            .events()
            .into_iter()
            .rev()
            .find(|e| e["kind"] == "decision.opened" && e["pane"] == self.pane.as_str());
        assert!(
            decision.is_some_and(|e| e["source"] == "needs-input-chrome:screen.chrome"),
            "opened by the screen chrome (seq {seq})"
        );
        v
    }

    /// `attend answer PANE choice`, then the decision resolved as answered and the dialog
    /// gone from the screen.
    fn answer_dialog(&self, choice: &str, question: &str) {
        let before = self.last_seq();
        self.attend(&["answer", &self.pane, choice]);
        let screen = || {
            self.env
                .attend1()
                .get_screen(&self.pane)
                .unwrap_or_default()
        };
        let deadline = Instant::now() + STEP;
        while screen().contains(question) {
            if Instant::now() > deadline {
                self.fail(&format!("the dialog stayed after `answer {choice}`"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let how = resolutions(&self.events_since(before));
        assert_eq!(how, vec!["answered"], "resolved once, by the answer");
    }
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
