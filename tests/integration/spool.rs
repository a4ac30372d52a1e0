//! The hook spool: append/take round trip, concurrent writers, torn records, batches taken
//! while writers keep appending, and batches left over by a crash during replay.

use attend::service::store::spool::{append, Spool, SpoolRecord, LOCK_FILE, SPOOL_FILE};
use std::collections::{BTreeMap, HashSet};
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn record(id: &str, at: i64) -> SpoolRecord {
    let mut context = BTreeMap::new();
    context.insert("pane".to_string(), serde_json::json!("p3"));
    context.insert("cwd".to_string(), serde_json::json!("/srv/work/demo"));
    context.insert(
        "pids".to_string(),
        serde_json::json!([[4242, 1234567], [4200, 1234000]]),
    );
    context.insert("monotonic".to_string(), serde_json::json!(987_654_321u64));
    SpoolRecord {
        delivery_id: id.to_string(),
        agent: "claude".to_string(),
        event: String::new(),
        // A multi-line payload: newlines must not split the record.
        payload:
            "{\n  \"hook_event_name\": \"Stop\",\n  \"last_assistant_message\": \"done\\nbye\"\n}"
                .to_string(),
        context,
        arrived_at: at,
    }
}

fn ids(records: &[SpoolRecord]) -> Vec<String> {
    records.iter().map(|r| r.delivery_id.clone()).collect()
}

fn drain(spool: &Spool) -> Vec<SpoolRecord> {
    let mut all = Vec::new();
    while let Some(batch) = spool.take_batch().unwrap() {
        assert!(batch.torn.is_empty(), "{:?}", batch.torn);
        all.extend(batch.records.iter().cloned());
        spool.finish(batch).unwrap();
    }
    all
}

fn replaying_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("hooks.spool.replaying-"))
        .collect();
    names.sort();
    names
}

#[test]
fn records_come_back_whole_and_in_arrival_order() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run/attend");
    let spool = Spool::new(&dir);
    assert!(spool.take_batch().unwrap().is_none(), "no directory yet");

    let sent: Vec<SpoolRecord> = (0..5)
        .map(|i| record(&format!("d{i}"), 1_000 + i))
        .collect();
    for rec in &sent {
        append(&dir, rec).unwrap();
    }
    let mode = fs::metadata(dir.join(SPOOL_FILE))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    assert_eq!(
        fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
        0o700
    );
    let text = fs::read_to_string(dir.join(SPOOL_FILE)).unwrap();
    assert_eq!(text.lines().count(), 5, "one line per record");

    let batch = spool.take_batch().unwrap().unwrap();
    assert_eq!(batch.records, sent);
    assert!(batch.torn.is_empty());
    assert!(!dir.join(SPOOL_FILE).exists(), "the live spool was taken");
    spool.finish(batch).unwrap();
    assert!(replaying_files(&dir).is_empty());
    assert!(spool.take_batch().unwrap().is_none());
}

#[test]
fn concurrent_writers_never_interleave() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                for i in 0..200 {
                    append(&dir, &record(&format!("t{t}-{i}"), i)).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let all = drain(&Spool::new(&dir));
    assert_eq!(all.len(), 1600);
    let unique: HashSet<String> = ids(&all).into_iter().collect();
    assert_eq!(unique.len(), 1600, "each record exactly once");
    // Each writer's own records keep their order.
    for t in 0..8 {
        let mine: Vec<i64> = all
            .iter()
            .filter(|r| r.delivery_id.starts_with(&format!("t{t}-")))
            .map(|r| r.arrived_at)
            .collect();
        assert_eq!(mine, (0..200).collect::<Vec<_>>());
    }
}

#[test]
fn a_torn_last_record_is_reported_and_the_complete_ones_replayed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for i in 0..3 {
        append(dir, &record(&format!("d{i}"), i)).unwrap();
    }
    // A writer crashes mid-record: the file ends inside a line.
    let path = dir.join(SPOOL_FILE);
    let full = fs::read(&path).unwrap();
    let mut extra = serde_json::to_vec(&record("d3", 3)).unwrap();
    extra.truncate(extra.len() / 2);
    let mut file = OpenOptions::new().append(true).open(&path).unwrap();
    file.write_all(&extra).unwrap();

    let spool = Spool::new(dir);
    let batch = spool.take_batch().unwrap().unwrap();
    assert_eq!(ids(&batch.records), ["d0", "d1", "d2"]);
    assert_eq!(batch.torn.len(), 1);
    assert_eq!(batch.torn[0].offset, full.len() as u64);
    assert_eq!(batch.torn[0].bytes, extra);
    assert!(
        batch.torn[0].reason.contains("newline"),
        "{}",
        batch.torn[0].reason
    );
    spool.finish(batch).unwrap();
}

#[test]
fn a_record_appended_after_a_torn_one_stays_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    append(dir, &record("d0", 0)).unwrap();
    let path = dir.join(SPOOL_FILE);
    let mut file = OpenOptions::new().append(true).open(&path).unwrap();
    file.write_all(b"{\"delivery_id\":\"d1\",\"ag").unwrap();
    append(dir, &record("d2", 2)).unwrap();
    // A garbage line in the middle is reported too, and never fatal.
    let mut file = OpenOptions::new().append(true).open(&path).unwrap();
    file.write_all(b"not json\n").unwrap();
    append(dir, &record("d3", 3)).unwrap();

    let spool = Spool::new(dir);
    let batch = spool.take_batch().unwrap().unwrap();
    assert_eq!(ids(&batch.records), ["d0", "d2", "d3"]);
    assert_eq!(batch.torn.len(), 2);
    assert_eq!(batch.torn[0].bytes, b"{\"delivery_id\":\"d1\",\"ag");
    assert_eq!(batch.torn[1].bytes, b"not json");
    assert!(batch.torn[1].reason.starts_with("not a spool record"));
}

#[test]
fn records_appended_during_a_replay_go_to_a_fresh_spool() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let spool = Spool::new(dir);
    spool.append(&record("a", 1)).unwrap();
    let first = spool.take_batch().unwrap().unwrap();
    // A hook arrives while the daemon replays the first batch.
    spool.append(&record("b", 2)).unwrap();
    assert_eq!(ids(&first.records), ["a"]);
    let live = fs::read_to_string(dir.join(SPOOL_FILE)).unwrap();
    assert!(live.contains("\"b\"") && !live.contains("\"a\""));
    spool.finish(first).unwrap();

    let second = spool.take_batch().unwrap().unwrap();
    assert_eq!(ids(&second.records), ["b"]);
    spool.finish(second).unwrap();
    assert!(spool.take_batch().unwrap().is_none());
}

#[test]
fn batches_left_by_a_crash_during_replay_come_first_in_name_order() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let spool = Spool::new(dir);
    spool.append(&record("old2", 2)).unwrap();
    let crashed = spool.take_batch().unwrap().unwrap();
    // Without finish, take returns the leftover again (replay is idempotent by id).
    spool.append(&record("new", 3)).unwrap();
    assert_eq!(spool.take_batch().unwrap().unwrap().path, crashed.path);
    // An even older leftover, from an earlier crash.
    let line = serde_json::to_string(&record("old1", 1)).unwrap() + "\n";
    fs::write(dir.join("hooks.spool.replaying-00000000000000000001"), line).unwrap();
    assert_eq!(replaying_files(dir).len(), 2);

    // "Restart": a fresh Spool value drains leftovers first, oldest name first, then the
    // live spool.
    let restarted = Spool::new(dir);
    assert_eq!(ids(&drain(&restarted)), ["old1", "old2", "new"]);
    assert!(replaying_files(dir).is_empty());
    assert!(!dir.join(SPOOL_FILE).exists());
}

#[test]
fn an_empty_live_spool_is_not_a_batch() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join(SPOOL_FILE), "").unwrap();
    assert!(Spool::new(tmp.path()).take_batch().unwrap().is_none());
}

#[test]
fn a_replay_racing_with_writers_loses_and_repeats_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let writers: Vec<_> = (0..4)
        .map(|t| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                for i in 0..200 {
                    append(&dir, &record(&format!("w{t}-{i}"), i)).unwrap();
                }
            })
        })
        .collect();
    let spool = Spool::new(&dir);
    let mut seen = Vec::new();
    while !writers.iter().all(|w| w.is_finished()) {
        seen.extend(drain(&spool));
    }
    for w in writers {
        w.join().unwrap();
    }
    seen.extend(drain(&spool));
    assert_eq!(seen.len(), 800);
    assert_eq!(ids(&seen).into_iter().collect::<HashSet<_>>().len(), 800);
}

/// Child half of [`several_processes_append_at_once`]: appends only when spawned by it.
#[test]
fn child_process_appender() {
    let Some(dir) = std::env::var_os("ATTEND_SPOOL_TEST_DIR") else {
        return;
    };
    let who = std::env::var("ATTEND_SPOOL_TEST_WHO").unwrap();
    for i in 0..100 {
        append(Path::new(&dir), &record(&format!("{who}-{i}"), i)).unwrap();
    }
}

#[test]
fn several_processes_append_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    // The test's whole name, module included (this module's path without the crate).
    let child = format!(
        "{}::child_process_appender",
        module_path!().split_once("::").unwrap().1
    );
    let children: Vec<_> = (0..4)
        .map(|p| {
            std::process::Command::new(&exe)
                .args([child.as_str(), "--exact", "--test-threads=1"])
                .env("ATTEND_SPOOL_TEST_DIR", tmp.path())
                .env("ATTEND_SPOOL_TEST_WHO", format!("proc{p}"))
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let all = drain(&Spool::new(tmp.path()));
    assert_eq!(all.len(), 400);
    assert_eq!(ids(&all).into_iter().collect::<HashSet<_>>().len(), 400);
}

#[test]
fn writers_wait_for_the_spool_lock() {
    use nix::fcntl::{Flock, FlockArg};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let lock_file = fs::File::create(dir.join(LOCK_FILE)).unwrap();
    let held = Flock::lock(lock_file, FlockArg::LockExclusive).unwrap();
    let writer = {
        let dir = dir.clone();
        std::thread::spawn(move || append(&dir, &record("late", 1)).unwrap())
    };
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(!dir.join(SPOOL_FILE).exists(), "the writer must wait");
    drop(held);
    writer.join().unwrap();
    assert_eq!(ids(&drain(&Spool::new(&dir))), ["late"]);
}
