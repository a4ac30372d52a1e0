//! Target `spool`: the hook spool file as the daemon reads it back
//! ([`Spool::take_batch`]: one JSON record per line, torn lines reported) and the replay's
//! mapping of each record ([`attend::service::store::replay::request_of`]): the hooks' second
//! parsing path, for the records a hook client spooled while the daemon was away.
//!
//! Corpus: `tests/fuzz/corpus/spool/*.spool`: records of recorded payloads, torn tails
//! and middles, garbage lines, hostile fields (escape sequences in the event, huge pane
//! ids, bad `pids` and `terminal`, extreme times), a file without a final newline.
//!
//! Checks: no panic; every line is either a record or reported torn (none lost, none
//! invented), torn offsets in order and inside the file; a record maps the same way
//! twice and, when accepted, to a clean bounded signal (the `hooks` target's checks);
//! records written back with [`spool::append`] read back whole, with the same fields and
//! the same replay; a finished batch is gone.

use super::{corpus, hash, mutants, run, Mutant};
use attend::service::store::replay::request_of;
use attend::service::store::spool::{self, Spool, SPOOL_FILE};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::path::Path;

const DICT: &[&[u8]] = &[
    b"\n",
    b"{\"delivery_id\":\"d\",\"agent\":\"claude\",\"event\":\"\",\"payload\":\"{}\",\"arrived_at\":0}\n",
    b"\"delivery_id\":",
    b"\"agent\":\"codex\",",
    b"\"event\":\"notify\",",
    b"\"payload\":\"{\\\"hook_event_name\\\":\\\"Stop\\\"}\",",
    b"\"context\":{\"pane\":\"p1\",\"pids\":[[1,2]],\"terminal\":{\"TMUX\":\"x\"}},",
    b"\"arrived_at\":-9223372036854775808",
    b"\\n",
];

/// A temporary directory on tmpfs when there is one (the spool fsyncs every append).
fn tempdir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(d) = tempfile::tempdir_in(shm) {
            return d;
        }
    }
    tempfile::tempdir().unwrap()
}

/// The checks of the module docs on one spool file.
pub fn check(case: &Mutant) -> Result<(), TestCaseError> {
    let bytes = &case.bytes;
    let dir = tempdir();
    std::fs::write(dir.path().join(SPOOL_FILE), bytes).unwrap();
    let spool = Spool::new(dir.path());
    let batch = spool.take_batch().unwrap();
    let Some(batch) = batch else {
        prop_assert!(bytes.is_empty(), "a non-empty spool gave no batch");
        return Ok(());
    };

    let complete = bytes.split(|&b| b == b'\n').count() - 1;
    let empty_lines = bytes
        .split(|&b| b == b'\n')
        .take(complete)
        .filter(|l| l.is_empty())
        .count();
    let partial = usize::from(!bytes.ends_with(b"\n"));
    prop_assert_eq!(
        batch.records.len() + batch.torn.len(),
        complete - empty_lines + partial,
        "records + torn lines != lines"
    );
    let mut last = None;
    for t in &batch.torn {
        prop_assert!(last.map_or(true, |l| t.offset > l));
        prop_assert!((t.offset as usize) + t.bytes.len() <= bytes.len());
        prop_assert_eq!(
            &bytes[t.offset as usize..t.offset as usize + t.bytes.len()],
            &t.bytes[..]
        );
        last = Some(t.offset);
    }

    for rec in &batch.records {
        let first = request_of(rec);
        let again = request_of(rec);
        prop_assert_eq!(
            format!("{first:?}"),
            format!("{again:?}"),
            "not deterministic"
        );
        if let Ok(req) = &first {
            super::hooks::check_mapping(&req.mapping, req.mapping.agent, req.mapping.signal.at)?;
        }
    }

    // Written back by the hook client's own writer, the records read back whole.
    let some = &batch.records[..batch.records.len().min(3)];
    if !some.is_empty() {
        let again_dir = tempdir();
        for rec in some {
            spool::append(again_dir.path(), rec).unwrap();
        }
        let back = Spool::new(again_dir.path()).take_batch().unwrap().unwrap();
        prop_assert!(back.torn.is_empty(), "torn after append: {:?}", back.torn);
        prop_assert_eq!(back.records.len(), some.len());
        for (b, a) in back.records.iter().zip(some) {
            // Every field as it was; context values may move by one ULP (serde_json
            // parses floats, such as integers past u64, best-effort), so they are
            // compared through what the replay makes of them.
            prop_assert_eq!(
                (&b.delivery_id, &b.agent, &b.event, &b.payload, b.arrived_at),
                (&a.delivery_id, &a.agent, &a.event, &a.payload, a.arrived_at)
            );
            prop_assert!(b.context.keys().eq(a.context.keys()));
            prop_assert_eq!(
                format!("{:?}", request_of(b)),
                format!("{:?}", request_of(a))
            );
        }
    }

    spool.finish(batch).unwrap();
    prop_assert!(
        spool.take_batch().unwrap().is_none(),
        "finished batch came back"
    );
    Ok(())
}

fn save(case: &Mutant) -> (String, Vec<u8>) {
    (
        format!("spool/regress-{:016x}.spool", hash(&case.bytes)),
        case.bytes.clone(),
    )
}

#[test]
fn corpus_spools_replay_cleanly() {
    let corpus = corpus("spool");
    let mut records = 0;
    for entry in corpus.iter() {
        let case = Mutant {
            seed: entry.name.clone(),
            ops: Vec::new(),
            bytes: entry.bytes.clone(),
        };
        if let Err(e) = check(&case) {
            panic!("{}: {e}", entry.name);
        }
        records += entry.bytes.iter().filter(|&&b| b == b'\n').count();
    }
    println!("fuzz spool corpus: {} files, {records} lines", corpus.len());
}

#[test]
fn mutants_never_panic_and_lose_no_line() {
    run(
        "spool",
        "proptest-regressions/fuzz/spool.txt",
        5000,
        mutants(corpus("spool"), DICT, 64 * 1024),
        save,
        check,
    );
}
