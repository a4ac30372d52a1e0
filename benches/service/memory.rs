//! Benchmark 5 (docs/benchmarks.md): memory. The daemon's RSS with 1, 20 and 100 panes of 120×40,
//! each having printed 2 040 coloured lines (2 000 lines of scrollback plus a screenful),
//! against a tmux server (history-limit 2000, its default) holding the same panes. The
//! per-pane figure is the slope (RSS(100) − RSS(1)) / 99. Goal: Attend's per-pane figure
//! ≤ tmux's.

use crate::harness::{self, result, settled_rss, verdict, Daemon, Tmux};
use std::path::Path;

const COUNTS: [usize; 3] = [1, 20, 100];
const LINES: usize = 2_040;

/// The pane's command: print the file, then wait without output.
fn script(file: &Path) -> String {
    format!("cat {}; exec cat", file.display())
}

async fn attend_rss(file: &Path, panes: usize) -> u64 {
    let d = Daemon::start(&[]).await;
    let s = script(file);
    for _ in 0..panes {
        d.run(&["sh", "-c", &s], 40, 120, false).await;
    }
    settled_rss(d.daemon_pid()).await
}

async fn tmux_rss(file: &Path, panes: usize) -> u64 {
    let t = Tmux::new("mem");
    let s = script(file);
    t.ok(&["new-session", "-d", "-x", "120", "-y", "40", &s]);
    for _ in 1..panes {
        t.ok(&["new-window", "-d", &s]);
    }
    settled_rss(t.server_pid()).await
}

pub async fn run() {
    println!("== 5. Memory: RSS with panes of 120x40 holding 2 000 lines of scrollback");
    println!("{}", harness::load());
    let dir = std::env::temp_dir();
    let file = harness::text_file(&dir, "attend-bench-2040-lines.txt", LINES, 110);
    let mut a = Vec::new();
    let mut t = Vec::new();
    for n in COUNTS {
        let (ra, rt) = (attend_rss(&file, n).await, tmux_rss(&file, n).await);
        println!(
            "{n:>3} panes: attend daemon {} KiB, tmux server {} KiB ({})",
            ra,
            rt,
            harness::load()
        );
        result(
            "5",
            &format!("RSS with {n} panes (MiB), attend / tmux"),
            "",
            &format!("{:.1} / {:.1}", ra as f64 / 1024.0, rt as f64 / 1024.0),
            "info",
        );
        a.push(ra as f64);
        t.push(rt as f64);
    }
    let slope = |v: &[f64]| (v[2] - v[0]) / (COUNTS[2] - COUNTS[0]) as f64 / 1024.0;
    let (pa, pt) = (slope(&a), slope(&t));
    println!("per pane: attend {pa:.2} MiB, tmux {pt:.2} MiB");
    result(
        "5",
        "RSS per pane (MiB), attend vs tmux",
        "<= tmux",
        &format!("{pa:.2} vs {pt:.2} ({:.2}x)", pa / pt),
        verdict(pa <= pt),
    );
}
