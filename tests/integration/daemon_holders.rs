//! Agents outlive the daemon (docs/decisions/0009-pane-holders.md): each pane's program is
//! kept by a holder process; SIGTERM, kill -9 and a kill of the daemon's whole process
//! group leave it running, a new daemon re-adopts it with the output printed meanwhile,
//! and holder faults (killed, stale socket, another state directory, another protocol
//! version, a holder that never answers) end or skip exactly the one pane.

use crate::support;

use std::io::Write;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::time::Duration;
use support::Env;

fn alive(pid: i32) -> bool {
    // A zombie (exited, not yet reaped by init) is not alive.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s[s.rfind(')').unwrap() + 2..].starts_with('Z'))
        .unwrap_or(false)
}

fn read_pid(env: &Env, name: &str) -> i32 {
    let path = env.work_dir().join(name);
    env.wait_until("the program wrote its pid", || {
        std::fs::read_to_string(&path).is_ok_and(|s| s.ends_with('\n'))
    });
    std::fs::read_to_string(path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// The directory of this state directory's holder sockets.
fn holders_dir(env: &Env, pane: &str) -> PathBuf {
    let pid = support::holder_of(&env.state_dir(), pane).expect("a holder");
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
    let i = args.iter().position(|a| *a == b"--socket").unwrap();
    Path::new(std::str::from_utf8(args[i + 1]).unwrap())
        .parent()
        .unwrap()
        .to_path_buf()
}

fn screen(env: &Env, pane: &str) -> String {
    env.attend1().get_screen(pane).unwrap()
}

#[test]
fn sigterm_kill_9_and_a_kill_of_the_daemons_process_group_leave_the_program_running() {
    let mut env = Env::new();
    env.start_daemon_as(&["--no-tray", "--no-notifications"], &[], true);
    let pane = env.run(&["--", "sh", "-c", "echo $$ > p.pid; exec cat"]);
    let pid = read_pid(&env, "p.pid");

    env.stop_daemon();
    assert!(alive(pid), "SIGTERM of the daemon ended the program");
    env.start_daemon_as(&["--no-tray", "--no-notifications"], &[], true);
    assert_eq!(env.show(&pane)["live"]["state"], "running");

    // A service manager stopping the daemon's whole process group.
    let group = nix::unistd::Pid::from_raw(env.daemon_pid() as i32);
    nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL).unwrap();
    env.kill_daemon();
    assert!(
        alive(pid),
        "a kill of the daemon's process group ended the program"
    );
    env.start_daemon();
    assert_eq!(env.show(&pane)["live"]["state"], "running");
    // The killed daemon's attach socket does not pile up.
    let attach: Vec<_> = std::fs::read_dir(env.spool_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("attach-"))
        .collect();
    assert_eq!(attach.len(), 1, "{attach:?}");

    // Input, output and exit work on the re-adopted pane.
    env.ok(&["send", &pane, "still here", "--enter"]);
    env.wait_until("the echo", || {
        screen(&env, &pane).contains("still here\nstill here")
    });
    env.ok(&["kill", &pane, "--signal", "9"]);
    let shown = env.wait_pane(&pane, "the kill", |v| v["live"]["state"] == "exited");
    assert_eq!(shown["live"]["signal"], 9, "{shown}");
    assert!(!alive(pid));
}

/// A pane that prints `n` numbered lines once `go` exists, then `printed`, then waits.
fn printer(env: &Env, n: usize) -> String {
    env.run(&[
        "--",
        "sh",
        "-c",
        &format!(
            "while [ ! -e go ]; do sleep 0.05; done; seq 1 {n}; echo END; touch printed; exec cat"
        ),
    ])
}

fn outage(env: &mut Env, args: &[&str]) {
    env.kill_daemon();
    std::fs::write(env.work_dir().join("go"), "").unwrap();
    let printed = env.work_dir().join("printed");
    env.wait_until("the program printed", || printed.exists());
    env.start_daemon_with(args, &[]);
}

#[test]
fn output_printed_while_the_daemon_is_away_is_on_the_screen_after_re_adoption() {
    let mut env = Env::with_daemon();
    let pane = printer(&env, 15);
    env.wait_pane(&pane, "running", |v| v["live"]["state"] == "running");
    outage(&mut env, &["--no-tray", "--no-notifications"]);
    let expected: String = (1..=15).map(|i| format!("{i}\n")).collect::<String>() + "END";
    env.wait_until("the buffered output on the screen", || {
        screen(&env, &pane).contains(&expected)
    });
    assert!(!screen(&env, &pane).contains("dropped"));
}

#[test]
fn over_the_holder_buffer_the_screen_shows_one_gap_line_with_the_dropped_count() {
    let mut env = Env::new();
    let args = ["--no-tray", "--no-notifications", "--holder-buffer", "64"];
    env.start_daemon_with(&args, &[]);
    let pane = printer(&env, 300);
    env.wait_pane(&pane, "running", |v| v["live"]["state"] == "running");
    outage(&mut env, &args);
    env.wait_until("the last line", || screen(&env, &pane).contains("300\nEND"));
    let text = screen(&env, &pane);
    let gaps: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("bytes of output were dropped"))
        .collect();
    assert_eq!(gaps.len(), 1, "{text}");
    let dropped: usize = gaps[0]
        .split_whitespace()
        .find_map(|w| w.parse().ok())
        .expect("a count");
    // seq 1 300 and END with CR LF line ends; the holder kept at most 64 of them.
    let total: usize = (1..=300)
        .map(|i: usize| i.to_string().len() + 2)
        .sum::<usize>()
        + 5;
    assert!(dropped > 0 && dropped <= total - 64, "{dropped} of {total}");
}

#[test]
fn a_holder_killed_while_the_daemon_runs_ends_its_pane_only() {
    let env = Env::with_daemon();
    let a = env.run(&["--", "sh", "-c", "echo $$ > a.pid; exec cat"]);
    let b = env.run(&["--", "sh", "-c", "echo $$ > b.pid; exec cat"]);
    let (pa, pb) = (read_pid(&env, "a.pid"), read_pid(&env, "b.pid"));
    let holder = support::holder_of(&env.state_dir(), &a).unwrap();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(holder as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let shown = env.wait_pane(&a, "the pane ends", |v| v["live"]["state"] == "exited");
    assert_eq!(shown["live"]["code"], serde_json::Value::Null, "{shown}");
    assert_eq!(shown["live"]["signal"], serde_json::Value::Null, "{shown}");
    env.wait_until("the program is hung up", || !alive(pa));
    assert!(alive(pb));
    assert_eq!(env.show(&b)["live"]["state"], "running");
}

#[test]
fn stale_foreign_old_and_silent_holder_sockets_are_skipped_and_the_start_goes_on() {
    let mut env = Env::with_daemon();
    let pane = env.run(&["--", "sh", "-c", "echo $$ > p.pid; exec cat"]);
    let pid = read_pid(&env, "p.pid");
    let dir = holders_dir(&env, &pane);

    // Another state directory's live holder, its socket linked in here as p50.
    let mut other = Env::with_daemon();
    let foreign = other.run(&["--", "cat"]);
    other.wait_pane(&foreign, "running", |v| v["live"]["state"] == "running");
    other.kill_daemon();
    let foreign_dir = holders_dir(&other, &foreign);
    std::os::unix::fs::symlink(
        foreign_dir.join(format!("{foreign}.sock")),
        dir.join("p50.sock"),
    )
    .unwrap();
    // A stale socket (nobody listens).
    drop(UnixListener::bind(dir.join("p51.sock")).unwrap());
    // A holder that speaks protocol version 0, and one that never answers.
    let old = UnixListener::bind(dir.join("p52.sock")).unwrap();
    let silent = UnixListener::bind(dir.join("p53.sock")).unwrap();
    let stand_in = std::thread::spawn(move || {
        let (mut s, _) = old.accept().unwrap();
        attend_holder::fdpass::send_fd(&s, None).unwrap();
        let mut hello = Vec::new();
        hello.extend(9u32.to_le_bytes());
        hello.push(1);
        hello.extend(b"ATTH");
        hello.extend(0u32.to_le_bytes());
        hello.extend(0u32.to_le_bytes());
        s.write_all(&hello).unwrap();
        let (quiet, _) = silent.accept().unwrap();
        std::thread::sleep(Duration::from_secs(5));
        drop(quiet);
    });

    env.kill_daemon();
    env.start_daemon();
    let log = env.daemon_log();
    assert!(log.contains("protocol version 0"), "{log}");
    assert!(log.contains("another state directory"), "{log}");
    assert!(
        !dir.join("p51.sock").exists(),
        "the stale socket is removed"
    );
    assert_eq!(env.show(&pane)["live"]["state"], "running");
    assert!(alive(pid));
    stand_in.join().unwrap();

    // The foreign holder was left alone: its own daemon re-adopts it.
    other.start_daemon();
    assert_eq!(other.show(&foreign)["live"]["state"], "running");
}

#[test]
fn stop_all_ends_every_program_but_only_when_confirmed() {
    let env = Env::with_daemon();
    let a = env.run(&["--", "cat"]);
    let b = env.run(&["--", "cat"]);
    // An interactive shell ignores SIGTERM, and ends on SIGHUP as when its terminal closes.
    let shell = env.run(&["--", "bash", "--norc", "-i"]);
    env.wait_until("the shell's prompt", || {
        screen(&env, &shell).contains("bash-")
    });
    let out = env.attend(&["stop-all"]);
    assert_eq!(out.status.code(), Some(2), "no terminal, no --yes");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--yes") && err.contains(&a) && err.contains(&b),
        "{err}"
    );
    assert_eq!(env.show(&a)["live"]["state"], "running");
    let started = std::time::Instant::now();
    let said = env.ok(&["stop-all", "--yes"]);
    let took = started.elapsed();
    for p in [&a, &b, &shell] {
        let v = env.wait_pane(p, "ended", |v| v["live"]["state"] == "exited");
        assert_eq!(v["live"]["signal"], 1, "SIGHUP: {v}");
    }
    assert!(
        took < Duration::from_secs(4),
        "the shell ended on SIGHUP, not after a SIGTERM grace: {took:?}; {said}"
    );
    assert!(said.contains("SIGHUP sent to"), "{said}");
    assert!(!said.contains("did not end"), "{said}");
    assert_eq!(env.ok(&["stop-all", "--yes"]).trim(), "no running panes");

    // What ignores SIGHUP and SIGTERM gets SIGTERM and then SIGKILL after the graces.
    let stubborn = env.run(&[
        "--",
        "sh",
        "-c",
        "trap '' HUP TERM; echo ready; while :; do sleep 0.2; done",
    ]);
    env.wait_until("the traps set", || {
        screen(&env, &stubborn).contains("ready")
    });
    let said = env.ok(&["stop-all", "--yes"]);
    let v = env.wait_pane(&stubborn, "ended", |v| v["live"]["state"] == "exited");
    assert_eq!(v["live"]["signal"], 9, "{v}");
    assert!(
        said.contains(&format!(
            "{stubborn} did not end within 1s of SIGHUP: SIGTERM sent"
        )) && said.contains(&format!(
            "{stubborn} did not end within 5s of SIGTERM: SIGKILL sent"
        )),
        "{said}"
    );
}

/// A flood's screen log is held back and written once the flood pauses
/// (src/service/pty/screen_log.rs): the log ends with the flood's last line soon after,
/// and a daemon killed then rebuilds the screen as it was.
#[test]
fn a_flood_is_in_the_screen_log_once_it_pauses_and_rebuilt_after_kill_9() {
    let mut env = Env::with_daemon();
    let pane = env.run(&["--", "sh", "-c", "seq 1 300000; echo END; exec cat"]);
    env.wait_until("the flood's end on the screen", || {
        screen(&env, &pane).contains("300000\nEND")
    });
    let logs = env.state_dir().join("screens");
    env.wait_until("the flood's end in the screen log", || {
        std::fs::read_dir(&logs).is_ok_and(|d| {
            d.flatten()
                .any(|e| std::fs::read(e.path()).is_ok_and(|b| b.ends_with(b"300000\r\nEND\r\n")))
        })
    });
    let kept: u64 = std::fs::read_dir(&logs)
        .unwrap()
        .flatten()
        .map(|e| e.metadata().unwrap().len())
        .sum();
    assert!(
        kept <= 2 * attend::service::pty::SCREEN_LOG_BYTES + 64,
        "the log keeps at most two caps of the 2 MB flood: {kept}"
    );
    let before = screen(&env, &pane);
    env.kill_daemon();
    env.start_daemon();
    // The new daemon re-adopts the holder and replays its history in the background: the
    // screen is read once that is done (a wrapped rebuild never equals `before`).
    env.wait_pane(&pane, "re-adopted", |v| v["live"]["state"] == "running");
    let rebuilt = support::poll(std::time::Duration::from_secs(10), || {
        screen(&env, &pane) == before
    });
    assert!(
        rebuilt,
        "the screen is rebuilt as it was:\n{}\n--- was ---\n{before}",
        screen(&env, &pane)
    );
}

#[test]
fn a_re_adopted_pane_shows_the_same_screen_and_its_old_bell_does_not_ring_again() {
    let mut env = Env::with_daemon();
    let pane = env.run(&[
        "--",
        "sh",
        "-c",
        "seq 1 60; printf '\\033[1;31mred\\033[m and plain\\a\\n'; echo ready; exec cat",
    ]);
    env.wait_until("the output", || screen(&env, &pane).contains("ready"));
    env.wait_pane(&pane, "the bell", |v| v["attention"] == "unread");
    env.ok(&["seen", &pane]);
    let before = screen(&env, &pane);
    env.kill_daemon();
    env.start_daemon();
    assert_eq!(
        screen(&env, &pane),
        before,
        "the screen is rebuilt as it was"
    );
    let v = env.show(&pane);
    assert_eq!(
        v["attention"], "none",
        "the bell in the rebuilt screen rang again: {v}"
    );
    // The re-adopted pane goes on: new output after the old.
    env.ok(&["send", &pane, "after", "--enter"]);
    env.wait_until("new output", || {
        screen(&env, &pane).contains("ready\nafter\nafter")
    });
    // Its log ends with the pane: once it exits, nothing is left to rebuild.
    env.ok(&["kill", &pane]);
    env.wait_pane(&pane, "exited", |v| v["live"]["state"] == "exited");
    let logs = env.state_dir().join("screens");
    env.wait_until("the screen log removed", || {
        std::fs::read_dir(&logs).map_or(true, |d| d.count() == 0)
    });
}

#[test]
fn replace_hands_over_to_another_binary_without_ending_the_agents() {
    let env = Env::with_daemon();
    let pane = env.run(&["--", "sh", "-c", "echo $$ > p.pid; exec cat"]);
    let pid = read_pid(&env, "p.pid");
    let old = env.daemon_pid();
    // The upgrade: a copy of the binary elsewhere (with no attend-holder beside it, so
    // its new panes' holders run as `attend __holder`) that reports another version: its
    // version string patched in place (same length).
    let bin = env.path("upgrade/attend");
    std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
    let running = env.attend1().version().unwrap();
    let upgrade = other_version(&running);
    let image = std::fs::read(support::attend_bin()).unwrap();
    let (patched, n) = replace_all(&image, running.as_bytes(), upgrade.as_bytes());
    assert!(n > 0, "the version string {running} is in the binary");
    std::fs::write(&bin, patched).unwrap();
    std::fs::set_permissions(&bin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let reported = env
        .program(bin.to_str().unwrap())
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&reported.stdout).trim(),
        format!("attend {upgrade}")
    );
    let log = std::fs::File::create(env.path("replace.log")).unwrap();
    let mut new = env
        .program(bin.to_str().unwrap())
        .args(["daemon", "--no-tray", "--no-notifications", "--replace"])
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let replace_log = || std::fs::read_to_string(env.path("replace.log")).unwrap_or_default();
    env.wait_until("the new daemon is ready", || {
        replace_log().contains("attend daemon ready")
    });
    assert!(
        replace_log().contains("asked the running daemon to quit"),
        "{}",
        replace_log()
    );
    assert!(!alive(old as i32), "the old daemon is gone");
    assert_eq!(
        env.attend1().version().unwrap(),
        upgrade,
        "the upgrade answers"
    );
    assert!(alive(pid), "the agent outlived the upgrade");
    assert_eq!(env.show(&pane)["live"]["state"], "running");
    // Both the re-adopted pane and a new one (held by `attend __holder`) work.
    let fresh = env.run(&["--", "sh", "-c", "echo $$ > q.pid; exec cat"]);
    read_pid(&env, "q.pid");
    for p in [&pane, &fresh] {
        env.ok(&["send", p, "hi", "--enter"]);
        env.wait_until("the echo", || screen(&env, p).contains("hi\nhi"));
    }
    env.ok(&["stop-all", "--yes"]);
    env.wait_pane(&fresh, "ended", |v| v["live"]["state"] == "exited");
    let _ = new.kill();
    let _ = new.wait();
}

/// `version` with its last character changed (same length: a binary can be patched).
fn other_version(version: &str) -> String {
    let mut v = version.to_string();
    let last = v.pop().unwrap();
    v.push(if last == '9' { '8' } else { '9' });
    v
}

/// `image` with every `from` replaced by `to` (same length), and how many there were.
fn replace_all(image: &[u8], from: &[u8], to: &[u8]) -> (Vec<u8>, usize) {
    assert_eq!(from.len(), to.len());
    let mut out = image.to_vec();
    let at: Vec<usize> = memchr::memmem::find_iter(image, from).collect();
    for &i in &at {
        out[i..i + to.len()].copy_from_slice(to);
    }
    (out, at.len())
}

/// A stand-in for the systemd user manager on the test bus: records the transient
/// units asked for (no systemd user manager runs on the CI machine).
struct Manager(Calls);

/// The units asked for: name and PIDs.
type Calls = std::sync::Arc<std::sync::Mutex<Vec<(String, Vec<u32>)>>>;

#[zbus::interface(name = "org.freedesktop.systemd1.Manager")]
impl Manager {
    fn start_transient_unit(
        &self,
        name: String,
        _mode: String,
        properties: Vec<(String, zbus::zvariant::OwnedValue)>,
        _aux: Vec<(String, Vec<(String, zbus::zvariant::OwnedValue)>)>,
    ) -> zbus::zvariant::OwnedObjectPath {
        let pids = properties
            .into_iter()
            .find(|(k, _)| k == "PIDs")
            .and_then(|(_, v)| Vec::<u32>::try_from(v).ok())
            .unwrap_or_default();
        self.0.lock().unwrap().push((name, pids));
        zbus::zvariant::OwnedObjectPath::try_from("/org/freedesktop/systemd1/job/1").unwrap()
    }
}

#[test]
fn where_a_user_manager_runs_each_holder_gets_a_scope_of_its_own() {
    let mut env = Env::new();
    let calls = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let _manager = zbus::blocking::connection::Builder::address(env.bus.address.as_str())
        .unwrap()
        .name("org.freedesktop.systemd1")
        .unwrap()
        .serve_at("/org/freedesktop/systemd1", Manager(calls.clone()))
        .unwrap()
        .build()
        .unwrap();
    env.start_daemon();
    let pane = env.run(&["--", "sh", "-c", "echo $$ > p.pid; exec cat"]);
    read_pid(&env, "p.pid");
    let holder = support::holder_of(&env.state_dir(), &pane).unwrap();
    let calls = calls.lock().unwrap().clone();
    assert_eq!(
        calls,
        vec![(format!("attend-{pane}-{holder}.scope"), vec![holder])],
        "one scope, asked for before the program started"
    );
}

#[test]
fn the_user_unit_passes_systemd_analyze_verify_and_stops_the_daemon_only() {
    let unit = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/attend.service"))
        .unwrap();
    assert!(
        unit.lines().any(|l| l.trim() == "KillMode=process"),
        "stopping the unit must signal the daemon only"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("attend.service");
    std::fs::write(
        &path,
        unit.replace("/usr/bin/attend", support::attend_bin()),
    )
    .unwrap();
    let out = std::process::Command::new("systemd-analyze")
        .arg("verify")
        .arg(&path)
        .output()
        .expect("systemd-analyze (build-aux/deps.sh installs systemd)");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.trim().is_empty(), "{err}");
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

#[test]
fn an_exit_during_the_outage_is_applied_with_its_code_at_the_time_it_happened() {
    let mut env = Env::with_daemon();
    let pane = env.run(&[
        "--",
        "sh",
        "-c",
        "while [ ! -e go ]; do sleep 0.05; done; exit 3",
    ]);
    env.wait_pane(&pane, "running", |v| v["live"]["state"] == "running");
    env.kill_daemon();
    let holder = support::holder_of(&env.state_dir(), &pane).unwrap();
    let before = now_ms();
    std::fs::write(env.work_dir().join("go"), "").unwrap();
    // The holder records the exit and waits for a daemon to collect it.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        alive(holder as i32),
        "the holder waits for its exit to be collected"
    );
    let restarted = now_ms();
    env.start_daemon();
    let v = env.wait_pane(&pane, "the exit", |v| v["live"]["state"] == "exited");
    assert_eq!(v["live"]["code"], 3, "{v}");
    let exited: Vec<_> = env
        .events()
        .into_iter()
        .filter(|e| e["kind"] == "pane.exited" && e["pane"] == pane.as_str())
        .collect();
    assert_eq!(exited.len(), 1, "{exited:?}");
    let at = exited[0]["at"].as_i64().unwrap();
    assert!(
        at >= before && at < restarted,
        "the exit is stamped when it happened ({at}), not at the restart ({restarted})"
    );
    env.wait_until("the holder ends once collected", || !alive(holder as i32));
}

#[test]
fn a_holder_too_slow_to_answer_keeps_its_pane_running_and_is_never_resumed_twice() {
    let mut env = Env::with_daemon();
    let pane = env.run(&["--", "sh", "-c", "echo $$ > p.pid; exec cat"]);
    let pid = read_pid(&env, "p.pid");
    let holder =
        nix::unistd::Pid::from_raw(support::holder_of(&env.state_dir(), &pane).unwrap() as i32);
    env.kill_daemon();
    nix::sys::signal::kill(holder, nix::sys::signal::Signal::SIGSTOP).unwrap();
    env.start_daemon();
    let v = env.show(&pane);
    assert_eq!(
        v["live"]["state"], "running",
        "a stalled holder's pane was given up: {v}"
    );
    let out = env.attend(&["resume", &pane]);
    assert!(
        !out.status.success(),
        "a second copy of the pane was started"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("still running"), "{err}");
    assert_eq!(
        support::holders_of(&env.state_dir()).len(),
        1,
        "one holder only"
    );
    nix::sys::signal::kill(holder, nix::sys::signal::Signal::SIGCONT).unwrap();
    env.kill_daemon();
    env.start_daemon();
    env.ok(&["kill", &pane, "--signal", "9"]);
    env.wait_pane(&pane, "ended", |v| v["live"]["state"] == "exited");
    assert!(!alive(pid));
}

#[test]
fn a_removed_runtime_directory_loses_no_pane() {
    let mut env = Env::with_daemon();
    let before = env.run(&["--", "sh", "-c", "echo $$ > a.pid; exec cat"]);
    let a = read_pid(&env, "a.pid");
    // As a logout without lingering, or a tidy-up, does.
    std::fs::remove_dir_all(env.spool_dir()).unwrap();
    let after = env.run(&["--", "sh", "-c", "echo $$ > b.pid; exec cat"]);
    let b = read_pid(&env, "b.pid");
    std::fs::remove_dir_all(env.spool_dir()).unwrap();
    env.kill_daemon();
    env.start_daemon();
    for (p, pid) in [(&before, a), (&after, b)] {
        assert_eq!(env.show(p)["live"]["state"], "running", "{p}");
        assert!(alive(pid));
        env.ok(&["send", p, "hi", "--enter"]);
        env.wait_until("the echo", || screen(&env, p).contains("hi\nhi"));
    }
}

/// The daemon's threads (`/proc/PID/task`).
fn threads(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .count()
}

/// The daemon reads every PTY in one reactor with a small parser pool
/// (docs/decisions/0010-one-reactor-for-all-ptys.md): its threads do not grow with the
/// panes, live or re-adopted, and every pane still echoes what it is sent.
#[test]
fn many_panes_are_read_with_a_fixed_number_of_daemon_threads() {
    const PANES: usize = 60;
    const MAX_THREADS: usize = 16;
    let mut env = Env::with_daemon();
    let panes: Vec<String> = (0..PANES).map(|_| env.run(&["--", "cat"])).collect();
    let echoes = |env: &Env, round: &str| {
        for (i, pane) in panes.iter().enumerate().step_by(7) {
            let text = format!("{round}-{i}");
            env.ok(&["send", pane, &format!("{text}\n")]);
            env.wait_until(&format!("{pane} echoes {text}"), || {
                screen(env, pane).contains(&text)
            });
        }
    };
    echoes(&env, "live");
    let n = threads(env.daemon_pid());
    assert!(
        n <= MAX_THREADS,
        "{n} daemon threads with {PANES} live panes (at most {MAX_THREADS})"
    );
    env.kill_daemon();
    env.start_daemon();
    for pane in &panes {
        env.wait_pane(pane, "re-adopted", |v| v["live"]["state"] == "running");
    }
    echoes(&env, "adopted");
    let n = threads(env.daemon_pid());
    assert!(
        n <= MAX_THREADS,
        "{n} daemon threads with {PANES} re-adopted panes (at most {MAX_THREADS})"
    );
}

/// A pane resized after it printed (as every attach does) is rebuilt at the sizes of its
/// time: lines printed at 80 columns stay cut at 40, not wrapped.
#[test]
fn a_resized_pane_is_rebuilt_as_it_was_shown() {
    let mut env = Env::with_daemon();
    let pane = env.run(&[
        "--",
        "sh",
        "-c",
        "for i in 1 2 3; do printf '%060d\\n' $i; done; echo wide; read x; echo narrow; exec cat",
    ]);
    env.wait_until("the wide output", || screen(&env, &pane).contains("wide"));
    env.attend1().resize(&pane, 12, 40).unwrap();
    env.ok(&["send", &pane, "go", "--enter"]);
    env.wait_until("the narrow output", || {
        screen(&env, &pane).contains("narrow")
    });
    let before = screen(&env, &pane);
    env.kill_daemon();
    env.start_daemon();
    // The new daemon re-adopts the holder and replays its history in the background: the
    // screen is read once that is done (a wrapped rebuild never equals `before`).
    env.wait_pane(&pane, "re-adopted", |v| v["live"]["state"] == "running");
    let rebuilt = support::poll(Duration::from_secs(10), || screen(&env, &pane) == before);
    assert!(
        rebuilt,
        "the screen is rebuilt as it was:\n{}\n--- was ---\n{before}",
        screen(&env, &pane)
    );
}
