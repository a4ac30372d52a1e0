//! Benchmark 7 (docs/benchmarks.md): scale. With 10, 100 and 1 000 panes (one owned pane running
//! `cat`, the rest external panes made by hooks with their own session ids), the wall
//! time of `attend ls --json` (the whole command, median of 7) and of one `Hook` call to
//! the owned pane (median of 50, from the in-process client). Growth is reported as the
//! exponent k in time ∝ panes^k between 100 and 1 000 panes; quadratic would be 2.
//! Goal: k < 1.5 for both.

use crate::harness::{self, median, result, verdict, Daemon};
use crate::hooks::{hook, payload};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;
use zbus::zvariant::Value;

const COUNTS: [usize; 3] = [10, 100, 1000];

/// Adds external panes until the daemon has `total` panes.
async fn grow(d: &Arc<Daemon>, have: usize, total: usize) {
    let body = Arc::new(payload("SessionStart"));
    let cwd = d.dir.path().to_str().expect("utf-8").to_string();
    let mut tasks = tokio::task::JoinSet::new();
    for w in 0..8 {
        let (d, body, cwd) = (d.clone(), body.clone(), cwd.clone());
        tasks.spawn(async move {
            for i in (have + w..total).step_by(8) {
                let session = format!("00000000-0000-4000-8000-{i:012}");
                let json: serde_json::Value = serde_json::from_str(&body).expect("payload");
                let mut json = json;
                json["session_id"] = serde_json::Value::from(session);
                json["cwd"] = serde_json::Value::from(cwd.as_str());
                let mut ctx: HashMap<&str, Value<'_>> = HashMap::new();
                ctx.insert("delivery_id", Value::from(format!("grow-{i}")));
                let text = json.to_string();
                d.attend
                    .hook("claude", "", &text, &ctx)
                    .await
                    .unwrap_or_else(|e| panic!("Hook: {e}"));
            }
        });
    }
    while let Some(r) = tasks.join_next().await {
        r.expect("grow task");
    }
}

fn ls_ms(d: &Daemon, panes: usize) -> f64 {
    let mut xs = Vec::new();
    for _ in 0..7 {
        let start = Instant::now();
        let out = d.cmd().args(["ls", "--json"]).output().expect("attend ls");
        xs.push(start.elapsed().as_secs_f64() * 1e3);
        assert!(out.status.success(), "attend ls --json failed");
        let n = serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .ok()
            .and_then(|v| v.as_array().map(Vec::len));
        assert_eq!(n, Some(panes), "attend ls --json lists every pane");
    }
    median(&mut xs)
}

async fn hook_ms(d: &Daemon, pane: &str, tag: usize) -> f64 {
    let body = payload("PreToolUse");
    let mut xs = Vec::new();
    for i in 0..50 {
        let start = Instant::now();
        hook(d, pane, &body, &format!("scale-{tag}-{i}")).await;
        xs.push(start.elapsed().as_secs_f64() * 1e3);
    }
    median(&mut xs)
}

pub async fn run() {
    println!("== 7. Scale: attend ls --json and one hook with 10, 100, 1 000 panes");
    println!("{}", harness::load());
    let d = Arc::new(Daemon::start(&[]).await);
    let pane = d.run(&["cat"], 24, 80, false).await;
    let mut have = 1;
    let (mut ls, mut hk) = (Vec::new(), Vec::new());
    for n in COUNTS {
        grow(&d, have, n).await;
        have = n;
        let (l, h) = (ls_ms(&d, n), hook_ms(&d, &pane, n).await);
        println!(
            "{n:>4} panes: attend ls --json {l:.1} ms, one hook {h:.2} ms ({})",
            harness::load()
        );
        result(
            "7",
            &format!("{n} panes: `attend ls --json` / one hook (ms)"),
            "",
            &format!("{l:.1} / {h:.2}"),
            "info",
        );
        ls.push(l);
        hk.push(h);
    }
    let k = |v: &[f64]| (v[2] / v[1]).ln() / 10f64.ln();
    let (kl, kh) = (k(&ls), k(&hk));
    result(
        "7",
        "growth exponent 100 → 1 000 panes, ls --json",
        "< 1.5 (not quadratic)",
        &format!("{kl:.2}"),
        verdict(kl < 1.5),
    );
    result(
        "7",
        "growth exponent 100 → 1 000 panes, one hook",
        "< 1.5 (not quadratic)",
        &format!("{kh:.2}"),
        verdict(kh < 1.5),
    );
}
