//! The three threads of a PTY: the reader (chunk → scanner → screen log of a held pane →
//! parser queue), the parser
//! (screen, broadcast, one `Output` per batch, then `Exited`) and the waiter (reap, let the
//! reader drain, queue the exit behind the output: src/service/pty/drain.rs).
//! See src/service/pty.rs for how they hand over and wait.

use super::drain::{self, Chunk, Parse};
use super::events::{EventTx, PtyEvent, PtyExit};
use super::priority;
use super::screen_log::ScreenLog;
use super::shared::{lock, Shared};
use crate::adapters::terminal::{TerminalEvent, TerminalScanner};
use crate::model::PaneId;
use nix::sys::wait::{waitpid, WaitStatus};
use nix::unistd::Pid;
use std::io::{self, Read};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Bytes read from the PTY master at once.
const READ_CHUNK: usize = 16 * 1024;

/// The reader thread: chunk → scanner → parser queue; `eof` once all is queued.
pub fn read_loop(
    mut reader: Box<dyn Read + Send>,
    shared: &Shared,
    chunks: std::sync::mpsc::SyncSender<Parse>,
    eof: std::sync::mpsc::Sender<()>,
    mut log: Option<ScreenLog>,
) {
    priority::lower_this_thread();
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
        if let Some(log) = log.as_mut() {
            log.append(&screen);
        }
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
        if !shared.backlog.send(&chunks, Parse::Chunk(chunk)) {
            break;
        }
    }
    let _ = eof.send(());
}

/// Most bytes one batch takes from the queue, so that a redraw or a subscriber never
/// waits long for the lock.
const MAX_BATCH_BYTES: usize = 4 * 1024 * 1024;

/// The parser thread: every queued chunk at once → screen + broadcast → one `Output`;
/// an exit queued behind them → `Exited` (src/service/pty/drain.rs). It alone sends the
/// pane's events, so they reach the owner in this order.
pub fn parse_loop(
    pane: PaneId,
    queue: std::sync::mpsc::Receiver<Parse>,
    shared: &Shared,
    tx: &EventTx,
) {
    priority::lower_this_thread();
    while let Ok(first) = queue.recv() {
        let (mut batch, mut size, mut exit) = (Vec::new(), 0, None);
        let mut next = Some(first);
        while let Some(msg) = next.take() {
            match msg {
                Parse::Chunk(c) => {
                    size += c.screen.len();
                    batch.push(c);
                }
                Parse::Exit(e) => {
                    exit = Some(e);
                    break;
                }
            }
            if size < MAX_BATCH_BYTES {
                next = queue.try_recv().ok();
            }
        }
        if !batch.is_empty() {
            output(pane, batch, shared, tx);
        }
        if let Some(exit) = exit {
            *lock(&shared.exit) = Some(exit);
            lock(&shared.screen).broadcast = None;
            let _ = tx.blocking_send(PtyEvent::Exited {
                pane,
                code: exit.code,
                signal: exit.signal,
            });
        }
    }
}

/// One batch of chunks → screen + broadcast → one `Output` (waiting while the owner is
/// behind: back-pressure, see the module docs of src/service/pty.rs).
fn output(pane: PaneId, batch: Vec<Chunk>, shared: &Shared, tx: &EventTx) {
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
    let _ = tx.blocking_send(PtyEvent::Output {
        pane,
        events,
        printable,
    });
}

/// The waiter thread: reap the child, let the reader drain, queue the exit behind the
/// output (src/service/pty/drain.rs).
pub fn wait_loop(
    pid: Option<u32>,
    shared: &Shared,
    queue: std::sync::mpsc::SyncSender<Parse>,
    eof: std::sync::mpsc::Receiver<()>,
) {
    let exit = match pid {
        Some(pid) => {
            let exit = reap(Pid::from_raw(pid as i32));
            shared.reaped.store(true, Ordering::SeqCst);
            drain::wait_for_output(&eof, &shared.backlog);
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
    let _ = queue.send(Parse::Exit(exit));
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
