//! Benchmark 3 (docs/benchmarks.md): PTY throughput. Time to drain 256 MiB of text lines through an
//! Attend pane with no client attached (a held pane: its holder process keeps the PTY and
//! passed the master to the daemon, whose threads read it), against the bare PTY reader
//! (`examples/bare_pty.rs`, the physical limit) and a detached tmux pane, alternated in
//! one run. Also the rates of the pieces an Attend pane runs on every byte (the terminal
//! scanner and the vt100 parser) in this process, as profile evidence.

use crate::harness::{self, median, result, verdict, Daemon, Tmux};
use crate::support::holder_of;
use attend::adapters::terminal_signals::TerminalScanner;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Bytes of the test file.
const SIZE: usize = 256 * 1024 * 1024;
/// The terminal every contender gets.
const ROWS: u16 = 40;
const COLS: u16 = 120;

/// The 256 MiB file of plain 94-byte lines (`yes LINE | head -c 268435456`), made once.
fn data_file() -> PathBuf {
    let path = std::env::temp_dir().join("attend-bench-256m.txt");
    if std::fs::metadata(&path).map(|m| m.len() as usize).ok() != Some(SIZE) {
        let line = b"compiling attend v0.1.0 (/src/attend): the quick brown fox jumps over the lazy dog 0123456789\n";
        let data: Vec<u8> = line.iter().copied().cycle().take(SIZE).collect();
        std::fs::write(&path, data).expect("write the data file");
    }
    path
}

/// The bare reader example next to this bench's binaries (built by `build-aux/bench.sh`).
fn bare_bin() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_attend"))
        .parent()
        .expect("target dir")
        .join("examples")
        .join("bare_pty")
}

fn bare(script: &str) -> f64 {
    let out = Command::new(bare_bin())
        .arg(script)
        .output()
        .expect("run examples/bare_pty (cargo build --release --example bare_pty)");
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .find_map(|w| w.strip_prefix("seconds="))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bare_pty said {text:?}"))
}

fn tmux(script: &str) -> f64 {
    let t = Tmux::new("pty");
    let inner = format!("{script}; tmux -L {} wait-for -S done", t.name);
    let start = Instant::now();
    t.ok(&[
        "new-session",
        "-d",
        "-x",
        &COLS.to_string(),
        "-y",
        &ROWS.to_string(),
        &inner,
    ]);
    t.ok(&["wait-for", "done"]);
    start.elapsed().as_secs_f64()
}

/// Runs `script` in a oneshot pane and waits for its `PaneExited` signal.
async fn attend(d: &Daemon, script: &str) -> f64 {
    let mut stream = d
        .attend
        .receive_pane_exited()
        .await
        .expect("subscribe to PaneExited");
    let start = Instant::now();
    let pane = d.run(&["sh", "-c", script], ROWS, COLS, true).await;
    // The pane is kept by a holder (docs/decisions/0009-pane-holders.md) and the daemon
    // reads the master the holder passed it (an `ATTEND_BIN` from before holders: not).
    if holder_of(&d.state_dir(), &pane).is_none() {
        println!("pane {pane} has no holder: the daemon reads a PTY of its own");
    }
    loop {
        let signal = tokio::time::timeout(Duration::from_secs(600), next(&mut stream))
            .await
            .expect("the pane did not exit within 10 minutes")
            .expect("signal stream ended");
        if signal.args().expect("PaneExited body").pane == pane {
            return start.elapsed().as_secs_f64();
        }
    }
}

/// The next item of a stream (a typed signal stream of the proxy).
pub async fn next<S>(stream: &mut S) -> Option<S::Item>
where
    S: zbus::export::futures_core::Stream + Unpin,
{
    std::future::poll_fn(|cx| std::pin::Pin::new(&mut *stream).poll_next(cx)).await
}

/// MB/s (10^6 bytes) of `f` over `bytes` (best of 3), for the in-process pieces.
fn rate(bytes: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..3 {
        let start = Instant::now();
        f();
        best = best.min(start.elapsed().as_secs_f64());
    }
    bytes as f64 / best / 1e6
}

/// The scanner and the vt100 parser alone over 64 MiB of the same lines as the PTY
/// delivers them (`\r\n`), fed in 16 KiB chunks.
fn pieces(file: &Path) {
    let raw = std::fs::read(file).expect("read the data file");
    let mut data = Vec::with_capacity(64 << 20);
    for &b in &raw[..60 << 20] {
        if b == b'\n' {
            data.push(b'\r');
        }
        data.push(b);
    }
    let scan = rate(data.len(), || {
        let mut s = TerminalScanner::new();
        let (mut ev, mut screen) = (Vec::new(), Vec::with_capacity(16 << 10));
        for c in data.chunks(16 << 10) {
            screen.clear();
            s.feed_filtered(c, &mut ev, &mut screen);
        }
        std::hint::black_box(&screen);
    });
    let parse = |scrollback: usize| {
        rate(data.len(), || {
            let mut p = vt100::Parser::new(ROWS, COLS, scrollback);
            for c in data.chunks(16 << 10) {
                p.process(c);
            }
            std::hint::black_box(p.screen().cursor_position());
        })
    };
    let (vt_full, vt_small) = (parse(2000), parse(0));
    println!(
        "pieces (in process, 16 KiB chunks): scanner {scan:.0} MB/s, vt100 {vt_full:.0} MB/s \
         (scrollback 2000), {vt_small:.0} MB/s (scrollback 0)"
    );
    result(
        "3",
        "scanner alone (MB/s)",
        "",
        &format!("{scan:.0}"),
        "info",
    );
    result(
        "3",
        "vt100 parser alone, scrollback 2000 (MB/s)",
        "",
        &format!("{vt_full:.0}"),
        "info",
    );
}

/// Timed rounds when `ATTEND_BENCH_ROUNDS` does not say.
pub const ROUNDS: usize = 5;

/// Bytes every contender drains once, untimed, before the timed rounds (16 MiB): the
/// daemon's first pane pays for its allocator arenas and the first start of the holder
/// binary, the bare reader for its first start; a cost a pane pays once per daemon.
const WARM_UP: usize = 16 * 1024 * 1024;

/// Runs benchmark 3: one untimed warm-up of each contender, then `ATTEND_BENCH_ROUNDS`
/// (default [`ROUNDS`]) alternated timed rounds.
pub async fn run() {
    let rounds = std::env::var("ATTEND_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .filter(|&r: &usize| r > 0)
        .unwrap_or(ROUNDS);
    let file = data_file();
    let script = format!("cat {}", file.display());
    println!("== 3. PTY throughput: 256 MiB of 94-byte lines, {ROWS}x{COLS}, {rounds} rounds");
    println!("{}", harness::load());
    pieces(&file);
    let d = Daemon::start(&[]).await;
    let warm = format!("head -c {WARM_UP} {}", file.display());
    let (wb, wa, wt) = (bare(&warm), attend(&d, &warm).await, tmux(&warm));
    println!("warm-up, 16 MiB: bare {wb:.2} s, attend {wa:.2} s, tmux {wt:.2} s (not counted)");
    let (mut b, mut t, mut a) = (Vec::new(), Vec::new(), Vec::new());
    let (mut a_b, mut t_b, mut a_t) = (Vec::new(), Vec::new(), Vec::new());
    let mut cpu = Vec::new();
    for r in 0..rounds {
        let tb = bare(&script);
        let cpu0 = harness::proc_figures(d.daemon_pid()).cpu_ticks;
        let ta = attend(&d, &script).await;
        cpu.push(
            (harness::proc_figures(d.daemon_pid()).cpu_ticks - cpu0) as f64
                / harness::ticks_per_second(),
        );
        let tt = tmux(&script);
        println!(
            "round {r}: bare {tb:.2} s, attend {ta:.2} s, tmux {tt:.2} s ({})",
            harness::load()
        );
        b.push(tb);
        t.push(tt);
        a.push(ta);
        a_b.push(tb / ta);
        t_b.push(tb / tt);
        a_t.push(tt / ta);
    }
    let mb = SIZE as f64 / 1e6;
    let (mb_b, mb_t, mb_a) = (
        mb / median(&mut b),
        mb / median(&mut t),
        mb / median(&mut a),
    );
    println!("median rates: bare {mb_b:.0} MB/s, tmux {mb_t:.0} MB/s, attend {mb_a:.0} MB/s");
    // CPU time hardly depends on how busy the machine is, where the rates do: the
    // figure to compare builds with (e.g. before and after pane holders).
    let cpu_s = median(&mut cpu);
    result(
        "3",
        "daemon CPU time (user + sys) per 256 MiB drained, seconds",
        "",
        &format!("{cpu_s:.2}"),
        "info",
    );
    let (ra_b, rt_b, ra_t) = (median(&mut a_b), median(&mut t_b), median(&mut a_t));
    result(
        "3",
        "PTY drain rate, Attend pane (held) / bare reader",
        ">= 0.90",
        &format!("{ra_b:.2} ({mb_a:.0} vs {mb_b:.0} MB/s)"),
        verdict(ra_b >= 0.9),
    );
    result(
        "3",
        "PTY drain rate, Attend pane (held) / tmux 3.3 pane (acceptance)",
        ">= 1.00",
        &format!("{ra_t:.2} (tmux {mb_t:.0} MB/s)"),
        verdict(ra_t >= 1.0),
    );
    result(
        "3",
        "PTY drain rate, tmux / bare reader (reference)",
        "",
        &format!("{rt_b:.2}"),
        "info",
    );
}
