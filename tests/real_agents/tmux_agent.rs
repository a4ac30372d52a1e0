//! What the real-agent tests of agents in the user's tmux share (docs/tmux.md): a daemon
//! that notifies through the real `dunst` under Xvfb (tests/desktop/mod.rs), the scripted
//! model, a real CLI started in a pane of a tmux server of the test's own (its
//! `TMUX_TMPDIR`, which the daemon watches), the Attend pane that follows it, and the
//! tmux commands the user would type.

use crate::desktop::{Desk, NotifyCalls};
use crate::support;

use serde_json::Value;
use std::time::{Duration, Instant};
use support::agents::{require, type_then_enter, AgentHome, Cli};
use support::model_server::{ModelServer, Reply};
use support::scenario::{install_hooks, COMMAND, STEP};

/// The text Claude Code's input box shows once it takes keys.
pub const CLAUDE_READY: &str = "for shortcuts";

/// One real agent in a tmux pane followed by a notifying daemon.
pub struct TmuxAgent {
    pub env: Desk,
    pub calls: NotifyCalls,
    pub server: ModelServer,
    pub home: AgentHome,
    /// The tmux pane (`%N`).
    pub tmux_pane: String,
    /// The Attend pane following it.
    pub pane: String,
    pub started: Instant,
}

impl TmuxAgent {
    /// Starts `cli` (None when it is not installed: the test skips, see
    /// [`require`]) with `script` in a 120×40 tmux pane; with `hooks`, Attend's hooks are
    /// installed in its home first and reach the daemon. Waits until the daemon follows
    /// the pane.
    pub fn start(cli: Cli, script: Vec<Reply>, hooks: bool) -> Option<TmuxAgent> {
        let binary = require(cli)?;
        let started = Instant::now();
        let mut env = Desk::with_display();
        env.start_dunst();
        let calls = NotifyCalls::start(&env);
        env.start_daemon(&["--no-tray"]);
        env.timeout = STEP;
        let server = ModelServer::start(script);
        let home = AgentHome::new(cli, binary, &server);
        let mut launch = home.launch();
        if hooks {
            install_hooks(&env, &home);
            // What the user's session gives the hook: the bus and the runtime directory.
            launch.set_env("DBUS_SESSION_BUS_ADDRESS", &env.bus.address);
            launch.set_env("XDG_RUNTIME_DIR", env.path("run").to_str().unwrap());
            launch.set_env("ATTEND_STATE_DIR", env.state_dir().to_str().unwrap());
        }
        launch.set_env("TERM", "tmux-256color");
        let project = home.project.display().to_string();
        let mut args: Vec<String> = [
            "new-session",
            "-d",
            "-s",
            "work",
            "-x",
            "120",
            "-y",
            "40",
            "-c",
            &project,
            "-P",
            "-F",
            "#{pane_id}",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(launch.env_argv());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let tmux_pane = tmux(&env, &args).trim().to_string();
        let mut t = TmuxAgent {
            env,
            calls,
            server,
            home,
            tmux_pane,
            pane: String::new(),
            started,
        };
        let mut pane = String::new();
        t.env.wait_until("the tmux pane followed", || {
            match t.followed() {
                Some(v) => pane = v["id"].as_str().unwrap_or_default().to_string(),
                None => return false,
            }
            true
        });
        t.pane = pane;
        Some(t)
    }

    /// Runs `tmux ARGS` on the test's server; its stdout (panics when tmux fails).
    pub fn tmux(&self, args: &[&str]) -> String {
        tmux(&self.env, args)
    }

    /// The running Attend pane that follows the tmux pane, if any.
    pub fn followed(&self) -> Option<Value> {
        let all: Value = serde_json::from_str(&self.env.ok(&["ls", "--json"])).ok()?;
        all.as_array()?
            .iter()
            .find(|p| {
                p["location"]["pane"] == self.tmux_pane.as_str() && p["live"]["state"] == "running"
            })
            .cloned()
    }

    /// The tmux pane's screen as tmux draws it.
    pub fn screen(&self) -> String {
        tmux(&self.env, &["capture-pane", "-p", "-t", &self.tmux_pane])
    }

    /// Waits until the tmux pane's screen holds `needle`.
    pub fn wait_text(&self, needle: &str) {
        let deadline = Instant::now() + STEP;
        while !self.screen().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "no {needle:?} on the tmux screen:\n{}\n{}",
                self.screen(),
                self.env.daemon_log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Types `text` into the tmux pane as the user would, then Enter.
    pub fn submit(&self, text: &str) {
        type_then_enter(
            text,
            || self.screen(),
            || {
                self.tmux(&["send-keys", "-t", &self.tmux_pane, "-l", text]);
            },
            || {
                self.tmux(&["send-keys", "-t", &self.tmux_pane, "Enter"]);
            },
        );
    }

    /// Waits until the Attend pane satisfies `cond`; its state.
    pub fn wait(&self, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
        self.env.wait_pane(&self.pane, what, cond)
    }

    /// Claude Code started: its input box takes keys. Prompts `prompt` and waits until
    /// the pane is blocked on a decision whose dialog shows `question`; its state. Claude
    /// ignores keys for a moment after a dialog opens (tests/support/agents.rs,
    /// `answer_dialog`): a person would not answer that soon either, so the test waits
    /// 1 s before it answers.
    pub fn to_decision(&self, ready: &str, prompt: &str, question: &str) -> Value {
        self.wait_text(ready);
        std::thread::sleep(Duration::from_millis(500));
        self.submit(prompt);
        self.wait_text(question);
        let mut v = Value::Null;
        let open = support::poll(STEP, || {
            v = self.env.show(&self.pane);
            v["lifecycle"] == "blocked" && !v["pending_decision"].is_null()
        });
        assert!(
            open,
            "no decision: {v:#}\n--- tmux screen ---\n{}\n--- Attend's screen ---\n{}\n\
             --- explain ---\n{}\n--- events ---\n{:#?}\n{}",
            self.screen(),
            self.env
                .attend1()
                .get_screen(&self.pane)
                .unwrap_or_default(),
            String::from_utf8_lossy(&self.env.attend(&["explain", &self.pane]).stdout),
            self.env.events(),
            self.env.daemon_log()
        );
        std::thread::sleep(Duration::from_secs(1));
        v
    }

    /// True once the approved command ran (its file holds what it writes).
    pub fn command_ran(&self) -> bool {
        std::fs::read_to_string(self.home.project.join("out.txt"))
            .is_ok_and(|s| s == "attend-e2e\n")
    }

    /// Waits until the approved command ran.
    pub fn wait_command_ran(&self) {
        self.env
            .wait_until(&format!("`{COMMAND}` ran"), || self.command_ran());
    }

    /// Seconds since the start, for the record (printed by each test).
    pub fn took(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }
}

impl Drop for TmuxAgent {
    fn drop(&mut self) {
        if let Ok(out) = self
            .env
            .program("tmux")
            .args(["-f", "/dev/null", "list-panes", "-a", "-F", "#{pane_pid}"])
            .output()
        {
            crate::support::agents::end_pane_sessions(&String::from_utf8_lossy(&out.stdout));
        }
        let _ = self
            .env
            .program("tmux")
            .args(["-f", "/dev/null", "kill-server"])
            .output();
    }
}

/// Runs `tmux ARGS` with the test's environment (its `TMUX_TMPDIR`); its stdout. Panics
/// when tmux fails.
pub fn tmux(env: &Desk, args: &[&str]) -> String {
    let out = env
        .program("tmux")
        .arg("-f")
        .arg("/dev/null")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "tmux {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
