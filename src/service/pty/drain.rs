//! The order of a pane's last output and its exit (src/service/pty.rs module docs).
//!
//! The reader and the waiter both hand their work to the parser through the one parse
//! queue ([`Parse`]), and only the parser sends [`super::events::PtyEvent`]s, so the exit can never
//! overtake output that was read before it: the owner's queue holds one pane's events in
//! the order the parser sent them.
//!
//! When to report the exit is the waiter's call ([`wait_for_output`]): once the reader
//! reached end of file (every byte of the program is queued), or once
//! [`EXIT_DRAIN_GRACE`] passed without the reader reaching it and without it
//! waiting for room in the parse queue (a background process keeps the terminal open).
//! Time the reader spends waiting for room (a busy owner holds the parser, the queue
//! fills) does not count: that output belongs before the exit. [`Backlog`] tells the two
//! apart without sampling a flag at one instant, which is what let a busy owner see an
//! output after the exit before.

use super::events::PtyExit;
use crate::adapters::terminal::TerminalEvent;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::time::Duration;

/// How long, after the child exited, the waiter lets the reader drain output before it
/// reports the exit anyway (a background process may keep the terminal open forever);
/// time the reader waits for room in the parse queue does not count.
pub const EXIT_DRAIN_GRACE: Duration = Duration::from_secs(1);

/// One read chunk on its way from the reader to the parser.
pub(super) struct Chunk {
    /// What the screen gets (the scanner's filtered bytes).
    pub(super) screen: Vec<u8>,
    /// The raw bytes for attach clients; `None` when the same as `screen` (nothing was
    /// filtered out).
    pub(super) raw: Option<Vec<u8>>,
    pub(super) events: Vec<TerminalEvent>,
    pub(super) printable: bool,
}

/// What the parser takes from its queue, in the order it was queued.
pub(super) enum Parse {
    /// Output read from the PTY.
    Chunk(Chunk),
    /// The program ended: the parser sends the output queued before this, then the exit.
    Exit(PtyExit),
}

/// How often the reader waited for room in the parse queue: a counter that is odd while
/// it waits. Unchanged and even over a whole grace means it never waited meanwhile.
#[derive(Default)]
pub(super) struct Backlog {
    waits: AtomicU64,
}

impl Backlog {
    /// Queues `msg` for the parser from the reader, counting the wait when the queue is
    /// full. False once the parser is gone.
    pub(super) fn send(&self, queue: &SyncSender<Parse>, msg: Parse) -> bool {
        match queue.try_send(msg) {
            Ok(()) => true,
            Err(TrySendError::Disconnected(_)) => false,
            Err(TrySendError::Full(msg)) => {
                self.waits.fetch_add(1, Ordering::SeqCst);
                let sent = queue.send(msg).is_ok();
                self.waits.fetch_add(1, Ordering::SeqCst);
                sent
            }
        }
    }

    fn waits(&self) -> u64 {
        self.waits.load(Ordering::SeqCst)
    }
}

/// The waiter, after the child exited: returns once the reader signalled end of file on
/// `eof` (or is gone), or once a whole [`EXIT_DRAIN_GRACE`] passed in which the reader
/// never waited for room in the parse queue (see the module docs).
pub(super) fn wait_for_output(eof: &Receiver<()>, backlog: &Backlog) {
    let mut seen = backlog.waits();
    while let Err(RecvTimeoutError::Timeout) = eof.recv_timeout(EXIT_DRAIN_GRACE) {
        let now = backlog.waits();
        if now == seen && now % 2 == 0 {
            return;
        }
        seen = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{channel, sync_channel};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    fn exit() -> Parse {
        Parse::Exit(PtyExit {
            code: Some(0),
            signal: None,
        })
    }

    #[test]
    fn end_of_file_ends_the_wait_at_once() {
        let (tx, rx) = channel();
        tx.send(()).unwrap();
        let start = Instant::now();
        wait_for_output(&rx, &Backlog::default());
        assert!(start.elapsed() < EXIT_DRAIN_GRACE);
    }

    #[test]
    fn a_silent_open_terminal_ends_the_wait_after_one_grace() {
        let (_tx, rx) = channel::<()>();
        let start = Instant::now();
        wait_for_output(&rx, &Backlog::default());
        let took = start.elapsed();
        assert!(
            took >= EXIT_DRAIN_GRACE && took < EXIT_DRAIN_GRACE * 2,
            "{took:?}"
        );
    }

    /// A reader held up by a full parse queue keeps the waiter waiting, however long.
    #[test]
    fn a_reader_waiting_for_room_holds_the_exit_back() {
        let backlog = Arc::new(Backlog::default());
        let (queue, parser) = sync_channel(1);
        assert!(backlog.send(&queue, exit()));
        let (eof_tx, eof) = channel();
        let reader = std::thread::spawn({
            let backlog = backlog.clone();
            move || {
                // Blocks: the queue is full until the "parser" below takes its item.
                backlog.send(&queue, exit());
                let _ = eof_tx.send(());
            }
        });
        let waiter = std::thread::spawn({
            let backlog = backlog.clone();
            move || {
                let start = Instant::now();
                wait_for_output(&eof, &backlog);
                start.elapsed()
            }
        });
        std::thread::sleep(EXIT_DRAIN_GRACE * 2 + Duration::from_millis(500));
        assert!(
            !waiter.is_finished(),
            "the exit must wait for the held output"
        );
        parser.recv().unwrap();
        reader.join().unwrap();
        assert!(waiter.join().unwrap() >= EXIT_DRAIN_GRACE * 2);
    }
}
