//! Benchmark 2b (docs/benchmarks.md): events per second through the engine and the SQLite store in
//! process, acknowledging only committed events: a realistic Claude turn replayed over
//! 100 panes, each input a hook delivery with its own delivery id, committed with
//! `Db::commit` in batches of 1, 16 and 256 inputs (256 is the owner loop's largest
//! batch). An event counts once its batch's commit returned.

use crate::harness::{self, result, verdict};
use attend::engine::{NewPane, World};
use attend::model::*;
use attend::service::store::db::Db;
use std::time::Instant;

fn turn(t: i64) -> Vec<Signal> {
    let h = |kind, ev: &str, dt| Signal::new(kind, Source::hook("claude", ev), Timestamp(t + dt));
    vec![
        h(SignalKind::TurnStarted, "UserPromptSubmit", 0),
        h(
            SignalKind::ToolStarted {
                tool: "Bash".into(),
                tool_use_id: Some("toolu_01".into()),
            },
            "PreToolUse",
            1,
        ),
        h(
            SignalKind::PermissionRequested {
                prompt: "Bash: cargo test".into(),
                options: vec!["Yes".into(), "No".into()],
                answer_keys: vec![],
                tool_use_id: Some("toolu_01".into()),
            },
            "PermissionRequest",
            2,
        ),
        h(
            SignalKind::ToolFinished {
                tool: Some("Bash".into()),
                tool_use_id: Some("toolu_01".into()),
            },
            "PostToolUse",
            3,
        ),
        h(
            SignalKind::TurnStopped {
                summary: Some("Done: the work is finished.".into()),
            },
            "Stop",
            4,
        ),
    ]
}

/// (events committed, inputs, seconds) for `inputs` hook deliveries in batches of `batch`.
fn run_batches(batch: usize, inputs: usize) -> (usize, usize, f64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut db = Db::open(&dir.path().join("attend.db")).expect("open the store");
    let mut w = World::new();
    let mut ids = Vec::new();
    for _ in 0..100 {
        let (id, events) = w.add_pane(
            NewPane {
                workspace: "/src/bench".into(),
                agent: AgentKind::Claude,
                ..Default::default()
            },
            Timestamp(0),
        );
        db.commit(&w, &[id], &events, &[])
            .expect("commit the panes");
        ids.push(id);
    }
    let script = turn(1_000);
    let start = Instant::now();
    let (mut acked, mut done, mut n) = (0, 0, 0);
    while done < inputs {
        let mut touched = std::collections::BTreeSet::new();
        let mut events = Vec::new();
        let mut deliveries = Vec::new();
        for _ in 0..batch.min(inputs - done) {
            let pane = ids[(n / script.len()) % ids.len()];
            let signal = &script[n % script.len()];
            events.extend(w.apply_signal(pane, signal).expect("apply"));
            touched.insert(pane);
            deliveries.push((format!("bench-{n}"), w.seq, signal.at));
            n += 1;
            done += 1;
        }
        let touched: Vec<PaneId> = touched.into_iter().collect();
        db.commit(&w, &touched, &events, &deliveries)
            .expect("commit");
        acked += events.len();
    }
    (acked, done, start.elapsed().as_secs_f64())
}

pub fn run() {
    println!("== 2. Store throughput (engine + SQLite commit, in process)");
    println!("{}", harness::load());
    let mut best = 0.0f64;
    for (batch, inputs) in [(1, 2_000), (16, 20_000), (256, 100_000)] {
        let (events, inputs, secs) = run_batches(batch, inputs);
        let rate = events as f64 / secs;
        println!(
            "batch {batch:>3}: {inputs} hooks, {events} events committed in {secs:.3} s = \
             {rate:.0} events/s ({:.0} hooks/s)",
            inputs as f64 / secs
        );
        if batch == 256 {
            best = rate;
        }
        result(
            "2",
            &format!("store: events/s committed, batches of {batch}"),
            if batch == 256 { ">= 50 000" } else { "" },
            &format!("{rate:.0}"),
            if batch == 256 {
                verdict(rate >= 50_000.0)
            } else {
                "info"
            },
        );
    }
    println!("batched rate / goal: {:.2}", best / 50_000.0);
}
