//! Target `terminal`: the OSC/terminal scanner ([`TerminalScanner`], both `feed` and the
//! PTY host's `feed_filtered`), [`sanitize_text`] and [`to_signal`].
//!
//! Corpus: `tests/fuzz/corpus/terminal/*.bin`, hand-made byte streams with every OSC kind
//! the scanner knows (0/2, 7, 9, 9;4, 777, 99 chunked and base64, 133, 7501), both
//! terminators, CSI modes, DCS/APC/PM/SOS strings, C1 controls, invalid UTF-8, aborted and
//! unterminated sequences, and the recorded agent screens.
//!
//! Checks: no panic; the same bytes give the same events twice; `feed` and
//! `feed_filtered` give the same events; the bytes cut at random points give the same
//! events, the same screen bytes and the same printable flag and alternate-screen state
//! as one feed; the buffered state never exceeds `MAX_BUFFERED` after any feed; the
//! screen bytes are no longer than the input (plus one CAN per ESC) and hold no control string (scanning them
//! again removes nothing: vt100 would buffer an OSC without a bound); every event's text is sanitised (a fixed
//! point of `sanitize_text`) and within its limit; `to_signal` gives clean signals;
//! `sanitize_text` is bounded by its `max`, clean and idempotent.

use super::{corpus, hash, mutants, run, shown, Mutant};
use attend::adapters::terminal_signals::{
    sanitize_text, to_signal, TerminalEvent, TerminalScanner, MAX_BUFFERED, MAX_PATH_LEN,
    MAX_TEXT_LEN,
};
use attend::model::Timestamp;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::TestCaseError;

/// Interesting bytes for terminal streams: every introducer, terminator and OSC head.
pub const DICT: &[&[u8]] = &[
    b"\x1b]",
    b"\x1b\\",
    b"\x1b[",
    b"\x1bP",
    b"\x1b_",
    b"\x1b^",
    b"\x1bX",
    b"\x1b(",
    b"\x1bc",
    b"\x18",
    b"\x1a",
    b"\x7f",
    b"\x90",
    b"\x9b",
    b"\x9d",
    b"\x9c",
    b"0;",
    b"2;",
    b"7;file://h/",
    b"9;",
    b"9;4;",
    b"777;notify;",
    b"99;i=1:d=0;",
    b"99;i=1:d=0:p=body:e=1;",
    b"99;p=close;",
    b"133;A",
    b"133;D;",
    b"7501;state=",
    b"?1004h",
    b"?1049h",
    b"?1049l",
    b"2;4r",
    b"999999999S",
    b";",
    b":",
    b"=",
    b"/",
];

/// Cap of a terminal mutant (room for overflowing `MAX_OSC_LEN` several times).
const CAP: usize = 64 * 1024;

/// A mutated stream and where to cut it.
#[derive(Clone, Debug)]
pub struct TermCase {
    pub bytes: Mutant,
    pub cuts: Vec<Index>,
}

/// What one scan produced.
#[derive(Debug, PartialEq)]
struct Scan {
    events: Vec<TerminalEvent>,
    screen: Vec<u8>,
    printable: bool,
    alternate: bool,
}

/// Feeds `chunks` to a fresh scanner (filtered), checking the bound after each feed.
fn scan(chunks: &[&[u8]]) -> Result<Scan, TestCaseError> {
    let mut scanner = TerminalScanner::new();
    let mut out = Scan {
        events: Vec::new(),
        screen: Vec::new(),
        printable: false,
        alternate: false,
    };
    for c in chunks {
        out.printable |= scanner.feed_filtered(c, &mut out.events, &mut out.screen);
        prop_assert!(
            scanner.buffered_len() <= MAX_BUFFERED,
            "buffered {} > {MAX_BUFFERED}",
            scanner.buffered_len()
        );
    }
    out.alternate = scanner.alternate_screen();
    Ok(out)
}

/// A sanitised text: a fixed point of `sanitize_text` within `max` bytes.
fn clean(what: &str, text: &str, max: usize) -> Result<(), TestCaseError> {
    prop_assert!(text.len() <= max, "{what}: {} bytes > {max}", text.len());
    prop_assert_eq!(
        sanitize_text(text, max),
        text,
        "{} is not sanitised: {}",
        what,
        shown(text.as_bytes())
    );
    Ok(())
}

fn check_event(ev: &TerminalEvent) -> Result<(), TestCaseError> {
    match ev {
        TerminalEvent::Title(t) => clean("title", t, MAX_TEXT_LEN)?,
        TerminalEvent::Cwd(p) => {
            prop_assert!(!p.is_empty());
            clean("cwd", p, MAX_PATH_LEN)?
        }
        TerminalEvent::Notification { title, body } => {
            prop_assert!(!body.is_empty(), "empty notification body");
            clean("body", body, MAX_TEXT_LEN)?;
            if let Some(t) = title {
                prop_assert!(!t.is_empty());
                clean("notification title", t, MAX_TEXT_LEN)?;
            }
        }
        TerminalEvent::Progress { state, percent } => {
            prop_assert!(*state <= 4);
            prop_assert!(percent.map_or(true, |p| p <= 100));
        }
        TerminalEvent::CodexState { state, kind } => {
            clean("codex state", state, 64)?;
            if let Some(k) = kind {
                clean("codex kind", k, 64)?;
            }
        }
        TerminalEvent::Bell | TerminalEvent::PromptMark(_) | TerminalEvent::FocusReporting(_) => {}
    }
    if let Some(signal) = to_signal(ev, Timestamp(7)) {
        prop_assert_eq!(signal.at, Timestamp(7));
        let json = serde_json::to_value(&signal).unwrap();
        let mut all = Vec::new();
        super::hooks::strings(&json, "signal", &mut all);
        for (path, text) in all {
            prop_assert!(
                !text.chars().any(super::hooks::unclean),
                "{path} carries a control: {}",
                shown(text.as_bytes())
            );
        }
    }
    Ok(())
}

/// The checks of the module docs on one stream.
pub fn check(case: &TermCase) -> Result<(), TestCaseError> {
    let bytes = &case.bytes.bytes[..];
    let mut points: Vec<usize> = case.cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
    points.sort_unstable();
    check_stream(bytes, &points)
}

/// The checks of the module docs on `bytes`, cut at `points` (sorted) for the split run.
fn check_stream(bytes: &[u8], points: &[usize]) -> Result<(), TestCaseError> {
    let whole = scan(&[bytes])?;
    prop_assert_eq!(&scan(&[bytes])?, &whole, "not deterministic");

    let mut plain = TerminalScanner::new();
    let mut events = Vec::new();
    plain.feed(bytes, &mut events);
    prop_assert_eq!(&events, &whole.events, "feed and feed_filtered differ");

    let mut chunks = Vec::new();
    let mut start = 0;
    for &p in points.iter().chain([&bytes.len()]) {
        chunks.push(&bytes[start..p]);
        start = p;
    }
    prop_assert_eq!(&scan(&chunks)?, &whole, "split at {:?}", points);

    let escapes = bytes.iter().filter(|&&b| b == 0x1b).count();
    prop_assert!(whole.screen.len() <= bytes.len() + escapes);
    // No OSC, DCS, APC, PM or SOS string reaches the emulator (vt100 would buffer it
    // without a bound): scanning the screen bytes again removes nothing (C0 controls
    // may move before a held ESC, so only the length is compared).
    let again = scan(&[&whole.screen])?;
    prop_assert!(
        again.screen.len() == whole.screen.len(),
        "a control string reaches the screen: {}",
        shown(&whole.screen)
    );
    for ev in &whole.events {
        check_event(ev)?;
    }

    let text = String::from_utf8_lossy(bytes);
    for max in [0, 1, 7, 64, MAX_TEXT_LEN] {
        let s = sanitize_text(&text, max);
        prop_assert!(s.len() <= max);
        prop_assert!(!s.chars().any(char::is_control), "control kept");
        prop_assert!(!s.starts_with(' ') && !s.ends_with(' '));
        prop_assert_eq!(sanitize_text(&s, max), s.clone(), "not idempotent");
    }
    Ok(())
}

fn cases() -> impl Strategy<Value = TermCase> {
    (
        mutants(corpus("terminal"), DICT, CAP),
        prop::collection::vec(any::<Index>(), 0..8),
    )
        .prop_map(|(bytes, cuts)| TermCase { bytes, cuts })
}

fn save(case: &TermCase) -> (String, Vec<u8>) {
    let bytes = case.bytes.bytes.clone();
    (format!("terminal/regress-{:016x}.bin", hash(&bytes)), bytes)
}

#[test]
fn corpus_streams_scan_cleanly() {
    let corpus = corpus("terminal");
    let mut events = 0;
    for entry in corpus.iter() {
        let n = entry.bytes.len();
        // Every entry also cut at every byte for the small ones, else at 64 points.
        let step = (n / 64).max(1);
        for at in (0..=n).step_by(step) {
            if let Err(e) = check_stream(&entry.bytes, &[at]) {
                panic!("{} cut at {at}: {e}", entry.name);
            }
        }
        let mut scanner = TerminalScanner::new();
        let mut out = Vec::new();
        scanner.feed(&entry.bytes, &mut out);
        events += out.len();
    }
    println!(
        "fuzz terminal corpus: {} entries, {events} events",
        corpus.len()
    );
    assert!(events > 50, "the corpus lost its OSC streams");
}

#[test]
fn mutants_never_panic_and_stay_bounded() {
    run(
        "terminal",
        "proptest-regressions/fuzz/terminal.txt",
        3000,
        cases(),
        save,
        check,
    );
}
