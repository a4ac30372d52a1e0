//! `attend attach` through a real PTY pair, the test being the outer terminal: the client
//! with its terminal's master side and screen, and the detach key.

use super::{Env, TIMEOUT};
use nix::pty::openpty;
use std::io::{Read, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Reads from the terminal's master side on a thread; `until` waits for `needle`.
pub struct Screen {
    rx: mpsc::Receiver<Vec<u8>>,
    seen: Vec<u8>,
}

impl Screen {
    pub fn until(&mut self, needle: &str) {
        let start = Instant::now();
        while start.elapsed() < TIMEOUT {
            if String::from_utf8_lossy(&self.seen).contains(needle) {
                return;
            }
            if let Ok(chunk) = self.rx.recv_timeout(Duration::from_millis(100)) {
                self.seen.extend(chunk);
            }
        }
        panic!(
            "the attached terminal never showed {needle:?}; it showed {:?}",
            String::from_utf8_lossy(&self.seen)
        );
    }
}

/// `attend attach PANE` on a fresh PTY pair: the client, the terminal's master side and
/// its screen.
pub fn attach(env: &Env, pane: &str) -> (std::process::Child, std::fs::File, Screen) {
    let pty = openpty(None, None).unwrap();
    let slave = pty.slave;
    let child = env
        .cmd()
        .args(["attach", pane])
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(slave);
    let master = std::fs::File::from(pty.master);
    let mut reader = master.try_clone().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let screen = Screen {
        rx,
        seen: Vec::new(),
    };
    (child, master, screen)
}

/// Presses the detach key (Ctrl-\\) and waits for the client: its status and stderr.
pub fn detach(
    child: &mut std::process::Child,
    master: &mut std::fs::File,
) -> (std::process::ExitStatus, String) {
    master.write_all(&[0x1c]).unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed() < TIMEOUT, "attend attach did not detach");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status, err)
}
