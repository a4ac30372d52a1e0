//! Answering the permission gate of an external Claude pane from Attend
//! (docs/decisions/0015-answering-external-gates.md): the real hook executable waits on
//! its `PermissionRequest`, a real daemon and bus, `attend answer` through the CLI.

mod support;

use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::{attend_bin, Env};

/// The hook executable next to `attend` (`cargo build` builds both), else `attend hook`
/// (the same client).
fn hook_command(env: &Env) -> Command {
    let exe = PathBuf::from(attend_bin()).with_file_name("attend-hook");
    let mut c = if exe.exists() {
        env.program(exe.to_str().unwrap())
    } else {
        let mut c = env.program(attend_bin());
        c.arg("hook");
        c
    };
    c.arg("claude")
        .current_dir(env.work_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Starts the hook executable with Claude Code's `PermissionRequest` payload of
/// `session` (run outside Attend: no `ATTEND_PANE`).
fn start_gate_hook(env: &Env, session: &str) -> Child {
    let payload = json!({
        "session_id": session,
        "cwd": env.work_dir(),
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": "echo hi > out.txt", "description": "Write a file"}
    })
    .to_string();
    let mut child = hook_command(env).spawn().expect("the hook starts");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(payload.as_bytes()).unwrap();
    drop(stdin);
    child
}

/// Waits (bounded) for `child` to exit; its output. Panics when it does not.
fn wait_exit(mut child: Child, limit: Duration) -> Output {
    let deadline = Instant::now() + limit;
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "the hook did not exit within {limit:?}; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The id of the external pane of `session` once its gate is open.
fn gate_pane(env: &Env, session: &str) -> String {
    let mut id = String::new();
    env.wait_until("the external pane's gate opens", || {
        let panes: Vec<Value> =
            serde_json::from_str(&env.ok(&["ls", "--json"])).unwrap_or_default();
        match panes.iter().find(|p| p["session_id"] == session) {
            Some(p) if !p["pending_decision"].is_null() => {
                id = p["id"].as_str().unwrap().to_string();
                true
            }
            _ => false,
        }
    });
    id
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn an_answer_made_in_attend_is_the_waiting_hooks_decision() {
    let env = Env::with_daemon();
    let hook = start_gate_hook(&env, "gate-allow");
    let pane = gate_pane(&env, "gate-allow");
    let v = env.show(&pane);
    assert_eq!(v["owned"], false);
    assert_eq!(v["pending_decision"]["choices"], json!(["allow", "deny"]));
    // `GetPane` marks it as the gate (what a remote host's mirror offers Allow/Deny on).
    assert_eq!(v["pending_decision"]["gate"], true, "{v}");
    env.wait_gate_waiting(&pane);

    env.ok(&["answer", &pane, "allow"]);
    let out = wait_exit(hook, Duration::from_secs(30));
    assert!(out.status.success(), "{}", stderr(&out));
    let printed: Value = serde_json::from_slice(&out.stdout).expect("the decision JSON");
    assert_eq!(
        printed,
        json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"}}})
    );
    let v = env.show(&pane);
    assert!(v["pending_decision"].is_null(), "{v}");
    assert_eq!(v["attention"], "none");

    // Deny carries a message for the agent.
    let hook = start_gate_hook(&env, "gate-allow");
    gate_pane(&env, "gate-allow");
    env.wait_gate_waiting(&pane);
    env.ok(&["answer", &pane, "deny"]);
    let out = wait_exit(hook, Duration::from_secs(30));
    let printed: Value = serde_json::from_slice(&out.stdout).expect("the decision JSON");
    assert_eq!(
        printed["hookSpecificOutput"]["decision"]["behavior"],
        "deny"
    );
    assert!(printed["hookSpecificOutput"]["decision"]["message"].is_string());
}

#[test]
fn an_answer_at_the_terminal_releases_the_hook_with_no_output() {
    let env = Env::with_daemon();
    let hook = start_gate_hook(&env, "gate-term");
    let pane = gate_pane(&env, "gate-term");
    env.wait_gate_waiting(&pane);

    // The person answered Claude's own dialog: the tool ran, and its PostToolUse (the
    // next hook of the turn) resolves the decision.
    let post = json!({
        "session_id": "gate-term",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "echo hi > out.txt"},
        "tool_response": {"stdout": ""}
    })
    .to_string();
    let ctx = HashMap::from([("delivery_id", zbus::zvariant::Value::from("d-post"))]);
    env.attend1().hook("claude", "", &post, &ctx).unwrap();

    let out = wait_exit(hook, Duration::from_secs(30));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "",
        "no decision: the agent's own dialog decided"
    );
    assert!(env.show(&pane)["pending_decision"].is_null());
    // No hook waits any more: Attend cannot answer the pane.
    let out = env.attend(&["answer", &pane, "allow"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn without_a_gate_answer_still_refuses_an_external_pane() {
    let env = Env::with_daemon();
    // The gate opened through a plain Hook call: no hook run waits for it.
    let ask = json!({
        "session_id": "gate-none",
        "cwd": env.work_dir(),
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": "true"}
    })
    .to_string();
    let ctx = HashMap::from([("delivery_id", zbus::zvariant::Value::from("d-none"))]);
    env.attend1().hook("claude", "", &ask, &ctx).unwrap();
    let pane = gate_pane(&env, "gate-none");
    let out = env.attend(&["answer", &pane, "allow"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("outside Attend"), "{}", stderr(&out));
}

#[test]
fn without_a_daemon_the_hook_spools_and_does_not_wait() {
    let env = Env::new(); // A bus, no daemon.
    let started = Instant::now();
    let hook = start_gate_hook(&env, "gate-spool");
    // Far below the gate's wait (attend_hook::gate::WAIT, 280 s).
    let out = wait_exit(hook, Duration::from_secs(30));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(env.spooled(), 1, "the hook is spooled as before");
}
