//! What every service benchmark needs beyond `tests/support` (the private bus, the real
//! `attend daemon` with temporary directories, `$ATTEND_BIN`): the daemon's typed async
//! proxy (`attend::client::Attend1Proxy`) on the bench's runtime, process figures from `/proc`, and the result lines that `build-aux/bench.sh`
//! turns into the table of `docs/benchmarks.md`.

use crate::support::Env;
use attend::client::Attend1Proxy;
use std::collections::HashMap;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use zbus::zvariant::Value;

/// The machine load as `/proc/loadavg` gives it (1, 5 and 15 minute averages), for the
/// line printed next to each table.
pub fn load() -> String {
    let s = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let f: Vec<&str> = s.split_whitespace().take(3).collect();
    format!("load average {}", f.join(" "))
}

/// Prints one result row: `RESULT<TAB>item<TAB>what<TAB>goal<TAB>measured<TAB>verdict`,
/// the format `build-aux/bench.sh` collects into its table. `verdict` is `met`,
/// `MISSED` or `info`.
pub fn result(item: &str, what: &str, goal: &str, measured: &str, verdict: &str) {
    println!(
        "RESULT\t{item}\t{what}\t{goal}\t{measured}\t{verdict}\t{}",
        load()
    );
}

/// `met` or `MISSED`.
pub fn verdict(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "MISSED"
    }
}

/// Median of `xs` (sorted in place); 0 for none.
pub fn median(xs: &mut [f64]) -> f64 {
    percentile(xs, 50.0)
}

/// The `p`-th percentile (nearest rank) of `xs` (sorted in place); 0 for none.
pub fn percentile(xs: &mut [f64], p: f64) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    xs.sort_by(|a, b| a.total_cmp(b));
    let rank = ((p / 100.0) * xs.len() as f64).ceil() as usize;
    xs[rank.clamp(1, xs.len()) - 1]
}

/// A running `attend daemon` (a `tests/support` [`Env`], which it dereferences to) and
/// its typed proxy on a connection of the bench; the daemon is stopped with SIGTERM on
/// drop.
pub struct Daemon {
    pub env: Env,
    /// `io.github.attend.Attend1` (no property cache).
    pub attend: Attend1Proxy<'static>,
}

impl Deref for Daemon {
    type Target = Env;
    fn deref(&self) -> &Env {
        &self.env
    }
}

impl Daemon {
    /// Starts `attend daemon --no-tray --no-notifications ARGS`, waits until it is ready
    /// and connects to its bus; then waits (≤ 20 s) until it answers `Version` there.
    pub async fn start(args: &[&str]) -> Daemon {
        Daemon::start_with(args, &[]).await
    }

    /// Like [`Daemon::start`], with `vars` in the daemon's environment.
    pub async fn start_with(args: &[&str], vars: &[(&str, &str)]) -> Daemon {
        let mut env = Env::new();
        let mut all = vec!["--no-tray", "--no-notifications"];
        all.extend_from_slice(args);
        env.start_daemon_with(&all, vars);
        let conn = zbus::connection::Builder::address(env.bus.address.as_str())
            .expect("address")
            .build()
            .await
            .expect("connect to the private bus");
        let attend = Attend1Proxy::builder(&conn)
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await
            .expect("the Attend1 proxy");
        let d = Daemon { env, attend };
        let start = Instant::now();
        while d.attend.version().await.is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the daemon did not answer: {}",
                d.daemon_log()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        d
    }

    /// `Run` with `argv`, a `rows`×`cols` terminal, `oneshot`, in the test directory; the
    /// pane id.
    pub async fn run(&self, argv: &[&str], rows: u16, cols: u16, oneshot: bool) -> String {
        let mut spec: HashMap<&str, Value<'_>> = HashMap::new();
        spec.insert("argv", Value::from(argv.to_vec()));
        spec.insert("rows", Value::from(rows));
        spec.insert("cols", Value::from(cols));
        spec.insert("oneshot", Value::from(oneshot));
        spec.insert("cwd", Value::from(self.dir.path().to_str().expect("utf-8")));
        self.attend
            .run(&spec)
            .await
            .unwrap_or_else(|e| panic!("Run {argv:?}: {e}\n{}", self.daemon_log()))
    }
}

/// Figures of one process from `/proc`.
#[derive(Debug, Clone, Default)]
pub struct ProcFigures {
    /// utime + stime of all its threads, in clock ticks.
    pub cpu_ticks: u64,
    /// Voluntary + involuntary context switches of each of its threads (by thread id):
    /// how often they went to sleep and woke up again.
    pub switches: HashMap<u32, u64>,
    /// Resident set size, KiB.
    pub rss_kib: u64,
}

/// Reads [`ProcFigures`] of `pid`.
pub fn proc_figures(pid: u32) -> ProcFigures {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let rest = stat.rfind(')').map_or("", |i| &stat[i + 2..]);
    let f: Vec<&str> = rest.split(' ').collect();
    let tick = |i: usize| f.get(i).and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
    let mut switches = HashMap::new();
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for t in tasks.flatten() {
            let Some(tid) = t.file_name().to_str().and_then(|s| s.parse().ok()) else {
                continue;
            };
            let status = std::fs::read_to_string(t.path().join("status")).unwrap_or_default();
            let n = status_field(&status, "voluntary_ctxt_switches:")
                + status_field(&status, "nonvoluntary_ctxt_switches:");
            switches.insert(tid, n);
        }
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    ProcFigures {
        cpu_ticks: tick(11) + tick(12),
        switches,
        rss_kib: status_field(&status, "VmRSS:"),
    }
}

/// Wake-ups between two figures of one process: the growth of every thread's count
/// (threads started meanwhile count in full).
pub fn wakeups(before: &ProcFigures, after: &ProcFigures) -> u64 {
    after
        .switches
        .iter()
        .map(|(tid, n)| n.saturating_sub(*before.switches.get(tid).unwrap_or(&0)))
        .sum()
}

/// Proportional set size of `pid` in KiB (`Pss:` of `/proc/PID/smaps_rollup`): its
/// private pages plus its share of the pages it shares with other processes.
pub fn pss_kib(pid: u32) -> u64 {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
    status_field(&rollup, "Pss:")
}

/// Threads of `pid` (entries of `/proc/PID/task`).
pub fn thread_count(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, |r| r.count())
}

/// Open descriptors of `pid` (entries of `/proc/PID/fd`).
pub fn fd_count(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |r| r.count())
}

/// The soft and hard `Max open files` of `pid` (`/proc/PID/limits`; `unlimited` as
/// `u64::MAX`).
pub fn nofile_limits(pid: u32) -> (u64, u64) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap_or_default();
    let line = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max open files"))
        .unwrap_or("");
    let mut f = line
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(u64::MAX));
    (f.next().unwrap_or(0), f.next().unwrap_or(0))
}

/// The children of `pid` (`/proc/PID/task/PID/children`).
pub fn children(pid: u32) -> Vec<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

fn status_field(status: &str, key: &str) -> u64 {
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Clock ticks per second (`sysconf(_SC_CLK_TCK)`).
pub fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { nix::libc::sysconf(nix::libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

/// A private tmux server (`tmux -L NAME -f /dev/null`), killed on drop.
pub struct Tmux {
    pub name: String,
}

impl Tmux {
    pub fn new(tag: &str) -> Tmux {
        Tmux {
            name: format!("attend-bench-{tag}-{}", std::process::id()),
        }
    }

    /// `tmux -L NAME -f /dev/null ARGS`.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.name, "-f", "/dev/null"]).args(args);
        c.stdin(Stdio::null()).stdout(Stdio::piped());
        c
    }

    /// Runs `tmux ARGS`, panics on failure, returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.cmd(args).output().expect("tmux must be installed");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The tmux server's pid.
    pub fn server_pid(&self) -> u32 {
        self.ok(&["display-message", "-p", "#{pid}"])
            .trim()
            .parse()
            .expect("pid")
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]).stderr(Stdio::null()).output();
    }
}

/// A file of `lines` lines of `width` printable characters (some in SGR colours, as
/// compiler output has) under `dir`, made once and reused.
pub fn text_file(dir: &Path, name: &str, lines: usize, width: usize) -> PathBuf {
    let path = dir.join(name);
    if path.exists() {
        return path;
    }
    let mut out = Vec::with_capacity(lines * (width + 16));
    for i in 0..lines {
        let head = format!("\x1b[1;32m{:>8}\x1b[0m ", i);
        out.extend_from_slice(head.as_bytes());
        let body =
            "compiling attend (src/service/pty.rs): the quick brown fox jumps over the lazy dog; ";
        out.extend(body.bytes().cycle().take(width.saturating_sub(9)));
        out.push(b'\n');
    }
    std::fs::write(&path, out).expect("write the text file");
    path
}

/// RSS in KiB of `pid` once it stopped changing (output drained and parsed): sampled every
/// 400 ms, at most 50 times.
pub async fn settled_rss(pid: u32) -> u64 {
    let mut last = 0;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        let now = proc_figures(pid).rss_kib;
        if now == last {
            break;
        }
        last = now;
    }
    last
}
