//! The real Claude Code in a plain tmux session (an external pane: Attend knows it
//! through the hooks `attend install-hooks claude` wrote only), its permission gate
//! answered from Attend (the desktop notification's Allow button, `attend answer`) or at
//! the terminal (docs/decisions/0015-answering-external-gates.md; docs/adapters.md
//! "Answering gates of external agents"). The daemon notifies through Debian's real
//! `dunst` under Xvfb (tests/desktop/mod.rs). The real-agents stage runs it; a missing
//! CLI skips unless `ATTEND_REQUIRE_REAL_AGENTS=1`.

use crate::desktop;
use crate::support;

use desktop::{Desk, NotifyCalls};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::agents::{require, AgentHome, Cli, Tmux};
use support::model_server::{ModelServer, Reply};
use support::scenario::{install_hooks, COMMAND, DONE};

/// Generous bound for one step on a loaded 2-core machine.
const STEP: Duration = Duration::from_secs(30);
const QUESTION: &str = "Do you want to proceed?";

/// A daemon that notifies (dunst under Xvfb), the scripted model (one Bash call, then
/// [`DONE`]), Claude's home with Attend's hooks, and Claude in a plain tmux session whose
/// hooks reach the daemon.
struct Gate {
    env: Desk,
    calls: NotifyCalls,
    _server: ModelServer,
    home: AgentHome,
    term: Tmux,
}

impl Gate {
    fn start() -> Option<Gate> {
        let binary = require(Cli::Claude)?;
        let mut env = Desk::with_display();
        env.start_dunst();
        let calls = NotifyCalls::start(&env);
        env.start_daemon(&["--no-tray"]);
        env.timeout = STEP;
        let server = ModelServer::start(vec![
            Reply::claude_bash(COMMAND, "Write a file"),
            Reply::text(DONE),
        ]);
        let home = AgentHome::new(Cli::Claude, binary, &server);
        install_hooks(&env, &home);
        let mut launch = home.launch();
        // What the user's session gives the hook: the bus and the runtime directory.
        launch.set_env("DBUS_SESSION_BUS_ADDRESS", &env.bus.address);
        launch.set_env("XDG_RUNTIME_DIR", env.path("run").to_str().unwrap());
        launch.set_env("ATTEND_STATE_DIR", env.state_dir().to_str().unwrap());
        let term = Tmux::start(&launch, 120, 40).expect("tmux starts");
        term.wait_for_text("for shortcuts", STEP * 2)
            .expect("Claude starts");
        Some(Gate {
            env,
            calls,
            _server: server,
            home,
            term,
        })
    }

    /// Prompts for the tool call; waits for Claude's own dialog and for the external
    /// pane's open gate in Attend; the pane id.
    fn to_the_gate(&self) -> String {
        self.term.submit("write the file");
        let mut pane = String::new();
        self.env.wait_until("the external pane's gate", || {
            let panes: Vec<Value> =
                serde_json::from_str(&self.env.ok(&["ls", "--json"])).unwrap_or_default();
            match panes
                .iter()
                .find(|p| p["owned"] == false && !p["pending_decision"].is_null())
            {
                Some(p) => {
                    pane = p["id"].as_str().unwrap().to_string();
                    true
                }
                None => false,
            }
        });
        // Claude shows its dialog while the hook waits (measured, docs/adapters.md).
        self.term
            .wait_for_text(QUESTION, STEP)
            .expect("Claude's own dialog shows while the hook waits");
        pane
    }

    /// Waits for the gate's notification: one shown, Attend's last `Notify` a permission.
    fn notified(&self) {
        self.env.wait_until("the gate's notification", || {
            self.env.displayed() == 1
                && self
                    .calls
                    .calls()
                    .last()
                    .is_some_and(|c| c.summary.contains("— permission: Bash"))
        });
    }

    /// Waits until the gate's notification is gone: closed, or (one notification per
    /// pane, docs/desktop-surfaces.md) replaced by the pane's next one, the turn's end.
    fn notification_gone(&self) {
        self.env.wait_until("the gate's notification gone", || {
            self.env.displayed() == 0
                || self
                    .calls
                    .calls()
                    .last()
                    .is_some_and(|c| !c.summary.contains("— permission"))
        });
        assert!(self.env.displayed() <= 1, "one notification per pane");
    }

    /// After an allowed gate: the turn ends done with no open decision, the hook run has
    /// ended and the gate's notification is gone.
    fn turn_ended(&self, pane: &str) {
        let v = self
            .env
            .wait_pane(pane, "the turn's end", |v| v["lifecycle"] == "done");
        assert!(v["pending_decision"].is_null(), "{v}");
        self.env
            .wait_until("the hook run ended", || self.hook_runs().is_empty());
        self.notification_gone();
    }

    fn tool_ran(&self) {
        let out = self.home.project.join("out.txt");
        self.env.wait_until("the approved command ran", || {
            std::fs::read_to_string(&out).is_ok_and(|s| s == "attend-e2e\n")
        });
    }

    /// The hook runs of this test's bus still alive (`attend-hook` processes whose
    /// environment names the bus).
    fn hook_runs(&self) -> Vec<u32> {
        let exe = PathBuf::from(support::attend_bin()).with_file_name("attend-hook");
        let bus = format!("DBUS_SESSION_BUS_ADDRESS={}", self.env.bus.address);
        support::pids()
            .filter(|pid| {
                let dir = Path::new("/proc").join(pid.to_string());
                let cmd = std::fs::read(dir.join("cmdline")).unwrap_or_default();
                let env = std::fs::read(dir.join("environ")).unwrap_or_default();
                cmd.starts_with(exe.as_os_str().as_encoded_bytes())
                    && env.split(|b| *b == 0).any(|v| v == bus.as_bytes())
            })
            .collect()
    }
}

#[test]
fn claude_gate_allowed_on_its_notification_runs_the_tool() {
    let Some(g) = Gate::start() else {
        return;
    };
    let started = Instant::now();
    let pane = g.to_the_gate();
    // The hook run asks to wait a moment after its Hook call: until then Attend cannot
    // answer (NotOwned); a choice the gate does not take is refused with its list.
    g.notified();
    g.env.wait_gate_waiting(&pane);
    // Its Allow button (dunst's context menu picks the action whose line has `allow]`).
    std::fs::write(g.env.path("choice"), "allow]").unwrap();
    assert!(g.env.dunstctl(&["context"]).status.success());
    g.tool_ran();
    g.term
        .wait_for_text("Allowed by PermissionRequest hook", STEP)
        .expect("Claude names the hook's decision");
    g.turn_ended(&pane);
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn claude_gate_answered_at_the_terminal_closes_in_attend_and_ends_the_hook() {
    let Some(g) = Gate::start() else {
        return;
    };
    let started = Instant::now();
    let pane = g.to_the_gate();
    g.notified();
    g.env.wait_gate_waiting(&pane);
    assert!(!g.hook_runs().is_empty(), "the hook run waits");
    // The person at the terminal answers Claude's own dialog ("1. Yes").
    g.term
        .answer_dialog(QUESTION, "1")
        .expect("the dialog takes the terminal's answer");
    g.tool_ran();
    // The decision resolved by the turn's next hook released the waiting run long
    // before its 280 s wait or Claude's 300 s timeout, and closed the notification.
    g.turn_ended(&pane);
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn claude_gate_denied_at_the_terminal_closes_in_attend_and_ends_the_hook() {
    let Some(g) = Gate::start() else {
        return;
    };
    let started = Instant::now();
    let pane = g.to_the_gate();
    g.env.wait_gate_waiting(&pane);
    // "No" is option 3 in 2.1.197 and 4 in 2.1.332: the number as drawn.
    let screen = g.term.screen();
    let no = screen
        .lines()
        .find_map(|l| {
            let l = l.trim_start_matches([' ', '❯']).trim_start();
            l.strip_suffix(". No")
                .or_else(|| l.split_once(". No").map(|(n, _)| n))
                .filter(|n| n.len() == 1)
                .map(str::to_string)
        })
        .unwrap_or_else(|| panic!("no \"No\" option on screen:\n{screen}"));
    g.term
        .answer_dialog(QUESTION, &no)
        .expect("the dialog takes the terminal's answer");
    g.env.wait_pane(&pane, "the decision closes", |v| {
        v["pending_decision"].is_null()
    });
    g.env
        .wait_until("the hook run ended", || g.hook_runs().is_empty());
    assert!(
        !g.home.project.join("out.txt").exists(),
        "the denied command did not run"
    );
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn claude_gate_denied_in_attend_runs_nothing() {
    let Some(g) = Gate::start() else {
        return;
    };
    let started = Instant::now();
    let pane = g.to_the_gate();
    g.env.wait_gate_waiting(&pane);
    g.env.ok(&["answer", &pane, "deny"]);
    // Claude takes the denial: its dialog goes and the command never runs.
    g.term
        .wait_for_screen("the dialog gone", STEP, |s| !s.contains(QUESTION))
        .expect("the hook's denial closes Claude's dialog");
    g.env
        .wait_until("the hook run ended", || g.hook_runs().is_empty());
    assert!(g.env.show(&pane)["pending_decision"].is_null());
    std::thread::sleep(Duration::from_secs(1));
    assert!(
        !g.home.project.join("out.txt").exists(),
        "the denied command did not run"
    );
    assert!(started.elapsed() < Duration::from_secs(60));
}
