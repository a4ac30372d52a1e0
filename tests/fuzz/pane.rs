//! Target `pane`: the pane terminal parser (src/service/pty: the reactor's scanner,
//! the parser thread's screen and its compact history). It is reachable from the library
//! only through a real PTY, so each case writes the mutated stream to a file and runs
//! `cat FILE` in a [`PtyHandle`] (the kernel's line discipline turns LF into CR LF on the
//! way, as for any program).
//!
//! Corpus: the `terminal` target's (`tests/fuzz/corpus/terminal`).
//!
//! Checks: no panic in the PTY threads (a panic hook records any, including vt100 panics
//! the parser catches); the program's exit is reported within 30 s; the events reported
//! are the scanner's on the same bytes; the screen and history are bounded (at most
//! `rows` rows of at most `cols` cells, at most `scrollback` history lines) and the same
//! when the same bytes run again (whatever the read sizes were).

use super::{corpus, hash, mutants, run, Mutant};
use attend::adapters::terminal_signals::{TerminalEvent, TerminalScanner};
use attend::model::PaneId;
use attend::service::pty::{event_channel, PtyEvent, SpawnSpec};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Panics seen in PTY threads (`pty-*`): thread, location, message.
static PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());
static HOOK: Once = Once::new();
static NEXT_PANE: AtomicU64 = AtomicU64::new(1);

/// Records panics of the PTY threads in [`PANICS`], then runs the default hook.
fn watch_panics() {
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let thread = std::thread::current();
            let name = thread.name().unwrap_or("");
            if name.starts_with("pty-") {
                let at = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()))
                    .unwrap_or_default();
                PANICS
                    .lock()
                    .unwrap()
                    .push(format!("{name} at {at}: {info}"));
            }
            default(info);
        }));
    });
}

/// Cap of a pane mutant: every case is a process, keep them short.
const CAP: usize = 32 * 1024;

/// Screen sizes the cases use (rows, cols, scrollback).
const SIZES: [(u16, u16, usize); 5] = [
    (6, 20, 30),
    (1, 1, 0),
    (24, 80, 2000),
    (1, 40, 10),
    (3, 200, 5),
];

#[derive(Clone, Debug)]
pub struct PaneCase {
    pub bytes: Mutant,
    pub size: usize,
}

/// What the pane ended with.
#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<TerminalEvent>,
    screen: String,
    history: Vec<Vec<u8>>,
}

/// Runs `cat` over `bytes` in a pane of `size` and waits for its exit.
fn run_pane(bytes: &[u8], size: (u16, u16, usize)) -> Result<Outcome, TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stream");
    std::fs::write(&file, bytes).unwrap();
    let mut spec = SpawnSpec::new(
        vec!["cat".into(), file.to_string_lossy().into_owned()],
        dir.path(),
    );
    (spec.rows, spec.cols, spec.scrollback) = size;
    let (tx, mut rx) = event_channel();
    let pane = PaneId(NEXT_PANE.fetch_add(1, Ordering::Relaxed));
    let pty = super::pty::start(pane, &spec, tx).expect("spawn cat");
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut events = Vec::new();
    loop {
        match rx.try_recv() {
            Ok(PtyEvent::Output { events: e, .. }) => events.extend(e),
            Ok(PtyEvent::Exited { code, signal, .. }) => {
                prop_assert_eq!((code, signal), (Some(0), None), "cat failed");
                break;
            }
            Err(mpsc::error::TryRecvError::Empty) => {
                prop_assert!(Instant::now() < deadline, "no exit within 30 s");
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(e) => prop_assert!(false, "event channel: {e}"),
        }
    }
    Ok(Outcome {
        events,
        screen: pty.screen_text(),
        history: pty.history(usize::MAX),
    })
}

/// The checks of the module docs on one stream.
pub fn check(case: &PaneCase) -> Result<(), TestCaseError> {
    watch_panics();
    let size = SIZES[case.size % SIZES.len()];
    // The emulator is at least 2×2 (src/service/pty/emulator.rs `MIN_SIZE`).
    let (rows, cols) = (usize::from(size.0.max(2)), usize::from(size.1.max(2)));
    let scrollback = size.2;
    let before = PANICS.lock().unwrap().len();
    let first = run_pane(&case.bytes.bytes, size)?;
    let panics = PANICS.lock().unwrap()[before..].to_vec();
    prop_assert!(panics.is_empty(), "PTY thread panicked: {panics:#?}");

    // The tty turns LF into CR LF (ONLCR); the scanner saw exactly that.
    let mut onlcr = Vec::with_capacity(case.bytes.bytes.len() * 2);
    for &b in &case.bytes.bytes {
        if b == b'\n' {
            onlcr.push(b'\r');
        }
        onlcr.push(b);
    }
    let mut want = Vec::new();
    TerminalScanner::new().feed(&onlcr, &mut want);
    prop_assert_eq!(
        &first.events,
        &want,
        "pane events differ from the scanner's"
    );

    // vt100 joins wrapped rows without a newline; a cell holds at most 22 bytes.
    let lines = first.screen.split('\n').count();
    prop_assert!(lines <= rows, "{lines} rows on a {rows}-row screen");
    prop_assert!(first.screen.len() <= rows * (cols * 22 + 1));
    prop_assert!(first.history.len() <= scrollback);
    for h in &first.history {
        prop_assert!(
            h.len() <= cols * 96 + 64,
            "history line of {} bytes",
            h.len()
        );
    }

    let second = run_pane(&case.bytes.bytes, size)?;
    prop_assert_eq!(&second, &first, "same bytes, another screen");
    Ok(())
}

fn cases() -> impl Strategy<Value = PaneCase> {
    (
        mutants(corpus("terminal"), super::terminal::DICT, CAP),
        0usize..SIZES.len(),
    )
        .prop_map(|(bytes, size)| PaneCase { bytes, size })
}

fn save(case: &PaneCase) -> (String, Vec<u8>) {
    let bytes = case.bytes.bytes.clone();
    (
        format!("terminal/regress-pane-{:016x}.bin", hash(&bytes)),
        bytes,
    )
}

#[test]
fn corpus_streams_render_in_a_pane() {
    let corpus = corpus("terminal");
    for entry in corpus.iter() {
        for (size, dims) in SIZES.iter().enumerate() {
            let case = PaneCase {
                bytes: Mutant {
                    seed: entry.name.clone(),
                    ops: Vec::new(),
                    bytes: entry.bytes.clone(),
                },
                size,
            };
            if let Err(e) = check(&case) {
                panic!("{} in {dims:?}: {e}", entry.name);
            }
        }
    }
    println!(
        "fuzz pane corpus: {} entries × {} sizes",
        corpus.len(),
        SIZES.len()
    );
}

#[test]
fn mutants_never_panic_in_a_pane() {
    run(
        "pane",
        "proptest-regressions/fuzz/pane.txt",
        200,
        cases(),
        save,
        check,
    );
}
