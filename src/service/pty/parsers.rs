//! The parser pool: a few threads ([`parser_count`]) feed every pane's screen. Each pane
//! has a [`PaneQueue`] of [`Parse`] items filled by the reactor
//! (src/service/pty/reactor.rs); a pane with queued items is scheduled once on the pool's
//! run queue, so at most one parser works on a pane at a time and its events go out in
//! queue order. A parser takes every chunk queued at once (a batch, up to
//! [`MAX_BATCH_BYTES`]), feeds the screen, broadcasts the raw bytes and sends one
//! `Output`, then puts the pane back at the end of the run queue if more came meanwhile
//! (panes printing at once take turns).
//!
//! Back-pressure: a pane's queue takes at most [`PARSE_QUEUE`] chunks; when it is
//! full the reactor stops reading that pane (its program waits) until a parser has taken
//! the queue's items and tells the reactor to go on ([`Resume`]). A parser waits while the
//! owner's event queue is full (src/service/pty/events.rs), so a slow owner slows the
//! readers down, never grows memory (`docs/reliability.md#load`).

use super::drain::{Chunk, Parse};
use super::events::{EventTx, PtyEvent, PtyExit};
use super::priority;
use super::shared::{lock, Shared};
use crate::model::PaneId;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};

/// Chunks (of at most 16 KiB; PTY reads mostly return a few KiB) queued per pane between
/// the reactor and the parsers. A parser that falls behind takes them all at once,
/// and only a long batch can be coalesced (src/service/pty/terminal.rs).
pub const PARSE_QUEUE: usize = 512;

/// Most bytes one batch takes from a pane's queue, so that a redraw or a subscriber never
/// waits long for the screen lock.
const MAX_BATCH_BYTES: usize = 4 * 1024 * 1024;

/// Most parser threads, whatever the machine: the pool's size is the number of CPUs,
/// between 2 and this.
pub const MAX_PARSERS: usize = 4;

/// Parser threads to start: the CPUs available, at least 2 and at most [`MAX_PARSERS`].
pub fn parser_count() -> usize {
    std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, MAX_PARSERS)
}

/// Tells the reactor that a paused pane's queue has room again (the reactor's id of the
/// pane).
pub(super) trait Resume: Send + Sync {
    fn resume(&self, id: u64);
}

/// One pane's parse queue (see the module docs).
pub(super) struct PaneQueue {
    pane: PaneId,
    /// The reactor's id of the pane, for [`Resume`].
    id: u64,
    shared: Arc<Shared>,
    tx: EventTx,
    state: Mutex<QueueState>,
}

#[derive(Default)]
struct QueueState {
    items: VecDeque<Parse>,
    /// Chunks in `items`.
    chunks: usize,
    /// The pane is on the run queue or a parser works on it.
    scheduled: bool,
    /// The reactor found the queue full and waits for [`Resume`].
    reader_waiting: bool,
}

/// The pool's run queue: panes with queued items, in the order they became ready.
pub(super) struct Pool {
    run: Mutex<VecDeque<Arc<PaneQueue>>>,
    ready: Condvar,
    capacity: usize,
}

impl Pool {
    /// A pool whose panes queue at most `capacity` chunks; start its threads with
    /// [`Pool::start`].
    pub(super) fn new(capacity: usize) -> Pool {
        Pool {
            run: Mutex::new(VecDeque::new()),
            ready: Condvar::new(),
            capacity,
        }
    }

    /// Starts `n` parser threads (`pty-parse-K`) on `pool`; they run for the life of the
    /// process. Errors: the OS refused a thread (those already started keep working).
    pub(super) fn start(
        pool: &'static Pool,
        n: usize,
        resume: &'static dyn Resume,
    ) -> std::io::Result<()> {
        for k in 0..n {
            std::thread::Builder::new()
                .name(format!("pty-parse-{k}"))
                .spawn(move || pool.work(resume))?;
        }
        Ok(())
    }

    fn schedule(&self, q: Arc<PaneQueue>) {
        lock(&self.run).push_back(q);
        self.ready.notify_one();
    }

    fn work(&self, resume: &dyn Resume) {
        priority::lower_this_thread();
        loop {
            let q = {
                let mut run = lock(&self.run);
                loop {
                    if let Some(q) = run.pop_front() {
                        break q;
                    }
                    run = self.ready.wait(run).unwrap_or_else(|p| p.into_inner());
                }
            };
            q.parse_batch(self, resume);
        }
    }
}

impl PaneQueue {
    /// An empty queue for `pane` (reactor id `id`) whose parser feeds `shared` and
    /// reports on `tx`.
    pub(super) fn new(pane: PaneId, id: u64, shared: Arc<Shared>, tx: EventTx) -> Arc<Self> {
        Arc::new(PaneQueue {
            pane,
            id,
            shared,
            tx,
            state: Mutex::new(QueueState::default()),
        })
    }

    /// Queues a chunk from the reactor; gives it back when the queue is full (a parser
    /// calls [`Resume`] once it has room again).
    pub(super) fn push_chunk(self: &Arc<Self>, pool: &Pool, chunk: Chunk) -> Result<(), Chunk> {
        let mut s = lock(&self.state);
        if s.chunks >= pool.capacity {
            s.reader_waiting = true;
            return Err(chunk);
        }
        s.chunks += 1;
        s.items.push_back(Parse::Chunk(chunk));
        self.wake(pool, s);
        Ok(())
    }

    /// Queues the exit behind the output queued so far (never refused).
    pub(super) fn push_exit(self: &Arc<Self>, pool: &Pool, exit: PtyExit) {
        let mut s = lock(&self.state);
        s.items.push_back(Parse::Exit(exit));
        self.wake(pool, s);
    }

    fn wake(self: &Arc<Self>, pool: &Pool, mut s: std::sync::MutexGuard<'_, QueueState>) {
        if !s.scheduled {
            s.scheduled = true;
            drop(s);
            pool.schedule(self.clone());
        }
    }

    /// A parser's turn on this pane: one batch, then the exit if it came next.
    fn parse_batch(self: &Arc<Self>, pool: &Pool, resume: &dyn Resume) {
        let (batch, exit, wake_reader) = {
            let mut s = lock(&self.state);
            let (mut batch, mut size, mut exit) = (Vec::new(), 0, None);
            while let Some(item) = s.items.pop_front() {
                match item {
                    Parse::Chunk(c) => {
                        s.chunks -= 1;
                        size += c.screen.len();
                        batch.push(c);
                    }
                    Parse::Exit(e) => {
                        exit = Some(e);
                        break;
                    }
                }
                if size >= MAX_BATCH_BYTES {
                    break;
                }
            }
            let wake = s.reader_waiting && s.chunks < pool.capacity;
            if wake {
                s.reader_waiting = false;
            }
            (batch, exit, wake)
        };
        if wake_reader {
            resume.resume(self.id);
        }
        if !batch.is_empty() {
            output(self.pane, batch, &self.shared, &self.tx);
        }
        if let Some(exit) = exit {
            *lock(&self.shared.exit) = Some(exit);
            lock(&self.shared.screen).broadcast = None;
            let _ = self.tx.blocking_send(PtyEvent::Exited {
                pane: self.pane,
                code: exit.code,
                signal: exit.signal,
            });
        }
        let mut s = lock(&self.state);
        if s.items.is_empty() {
            s.scheduled = false;
        } else {
            drop(s);
            pool.schedule(self.clone());
        }
    }
}

/// One batch of chunks → screen + broadcast → one `Output` (waiting while the owner is
/// behind: back-pressure, see the module docs).
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
