//! Restart without losing state (docs/reliability.md): kill -9 the
//! daemon, start it again, and every pane, attention and the event seq are back; the
//! programs kept by their pane holders still run under the same pane; a pane whose holder
//! vanished shows exited with an unknown status. A corrupt database is moved aside, loudly.

use crate::support;

use serde_json::Value;
use support::Env;

#[test]
fn after_kill_9_every_pane_attention_and_the_seq_come_back_and_the_programs_still_run() {
    let mut env = Env::with_daemon();
    let bell = env.run(&[
        "-w",
        "alpha",
        "-n",
        "bell",
        "--",
        "sh",
        "-c",
        "printf '\\a'; echo $$ > bell.pid; exec sleep 100",
    ]);
    let hooked = env.run(&[
        "-w", "beta", "-t", "agents", "--agent", "claude", "--", "sleep", "100",
    ]);
    let done = env.run(&["--", "sh", "-c", "exit 4"]);
    env.wait_pane(&bell, "bell", |v| v["attention"] == "unread");
    env.wait_pane(&done, "exit", |v| v["live"]["state"] == "exited");
    let stop = r#"{"session_id":"s-restart","hook_event_name":"Stop","last_assistant_message":"All done."}"#;
    env.hook("claude", &hooked, stop, "d-restart").unwrap();
    let before: Vec<Value> = serde_json::from_str(&env.ok(&["ls", "--json"])).unwrap();
    let events_before = env.events();
    let last_seq = events_before.last().unwrap()["seq"].as_u64().unwrap();

    let bell_pid: i32 = std::fs::read_to_string(env.work_dir().join("bell.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();

    env.kill_daemon();
    // While the daemon is away, the holder of one pane dies too (its program is hung up).
    let holder = support::holder_of(&env.state_dir(), &hooked).expect("the holder of p2");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(holder as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    assert!(
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(bell_pid), None).is_ok(),
        "the program outlives the daemon"
    );
    env.start_daemon();

    let after: Vec<Value> = serde_json::from_str(&env.ok(&["ls", "--json"])).unwrap();
    assert_eq!(after.len(), before.len());
    for (b, a) in before.iter().zip(&after) {
        for key in [
            "id",
            "name",
            "workspace",
            "tab",
            "agent",
            "lifecycle",
            "attention",
            "last_message",
            "session_id",
            "resume_argv",
            "pending_decision",
            "attention_changed_at",
        ] {
            assert_eq!(
                a[key], b[key],
                "{key} of {} changed across the restart",
                b["id"]
            );
        }
    }
    // The pane whose program still runs is re-adopted: running, the same process.
    assert_eq!(env.show(&bell)["live"]["state"], "running");
    assert!(nix::sys::signal::kill(nix::unistd::Pid::from_raw(bell_pid), None).is_ok());
    // The pane whose holder vanished: exited with unknown code, last lifecycle kept, no
    // failure invented.
    let h = env.show(&hooked);
    assert_eq!(h["lifecycle"], "done");
    assert_eq!(h["last_lifecycle"], "done");
    assert_eq!(h["attention"], "unread");
    assert_eq!(
        h["live"],
        serde_json::json!({"state": "exited", "code": null, "signal": null})
    );
    assert_eq!(
        h["resume_argv"],
        serde_json::json!(["claude", "--resume", "s-restart"])
    );
    // The one that had exited before keeps its code.
    assert_eq!(env.show(&done)["live"]["code"], 4);

    // The seq continues: the restart's pane.exited events follow the old log.
    let events_after = env.events();
    assert_eq!(events_after[..events_before.len()], events_before[..]);
    let new: Vec<&Value> = events_after[events_before.len()..].iter().collect();
    assert_eq!(
        new.len(),
        1,
        "one pane.exited for the pane whose holder vanished: {new:?}"
    );
    for (i, e) in new.iter().enumerate() {
        assert_eq!(e["seq"].as_u64().unwrap(), last_seq + 1 + i as u64);
        assert_eq!(e["kind"], "pane.exited");
    }
    // Pane ids are never reused.
    assert_eq!(env.run(&["--", "sleep", "100"]), "p4");
    // The re-adopted pane obeys as before: kill ends it with the signal.
    env.ok(&["kill", &bell]);
    let shown = env.wait_pane(&bell, "the kill", |v| v["live"]["state"] == "exited");
    assert_eq!(shown["live"]["signal"], 15, "{shown}");
    // The hook delivery is still known: a replay does not apply again.
    let seq = env.hook("claude", &hooked, stop, "d-restart").unwrap();
    assert!(
        seq <= last_seq,
        "replayed delivery answered with its recorded seq {seq}"
    );
}

#[test]
fn resume_respawns_an_exited_pane_under_the_same_id() {
    let env = Env::with_daemon();
    let p = env.run(&["--", "sh", "-c", "echo run >> runs; exit 0"]);
    env.wait_pane(&p, "first run exits", |v| v["live"]["state"] == "exited");
    env.ok(&["resume", &p]);
    let runs = env.work_dir().join("runs");
    env.wait_until("the second run", || {
        std::fs::read_to_string(&runs)
            .unwrap_or_default()
            .lines()
            .count()
            == 2
    });
    let v = env.wait_pane(&p, "second run exits", |v| v["live"]["state"] == "exited");
    assert_eq!(v["id"], p.as_str());
    assert_eq!(env.ok(&["ls", "--json"]).matches("\"id\"").count(), 1);
    // A running pane cannot be resumed.
    let q = env.run(&["--", "sleep", "100"]);
    assert_eq!(env.attend(&["resume", &q]).status.code(), Some(2));
}

/// A killed shell pane reads `failed`; resumed, it is a fresh shell whose lifecycle is
/// its own again (unknown, then idle at its prompt), not the last run's `failed`.
#[test]
fn a_resumed_pane_leaves_the_last_runs_lifecycle_behind() {
    let env = Env::with_daemon();
    let p = env.run(&["--", "bash", "--norc", "--noprofile", "-i"]);
    env.wait_pane(&p, "the shell at its prompt", |v| v["lifecycle"] == "idle");
    env.ok(&["kill", &p, "-s", "KILL"]);
    env.wait_pane(&p, "the kill", |v| {
        v["live"]["state"] == "exited" && v["lifecycle"] == "failed"
    });
    env.ok(&["resume", &p]);
    let v = env.wait_pane(&p, "the resumed shell at its prompt", |v| {
        v["live"]["state"] == "running" && v["lifecycle"] == "idle"
    });
    assert_eq!(v["id"], p.as_str());
}

#[test]
fn a_corrupt_database_is_moved_aside_and_reported() {
    let mut env = Env::new();
    let state = env.state_dir();
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("attend.db"), vec![0x5a; 8192]).unwrap();
    env.start_daemon();
    let log = env.daemon_log();
    assert!(log.contains("is corrupt"), "{log}");
    let aside: Vec<String> = std::fs::read_dir(&state)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("attend.db.corrupt-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert!(
        log.contains(&aside[0]),
        "the message says where it went: {log}"
    );
    assert_eq!(env.ok(&["ls", "--json"]).trim(), "[]");
}

#[test]
fn a_second_daemon_on_another_bus_refuses_a_state_directory_in_use() {
    let mut first = Env::new();
    let pid = first.start_daemon();
    let pane = first.run(&["--", "sleep", "60"]);
    first.wait_pane(&pane, "the pane runs", |p| p["live"]["state"] == "running");

    // A second session (another bus, e.g. an SSH login) with the same state directory.
    let second = Env::new();
    let mut daemon = second
        .cmd()
        .args(["daemon", "--no-tray", "--no-notifications"])
        .env("ATTEND_STATE_DIR", first.state_dir())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut status = None;
    assert!(
        support::poll(second.timeout, || {
            status = daemon.try_wait().unwrap();
            status.is_some()
        }),
        "the second daemon keeps running on a state directory in use"
    );
    let mut err = String::new();
    std::io::Read::read_to_string(&mut daemon.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.unwrap().code(), Some(2), "{err}");
    // It names the running instance: its pid and its bus.
    assert!(
        err.contains("already uses the state directory")
            && err.contains(&format!("pid {pid}, bus {} (:", first.bus.address)),
        "{err}"
    );
    assert_ne!(first.bus.address, second.bus.address);

    // `attend up` there says so at once (the daemon it started exited), not after its
    // whole 15 s wait for the name.
    let started = std::time::Instant::now();
    let up = second
        .cmd()
        .args(["up", "--no-panel", "--no-tray", "--no-notifications"])
        .env("ATTEND_STATE_DIR", first.state_dir())
        .output()
        .unwrap();
    let took = started.elapsed();
    let said = String::from_utf8_lossy(&up.stderr);
    assert_eq!(up.status.code(), Some(4), "{said}");
    assert!(
        said.contains("exited at once") && said.contains("already uses the state directory"),
        "{said}"
    );
    assert!(
        took < std::time::Duration::from_secs(10),
        "{took:?}: {said}"
    );

    // Any other command in such a shell cannot reach the daemon (exit 3) and says on
    // which bus it runs and how to adopt it, rather than "start it with attend up".
    let bare = tempfile::tempdir().unwrap();
    let ls = first
        .cmd()
        .arg("ls")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env("XDG_RUNTIME_DIR", bare.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&ls.stderr);
    assert_eq!(ls.status.code(), Some(3), "{ls:?}");
    assert!(
        said.contains(&format!(
            "the daemon runs (pid {pid}) on another bus: run `eval \"$(attend up)\"`"
        )) && said.contains(&first.bus.address),
        "{said}"
    );

    // `attend up` in a shell with no bus at all (no variable, no socket, nothing recorded)
    // finds the running daemon's bus in the lock file and uses it: no second bus, no
    // second daemon; its stdout is the line that sets the variable.
    let up = first
        .cmd()
        .args(["up", "--no-panel"])
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env("XDG_RUNTIME_DIR", bare.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&up.stdout);
    assert!(up.status.success(), "{up:?}");
    assert_eq!(
        said.trim(),
        format!(
            "DBUS_SESSION_BUS_ADDRESS='{}'; export DBUS_SESSION_BUS_ADDRESS;",
            first.bus.address
        ),
        "{up:?}"
    );
    let notes = String::from_utf8_lossy(&up.stderr);
    assert!(
        notes.contains(&format!("already runs (pid {pid})"))
            && notes.contains("daemon is already running"),
        "{notes}"
    );

    // The first daemon's panes and store are untouched.
    let shown = first.show(&pane);
    assert_eq!(shown["live"]["state"], "running", "{shown}");
    first.ok(&["seen", &pane]);
    let log = first.daemon_log();
    assert!(!log.contains("commit failed"), "{log}");
    assert!(!log.contains("now exited"), "{log}");
}

/// A permission dialog no hook reports (the screen chrome opened its decision) stays open
/// through a daemon restart — `kill -9` and a clean stop alike: the restart restores the
/// decision, and nothing of the new daemon's start-up (unfocus, re-adopting the holder)
/// closes it before the chrome reads the pane again. An answer then still reaches it.
#[test]
fn a_gate_seen_only_on_screen_survives_a_restart() {
    let mut env = Env::with_daemon();
    let dialog = format!(
        "{}/tests/fixtures/screens/claude/2.1.332/permission-dialog.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = env.work_dir().join("key.txt");
    let script = format!(
        "cat '{dialog}'; stty -icanon -echo min 1; dd bs=1 count=1 of='{}' 2>/dev/null; exec sleep 100",
        out.display()
    );
    let p = env.run(&["--agent", "claude", "--", "sh", "-c", &script]);
    env.attend1().resize(&p, 40, 120).unwrap();
    env.wait_pane(&p, "the screen's gate", |v| {
        v["pending_decision"]["kind"] == "permission"
    });
    for stop in [true, false] {
        if stop {
            env.kill_daemon();
        } else {
            env.stop_daemon();
        }
        env.start_daemon();
        std::thread::sleep(std::time::Duration::from_millis(1500));
        let v = env.show(&p);
        assert_eq!(v["lifecycle"], "blocked", "after a restart: {v:#}");
        assert_eq!(v["pending_decision"]["kind"], "permission", "{v:#}");
    }
    // The dialog is still drawn (the holder kept the screen): `allow` presses "1".
    env.ok(&["answer", &p, "allow"]);
    env.wait_until("the key typed", || {
        std::fs::read_to_string(&out).is_ok_and(|s| s == "1")
    });
}
