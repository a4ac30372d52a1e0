//! Benchmarks 2c and 6 (docs/benchmarks.md): `Hook` calls from one in-process zbus client against a
//! real daemon on a private bus. 2c: hooks per second, one call at a time and pipelined
//! (64 calls in flight on the one connection). 6: hook arrival → the daemon's `Event`
//! signal observed by this client, p50/p99 over 1 000 events.

use crate::harness::{self, percentile, result, Daemon};
use crate::pty_throughput::next;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use zbus::zvariant::Value;

/// A recorded Claude payload of the fixtures.
pub fn payload(event: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/claude/2.1.197/observed/{event}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// One `Hook(agent, "", payload, {pane, delivery_id})` call; the seq it returns.
pub async fn hook(d: &Daemon, pane: &str, payload: &str, delivery: &str) -> u64 {
    let mut ctx: HashMap<&str, Value<'_>> = HashMap::new();
    ctx.insert("pane", Value::from(pane));
    ctx.insert("delivery_id", Value::from(delivery));
    d.attend
        .hook("claude", "", payload, &ctx)
        .await
        .unwrap_or_else(|e| panic!("Hook: {e}\n{}", d.daemon_log()))
}

/// Hooks per second for `n` calls with `window` in flight.
async fn throughput(d: &Arc<Daemon>, pane: &str, n: usize, window: usize, tag: &str) -> f64 {
    let body = Arc::new(payload("PreToolUse"));
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for w in 0..window {
        let (d, body, pane) = (d.clone(), body.clone(), pane.to_string());
        let tag = tag.to_string();
        tasks.spawn(async move {
            for i in (w..n).step_by(window) {
                hook(&d, &pane, &body, &format!("{tag}-{i}")).await;
            }
        });
    }
    while let Some(r) = tasks.join_next().await {
        r.expect("hook task");
    }
    n as f64 / start.elapsed().as_secs_f64()
}

pub async fn run_throughput() {
    println!("== 2. Hook throughput through D-Bus (one in-process client, private bus)");
    println!("{}", harness::load());
    let d = Arc::new(Daemon::start(&[]).await);
    let pane = d.run(&["cat"], 24, 80, false).await;
    throughput(&d, &pane, 200, 8, "warm").await;
    let (mut one, mut piped) = (Vec::new(), Vec::new());
    for r in 0..3 {
        one.push(throughput(&d, &pane, 500, 1, &format!("one{r}")).await);
        piped.push(throughput(&d, &pane, 3000, 64, &format!("piped{r}")).await);
    }
    let (one, piped) = (harness::median(&mut one), harness::median(&mut piped));
    println!("one at a time: {one:.0} hooks/s; 64 in flight: {piped:.0} hooks/s");
    result(
        "2",
        "daemon Hook calls/s, one at a time",
        "",
        &format!("{one:.0}"),
        "info",
    );
    result(
        "2",
        "daemon Hook calls/s, 64 pipelined on one connection",
        "",
        &format!("{piped:.0} ({:.1}x one at a time)", piped / one),
        "info",
    );
}

pub async fn run_latency() {
    println!("== 6. Latency: hook call → Event signal seen by a client, 1 000 events");
    println!("{}", harness::load());
    let d = Daemon::start(&[]).await;
    let pane = d.run(&["cat"], 24, 80, false).await;
    let mut stream = d.attend.receive_event().await.expect("subscribe to Event");
    // Working and done in turn: every hook changes the lifecycle, so every one emits.
    let bodies = [payload("UserPromptSubmit"), payload("Stop")];
    let mut lat = Vec::new();
    for i in 0..1000 {
        let start = Instant::now();
        let seq = hook(&d, &pane, &bodies[i % 2], &format!("lat-{i}")).await;
        loop {
            let signal = tokio::time::timeout(Duration::from_secs(10), next(&mut stream))
                .await
                .expect("no Event signal within 10 s")
                .expect("stream ended");
            let s = signal.args().expect("Event body").seq;
            if s >= seq {
                break;
            }
        }
        lat.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let (p50, p99) = (percentile(&mut lat, 50.0), percentile(&mut lat, 99.0));
    println!("hook → Event signal: p50 {p50:.2} ms, p99 {p99:.2} ms");
    result(
        "6",
        "hook call → D-Bus Event signal at a client, p50 / p99 (ms)",
        "",
        &format!("{p50:.2} / {p99:.2}"),
        "info",
    );
}
