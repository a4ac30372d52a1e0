//! A killed test run leaves no program behind. A test process that is killed (the CI
//! stage's `timeout --kill-after`, Ctrl-C, `kill -9`) runs no `Drop`, so the cleanup of
//! [`Env`] never comes; the daemon and the bus it started are in its process group and
//! die with the signal to the group, but each pane's holder detaches into a session of
//! its own (docs/decisions/0009-pane-holders.md) and would keep running, with its
//! program. `tests/support` ties every holder a test starts to the test process
//! (`ATTEND_HOLDER_TETHER`, crates/attend-holder/src/tether.rs): it ends with it.
//!
//! The test runs this test binary again as a child in a process group of its own (as
//! `timeout` runs a stage), running only [`helper_starts_a_daemon_and_a_pane_then_waits`]:
//! a daemon and a pane whose program ignores the terminal's hang-up and has a background
//! job in another process group. Then it SIGKILLs that group, as `timeout --kill-after`
//! does, and checks that nothing of the child is left.

use crate::support::{self, running, Env, READY_TIMEOUT};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set in the child's environment: the file the helper reports to.
const HELPER: &str = "ATTEND_TEST_KILLED_RUN_REPORT";

/// How long the holder and the program may take to end after the kill.
const END_WITHIN: Duration = Duration::from_secs(10);

/// The child's side: only when [`HELPER`] is set (else it passes at once, also under
/// `--ignored`). Starts a daemon and a pane, reports their pids, then waits to be killed.
#[test]
#[ignore = "the child process of a_killed_test_process_leaves_no_holder_or_program_behind"]
fn helper_starts_a_daemon_and_a_pane_then_waits() {
    let Some(report) = std::env::var_os(HELPER) else {
        return;
    };
    let mut env = Env::new();
    let daemon = env.start_daemon();
    // Ignores SIGHUP (so a closed terminal does not end it), and starts a job in a process
    // group of its own (`set -m`) that ignores it too.
    let pane = env.run(&[
        "--",
        "sh",
        "-c",
        "trap '' HUP; set -m; sleep 3600 & sleep 3601; wait",
    ]);
    let state = env.state_dir();
    let mut pids = None;
    env.wait_until("the pane's holder, program and job run", || {
        let (Some(holder), Some(program)) = (
            support::holder_of(&state, &pane),
            support::program_of(&state, &pane),
        ) else {
            return false;
        };
        let session = support::session_members(program);
        pids = Some((holder, program));
        session.len() >= 3
    });
    let (holder, program) = pids.unwrap();
    let text = format!(
        "dir {}\nstate {}\ndaemon {daemon}\nbus {}\nholder {holder}\nprogram {program}\nready\n",
        env.dir.path().display(),
        state.display(),
        env.bus.pid(),
    );
    std::fs::write(&report, text).unwrap();
    // Killed long before this ends; bounded all the same.
    std::thread::sleep(Duration::from_secs(600));
}

#[test]
fn a_killed_test_process_leaves_no_holder_or_program_behind() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report");
    let log = std::fs::File::create(dir.path().join("child.log")).unwrap();
    // This module's path without the crate's name: the test names libtest knows.
    let module = module_path!().split_once("::").unwrap().1;
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &format!("{module}::helper_starts_a_daemon_and_a_pane_then_waits"),
            "--ignored",
            "--nocapture",
        ])
        .env(HELPER, &report)
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    let ready = support::poll(READY_TIMEOUT, || {
        std::fs::read_to_string(&report).is_ok_and(|r| r.ends_with("ready\n"))
    });
    let child_log = || std::fs::read_to_string(dir.path().join("child.log")).unwrap_or_default();
    if !ready {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(child.id() as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = child.wait();
        panic!(
            "the child test did not start its pane\n--- its output ---\n{}",
            child_log()
        );
    }
    let text = std::fs::read_to_string(&report).unwrap();
    let field = |k: &str| -> String {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{k} ")))
            .unwrap();
        line[k.len() + 1..].to_string()
    };
    let pid = |k: &str| -> u32 { field(k).parse().unwrap() };
    let (daemon, bus, holder, program) = (pid("daemon"), pid("bus"), pid("holder"), pid("program"));
    let state = PathBuf::from(field("state"));
    let session = support::session_members(program);
    assert!(
        session.len() >= 3,
        "the program, its sleep and its job: {session:?}"
    );
    for p in [daemon, bus, holder] {
        assert!(running(p), "{p} runs before the kill");
    }

    // As `timeout --kill-after` ends a stage: SIGKILL to the whole process group.
    let killed = Instant::now();
    nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let _ = child.wait();
    let left = || -> Vec<u32> {
        let mut left: Vec<u32> = [daemon, bus, holder]
            .into_iter()
            .chain(session.iter().copied())
            .filter(|p| running(*p))
            .collect();
        left.extend(support::holders_of(&state));
        left.extend(support::session_members(program));
        left.sort();
        left.dedup();
        left
    };
    let ended = support::poll(END_WITHIN, || left().is_empty());
    let took = killed.elapsed();
    let remaining = left();
    // Whatever is left goes now, so that a failure leaves nothing behind either.
    support::kill_holders(&state);
    for p in &remaining {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(*p as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let _ = std::fs::remove_dir_all(field("dir"));
    assert!(
        ended,
        "left {END_WITHIN:?} after the kill: {remaining:?} (daemon {daemon}, bus {bus}, \
         holder {holder}, program session {session:?})\n--- the child's output ---\n{}",
        child_log()
    );
    println!("everything of the killed test process ended {took:?} after the kill");
}
