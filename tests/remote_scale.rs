//! Remote panes at scale (docs/remote.md, docs/benchmarks.md#remote-panes-at-scale): 10
//! real `attend daemon`s on private buses, each with 100 hook-only panes made by the
//! D-Bus `Hook` method, linked to one local daemon with `--via` a plain local command
//! (tests/support/remotes.rs). `attend ls` lists all 1 000 remote panes, and its median
//! wall time over 5 runs is under 1 s; with nothing changing for 5 s the local daemon
//! uses no CPU (no polling of the remotes); one hook on a remote reaches the local
//! `ListRemotePanes` within a bounded wait (the delay is printed: `remote change: … ms`).

mod support;

use serde_json::Value;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use support::remote::{add, local_env, remote_env, via_args};
use support::{cpu_ticks, Env};

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
    let dicts = env.attend1().list_remote_panes().unwrap();
    dicts
        .iter()
        .map(|d| {
            let s = |k: &str| {
                d.get(k)
                    .and_then(|v| <&str>::try_from(&**v).ok().map(str::to_string))
                    .unwrap_or_default()
            };
            (s("id"), s("lifecycle"))
        })
        .collect()
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
    let local = local_env();
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
}
