//! The fuzz tests (CI stage `fuzz`, docs/reliability.md "Fuzzing"): proptest-driven
//! mutation fuzzing of the hook payload parsers, the terminal scanner, the pane terminal
//! parser, the screen manifest loader and the hook spool reader, over the checked-in
//! corpus in `tests/fuzz/corpus/`; one test binary, one module per target
//! (`cargo test --test fuzz hooks::`). `build-aux/fuzz.sh` makes a long run.
//!
//! Coverage-free mutation fuzzing over a checked-in corpus, built on proptest (docs/reliability.md,
//! "Fuzzing"; `cargo fuzz` needs a nightly toolchain, which cannot be fetched here).
//!
//! Each target has a corpus directory `tests/fuzz/corpus/<target>/` (seeded from the real
//! recorded fixtures, the shipped manifests and hand-made byte streams). A target's tests:
//! - `corpus`: every file through the target, with the same checks as the fuzzer;
//! - `mutants`: proptest picks corpus entries and mutates them ([`Op`]: bit flips, byte
//!   set/insert/delete, truncation, duplicated or repeated slices, splices of two
//!   entries, insertion of interesting values from the target's dictionary), and checks
//!   that the target never panics, stays bounded and is deterministic.
//!
//! Sizing (environment): `FUZZ_CASES` cases per round (default: the target's own, about
//! 30 s in a debug build on 2 busy cores); `FUZZ_SECONDS`, when set, repeats rounds with
//! fresh seeds until that many seconds have passed; `FUZZ_TIMEOUT_MS` fails a case that
//! takes longer (0, the default, checks nothing); `FUZZ_TRACE=FILE` writes every input
//! to FILE before running it, so that `build-aux/fuzz.sh` can save the input of a case
//! that aborts the process (stack overflow, abort) into the corpus.
//!
//! A failing case is shrunk by proptest; the minimal input is written to the target's
//! corpus directory as `regress-<hash>…` (and proptest's seed to
//! `proptest-regressions/fuzz/<target>.txt`): check both in, and the corpus test keeps
//! running it.
#![allow(dead_code)]

#[path = "../support/hook_events.rs"]
mod hook_events;

mod hooks;
mod manifest;
mod pane;
#[path = "../support/pty.rs"]
mod pty;
mod spool;
mod terminal;

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, FileFailurePersistence, TestError, TestRunner};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// One corpus file.
#[derive(Clone)]
pub struct Entry {
    /// Path relative to the target's corpus directory (`claude/Stop-observed.json`).
    pub name: String,
    pub bytes: Vec<u8>,
}

/// The corpus directory of `target` (or any path under `tests/fuzz/corpus/`).
pub fn corpus_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz/corpus")
        .join(target)
}

/// Every file under the corpus directory of `target`, sorted by name. Panics when it is
/// empty (a missing corpus must not pass as a clean run).
pub fn corpus(target: &str) -> Arc<Vec<Entry>> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<Entry>) {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("corpus {}: {e}", dir.display()))
            .map(|e| e.expect("corpus entry").path())
            .collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let name = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.push(Entry {
                    name,
                    bytes: std::fs::read(&p).unwrap(),
                });
            }
        }
    }
    let root = corpus_dir(target);
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    assert!(!out.is_empty(), "empty corpus {}", root.display());
    Arc::new(out)
}

/// One mutation. Positions are [`Index`]es, resolved against the current length.
#[derive(Clone, Debug)]
pub enum Op {
    FlipBit(Index, u8),
    SetByte(Index, u8),
    Insert(Index, u8),
    Delete(Index, usize),
    Truncate(Index),
    /// Copies `len` bytes from the first position to the second, `times` times.
    Duplicate(Index, usize, Index, usize),
    /// Inserts `len` bytes of another corpus entry (from its position) at a position.
    Splice(Index, Index, usize, Index),
    /// Inserts a dictionary value.
    Interesting(Index, Index),
    /// Replaces bytes with a dictionary value.
    Overwrite(Index, Index),
}

/// A mutated corpus entry: the seed, the mutations and the resulting bytes.
#[derive(Clone)]
pub struct Mutant {
    pub seed: String,
    pub ops: Vec<Op>,
    pub bytes: Vec<u8>,
}

impl fmt::Debug for Mutant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Mutant {{ seed: {:?}, ops: {:?}, bytes ({}): {} }}",
            self.seed,
            self.ops,
            self.bytes.len(),
            shown(&self.bytes)
        )
    }
}

/// `bytes` escaped for a message, cut to 2 000 bytes.
pub fn shown(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(2000)];
    let mut s = cut.escape_ascii().to_string();
    if cut.len() < bytes.len() {
        s.push('…');
    }
    s
}

/// Values that make parsers work: escape and string terminators, quotes and brackets,
/// NUL, huge numbers, invalid UTF-8, bidi controls. Targets add their own.
pub const COMMON_DICT: &[&[u8]] = &[
    b"\x1b",
    b"\x07",
    b"\xc2\x9c",
    b"\x9c",
    b"\xc2\x9b",
    b"\xc2\x9d",
    b"\x00",
    b"\"",
    b"{",
    b"}",
    b"[",
    b"]",
    b"\\",
    b"\\u0000",
    b"\\ud800",
    b"\\udfff\\ud800",
    b"\n",
    b"\r\n",
    b"\t",
    b"\xff",
    b"\xc0\x80",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xe2\x80\xae",
    b"\xe2\x81\xa6",
    b"\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81",
    b"\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9",
    b"-0",
    b"1e999",
    b"-1e-999",
    b"18446744073709551616",
    b"-9223372036854775809",
    b"99999999999999999999999999999999999999",
    b"4294967296",
    b"65536",
    b"NaN",
    b"%",
    b"%ff",
    b"%00",
];

/// Largest mutant a target sees (bytes); mutations that would grow past it are cut.
pub const DEFAULT_CAP: usize = 256 * 1024;

/// One random [`Op`].
pub fn op() -> impl Strategy<Value = Op> {
    let len = prop_oneof![8 => 1usize..16, 2 => 16usize..512, 1 => 512usize..8192];
    let times = prop_oneof![8 => 1usize..4, 2 => 4usize..64, 1 => 64usize..4096];
    prop_oneof![
        3 => (any::<Index>(), 0u8..8).prop_map(|(i, b)| Op::FlipBit(i, b)),
        2 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Op::SetByte(i, b)),
        2 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Op::Insert(i, b)),
        2 => (any::<Index>(), len.clone()).prop_map(|(i, n)| Op::Delete(i, n)),
        1 => any::<Index>().prop_map(Op::Truncate),
        2 => (any::<Index>(), len.clone(), any::<Index>(), times)
            .prop_map(|(a, n, b, t)| Op::Duplicate(a, n, b, t)),
        2 => (any::<Index>(), any::<Index>(), len, any::<Index>())
            .prop_map(|(e, a, n, b)| Op::Splice(e, a, n, b)),
        4 => (any::<Index>(), any::<Index>()).prop_map(|(i, d)| Op::Interesting(i, d)),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(i, d)| Op::Overwrite(i, d)),
    ]
}

/// A position in `0..=len`.
fn pos(i: &Index, len: usize) -> usize {
    i.index(len + 1)
}

/// Applies `ops` to a copy of `seed`; the result never exceeds `cap` bytes.
pub fn apply(seed: &[u8], ops: &[Op], corpus: &[Entry], dict: &[&[u8]], cap: usize) -> Vec<u8> {
    let mut b = seed.to_vec();
    for o in ops {
        match o {
            Op::FlipBit(i, bit) if !b.is_empty() => {
                let p = i.index(b.len());
                b[p] ^= 1 << bit;
            }
            Op::SetByte(i, v) if !b.is_empty() => {
                let p = i.index(b.len());
                b[p] = *v;
            }
            Op::FlipBit(..) | Op::SetByte(..) => {}
            Op::Insert(i, v) => b.insert(pos(i, b.len()), *v),
            Op::Delete(i, n) => {
                let p = pos(i, b.len());
                let end = (p + n).min(b.len());
                b.drain(p..end);
            }
            Op::Truncate(i) => b.truncate(pos(i, b.len())),
            Op::Duplicate(from, n, at, times) => {
                let p = pos(from, b.len());
                let slice = b[p..(p + n).min(b.len())].to_vec();
                if !slice.is_empty() {
                    let room = cap.saturating_sub(b.len()) / slice.len();
                    let copies = slice.repeat((*times).min(room));
                    let at = pos(at, b.len());
                    b.splice(at..at, copies);
                }
            }
            Op::Splice(..) if corpus.is_empty() => {}
            Op::Splice(e, from, n, at) => {
                let other = &corpus[e.index(corpus.len())].bytes;
                let p = pos(from, other.len());
                let slice = &other[p..(p + n).min(other.len())];
                let at = pos(at, b.len());
                b.splice(at..at, slice.iter().copied());
            }
            Op::Interesting(i, d) => {
                let v = dict[d.index(dict.len())];
                let at = pos(i, b.len());
                b.splice(at..at, v.iter().copied());
            }
            Op::Overwrite(i, d) => {
                let v = dict[d.index(dict.len())];
                let at = pos(i, b.len());
                let end = (at + v.len()).min(b.len());
                b.splice(at..end, v.iter().copied());
            }
        }
        b.truncate(cap);
    }
    b
}

/// Mutants of `corpus` entries: 0 to 8 [`Op`]s with `dict` (plus [`COMMON_DICT`]) as the
/// interesting values, at most `cap` bytes.
pub fn mutants(
    corpus: Arc<Vec<Entry>>,
    dict: &'static [&'static [u8]],
    cap: usize,
) -> impl Strategy<Value = Mutant> {
    let all: Arc<Vec<&'static [u8]>> = Arc::new(dict.iter().chain(COMMON_DICT).copied().collect());
    (any::<Index>(), prop::collection::vec(op(), 0..=8)).prop_map(move |(e, ops)| {
        let entry = &corpus[e.index(corpus.len())];
        let bytes = apply(&entry.bytes, &ops, &corpus, &all, cap);
        Mutant {
            seed: entry.name.clone(),
            ops,
            bytes,
        }
    })
}

/// A `u64` environment variable, or `default`.
pub fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

/// Writes `bytes` to the `FUZZ_TRACE` file and the corpus path `name` it would have
/// (under `tests/fuzz/corpus/`) to `FUZZ_TRACE.name`, when `FUZZ_TRACE` is set (see the module docs).
fn trace(name: &str, bytes: &[u8]) {
    if let Some(path) = std::env::var_os("FUZZ_TRACE") {
        let mut name_path = path.clone();
        name_path.push(".name");
        let _ = std::fs::write(name_path, name);
        let _ = std::fs::write(path, bytes);
    }
}

/// FNV-1a of `bytes`, for regression file names.
pub fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Runs the fuzz loop of `target`: rounds of `FUZZ_CASES` (else `default_cases`) cases
/// until `FUZZ_SECONDS` have passed (one round when unset). On a failure the shrunk
/// input goes to the corpus as `save(input)` = (path under `tests/fuzz/corpus/`, bytes)
/// and the test panics with the reason. Prints cases, time and the slowest case.
pub fn run<S>(
    target: &str,
    persistence: &'static str,
    default_cases: u32,
    strategy: S,
    save: impl Fn(&S::Value) -> (String, Vec<u8>),
    check: impl Fn(&S::Value) -> Result<(), TestCaseError>,
) where
    S: Strategy,
    S::Value: fmt::Debug,
{
    let cases = env_u64("FUZZ_CASES", u64::from(default_cases)) as u32;
    let seconds = env_u64("FUZZ_SECONDS", 0);
    let timeout = env_u64("FUZZ_TIMEOUT_MS", 0);
    let tracing = std::env::var_os("FUZZ_TRACE").is_some();
    let started = Instant::now();
    let slowest = std::cell::Cell::new(0f64);
    let mut total = 0u64;
    let mut rounds = 0u64;
    loop {
        // proptest's own `timeout` needs its fork mode; the case time is checked here.
        let config = Config {
            cases,
            failure_persistence: Some(Box::new(FileFailurePersistence::Direct(persistence))),
            max_shrink_iters: 4096,
            ..Config::default()
        };
        let mut runner = TestRunner::new(config);
        let outcome = runner.run(&strategy, |input| {
            if tracing {
                let (name, bytes) = save(&input);
                trace(&name, &bytes);
            }
            let t = Instant::now();
            check(&input)?;
            let took = t.elapsed();
            slowest.set(slowest.get().max(took.as_secs_f64()));
            if timeout > 0 && took.as_millis() > u128::from(timeout) {
                return Err(TestCaseError::fail(format!(
                    "case took {} ms (FUZZ_TIMEOUT_MS={timeout})",
                    took.as_millis()
                )));
            }
            Ok(())
        });
        rounds += 1;
        match outcome {
            Ok(()) => total += u64::from(cases),
            Err(TestError::Fail(reason, input)) => {
                let (name, bytes) = save(&input);
                let path = corpus_dir(&name);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &bytes).unwrap();
                panic!(
                    "fuzz {target}: {reason}\nminimal input saved to {} (check it in)\n{input:#?}",
                    path.display()
                );
            }
            Err(TestError::Abort(reason)) => panic!("fuzz {target}: aborted: {reason}"),
        }
        if seconds == 0 || started.elapsed().as_secs() >= seconds {
            break;
        }
    }
    println!(
        "fuzz {target}: {total} cases in {:.1} s ({rounds} rounds of {cases}), 0 failures, \
         slowest case {:.1} ms",
        started.elapsed().as_secs_f64(),
        slowest.get() * 1000.0
    );
}
