//! Hooks under PTY load: the round trip of a real hook process (`attend-hook claude`
//! when it is built next to `attend`, else `attend hook claude`; a recorded PreToolUse
//! payload) while [`PANES`] panes of the same daemon print continuously, against
//! `dbus-send` calling the bus daemon itself (`org.freedesktop.DBus.GetId`, a round trip
//! no Attend code serves) under the same load, alternating A B A B … in one loop.
//!
//! The loop runs INSIDE an Attend pane (as build-aux/bench-hook.sh does), so the hook
//! takes the real path: `ATTEND_PANE` from the daemon, the pane check against its
//! ancestors, one commit per delivery. Times come from bash's `$EPOCHREALTIME` (no process
//! is started to read the clock). Goal: p99 of the hook ≤ 1.5 × p99 of `GetId`, and no
//! hook spooled (a hook that misses its deadline spools; the daemon logs the drain).

use crate::harness::{self, percentile, result, verdict, Daemon};
use crate::support::attend_bin;
use std::path::Path;
use std::time::{Duration, Instant};

/// Printing panes.
const PANES: usize = 20;
/// Hook / `GetId` pairs measured.
const PAIRS: usize = 500;
/// A printer writes one block per this many milliseconds.
const TICK_MS: u64 = 50;
/// Time the printers run before the loop starts.
const WARM_UP: Duration = Duration::from_secs(2);

/// A printing pane (bash; `$1` = bytes per block, `$2` = its index): a busy agent that
/// prints log lines with SGR colours and redraws a status line at the top (cursor save,
/// move, erase, restore), one block every [`TICK_MS`] ms against its own clock (it
/// catches up when it fell behind), until the file `stop` exists; then it writes
/// `blocks start_us end_us` to `printed-<index>`.
const PRINTER: &str = r#"size=$1 me=$2 block= k=0
while (( ${#block} < size )); do
  k=$((k + 1))
  block+=$'\e[32mINFO\e[0m '"worker-$me step $k: compiled src/service/pty.rs, the quick brown fox jumps over the lazy dog"$'\n'
  (( k % 8 == 0 )) && block+=$'\e7\e[1;1H\e[2K\e[7m '"pane $me: working, step $k"$' \e[0m\e8'
done
block=${block:0:size}$'\n'
tick=TICK
t0=${EPOCHREALTIME/./} n=0
until [[ -e stop ]]; do
  printf '%s' "$block"
  n=$((n + 1))
  pause=$(( t0 + n * tick - ${EPOCHREALTIME/./} ))
  if (( pause > 0 )); then printf -v w '0.%06d' "$pause"; read -r -t "$w" _; fi
done
echo "$n $t0 ${EPOCHREALTIME/./}" >"printed-$me"
exec cat"#;

/// The timing loop (bash, in a pane; `$1` = pairs, `$2` = payload file, `$3` = output
/// directory, the rest = the hook command).
const LOOP: &str = r#"n=$1 payload=$2 out=$3; shift 3
for ((i = 0; i < n; i++)); do
  a=${EPOCHREALTIME/./}
  "$@" <"$payload" 2>>"$out/hook.err"
  b=${EPOCHREALTIME/./}
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.GetId >/dev/null
  c=${EPOCHREALTIME/./}
  echo $((b - a)) >>"$out/hook.us"
  echo $((c - b)) >>"$out/getid.us"
done
touch "$out/done"
exec cat"#;

/// The hook command: `attend-hook claude` when that executable sits next to `attend`,
/// else `attend hook claude`.
fn hook_command() -> Vec<String> {
    let bin = attend_bin();
    let small = Path::new(&bin).with_file_name("attend-hook");
    if small.is_file() {
        vec![small.display().to_string(), "claude".into()]
    } else {
        vec![bin.to_string(), "hook".into(), "claude".into()]
    }
}

/// Microseconds, one per line, as milliseconds.
fn samples(path: &Path) -> Vec<f64> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse::<f64>().ok())
        .map(|us| us / 1e3)
        .collect()
}

/// Hook records the daemon drained from the spool, from its log lines
/// `drained the hook spool … applied=N refused=R torn=T`.
fn spooled(log: &str) -> u64 {
    log.lines()
        .filter(|l| l.contains("drained the hook spool"))
        .flat_map(|l| {
            ["applied=", "refused=", "torn="].map(|k| {
                l.split(k)
                    .nth(1)
                    .and_then(|v| v.split(|c: char| !c.is_ascii_digit()).next())
                    .and_then(|v| v.parse::<u64>().ok())
                    .unwrap_or(0)
            })
        })
        .sum()
}

/// The printers' mean rate per pane, KB/s (10^3 bytes), from their `printed-*` files.
fn printed_rate(dir: &Path, block: usize) -> f64 {
    let mut rates = Vec::new();
    for i in 0..PANES {
        let text = std::fs::read_to_string(dir.join(format!("printed-{i}"))).unwrap_or_default();
        let f: Vec<f64> = text
            .split_whitespace()
            .filter_map(|v| v.parse().ok())
            .collect();
        if let [n, start, end] = f[..] {
            rates.push(n * (block + 1) as f64 / ((end - start) / 1e6) / 1e3);
        }
    }
    rates.iter().sum::<f64>() / rates.len().max(1) as f64
}

/// One measurement with every printer writing about `kb_per_s` KB/s.
async fn measure(kb_per_s: usize, label: &str) {
    println!("== hooks under PTY load: {PANES} panes × {label}, {PAIRS} pairs");
    println!("{}", harness::load());
    let d = Daemon::start(&[]).await;
    let dir = d.dir.path().to_path_buf();
    let block = kb_per_s * 1000 * TICK_MS as usize / 1000 - 1;
    let printer = PRINTER.replace("TICK", &(TICK_MS * 1000).to_string());
    for i in 0..PANES {
        let (size, me) = (block.to_string(), i.to_string());
        d.run(
            &["bash", "-c", &printer, "printer", &size, &me],
            40,
            120,
            false,
        )
        .await;
    }
    tokio::time::sleep(WARM_UP).await;
    let out = dir.join("hook-load");
    std::fs::create_dir_all(&out).expect("output dir");
    std::fs::write(out.join("hook.err"), "").expect("hook.err");
    let payload = format!(
        "{}/tests/fixtures/claude/2.1.197/observed/PreToolUse.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let hook = hook_command();
    let (pairs, out_s) = (PAIRS.to_string(), out.display().to_string());
    let mut argv = vec!["bash", "-c", LOOP, "loop", &pairs, &payload, &out_s];
    argv.extend(hook.iter().map(String::as_str));
    let start = Instant::now();
    d.run(&argv, 24, 80, false).await;
    while !out.join("done").exists() {
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "the hook loop did not finish in 10 minutes\n{}",
            d.daemon_log()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let load = harness::load();
    std::fs::write(dir.join("stop"), "").expect("stop file");
    let wrote = Instant::now();
    while (0..PANES).any(|i| !dir.join(format!("printed-{i}")).exists())
        && wrote.elapsed() < Duration::from_secs(30)
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let rate = printed_rate(&dir, block);
    let (mut hook_ms, mut getid_ms) = (
        samples(&out.join("hook.us")),
        samples(&out.join("getid.us")),
    );
    let errors = std::fs::read_to_string(out.join("hook.err")).unwrap_or_default();
    // The daemon drains a spooled hook at once and logs it; give it a moment.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let spooled = spooled(&d.daemon_log());
    let (h50, h99) = (
        percentile(&mut hook_ms, 50.0),
        percentile(&mut hook_ms, 99.0),
    );
    let (g50, g99) = (
        percentile(&mut getid_ms, 50.0),
        percentile(&mut getid_ms, 99.0),
    );
    let ratio = h99 / g99;
    println!(
        "{} pairs in {:.1} s; printers {rate:.0} KB/s each; hook p50 {h50:.2} p99 {h99:.2} ms; \
         GetId p50 {g50:.2} p99 {g99:.2} ms; p99 ratio {ratio:.2}; spooled {spooled}; {load}",
        hook_ms.len(),
        start.elapsed().as_secs_f64()
    );
    if !errors.is_empty() {
        println!(
            "hook stderr:\n{}",
            errors.lines().take(5).collect::<Vec<_>>().join("\n")
        );
    }
    let ok = ratio <= 1.5 && spooled == 0 && errors.is_empty() && hook_ms.len() == PAIRS;
    result(
        "1",
        &format!(
            "hook round trip under PTY load ({PANES} panes × {label}): p99 hook / p99 dbus-send GetId"
        ),
        "<= 1.5, none spooled",
        &format!(
            "{ratio:.2} ({h99:.1} vs {g99:.1} ms; p50 {h50:.1} vs {g50:.1} ms; {rate:.0} KB/s per pane; {spooled} spooled)"
        ),
        verdict(ok),
    );
}

/// Both rows: about 100 KB/s and 1 MB/s per printing pane.
pub async fn run() {
    measure(100, "100 KB/s").await;
    measure(1000, "1 MB/s").await;
}
