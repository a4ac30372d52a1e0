//! Panes of the user's own tmux (docs/tmux.md), on a real tmux server of the test's own
//! (`TMUX_TMPDIR` is the test's): a plain shell makes no pane; a program named like an
//! agent (a script named `claude` that draws Claude Code 2.1.332's recorded folder-trust
//! dialog) becomes a pane at once, without a hook, whose screen — seeded by
//! `capture-pane -e`, then fed by `%output` — is read by the same evidence ladder as an
//! owned pane's: `blocked / input_required` within 2 s; `attend answer` types the keys
//! the dialog's labels give through `tmux send-keys`; the agent quitting while the tmux
//! pane's shell stays makes the pane exited.

use crate::support;

use serde_json::Value;
use std::time::{Duration, Instant};
use support::Env;

/// Runs `tmux ARGS` with the test's environment (its `TMUX_TMPDIR`); its stdout.
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

/// `attend ls --json` of this machine.
fn panes(env: &Env) -> Vec<Value> {
    serde_json::from_str::<Value>(&env.ok(&["ls", "--json"]))
        .unwrap()
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// A tmux server with one 40×120 session whose pane runs a plain `sh`; waits until the
/// daemon's control client is attached to it (the daemon found the new server through
/// its socket directory's watch). Returns the pane id (`%N`).
fn server_with_a_shell(env: &Env) -> String {
    let pane = tmux(
        env,
        &[
            "new-session",
            "-d",
            "-s",
            "work",
            "-x",
            "120",
            "-y",
            "40",
            "-P",
            "-F",
            "#{pane_id}",
            "sh",
        ],
    );
    env.wait_until("the daemon's control client attached", || {
        tmux(env, &["list-clients", "-F", "#{client_control_mode}"]).contains('1')
    });
    pane.trim().to_string()
}

/// A program named `claude` (so its process is named like Claude Code's: a link to
/// `sh` called `claude`, as tmux and `/proc` see it) running a script that draws the
/// recorded folder-trust dialog, reads one line into `out` and exits. The command line
/// to type into a shell.
fn fake_claude(env: &Env, out: &std::path::Path) -> String {
    let bin = env.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let claude = bin.join("claude");
    let _ = std::fs::remove_file(&claude);
    std::os::unix::fs::symlink("/bin/sh", &claude).unwrap();
    let fixture = format!(
        "{}/tests/fixtures/screens/claude/2.1.332/folder-trust.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let script = bin.join("dialog.sh");
    std::fs::write(
        &script,
        format!(
            "printf '\\033[H\\033[2J'\ncat '{fixture}'\nIFS= read -r k\nprintf '%s' \"$k\" > '{}'\n",
            out.display()
        ),
    )
    .unwrap();
    format!("{} {}", claude.display(), script.display())
}

#[test]
fn an_agent_in_a_tmux_pane_is_followed_and_a_plain_shell_is_not() {
    if std::process::Command::new("tmux")
        .arg("-V")
        .output()
        .is_err()
    {
        panic!("tmux is not installed (build-aux/deps.sh installs it)");
    }
    let mut env = Env::new();
    env.start_daemon();
    let shell = server_with_a_shell(&env);
    // tmux reports each pane's command to its subscription within a second: a plain
    // shell has been looked at by now, and is no pane.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(panes(&env).is_empty(), "{:#?}", panes(&env));

    // An agent starts in the shell: a pane at once, blocked on its dialog within 2 s.
    let out = env.work_dir().join("typed.txt");
    let command = fake_claude(&env, &out);
    let started = Instant::now();
    tmux(&env, &["send-keys", "-t", &shell, "-l", &command]);
    tmux(&env, &["send-keys", "-t", &shell, "Enter"]);
    let mut pane = Value::Null;
    let blocked = support::poll(Duration::from_secs(10), || {
        pane = panes(&env).into_iter().next().unwrap_or(Value::Null);
        pane["lifecycle"] == "blocked"
    });
    let took = started.elapsed();
    assert!(blocked, "{pane:#}\n{}", env.daemon_log());
    assert!(took < Duration::from_secs(2), "blocked after {took:?}");
    assert_eq!(pane["attention"], "input_required", "{pane:#}");
    assert_eq!(pane["agent"], "claude", "{pane:#}");
    assert_eq!(
        pane["pending_decision"]["options"],
        serde_json::json!(["No, exit", "Yes, I trust this folder"]),
        "{pane:#}"
    );
    let loc = &pane["location"];
    assert_eq!(loc["kind"], "tmux", "{pane:#}");
    assert_eq!(loc["pane"], shell.as_str(), "{pane:#}");
    assert!(
        loc["place"].as_str().unwrap().starts_with("work:0."),
        "{pane:#}"
    );
    assert_eq!(panes(&env).len(), 1, "one pane per agent");
    let id = pane["id"].as_str().unwrap().to_string();
    let x: Value = serde_json::from_str(&env.ok(&["explain", &id, "--json"])).unwrap();
    assert_eq!(x["needs_input_reason"], "folder trust", "{x:#}");

    // allow = "Yes, I trust this folder": one Down from the cursor, then Enter, typed
    // through tmux; the script reads the line and exits, the tmux pane's shell stays.
    env.ok(&["answer", &id, "allow"]);
    env.wait_until("the keys typed through tmux", || {
        std::fs::read_to_string(&out).is_ok_and(|s| s == "\u{1b}[B")
    });
    let v = env.wait_pane(&id, "exited with its agent", |v| {
        v["live"]["state"] == "exited"
    });
    assert!(v["pending_decision"].is_null(), "{v:#}");
    assert!(
        tmux(&env, &["list-panes", "-a", "-F", "#{pane_id}"]).contains(&shell),
        "the tmux pane lives on"
    );
    let _ = tmux(&env, &["kill-server"]);
}
