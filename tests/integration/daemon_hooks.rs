//! The `Hook` entry point end to end (docs/lifecycle-attention.md; spec 024 US1 through the CLI and
//! D-Bus; bad input: docs/dbus-api.md#errors): real daemon, real PTY, real SQLite, Claude payloads.

use crate::support;

use serde_json::json;
use std::collections::HashMap;
use support::attend_bin;
use support::Env;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Spec 024 US1: Stop → seen → SessionEnd → process exit leaves done/none, the Stop
/// summary and the exit code.
#[test]
fn spec_024_us1_quitting_a_reviewed_agent_is_silent() {
    let env = Env::with_daemon();
    let p = env.run(&["--agent", "claude", "--", "sh", "-c", "read x; exit 3"]);
    let stop = json!({
        "session_id": "sess-024",
        "cwd": "/tmp/proj",
        "hook_event_name": "Stop",
        "stop_hook_active": false,
        "last_assistant_message": "Done: the work is finished."
    })
    .to_string();
    env.hook("claude", &p, &stop, "d-stop").unwrap();
    let v = env.show(&p);
    assert_eq!(
        (v["lifecycle"].as_str(), v["attention"].as_str()),
        (Some("done"), Some("unread"))
    );
    assert_eq!(v["last_message"], "Done: the work is finished.");

    env.ok(&["seen", &p]);
    assert_eq!(env.show(&p)["attention"], "none");

    let end = json!({
        "session_id": "sess-024",
        "hook_event_name": "SessionEnd",
        "reason": "prompt_input_exit"
    })
    .to_string();
    env.hook("claude", &p, &end, "d-end").unwrap();
    let v = env.show(&p);
    assert_eq!(
        (v["lifecycle"].as_str(), v["attention"].as_str()),
        (Some("done"), Some("none"))
    );
    assert_eq!(v["last_message"], "Done: the work is finished.");
    assert_eq!(v["resume_argv"], json!(["claude", "--resume", "sess-024"]));

    env.ok(&["send", &p, "q", "--enter"]);
    let v = env.wait_pane(&p, "exit", |v| v["live"]["state"] == "exited");
    assert_eq!(v["lifecycle"], "done");
    assert_eq!(v["attention"], "none");
    assert_eq!(v["last_message"], "Done: the work is finished.");
    assert_eq!(
        v["live"],
        json!({"state": "exited", "code": 3, "signal": null})
    );
    assert_eq!(
        env.attend(&["next"]).status.code(),
        Some(1),
        "nothing unread"
    );
}

#[test]
fn a_delivery_is_applied_once() {
    let env = Env::with_daemon();
    let p = env.run(&["--agent", "claude", "--", "sleep", "100"]);
    let stop = r#"{"session_id":"s","hook_event_name":"Stop","last_assistant_message":"one"}"#;
    let first = env.hook("claude", &p, stop, "same-id").unwrap();
    let n = env.events().len();
    env.ok(&["seen", &p]);
    let again = env.hook("claude", &p, stop, "same-id").unwrap();
    assert_eq!(first, again);
    assert_eq!(
        env.events().len(),
        n + 1,
        "only the seen's attention.cleared was added"
    );
    assert_eq!(env.show(&p)["attention"], "none");
}

/// A payload over 1 MiB keeps its event: its long strings are cut (here the turn's
/// reply), so the turn's end still arrives (docs/adapters.md, "Never block, never fail,
/// never lose"); one that cannot be brought under the limit that way (a million short
/// strings) is refused and nothing is stored.
#[test]
fn an_oversized_payload_keeps_its_event_or_is_refused_and_nothing_is_stored() {
    let env = Env::with_daemon();
    let p = env.run(&["--agent", "claude", "--", "sleep", "100"]);
    let before = env.events();
    let many: Vec<String> = (0..200_000).map(|i| format!("s{i}")).collect();
    let uncuttable = serde_json::json!({
        "session_id": "s",
        "hook_event_name": "Stop",
        "words": many,
    })
    .to_string();
    assert!(uncuttable.len() > 1024 * 1024);
    let out = env.attend_with(
        &["hook", "claude"],
        uncuttable.as_bytes(),
        &[("ATTEND_PANE", &p)],
    );
    assert_eq!(out.status.code(), Some(0), "hooks never fail the agent");
    let err = stderr(&out);
    assert!(
        err.starts_with("attend: hook not delivered: hook payload is "),
        "{err}"
    );
    assert!(err.contains("the limit is 1048576"), "{err}");
    assert_eq!(env.events(), before);
    assert_eq!(env.show(&p)["lifecycle"], "unknown");

    let big = format!(
        r#"{{"session_id":"s","hook_event_name":"Stop","last_assistant_message":"{}"}}"#,
        "x".repeat(1024 * 1024 + 1)
    );
    let out = env.attend_with(&["hook", "claude"], big.as_bytes(), &[("ATTEND_PANE", &p)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // (Not run under the pane's process, the hook is an external pane's.)
    let done = || -> Option<serde_json::Value> {
        let panes: serde_json::Value = serde_json::from_str(&env.ok(&["ls", "--json"])).ok()?;
        panes
            .as_array()?
            .iter()
            .find(|v| v["session_id"] == "s" && v["lifecycle"] == "done")
            .cloned()
    };
    env.wait_until("the turn's end", || done().is_some());
    let v = done().unwrap();
    let message = v["last_message"].as_str().unwrap_or_default();
    assert!(message.starts_with("xxxx"), "{message:.40}");
    assert!(message.len() < 20_000, "{}", message.len());
}

#[test]
fn the_hook_cli_delivers_with_attend_pane_and_codex_notify_keeps_to_its_thread() {
    // The hooks run inside the pane, as an agent's would: the daemon trusts ATTEND_PANE
    // only from the pane's own process tree.
    let env = Env::with_daemon();
    let dir = env.work_dir();
    let start = r#"{"session_id":"thread-1","hook_event_name":"SessionStart","source":"startup"}"#;
    // Codex also notifies for its title side thread (another thread id): dropped.
    let side = r#"{"type":"agent-turn-complete","thread-id":"side","turn-id":"t","cwd":"/tmp","last-assistant-message":"a title"}"#;
    let own = r#"{"type":"agent-turn-complete","thread-id":"thread-1","turn-id":"t","cwd":"/tmp","last-assistant-message":"finished"}"#;
    std::fs::write(dir.join("start.json"), start).unwrap();
    std::fs::write(dir.join("side.json"), side).unwrap();
    std::fs::write(dir.join("own.json"), own).unwrap();
    let script = format!(
        "cd '{d}' && '{a}' hook codex < start.json 2>> hook.err >> hook.out && \
         '{a}' hook codex --notify \"$(cat side.json)\" 2>> hook.err >> hook.out && \
         '{a}' hook codex --notify \"$(cat own.json)\" 2>> hook.err >> hook.out; sleep 100",
        d = dir.display(),
        a = attend_bin()
    );
    let p = env.run(&["--agent", "codex", "--", "sh", "-c", &script]);
    let v = env.wait_pane(&p, "the own thread's completion", |v| {
        v["lifecycle"] == "done"
    });
    assert_eq!(v["session_id"], "thread-1");
    assert_eq!(v["last_message"], "finished");
    assert_eq!(
        std::fs::read_to_string(dir.join("hook.err")).unwrap(),
        "",
        "delivered"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("hook.out")).unwrap(),
        "",
        "nothing on stdout (agents parse it)"
    );
    let created = env
        .events()
        .iter()
        .filter(|e| e["pane"] == p.as_str() && e["kind"] == "attention.created")
        .count();
    assert_eq!(
        created, 1,
        "the side thread's notify did not touch the pane"
    );
}

#[test]
fn hooks_from_outside_attend_make_an_external_pane_per_session() {
    let env = Env::with_daemon();
    let repo = env.work_dir().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    let git = std::process::Command::new("git")
        .args(["init", "-q", "-b", "trunk"])
        .arg(&repo)
        .status()
        .unwrap();
    assert!(git.success());
    let cwd = repo.join("src");
    let prompt = json!({
        "session_id": "ext-1",
        "cwd": cwd,
        "hook_event_name": "UserPromptSubmit",
        "prompt": "hello"
    })
    .to_string();
    // A context with a delivery id and no pane: the call of a hook outside Attend.
    let call = |payload: &str, d: &str| {
        let ctx = HashMap::from([("delivery_id", zbus::zvariant::Value::from(d))]);
        env.attend1().hook("claude", "", payload, &ctx)
    };
    call(&prompt, "e1").unwrap();
    call(&prompt.replace("hello", "again"), "e2").unwrap();
    let panes: Vec<serde_json::Value> = serde_json::from_str(&env.ok(&["ls", "--json"])).unwrap();
    assert_eq!(panes.len(), 1, "one pane per (agent, session): {panes:?}");
    let v = &panes[0];
    assert_eq!(v["owned"], false);
    assert_eq!(v["lifecycle"], "working");
    assert_eq!(v["session_id"], "ext-1");
    let top = std::fs::canonicalize(&repo).unwrap();
    assert_eq!(
        v["workspace"],
        top.to_str().unwrap(),
        "workspace = git top level"
    );
    assert_eq!(
        (v["repo"].as_str(), v["branch"].as_str()),
        (Some("repo"), Some("trunk"))
    );
    let id = v["id"].as_str().unwrap();
    let out = env.attend(&["send", id, "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("outside Attend"), "{}", stderr(&out));
}

#[test]
fn answer_resolves_the_decision_and_types_the_choice_into_the_pane() {
    let env = Env::with_daemon();
    // The pane draws Claude Code 2.1.197's recorded permission dialog; non-canonical
    // input: one typed byte reaches `head` without Enter.
    let dialog = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/screens/claude/2.1.197/permission-dialog.txt"
    );
    let script =
        format!("stty -icanon -echo; tail -n 14 '{dialog}'; head -c 1 > answered; sleep 100");
    let p = env.run(&["--agent", "claude", "--", "sh", "-c", &script]);
    let ask = json!({
        "session_id": "s-ans",
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": "echo hi > /tmp/x", "description": "write a file"}
    })
    .to_string();
    env.hook("claude", &p, &ask, "d-ask").unwrap();
    let v = env.show(&p);
    assert_eq!(v["lifecycle"], "blocked");
    assert_eq!(v["attention"], "permission_required");
    assert_eq!(v["pending_decision"]["kind"], "permission");

    let out = env.attend(&["answer", &p, "definitely-not-a-choice"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("unknown choice"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("allow") && stderr(&out).contains("3. No"),
        "the message lists the choices and the options on screen: {}",
        stderr(&out)
    );

    env.ok(&["answer", &p, "allow"]);
    let file = env.work_dir().join("answered");
    env.wait_until("the answer reached the program", || {
        std::fs::read_to_string(&file).is_ok_and(|s| s == "1")
    });
    let v = env.show(&p);
    assert!(v["pending_decision"].is_null(), "{v}");
    assert_eq!(v["attention"], "none");
    let out = env.attend(&["answer", &p, "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no open decision"),
        "{}",
        stderr(&out)
    );
}
