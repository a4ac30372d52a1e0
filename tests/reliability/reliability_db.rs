//! Reliability suite, the database (docs/reliability.md): the SQLite
//! file deleted, damaged or unusable while the daemon is stopped, and a full disk while
//! it runs. Never a silent fresh start: the start says what it found and moves the bad
//! file aside (byte for byte) before it starts fresh, or refuses to start. On a full disk
//! no hook is acknowledged before it is committed: the hook client spools, the daemon
//! logs the error, and the spool is replayed once space returns. Extends the corrupt-file
//! case of tests/integration/daemon_restart.rs.

use crate::support;

use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::Env;

fn stop(session: &str, message: &str) -> String {
    json!({
        "session_id": session,
        "cwd": "/tmp/proj",
        "hook_event_name": "Stop",
        "stop_hook_active": false,
        "last_assistant_message": message,
    })
    .to_string()
}

fn db_path(env: &Env) -> PathBuf {
    env.state_dir().join("attend.db")
}

/// Files in the state directory whose name starts with `prefix`.
fn files(env: &Env, prefix: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(env.state_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .collect();
    found.sort();
    found
}

/// `attend ls --json`.
fn panes(env: &Env) -> Vec<Value> {
    serde_json::from_str(&env.ok(&["ls", "--json"])).unwrap()
}

/// A daemon that stored something: two panes, a finished turn, their events.
fn with_state() -> Env {
    let env = Env::with_daemon();
    let p = env.run(&["-n", "kept", "--agent", "claude", "--", "sleep", "1000"]);
    env.hook("claude", &p, &stop("s-kept", "work done"), "d-kept")
        .unwrap();
    env.run(&["--", "sleep", "1000"]);
    assert_eq!(panes(&env).len(), 2);
    env
}

/// Starts `attend daemon` expecting it to refuse: its exit code and stderr (bounded).
fn daemon_refuses(env: &Env) -> (Option<i32>, String) {
    let mut child = env
        .cmd()
        .args(["daemon", "--no-tray", "--no-notifications"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > support::TIMEOUT {
            let _ = child.kill();
            panic!("the daemon started on an unusable database");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    (status.code(), err)
}

// ---------------------------------------------------------------------------------------
// Deleted, damaged, unusable while stopped
// ---------------------------------------------------------------------------------------

/// kill -9 leaves the write-ahead log (which holds the recent commits); the main file is
/// then deleted. The start says so and moves the log aside intact rather than letting
/// SQLite drop it, then starts fresh.
#[test]
fn a_database_deleted_while_stopped_is_reported_and_its_log_kept_aside() {
    let mut env = with_state();
    env.kill_daemon();
    let wal = env.state_dir().join("attend.db-wal");
    let wal_bytes = std::fs::read(&wal).expect("kill -9 leaves the WAL");
    std::fs::remove_file(db_path(&env)).unwrap();

    env.start_daemon();
    let log = env.daemon_log();
    let line = log
        .lines()
        .find(|l| l.contains("is missing but its log files are still there"))
        .unwrap_or_else(|| panic!("the start says the file is missing:\n{log}"));
    println!("start: {line}");
    let kept = files(&env, "attend.db-wal.orphan-");
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(
        line.contains(kept[0].to_str().unwrap()),
        "names where: {line}"
    );
    assert_eq!(
        std::fs::read(&kept[0]).unwrap(),
        wal_bytes,
        "the log is kept byte for byte ({} bytes)",
        wal_bytes.len()
    );
    assert!(panes(&env).is_empty(), "a fresh state");
    assert_eq!(env.run(&["--", "sleep", "1000"]), "p1");
}

/// After a clean stop nothing is left beside the file: a start without it still says
/// that it starts empty (never silently).
#[test]
fn a_database_deleted_after_a_clean_stop_is_reported() {
    let mut env = with_state();
    env.stop_daemon();
    assert!(
        files(&env, "attend.db-").is_empty(),
        "a clean stop leaves no log"
    );
    std::fs::remove_file(db_path(&env)).unwrap();
    env.start_daemon();
    let log = env.daemon_log();
    let says = log
        .lines()
        .filter(|l| l.contains("no database: starting with an empty state"))
        .count();
    // Once at the first start (no file yet), once now.
    assert_eq!(says, 2, "{log}");
    println!(
        "start: {}",
        log.lines().rfind(|l| l.contains("no database")).unwrap()
    );
    assert!(panes(&env).is_empty());
}

/// Overwrites `len` bytes at `offset` with a pattern.
fn damage(path: &Path, offset: u64, len: usize) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(&vec![0xa5; len], offset).unwrap();
    f.sync_all().unwrap();
}

/// Checks a damaged file was moved aside byte for byte and the daemon started fresh
/// with a clear message; returns that message.
fn assert_moved_aside(env: &Env, bad: &[u8]) -> String {
    let log = env.daemon_log();
    let line = log
        .lines()
        .find(|l| l.contains("is corrupt"))
        .unwrap_or_else(|| panic!("the start reports the damage:\n{log}"))
        .to_string();
    let aside = files(env, "attend.db.corrupt-");
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert!(line.contains(aside[0].to_str().unwrap()), "{line}");
    assert_eq!(
        std::fs::read(&aside[0]).unwrap(),
        bad,
        "moved byte for byte"
    );
    assert!(panes(env).is_empty(), "a fresh state, only after the move");
    assert_eq!(env.run(&["--", "sleep", "1000"]), "p1");
    line
}

/// A real database with panes and events whose pages are damaged in the middle (the
/// header still says SQLite): `quick_check` finds it, the file is moved aside intact.
#[test]
fn a_database_damaged_in_the_middle_is_moved_aside_intact_and_reported() {
    let mut env = with_state();
    env.stop_daemon();
    let path = db_path(&env);
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size >= 4 * 4096, "a database of a few pages: {size}");
    // Page 2 onwards (the schema's tables), leaving page 1's header valid.
    damage(&path, 4096, (size - 4096) as usize / 2);
    let bad = std::fs::read(&path).unwrap();
    env.start_daemon();
    let line = assert_moved_aside(&env, &bad);
    println!("start ({size}-byte file, damaged pages): {line}");
}

#[test]
fn a_truncated_database_is_moved_aside_intact_and_reported() {
    let mut env = with_state();
    env.stop_daemon();
    let path = db_path(&env);
    let size = std::fs::metadata(&path).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(size / 3).unwrap();
    drop(f);
    let bad = std::fs::read(&path).unwrap();
    env.start_daemon();
    let line = assert_moved_aside(&env, &bad);
    println!("start (cut from {size} to {} bytes): {line}", bad.len());
}

/// A file written by a newer Attend (a schema version this one does not know) is not
/// damage: the daemon refuses to start and leaves it alone.
#[test]
fn a_database_from_a_newer_attend_is_refused_and_left_alone() {
    let mut env = with_state();
    env.stop_daemon();
    let path = db_path(&env);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 999).unwrap();
    drop(conn);
    let before = std::fs::read(&path).unwrap();
    let (code, err) = daemon_refuses(&env);
    println!("start: exit {code:?}: {}", err.trim_end());
    assert_eq!(code, Some(1));
    assert!(
        err.contains("was written by a newer Attend (schema version 999); it is left untouched"),
        "{err}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before, "untouched");
    assert!(files(&env, "attend.db.corrupt-").is_empty(), "not moved");
}

/// The database path is not a file at all: a clear refusal, nothing moved or created.
#[test]
fn a_database_path_that_is_not_a_file_is_refused() {
    let env = Env::new();
    std::fs::create_dir_all(db_path(&env).join("not-a-database")).unwrap();
    let (code, err) = daemon_refuses(&env);
    println!("start: exit {code:?}: {}", err.trim_end());
    assert_eq!(code, Some(1));
    assert!(err.contains("cannot open database"), "{err}");
    assert!(err.contains(db_path(&env).to_str().unwrap()), "{err}");
    assert!(db_path(&env).join("not-a-database").is_dir(), "untouched");
    assert!(files(&env, "attend.db.corrupt-").is_empty(), "not moved");
}

// ---------------------------------------------------------------------------------------
// A full disk
// ---------------------------------------------------------------------------------------

/// A small tmpfs mounted on the state directory (we run as root), unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Tmpfs {
        std::fs::create_dir_all(at).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size},mode=0700")])
            .arg("tmpfs")
            .arg(at)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "the disk-full case mounts a tmpfs (needs root): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Tmpfs(at.to_path_buf())
    }

    /// Fills the file system with `filler` until it is full; returns the bytes written.
    fn fill(&self) -> u64 {
        let mut f = std::fs::File::create(self.filler()).unwrap();
        let chunk = vec![0u8; 64 * 1024];
        let mut written = 0u64;
        let mut size = chunk.len();
        while size > 0 {
            match f.write(&chunk[..size]) {
                Ok(n) => written += n as u64,
                Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => size /= 2,
                Err(e) => panic!("filling the tmpfs: {e}"),
            }
        }
        let _ = f.sync_all();
        written
    }

    fn filler(&self) -> PathBuf {
        self.0.join("filler")
    }

    /// Gives the space back.
    fn free(&self) {
        std::fs::remove_file(self.filler()).unwrap();
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Lazy: the daemon may still hold the database open.
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// `attend hook claude` from outside Attend for session `session`: it must succeed
/// silently (delivered or spooled).
fn fire(env: &Env, session: &str, vars: &[(&str, &str)]) -> String {
    let out = env.attend_with(
        &["hook", "claude"],
        stop(session, &format!("message of {session}")).as_bytes(),
        vars,
    );
    assert_eq!(out.status.code(), Some(0));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The session ids of the stored panes, sorted.
fn sessions(env: &Env) -> Vec<String> {
    let mut s: Vec<String> = panes(env)
        .iter()
        .filter_map(|p| p["session_id"].as_str().map(str::to_string))
        .collect();
    s.sort();
    s
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}-{i:02}")).collect()
}

/// The disk holding the database fills up while hooks keep coming: every hook fired
/// while it is full is refused by the daemon (nothing acknowledged that is not
/// committed), so the client spools it; the daemon logs the error; what was stored
/// before stays; when space returns the spool is replayed without a new hook to kick
/// it, every hook exactly once, and all of it survives a restart.
#[test]
fn a_full_disk_spools_the_hooks_loses_nothing_and_replays_when_space_returns() {
    let mut env = Env::new();
    let fs = Tmpfs::mount(&env.state_dir(), "4m");
    env.start_daemon();

    let before = names("a-before", 5);
    for s in &before {
        assert_eq!(fire(&env, s, &[]), "");
    }
    assert_eq!(sessions(&env), before);
    let events_before = env.events().len();

    let filled = fs.fill();
    let during = names("b-full", 10);
    let start = Instant::now();
    for s in &during {
        assert_eq!(fire(&env, s, &[]), "", "spooled silently");
    }
    let fired_in = start.elapsed();
    println!(
        "disk full ({} KiB of filler): 10 hooks spooled in {fired_in:?}",
        filled / 1024
    );
    env.wait_until("the failed commits are logged", || {
        env.daemon_log().contains("database or disk is full")
    });
    assert_eq!(
        env.spooled(),
        during.len(),
        "every unacknowledged hook waits"
    );
    assert_eq!(
        sessions(&env),
        before,
        "what was stored before is all there"
    );
    assert_eq!(env.events().len(), events_before, "nothing half-stored");
    let log = env.daemon_log();
    let error = log
        .lines()
        .find(|l| l.contains("commit failed"))
        .expect("a clear error in the log");
    println!("daemon log: {error}");
    let retries = log.matches("hook spool records are waiting").count();
    assert!(retries >= 1, "the drain retries: {log}");

    // Space returns; no new hook arrives: the retry replays the spool by itself.
    let freed = Instant::now();
    fs.free();
    let mut all: Vec<String> = before.iter().chain(&during).cloned().collect();
    all.sort();
    let deadline = Duration::from_secs(40);
    while sessions(&env) != all {
        assert!(
            freed.elapsed() < deadline,
            "the spool was not replayed within {deadline:?}: {:?}\n{}",
            sessions(&env),
            env.daemon_log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    println!(
        "space returned: the 10 spooled hooks applied {:?} later",
        freed.elapsed()
    );
    env.wait_until("the spool is empty", || env.spooled() == 0);
    // Live hooks work again, and everything is on disk.
    let after = names("c-after", 3);
    for s in &after {
        assert_eq!(fire(&env, s, &[]), "");
    }
    all.extend(after);
    all.sort();
    assert_eq!(sessions(&env), all);
    env.kill_daemon();
    env.start_daemon();
    assert_eq!(
        sessions(&env),
        all,
        "each hook exactly once, after a restart"
    );
    for p in panes(&env) {
        let s = p["session_id"].as_str().unwrap();
        assert_eq!(p["last_message"], format!("message of {s}"));
    }
    let stops = env
        .events()
        .iter()
        .filter(|e| e["kind"] == "agent.done")
        .count();
    assert_eq!(stops, all.len(), "one completion per hook");
    drop(fs);
}

/// When even the spool is on the full disk, the hook client says the event is lost in
/// one line (exit 0: the agent goes on), and nothing is half-written.
#[test]
fn a_hook_that_can_be_neither_stored_nor_spooled_says_so() {
    let mut env = Env::new();
    let fs = Tmpfs::mount(&env.state_dir(), "4m");
    env.start_daemon();
    let spool_dir = env.state_dir().join("run");
    std::fs::create_dir_all(&spool_dir).unwrap();
    let spool_dir = spool_dir.to_str().unwrap().to_string();
    assert_eq!(fire(&env, "s-ok", &[("XDG_RUNTIME_DIR", &spool_dir)]), "");
    fs.fill();
    let err = fire(&env, "s-lost", &[("XDG_RUNTIME_DIR", &spool_dir)]);
    println!("hook: {}", err.trim_end());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("attend: hook lost: not delivered ("),
        "{err}"
    );
    assert!(err.contains("No space left on device"), "{err}");
    assert_eq!(sessions(&env), ["s-ok"]);
    fs.free();
    assert!(env.attend(&["version"]).status.success());
}
