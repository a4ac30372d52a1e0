//! Answering the permission gate of an external Claude pane from Attend
//! (docs/decisions/0015-answering-external-gates.md): the real hook executable waits on
//! its `PermissionRequest`, a real daemon and bus, `attend answer` through the CLI.

use crate::support;

use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::{attend_bin, Env};

/// The hook executable next to `attend` (`cargo build` builds both), else `attend hook`
/// (the same client): its argv up to the agent's name.
fn hook_argv() -> Vec<String> {
    let exe = PathBuf::from(attend_bin()).with_file_name("attend-hook");
    if exe.exists() {
        vec![exe.to_string_lossy().into_owned()]
    } else {
        vec![attend_bin().to_string(), "hook".into()]
    }
}

/// The hook executable for a Claude hook (its payload on stdin).
fn hook_command(env: &Env) -> Command {
    let argv = hook_argv();
    let mut c = env.program(&argv[0]);
    c.args(&argv[1..])
        .arg("claude")
        .current_dir(env.work_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Claude Code's `PermissionRequest` payload of `session`.
fn gate_payload(env: &Env, session: &str) -> String {
    json!({
        "session_id": session,
        "cwd": env.work_dir(),
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": "echo hi > out.txt", "description": "Write a file"}
    })
    .to_string()
}

/// Starts the hook executable with Claude Code's `PermissionRequest` payload of
/// `session` (run outside Attend: no `ATTEND_PANE`).
fn start_gate_hook(env: &Env, session: &str) -> Child {
    let mut child = hook_command(env).spawn().expect("the hook starts");
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(gate_payload(env, session).as_bytes())
        .unwrap();
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

/// The agent killed its waiting hook run (Claude Code ends a hook run whose timeout
/// passed): an answer in Attend is refused as for a gate no run waits on (`NotOwned`,
/// exit 2), not reported done while it reaches no one, and the decision stays open for
/// the agent's own dialog.
#[test]
fn an_answer_after_the_waiting_hook_was_killed_is_refused_and_the_gate_stays() {
    let env = Env::with_daemon();
    let mut hook = start_gate_hook(&env, "gate-killed");
    let pane = gate_pane(&env, "gate-killed");
    env.wait_gate_waiting(&pane);
    hook.kill().unwrap();
    hook.wait().unwrap();
    // The bus tells the daemon that the run left a moment after it ended; until then a
    // choice Attend cannot give ("yes") is refused listing allow and deny. Probing with
    // it answers nothing.
    env.wait_until("the daemon knows no run waits", || {
        let out = env.attend(&["answer", &pane, "yes"]);
        out.status.code() == Some(2) && stderr(&out).contains("outside Attend")
    });
    for choice in ["allow", "deny"] {
        let out = env.attend(&["answer", &pane, choice]);
        assert_eq!(out.status.code(), Some(2), "{choice}: {}", stderr(&out));
        assert!(stderr(&out).contains("outside Attend"), "{}", stderr(&out));
    }
    let v = env.show(&pane);
    assert!(!v["pending_decision"].is_null(), "the gate stays open: {v}");
    assert_eq!(v["attention"], "permission_required", "{v}");
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

/// An external agent as Claude Code runs its hooks: a process (`sh`, then `sleep` with the
/// same pid) whose child is the hook executable waiting on the `PermissionRequest` of its
/// session. The daemon watches that process as the pane's agent (the hook's parent), so
/// killing it is the agent's exit: no code, no signal known.
struct Agent {
    process: Child,
    /// The hook run's pid and the file its stdout goes to.
    hook_pid: u32,
    hook_out: PathBuf,
}

impl Agent {
    fn start(env: &Env, session: &str) -> Agent {
        let payload = env.path(&format!("{session}.json"));
        std::fs::write(&payload, gate_payload(env, session)).unwrap();
        let hook_out = env.path(&format!("{session}.out"));
        let pid_file = env.path(&format!("{session}.pid"));
        let hook: Vec<String> = hook_argv().iter().map(|a| format!("'{a}'")).collect();
        let (payload, out, pids) = (payload.display(), hook_out.display(), pid_file.display());
        let script = format!(
            "{} claude < '{payload}' > '{out}' & echo $! > '{pids}.tmp' && \
             mv '{pids}.tmp' '{pids}'; exec sleep 1000",
            hook.join(" ")
        );
        let process = env
            .program("sh")
            .arg("-c")
            .arg(script)
            .current_dir(env.work_dir())
            .stdin(Stdio::null())
            .spawn()
            .expect("the agent starts");
        let mut hook_pid = 0;
        env.wait_until("the agent started its hook", || {
            hook_pid = std::fs::read_to_string(&pid_file)
                .ok()
                .and_then(|s| s.trim().parse().ok())
                .unwrap_or(0);
            hook_pid != 0
        });
        Agent {
            process,
            hook_pid,
            hook_out,
        }
    }

    /// Waits until the hook run ended; what it printed.
    fn hook_printed(&self, env: &Env) -> String {
        env.wait_until("the hook run ends", || !support::running(self.hook_pid));
        std::fs::read_to_string(&self.hook_out).unwrap()
    }

    /// The agent process goes away; waits until its pane reads exited.
    fn exit(&mut self, env: &Env, pane: &str) -> Value {
        self.process.kill().unwrap();
        self.process.wait().unwrap();
        let v = env.wait_pane(pane, "exited", |v| v["live"]["state"] == "exited");
        assert_eq!(
            v["live"],
            json!({"state": "exited", "code": null, "signal": null})
        );
        v
    }
}

impl Drop for Agent {
    /// A test that failed half-way leaves no agent behind.
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// Claude Code's `SessionEnd` of `session` (quit at the prompt).
fn session_end(env: &Env, session: &str) {
    let end = json!({
        "session_id": session,
        "hook_event_name": "SessionEnd",
        "reason": "prompt_input_exit"
    })
    .to_string();
    env.hook("claude", "", &end, &format!("end-{session}"))
        .unwrap();
}

/// (lifecycle, attention, message) of a pane.
fn reads(v: &Value) -> (&str, &str, &str) {
    (
        v["lifecycle"].as_str().unwrap(),
        v["attention"].as_str().unwrap(),
        v["last_message"].as_str().unwrap_or(""),
    )
}

/// The gate answered in Attend, then the agent ends: the exit rules apply to a pane that
/// no longer waits on anyone (docs/lifecycle-attention.md#session-end-and-exit): its
/// session's end is a first completion, done + unread "session ended" — whether Claude's
/// `SessionEnd` comes first or the agent's process just goes away — never `blocked`.
#[test]
fn a_gate_answered_in_attend_then_the_agents_end_is_done_never_blocked() {
    let env = Env::with_daemon();
    let ended = ("done", "unread", "session ended");

    // Answered, then Claude's SessionEnd, then the process exits.
    let mut agent = Agent::start(&env, "answered-end");
    let pane = gate_pane(&env, "answered-end");
    env.wait_gate_waiting(&pane);
    env.ok(&["answer", &pane, "allow"]);
    assert!(agent.hook_printed(&env).contains(r#""behavior":"allow""#));
    session_end(&env, "answered-end");
    assert_eq!(reads(&env.show(&pane)), ended);
    let v = agent.exit(&env, &pane);
    assert_eq!(reads(&v), ended, "{v}");

    // Answered, then the process exits with no SessionEnd.
    let mut agent = Agent::start(&env, "answered-exit");
    let pane = gate_pane(&env, "answered-exit");
    env.wait_gate_waiting(&pane);
    env.ok(&["answer", &pane, "allow"]);
    assert!(agent.hook_printed(&env).contains(r#""behavior":"allow""#));
    let v = agent.exit(&env, &pane);
    assert_eq!(reads(&v), ended, "{v}");
    assert_eq!(v["last_lifecycle"], "blocked", "what it read at the exit");
}

/// A gate Attend did not answer when the agent ends: its hook run ended without Attend's
/// answer (answered at the agent's terminal, or taken down with the agent), or it still
/// waits. The session end keeps the gate (it may still be answered at the terminal); the
/// process exit drops it (`abandoned`, its required attention demoted to unread) and the
/// pane reads the end of its session, done + unread "session ended", never `blocked`. A
/// hook run still waiting is released with no output.
#[test]
fn an_unanswered_gate_ends_with_its_agent_and_never_stays_blocked() {
    let env = Env::with_daemon();
    let ended = ("done", "unread", "session ended");

    // The hook run ends without Attend's answer, SessionEnd, then the exit.
    let mut agent = Agent::start(&env, "unanswered-end");
    let pane = gate_pane(&env, "unanswered-end");
    env.wait_gate_waiting(&pane);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(agent.hook_pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    assert_eq!(agent.hook_printed(&env), "");
    session_end(&env, "unanswered-end");
    let v = env.show(&pane);
    assert_eq!(
        (reads(&v).0, reads(&v).1),
        ("blocked", "permission_required"),
        "a gate keeps its behaviour at session end: {v}"
    );
    let v = agent.exit(&env, &pane);
    assert!(v["pending_decision"].is_null(), "{v}");
    assert_eq!(reads(&v), ended, "{v}");

    // The agent exits while its hook run still waits.
    let mut agent = Agent::start(&env, "unanswered-exit");
    let pane = gate_pane(&env, "unanswered-exit");
    env.wait_gate_waiting(&pane);
    let v = agent.exit(&env, &pane);
    assert!(v["pending_decision"].is_null(), "{v}");
    assert_eq!(reads(&v), ended, "{v}");
    assert_eq!(agent.hook_printed(&env), "", "released with no answer");
    let abandoned = env.events().into_iter().any(|e| {
        e["pane"] == pane.as_str()
            && e["kind"] == "decision.resolved"
            && e.to_string().contains("abandoned")
    });
    assert!(abandoned, "the exit abandons the decision");
}
