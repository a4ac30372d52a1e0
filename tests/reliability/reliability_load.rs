//! Reliability suite, load (docs/reliability.md): the real `attend daemon` on a private bus with
//! 100 panes (50 owned panes from `attend run`, 50 external panes created by hooks), driven
//! for [`LOAD`] by one in-process zbus client keeping [`IN_FLIGHT`] `Hook` calls in flight,
//! plus real `attend hook claude` processes spawned at [`HOOK_RATE`]/s on a fixed schedule
//! (recorded Claude payloads, tests/fixtures/claude/2.1.197/observed), plus continuous
//! PTY output (text, OSC titles, an occasional BEL) in [`PRINTERS`] of the owned panes.
//!
//! The load runs twice against the same daemon and the same panes. After each run the
//! test asserts that nothing was lost — every acknowledged in-process call's delivery id
//! is in the `deliveries` table of `attend.db` (read-only) with the seq the call returned,
//! every `attend hook` process exited 0 with nothing on stderr, the spool is drained, and
//! the table holds exactly one row per hook sent — and after the second run that the
//! daemon's resident memory grew by less than a bound ([`RSS_BOUND_KIB`],
//! [`RSS_BOUND_PERCENT`]). It prints the rates, p50/p99 latencies, spool counts, RSS
//! figures and the machine's load average for docs/reliability.md; latencies are
//! reported, not asserted.

use crate::support;

use regex::Regex;
use serde_json::Value as Json;
use std::collections::HashMap;
use std::io::Write;
use std::process::Stdio;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
use support::{cpu_ticks, Env};
use zbus::zvariant::Value;

/// How long each load run lasts.
const LOAD: Duration = Duration::from_secs(20);
/// Owned panes (`attend run`); the first [`PRINTERS`] of them print continuously.
const OWNED: usize = 50;
/// Owned panes with continuous PTY output during a run.
const PRINTERS: usize = 20;
/// External panes, created by a hook with a session id and no `ATTEND_PANE`.
const EXTERNAL: usize = 50;
/// In-process `Hook` calls in flight: each of these tasks drives two panes, one call at a
/// time, so every pane gets its hooks in order.
const IN_FLIGHT: usize = (OWNED + EXTERNAL) / 2;
/// `attend hook` processes started per second.
const HOOK_RATE: u32 = 200;
/// Allowed growth of the daemon's RSS over the second run: the larger of this (KiB) and
/// [`RSS_BOUND_PERCENT`] of the RSS after the first run; see
/// [`memory_is_flat_across_runs`].
const RSS_BOUND_KIB: u64 = 16 * 1024;
/// See [`RSS_BOUND_KIB`].
const RSS_BOUND_PERCENT: u64 = 10;
/// The hook cycle of a Claude turn with a permission gate, repeated per pane.
const CYCLE: [&str; 5] = [
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "Stop",
];
const BUS_NAME: &str = "io.github.attend.Attend1";
const PATH: &str = "/io/github/attend/Attend1";

/// Lines a printing pane writes per block ([`PRINTER`]): 100 of text and one
/// `load <run> block <n>` line.
const BLOCK_LINES: u64 = 101;

/// The program of a printing pane (bash): waits for a run number on stdin, then writes
/// blocks of [`BLOCK_LINES`] lines (about 7 KiB), one every 50 ms (bash's builtin
/// `read -t` as the pause), with an OSC title every 10 blocks and a BEL every 200, until
/// the file `stop-<run>` exists in its directory; then it says `stopped <run>` and waits
/// for the next run. About 2 000 lines/s per pane, 40 000 lines/s (3 MiB/s) for the 20:
/// continuous output that a 2-core machine carries next to the hooks (an unpaced flood
/// saturates both cores: see docs/reliability.md).
const PRINTER: &str = r#"block=
for i in $(seq 1 100); do block+="load line $i: the quick brown fox jumps over the lazy dog"$'\n'; done
while read -r run; do
  n=0
  until [[ -e stop-$run ]]; do
    n=$((n + 1))
    printf '%sload %s block %d\n' "$block" "$run" "$n"
    if (( n % 10 == 0 )); then printf '\033]0;load %s %d\007' "$run" "$n"; fi
    if (( n % 200 == 0 )); then printf '\a'; fi
    read -r -t 0.05 _
  done
  echo "stopped $run"
done"#;

/// One pane the hooks go to.
struct Target {
    /// The owned pane's id (`ATTEND_PANE`), `None` for an external pane.
    pane: Option<String>,
    /// Its session id.
    session: String,
    /// The recorded payloads of [`CYCLE`] with this session id and the test's cwd.
    payloads: Vec<String>,
}

/// A recorded Claude payload of `event`, with `session` and `cwd` put in.
fn payload(event: &str, session: &str, cwd: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/claude/2.1.197/observed/{event}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut v: Json = serde_json::from_str(&text).unwrap();
    v["session_id"] = session.into();
    v["cwd"] = cwd.into();
    v.to_string()
}

impl Target {
    fn new(pane: Option<String>, session: String, cwd: &str) -> Target {
        let payloads = CYCLE.iter().map(|e| payload(e, &session, cwd)).collect();
        Target {
            pane,
            session,
            payloads,
        }
    }
}

/// The p-th percentile (nearest rank) of `xs`, sorted in place; 0 for none.
fn percentile(xs: &mut [f64], p: f64) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    xs.sort_by(|a, b| a.total_cmp(b));
    let rank = ((p / 100.0) * xs.len() as f64).ceil() as usize;
    xs[rank.clamp(1, xs.len()) - 1]
}

/// The daemon's resident set size in KiB (`VmRSS` of /proc/PID/status).
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/PID/status")
}

/// How long the test waits for one D-Bus reply.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// Calls `method` of Attend1 on `conn`, bounded by [`CALL_TIMEOUT`].
async fn call<R, B>(conn: &zbus::Connection, method: &str, body: &B) -> Result<R, String>
where
    R: for<'d> serde::Deserialize<'d> + zbus::zvariant::Type,
    B: serde::Serialize + zbus::zvariant::DynamicType,
{
    let reply = tokio::time::timeout(
        CALL_TIMEOUT,
        conn.call_method(Some(BUS_NAME), PATH, Some(BUS_NAME), method, body),
    )
    .await
    .map_err(|_| format!("{method}: no reply within {CALL_TIMEOUT:?}"))?
    .map_err(|e| format!("{method}: {e}"))?;
    reply
        .body()
        .deserialize::<R>()
        .map_err(|e| format!("{method}: {e}"))
}

/// One `Hook("claude", "", payload, {pane?, delivery_id})` → the seq it returned;
/// `Ok(None)` when no reply came within [`CALL_TIMEOUT`] (the call was sent: the daemon
/// still applies it), `Err` for an error reply.
async fn hook(
    conn: &zbus::Connection,
    pane: Option<&str>,
    payload: &str,
    delivery: &str,
) -> Result<Option<u64>, String> {
    let mut ctx: HashMap<&str, Value<'_>> = HashMap::new();
    if let Some(p) = pane {
        ctx.insert("pane", Value::from(p));
    }
    ctx.insert("delivery_id", Value::from(delivery));
    let body = ("claude", "", payload, ctx);
    let sent = conn.call_method(Some(BUS_NAME), PATH, Some(BUS_NAME), "Hook", &body);
    match tokio::time::timeout(CALL_TIMEOUT, sent).await {
        Err(_) => Ok(None),
        Ok(Err(e)) => Err(format!("Hook {delivery}: {e}")),
        Ok(Ok(reply)) => reply
            .body()
            .deserialize::<u64>()
            .map(Some)
            .map_err(|e| format!("Hook {delivery}: {e}")),
    }
}

/// What the in-process client did in one run.
#[derive(Default)]
struct Driven {
    /// (delivery id, seq) of every acknowledged call.
    acked: Vec<(String, u64)>,
    /// Delivery ids of calls sent but not answered within [`CALL_TIMEOUT`].
    unanswered: Vec<String>,
    /// Latencies of the acknowledged calls in ms.
    latency_ms: Vec<f64>,
    /// Error replies.
    errors: Vec<String>,
    elapsed: Duration,
}

/// Keeps [`IN_FLIGHT`] `Hook` calls in flight until `until`: task `w` drives targets `w`
/// and `w + IN_FLIGHT` in turn, each through [`CYCLE`].
async fn drive(
    conn: &zbus::Connection,
    targets: &Arc<Vec<Target>>,
    run: usize,
    until: Instant,
) -> Driven {
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for w in 0..IN_FLIGHT {
        let (conn, targets) = (conn.clone(), targets.clone());
        tasks.spawn(async move {
            let mut out = Driven::default();
            let mine = [&targets[w], &targets[w + IN_FLIGHT]];
            let mut i = 0usize;
            while Instant::now() < until {
                let t = mine[i % 2];
                let body = &t.payloads[(i / 2) % CYCLE.len()];
                let delivery = format!("load-r{run}-w{w}-{i}");
                let sent = Instant::now();
                match hook(&conn, t.pane.as_deref(), body, &delivery).await {
                    Ok(Some(seq)) => {
                        out.latency_ms.push(sent.elapsed().as_secs_f64() * 1e3);
                        out.acked.push((delivery, seq));
                    }
                    Ok(None) => out.unanswered.push(delivery),
                    Err(e) => out.errors.push(e),
                }
                i += 1;
            }
            out
        });
    }
    let mut all = Driven::default();
    while let Some(r) = tasks.join_next().await {
        let r = r.expect("hook task");
        all.acked.extend(r.acked);
        all.unanswered.extend(r.unanswered);
        all.latency_ms.extend(r.latency_ms);
        all.errors.extend(r.errors);
    }
    all.elapsed = start.elapsed();
    all
}

/// What the `attend hook` processes of one run did.
#[derive(Default)]
struct Spawned {
    /// Processes started (each sends exactly one hook).
    started: usize,
    /// Spawn → exit, in ms, for every process that exited 0 with an empty stderr.
    latency_ms: Vec<f64>,
    /// Everything else: exit status and stderr.
    failures: Vec<String>,
    /// The longest the schedule fell behind, in ms.
    max_lag_ms: f64,
    elapsed: Duration,
}

/// Starts `attend hook claude` processes at [`HOOK_RATE`]/s on a fixed schedule until
/// `until`, each with the next target's next payload on stdin (and `ATTEND_PANE` for an
/// owned pane); waits for all of them. A start that falls behind its slot happens at once
/// (the lag is reported), but none starts after `until`: on a loaded machine fewer than
/// the scheduled number start.
fn spawn_hooks(env: &Env, targets: &[Target], until: Instant) -> Spawned {
    let (tx, rx) = mpsc::channel::<Result<f64, String>>();
    let period = Duration::from_secs(1) / HOOK_RATE;
    let start = Instant::now();
    let mut out = Spawned::default();
    std::thread::scope(|s| {
        let mut k = 0u32;
        loop {
            let due = start + period * k;
            let now = Instant::now();
            if due >= until || now >= until {
                break;
            }
            if now < due {
                std::thread::sleep(due - now);
            } else {
                out.max_lag_ms = out.max_lag_ms.max((now - due).as_secs_f64() * 1e3);
            }
            let i = k as usize;
            let t = &targets[i % targets.len()];
            let body = t.payloads[(i / targets.len()) % CYCLE.len()].as_bytes();
            let mut cmd = env.cmd();
            // The cycle's PermissionRequest never waits on its gate: the load is the
            // hooks' (docs/adapters.md "Answering gates of external agents").
            cmd.args(["hook", "claude"])
                .env("ATTEND_GATE_WAIT", "0")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            if let Some(p) = &t.pane {
                cmd.env("ATTEND_PANE", p);
            }
            let tx = tx.clone();
            s.spawn(move || {
                let sent = Instant::now();
                let outcome = (|| {
                    let mut child = cmd.spawn().map_err(|e| format!("spawn: {e}"))?;
                    let mut stdin = child.stdin.take().unwrap();
                    stdin.write_all(body).map_err(|e| format!("stdin: {e}"))?;
                    drop(stdin);
                    let o = child.wait_with_output().map_err(|e| format!("wait: {e}"))?;
                    let ms = sent.elapsed().as_secs_f64() * 1e3;
                    let stderr = String::from_utf8_lossy(&o.stderr);
                    match (o.status.code(), stderr.is_empty() && o.stdout.is_empty()) {
                        (Some(0), true) => Ok(ms),
                        (code, _) => Err(format!("exit {code:?}, stderr {stderr:?}")),
                    }
                })();
                let _ = tx.send(outcome);
            });
            k += 1;
        }
        out.started = k as usize;
    });
    out.elapsed = start.elapsed();
    drop(tx);
    for r in rx {
        match r {
            Ok(ms) => out.latency_ms.push(ms),
            Err(e) => out.failures.push(e),
        }
    }
    out
}

/// `delivery_id → seq` of every row of the `deliveries` table, read through a read-only
/// connection (the daemon may be running: WAL readers see every committed transaction).
fn deliveries(env: &Env) -> HashMap<String, u64> {
    let path = env.state_dir().join("attend.db");
    let conn =
        rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut stmt = conn
        .prepare("SELECT delivery_id, seq FROM deliveries")
        .unwrap();
    let rows = stmt
        .query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
        })
        .unwrap();
    rows.map(Result::unwrap).collect()
}

/// The event log's kinds with their counts, most frequent first, read-only.
fn event_kinds(env: &Env) -> Vec<(String, u64)> {
    let path = env.state_dir().join("attend.db");
    let conn =
        rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let mut stmt = conn
        .prepare("SELECT kind, COUNT(*) AS n FROM events GROUP BY kind ORDER BY n DESC")
        .unwrap();
    let rows = stmt
        .query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
        })
        .unwrap();
    rows.map(Result::unwrap).collect()
}

/// (events, highest seq) of the event log, read-only.
fn event_count(env: &Env) -> (u64, u64) {
    let path = env.state_dir().join("attend.db");
    let conn =
        rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    conn.query_row(
        "SELECT COUNT(*), COALESCE(MAX(seq), 0) FROM events",
        [],
        |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64)),
    )
    .unwrap()
}

/// Records the daemon drained from the spool so far, from its log lines
/// `drained the hook spool batches=… applied=N refused=R torn=T`: (applied, refused, torn).
fn drained(env: &Env) -> (usize, usize, usize) {
    let re = Regex::new(r"drained the hook spool.*applied=(\d+) refused=(\d+) torn=(\d+)").unwrap();
    re.captures_iter(&env.daemon_log())
        .map(|c| {
            let n = |i: usize| c[i].parse::<usize>().unwrap();
            (n(1), n(2), n(3))
        })
        .fold((0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2))
}

/// True while a spool file (live or a batch being replayed) holds records.
fn spool_pending(env: &Env) -> bool {
    let dir = env.dir.path().join("run/attend");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        name.starts_with("hooks.spool")
            && name != "hooks.spool.lock"
            && e.metadata().is_ok_and(|m| m.len() > 0)
    })
}

/// Polls `check` every 100 ms for at most `limit`; false when it never held.
fn wait_for(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

/// Waits (≤ 10 s) until the daemon used no CPU over 300 ms (its queues are empty).
fn wait_daemon_idle(env: &Env) {
    let pid = env.daemon_pid();
    let mut last = cpu_ticks(pid);
    wait_for(Duration::from_secs(10), || {
        std::thread::sleep(Duration::from_millis(200));
        let now = cpu_ticks(pid);
        std::mem::replace(&mut last, now) == now
    });
}

/// Lines a printer wrote in run `run`, from the last `load RUN block N` on its screen.
fn last_line(screen: &str, run: usize) -> u64 {
    let prefix = format!("load {run} block ");
    BLOCK_LINES
        * screen
            .lines()
            .filter_map(|l| l.strip_prefix(&prefix)?.trim().parse::<u64>().ok())
            .max()
            .unwrap_or(0)
}

/// The machine's load averages (`/proc/loadavg`), printed with the figures.
fn loadavg() -> String {
    let s = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

/// The figures of one run.
struct RunFigures {
    /// Hooks sent (acknowledged or not, in process and by `attend hook` processes).
    hooks: usize,
    rss_kib: u64,
}

/// One load run: starts the printers, drives the in-process client and the hook
/// processes for [`LOAD`], stops the printers, waits for the spool and the daemon to
/// settle, checks the store (`sent_before` hooks were sent before this run) and prints
/// the figures.
fn load_run(
    env: &Env,
    rt: &tokio::runtime::Runtime,
    conn: &zbus::Connection,
    targets: &Arc<Vec<Target>>,
    run: usize,
    sent_before: usize,
    rss_before: u64,
) -> RunFigures {
    println!(
        "== load run {run}: {LOAD:?}, {} panes, load average {}",
        targets.len(),
        loadavg()
    );
    let spooled_before = drained(env).0;
    let printers: Vec<&str> = targets[..PRINTERS]
        .iter()
        .map(|t| t.pane.as_deref().unwrap())
        .collect();
    let ticks_before = cpu_ticks(env.daemon_pid());
    rt.block_on(async {
        for p in &printers {
            let input = format!("{run}\n").into_bytes();
            call::<(), _>(conn, "SendInput", &(*p, input))
                .await
                .unwrap_or_else(|e| panic!("{e}\n{}", env.daemon_log()));
        }
    });
    let until = Instant::now() + LOAD;
    let (driven, spawned) = std::thread::scope(|s| {
        let procs = s.spawn(|| spawn_hooks(env, targets, until));
        let driven = rt.block_on(drive(conn, targets, run, until));
        (driven, procs.join().expect("hook process thread"))
    });
    std::fs::write(env.work_dir().join(format!("stop-{run}")), b"").unwrap();

    // The printers have stopped once their screens say so: their output is consumed.
    let mut printed = 0u64;
    for p in &printers {
        let mut screen = String::new();
        let stopped = wait_for(Duration::from_secs(20), || {
            screen = rt
                .block_on(call::<String, _>(conn, "GetScreen", &(*p,)))
                .unwrap_or_default();
            screen.contains(&format!("stopped {run}"))
        });
        assert!(
            stopped,
            "printer {p} did not stop\n{screen}\n{}",
            env.daemon_log()
        );
        printed += last_line(&screen, run);
    }
    assert!(
        wait_for(Duration::from_secs(20), || !spool_pending(env)),
        "the spool was not drained\n{}",
        env.daemon_log()
    );
    wait_daemon_idle(env);
    let daemon_cpu_s = (cpu_ticks(env.daemon_pid()) - ticks_before) as f64 / 100.0;
    let rss = rss_kib(env.daemon_pid());

    let mut lat = driven.latency_ms.clone();
    let secs = driven.elapsed.as_secs_f64();
    println!(
        "in-process client: {} Hook calls acknowledged in {secs:.1} s = {:.0}/s ({IN_FLIGHT} in flight), {} unanswered within {CALL_TIMEOUT:?}, {} errors; latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        driven.acked.len(),
        driven.acked.len() as f64 / secs,
        driven.unanswered.len(),
        driven.errors.len(),
        percentile(&mut lat, 50.0),
        percentile(&mut lat, 99.0),
        percentile(&mut lat, 100.0),
    );
    let mut plat = spawned.latency_ms.clone();
    let psecs = spawned.elapsed.as_secs_f64();
    println!(
        "attend hook processes: {} started in {LOAD:?} = {:.0}/s (goal {HOOK_RATE}/s, schedule lag max {:.0} ms), all exited after {psecs:.1} s, {} ok, {} failed; spawn→exit p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        spawned.started,
        spawned.started as f64 / LOAD.as_secs_f64(),
        spawned.max_lag_ms,
        spawned.latency_ms.len(),
        spawned.failures.len(),
        percentile(&mut plat, 50.0),
        percentile(&mut plat, 99.0),
        percentile(&mut plat, 100.0),
    );
    println!(
        "PTY output: {PRINTERS} panes printed {printed} lines (~{:.1} MiB, {:.0} lines/s)",
        printed as f64 * 58.0 / 1_048_576.0,
        printed as f64 / LOAD.as_secs_f64()
    );
    let (applied, refused, torn) = drained(env);
    println!(
        "spool: {} of the {} attend hook processes spooled (no reply within the 250 ms budget, or queued behind hooks spooled before them); the daemon drained and applied them once ({refused} refused, {torn} torn so far)",
        applied - spooled_before,
        spawned.started
    );
    println!(
        "daemon: {daemon_cpu_s:.1} s CPU this run; RSS {rss_before} KiB before, {rss} KiB after ({:+} KiB); load average {}",
        rss as i64 - rss_before as i64,
        loadavg()
    );

    assert!(
        driven.errors.is_empty(),
        "{} in-process Hook calls failed, e.g. {:?}",
        driven.errors.len(),
        &driven.errors[..driven.errors.len().min(5)]
    );
    assert!(
        spawned.failures.is_empty(),
        "{} attend hook processes failed, e.g. {:?}",
        spawned.failures.len(),
        &spawned.failures[..spawned.failures.len().min(5)]
    );
    assert_eq!((refused, torn), (0, 0), "spool records refused or torn");
    assert!(
        printed > 0,
        "no PTY output reached the screens in run {run}"
    );
    assert!(
        !driven.acked.is_empty() && spawned.started > 0,
        "no load in run {run}"
    );

    // Every acknowledged call is in the store with the seq it returned.
    let stored = deliveries(env);
    let missing: Vec<&(String, u64)> = driven
        .acked
        .iter()
        .filter(|(d, seq)| stored.get(d) != Some(seq))
        .collect();
    assert!(
        missing.is_empty(),
        "{} acknowledged hooks are not in the store as acknowledged, e.g. {:?}",
        missing.len(),
        &missing[..missing.len().min(5)]
    );
    // A call the test stopped waiting for was still sent: the daemon applied it too.
    let lost: Vec<&String> = driven
        .unanswered
        .iter()
        .filter(|d| !stored.contains_key(*d))
        .collect();
    assert!(
        lost.is_empty(),
        "{} unanswered hooks are not in the store, e.g. {:?}",
        lost.len(),
        &lost[..lost.len().min(5)]
    );
    // Exactly one delivery per hook sent, `attend hook` processes (delivered or spooled)
    // included: none lost, none applied twice.
    let hooks = driven.acked.len() + driven.unanswered.len() + spawned.started;
    assert_eq!(
        stored.len(),
        sent_before + hooks,
        "deliveries stored vs hooks sent after run {run}"
    );
    let (events, max_seq) = event_count(env);
    let top = driven.acked.iter().map(|a| a.1).max().unwrap_or(0);
    assert!(
        max_seq >= top,
        "event log ends at {max_seq} < acknowledged {top}"
    );
    let kinds: Vec<String> = event_kinds(env)
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    println!(
        "store: {} deliveries (= hooks sent), {events} events (last seq {max_seq}): {}",
        stored.len(),
        kinds.join(", ")
    );
    RunFigures {
        hooks,
        rss_kib: rss,
    }
}

/// The issue's "Load" case, run twice against one daemon. No hook is lost: every
/// acknowledged in-process call is stored with its seq, every `attend hook` process
/// exits 0 silently, and the `deliveries` table (exactly-once by delivery id) holds
/// exactly one row per hook sent, spooled ones included — checked live after each run
/// and again in the file after the daemon stopped.
///
/// Memory: the second run may grow the daemon's RSS by less than 16 MiB or 10 % of the
/// RSS after the first run, whichever is larger. The first run sets the high-water marks
/// (about +20 MiB here): SQLite's page cache (2 MiB), the printing panes' 2 000-line
/// scrollback rings, the PTY pipelines' queued chunks, the spool batches the daemon
/// reads, and the allocator's per-thread arenas, which keep freed memory, so RSS stays
/// near those marks. The second run, with the same panes and the same load, reuses them;
/// over eight runs on this 2-core machine it grew by 0 to 7 MiB, so 16 MiB is twice the
/// noise seen. A leak proportional to the load is larger: a run brings about 5 000 to
/// 15 000 hooks and events and 800 000 lines of output, so a leak of 2 KiB per hook or
/// event, or of 20 bytes per line, fails the test; so does a queue that grows without
/// bound while the owner lags (the PTY → owner queue, src/service/pty.rs, was unbounded
/// before this test; it is bounded now).
#[test]
fn memory_is_flat_across_runs() {
    let mut env = Env::with_daemon();
    let cwd = env.work_dir().to_string_lossy().into_owned();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let conn = rt.block_on(async {
        zbus::connection::Builder::address(env.bus.address.as_str())
            .unwrap()
            .build()
            .await
            .unwrap()
    });

    // 50 owned panes, the first 20 printing, the others a quiet `cat`.
    let mut targets = Vec::new();
    for i in 0..OWNED {
        let pane = if i < PRINTERS {
            env.run(&["--", "bash", "-c", PRINTER])
        } else {
            env.run(&["--", "cat"])
        };
        targets.push(Target::new(Some(pane), format!("load-owned-{i}"), &cwd));
    }
    for i in 0..EXTERNAL {
        targets.push(Target::new(None, format!("load-external-{i}"), &cwd));
    }
    // Each pane's session starts: an owned pane takes its session id, an external pane is
    // created.
    let setup = rt.block_on(async {
        let mut n = 0;
        for (i, t) in targets.iter().enumerate() {
            let body = payload("SessionStart", &t.session, &cwd);
            let seq = hook(&conn, t.pane.as_deref(), &body, &format!("load-setup-{i}")).await;
            assert!(
                matches!(seq, Ok(Some(_))),
                "setup hook {i}: {seq:?}\n{}",
                env.daemon_log()
            );
            n += 1;
        }
        n
    });
    let panes: Vec<Json> = serde_json::from_str(&env.ok(&["ls", "--json"])).unwrap();
    assert_eq!(panes.len(), OWNED + EXTERNAL, "one pane per target");
    for t in targets.iter().filter(|t| t.pane.is_some()) {
        let p = env.show(t.pane.as_deref().unwrap());
        assert_eq!(p["session_id"], t.session.as_str(), "{p:#}");
    }
    let targets = Arc::new(targets);
    wait_daemon_idle(&env);
    let rss0 = rss_kib(env.daemon_pid());

    let first = load_run(&env, &rt, &conn, &targets, 1, setup, rss0);
    let second = load_run(
        &env,
        &rt,
        &conn,
        &targets,
        2,
        setup + first.hooks,
        first.rss_kib,
    );

    // Hooks from processes that the daemon had to treat as external (a disbelieved
    // ATTEND_PANE) would have made new panes.
    let panes: Vec<Json> = serde_json::from_str(&env.ok(&["ls", "--json"])).unwrap();
    assert_eq!(
        panes.len(),
        OWNED + EXTERNAL,
        "no pane was added by the load"
    );

    // The file itself, once the daemon stopped: one delivery per hook sent.
    let mut daemon = env.daemon.take().unwrap();
    let pid = nix::unistd::Pid::from_raw(daemon.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    assert!(
        wait_for(Duration::from_secs(10), || matches!(
            daemon.try_wait(),
            Ok(Some(_))
        )),
        "the daemon did not stop on SIGTERM"
    );
    let expected = setup + first.hooks + second.hooks;
    let stored = deliveries(&env).len();
    let bound = RSS_BOUND_KIB.max(first.rss_kib * RSS_BOUND_PERCENT / 100);
    println!(
        "total: {expected} hooks sent, {stored} deliveries in attend.db after stop; RSS {rss0} → {} → {} KiB, second run {:+} KiB (bound {bound} KiB)",
        first.rss_kib,
        second.rss_kib,
        second.rss_kib as i64 - first.rss_kib as i64
    );
    assert_eq!(stored, expected, "deliveries stored vs hooks sent");
    let growth = second.rss_kib.saturating_sub(first.rss_kib);
    assert!(
        growth < bound,
        "the daemon's RSS grew by {growth} KiB over the second run (bound {bound} KiB)"
    );
}
