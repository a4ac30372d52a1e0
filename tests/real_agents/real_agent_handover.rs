//! Two agents in one pane, with the real CLIs: a user starts Claude Code in a shell pane,
//! finishes a turn, quits it, and starts Codex in the same shell
//! (docs/lifecycle-attention.md#two-agents-in-one-pane). The handover is its own event, the
//! pane becomes Codex's, the unread of Claude's turn is kept, and Codex's turn then moves
//! the lifecycle.
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1` (docs/real-agents.md).

use crate::support;

use serde_json::Value;
use std::time::Duration;
use support::agents::{require, AgentHome, Cli};
use support::model_server::ModelServer;
use support::scenario::{install_hooks, text, DONE, FIRST, STEP};
use support::Env;

/// The shell command line that starts `home`'s CLI from its project directory.
fn command_line(home: &AgentHome) -> String {
    let mut launch = home.launch();
    if home.cli == Cli::Codex {
        launch.args.retain(|a| a != "--no-daemon");
        launch.args.push("--dangerously-bypass-hook-trust".into());
    }
    let argv: Vec<String> = launch.env_overlay_argv();
    let quoted: Vec<String> = argv
        .iter()
        .map(|a| shlex::try_quote(a).unwrap().into_owned())
        .collect();
    format!(
        "cd {} && {}",
        shlex::try_quote(&home.project.display().to_string()).unwrap(),
        quoted.join(" ")
    )
}

#[test]
fn claude_then_codex_in_one_shell_pane_hand_over() {
    let (Some(claude), Some(codex)) = (require(Cli::Claude), require(Cli::Codex)) else {
        return;
    };
    // Real CLIs start in seconds on a loaded machine: the scenario bound, not the
    // daemon tests' 10 s.
    let mut env = Env::new();
    env.timeout = STEP;
    env.start_daemon();
    let server = ModelServer::start(vec![text(FIRST), text(DONE)]);
    let claude_home = AgentHome::new(Cli::Claude, claude, &server);
    let codex_home = AgentHome::new(Cli::Codex, codex, &server);
    install_hooks(&env, &claude_home);
    install_hooks(&env, &codex_home);

    let pane = env.run(&["--", "bash", "--norc", "--noprofile", "-i"]);
    env.attend1().resize(&pane, 40, 120).unwrap();
    let send_line = |line: &str| {
        env.ok(&["send", &pane, line]);
        std::thread::sleep(Duration::from_millis(300));
        env.ok(&["send", &pane, "", "--enter"]);
    };
    let show = || env.show(&pane);
    let screen = || env.attend1().get_screen(&pane).unwrap_or_default();
    // Waits until `cond` holds of the pane's screen; on a timeout the panic shows it.
    let wait_screen = |what: &str, cond: &dyn Fn(&str) -> bool| {
        let mut last = String::new();
        if !support::poll(STEP, || {
            last = screen();
            cond(&last)
        }) {
            panic!(
                "timed out waiting for {what}\n--- screen ---\n{last}\n--- state ---\n{:#}\n\
                 --- daemon log ---\n{}",
                show(),
                env.daemon_log()
            );
        }
    };
    // bash's prompt (`bash-5.2# `) is the last line drawn: the shell reads the next line.
    let at_prompt = |s: &str| {
        s.trim_end()
            .lines()
            .last()
            .is_some_and(|l| l.starts_with("bash-") && (l.ends_with('#') || l.ends_with('$')))
    };

    // Claude in the shell: the pane becomes Claude's; one turn → done/unread.
    send_line(&command_line(&claude_home));
    let v = env.wait_pane(&pane, "Claude's session", |v| v["agent"] == "claude");
    let claude_session = v["session_id"].as_str().unwrap_or_default().to_string();
    std::thread::sleep(Duration::from_millis(1500));
    send_line("say hello");
    let v = env.wait_pane(&pane, "Claude's turn", |v| v["lifecycle"] == "done");
    assert_eq!(v["attention"], "unread", "{v:#}");
    assert_eq!(v["last_message"], FIRST);
    send_line("/exit");
    // Claude is gone when its shell prompts again (keys typed before would reach Claude):
    // while it runs its input box is the last thing drawn. Its last frame may stay above
    // the prompt (it draws on the main screen; seen on a loaded machine), so that frame's
    // `? for shortcuts` says nothing.
    wait_screen("Claude gone and the shell's prompt", &at_prompt);

    // Codex in the same shell (it fires SessionStart with its first turn): a switch and
    // a handover, then its turn moves the lifecycle.
    send_line(&command_line(&codex_home));
    wait_screen("Codex up", &|_| {
        show()["title"]
            .as_str()
            .is_some_and(|t| !t.is_empty() && !t.contains("Claude"))
    });
    std::thread::sleep(Duration::from_millis(1500));
    send_line("say done");
    let v = env.wait_pane(&pane, "Codex's turn", |v| {
        v["agent"] == "codex" && v["lifecycle"] == "done" && v["last_message"] == DONE
    });
    assert_ne!(v["session_id"].as_str().unwrap_or_default(), claude_session);
    assert_eq!(v["attention"], "unread", "{v:#}");
    let events: Vec<Value> = env
        .events()
        .into_iter()
        .filter(|e| e["pane"] == pane.as_str())
        .collect();
    let at = |kind: &str| events.iter().position(|e| e["kind"] == kind);
    let handovers: Vec<&Value> = events
        .iter()
        .filter(|e| e["kind"] == "pane.handover")
        .collect();
    assert_eq!(handovers.len(), 1, "one handover: {events:#?}");
    assert_eq!(handovers[0]["previous_session"], claude_session.as_str());
    // Claude's unread was kept through the handover: nothing cleared it.
    let handover = at("pane.handover").unwrap();
    assert!(
        !events[..handover]
            .iter()
            .any(|e| e["kind"] == "attention.cleared"),
        "{events:#?}"
    );
}
