//! Benchmark 8 (docs/benchmarks.md), the daemon's side: what a running pane costs the
//! daemon. One daemon; panes of 120×40 running `cat` (each kept by its holder) are added
//! until 10, 100 and 1 000 run; at each count the daemon's threads, resident set size
//! (once it stopped changing) and open descriptors. The daemon starts with a soft
//! open-files limit of 1 024 (what a desktop session usually gives), which 1 000 panes
//! exceed: it raises its own (src/service/processes/fd_limit.rs), and the programs in its panes get
//! 1 024 back. Goal: at most 16 daemon threads at 1 000 panes.

use crate::harness::{self, children, fd_count, nofile_limits, result, settled_rss, thread_count};
use crate::harness::{verdict, Daemon};
use crate::support::holders_of;
use nix::libc;
use std::time::Instant;

const COUNTS: [usize; 3] = [10, 100, 1000];
const SESSION_SOFT_LIMIT: u64 = 1024;
const THREAD_GOAL: usize = 16;

/// Sets this process's soft open-files limit (its children inherit it); the old limits.
fn set_soft_nofile(soft: u64) -> libc::rlimit {
    let mut old = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit of this process with valid pointers.
    unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut old);
        let new = libc::rlimit {
            rlim_cur: (soft as libc::rlim_t).min(old.rlim_max),
            rlim_max: old.rlim_max,
        };
        libc::setrlimit(libc::RLIMIT_NOFILE, &new);
    }
    old
}

pub async fn run() {
    println!("== 8. Panes: daemon threads, RSS and descriptors with 10, 100, 1 000 running panes");
    println!("{}", harness::load());
    let old = set_soft_nofile(SESSION_SOFT_LIMIT);
    let d = Daemon::start(&[]).await;
    // SAFETY: restores this process's own limit.
    unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &old) };
    let pid = d.daemon_pid();
    let (soft, hard) = nofile_limits(pid);
    println!("daemon open-files limit {soft} (hard {hard}), started with {SESSION_SOFT_LIMIT}");
    let mut have = 0;
    let mut at_max = 0;
    for n in COUNTS {
        let start = Instant::now();
        for _ in have..n {
            d.run(&["cat"], 40, 120, false).await;
        }
        let spawn_ms = start.elapsed().as_secs_f64() * 1e3 / (n - have) as f64;
        have = n;
        let rss = settled_rss(pid).await;
        let (threads, fds) = (thread_count(pid), fd_count(pid));
        let holders = holders_of(&d.state_dir());
        println!(
            "{n:>4} panes: daemon {threads} threads, RSS {:.1} MiB, {fds} descriptors; {} holders; \
             {spawn_ms:.1} ms per `Run` ({})",
            rss as f64 / 1024.0,
            holders.len(),
            harness::load()
        );
        result(
            "8",
            &format!("{n} panes: daemon threads / RSS (MiB) / descriptors"),
            if n == 1000 { "<= 16 threads" } else { "" },
            &format!("{threads} / {:.1} / {fds}", rss as f64 / 1024.0),
            if n == 1000 {
                verdict(threads <= THREAD_GOAL)
            } else {
                "info"
            },
        );
        at_max = threads;
        if let Some(program) = holders.first().and_then(|h| children(*h).first().copied()) {
            if n == COUNTS[COUNTS.len() - 1] {
                let (psoft, _) = nofile_limits(program);
                result(
                    "8",
                    "open-files limit: daemon started with / raised to / a pane's program",
                    &format!("hard limit / {SESSION_SOFT_LIMIT}"),
                    &format!("{SESSION_SOFT_LIMIT} / {soft} / {psoft}"),
                    verdict(soft == hard && psoft == SESSION_SOFT_LIMIT.min(hard)),
                );
            }
        }
    }
    println!(
        "threads per pane at 1 000 panes: {:.2}",
        at_max as f64 / 1000.0
    );
}
