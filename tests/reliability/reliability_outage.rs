//! Output during an outage, measured (docs/reliability.md#outage-output): 100 panes, each
//! kept by its holder with a 64 KiB buffer, print numbered lines before, during and after
//! a daemon outage of at least 5 s. Panes whose outage output fits come back byte-exact
//! (every number once, in order); panes over the cap show one gap line whose count is
//! exactly what was dropped, followed by the newest bytes. A restart with nothing printed
//! leaves every pane's screen text as it was.

use crate::support;

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};
use support::Env;

const PANES: usize = 100;
const BUFFER: usize = 64 * 1024;
const OUTAGE: Duration = Duration::from_secs(5);

/// Lines per batch (before, during, after the outage) of pane `k`: even panes print a
/// little during the outage, odd ones far more than the buffer holds.
fn batches(k: usize) -> [usize; 3] {
    [300, if k % 2 == 0 { 2_000 } else { 20_000 }, 300]
}

/// Pane `k`'s shell: waits for each release, prints its batch, marks it done. The wait
/// retries on an empty read: the shell can reopen the FIFO while the test's writer of the
/// release before still holds it open (a loaded machine preempts the test between its
/// write and close), and that open ends in EOF, not in a release.
fn script(k: usize, fifo: &Path) -> String {
    let [a, b, c] = batches(k);
    let f = fifo.display();
    format!(
        "s=1; for n in {a} {b} {c}; do until read x < {f}; do :; done; e=$((s+n-1)); seq $s $e; s=$((e+1)); echo \"done $n\"; touch {f}.$n; done; exec cat"
    )
}

/// Releases batch `n` of every pane (each waits in `read x < fifo`).
fn release(fifos: &[std::path::PathBuf]) {
    for f in fifos {
        let mut w = std::fs::OpenOptions::new().write(true).open(f).unwrap();
        w.write_all(b"go\n").unwrap();
    }
}

fn wait_files(env: &Env, what: &str, files: impl Iterator<Item = std::path::PathBuf>) {
    let files: Vec<_> = files.collect();
    env.wait_until(what, || files.iter().all(|f| f.exists()));
}

/// The bytes of lines `from..=to` and the done line, as the screen gets them (CR LF).
fn stream(from: usize, to: usize, n: usize) -> Vec<u8> {
    let mut s = Vec::new();
    for i in from..=to {
        s.extend(format!("{i}\r\n").as_bytes());
    }
    s.extend(format!("done {n}\r\n").as_bytes());
    s
}

fn screen(env: &Env, pane: &str) -> String {
    env.attend1().get_screen(pane).unwrap()
}

#[test]
fn a_hundred_panes_print_through_a_five_second_outage() {
    let mut env = Env::new();
    // 100 panes printing at once on 2 shared cores: every wait here is bounded, but by
    // more than one pane needs (the screens are read one D-Bus call per pane).
    env.timeout = Duration::from_secs(60);
    let args = [
        "--no-tray",
        "--no-notifications",
        "--holder-buffer",
        &BUFFER.to_string(),
    ];
    env.start_daemon_with(&args, &[]);
    let work = env.work_dir();
    let mut fifos = Vec::new();
    let mut panes = Vec::new();
    for k in 0..PANES {
        let fifo = work.join(format!("f{k}"));
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits(0o600).unwrap()).unwrap();
        panes.push(env.run(&["--", "sh", "-c", &script(k, &fifo)]));
        fifos.push(fifo);
    }
    let [a0, _, _] = batches(0);
    release(&fifos);
    wait_files(
        &env,
        "batch one printed",
        fifos
            .iter()
            .map(|f| f.with_extension(format!("{}", a0)).to_path_buf()),
    );
    env.wait_until("batch one on every screen", || {
        panes
            .iter()
            .all(|p| screen(&env, p).contains(&format!("done {a0}")))
    });

    // A restart with nothing printed: every screen text as it was.
    let before: Vec<String> = panes.iter().map(|p| screen(&env, p)).collect();
    env.kill_daemon();
    env.start_daemon_with(&args, &[]);
    for (p, b) in panes.iter().zip(&before) {
        assert_eq!(
            &screen(&env, p),
            b,
            "{p}: the screen changed across a quiet restart"
        );
    }

    // The outage: batch two is printed while no daemon runs.
    env.kill_daemon();
    let down = Instant::now();
    release(&fifos);
    for (k, f) in fifos.iter().enumerate() {
        let b = batches(k)[1];
        wait_files(
            &env,
            "batch two printed",
            std::iter::once(f.with_extension(format!("{b}"))),
        );
    }
    if let Some(rest) = OUTAGE.checked_sub(down.elapsed()) {
        std::thread::sleep(rest);
    }
    let outage = down.elapsed();
    let restart = Instant::now();
    env.start_daemon_with(&args, &[]);
    let readopted = restart.elapsed();
    release(&fifos);
    env.wait_until("batch three on every screen", || {
        panes.iter().all(|p| {
            let c = batches(0)[2];
            screen(&env, p).contains(&format!("done {c}"))
        })
    });

    let (mut exact, mut gapped) = (0, 0);
    for (k, p) in panes.iter().enumerate() {
        let [a, b, c] = batches(k);
        let log = without_size_markers(
            &std::fs::read(env.state_dir().join(format!("screens/{p}.log"))).unwrap(),
        );
        let one = stream(1, a, a);
        let two = stream(a + 1, a + b, b);
        let three = stream(a + b + 1, a + b + c, c);
        assert!(log.starts_with(&one), "{p}: batch one");
        let rest = &log[one.len()..];
        assert!(rest.ends_with(&three), "{p}: batch three");
        let middle = &rest[..rest.len() - three.len()];
        if middle == two.as_slice() {
            exact += 1;
            assert!(two.len() <= BUFFER, "{p}: over the cap yet nothing dropped");
            continue;
        }
        // One gap line with the exact count, then the newest bytes of batch two.
        let text = String::from_utf8_lossy(middle);
        let start = text
            .find("[attend: ")
            .unwrap_or_else(|| panic!("{p}: no gap line"));
        let count: usize = text[start + 9..]
            .split_whitespace()
            .next()
            .and_then(|w| w.parse().ok())
            .unwrap();
        let end = middle
            .windows(2)
            .skip(start)
            .position(|w| w == b"\r\n")
            .map(|i| start + i + 2)
            .unwrap();
        let kept = &middle[end..];
        assert!(
            two.ends_with(kept),
            "{p}: the kept bytes are the newest, in order"
        );
        assert_eq!(
            count,
            two.len() - kept.len(),
            "{p}: the gap line's count is exact"
        );
        assert_eq!(text.matches("[attend: ").count(), 1, "{p}: one gap line");
        assert!(two.len() > BUFFER);
        gapped += 1;
    }
    let log = env.daemon_log();
    let line = log
        .lines()
        .find(|l| l.contains("re-adopted"))
        .unwrap_or_default();
    println!("{line}");
    println!(
        "{PANES} panes: outage {outage:?}, daemon ready again in {readopted:?}; {exact} byte-exact, {gapped} with one exact gap line"
    );
    assert_eq!(exact, PANES / 2);
    assert_eq!(gapped, PANES / 2);
}

/// A screen log without its size markers (`ESC _ attend-size=R,C ESC \`, written at the
/// start of every file and at each resize or re-adoption: src/service/pty/screen_log.rs).
fn without_size_markers(log: &[u8]) -> Vec<u8> {
    const START: &[u8] = b"\x1b_attend-size=";
    let mut out = Vec::new();
    let mut rest = log;
    while let Some(at) = memchr::memmem::find(rest, START) {
        out.extend_from_slice(&rest[..at]);
        let end = memchr::memmem::find(&rest[at..], b"\x1b\\").expect("a whole marker");
        rest = &rest[at + end + 2..];
    }
    out.extend_from_slice(rest);
    out
}
