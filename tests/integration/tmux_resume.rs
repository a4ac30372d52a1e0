//! `attend kill` and `attend resume` of a followed tmux pane (docs/tmux.md#kill,
//! docs/tmux.md#resume): the kill ends the agent's process, also one a wrapper started
//! (no process group of its own), and is the user's own (the pane ends reviewed, its
//! decision dropped); the resume runs the agent's resume command (from
//! the session id its hook named) in a new window of the same tmux session, and that new
//! tmux pane becomes the same Attend pane (a handover, one pane).

use crate::support;
use crate::tmux_support::{
    blocked_in, fake_claude, need_tmux, panes, server_with_a_shell, tmux, Server, WORK_SESSION,
};

use support::Env;

#[test]
fn attend_kill_of_a_tmux_pane_ends_its_agent_reviewed() {
    need_tmux();
    let mut env = Env::new();
    env.start_daemon();
    let (_server, shell) = server_with_a_shell(&env);
    let out = env.work_dir().join("typed.txt");
    // Started by a wrapper (as `npx` or a shell alias does): the agent leads no process
    // group of its own.
    let wrapped = format!("sh -c '{}; true'", fake_claude(&env, &out));
    let id = blocked_in(&env, &shell, &wrapped);
    env.ok(&["kill", &id]);
    let v = env.wait_pane(&id, "exited by the kill", |v| {
        v["live"]["state"] == "exited"
    });
    assert!(v["pending_decision"].is_null(), "{v:#}");
    assert_eq!(
        v["attention"], "none",
        "the user's own kill: reviewed; {v:#}"
    );
    assert!(!out.exists(), "the agent read nothing");
    assert!(
        tmux(&env, &["list-panes", "-a", "-F", "#{pane_id}"]).contains(&shell),
        "the tmux pane's shell lives on"
    );
}

/// A `claude` on the tmux server's `PATH` (a script, so its process is named `claude`)
/// that, unless resumed (`--resume ID`), tells Attend its session `s1` by a SessionStart
/// hook, then draws the recorded folder-trust dialog, reads a line into `NAME.txt` of
/// the work directory (`first`, or `resumed`) and exits. Returns the `PATH` to use.
fn claude_on_path(env: &Env) -> String {
    let bin = env.path("bin-resume");
    std::fs::create_dir_all(&bin).unwrap();
    let fixture = format!(
        "{}/tests/fixtures/screens/claude/2.1.332/folder-trust.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let work = env.work_dir();
    let script = format!(
        "#!/bin/sh\n\
         name=first\n\
         if [ \"$1\" = --resume ]; then name=resumed; else\n\
         printf '%s' '{{\"session_id\":\"s1\",\"cwd\":\"{work}\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}}' | '{attend}' hook claude\n\
         fi\n\
         printf '\\033[H\\033[2J'\n\
         cat '{fixture}'\n\
         IFS= read -r k\n\
         printf '%s' \"$k\" > '{work}/'$name.txt\n",
        work = work.display(),
        attend = support::attend_bin(),
    );
    let claude = bin.join("claude");
    std::fs::write(&claude, script).unwrap();
    let mut perms = std::fs::metadata(&claude).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&claude, perms).unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn attend_resume_of_an_exited_tmux_pane_runs_it_again_in_a_new_window_as_the_same_pane() {
    need_tmux();
    let mut env = Env::new();
    env.start_daemon();
    let path = claude_on_path(&env);
    let (_server, shell) = tmux_server_with_path(&env, &path);
    let id = blocked_in(&env, &shell, "claude");
    env.wait_pane(&id, "the session named by the hook", |v| {
        v["session_id"] == "s1"
    });
    // The agent ends (its dialog answered: it reads the line and exits).
    tmux(&env, &["send-keys", "-t", &shell, "Enter"]);
    env.wait_pane(&id, "exited with its agent", |v| {
        v["live"]["state"] == "exited"
    });
    assert!(env.work_dir().join("first.txt").exists());

    env.ok(&["resume", &id]);
    let v = env.wait_pane(
        &id,
        "running again in a new tmux pane, its dialog read",
        |v| v["live"]["state"] == "running" && v["lifecycle"] == "blocked",
    );
    let new = v["location"]["pane"].as_str().unwrap().to_string();
    assert_ne!(new, shell, "a new tmux pane: {v:#}");
    assert!(
        v["location"]["place"]
            .as_str()
            .unwrap()
            .starts_with("work:"),
        "the same tmux session: {v:#}"
    );
    assert_eq!(panes(&env).len(), 1, "{:#?}", panes(&env));
    let kinds: Vec<String> = env
        .events()
        .into_iter()
        .filter(|e| e["pane"] == id.as_str())
        .map(|e| e["kind"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(kinds.iter().any(|k| k == "pane.handover"), "{kinds:?}");
    // The new agent is `claude --resume s1`, answered like the first.
    tmux(&env, &["send-keys", "-t", &new, "Enter"]);
    env.wait_until("the resumed agent read its line", || {
        env.work_dir().join("resumed.txt").exists()
    });
}

/// [`server_with_a_shell`] with the server's `PATH` set to `path` (new windows get it).
fn tmux_server_with_path(env: &Env, path: &str) -> (Server, String) {
    let out = env
        .program("tmux")
        .env("PATH", path)
        .args(["-f", "/dev/null"])
        .args(WORK_SESSION)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let server = Server::of(env);
    env.wait_until("the daemon's control client attached", || {
        tmux(env, &["list-clients", "-F", "#{client_control_mode}"]).contains('1')
    });
    (
        server,
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
    )
}
