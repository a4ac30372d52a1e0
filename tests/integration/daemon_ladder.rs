//! The taxonomy and ladder (docs/taxonomy.md) through the daemon and the CLI: tasks and holds, the diagnoses in
//! `attend show --json` and `attend ls --parked|--held|--done-unseen`, `attend explain`,
//! the `rung.health` event in the store, and `attend answer` with a screen manifest's keys.

use crate::support;

use attend::client::error_name;
use serde_json::Value;
use support::Env;

fn claude_hook(env: &Env, pane: &str, payload: &str, delivery: &str) {
    env.hook("claude", pane, payload, delivery)
        .unwrap_or_else(|e| panic!("hook refused: {e}"));
}

fn ids(v: &str) -> Vec<String> {
    let panes: Vec<Value> = serde_json::from_str(v).unwrap();
    panes
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect()
}

fn code(out: &std::process::Output) -> Option<i32> {
    out.status.code()
}

#[test]
fn tasks_and_holds_drive_parked_held_and_done_unseen() {
    let env = Env::with_daemon();
    let p = env.run(&["--agent", "claude", "--", "sleep", "100"]);
    claude_hook(
        &env,
        &p,
        r#"{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}"#,
        "d1",
    );
    let v = env.show(&p);
    assert_eq!(v["taxonomy"]["activity"], "idle-at-prompt", "{v:#}");
    assert_eq!(v["taxonomy"]["session"], "detached");
    assert_eq!(v["taxonomy"]["resumability"], "live");
    assert_eq!(v["taxonomy"]["needs_input"]["count"], 0);
    assert_eq!(v["diagnoses"]["parked"], false, "no obligation yet");

    let id = env
        .ok(&["task", "add", &p, "write the docs"])
        .trim()
        .to_string();
    assert_eq!(id, "1");
    let v = env.show(&p);
    assert_eq!(v["tasks"][0]["state"], "open", "{v:#}");
    assert_eq!(v["tasks"][0]["text"], "write the docs");
    assert_eq!(v["diagnoses"]["parked"], true, "idle × an open task");
    assert_eq!(ids(&env.ok(&["ls", "--parked", "--json"])), [p.as_str()]);
    assert!(ids(&env.ok(&["ls", "--held", "--json"])).is_empty());

    // A hold with an owner and a wake: HELD, never PARKED.
    env.ok(&[
        "hold",
        &p,
        "--owner",
        "alice",
        "--wake",
        "30m",
        "--reason",
        "waiting for review",
    ]);
    let v = env.show(&p);
    assert_eq!(v["hold"]["owner"], "alice", "{v:#}");
    assert_eq!(v["hold"]["armed"], true);
    assert_eq!(v["hold"]["reason"], "waiting for review");
    assert!(v["hold"]["wake_at"].is_string(), "rendered as RFC 3339");
    assert_eq!(
        (
            v["diagnoses"]["held"].as_bool(),
            v["diagnoses"]["parked"].as_bool()
        ),
        (Some(true), Some(false))
    );
    assert_eq!(ids(&env.ok(&["ls", "--held", "--json"])), [p.as_str()]);
    assert!(ids(&env.ok(&["ls", "--parked", "--json"])).is_empty());
    assert!(env.ok(&["ls", "--held"]).contains(&p));
    env.ok(&["unhold", &p]);
    let v = env.show(&p);
    assert!(v["hold"].is_null(), "{v:#}");
    assert_eq!(v["diagnoses"]["parked"], true);

    env.ok(&["task", "start", "1"]);
    assert_eq!(env.show(&p)["tasks"][0]["state"], "working");
    env.ok(&["task", "done", "1", "--message", "docs written"]);
    let tasks: Vec<Value> = serde_json::from_str(&env.ok(&["task", "ls", "--json"])).unwrap();
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0]["state"], "reported");
    assert_eq!(tasks[0]["message"], "docs written");
    assert_eq!(tasks[0]["pane"], p.as_str());
    let table = env.ok(&["task", "ls", &p]);
    assert!(
        table.starts_with("ID") && table.contains("reported") && table.contains("docs written"),
        "{table}"
    );
    assert_eq!(env.show(&p)["diagnoses"]["parked"], false, "nothing owed");
    let kinds: Vec<String> = env
        .events()
        .iter()
        .filter_map(|e| e["kind"].as_str().map(String::from))
        .filter(|k| k.starts_with("task."))
        .collect();
    assert_eq!(kinds, ["task.open", "task.working", "task.reported"]);

    // DONE-UNSEEN until someone looks.
    claude_hook(
        &env,
        &p,
        r#"{"session_id":"s1","hook_event_name":"Stop","last_assistant_message":"Done."}"#,
        "d2",
    );
    assert_eq!(
        ids(&env.ok(&["ls", "--done-unseen", "--json"])),
        [p.as_str()]
    );
    env.ok(&["seen", &p]);
    assert!(ids(&env.ok(&["ls", "--done-unseen", "--json"])).is_empty());
}

#[test]
fn task_and_hold_errors_are_bad_input() {
    let env = Env::with_daemon();
    let p = env.run(&["--", "sleep", "100"]);
    let out = env.attend(&["task", "done", "99"]);
    assert_eq!(code(&out), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such task"));
    assert_eq!(code(&env.attend(&["task", "add", "p9", "x"])), Some(2));
    assert_eq!(code(&env.attend(&["task", "add", &p, " "])), Some(2));
    let out = env.attend(&["hold", &p, "--owner", " ", "--wake", "30m"]);
    assert_eq!(code(&out), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("owner"));
    let out = env.attend(&["hold", &p, "--owner", "bob", "--wake", "someday"]);
    assert_eq!(code(&out), Some(2));
    assert_eq!(code(&env.attend(&["ls", "--parked", "--held"])), Some(2));
    let err = env.attend1().set_task_state(1, "finished", "").unwrap_err();
    assert_eq!(error_name(&err), Some("InvalidArgument"), "{err}");
    assert!(err.to_string().contains("unknown task state"), "{err}");
}

#[test]
fn explain_names_the_deciding_evidence_its_rung_age_and_trust() {
    let env = Env::with_daemon();
    let p = env.run(&["--agent", "claude", "--", "sleep", "100"]);
    claude_hook(
        &env,
        &p,
        r#"{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"go"}"#,
        "d1",
    );
    let x: Value = serde_json::from_str(&env.ok(&["explain", &p, "--json"])).unwrap();
    assert_eq!(x["lifecycle"], "working", "{x:#}");
    assert_eq!(x["activity"], "working");
    let by = &x["activity_evidence"];
    assert_eq!(by["rung"], "lifecycle-hooks", "{x:#}");
    assert_eq!(by["source"], "claude.hooks");
    assert_eq!(by["trust"], "authoritative");
    assert!(
        by["note"].as_str().unwrap().contains("UserPromptSubmit"),
        "{by}"
    );
    assert!(by["age_ms"].as_i64().unwrap() >= 0);
    assert!(by["observed_at"].is_string());
    let rungs: Vec<&str> = x["rungs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rung"].as_str().unwrap())
        .collect();
    assert_eq!(
        rungs,
        [
            "self-report",
            "lifecycle-hooks",
            "needs-input-chrome",
            "window-sampling",
            "terminal"
        ]
    );
    assert_eq!(x["rungs"][0]["coverage"], "full");
    assert!(x["chrome"]["manifest"]
        .as_str()
        .unwrap()
        .ends_with("claude.toml"));
    assert_eq!(x["health"], Value::Array(vec![]));
    assert_eq!(x["taxonomy"]["display"], "working");
    let text = env.ok(&["explain", &p]);
    assert!(
        text.contains("activity      working ← lifecycle-hooks claude.hooks"),
        "{text}"
    );
    assert!(
        text.contains("RUNG") && text.contains("(no trust change)"),
        "{text}"
    );

    // A shell pane with no evidence: unknown, honestly.
    let s = env.run(&["--", "sleep", "100"]);
    let x: Value = serde_json::from_str(&env.ok(&["explain", &s, "--json"])).unwrap();
    assert_eq!(x["activity"], "unknown", "{x:#}");
    assert!(x["activity_evidence"].is_null());
}

#[test]
fn answer_types_the_keys_of_the_dialog_on_screen() {
    let env = Env::with_daemon();
    let out = env.work_dir().join("answer.txt");
    let ready = env.work_dir().join("raw");
    // The pane draws Claude Code 2.1.332's recorded permission dialog (four options,
    // "4. No"), then takes one key.
    let dialog = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/screens/claude/2.1.332/permission-dialog.txt"
    );
    let script = format!(
        "stty raw -echo; tail -n 16 '{dialog}' | sed 's/$/\\r/'; touch '{}'; head -c 1 > '{}'",
        ready.display(),
        out.display()
    );
    let p = env.run(&["--agent", "claude", "--", "sh", "-c", &script]);
    // A Notification that names a permission gate, and the dialog on screen, are one
    // permission decision (whichever comes first opens it, the other enriches it).
    claude_hook(
        &env,
        &p,
        r#"{"session_id":"s1","hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}"#,
        "d1",
    );
    let v = env.show(&p);
    assert_eq!(v["pending_decision"]["kind"], "permission", "{v:#}");
    let opened = env
        .events()
        .into_iter()
        .filter(|e| e["pane"] == p.as_str() && e["kind"] == "decision.opened")
        .count();
    assert_eq!(opened, 1, "one dialog, one decision");
    // The terminal is in raw mode before the key arrives.
    env.wait_until("the terminal in raw mode", || ready.exists());
    // deny is the option labelled "No", here number 4 (a fixed "3" would pick "Yes, and
    // switch to auto mode").
    env.ok(&["answer", &p, "deny"]);
    env.wait_until("the answer typed into the pane", || {
        std::fs::read_to_string(&out).unwrap_or_default() == "4"
    });
    assert!(env.show(&p)["pending_decision"].is_null());

    // No dialog on screen: nothing is typed, the decision stays open.
    let quiet = env.run(&["--agent", "claude", "--", "sleep", "100"]);
    claude_hook(
        &env,
        &quiet,
        r#"{"session_id":"s2","hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}"#,
        "d2",
    );
    let refused = env.attend(&["answer", &quiet, "allow"]);
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("no dialog Attend can read") && err.contains("nothing was typed"),
        "{err}"
    );
    assert!(!env.show(&quiet)["pending_decision"].is_null());
}

#[test]
fn rung_health_events_are_stored_and_listed() {
    use attend::engine::World;
    use attend::model::{Event, EventKind, PaneId, Rung, Source, Timestamp};
    use attend::service::store::db::Db;
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open_in(dir.path()).unwrap();
    let mut world = World::new();
    let (pane, mut events) = world.add_pane(Default::default(), Timestamp(1));
    world.seq += 1;
    events.push(Event {
        seq: world.seq,
        pane,
        kind: EventKind::RungHealth {
            rung: Rung::LifecycleHooks,
            from: "authoritative".into(),
            to: "identity-only".into(),
            reason: "hooks claimed working while self-report said idle".into(),
        },
        source: Source::new(Rung::LifecycleHooks, "ladder"),
        at: Timestamp(2),
    });
    db.commit(&world, &[pane], &events, &[]).unwrap();
    let back = db.events_after(0, 10).unwrap();
    assert_eq!(back, events);
    assert_eq!(back[1].kind.name(), "rung.health");
    assert_eq!(pane, PaneId(1));
    let data = attend::client::wire::event_data(&back[1]);
    assert_eq!(
        data["to"],
        zbus::zvariant::Value::from("identity-only"),
        "{data:?}"
    );
    assert_eq!(data["rung"], zbus::zvariant::Value::from("lifecycle-hooks"));
}
