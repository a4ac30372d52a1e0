//! A real agent CLI inside an Attend pane, for the real-agent scenario tests
//! (docs/real-agents.md): the daemon on a private bus, the scripted model server on
//! 127.0.0.1, the CLI's isolated home with the hooks `attend install-hooks` writes, and
//! the pane (`attend run`, 40×120). Every step is asserted through `attend show --json`.
#![allow(dead_code)]

use super::agents::{
    require, tag_event, type_then_enter, AgentHome, Cli, HookRecorder, CI_MARKERS,
};
use super::model_server::{ModelServer, Reply};
use super::Env;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Generous bound for one step (a CLI starting on a loaded 2-core machine included).
pub const STEP: Duration = Duration::from_secs(30);

/// [`STEP`] for OpenCode: its start burns about 13 s of CPU (and its first prompt starts
/// its project instance): with two of them at once on a loaded 2-core machine a step
/// took over 30 s. A bound, not a wait: a quick step returns at once.
pub const OPENCODE_STEP: Duration = Duration::from_secs(90);

pub const FIRST: &str = "Hello from the scripted model.";
pub const DONE: &str = "Done: the file is written.";
pub const COMMAND: &str = "echo attend-e2e > out.txt";

/// One real CLI in an Attend pane: the daemon and its bus, the scripted model, the CLI's
/// home, the pane.
pub struct Scenario {
    pub name: &'static str,
    pub cli: Cli,
    pub env: Env,
    pub server: ModelServer,
    pub home: AgentHome,
    pub pane: String,
    /// A recorder of the SessionEnd payloads (every CLI but Codex; Copilot's
    /// `sessionEnd`).
    pub session_ends: Option<HookRecorder>,
    /// A recorder of Codex's `notify` payloads.
    pub notifies: Option<HookRecorder>,
    pub started: Instant,
    /// How the daemon was started ([`Options::daemon_vars`], [`Options::own_group`],
    /// [`Options::notifications`]), for [`Scenario::start_daemon_again`].
    daemon: (&'static [(&'static str, &'static str)], bool, bool),
}

impl Scenario {
    /// Starts a daemon, the model server with `script`, installs the hooks with
    /// `attend install-hooks` into the CLI's home, and runs the interactive CLI in a
    /// 40×120 Attend pane. `None` (after `SKIPPED: …`) when the CLI is unavailable.
    pub fn start(name: &'static str, cli: Cli, script: Vec<Reply>) -> Option<Scenario> {
        Scenario::start_with(name, cli, script, |_| {})
    }

    /// [`Scenario::start`] with `prepare` run on the CLI's home before the launch.
    pub fn start_with(
        name: &'static str,
        cli: Cli,
        script: Vec<Reply>,
        prepare: impl FnOnce(&AgentHome),
    ) -> Option<Scenario> {
        Scenario::start_opts(name, cli, script, Options::default(), prepare)
    }

    /// [`Scenario::start_with`] with the set-up chosen: without `options.install_hooks`
    /// the CLI's home gets no hooks at all (the pane reports through the hooks Attend
    /// passes on its command line, docs/adapters.md "Hooks for panes Attend starts"),
    /// and there are no SessionEnd or notify recorders.
    pub fn start_opts(
        name: &'static str,
        cli: Cli,
        script: Vec<Reply>,
        options: Options,
        prepare: impl FnOnce(&AgentHome),
    ) -> Option<Scenario> {
        let binary = require(cli)?;
        let started = Instant::now();
        let mut env = Env::new();
        let daemon = (
            options.daemon_vars,
            options.own_group,
            options.notifications,
        );
        env.start_daemon_as(daemon_args(options.notifications), daemon.0, daemon.1);
        let server = ModelServer::start(script);
        let home = AgentHome::new(cli, binary, &server);
        prepare(&home);
        let (session_ends, notifies) = if options.install_hooks {
            install_hooks(&env, &home);
            if let Some(after) = options.after_install {
                after(&home);
            }
            (
                // OpenCode, Kilo and pi have no hook commands to record beside Attend's
                // (and OpenCode and Kilo no session end event); Cline has no session end
                // event.
                // aider has none at all; Hermes's session end is `on_session_finalize`,
                // not recorded.
                (!matches!(
                    cli,
                    Cli::Codex
                        | Cli::OpenCode
                        | Cli::Kilo
                        | Cli::Pi
                        | Cli::Cline
                        | Cli::Omp
                        | Cli::Continue
                        | Cli::Grok
                        | Cli::Aider
                        | Cli::Hermes
                ))
                .then(|| record_also(&home, session_end(cli))),
                (cli == Cli::Codex).then(|| record_notify(&home)),
            )
        } else {
            (None, None)
        };
        let mut launch = home.launch();
        if cli == Cli::Codex && options.install_hooks {
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
        let mut run = env.cmd();
        if options.on_path {
            // The CLI by name, its directory first on PATH, the launch's variables in the
            // pane's own environment: what a resume argv (`claude --resume <id>`) needs.
            let dir = home.binary.parent().expect("the binary's directory");
            for (k, v) in &launch.env {
                let v = match k.as_str() {
                    "PATH" => format!("{}:{v}", dir.display()),
                    _ => v.clone(),
                };
                run.env(k, v);
            }
            for marker in CI_MARKERS {
                run.env_remove(marker);
            }
            args.push(cli.name().into());
            args.extend(launch.args.iter().cloned());
        } else {
            args.extend(launch.env_overlay_argv());
        }
        let out = run
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
            .resize(&pane, options.size.0, options.size.1)
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
            daemon,
        })
    }

    /// Starts the daemon again as [`Scenario::start_opts`] started it (after a test
    /// stopped or killed it) and waits until it is ready; its pid.
    pub fn start_daemon_again(&mut self) -> u32 {
        let (vars, own_group, notifications) = self.daemon;
        self.env
            .start_daemon_as(daemon_args(notifications), vars, own_group)
    }

    pub fn show(&self) -> Value {
        self.env.show(&self.pane)
    }

    /// Panics with `what`, the pane, its screen, its events, the model server's log and
    /// the daemon's.
    pub fn fail(&self, what: &str) -> ! {
        let events: Vec<String> = self.env.events().iter().map(|e| e.to_string()).collect();
        let screen = self.env.attend1().get_screen(&self.pane);
        panic!(
            "{}: {what}\n--- pane ---\n{:#}\n--- screen ---\n{}\n--- events ---\n{}\n--- model server ---\n{}\n--- daemon log ---\n{}",
            self.name,
            self.show(),
            screen.unwrap_or_else(|e| format!("(no screen: {e})")),
            events.join("\n"),
            self.server.summary(),
            self.env.daemon_log()
        )
    }

    /// Waits until `attend explain` names `want` (the chrome reads the screen a moment
    /// after a dialog is drawn), at most one [`Scenario::step`]; fails with the last
    /// explanation.
    pub fn wait_explain(&self, want: &str) {
        let deadline = Instant::now() + self.step();
        loop {
            let explain = self.attend(&["explain", &self.pane]);
            if explain.contains(want) {
                return;
            }
            if Instant::now() > deadline {
                self.fail(&format!("explain never named {want:?}:\n{explain}"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The bound of one step: [`STEP`], [`OPENCODE_STEP`] for OpenCode and its fork Kilo,
    /// and for aider and Hermes Agent (Python CLIs whose start-up imports took over 30 s
    /// with seven of them starting at once on a loaded machine).
    pub fn step(&self) -> Duration {
        if matches!(
            self.cli,
            Cli::OpenCode | Cli::Kilo | Cli::Aider | Cli::Hermes | Cli::MastraCode
        ) {
            OPENCODE_STEP
        } else {
            STEP
        }
    }

    /// Polls the pane until `cond` holds (within [`Scenario::step`]); returns that state.
    pub fn wait(&self, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + self.step();
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
    pub fn wait_notifies_delivered(&self) {
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
    pub fn expect(&self, v: &Value, lifecycle: &str, attention: &str, message: Option<&str>) {
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
    pub fn attend(&self, args: &[&str]) -> String {
        let out = self.env.attend(args);
        if !out.status.success() {
            self.fail(&format!(
                "attend {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        String::from_utf8(out.stdout).unwrap()
    }

    /// Types `text` into the pane with `attend send`, then Enter as a separate write once
    /// the CLI has drawn the text ([`type_then_enter`]).
    pub fn prompt(&self, text: &str) {
        let screen = || {
            self.env
                .attend1()
                .get_screen(&self.pane)
                .unwrap_or_default()
        };
        type_then_enter(
            text,
            screen,
            || {
                self.attend(&["send", &self.pane, text]);
            },
            || {
                self.attend(&["send", &self.pane, "", "--enter"]);
            },
        );
    }

    /// Waits until the CLI shows its prompt: its session started (Claude and Gemini fire
    /// SessionStart at launch) or its window title is set, then a moment for the input
    /// box to take keys. Qwen Code fires SessionStart while it still initializes (a
    /// spinner where its input box goes; keys typed meanwhile are lost): for it, also
    /// until its input box is drawn; OpenCode (no session before the first prompt) until
    /// its input box's footer is. Copilot starts its session with the first prompt and
    /// loads its hooks after it drew its input box (`● Loading: 15 hooks` in the status
    /// row): for it, until the status row is the idle one.
    pub fn wait_ready(&self) {
        // Kimi creates its session (SessionStart) with the first prompt and sets no
        // window title: its input box is the sign.
        if self.cli == Cli::Kimi {
            self.wait_screen("Kimi's input box", |s| s.contains("│ >"));
            std::thread::sleep(Duration::from_millis(1500));
            return;
        }
        // Continue and Grok report nothing (no hook fires, no title): their input box is
        // the sign.
        if matches!(self.cli, Cli::Continue | Cli::Grok) {
            let placeholder = match self.cli {
                Cli::Continue => "Ask anything",
                _ => "Ask me anything",
            };
            self.wait_screen("the input box", |s| s.contains(placeholder));
            std::thread::sleep(Duration::from_millis(1500));
            return;
        }
        // aider reports nothing before its first turn's end: its input prompt is the
        // sign. Hermes starts its session (on_session_start) at the first prompt.
        if self.cli == Cli::Aider {
            self.wait_screen("aider's input prompt", super::agents::aider::at_prompt);
            std::thread::sleep(Duration::from_millis(1000));
            return;
        }
        if self.cli == Cli::Hermes {
            self.wait_screen("Hermes's welcome", |s| {
                s.contains("Welcome to Hermes Agent")
            });
            std::thread::sleep(Duration::from_millis(1500));
            return;
        }
        // Cline starts its session (TaskStart) with the first prompt; its status rows
        // under the input name the model once it is up.
        if self.cli == Cli::Cline {
            self.wait_screen("Cline's status rows", |s| {
                s.contains(super::agents::cline::MODEL) && s.contains("(Shift+Tab)")
            });
            std::thread::sleep(Duration::from_millis(1500));
            return;
        }
        self.wait("the CLI is up", |v| {
            !v["session_id"].is_null() || v["title"].as_str().is_some_and(|t| !t.is_empty())
        });
        match self.cli {
            Cli::Qwen => {
                self.wait_screen("Qwen's input box", |s| s.contains("Type your message"));
            }
            Cli::OpenCode | Cli::Kilo => {
                self.wait_screen("OpenCode's input box", |s| s.contains("ctrl+p commands"));
            }
            Cli::Omp => {
                // Its status line names the model once the editor is up.
                self.wait_screen("omp's status line", |s| {
                    s.contains(super::agents::omp::MODEL)
                });
            }
            Cli::Pi => {
                // Its footer names the model once the editor is up.
                self.wait_screen("pi's footer", |s| s.contains(super::agents::pi::MODEL));
            }
            // SessionStart fires as its welcome is drawn; the input's mode row comes last.
            Cli::Letta => {
                self.wait_screen("Letta's mode row", |s| s.contains("(shift+tab to cycle)"));
            }
            // Its status row names the mode and the model once its editor is up.
            Cli::MastraCode => {
                self.wait_screen("MastraCode's status row", |s| {
                    s.contains(super::agents::mastracode::STATUS_ROW)
                });
            }
            Cli::Copilot => {
                self.wait_screen("Copilot's idle status row", |s| {
                    s.trim_end()
                        .lines()
                        .last()
                        .is_some_and(|l| l.contains("/ commands"))
                });
            }
            _ => {}
        }
        std::thread::sleep(Duration::from_millis(1500));
    }

    /// The events of this pane after `after_seq`.
    pub fn events_since(&self, after_seq: u64) -> Vec<Value> {
        self.env
            .events()
            .into_iter()
            .filter(|e| e["pane"] == self.pane.as_str() && e["seq"].as_u64() > Some(after_seq))
            .collect()
    }

    /// The body of the last request the scripted model received (empty before any): what
    /// the agent sent after an answer (a tool's result) shows the answer reached it.
    pub fn last_request(&self) -> String {
        self.server
            .turns()
            .last()
            .map(|r| r.body.clone())
            .unwrap_or_default()
    }

    pub fn last_seq(&self) -> u64 {
        self.env
            .events()
            .last()
            .and_then(|e| e["seq"].as_u64())
            .unwrap_or(0)
    }

    /// The gate as its hook opened it: blocked/permission_required with a decision naming
    /// [`COMMAND`], at once (the dialog may not take keys yet).
    pub fn expect_gate_hook(&self) -> Value {
        // The self-report may open the decision a moment before the hook names the
        // command (one decision, enriched): wait for the named gate.
        let v = self.wait("the permission gate", |v| {
            v["lifecycle"] == "blocked"
                && v["pending_decision"]["prompt"]
                    .as_str()
                    .is_some_and(|p| p.contains(COMMAND))
        });
        let d = &v["pending_decision"];
        if v["attention"] != "permission_required"
            || d["kind"] != "permission"
            || !d["prompt"].as_str().unwrap_or("").contains(COMMAND)
        {
            self.fail("expected blocked/permission_required with a decision naming the command");
        }
        v
    }

    /// The gate of a tool call: `blocked`/`permission_required` with a permission decision
    /// naming [`COMMAND`] that can be answered `allow`.
    pub fn expect_gate(&self) -> Value {
        let v = self.expect_gate_hook();
        // The hook can come before the dialog takes keys. Codex and Gemini title their
        // window "Action Required" once it shows, Qwen puts `✳` before its title
        // (docs/adapters.md); Claude fires PermissionRequest as its dialog opens.
        if self.cli == Cli::Claude {
            std::thread::sleep(Duration::from_millis(500));
        } else if matches!(self.cli, Cli::OpenCode | Cli::Kilo) {
            // The plugin reports the gate as the dialog opens; it takes keys once drawn.
            self.wait_screen("the dialog's options", |s| {
                s.contains("Allow once") && s.contains("enter confirm")
            });
        } else if self.cli == Cli::Qwen {
            // The title changes a moment before the dialog's options are drawn.
            self.wait("the dialog on screen", |v| {
                v["title"].as_str().is_some_and(|t| t.starts_with('✳'))
            });
            self.wait_screen("Qwen's dialog with its options", |s| {
                s.contains("No, suggest changes") && s.contains("Waiting for user")
            });
        } else if self.cli == Cli::Continue {
            self.wait_screen("Continue's approval dialog", |s| {
                s.contains("Would you like to continue?") && s.contains("Continue (tab)")
            });
        } else if self.cli == Cli::Grok {
            self.wait_screen("Grok's confirmation", |s| {
                s.contains("Do you want to proceed with this operation?")
                    && s.contains("Esc cancel")
            });
        } else if self.cli == Cli::Omp {
            // The extension reports the approval as omp starts drawing its dialog.
            self.wait_screen("omp's approval dialog", |s| {
                s.contains("Allow tool: bash") && s.contains("enter select")
            });
        } else if self.cli == Cli::Kimi {
            // PermissionRequest fires as the dialog opens; it sets no window title.
            self.wait_screen("Kimi's approval with its options", |s| {
                s.contains("1. Approve once") && s.contains("↵ confirm")
            });
        } else if self.cli == Cli::MastraCode {
            // PermissionRequest fires as the overlay opens; its title does not change.
            self.wait_screen("MastraCode's approval overlay", |s| {
                s.contains("⚠ Tool Approval Required") && s.contains("Allow? yes  no")
            });
        } else if self.cli == Cli::Copilot {
            // Its title does not change; the notification hook comes with the dialog.
            self.wait_screen("Copilot's approval dialog", |s| {
                s.contains("Do you want to run this command?") && s.ends_with('╯')
            });
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
    pub fn expect_tool_ran(&self, attention: &str) -> Value {
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

    /// Polls the pane's screen until `check` holds (within [`Scenario::step`]); returns
    /// that screen.
    pub fn wait_screen(&self, what: &str, check: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + self.step();
        loop {
            let screen = self
                .env
                .attend1()
                .get_screen(&self.pane)
                .unwrap_or_default();
            if check(screen.trim_end()) {
                return screen;
            }
            if Instant::now() >= deadline {
                self.fail(&format!("the screen never showed {what}"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until the pane's process exited; asserts exit code 0.
    pub fn expect_exit_0(&self) -> Value {
        let v = self.wait("the process exit", |v| v["live"]["state"] == "exited");
        if v["live"]["code"] != 0 || !v["live"]["signal"].is_null() {
            self.fail("expected exit code 0");
        }
        v
    }
}

/// The daemon's arguments: no tray, and no notifications unless `notifications`.
fn daemon_args(notifications: bool) -> &'static [&'static str] {
    if notifications {
        &["--no-tray"]
    } else {
        &["--no-tray", "--no-notifications"]
    }
}

/// How [`Scenario::start_opts`] sets a scenario up; [`Options::default`] is what
/// [`Scenario::start`] does (hooks installed, everything else off).
pub struct Options {
    /// Run `attend install-hooks` for the CLI in its home first (the default).
    pub install_hooks: bool,
    /// Variables for the daemon's environment (e.g. `RUST_LOG`).
    pub daemon_vars: &'static [(&'static str, &'static str)],
    /// Run the CLI by its name with its directory on `PATH` and the launch's variables in
    /// the pane's environment (not an `env` prefix), so that `attend resume` can start the
    /// session's resume argv the same way.
    pub on_path: bool,
    /// Start the daemon in a process group of its own, as a service manager does (a test
    /// can then kill the whole group, `Env::start_daemon_as`).
    pub own_group: bool,
    /// Let the daemon send desktop notifications (to whatever server the test puts on
    /// the bus); off by default (`--no-notifications`).
    pub notifications: bool,
    /// Run on the CLI's home once `attend install-hooks` wrote into it (before the CLI
    /// starts).
    pub after_install: Option<fn(&AgentHome)>,
    /// The pane's size as (rows, columns); default 40×120.
    pub size: (u16, u16),
}

impl Default for Options {
    fn default() -> Options {
        Options {
            install_hooks: true,
            daemon_vars: &[],
            on_path: false,
            own_group: false,
            notifications: false,
            after_install: None,
            size: (40, 120),
        }
    }
}

/// `attend install-hooks <cli>` into the CLI's home (user scope).
pub fn install_hooks(env: &Env, home: &AgentHome) {
    let out = env
        .cmd()
        .args(["install-hooks", home.cli.name()])
        .env("HOME", &home.home)
        .env("CODEX_HOME", home.config_dir())
        .env("XDG_CONFIG_HOME", home.home.join(".config"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("CLINE_DIR")
        .current_dir(&home.project)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "install-hooks {}: {}",
        home.cli.name(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The event that ends a CLI's session: `SessionEnd`, Copilot's `sessionEnd`.
pub fn session_end(cli: Cli) -> &'static str {
    match cli {
        Cli::Copilot => "sessionEnd",
        _ => "SessionEnd",
    }
}

/// Also records every `event` payload: a second hook command beside Attend's in the CLI's
/// `settings.json` (Claude, Gemini, Qwen; Copilot's flat entry, the event recorded with
/// [`tag_event`]), to count what the CLI fired.
pub fn record_also(home: &AgentHome, event: &str) -> HookRecorder {
    let recorder = HookRecorder::new(home.dir.path().join(format!("recorded-{event}")));
    if home.cli == Cli::Kimi {
        super::agents::kimi::record_also(&home.config_dir(), &recorder, event);
        return recorder;
    }
    if home.cli == Cli::MastraCode {
        super::agents::mastracode::add_hooks(&home.config_dir(), &[event], &recorder.command());
        return recorder;
    }
    let path = home.config_dir().join("settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let groups = settings["hooks"][event]
        .as_array_mut()
        .expect("install-hooks registered the event");
    groups.push(match home.cli {
        Cli::Copilot => json!({"type": "command", "bash": tag_event(&recorder.command(), event), "timeoutSec": 5}),
        _ => json!({"hooks": [{"type": "command", "command": recorder.command(), "timeout": 5000}]}),
    });
    std::fs::write(&path, serde_json::to_string_pretty(&settings).unwrap()).unwrap();
    recorder
}

/// Codex: wraps the `notify` argv that install-hooks wrote so that each payload (the last
/// argument) is also recorded before the installed command runs with the same arguments,
/// and its exit status after that command returned (see
/// [`Scenario::wait_notifies_delivered`]).
pub fn record_notify(home: &AgentHome) -> HookRecorder {
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

pub fn text(s: &str) -> Reply {
    Reply::text(s)
}

/// A decision.resolved event among `events` and how it was resolved.
pub fn resolutions(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["kind"] == "decision.resolved")
        .map(|e| e["how"].as_str().unwrap_or("").to_string())
        .collect()
}

/// Edits the JSON file at `path` with `edit`.
pub fn edit_json(path: &std::path::Path, edit: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

impl Scenario {
    /// A dialog no hook names is up: blocked/input_required with a question decision from
    /// the screen chrome, the option labels read off the screen.
    pub fn expect_dialog_question(&self, option: &str) -> Value {
        self.expect_question_opened_by(
            option,
            &["needs-input-chrome:screen.chrome", "self-report:"],
        )
    }

    /// The open question offers `option` (read off the screen) and the pane is
    /// blocked/input_required; its `decision.opened` came from a source that starts with
    /// one of `opened_by` (a hook that names no options and the chrome that adds them
    /// are one decision: docs/lifecycle-attention.md#one-verdict).
    pub fn expect_question_opened_by(&self, option: &str, opened_by: &[&str]) -> Value {
        // The self-report (or a hook) may open the question a moment before the chrome
        // reads its options (one decision, enriched): wait for the options.
        let v = self.wait("the dialog's question decision", |v| {
            v["pending_decision"]["kind"] == "question"
                && v["pending_decision"]["options"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|o| o == option))
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
        // Opened by the chrome, or by the agent's self-report a moment before the chrome
        // read the dialog (one dialog, one decision: the chrome's options above enriched
        // it; docs/lifecycle-attention.md#one-verdict).
        let source = decision
            .as_ref()
            .and_then(|e| e["source"].as_str())
            .unwrap_or("")
            .to_string();
        assert!(
            opened_by.iter().any(|o| source.starts_with(o)),
            "opened by one of {opened_by:?}, not {source:?} (seq {seq})"
        );
        v
    }

    /// `attend answer PANE choice`, then the decision resolved as answered and the dialog
    /// gone from the screen.
    pub fn answer_dialog(&self, choice: &str, question: &str) {
        // Claude Code 2.1.332 ignores keys for a moment after a dialog opens (a guard
        // against keys meant for the prompt); a person is never that fast. (Were the keys
        // swallowed, the pane would stay truthful: the dialog still drawn after
        // `ANSWER_SETTLE_MS` opens its question again.)
        std::thread::sleep(Duration::from_millis(1000));
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
        if how != ["answered"] {
            self.fail(&format!(
                "resolved once, by the answer (`answer {choice}` after seq {before}); got {how:?}"
            ));
        }
    }
}

/// The daemon variables that make it log `hook applied` per applied hook delivery
/// (`src/service/owner/hooks.rs`), for [`Scenario::wait_applied`].
pub const HOOKS_LOGGED: &[(&str, &str)] =
    &[("RUST_LOG", "info,attend::service::owner::hooks=debug")];

impl Scenario {
    /// How often the daemon applied a hook `event` to the pane (started with
    /// [`HOOKS_LOGGED`]).
    pub fn applied(&self, event: &str) -> usize {
        let pane = format!("pane=Some(\"{}\")", self.pane);
        let event = format!("event={event} ");
        self.env
            .daemon_log()
            .lines()
            .filter(|l| l.contains("hook applied") && l.contains(&pane) && l.contains(&event))
            .count()
    }

    /// Waits (within [`STEP`]) until the daemon applied `event` to the pane more than
    /// `before` times.
    pub fn wait_applied(&self, event: &str, before: usize) {
        let deadline = Instant::now() + STEP;
        while self.applied(event) <= before {
            if Instant::now() > deadline {
                self.fail(&format!("no {event} hook applied"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Scenario {
    /// Waits for the CLI's prompt, types `prompt` and waits for the permission gate its
    /// scripted tool call opens ([`Scenario::expect_gate`]); returns that pane state.
    pub fn prompt_to_the_gate(&self, prompt: &str) -> Value {
        self.wait_ready();
        self.prompt(prompt);
        self.expect_gate()
    }

    /// Scenarios 1 and 3's turn: waits for the CLI's prompt, says hello, and the turn ends
    /// done/unread with the model's text ([`FIRST`]); returns that pane state.
    pub fn hello_turn_done(&self) -> Value {
        self.wait_ready();
        self.prompt("say hello");
        let v = self.wait("the turn's end", |v| v["lifecycle"] == "done");
        self.expect(&v, "done", "unread", Some(FIRST));
        v
    }

    /// Scenario 2's answer: `attend answer PANE allow` resolves the open gate at once
    /// (nothing required any more), the tool runs and the turn ends done with [`DONE`]
    /// ([`Scenario::expect_tool_ran`]), and the only decision resolved after `before` is
    /// the answered one.
    pub fn allow_and_expect_the_tool_ran(&self, before: u64) -> Value {
        self.attend(&["answer", &self.pane, "allow"]);
        let v = self.show();
        if !v["pending_decision"].is_null() || v["attention"] == "permission_required" {
            self.fail("answering resolves the decision at once");
        }
        let v = self.expect_tool_ran("unread");
        assert_eq!(resolutions(&self.events_since(before)), ["answered"]);
        v
    }

    /// Scenario 3 after its turn ended done/unread with [`FIRST`] (docs/real-agents.md):
    /// one notification was shown; the human reviews the pane (`attend seen`: done/none)
    /// and quits the CLI by typing `quit` (exit 0, its session end recorded); the pane
    /// stays done/none — no lifecycle event, no attention — and a completion on another
    /// pane (`attend ARGS` with `marker` on stdin) is the only other notification.
    /// Returns the recorded session end's payload (`Null` without a session-end recorder).
    pub fn review_then_quit(
        &self,
        shown: &std::sync::Mutex<Vec<String>>,
        quit: &str,
        marker_args: &[&str],
        marker: &Value,
    ) -> Value {
        use super::notes::wait_notes;
        wait_notes(self, shown, 1);
        self.attend(&["seen", &self.pane]);
        self.expect(&self.show(), "done", "none", Some(FIRST));
        let before = self.last_seq();
        self.prompt(quit);
        let v = self.expect_exit_0();
        self.expect(&v, "done", "none", Some(FIRST));
        // A CLI without a session-end hook (OpenCode) records none: `Null`.
        let end = match self.session_ends.as_ref() {
            Some(ends) => ends
                .wait_for(session_end(self.cli), 0, STEP)
                .unwrap_or_else(|e| self.fail(&e)),
            None => Value::Null,
        };
        let kinds: Vec<String> = self
            .events_since(before)
            .iter()
            .map(|e| e["kind"].as_str().unwrap_or("").to_string())
            .collect();
        assert!(
            !kinds
                .iter()
                .any(|k| k.starts_with("agent.") || k == "attention.created"),
            "the reviewed pane stays quiet: {kinds:?}"
        );
        // The marker for "no second notification": a completion on another pane after the
        // exit is notified, and nothing came between.
        let out = self
            .env
            .attend_with(marker_args, marker.to_string().as_bytes(), &[]);
        assert!(out.status.success(), "{out:?}");
        wait_notes(self, shown, 2);
        let notes = shown.lock().unwrap().clone();
        assert!(notes[1].contains("marker"), "{notes:?}");
        assert_eq!(notes.len(), 2, "one notification for the pane: {notes:?}");
        end
    }

    /// Scenario 4 at the CLI's open gate: `kill -9` of the pane's program (from this
    /// process, not `attend kill`) → exited by signal 9, failed/error, the decision dropped
    /// (abandoned), and the tool's command never ran (no `out.txt` in the project).
    /// Returns the program's session as it was before the kill (its pid first).
    pub fn kill_9_at_the_gate(&self) -> Vec<u32> {
        let before = self.last_seq();
        let pid = super::program_of(&self.env.state_dir(), &self.pane)
            .unwrap_or_else(|| self.fail("no program pid"));
        let mut members = vec![pid];
        members.extend(
            super::session_members(pid)
                .into_iter()
                .filter(|m| *m != pid),
        );
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid as i32),
            nix::sys::signal::Signal::SIGKILL,
        )
        .unwrap();
        let v = self.wait("the crash", |v| v["live"]["state"] == "exited");
        assert_eq!(v["live"]["signal"], 9, "{v}");
        assert_eq!(v["lifecycle"], "failed", "{v}");
        assert_eq!(v["attention"], "error", "a kill from outside Attend: {v}");
        assert!(
            v["pending_decision"].is_null(),
            "the decision is dropped: {v}"
        );
        assert_eq!(resolutions(&self.events_since(before)), ["abandoned"]);
        assert!(
            !std::fs::read_to_string(self.home.project.join("out.txt"))
                .is_ok_and(|t| !t.is_empty()),
            "the command never ran"
        );
        members
    }
}

/// True when the decision `d`'s options begin with `first`: a hook's options, which the
/// chrome's reading of the dialog may follow with the rows it draws after them
/// (docs/lifecycle-attention.md#answer).
pub fn options_begin_with(d: &Value, first: &[&str]) -> bool {
    d["options"]
        .as_array()
        .is_some_and(|o| o.len() >= first.len() && first.iter().zip(o).all(|(f, o)| o == f))
}
