//! Removing panes (docs/lifecycle-attention.md#removing-panes, docs/dbus-api.md): the
//! real `attend daemon` on a private bus, driven by the real `attend` CLI. A removed pane
//! leaves every surface and the database but not the event log; its id never comes back,
//! across a restart too; a running pane goes only with `--kill`; an external pane's next
//! hook makes a new pane; `--exited --older-than` measures from the exit; listeners see
//! `PaneRemoved`; the automatic removal takes exited, reviewed panes after the configured
//! age, at start too.

use crate::desktop;
use crate::support;

use desktop::{claude_payload, Desk};
use rusqlite::Connection;
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use support::Env;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json(env: &Env, args: &[&str]) -> Value {
    serde_json::from_str(&env.ok(args)).unwrap()
}

/// The ids `attend ls --json` lists.
fn ids(env: &Env) -> Vec<String> {
    json(env, &["ls", "--json"])
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect()
}

/// A pane whose program exits at once (`sh -c 'exit CODE'`) in workspace `ws`, waited
/// until it has exited.
fn exited(env: &Env, ws: &str, code: i32) -> String {
    let p = env.run(&["-w", ws, "--", "sh", "-c", &format!("exit {code}")]);
    env.wait_pane(&p, "exited", |v| v["live"]["state"] == "exited");
    p
}

/// The events of `pane` in the log, as `kind` strings.
fn kinds_of(env: &Env, pane: &str) -> Vec<String> {
    env.events()
        .iter()
        .filter(|e| e["pane"] == pane)
        .map(|e| e["kind"].as_str().unwrap().to_string())
        .collect()
}

fn no_such_pane(env: &Env, pane: &str) {
    let out = env.attend(&["show", pane]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("no such pane: {pane}")),
        "{}",
        stderr(&out)
    );
}

fn count(db: &Connection, sql: &str, pane: &str) -> i64 {
    db.query_row(sql, [pane], |r| r.get(0)).unwrap()
}

/// An RFC 3339 time of the CLI's JSON in milliseconds since the epoch.
fn millis(v: &Value) -> i64 {
    let t = humantime::parse_rfc3339(v.as_str().expect("a time")).unwrap();
    t.duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Sets the exit time of `pane` in the stopped daemon's database.
fn set_exited_at(state: &Path, pane: &str, at: i64) {
    let db = Connection::open(state.join("attend.db")).unwrap();
    let n = db
        .execute(
            "UPDATE panes SET exited_at = ?2 WHERE id = ?1",
            rusqlite::params![pane, at],
        )
        .unwrap();
    assert_eq!(n, 1, "{pane} has a row");
}

#[test]
fn a_removed_pane_leaves_every_surface_and_the_database_but_not_the_log() {
    let env = Env::with_daemon();
    let gone = exited(&env, "ws-gone", 3);
    let kept = env.run(&["-w", "ws-kept", "--", "sleep", "1000"]);
    env.wait_pane(&gone, "failed", |v| v["attention"] == "error");
    env.ok(&["task", "add", &gone, "a task"]);
    let status = json(&env, &["status", "--format", "json"]);
    assert_eq!(
        (status["panes"].as_u64(), status["counts"]["error"].as_u64()),
        (Some(2), Some(1))
    );

    assert_eq!(env.ok(&["rm", &gone]), format!("{gone}\n"));
    assert_eq!(ids(&env), [kept.as_str()]);
    no_such_pane(&env, &gone);
    let workspaces = json(&env, &["workspaces", "--json"]);
    let keys: Vec<&str> = workspaces
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["ws-kept"], "the emptied workspace is gone");
    let status = json(&env, &["status", "--format", "json"]);
    assert_eq!(
        json(&env, &["status", "--json"]),
        status,
        "--json is --format json"
    );
    assert_eq!(status["panes"], 1);
    assert_eq!(status["worst"], "none");
    assert_eq!(status["counts"]["error"], 0, "{status}");
    assert_eq!(
        env.attend(&["next"]).status.code(),
        Some(1),
        "nothing unread"
    );

    // The log keeps the pane's story and ends it with pane.removed by the user.
    let kinds = kinds_of(&env, &gone);
    assert_eq!(kinds.first().map(String::as_str), Some("pane.added"));
    assert!(kinds.contains(&"pane.exited".to_string()), "{kinds:?}");
    assert_eq!(kinds.last().map(String::as_str), Some("pane.removed"));
    let removed = env
        .events()
        .into_iter()
        .find(|e| e["pane"] == gone.as_str() && e["kind"] == "pane.removed")
        .unwrap();
    assert_eq!(removed["source"], "user:user");

    // The database: no row of the pane, its task, its workspace or tab; its events kept.
    let db = Connection::open(env.state_dir().join("attend.db")).unwrap();
    assert_eq!(
        count(&db, "SELECT count(*) FROM panes WHERE id = ?1", &gone),
        0
    );
    assert_eq!(
        count(&db, "SELECT count(*) FROM tasks WHERE pane = ?1", &gone),
        0
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM workspaces WHERE key = ?1",
            "ws-gone"
        ),
        0
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM tabs WHERE workspace = ?1",
            "ws-gone"
        ),
        0
    );
    assert!(count(&db, "SELECT count(*) FROM events WHERE pane = ?1", &gone) >= 3);

    // Gone means gone: a second removal is an unknown pane; nothing else was touched.
    let out = env.attend(&["rm", &gone]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("no such pane: {gone}")),
        "{}",
        stderr(&out)
    );
    let out = env.attend(&["rm", &kept, "p999"]);
    assert_eq!(out.status.code(), Some(2), "all or nothing");
    assert_eq!(env.show(&kept)["live"]["state"], "running");
}

#[test]
fn a_running_pane_is_refused_unless_kill_which_ends_it_first() {
    let env = Env::with_daemon();
    let dir = env.work_dir();
    let pidfile = dir.join("pid");
    let script = format!("echo $$ > '{}'; exec sleep 1000", pidfile.display());
    let p = env.run(&["--", "sh", "-c", &script]);
    env.wait_until("the pid file", || {
        std::fs::read_to_string(&pidfile).is_ok_and(|s| s.ends_with('\n'))
    });
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let alive = |pid: i32| nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok();

    let out = env.attend(&["rm", &p]);
    assert_eq!(out.status.code(), Some(2), "refused: {}", stderr(&out));
    assert!(stderr(&out).contains("still running"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--kill"),
        "says how: {}",
        stderr(&out)
    );
    assert_eq!(env.show(&p)["live"]["state"], "running");
    assert!(alive(pid));

    assert_eq!(env.ok(&["rm", "--kill", &p]), format!("{p}\n"));
    no_such_pane(&env, &p);
    assert!(!alive(pid), "the program was ended");
    let kinds = kinds_of(&env, &p);
    assert!(kinds.contains(&"pane.exited".to_string()), "{kinds:?}");
    assert_eq!(kinds.last().map(String::as_str), Some("pane.removed"));

    // An interactive shell ignores SIGTERM, and ends on the SIGHUP that comes first.
    let shell = env.run(&["--", "bash", "--norc", "-i"]);
    env.wait_until("the shell's prompt", || {
        env.attend1().get_screen(&shell).unwrap().contains("bash-")
    });
    let started = std::time::Instant::now();
    env.ok(&["rm", "--kill", &shell]);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(4), "SIGHUP ended it: {took:?}");
    let exit = env
        .events()
        .into_iter()
        .find(|e| e["pane"] == shell.as_str() && e["kind"] == "pane.exited")
        .expect("the shell's exit is in the log");
    assert_eq!(exit["signal"], 1, "SIGHUP: {exit}");

    // A program that ignores SIGHUP and SIGTERM gets SIGKILL after the grace times.
    let pidfile = dir.join("stubborn");
    let script = format!(
        "trap '' HUP TERM; echo $$ > '{}'; while :; do sleep 0.2; done",
        pidfile.display()
    );
    let s = env.run(&["--", "sh", "-c", &script]);
    env.wait_until("the pid file", || {
        std::fs::read_to_string(&pidfile).is_ok_and(|s| s.ends_with('\n'))
    });
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let started = std::time::Instant::now();
    env.ok(&["rm", "--kill", &s]);
    assert!(
        started.elapsed() >= Duration::from_secs(6),
        "SIGHUP, 1 s, SIGTERM, 5 s, then SIGKILL"
    );
    no_such_pane(&env, &s);
    assert!(!alive(pid));
}

#[test]
fn removed_ids_are_never_reused_across_a_restart() {
    let mut env = Env::with_daemon();
    let p1 = exited(&env, "ws", 0);
    let p2 = exited(&env, "ws", 0);
    assert_eq!((p1.as_str(), p2.as_str()), ("p1", "p2"));
    env.ok(&["rm", &p1, &p2]);
    assert!(ids(&env).is_empty());
    env.stop_daemon();
    env.start_daemon();
    let p3 = env.run(&["--", "sleep", "1000"]);
    assert_eq!(p3, "p3", "the highest removed id is not handed out again");
    no_such_pane(&env, &p2);
}

#[test]
fn a_later_hook_of_a_removed_external_session_makes_a_new_pane() {
    let env = Env::with_daemon();
    let payload = |event: &str| {
        claude_payload(
            &format!("{event}.json"),
            "ext-session",
            &[("cwd", json!(env.work_dir()))],
        )
    };
    // `attend hook claude` from this (living) test process: an external pane whose agent
    // is alive.
    let hook = |event: &str| {
        let out = env.attend_with(&["hook", "claude"], payload(event).as_bytes(), &[]);
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "{}",
            stderr(&out)
        );
    };
    hook("UserPromptSubmit");
    env.wait_until("the external pane", || ids(&env).len() == 1);
    let old = ids(&env).remove(0);
    let v = env.show(&old);
    assert_eq!(
        (v["owned"].as_bool(), v["live"]["state"].as_str()),
        (Some(false), Some("running"))
    );

    let out = env.attend(&["rm", "--kill", &old]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "Attend cannot end an external agent"
    );
    assert!(stderr(&out).contains("outside Attend"), "{}", stderr(&out));
    assert_eq!(env.ok(&["rm", &old]), format!("{old}\n"), "only forgotten");
    no_such_pane(&env, &old);

    hook("Stop");
    env.wait_until("a new pane", || ids(&env).len() == 1);
    let new = ids(&env).remove(0);
    assert_ne!(new, old, "never the old id");
    let v = env.show(&new);
    assert_eq!(v["session_id"], "ext-session");
    assert_eq!(v["lifecycle"], "done", "the hook applied to the new pane");
    no_such_pane(&env, &old);
}

#[test]
fn exited_panes_go_by_age_measured_from_their_exit() {
    let mut env = Env::with_daemon();
    let old = exited(&env, "ws", 0);
    let hour = exited(&env, "ws", 0);
    let fresh = exited(&env, "ws", 1);
    env.stop_daemon();
    let now = now_ms();
    set_exited_at(&env.state_dir(), &old, now - 3 * 86_400_000);
    set_exited_at(&env.state_dir(), &hour, now - 3_600_000);
    env.start_daemon();
    let running = env.run(&["--", "sleep", "1000"]);
    assert_eq!(
        millis(&env.show(&old)["exited_at"]),
        now - 3 * 86_400_000,
        "the exit time is part of the pane"
    );

    let dry = json(
        &env,
        &[
            "rm",
            "--exited",
            "--older-than",
            "2d",
            "--dry-run",
            "--json",
        ],
    );
    assert_eq!(
        dry,
        json!({"removed": [old], "dry_run": true, "worktrees": []})
    );
    assert_eq!(ids(&env).len(), 4, "a dry run removes nothing");
    assert_eq!(
        env.ok(&["rm", "--exited", "--older-than", "30m"]),
        format!("{old}\n{hour}\n")
    );
    assert_eq!(ids(&env), [fresh.clone(), running.clone()]);
    let all = json(&env, &["rm", "--exited", "--json"]);
    assert_eq!(
        all,
        json!({"removed": [fresh], "dry_run": false, "worktrees": []})
    );
    assert_eq!(
        ids(&env),
        [running.as_str()],
        "a running pane is never exited"
    );
    assert_eq!(
        env.ok(&["rm", "--exited"]),
        "",
        "nothing left: still success"
    );

    let out = env.attend(&["rm", "--exited", "--older-than", "soon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--older-than"), "{}", stderr(&out));
    let out = env.attend(&["rm", &running, "--older-than", "2h"]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
}

#[test]
fn a_dbus_listener_sees_pane_removed() {
    let env = Env::with_daemon();
    let p = exited(&env, "ws", 0);
    let proxy = env.attend1();
    // Subscribed before the removal.
    let mut removed = proxy.receive_pane_removed().unwrap();
    let mut events = proxy.receive_event().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let signal = removed.next().unwrap();
        let args = signal.args().unwrap();
        let event = events
            .find(|e| e.args().unwrap().kind == "pane.removed")
            .unwrap();
        let ev = event.args().unwrap();
        let _ = tx.send((args.seq, args.pane.clone(), ev.seq, ev.pane.clone()));
    });
    assert_eq!(proxy.remove(&[p.as_str()], false).unwrap(), [p.as_str()]);
    let (seq, pane, event_seq, event_pane) = rx
        .recv_timeout(support::TIMEOUT)
        .expect("PaneRemoved and Event within the timeout");
    assert_eq!(
        (pane.as_str(), event_pane.as_str()),
        (p.as_str(), p.as_str())
    );
    assert_eq!(seq, event_seq);
    let logged = env
        .events()
        .into_iter()
        .find(|e| e["kind"] == "pane.removed")
        .unwrap();
    assert_eq!(
        logged["seq"].as_u64(),
        Some(seq),
        "the signal carries the logged seq"
    );
}

/// `attend seen PANE` and a wait until its attention is none.
fn seen(env: &Env, pane: &str) {
    env.ok(&["seen", pane]);
    env.wait_pane(pane, "seen", |v| v["attention"] == "none");
}

#[test]
fn exited_reviewed_panes_go_by_themselves_after_the_configured_age() {
    let mut d = Desk::new();
    d.config("[panes]\nremove_exited_after = \"1s\"\n");
    d.start_daemon(&["--no-tray", "--no-notifications"]);
    let unread = exited(&d, "ws", 0);
    let reviewed = exited(&d, "ws", 0);
    assert_eq!(d.show(&unread)["attention"], "unread");
    seen(&d, &reviewed);
    let exited_at = millis(&d.show(&reviewed)["exited_at"]);
    d.wait_until("the reviewed pane removed", || !ids(&d).contains(&reviewed));
    let removed = d
        .events()
        .into_iter()
        .find(|e| e["pane"] == reviewed.as_str() && e["kind"] == "pane.removed")
        .unwrap();
    assert_eq!(removed["source"], "user:auto-remove");
    let at = removed["at"].as_i64().unwrap();
    assert!(
        at - exited_at >= 1_000,
        "not before its age: {at} - {exited_at}"
    );
    assert_eq!(
        ids(&d),
        [unread.as_str()],
        "an unread pane stays, older or not"
    );
    // Reviewed later: it is past its age already, so it goes at once.
    d.ok(&["seen", &unread]);
    d.wait_until("the other one removed", || ids(&d).is_empty());
}

#[test]
fn the_automatic_removal_applies_at_start() {
    let mut d = Desk::new();
    d.start_daemon(&["--no-tray", "--no-notifications"]);
    let reviewed = exited(&d, "ws", 0);
    let unread = exited(&d, "ws", 0);
    seen(&d, &reviewed);
    d.stop_daemon();
    let two_hours_ago = now_ms() - 7_200_000;
    set_exited_at(&d.state_dir(), &reviewed, two_hours_ago);
    set_exited_at(&d.state_dir(), &unread, two_hours_ago);
    d.config("[panes]\nremove_exited_after = \"1h\"\n");
    d.start_daemon(&["--no-tray", "--no-notifications"]);
    d.wait_until("the reviewed pane removed at start", || {
        !ids(&d).contains(&reviewed)
    });
    assert_eq!(ids(&d), [unread]);
    assert!(
        d.daemon_log()
            .contains("removed this long after their exit"),
        "the setting is logged"
    );
}
