//! The three threads of a PTY: the reader (chunk → scanner → parser queue), the parser
//! (screen, broadcast, one `Output` per batch) and the waiter (reap, drain, `Exited`).
//! See src/service/pty.rs for how they hand over and wait.

use super::events::{EventTx, PtyEvent, PtyExit};
use super::shared::{lock, Shared};
use crate::adapters::terminal::{TerminalEvent, TerminalScanner};
use crate::model::PaneId;
use nix::sys::wait::{waitpid, WaitStatus};
use nix::unistd::Pid;
use std::io::{self, Read};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// How long, after the child exited, the waiter lets the reader drain output before it
/// reports the exit anyway (a background process may keep the terminal open forever).
pub const EXIT_DRAIN_GRACE: Duration = Duration::from_secs(1);

/// Bytes read from the PTY master at once.
const READ_CHUNK: usize = 16 * 1024;

/// One read chunk on its way from the reader to the parser.
pub struct Chunk {
    /// What the screen gets (the scanner's filtered bytes).
    screen: Vec<u8>,
    /// The raw bytes for attach clients; `None` when the same as `screen` (nothing was
    /// filtered out).
    raw: Option<Vec<u8>>,
    events: Vec<TerminalEvent>,
    printable: bool,
}

/// The reader thread: chunk → scanner → parser queue.
pub fn read_loop(
    mut reader: Box<dyn Read + Send>,
    shared: &Shared,
    chunks: std::sync::mpsc::SyncSender<Chunk>,
) {
    let mut scanner = TerminalScanner::new();
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let raw = &buf[..n];
        let mut events = Vec::new();
        let mut screen = Vec::with_capacity(n);
        let printable = scanner.feed_filtered(raw, &mut events, &mut screen);
        for ev in &events {
            if let TerminalEvent::FocusReporting(on) = ev {
                shared.wants_focus.store(*on, Ordering::Relaxed);
            }
        }
        let raw = (screen.len() != n).then(|| raw.to_vec());
        let chunk = Chunk {
            screen,
            raw,
            events,
            printable,
        };
        if chunks.send(chunk).is_err() {
            break;
        }
    }
}

/// Most bytes one batch takes from the queue, so that a redraw or a subscriber never
/// waits long for the lock.
const MAX_BATCH_BYTES: usize = 4 * 1024 * 1024;

/// The parser thread: every queued chunk at once → screen + broadcast → one `Output`.
pub fn parse_loop(
    pane: PaneId,
    chunks: std::sync::mpsc::Receiver<Chunk>,
    shared: &Shared,
    tx: &EventTx,
    eof: std::sync::mpsc::Sender<()>,
) {
    while let Ok(first) = chunks.recv() {
        let mut batch = vec![first];
        let mut size = batch[0].screen.len();
        while size < MAX_BATCH_BYTES {
            match chunks.try_recv() {
                Ok(c) => {
                    size += c.screen.len();
                    batch.push(c);
                }
                Err(_) => break,
            }
        }
        let joined: Vec<u8>;
        let bytes = match batch.as_slice() {
            [one] => &one.screen,
            many => {
                joined = many.iter().flat_map(|c| c.screen.iter().copied()).collect();
                &joined
            }
        };
        let mut events = Vec::new();
        let mut printable = false;
        {
            let mut screen = lock(&shared.screen);
            screen.term.feed(bytes);
            let live = screen.broadcast.as_ref().filter(|b| b.receiver_count() > 0);
            for c in batch {
                if let Some(b) = live {
                    let raw = c.raw.as_deref().unwrap_or(&c.screen);
                    // A subscriber that went away meanwhile is not an error.
                    let _ = b.send(Arc::from(raw));
                }
                events.extend(c.events);
                printable |= c.printable;
            }
        }
        // Waits while the owner is behind (back-pressure, see the module docs).
        shared.held_up.store(true, Ordering::SeqCst);
        let _ = tx.blocking_send(PtyEvent::Output {
            pane,
            events,
            printable,
        });
        shared.held_up.store(false, Ordering::SeqCst);
    }
    let _ = eof.send(());
}

/// The waiter thread: reap the child, let the reader drain, report the exit.
pub fn wait_loop(
    pane: PaneId,
    pid: Option<u32>,
    shared: &Shared,
    tx: &EventTx,
    eof: std::sync::mpsc::Receiver<()>,
) {
    let exit = match pid {
        Some(pid) => {
            let exit = reap(Pid::from_raw(pid as i32));
            shared.reaped.store(true, Ordering::SeqCst);
            exit
        }
        None => {
            // Without a pid the end of output is the only sign of exit.
            let _ = eof.recv();
            PtyExit {
                code: None,
                signal: None,
            }
        }
    };
    // The grace is for a background process that keeps the terminal open; output merely
    // held up by a busy owner is waited for, so that the exit still comes after it.
    while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = eof.recv_timeout(EXIT_DRAIN_GRACE) {
        if !shared.held_up.load(Ordering::SeqCst) {
            break;
        }
    }
    *lock(&shared.exit) = Some(exit);
    lock(&shared.screen).broadcast = None;
    let _ = tx.blocking_send(PtyEvent::Exited {
        pane,
        code: exit.code,
        signal: exit.signal,
    });
}

/// Blocks until `pid` terminates; its exit code or killing signal.
pub fn reap(pid: Pid) -> PtyExit {
    loop {
        match waitpid(pid, None) {
            Ok(WaitStatus::Exited(_, code)) => {
                return PtyExit {
                    code: Some(code),
                    signal: None,
                }
            }
            Ok(WaitStatus::Signaled(_, sig, _)) => {
                return PtyExit {
                    code: None,
                    signal: Some(sig as i32),
                }
            }
            Ok(_) | Err(nix::errno::Errno::EINTR) => continue,
            // Reaped elsewhere (e.g. SIGCHLD ignored): the status is lost.
            Err(_) => {
                return PtyExit {
                    code: None,
                    signal: None,
                }
            }
        }
    }
}
