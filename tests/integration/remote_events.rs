//! Remote events in the local event log (docs/remote.md "How remote panes are mirrored"):
//! two daemons on two private buses linked by `attend remote add … --via` (a plain local
//! command through `attend bridge --stdio`, tests/support/remote.rs). Every event of the
//! remote's log is stamped here exactly once and in order, with its host and remote seq
//! (`attend events --json` and `attend events --follow --json`), across a broken link
//! (events made while it is down arrive after it is back) and a restart of the local
//! daemon (the mirror continues after the persisted remote seq: nothing is stamped twice,
//! and events made while it was down arrive); a remote removed from `config.toml` has its
//! seq forgotten.

use crate::support;

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use support::remote::{add, hook, local_env, remote_env, wait_state};
use support::Env;

/// A carrier script that refuses to connect while the file `block` exists (the link
/// stays down while the test makes events on the remote), else reaches the remote's bus
/// with a plain local command; the `--via`/`--command` arguments and `block`.
fn blockable_carrier(remote: &Env, socket: &Path) -> ([String; 4], PathBuf) {
    let block = remote.path("carrier-blocked");
    let script = remote.path("carrier.sh");
    let env = shlex::try_join([
        "env",
        &format!("DBUS_SESSION_BUS_ADDRESS=unix:path={}", socket.display()),
        &format!("XDG_RUNTIME_DIR={}", remote.path("run").display()),
    ])
    .unwrap();
    let block_q = shlex::try_quote(block.to_str().unwrap()).unwrap();
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nif [ -e {block_q} ]; then echo 'carrier blocked by the test' >&2; exit 1; fi\n\
             exec {env} \"$@\"\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &script,
        <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755),
    )
    .unwrap();
    let command = support::remote::bridge_command();
    let via = shlex::try_quote(script.to_str().unwrap())
        .unwrap()
        .into_owned();
    (["--via".into(), via, "--command".into(), command], block)
}

/// The children of `parent` (its carriers, for the local daemon).
fn children(parent: u32) -> Vec<u32> {
    support::pids()
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // pid (comm) state ppid …: the comm may hold spaces, so split after the ')'.
            let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
            after.split_whitespace().nth(1) == Some(&parent.to_string())
        })
        .collect()
}

/// `(seq, kind, pane)` of every event of the remote's own log, in order.
fn remote_log(remote: &Env) -> Vec<(u64, String, String)> {
    remote
        .events()
        .iter()
        .map(|e| {
            (
                e["seq"].as_u64().unwrap(),
                e["kind"].as_str().unwrap().to_string(),
                e["pane"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// What the remote log should look like here: each remote event once, in order, its
/// pane `r1:pN`.
fn expected_here(remote: &Env) -> Vec<(u64, String, String)> {
    remote_log(remote)
        .into_iter()
        .map(|(seq, kind, pane)| (seq, kind, format!("r1:{pane}")))
        .collect()
}

/// `(remote_seq, kind, pane)` of the events of host r1 among `events` (local log order),
/// checking each one's fields.
fn stamped(events: &[Value]) -> Vec<(u64, String, String)> {
    let mut seqs = Vec::new();
    for e in events {
        if e.get("host").is_none() {
            assert!(e.get("remote_seq").is_none(), "a local event: {e}");
            continue;
        }
        assert_eq!(e["host"], "r1", "{e}");
        seqs.push(e["seq"].as_u64().unwrap());
    }
    assert!(
        seqs.windows(2).all(|w| w[0] < w[1]),
        "local seqs in order: {seqs:?}"
    );
    events
        .iter()
        .filter(|e| e.get("host").is_some())
        .map(|e| {
            (
                e["remote_seq"].as_u64().unwrap(),
                e["kind"].as_str().unwrap().to_string(),
                e["pane"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Polls the local `attend events --json` until its remote events are exactly the
/// remote's log (each once, in order); a duplicate never goes away (the log is
/// append-only), so it fails the wait.
fn wait_mirrored(local: &Env, remote: &Env, what: &str) {
    let want = expected_here(remote);
    let mut got = Vec::new();
    let held = support::poll(local.timeout, || {
        got = stamped(&local.events());
        got == want
    });
    assert!(
        held,
        "{what}: the stamped remote events differ from the remote's log\n got: {got:?}\nwant: {want:?}\n--- local daemon log ---\n{}",
        local.daemon_log()
    );
}

/// `attend events --follow --json` on `env`, its stdout lines collected.
struct Follower {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Follower {
    fn start(env: &Env) -> Follower {
        let mut child = env
            .cmd()
            .args(["events", "--follow", "--json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let out = BufReader::new(child.stdout.take().unwrap());
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        Follower { child, lines }
    }

    fn events(&self) -> Vec<Value> {
        let lines = self.lines.lock().unwrap();
        lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn remote_events_are_stamped_here_once_and_in_order_across_a_broken_link_and_a_restart() {
    let (remote, socket) = remote_env();
    let mut local = local_env();
    let (args, block) = blockable_carrier(&remote, &socket);
    add(&local, "r1", "box", &args);
    wait_state(&local, "r1", "connected", |r| r["state"] == "connected");
    let follower = Follower::start(&local);

    // Live: the remote's events arrive by its signals.
    hook(&remote, "s1", "UserPromptSubmit");
    hook(&remote, "s1", "Stop");
    wait_mirrored(&local, &remote, "live");
    let events = local.events();
    let one = events
        .iter()
        .find(|e| e.get("host").is_some() && e["kind"] == "agent.working")
        .unwrap_or_else(|| panic!("no remote agent.working: {events:?}"));
    assert_eq!(one["pane"], "r1:p1", "{one}");
    assert!(one["source"].as_str().unwrap().contains("claude"), "{one}");
    assert!(one["at"].as_i64().is_some(), "{one}");
    let table = local.ok(&["events"]);
    assert!(table.contains("r1:p1"), "{table}");
    assert!(table.contains("host=r1"), "{table}");

    // The link broken (its carrier killed) and kept down while the remote goes on.
    std::fs::write(&block, "").unwrap();
    let carriers = children(local.daemon_pid());
    assert!(!carriers.is_empty(), "the local daemon runs no carrier");
    for pid in carriers {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    wait_state(&local, "r1", "offline", |r| r["state"] == "offline");
    hook(&remote, "s1", "UserPromptSubmit");
    hook(&remote, "s2", "UserPromptSubmit");
    hook(&remote, "s1", "Stop");
    assert_ne!(
        stamped(&local.events()),
        expected_here(&remote),
        "made while the link is down"
    );
    std::fs::remove_file(&block).unwrap();
    wait_state(&local, "r1", "connected again", |r| {
        r["state"] == "connected"
    });
    wait_mirrored(&local, &remote, "after the link came back");

    // The local daemon restarted; the remote goes on meanwhile.
    local.stop_daemon();
    hook(&remote, "s2", "Stop");
    hook(&remote, "s3", "UserPromptSubmit");
    local.start_daemon();
    wait_state(&local, "r1", "connected after the restart", |r| {
        r["state"] == "connected"
    });
    wait_mirrored(&local, &remote, "after the local daemon restarted");

    // The follower printed the same remote events, once each, across all of it.
    let want = expected_here(&remote);
    let mut got = Vec::new();
    let held = support::poll(local.timeout, || {
        got = stamped(&follower.events());
        got == want
    });
    assert!(
        held,
        "the follower's remote events\n got: {got:?}\nwant: {want:?}"
    );

    // Removed from config.toml, the remote's seq is forgotten: the name added again
    // (maybe another machine) is read from the start of its log.
    let db = local.state_dir().join("attend.db");
    let stored = || -> i64 {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.query_row(
            "SELECT count(*) FROM remote_seqs WHERE host = 'r1'",
            [],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(stored(), 1);
    local.ok(&["remote", "rm", "r1"]);
    local.wait_until("r1's seq forgotten", || stored() == 0);
    add(&local, "r1", "box", &args);
    let twice: Vec<_> = want.iter().chain(&want).cloned().collect();
    let held = support::poll(local.timeout, || {
        got = stamped(&local.events());
        got == twice
    });
    assert!(
        held,
        "read again from the start\n got: {got:?}\nwant: {twice:?}"
    );
}
