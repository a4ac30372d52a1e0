//! Remote panes at scale (docs/remote.md, docs/benchmarks.md#remote-panes-at-scale): 10
//! real `attend daemon`s on private buses, each with 100 hook-only panes made by the
//! D-Bus `Hook` method, linked to one local daemon with `--via` a plain local command
//! (tests/support/remotes.rs). `attend ls` lists all 1 000 remote panes, and its median
//! wall time over 5 runs is under 1 s; with nothing changing for 5 s the local daemon
//! uses no CPU (no polling of the remotes); one hook on a remote reaches the local
//! `ListRemotePanes` within a bounded wait (the delay is printed: `remote change: … ms`);
//! the tray (the test serves the StatusNotifierWatcher: tests/desktop/tray_host.rs) and
//! `attend status --follow` show a remote change within 200 ms.

use crate::desktop;
use crate::support;

use desktop::tray_host::Host;
use serde_json::Value;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use support::remote::{add, env_on, remote_env, status_follower, via_args};
use support::{cpu_ticks, Bus, Env};

const REMOTES: usize = 10;
const PANES: usize = 100;

/// A Claude hook of `session` in `cwd` through `Hook` (no pane: an external pane per
/// session); the seq.
fn hook(env: &Env, session: &str, cwd: &str, event: &str) -> u64 {
    let payload = serde_json::json!({"session_id": session, "cwd": cwd,
        "hook_event_name": event, "prompt": "go", "stop_hook_active": false,
        "last_assistant_message": "done"});
    let context = HashMap::from([("cwd", zbus::zvariant::Value::from(cwd))]);
    env.attend1()
        .hook("claude", "", &payload.to_string(), &context)
        .unwrap_or_else(|e| panic!("Hook {session}: {e}"))
}

/// A remote daemon with [`PANES`] working panes over 10 workspaces; the env and its bus
/// socket.
fn busy_remote() -> (Env, std::path::PathBuf) {
    let (remote, socket) = remote_env();
    for n in 0..PANES {
        let cwd = remote.path(&format!("ws{}", n % 10));
        std::fs::create_dir_all(&cwd).unwrap();
        hook(
            &remote,
            &format!("s{n}"),
            &cwd.display().to_string(),
            "UserPromptSubmit",
        );
    }
    (remote, socket)
}

/// The local `ListRemotePanes()`, as `(id, lifecycle)`.
fn remote_panes(env: &Env) -> Vec<(String, String)> {
    let panes = env.attend1().list_remote_panes().unwrap();
    panes.into_iter().map(|p| (p.id, p.lifecycle)).collect()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[test]
fn a_thousand_remote_panes_list_fast_cost_nothing_idle_and_follow_changes() {
    let started = Instant::now();
    // Ten daemons start and fill up in parallel.
    let remotes: Vec<(Env, std::path::PathBuf)> = (0..REMOTES)
        .map(|_| std::thread::spawn(busy_remote))
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().unwrap())
        .collect();
    // This machine: its daemon with the tray on (no display needed: a StatusNotifierItem
    // is D-Bus only), the test's StatusNotifierWatcher as its host.
    let mut local = env_on(Bus::start(), tempfile::tempdir().unwrap());
    let host = Host::on(&local.bus.address);
    local.start_daemon_with(&["--no-notifications"], &[]);
    local.wait_until("the tray item registered", || host.item_name().is_some());
    for (i, (remote, socket)) in remotes.iter().enumerate() {
        add(&local, &format!("r{i}"), "box", &via_args(remote, socket));
    }
    let filled = started.elapsed();
    let mut listed = Vec::new();
    local.wait_until("every remote pane mirrored", || {
        listed = remote_panes(&local);
        listed.len() == REMOTES * PANES && listed.iter().all(|(_, l)| l == "working")
    });
    let mirrored = started.elapsed();
    // The mirrors list every pane from their snapshots first and then read the remotes'
    // logs: wait until the local daemon is quiet before timing anything.
    let pid = local.daemon_pid();
    let mut last = cpu_ticks(pid);
    local.wait_until("the local daemon quiet after the catch-ups", || {
        std::thread::sleep(Duration::from_secs(1));
        let now = cpu_ticks(pid);
        let quiet = now - last <= 1;
        last = now;
        quiet
    });
    let settled = started.elapsed();

    // `attend ls` lists them all; its median time of 5.
    let all: Value = serde_json::from_str(&local.ok(&["ls", "--json"])).unwrap();
    let remote_rows = all
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["host"].as_str().is_some_and(|h| h.starts_with('r')))
        .count();
    assert_eq!(remote_rows, REMOTES * PANES);
    let mut runs = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let table = local.ok(&["ls"]);
        runs.push(t.elapsed());
        assert_eq!(
            table.lines().count(),
            REMOTES * PANES + 1,
            "a header and every pane"
        );
    }
    let ls = median(runs.clone());
    eprintln!("attend ls, 1000 remote panes: median {ls:?} of {runs:?}");
    assert!(
        ls < Duration::from_secs(1),
        "attend ls took {ls:?} ({runs:?})"
    );

    // Nothing changes for 5 s: the local daemon does not run (no polling of remotes).
    std::thread::sleep(Duration::from_millis(500));
    let before = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(5));
    let idle = cpu_ticks(pid) - before;
    eprintln!("local daemon idle 5 s with 10 links: {idle} ticks");
    assert!(idle <= 2, "the idle local daemon used {idle} ticks in 5 s");

    // One hook on a remote: the local mirror shows it.
    let (remote, _) = &remotes[3];
    let cwd = remote.path("ws7").display().to_string();
    let t = Instant::now();
    hook(remote, "s57", &cwd, "Stop");
    let hooked = t.elapsed();
    let mut done = Vec::new();
    local.wait_until("the remote change mirrored", || {
        done = remote_panes(&local)
            .into_iter()
            .filter(|(_, l)| l != "working")
            .collect();
        !done.is_empty()
    });
    let delay = t.elapsed();
    assert_eq!(done.len(), 1, "{done:?}");
    assert!(done[0].0.starts_with("r3:"), "{done:?}");
    eprintln!(
        "remote change: {} ms from the Hook call (which took {} ms) to the local \
         ListRemotePanes; set-up {} s, mirrored after {} s, quiet after {} s",
        delay.as_millis(),
        hooked.as_millis(),
        filled.as_secs(),
        mirrored.as_secs(),
        settled.as_secs()
    );

    // The tray and `attend status --follow` follow remote changes: one Stop hook on a
    // working pane of each remote in turn, timed from the Hook call to the tray item's
    // next signal and to the next line `status --follow` prints.
    let lines = status_follower(&local);
    lines
        .recv_timeout(LINE_WAIT)
        .expect("status --follow prints its first line");
    let tray = host.item_signals();
    let (mut to_tray, mut to_status) = (Vec::new(), Vec::new());
    for (i, (remote, _)) in remotes.iter().enumerate() {
        std::thread::sleep(Duration::from_millis(300));
        while lines.try_recv().is_ok() {}
        while tray.try_recv().is_ok() {}
        let cwd = remote.path(&format!("ws{i}")).display().to_string();
        let t = Instant::now();
        hook(remote, &format!("s{}", 10 * i + i), &cwd, "Stop");
        let (_, printed) = lines
            .recv_timeout(LINE_WAIT)
            .unwrap_or_else(|e| panic!("status --follow after a remote change: {e}"));
        to_status.push(printed - t);
        let (_, signalled) = tray
            .recv_timeout(LINE_WAIT)
            .unwrap_or_else(|e| panic!("the tray after a remote change: {e}"));
        to_tray.push(signalled - t);
    }
    to_status.sort();
    to_tray.sort();
    eprintln!("remote change → status --follow line: {to_status:?}");
    eprintln!("remote change → tray signal: {to_tray:?}");
    // The bound of docs/remote.md, for 9 of the 10 changes (one may meet a scheduling
    // hiccup of a loaded machine); every one within LINE_WAIT.
    for (what, delays) in [("status --follow", &to_status), ("tray", &to_tray)] {
        assert!(
            delays[REMOTES - 2] <= UPDATE_BOUND,
            "{what} after a remote change: {delays:?}"
        );
    }
}

/// How soon the tray and `attend status --follow` show a remote change (docs/remote.md).
const UPDATE_BOUND: Duration = Duration::from_millis(200);
/// How long a line of `status --follow` or a tray signal may take at all.
const LINE_WAIT: Duration = Duration::from_secs(10);
