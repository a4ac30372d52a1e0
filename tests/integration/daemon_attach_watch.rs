//! A *watch* connection to the attach socket (the panel's live terminal,
//! `docs/decisions/0017-panel-terminal-over-the-attach-socket.md`), against a real daemon:
//! it gets the pane's history before the redraw, its input reaches the program, and its
//! attach and focus frames are not the engine's focus (the pane keeps its attention);
//! dropping it detaches with the program running.

use crate::support;

use attend::client::attach::frame::ClientFrame;
use attend::client::attach::watch::{Watch, WatchEvent};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use support::Env;

/// Collects the watch's output until it contains `what`; panics on an end or a timeout.
fn until(rx: &mpsc::Receiver<WatchEvent>, seen: &mut String, what: &str) {
    let start = Instant::now();
    while !seen.contains(what) {
        let left = Duration::from_secs(20).saturating_sub(start.elapsed());
        match rx.recv_timeout(left) {
            Ok(WatchEvent::Output(bytes)) => seen.push_str(&String::from_utf8_lossy(&bytes)),
            Ok(WatchEvent::Attached) => {}
            Ok(other) => panic!("the watch ended: {other:?} before {what:?}; got {seen:?}"),
            Err(_) => panic!("no {what:?} in the watch's output: {seen:?}"),
        }
    }
}

#[test]
fn a_watch_gets_history_and_types_but_its_attach_and_focus_are_not_focus() {
    let env = Env::with_daemon();
    // 60 lines scroll off a 24-row screen into the pane's history.
    let p = env.run(&[
        "--",
        "sh",
        "-c",
        "for i in $(seq 1 60); do echo line-$i; done; echo ready; read x; echo \"got-$x\"; sleep 100",
    ]);
    env.wait_pane(&p, "unread output", |v| v["attention"] == "unread");
    let socket = env.attend1().attach(&p).expect("Attach");
    let (tx, rx) = mpsc::channel();
    let watch = Watch::start(socket.into(), p.clone(), 24, 80, move |e| {
        let _ = tx.send(e);
    });
    let mut seen = String::new();
    until(&rx, &mut seen, "ready");
    // The history comes first: the first lines, which left the screen long ago.
    let first = seen.find("line-1\u{1b}").or_else(|| seen.find("line-1\r"));
    assert!(first.is_some(), "no history in {seen:?}");
    assert!(first < seen.find("line-60"), "history before the screen");

    // Focus frames reach the program only; the pane is not focused, its attention stays.
    watch.send(ClientFrame::FocusIn);
    watch.send(ClientFrame::Input(b"hello\r".to_vec()));
    until(&rx, &mut seen, "got-hello");
    // GetPane is answered after the daemon applied what the connection reported before
    // the input (one command queue).
    let v = env.show(&p);
    assert_eq!(v["focused"], false, "{v}");
    assert_eq!(v["attention"], "unread", "{v}");

    // Dropping the watch detaches; the program runs on.
    drop(watch);
    let start = Instant::now();
    loop {
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(WatchEvent::Ended(None)) => break,
            Ok(WatchEvent::Output(_)) => {}
            other => panic!("after the detach: {other:?}"),
        }
        assert!(start.elapsed() < Duration::from_secs(20));
    }
    assert_eq!(env.show(&p)["live"]["state"], "running");
}
