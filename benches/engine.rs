//! Engine throughput benchmark: signals per second through the pure engine on one core.
//!
//! Run: `cargo bench --bench engine`. Goal (foundation issue): ≥ 1 000 000 signals/s.
//! A realistic Claude turn mix (prompt, tools, permission gate, stop, review, session
//! end) is replayed over 100 panes; the figure is total signals / wall time, best of 5.

use attend::engine::{NewPane, World};
use attend::model::*;
use std::hint::black_box;
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
            SignalKind::ToolStarted {
                tool: "Read".into(),
                tool_use_id: Some("toolu_02".into()),
            },
            "PreToolUse",
            4,
        ),
        h(
            SignalKind::ToolFinished {
                tool: Some("Read".into()),
                tool_use_id: Some("toolu_02".into()),
            },
            "PostToolUse",
            5,
        ),
        h(
            SignalKind::TurnStopped {
                summary: Some("Done: the work is finished.".into()),
            },
            "Stop",
            6,
        ),
        Signal::new(SignalKind::Bell, Source::terminal("bel"), Timestamp(t + 7)),
        h(
            SignalKind::SessionEnded {
                reason: Some("prompt_input_exit".into()),
            },
            "SessionEnd",
            8,
        ),
    ]
}

fn main() {
    const PANES: u64 = 100;
    const ROUNDS: usize = 2_000;
    let script = turn(1_000);
    let mut best = f64::MAX;
    let mut total = 0u64;
    for _ in 0..5 {
        let mut w = World::new();
        let ids: Vec<PaneId> = (0..PANES)
            .map(|_| {
                w.add_pane(
                    NewPane {
                        workspace: "/src/bench".into(),
                        agent: AgentKind::Claude,
                        ..Default::default()
                    },
                    Timestamp(0),
                )
                .0
            })
            .collect();
        let start = Instant::now();
        let mut n = 0u64;
        for r in 0..ROUNDS {
            let p = ids[r % ids.len()];
            for s in &script {
                black_box(w.apply_signal(p, s).unwrap());
                n += 1;
            }
            black_box(w.apply_action(p, &Action::MarkSeen, Timestamp(10)).unwrap());
            n += 1;
        }
        let secs = start.elapsed().as_secs_f64();
        best = best.min(secs);
        total = n;
    }
    let rate = total as f64 / best;
    println!(
        "engine: {total} signals+actions in {:.3} ms (best of 5) = {:.0} signals/s",
        best * 1e3,
        rate
    );
    println!(
        "goal >= 1000000 signals/s: {}",
        if rate >= 1e6 { "met" } else { "MISSED" }
    );
}
