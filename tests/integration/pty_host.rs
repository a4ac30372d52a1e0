//! The PTY host and attach (src/service/pty.rs, src/service/pty/attach.rs, src/client/attach.rs) with real PTYs.

use crate::support::pty;
use attend::adapters::terminal_signals::TerminalEvent;
use attend::client::attach::{run_attach_client_on, AttachError};
use attend::model::PaneId;
use attend::service::pty::attach::{AttachFocus, AttachServer, DEFAULT_DETACH_KEY};
use attend::service::pty::{event_channel, PtyEvent, PtyHandle, SpawnSpec};
use std::collections::HashMap;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::PermissionsExt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::Receiver;

const WAIT: Duration = Duration::from_secs(15);

fn sh(script: &str) -> SpawnSpec {
    SpawnSpec::new(
        vec!["sh".into(), "-c".into(), script.into()],
        std::env::temp_dir(),
    )
}

fn spawn(pane: u64, spec: &SpawnSpec) -> (PtyHandle, Receiver<PtyEvent>) {
    let (tx, rx) = event_channel();
    let handle = pty::start(PaneId(pane), spec, tx).expect("spawn");
    (handle, rx)
}

async fn next(rx: &mut Receiver<PtyEvent>) -> PtyEvent {
    tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("no PTY event in time")
        .expect("PTY channel closed")
}

/// Collects terminal events until `done` says so; returns them and whether any chunk was
/// printable. Panics on exit.
async fn events_until(
    rx: &mut Receiver<PtyEvent>,
    done: impl Fn(&[TerminalEvent], bool) -> bool,
) -> (Vec<TerminalEvent>, bool) {
    let mut all = Vec::new();
    let mut printable_seen = false;
    loop {
        match next(rx).await {
            PtyEvent::Output {
                events, printable, ..
            } => {
                all.extend(events);
                printable_seen |= printable;
                if done(&all, printable_seen) {
                    return (all, printable_seen);
                }
            }
            other => panic!("unexpected {other:?} after {all:?}"),
        }
    }
}

/// Skips output until the exit; returns (code, signal).
async fn exit_of(rx: &mut Receiver<PtyEvent>) -> (Option<i32>, Option<i32>) {
    loop {
        if let PtyEvent::Exited { code, signal, .. } = next(rx).await {
            return (code, signal);
        }
    }
}

/// Test-only wait for a condition the code under test reaches asynchronously.
fn eventually(what: &str, cond: impl Fn() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < WAIT, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn handles_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync + Clone>() {}
    assert_send_sync::<PtyHandle>();
}

#[tokio::test]
async fn bell_printable_then_exit_code_3() {
    let (pty, mut rx) = spawn(1, &sh(r#"printf "hello\a"; read x; exit 3"#));
    assert!(pty.pid().is_some());
    let (events, printable) =
        events_until(&mut rx, |ev, p| p && ev.contains(&TerminalEvent::Bell)).await;
    assert!(printable);
    assert_eq!(
        events.iter().filter(|e| **e == TerminalEvent::Bell).count(),
        1
    );
    assert!(pty.exit_status().is_none());
    pty.write(b"\n").unwrap();
    assert_eq!(exit_of(&mut rx).await, (Some(3), None));
    let exit = pty.exit_status().unwrap();
    assert_eq!((exit.code, exit.signal), (Some(3), None));
    assert!(pty.screen_text().contains("hello"));
}

#[tokio::test]
async fn kill_9_reports_the_signal() {
    let (pty, mut rx) = spawn(2, &SpawnSpec::new(vec!["sleep".into(), "30".into()], "/"));
    pty.kill(9).unwrap();
    assert_eq!(exit_of(&mut rx).await, (None, Some(9)));
    let err = pty.kill(15).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(nix::libc::ESRCH), "{err}");
}

#[tokio::test]
async fn kill_rejects_a_non_signal() {
    let (pty, mut rx) = spawn(3, &SpawnSpec::new(vec!["sleep".into(), "30".into()], "/"));
    assert_eq!(
        pty.kill(1000).unwrap_err().kind(),
        std::io::ErrorKind::InvalidInput
    );
    pty.kill(0).expect("signal 0 probes a live process");
    pty.kill(15).unwrap();
    assert_eq!(exit_of(&mut rx).await, (None, Some(15)));
}

#[tokio::test]
async fn missing_program_error_names_it() {
    let (tx, _rx) = event_channel();
    let spec = SpawnSpec::new(vec!["nosuchprog-attend-test".into()], "/");
    let err = pty::start(PaneId(4), &spec, tx.clone()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot spawn `nosuchprog-attend-test`: No such file or directory (os error 2)"
    );
    let spec = SpawnSpec::new(vec!["/nonexistent/prog".into()], "/");
    let err = pty::start(PaneId(4), &spec, tx.clone()).unwrap_err();
    assert!(
        err.to_string()
            .contains("`/nonexistent/prog`: No such file"),
        "{err}"
    );
    let spec = SpawnSpec::new(vec!["sh".into()], "/nonexistent-dir");
    let err = pty::start(PaneId(4), &spec, tx.clone()).unwrap_err();
    assert!(err.to_string().contains("/nonexistent-dir"), "{err}");
    let spec = SpawnSpec::new(vec![], "/");
    assert!(pty::start(PaneId(4), &spec, tx).is_err());
}

#[tokio::test]
async fn osc_9_split_across_two_writes() {
    let (pty, mut rx) = spawn(
        5,
        &sh(r#"printf '\033]9;hel'; sleep 0.3; printf 'lo world\007'; read x"#),
    );
    // The first half arrives alone and gives nothing yet.
    assert_eq!(
        next(&mut rx).await,
        PtyEvent::Output {
            pane: PaneId(5),
            events: vec![],
            printable: false
        }
    );
    let (events, _) = events_until(&mut rx, |ev, _| !ev.is_empty()).await;
    assert_eq!(
        events,
        vec![TerminalEvent::Notification {
            title: None,
            body: "hello world".into()
        }]
    );
    pty.kill(9).unwrap();
    exit_of(&mut rx).await;
}

#[tokio::test]
async fn screen_text_env_and_bottom_lines() {
    let mut spec = sh(r#"printf 'one\ntwo\n\nthree %s|%s\n' "$ATTEND_PANE" "$TERM"; read x"#);
    spec.env.push(("ATTEND_PANE".into(), "p6".into()));
    let (pty, mut rx) = spawn(6, &spec);
    events_until(&mut rx, |_, _| pty.screen_text().contains("three")).await;
    let text = pty.screen_text();
    assert!(
        text.contains("one\ntwo\n\nthree p6|xterm-256color"),
        "{text:?}"
    );
    assert_eq!(
        pty.screen_bottom_lines(2),
        vec!["two".to_string(), "three p6|xterm-256color".into()]
    );
    assert_eq!(pty.screen_bottom_lines(10).len(), 3);
    assert_eq!(pty.size(), (24, 80));
    pty.kill(9).unwrap();
    exit_of(&mut rx).await;
}

#[tokio::test]
async fn bottom_lines_never_come_from_scrollback() {
    let mut spec = sh(
        r#"i=0; while [ $i -lt 10 ]; do echo old$i; i=$((i+1)); done; printf '\033[2J\033[Hnew\n'; read x"#,
    );
    spec.rows = 5;
    let (pty, mut rx) = spawn(7, &spec);
    events_until(&mut rx, |_, _| pty.screen_text().contains("new")).await;
    assert_eq!(pty.screen_bottom_lines(5), vec!["new".to_string()]);
    pty.kill(9).unwrap();
    exit_of(&mut rx).await;
}

#[tokio::test]
async fn invalid_utf8_output_does_not_panic() {
    let (pty, mut rx) = spawn(
        8,
        &sh(r#"printf '\377\376\300\033]0;\377\007 ok\n'; exit 0"#),
    );
    let (code, signal) = exit_of(&mut rx).await;
    assert_eq!((code, signal), (Some(0), None));
    assert!(pty.screen_text().contains("ok"));
}

#[tokio::test]
async fn exited_comes_after_all_output() {
    let (pty, mut rx) = spawn(
        9,
        &sh(r#"i=0; while [ $i -lt 3000 ]; do echo line$i; i=$((i+1)); done; exit 0"#),
    );
    assert_eq!(exit_of(&mut rx).await, (Some(0), None));
    let lines = pty.screen_bottom_lines(1);
    assert_eq!(lines, vec!["line2999".to_string()]);
    assert!(rx.try_recv().is_err(), "nothing after Exited");
}

/// Every pane runs in a holder (`docs/decisions/0009-pane-holders.md`): dropping the
/// daemon's last handle leaves the program running, for the next daemon to adopt.
#[tokio::test]
async fn dropping_the_last_handle_leaves_the_program_to_its_holder() {
    use nix::sys::signal::{kill, killpg, Signal};
    use nix::unistd::Pid;
    let (pty, _rx) = spawn(10, &SpawnSpec::new(vec!["sleep".into(), "30".into()], "/"));
    let pid = Pid::from_raw(pty.pid().expect("a pid") as i32);
    let clone = pty.clone();
    drop(pty);
    clone.kill(0).expect("a clone keeps it running");
    drop(clone);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(kill(pid, None).is_ok(), "the program runs on in its holder");
    killpg(pid, Signal::SIGKILL).unwrap();
}

#[tokio::test]
async fn resize_reaches_the_program() {
    let (pty, mut rx) = spawn(11, &sh("read x; stty size; read y"));
    pty.resize(30, 100).unwrap();
    assert_eq!(pty.size(), (30, 100));
    assert!(pty.resize(0, 10).is_err());
    pty.write(b"\n").unwrap();
    events_until(&mut rx, |_, _| pty.screen_text().contains("30 100")).await;
    pty.kill(9).unwrap();
    exit_of(&mut rx).await;
}

#[tokio::test]
async fn focus_reporting_is_tracked() {
    let (pty, mut rx) = spawn(
        12,
        &sh(r#"printf '\033[?1004;2004h'; read x; printf '\033[?1004l'; read y"#),
    );
    events_until(&mut rx, |ev, _| {
        ev.contains(&TerminalEvent::FocusReporting(true))
    })
    .await;
    assert!(pty.wants_focus_events());
    pty.write(b"\n").unwrap();
    events_until(&mut rx, |ev, _| {
        ev.contains(&TerminalEvent::FocusReporting(false))
    })
    .await;
    assert!(!pty.wants_focus_events());
    pty.kill(9).unwrap();
    exit_of(&mut rx).await;
}

#[tokio::test]
async fn subscribers_get_raw_output_and_see_the_end() {
    let (pty, mut rx) = spawn(13, &sh(r#"read x; printf '\033]0;t\007raw'; exit 0"#));
    let (redraw, mut sub) = pty.subscribe_with_redraw();
    assert!(!redraw.is_empty());
    pty.write(b"\n").unwrap();
    assert_eq!(exit_of(&mut rx).await, (Some(0), None));
    let mut got = Vec::new();
    loop {
        match tokio::time::timeout(WAIT, sub.recv()).await.unwrap() {
            Ok(chunk) => got.extend_from_slice(&chunk),
            Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            Err(e) => panic!("{e}"),
        }
    }
    let got = String::from_utf8_lossy(&got);
    assert!(got.contains("\x1b]0;t\x07raw"), "{got:?}");
    // After the exit, a new subscription is closed at once.
    assert!(matches!(
        pty.subscribe().recv().await,
        Err(tokio::sync::broadcast::error::RecvError::Closed)
    ));
}

/// Reads the outer terminal (PTY master) into a shared buffer until it closes.
fn drain(master: OwnedFd) -> Arc<Mutex<Vec<u8>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let out = seen.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = nix::unistd::read(&master, &mut buf) {
            out.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    seen
}

fn contains(seen: &Mutex<Vec<u8>>, needle: &str) -> bool {
    String::from_utf8_lossy(&seen.lock().unwrap()).contains(needle)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attach_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("attend").join("attach.sock");

    let (pty, mut rx) = spawn(
        1,
        &sh(r#"printf 'before-attach\n'; while read line; do echo "got:$line"; done"#),
    );
    events_until(&mut rx, |_, _| pty.screen_text().contains("before-attach")).await;

    let registry: Arc<Mutex<HashMap<PaneId, PtyHandle>>> = Arc::default();
    registry.lock().unwrap().insert(PaneId(1), pty.clone());
    let focus: Arc<Mutex<Vec<(PaneId, AttachFocus)>>> = Arc::default();
    let server = AttachServer::bind(&socket).unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&socket), 0o600);
    assert_eq!(mode(socket.parent().unwrap()), 0o700);
    let lookup = {
        let registry = registry.clone();
        move |id: PaneId| registry.lock().unwrap().get(&id).cloned()
    };
    let on_focus = {
        let focus = focus.clone();
        move |id: PaneId, f: AttachFocus| focus.lock().unwrap().push((id, f))
    };
    let served = tokio::spawn(server.serve(lookup, on_focus));

    // Unknown pane: refused with the daemon's text; the terminal is left alone.
    let outer = nix::pty::openpty(None, None).unwrap();
    let sock = socket.clone();
    let refused = tokio::task::spawn_blocking(move || {
        run_attach_client_on(
            &sock,
            "p9",
            DEFAULT_DETACH_KEY,
            outer.slave.as_fd(),
            outer.slave.as_fd(),
        )
    })
    .await
    .unwrap();
    assert!(
        matches!(&refused, Err(AttachError::Refused(t)) if t == "unknown pane p9"),
        "{refused:?}"
    );

    // The outer terminal: a PTY pair, 20×70; the client runs on its slave side.
    let size = nix::pty::Winsize {
        ws_row: 20,
        ws_col: 70,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let outer = nix::pty::openpty(&size, None).unwrap();
    let cooked = nix::sys::termios::tcgetattr(&outer.slave).unwrap();
    let master_writer = outer.master.try_clone().unwrap();
    let seen = drain(outer.master);
    let slave = outer.slave;
    let sock = socket.clone();
    let client = std::thread::spawn(move || {
        let code = run_attach_client_on(
            &sock,
            "p1",
            DEFAULT_DETACH_KEY,
            slave.as_fd(),
            slave.as_fd(),
        );
        (code, slave)
    });

    // The redraw carries the output from before the attach; the pane takes the size.
    eventually("the redraw", || contains(&seen, "before-attach"));
    assert!(
        contains(&seen, "\x1b[?1004h"),
        "focus reporting enabled on the outer terminal"
    );
    assert_eq!(pty.size(), (20, 70));
    eventually("attached", || {
        focus
            .lock()
            .unwrap()
            .contains(&(PaneId(1), AttachFocus::Attached))
    });

    // Typed input reaches the program; its echo comes back to the outer terminal.
    let type_keys = |bytes: &[u8]| {
        nix::unistd::write(&master_writer, bytes).unwrap();
    };
    type_keys(b"hello\r");
    eventually("program output", || pty.screen_text().contains("got:hello"));
    eventually("echo on the outer terminal", || {
        contains(&seen, "got:hello")
    });

    // Focus reports become focus frames and are not typed into a program that did not
    // ask for them.
    type_keys(b"\x1b[I");
    eventually("focus in", || {
        focus
            .lock()
            .unwrap()
            .contains(&(PaneId(1), AttachFocus::FocusIn))
    });
    type_keys(b"x\r");
    eventually("second line", || pty.screen_text().contains("got:x"));
    assert!(!pty.screen_text().contains("[I"), "{}", pty.screen_text());

    // SIGWINCH on the client side sends the outer terminal's new size.
    let bigger = nix::pty::Winsize {
        ws_row: 33,
        ws_col: 90,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCSWINSZ reads one winsize from the pointer.
    let rc = unsafe {
        nix::libc::ioctl(
            std::os::fd::AsRawFd::as_raw_fd(&master_writer),
            nix::libc::TIOCSWINSZ,
            &bigger,
        )
    };
    assert_eq!(rc, 0);
    nix::sys::signal::raise(nix::sys::signal::Signal::SIGWINCH).unwrap();
    eventually("resize", || pty.size() == (33, 90));

    // The detach key ends the client with 0 and leaves the program running.
    type_keys(&[DEFAULT_DETACH_KEY]);
    let (code, slave) = client.join().unwrap();
    assert_eq!(code.unwrap(), 0);
    eventually("detached", || {
        focus
            .lock()
            .unwrap()
            .contains(&(PaneId(1), AttachFocus::Detached))
    });
    assert!(pty.exit_status().is_none());
    pty.kill(0).expect("still running");
    let restored = nix::sys::termios::tcgetattr(&slave).unwrap();
    assert_eq!(restored.local_flags, cooked.local_flags, "raw mode undone");
    assert_eq!(restored.input_flags, cooked.input_flags);
    eventually("focus reporting disabled", || {
        contains(&seen, "\x1b[?1004l")
    });

    // The pane still answers after the detach.
    pty.write(b"again\n").unwrap();
    eventually("still alive", || pty.screen_text().contains("got:again"));

    pty.kill(9).unwrap();
    assert_eq!(exit_of(&mut rx).await.1, Some(9));
    served.abort();
    let _ = served.await;
    assert!(!socket.exists(), "dropping the server removes the socket");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attach_client_returns_the_exit_code_of_the_program() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("a").join("s.sock");
    let (pty, mut rx) = spawn(2, &sh("read x; exit 7"));
    let shared = pty.clone();
    let server = AttachServer::bind(&socket).unwrap();
    let served = tokio::spawn(server.serve(
        move |id| (id == PaneId(2)).then(|| shared.clone()),
        |_, _| {},
    ));
    let outer = nix::pty::openpty(None, None).unwrap();
    let writer = outer.master.try_clone().unwrap();
    let seen = drain(outer.master);
    let slave = outer.slave;
    let client = std::thread::spawn(move || {
        run_attach_client_on(
            &socket,
            "p2",
            DEFAULT_DETACH_KEY,
            slave.as_fd(),
            slave.as_fd(),
        )
    });
    eventually("attached", || contains(&seen, "\x1b[?1004h"));
    nix::unistd::write(&writer, b"\r").unwrap();
    assert_eq!(client.join().unwrap().unwrap(), 7);
    assert_eq!(exit_of(&mut rx).await, (Some(7), None));
    served.abort();
}

#[tokio::test]
async fn history_keeps_the_rows_that_scrolled_off() {
    let mut spec = SpawnSpec::new(
        vec![
            "sh".into(),
            "-c".into(),
            r#"i=0; while [ $i -lt 300 ]; do printf '\033[31mred\033[0m %s\n' $i; i=$((i+1)); done"#
                .into(),
        ],
        std::env::temp_dir(),
    );
    spec.rows = 5;
    spec.scrollback = 100;
    let (tx, mut rx) = event_channel();
    let pty = pty::start(PaneId(1), &spec, tx).expect("spawn");
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(15), rx.recv())
            .await
            .expect("exit in time")
            .expect("channel open");
        if matches!(ev, PtyEvent::Exited { .. }) {
            break;
        }
    }
    // 300 lines and the empty last row on 5 rows: lines 0 to 295 scrolled off.
    let history = pty.history(1000);
    assert_eq!(history.len(), 100);
    assert_eq!(history[99], b"\x1b[31mred\x1b[m 295".to_vec());
    assert_eq!(history[0], b"\x1b[31mred\x1b[m 196".to_vec());
    assert_eq!(pty.screen_bottom_lines(1), vec!["red 299".to_string()]);
}

/// A bounded queue that nobody reads for longer than the exit grace: the program's
/// output waits in the pipeline, and its exit is still reported after all of it.
#[tokio::test]
async fn a_slow_owner_holds_the_output_back_and_still_gets_the_exit_last() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..40_000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(dir.path().join("out.txt"), text).unwrap();
    let spec = SpawnSpec::new(
        vec!["cat".into(), "out.txt".into()],
        dir.path().to_path_buf(),
    );
    let (tx, mut rx) = tokio::sync::mpsc::channel(1);
    let pty = pty::start(PaneId(1), &spec, tx).expect("spawn");
    // `cat` exits at once; the parser waits for room in the queue meanwhile.
    tokio::time::sleep(attend::service::pty::EXIT_DRAIN_GRACE * 3).await;
    let mut outputs = 0;
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(15), rx.recv())
            .await
            .expect("events in time")
            .expect("channel open");
        match ev {
            PtyEvent::Output { .. } => outputs += 1,
            PtyEvent::Exited { code, .. } => {
                assert_eq!(code, Some(0));
                break;
            }
        }
    }
    assert!(
        outputs >= 2,
        "the output came in several batches: {outputs}"
    );
    assert_eq!(
        pty.screen_bottom_lines(1),
        vec!["line 39999".to_string()],
        "the exit came after the last output"
    );
    assert!(rx.try_recv().is_err(), "nothing after the exit");
}
