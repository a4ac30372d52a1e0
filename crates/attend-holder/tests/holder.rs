//! The holder process against real PTYs: start-up, hand-over of the master, output kept
//! while no daemon is connected (byte-exact under the cap, newest bytes and a dropped
//! count over it), exit records, and refusal of another user.

use attend_holder::client::{self, Attached, Launcher, StartError};
use attend_holder::holder::Args;
use attend_holder::proto::ExitStatus;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(20);

/// Kills a test's holder and program at the end, whatever happened.
struct Reap(Vec<u32>);

impl Drop for Reap {
    fn drop(&mut self) {
        for pid in &self.0 {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(*pid as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

fn started(s: client::Started) -> Reap {
    Reap(vec![s.holder_pid, s.child_pid])
}

/// Every holder here is tied to this test process (`attend_holder::tether`): a killed test
/// run runs no [`Reap`], and its holders and programs end with it all the same.
fn tethered() -> [(std::ffi::OsString, std::ffi::OsString); 1] {
    [(
        attend_holder::tether::TETHER_ENV.into(),
        std::process::id().to_string().into(),
    )]
}

fn launcher() -> Launcher {
    Launcher {
        program: PathBuf::from(env!("CARGO_BIN_EXE_attend-holder")),
        pre_args: vec![],
    }
}

fn args(dir: &Path, script: &str, buffer: usize) -> Args {
    Args {
        socket: dir.join("p1.sock"),
        also_socket: None,
        state_dir: dir.join("state"),
        pane: 1,
        rows: 24,
        cols: 80,
        buffer,
        cwd: Some(dir.to_path_buf()),
        argv: vec!["sh".into(), "-c".into(), script.into()],
    }
}

fn file(a: &Attached) -> std::fs::File {
    std::fs::File::from(a.master.as_ref().expect("master").try_clone().unwrap())
}

/// Reads `a`'s master until `text` has arrived (after `seen`); returns all read.
fn read_until(a: &Attached, mut seen: Vec<u8>, text: &str) -> Vec<u8> {
    let mut f = file(a);
    let start = Instant::now();
    let mut buf = [0u8; 65536];
    while !String::from_utf8_lossy(&seen).contains(text) {
        assert!(
            start.elapsed() < WAIT,
            "no {text:?} in {:?}",
            String::from_utf8_lossy(&seen)
        );
        match f.read(&mut buf) {
            Ok(0) | Err(_) => panic!("output ended before {text:?}"),
            Ok(n) => seen.extend(&buf[..n]),
        }
    }
    seen
}

fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < WAIT, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_daemon_gets_the_master_the_input_and_the_exit() {
    let dir = tempfile::tempdir().unwrap();
    let a = args(
        dir.path(),
        r#"printf 'hello\n'; read x; printf 'got %s\n' "$x"; exit 3"#,
        1 << 20,
    );
    let started = client::start(&launcher(), &a, &tethered(), |_| {}).expect("start");
    let _reap = self::started(started);
    assert_ne!(started.holder_pid, started.child_pid);
    let mut conn = client::connect(&a.socket).expect("connect");
    assert_eq!(conn.hello.pane, 1);
    assert_eq!(conn.hello.child_pid, started.child_pid);
    assert_eq!(conn.hello.state_dir, a.state_dir);
    let backlog = std::mem::take(&mut conn.backlog);
    read_until(&conn, backlog, "hello");
    file(&conn).write_all(b"x\n").unwrap();
    read_until(&conn, vec![], "got x");
    let exit = conn.wait_exit().expect("exit");
    assert_eq!(exit.status, ExitStatus::Code(3));
    conn.collected().unwrap();
    wait_for("the holder to end and remove its socket", || {
        !a.socket.exists()
    });
}

#[test]
fn a_program_that_cannot_start_is_reported_with_its_errno() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(dir.path(), "", 1024);
    a.argv = vec!["/nonexistent/program".into()];
    match client::start(&launcher(), &a, &tethered(), |_| {}) {
        Err(StartError::Program(e)) => assert_eq!(e.raw_os_error(), Some(ENOENT)),
        other => panic!("{other:?}"),
    }
    assert!(!a.socket.exists(), "no socket left behind");
}

const ENOENT: i32 = 2;

/// Prints `n` numbered lines once released, then waits; returns the expected bytes.
fn numbered(n: usize) -> (String, Vec<u8>) {
    let script = format!(
        "read go; i=0; while [ $i -lt {n} ]; do echo \"line $i\"; i=$((i+1)); done; echo END; touch printed; read stay"
    );
    let mut expected = Vec::new();
    for i in 0..n {
        expected.extend(format!("line {i}\r\n").as_bytes());
    }
    expected.extend(b"END\r\n");
    (script, expected)
}

/// Releases the program, goes away (a daemon killed), waits until it printed everything
/// and comes back: what the holder kept plus what is still in the PTY.
fn through_an_outage(dir: &Path, buffer: usize, n: usize) -> (Reap, Attached, Vec<u8>, Vec<u8>) {
    let (script, expected) = numbered(n);
    let a = args(dir, &script, buffer);
    let reap = started(client::start(&launcher(), &a, &tethered(), |_| {}).expect("start"));
    let first = client::connect(&a.socket).expect("connect");
    file(&first).write_all(b"go\n").unwrap();
    drop(first);
    wait_for("the program to print", || dir.join("printed").exists());
    let mut again = client::connect(&a.socket).expect("reconnect");
    let kept = std::mem::take(&mut again.backlog);
    // The echo of "go" comes first; the rest is the program's output.
    let seen = read_until(&again, kept, "END\r\n");
    (reap, again, seen, expected)
}

#[test]
fn output_during_an_outage_comes_back_byte_exact_under_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let (_reap, conn, seen, expected) = through_an_outage(dir.path(), 1 << 20, 3000);
    assert_eq!(conn.hello.dropped, 0);
    let text = String::from_utf8(seen).unwrap();
    let start = text.find("line 0\r\n").expect("first line");
    assert_eq!(
        &text.as_bytes()[start..],
        &expected[..],
        "every line once, in order"
    );
}

#[test]
fn over_the_cap_the_newest_bytes_stay_and_the_dropped_ones_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let cap = 4096;
    let (_reap, conn, seen, expected) = through_an_outage(dir.path(), cap, 3000);
    let dropped = conn.hello.dropped as usize;
    assert!(dropped > 0, "the buffer overflowed");
    assert!(conn.hello.backlog as usize <= cap);
    // Everything before the kept bytes: the echoed "go" line and the dropped bytes.
    let echo = b"go\r\n".len();
    assert_eq!(
        dropped + seen.len(),
        echo + expected.len(),
        "kept + dropped = printed"
    );
    assert!(
        expected.ends_with(&seen),
        "the kept bytes are the newest, exact"
    );
}

#[test]
fn another_user_is_refused() {
    if nix::unistd::getuid().as_raw() != 0 {
        println!("skipped: needs root to connect as another user");
        return;
    }
    if let Some(sock) = std::env::var_os("HOLDER_TEST_PEER") {
        // Running as uid 65534: the holder must close without a word.
        let s = std::os::unix::net::UnixStream::connect(sock).unwrap();
        let mut b = [0u8; 1];
        s.set_read_timeout(Some(WAIT)).unwrap();
        assert_eq!(
            (&s).read(&mut b).unwrap(),
            0,
            "the holder answered another uid"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let a = args(dir.path(), "read x", 1024);
    let _reap = started(client::start(&launcher(), &a, &tethered(), |_| {}).expect("start"));
    std::fs::set_permissions(&a.socket, std::fs::Permissions::from_mode(0o777)).unwrap();
    use std::os::unix::process::CommandExt;
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "another_user_is_refused", "--nocapture"])
        .env("HOLDER_TEST_PEER", &a.socket)
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // The holder still serves its own user.
    let conn = client::connect(&a.socket).expect("connect as the owner");
    file(&conn).write_all(b"x\n").unwrap();
}

#[test]
fn a_program_that_closes_its_terminal_is_not_hung_up_while_no_daemon_is_connected() {
    let dir = tempfile::tempdir().unwrap();
    let a = args(
        dir.path(),
        "exec 0<&- 1>&- 2>&-; sleep 0.5; touch alive; exec sleep 100",
        1024,
    );
    let s = client::start(&launcher(), &a, &tethered(), |_| {}).expect("start");
    let _reap = started(s);
    wait_for("the program to live on", || {
        dir.path().join("alive").exists()
    });
    let conn = client::connect(&a.socket).expect("connect");
    assert!(conn.hello.exit.is_none(), "{:?}", conn.hello.exit);
    assert!(conn.master.is_some(), "the holder kept the master");
}
