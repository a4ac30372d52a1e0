//! A follower misses nothing across daemon restarts (docs/reliability.md "Followers"):
//! `attend events --follow --json` runs while the daemon is restarted 20 times (`kill -9`
//! and SIGTERM in turn), with events made before each restart (a pane, a live hook),
//! during it (hooks spooled while the daemon is down, replayed at its start; the panes
//! that died with it) and after it; what the follower printed is every seq from the
//! first to the last once and in order, and equal to what `attend events` prints.

use crate::support;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use support::Env;

/// Restarts under the follower.
const RESTARTS: usize = 20;

/// `attend events --follow --json` and what it printed so far.
struct Follower {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
    stderr: Arc<Mutex<String>>,
}

impl Follower {
    fn start(env: &Env) -> Follower {
        Follower::start_with(env, &[])
    }

    fn start_with(env: &Env, vars: &[(&str, &str)]) -> Follower {
        let mut child = env
            .cmd()
            .args(["events", "--follow", "--json"])
            .envs(vars.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let out = BufReader::new(child.stdout.take().unwrap());
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in out.lines() {
                let Ok(line) = line else { break };
                sink.lock().unwrap().push(line);
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err = child.stderr.take().unwrap();
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Follower {
            child,
            lines,
            stderr,
        }
    }

    /// The events printed so far (every stdout line must be one JSON event).
    fn events(&self) -> Vec<Value> {
        self.lines
            .lock()
            .unwrap()
            .iter()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
            .collect()
    }

    fn last_seq(&self) -> u64 {
        self.events()
            .last()
            .map_or(0, |e| e["seq"].as_u64().unwrap())
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One Claude hook of `session` through the real hook client (spooled while the daemon
/// is down).
fn hook(env: &Env, session: &str, event: &str) {
    let payload = json!({"session_id": session, "cwd": "/tmp/follow", "hook_event_name": event,
        "prompt": "go", "stop_hook_active": false, "last_assistant_message": "done"});
    let out = env.attend_with(&["hook", "claude"], payload.to_string().as_bytes(), &[]);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "attend hook: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn seqs(events: &[Value]) -> Vec<u64> {
    events.iter().map(|e| e["seq"].as_u64().unwrap()).collect()
}

/// Asserts that the follower printed, once and in order, every event `attend events`
/// prints (waiting a bounded time for it to catch up); returns how many.
fn assert_followed(env: &Env, follower: &Follower) -> usize {
    let all = env.events();
    let last = all.last().unwrap()["seq"].as_u64().unwrap();
    let caught_up = support::poll(env.timeout, || follower.last_seq() >= last);
    let printed = follower.events();
    let got = seqs(&printed);
    let gaps: Vec<(u64, u64)> = got
        .windows(2)
        .filter(|w| w[1] != w[0] + 1)
        .map(|w| (w[0], w[1]))
        .collect();
    assert!(
        gaps.is_empty(),
        "the follower skipped or repeated seqs (printed {} of {last}): {gaps:?}\n--- its stderr ---\n{}",
        got.len(),
        follower.stderr.lock().unwrap()
    );
    assert!(
        caught_up,
        "the follower stopped at seq {} of {last}\n--- its stderr ---\n{}",
        follower.last_seq(),
        follower.stderr.lock().unwrap()
    );
    assert_eq!(
        got.first(),
        Some(&1),
        "the follower started at the first event"
    );
    assert_eq!(seqs(&all), got, "the follower and `attend events` differ");
    assert_eq!(printed, all, "the follower and `attend events` differ");
    got.len()
}

#[test]
fn a_follower_prints_every_event_once_and_in_order_across_twenty_restarts() {
    let started = Instant::now();
    let mut env = Env::with_daemon();
    let follower = Follower::start(&env);
    let mut spooled = 0;
    for i in 0..RESTARTS {
        let session = format!("s-follow-{i}");
        // Before: a running pane (it dies with the daemon) and a live hook.
        env.run(&["--", "sleep", "30"]);
        hook(&env, &session, "UserPromptSubmit");
        if i % 2 == 0 {
            env.kill_daemon();
        } else {
            env.stop_daemon();
        }
        // During: spooled, replayed at the next start.
        hook(&env, &session, "Stop");
        hook(&env, &session, "UserPromptSubmit");
        // (A live hook may spool too when the daemon answers late on a loaded machine.)
        let waiting = env.spooled();
        assert!(
            waiting >= 2,
            "the hooks during outage {i} spooled: {waiting}"
        );
        spooled += waiting;
        env.start_daemon();
        // After.
        hook(&env, &session, "Stop");
    }
    let followed = assert_followed(&env, &follower);
    let noted = follower.stderr.lock().unwrap().clone();
    println!(
        "{RESTARTS} restarts, {followed} events followed, {spooled} hooks spooled, {:.1} s; \
         follower stderr: {} lines, first: {:?}",
        started.elapsed().as_secs_f64(),
        noted.lines().count(),
        noted.lines().take(2).collect::<Vec<_>>()
    );
}

/// `attend events --follow` started with no daemon waits for one (as `attend status
/// --follow` does), saying so on stderr, and prints its events once it comes; without
/// `--follow` the command still exits 3.
#[test]
fn a_follower_started_before_the_daemon_waits_for_it() {
    let mut env = Env::new();
    let out = env.attend(&["events"]);
    assert_eq!(out.status.code(), Some(3), "no daemon, no --follow");
    let mut follower = Follower::start(&env);
    let noted = support::poll(env.timeout, || {
        let err = follower.stderr.lock().unwrap();
        err.contains("the daemon is not running; waiting") && err.contains("attend up")
    });
    assert!(
        noted && follower.child.try_wait().unwrap().is_none(),
        "the follower waits: {:?}; stderr: {}",
        follower.child.try_wait(),
        follower.stderr.lock().unwrap()
    );
    env.start_daemon();
    hook(&env, "s-late", "UserPromptSubmit");
    // Every event of the new daemon, the hook's among them, from seq 1.
    assert_followed(&env, &follower);
}

/// The session bus itself goes away (the daemon with it) and comes back at the same
/// address: the follower connects again, catches up with what the new daemon replayed,
/// and goes on.
#[test]
fn a_follower_connects_again_when_the_session_bus_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("bus");
    let address = format!("unix:path={}", socket.display());
    let home = dir.path().to_path_buf();
    let mut env = Env::with(
        support::Bus::at(&socket),
        dir,
        home,
        Vec::new(),
        support::TIMEOUT,
    );
    env.start_daemon();
    let follower = Follower::start_with(&env, &[("DBUS_SESSION_BUS_ADDRESS", &address)]);
    hook(&env, "s-bus", "UserPromptSubmit");
    support::poll(env.timeout, || follower.last_seq() > 0);

    // The bus dies, the daemon stops with it, a new bus listens at the same address, and
    // a hook spools meanwhile.
    env.bus.kill();
    env.stop_daemon();
    env.bus = support::Bus::at(&socket);
    hook(&env, "s-bus", "Stop");
    env.start_daemon();
    hook(&env, "s-bus", "UserPromptSubmit");

    let followed = assert_followed(&env, &follower);
    let err = follower.stderr.lock().unwrap().clone();
    assert!(err.contains("lost the session bus"), "{err}");
    println!("followed {followed} events across a bus restart; stderr: {err:?}");
}
