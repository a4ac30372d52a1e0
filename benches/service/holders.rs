//! Benchmark 8 (docs/benchmarks.md), the holder's side: what one pane holder costs. 100
//! panes of 120×40 run `cat` (nothing printed, so every holder's buffer is empty), each
//! kept by its holder process; for every holder its proportional set size (`Pss:` of
//! `/proc/PID/smaps_rollup`: its private pages plus its share of the pages it shares with
//! the other holders) and its threads. Measured twice, each with a daemon of its own: with
//! `attend-holder` (the executable beside `attend`) and with the fallback `attend
//! __holder` (the same code inside `attend`, used when no `attend-holder` is installed).
//! Goal: PSS ≤ 0.5 MB (10^6 bytes) and one thread per holder.

use crate::harness::{self, median, pss_kib, result, thread_count, verdict, Daemon};
use crate::support::{attend_bin, holders_of, poll};
use std::time::Duration;

const PANES: usize = 100;
/// 0.5 MB in KiB (what `/proc` counts in).
const GOAL_KIB: f64 = 500_000.0 / 1024.0;

/// PSS of each holder (KiB), the most threads of any holder, and the holders' executable.
struct Figures {
    pss: Vec<f64>,
    threads: usize,
    exe: String,
}

async fn measure(vars: &[(&str, &str)]) -> Figures {
    let d = Daemon::start_with(&[], vars).await;
    for _ in 0..PANES {
        d.run(&["cat"], 40, 120, false).await;
    }
    let state = d.state_dir();
    let all_up = poll(Duration::from_secs(30), || {
        holders_of(&state).len() == PANES
    });
    assert!(all_up, "expected {PANES} holders: {}", d.daemon_log());
    // Start-up is over (each holder handed its PTY over); let the pages settle.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let holders = holders_of(&state);
    let exe = std::fs::read_link(format!("/proc/{}/exe", holders[0]))
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    Figures {
        pss: holders.iter().map(|p| pss_kib(*p) as f64).collect(),
        threads: holders.iter().map(|p| thread_count(*p)).max().unwrap_or(0),
        exe,
    }
}

fn report(what: &str, mut f: Figures) {
    let max = f.pss.iter().copied().fold(0.0, f64::max);
    let med = median(&mut f.pss);
    let mb = |kib: f64| kib * 1024.0 / 1e6;
    println!(
        "{what} ({}): PSS per holder median {med:.0} KiB, max {max:.0} KiB; at most {} thread(s) ({})",
        f.exe,
        f.threads,
        harness::load()
    );
    result(
        "8",
        &format!("holder PSS, empty buffer, {PANES} panes, {what}: median (max)"),
        "<= 0.5 MB",
        &format!("{:.2} MB ({:.2}; {med:.0} KiB)", mb(med), mb(max)),
        verdict(max <= GOAL_KIB),
    );
    result(
        "8",
        &format!("holder threads, {what}"),
        "1",
        &f.threads.to_string(),
        verdict(f.threads == 1),
    );
}

pub async fn run() {
    println!("== 8. Holders: PSS and threads per holder with {PANES} idle panes");
    println!("{}", harness::load());
    let beside = std::path::Path::new(attend_bin()).with_file_name("attend-holder");
    if beside.is_file() {
        report("`attend-holder`", measure(&[]).await);
    } else {
        println!(
            "no {} (cargo build --release --bin attend-holder)",
            beside.display()
        );
    }
    // The fallback: `attend __holder`, through a script that execs it.
    let script =
        std::env::temp_dir().join(format!("attend-bench-holder-{}.sh", std::process::id()));
    std::fs::write(
        &script,
        format!("#!/bin/sh\nexec '{}' __holder \"$@\"\n", attend_bin()),
    )
    .expect("write the fallback script");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod the fallback script");
    let fallback = measure(&[("ATTEND_HOLDER", script.to_str().expect("utf-8"))]).await;
    let _ = std::fs::remove_file(&script);
    report("`attend __holder` (fallback)", fallback);
}
