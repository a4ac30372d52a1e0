//! The hook client's spool and the daemon's replay, end to end (docs/adapters.md,
//! docs/lifecycle-attention.md#names-and-ordering): real `attend hook` processes, a real
//! daemon on a private bus, `attend events --json` and `attend show --json` to check.

use crate::support;

use attend::service::store::spool::{append, SpoolRecord, SPOOL_FILE};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use support::{attend_bin, Env};

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn prompt(session: &str, text: &str) -> String {
    json!({"session_id": session, "cwd": "/tmp/proj", "hook_event_name": "UserPromptSubmit", "prompt": text}).to_string()
}

fn stop(session: &str, text: &str) -> String {
    json!({"session_id": session, "cwd": "/tmp/proj", "hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": text}).to_string()
}

/// `attend hook claude` with `payload` on stdin (and ATTEND_PANE when `pane` is given).
fn hook(env: &Env, pane: Option<&str>, payload: &str) -> Output {
    match pane {
        Some(p) => env.attend_with(
            &["hook", "claude"],
            payload.as_bytes(),
            &[("ATTEND_PANE", p)],
        ),
        None => env.attend_with(&["hook", "claude"], payload.as_bytes(), &[]),
    }
}

/// The events of `pane` whose kind starts with `prefix`.
fn events_of(events: &[Value], pane: &str, prefix: &str) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e["pane"] == pane && e["kind"].as_str().unwrap().starts_with(prefix))
        .cloned()
        .collect()
}

/// `attend ls --json`.
fn panes(env: &Env) -> Vec<Value> {
    serde_json::from_str(&env.ok(&["ls", "--json"])).unwrap()
}

/// The pane whose session id is `session`, once it exists.
fn pane_of_session(env: &Env, session: &str) -> Value {
    let mut found = None;
    env.wait_until(&format!("a pane for session {session}"), || {
        found = panes(env).into_iter().find(|p| p["session_id"] == session);
        found.is_some()
    });
    found.unwrap()
}

/// Daemon stopped, 200 hooks fired by real `attend hook` processes (four panes, each a
/// stream of 50 alternating prompts and stops, the four streams concurrently), daemon
/// started: every hook is applied, each pane's in its order, at its arrival time, none
/// twice — not even when the same batch is replayed again after a crash.
#[test]
fn two_hundred_hooks_fired_while_the_daemon_is_down_are_replayed_in_order_once() {
    let mut env = Env::with_daemon();
    let ids: Vec<String> = (0..4)
        .map(|_| env.run(&["--agent", "claude", "--", "sleep", "1000"]))
        .collect();
    env.kill_daemon();
    // The hooks below come from this test, not from inside the panes: with the panes'
    // programs still running (kept by their holders) they would be refused as claims
    // from outside the pane. End the programs too, so the claims are believed.
    support::kill_holders(&env.state_dir());

    let fired = std::thread::scope(|s| {
        let handles: Vec<_> = ids
            .iter()
            .map(|pane| {
                let env = &env;
                s.spawn(move || {
                    for i in 0..50 {
                        let session = format!("s-{pane}");
                        let payload = if i % 2 == 0 {
                            prompt(&session, &format!("prompt {i}"))
                        } else {
                            stop(&session, &format!("msg-{pane}-{i}"))
                        };
                        let out = hook(env, Some(pane), &payload);
                        assert_eq!(out.status.code(), Some(0));
                        assert_eq!(stderr(&out), "", "spooling is silent");
                        assert!(out.stdout.is_empty());
                    }
                })
            })
            .collect();
        handles.into_iter().for_each(|h| h.join().unwrap());
        now_ms()
    });
    let records = env.spool_records();
    assert_eq!(records.len(), 200, "every hook was spooled");
    let spool_copy = std::fs::read(env.spool_dir().join(SPOOL_FILE)).unwrap();

    env.start_daemon();
    let events = env.events();
    for pane in &ids {
        let agent = events_of(&events, pane, "agent.");
        let values: Vec<&str> = agent.iter().map(|e| e["value"].as_str().unwrap()).collect();
        let expected: Vec<&str> = (0..50)
            .map(|i| if i % 2 == 0 { "working" } else { "done" })
            .collect();
        assert_eq!(values, expected, "{pane}: all 50 applied, in order, once");
        let times: Vec<i64> = agent.iter().map(|e| e["at"].as_i64().unwrap()).collect();
        assert!(
            times.windows(2).all(|w| w[0] <= w[1]),
            "{pane}: arrival times in order: {times:?}"
        );
        assert!(
            times.iter().all(|&t| t <= fired),
            "{pane}: replayed events keep their arrival times"
        );
        let v = env.show(pane);
        assert_eq!(v["lifecycle"], "done");
        assert_eq!(v["last_message"], format!("msg-{pane}-49"));
        assert_eq!(v["session_id"], format!("s-{pane}"));
    }
    assert!(env.spool_records().is_empty(), "the spool was consumed");

    // A crash between the commit and the removal of the batch: the same records come back
    // as a leftover batch at the next start, and nothing is applied twice.
    std::fs::write(
        env.spool_dir()
            .join("hooks.spool.replaying-00000000000000000001"),
        &spool_copy,
    )
    .unwrap();
    env.kill_daemon();
    env.start_daemon();
    assert_eq!(env.events(), events, "the replayed batch changed nothing");
    let left: Vec<_> = std::fs::read_dir(env.spool_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("replaying"))
        .collect();
    assert!(left.is_empty(), "the leftover batch was finished");
}

/// A hook spooled while the daemon runs (one that timed out while it was busy) is drained
/// through the inotify watch within seconds, at its arrival time; a torn record before
/// it is reported in the log and skipped.
#[test]
fn a_spool_that_grows_while_the_daemon_runs_is_drained() {
    let env = Env::with_daemon();
    let p = env.run(&["--agent", "claude", "--", "sleep", "1000"]);
    let dir = env.spool_dir();
    std::fs::create_dir_all(&dir).unwrap();
    // A writer that died mid-record.
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(SPOOL_FILE))
        .unwrap()
        .write_all(br#"{"delivery_id":"torn","agent":"cla"#)
        .unwrap();
    let arrived = now_ms() - 60_000;
    let mut context = BTreeMap::new();
    context.insert("pane".to_string(), json!(p));
    append(
        &dir,
        &SpoolRecord {
            delivery_id: "late-1".into(),
            agent: "claude".into(),
            event: String::new(),
            payload: stop("s-late", "drained from the spool"),
            context,
            arrived_at: arrived,
        },
    )
    .unwrap();
    let start = Instant::now();
    let v = env.wait_pane(&p, "the spooled Stop", |v| v["lifecycle"] == "done");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "drained in seconds"
    );
    assert_eq!(v["last_message"], "drained from the spool");
    let done = events_of(&env.events(), &p, "agent.done");
    assert_eq!(done.len(), 1);
    assert_eq!(done[0]["at"], arrived, "the event keeps its arrival time");
    env.wait_until("the torn record is reported", || {
        env.daemon_log().contains("torn spool record skipped")
    });
}

/// A daemon that does not answer within the deadline (stopped with SIGSTOP): the hook
/// spools and exits 0 in time, silently; once the daemon runs again the late call and
/// the spooled copy are one delivery, applied once.
#[test]
fn a_hook_the_daemon_does_not_answer_in_time_is_spooled_and_applied_once() {
    let env = Env::with_daemon();
    let daemon = nix::unistd::Pid::from_raw(env.daemon_pid() as i32);
    nix::sys::signal::kill(daemon, nix::sys::signal::Signal::SIGSTOP).unwrap();
    let start = Instant::now();
    let out = hook(&env, None, &prompt("s-slow", "hello"));
    let took = start.elapsed();
    nix::sys::signal::kill(daemon, nix::sys::signal::Signal::SIGCONT).unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stderr(&out), "", "spooling is normal and silent");
    assert!(
        took < Duration::from_millis(1500),
        "the 300 ms deadline holds (with slack for a loaded machine): {took:?}"
    );

    let pane = pane_of_session(&env, "s-slow");
    let id = pane["id"].as_str().unwrap().to_string();
    env.wait_until("the spool is drained", || env.spool_records().is_empty());
    env.wait_pane(&id, "working", |v| v["lifecycle"] == "working");
    // Both copies are through before the absence of a second delivery is asserted: every
    // spooled batch is applied (no live file, no batch being replayed), and a marker hook
    // sent now — on the daemon's bus connection behind the late call — is stored.
    env.wait_until("every spooled batch is applied", || env.spooled() == 0);
    let marker = hook(&env, None, &prompt("s-marker", "marker"));
    assert_eq!(marker.status.code(), Some(0));
    pane_of_session(&env, "s-marker");
    let events = env.events();
    assert_eq!(events_of(&events, &id, "pane.added").len(), 1);
    assert_eq!(events_of(&events, &id, "agent.").len(), 1, "applied once");
    assert_eq!(
        panes(&env)
            .iter()
            .filter(|p| p["session_id"] == "s-slow")
            .count(),
        1
    );
}

/// Without a daemon the hook spools silently (with its delivery id, arrival time and
/// ancestors); malformed JSON is refused with one line and nothing is spooled; when even
/// the spool cannot be written, one warning line — always exit 0.
#[test]
fn the_hook_client_spools_refuses_bad_input_and_never_fails() {
    let env = Env::new(); // A bus, no daemon.
    std::fs::create_dir_all(env.dir.path().join("run")).unwrap();
    let before = now_ms();
    let payload = prompt("s-down", "hi");
    let out = env.attend_with(
        &["hook", "claude"],
        payload.as_bytes(),
        &[("ATTEND_PANE", "p7")],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stderr(&out), "");
    let recs = env.spool_records();
    assert_eq!(recs.len(), 1);
    let r = &recs[0];
    assert_eq!(r.agent, "claude");
    assert_eq!(r.payload, payload, "the payload verbatim");
    assert_eq!(r.delivery_id.len(), 36, "a UUID: {}", r.delivery_id);
    assert!(r.arrived_at >= before && r.arrived_at <= now_ms());
    assert_eq!(r.context["pane"], "p7");
    assert_eq!(
        r.context["pids"][0][0],
        json!(std::process::id()),
        "the nearest ancestor is this test process"
    );

    let out = env.attend_with(&["hook", "claude"], b"{\"hook_event_name\": ", &[]);
    assert_eq!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert!(
        err.starts_with(
            "attend: hook not delivered: hook payload is not valid JSON (line 1, column"
        ),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert_eq!(
        env.spool_records().len(),
        1,
        "nothing spooled for bad input"
    );

    // No bus at all: still spooled.
    let out = env.attend_with(
        &["hook", "claude"],
        payload.as_bytes(),
        &[("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")],
    );
    assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
    assert_eq!(env.spool_records().len(), 2);

    // The runtime directory cannot be made (its parent is a file): one warning line.
    let file = env.dir.path().join("not-a-dir");
    std::fs::write(&file, "").unwrap();
    let out = env.attend_with(
        &["hook", "claude"],
        payload.as_bytes(),
        &[("XDG_RUNTIME_DIR", file.to_str().unwrap())],
    );
    assert_eq!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert!(
        err.starts_with("attend: hook lost: not delivered ("),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one line: {err}");
}

/// Writes `payload` to a file in the test directory; returns its path.
fn payload_file(env: &Env, name: &str, payload: &str) -> PathBuf {
    let path = env.dir.path().join(name);
    std::fs::write(&path, payload).unwrap();
    path
}

/// `attend hook claude < FILE` as a shell command, with `ATTEND_PANE` set to `pane` when
/// given.
fn hook_line(pane: Option<&str>, file: &Path) -> String {
    let assign = pane
        .map(|p| format!("ATTEND_PANE={p} "))
        .unwrap_or_default();
    format!(
        "{assign}'{}' hook claude < '{}'",
        attend_bin(),
        file.display()
    )
}

/// A hook that claims a pane it does not run under (another pane's id, or garbage) is an
/// external pane, with a warning in the log; the pane it runs under is believed.
#[test]
fn a_pane_claim_holds_only_under_that_panes_process() {
    let env = Env::with_daemon();
    let other = env.run(&["--agent", "claude", "--", "sleep", "1000"]);
    let f1 = payload_file(&env, "other.json", &prompt("s-other", "x"));
    let f2 = payload_file(&env, "garbage.json", &prompt("s-garbage", "x"));
    let f3 = payload_file(&env, "own.json", &prompt("s-own", "x"));
    let script = format!(
        "{}; {}; {}; exec sleep 1000",
        hook_line(Some(&other), &f1),
        hook_line(Some("garbage"), &f2),
        hook_line(None, &f3), // ATTEND_PANE as the daemon set it: this pane.
    );
    let own = env.run(&["--agent", "shell", "--", "sh", "-c", &script]);

    let v = env.wait_pane(&own, "its own hook", |v| v["session_id"] == "s-own");
    assert_eq!(v["lifecycle"], "working");
    assert_eq!(v["agent"], "claude", "an agent started in a shell pane");
    for session in ["s-other", "s-garbage"] {
        let p = pane_of_session(&env, session);
        assert_eq!(p["owned"], false, "{session}: external");
        assert_eq!(p["lifecycle"], "working");
        assert_eq!(p["live"]["state"], "running");
    }
    let o = env.show(&other);
    assert_eq!(o["lifecycle"], "unknown", "the claimed pane is untouched");
    assert!(o["session_id"].is_null());
    let log = env.daemon_log();
    assert!(log.contains("does not run under its process"), "{log}");
    assert!(log.contains("not a pane id"), "{log}");
}

/// An external pane's `live` follows the agent's process (found among the hook's
/// ancestors, watched with a pidfd): its exit makes the pane exited with no code and no
/// signal (not a failure: the lifecycle stays), and a hook from a new process of the same
/// session makes it run again.
#[test]
fn an_external_panes_live_follows_its_agent_process() {
    let env = Env::with_daemon();
    let file = payload_file(&env, "ext.json", &prompt("s-ext", "x"));
    // The hook's parent is the shell, which then becomes `sleep` (same pid): the agent.
    let agent = || {
        let mut c = Command::new("sh");
        c.arg("-c")
            .arg(format!("{}; exec sleep 1000", hook_line(None, &file)))
            .env("DBUS_SESSION_BUS_ADDRESS", &env.bus.address)
            .env("XDG_RUNTIME_DIR", env.dir.path().join("run"))
            .env_remove("ATTEND_PANE")
            .stdin(Stdio::null());
        c.spawn().unwrap()
    };
    let mut first = agent();
    let p = pane_of_session(&env, "s-ext");
    let id = p["id"].as_str().unwrap().to_string();
    assert_eq!(p["live"]["state"], "running");

    first.kill().unwrap();
    first.wait().unwrap();
    let v = env.wait_pane(&id, "exited", |v| v["live"]["state"] == "exited");
    assert_eq!(
        v["live"],
        json!({"state": "exited", "code": null, "signal": null})
    );
    assert_eq!(
        v["lifecycle"], "working",
        "an exit without a code is no failure"
    );
    assert_eq!(events_of(&env.events(), &id, "pane.exited").len(), 1);

    let mut second = agent();
    let v = env.wait_pane(&id, "running again", |v| v["live"]["state"] == "running");
    assert_eq!(v["session_id"], "s-ext");
    assert_eq!(
        panes(&env)
            .iter()
            .filter(|p| p["session_id"] == "s-ext")
            .count(),
        1,
        "the same pane"
    );
    second.kill().unwrap();
    second.wait().unwrap();
    env.wait_pane(&id, "exited again", |v| v["live"]["state"] == "exited");
}
