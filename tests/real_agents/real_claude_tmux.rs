//! Claude Code in a pane of the user's own tmux (docs/tmux.md), with the pinned real CLI
//! against the scripted model: started in a tmux pane (a server of the test's own,
//! `TMUX_TMPDIR` the test's) in a folder it does not trust, with no hook installed, it is
//! followed from its screen alone: its folder-trust dialog reads `blocked /
//! input_required` within 2 s of being drawn, and the user answering in tmux itself (to
//! "Yes, I trust this folder", then Enter) clears the decision.
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1` (docs/real-agents.md).

use crate::support;

use serde_json::{json, Value};
use std::time::{Duration, Instant};
use support::agents::{require, AgentHome, Cli};
use support::model_server::ModelServer;
use support::scenario::{edit_json, text, DONE, STEP};
use support::Env;

/// How soon after the dialog is drawn the pane must read blocked.
const BOUND: Duration = Duration::from_secs(2);

/// Runs `tmux ARGS` on the test's own server (its `TMUX_TMPDIR`); its stdout.
fn tmux(env: &Env, args: &[&str]) -> String {
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

/// The running pane followed in tmux pane `pane`, if any.
fn followed(env: &Env, pane: &str) -> Option<Value> {
    serde_json::from_str::<Value>(&env.ok(&["ls", "--json"]))
        .unwrap()
        .as_array()?
        .iter()
        .find(|p| p["location"]["pane"] == pane && p["live"]["state"] == "running")
        .cloned()
}

#[test]
fn claude_in_a_tmux_pane_reads_its_folder_trust_dialog_and_the_answer_in_tmux_clears_it() {
    let Some(claude) = require(Cli::Claude) else {
        return;
    };
    let mut env = Env::new();
    env.timeout = STEP;
    env.start_daemon();
    let server = ModelServer::start(vec![text(DONE)]);
    let home = AgentHome::new(Cli::Claude, claude, &server);
    edit_json(&home.home.join(".claude.json"), |v| {
        v["projects"] = json!({});
    });
    let mut launch = home.launch();
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
    let pane = tmux(&env, &args).trim().to_string();

    let screen = || tmux(&env, &["capture-pane", "-p", "-t", &pane]);
    env.wait_until("the trust dialog drawn in tmux", || {
        screen().contains("Yes, I trust this folder")
    });
    let drawn = Instant::now();
    let mut v = Value::Null;
    let blocked = support::poll(STEP, || {
        v = followed(&env, &pane).unwrap_or(Value::Null);
        v["lifecycle"] == "blocked"
    });
    let took = drawn.elapsed();
    assert!(blocked, "{v:#}\n{}\n{}", screen(), env.daemon_log());
    eprintln!("claude in tmux: blocked {took:?} after the dialog was drawn");
    assert!(took < BOUND, "blocked after {took:?}");
    assert_eq!(v["attention"], "input_required", "{v:#}");
    assert_eq!(v["agent"], "claude", "{v:#}");
    assert!(
        v["pending_decision"]["options"]
            .to_string()
            .contains("Yes, I trust this folder"),
        "{v:#}"
    );
    let id = v["id"].as_str().unwrap().to_string();

    // The user answers at the tmux pane itself: to "Yes, I trust this folder", Enter.
    // 2.1.332 draws it second under "No, exit" (the cursor starts there); 2.1.197 first,
    // under the cursor. A Down sent while the dialog is still settling can be lost, and
    // Enter on "No, exit" ends the agent: Down until the cursor is on the answer.
    let on_yes = |s: &str| {
        s.lines()
            .any(|l| l.contains('❯') && l.contains("Yes, I trust this folder"))
    };
    let mut settled = on_yes(&screen());
    for _ in 0..5 {
        if settled {
            break;
        }
        tmux(&env, &["send-keys", "-t", &pane, "Down"]);
        settled = support::poll(Duration::from_secs(2), || on_yes(&screen()));
    }
    assert!(
        settled,
        "the cursor never reached the answer:\n{}",
        screen()
    );
    tmux(&env, &["send-keys", "-t", &pane, "Enter"]);
    let v = env.wait_pane(&id, "the decision cleared", |v| {
        v["pending_decision"].is_null() && v["lifecycle"] != "blocked"
    });
    assert_eq!(v["live"]["state"], "running", "{v:#}");
    let _ = tmux(&env, &["kill-server"]);
}
