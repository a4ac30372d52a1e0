//! Benchmark 4 (docs/benchmarks.md): idle cost. The daemon with 20 idle panes (each a `cat` waiting
//! for input) and, over the same 30 s, a tmux server with 20 idle panes for reference:
//! CPU time (utime + stime) and wake-ups (context switches summed over all threads).
//! Goal: no CPU time beyond noise (≤ 2 clock ticks = 20 ms) and no periodic timers
//! (fewer than one wake-up per second in all). Over the same window, the pane holders
//! (one process per pane, docs/decisions/0009-pane-holders.md) must not wake up at all:
//! their `poll` has no timeout.

use crate::harness::{
    self, proc_figures, result, ticks_per_second, verdict, wakeups, Daemon, Tmux,
};
use crate::support::holders_of;
use std::time::Duration;

const PANES: usize = 20;
const WINDOW: Duration = Duration::from_secs(30);

pub async fn run() {
    println!(
        "== 4. Idle cost: {PANES} idle panes over {} s",
        WINDOW.as_secs()
    );
    println!("{}", harness::load());
    let d = Daemon::start(&[]).await;
    for _ in 0..PANES {
        d.run(&["cat"], 40, 120, false).await;
    }
    let t = Tmux::new("idle");
    t.ok(&["new-session", "-d", "-x", "120", "-y", "40", "cat"]);
    for _ in 1..PANES {
        t.ok(&["new-window", "-d", "cat"]);
    }
    let tmux_pid = t.server_pid();
    // Let start-up work settle (git lookups run on tokio's blocking threads, which exit
    // after 10 s without work).
    tokio::time::sleep(Duration::from_secs(12)).await;
    let holders = holders_of(&d.state_dir());
    let sample = || holders.iter().map(|p| proc_figures(*p)).collect::<Vec<_>>();
    let (a0, t0, h0) = (
        proc_figures(d.daemon_pid()),
        proc_figures(tmux_pid),
        sample(),
    );
    tokio::time::sleep(WINDOW).await;
    let (a1, t1, h1) = (
        proc_figures(d.daemon_pid()),
        proc_figures(tmux_pid),
        sample(),
    );
    let h_sw: u64 = h0.iter().zip(&h1).map(|(b, a)| wakeups(b, a)).sum();
    let h_cpu: u64 = h0
        .iter()
        .zip(&h1)
        .map(|(b, a)| a.cpu_ticks - b.cpu_ticks)
        .sum();
    let ms = |ticks: u64| ticks as f64 * 1000.0 / ticks_per_second();
    let (a_cpu, a_sw) = (a1.cpu_ticks - a0.cpu_ticks, wakeups(&a0, &a1));
    let (t_cpu, t_sw) = (t1.cpu_ticks - t0.cpu_ticks, wakeups(&t0, &t1));
    let threads = std::fs::read_dir(format!("/proc/{}/task", d.daemon_pid()))
        .map(|r| r.count())
        .unwrap_or(0);
    println!(
        "attend daemon ({threads} threads): {:.0} ms CPU, {a_sw} wake-ups; tmux server: {:.0} ms \
         CPU, {t_sw} wake-ups",
        ms(a_cpu),
        ms(t_cpu)
    );
    result(
        "4",
        "idle daemon, 20 panes, 30 s: CPU time (ms)",
        "<= 20 (noise)",
        &format!("{:.0} (tmux {:.0})", ms(a_cpu), ms(t_cpu)),
        verdict(a_cpu <= 2),
    );
    println!(
        "{} holders: {:.0} ms CPU, {h_sw} wake-ups",
        holders.len(),
        ms(h_cpu)
    );
    result(
        "4",
        "idle holders, 20 panes, 30 s: wake-ups (all holders) / CPU time (ms)",
        "0",
        &format!("{h_sw} / {:.0} ({} holders)", ms(h_cpu), holders.len()),
        verdict(h_sw == 0 && holders.len() == PANES),
    );
    result(
        "4",
        "idle daemon, 20 panes, 30 s: wake-ups (all threads)",
        "< 30 (no periodic timer)",
        &format!("{a_sw} (tmux {t_sw})"),
        verdict(a_sw < 30),
    );
}
