//! The parser pool: a few threads ([`parser_count`]) feed every pane's screen. Each pane
//! has a [`PaneQueue`] of [`Parse`] items filled by the reactor
//! (src/service/pty/reactor.rs); a pane with queued items is scheduled once on the pool's
//! run queue, so at most one parser works on a pane at a time and its events go out in
//! queue order. A parser takes every chunk queued at once (a batch, up to
//! [`MAX_BATCH_BYTES`]), feeds the screen, appends the batch to the screen log of a held
//! pane in one write (src/service/pty/screen_log.rs), broadcasts the raw bytes and sends
//! one `Output`, then puts the pane back at the end of the run queue if more came meanwhile
//! (panes printing at once take turns). A pane flooding its terminal is put aside for a
//! moment instead, so that its output is parsed in larger batches
//! (src/service/pty/batching.rs). A small chunk of a pane with nothing queued, after a
//! quiet moment, is parsed by the reactor itself in the same steps (one `Output`), so
//! that an agent's spinner frame wakes no parser ([`batching::parse_inline`]).
//!
//! Back-pressure: a pane's queue takes at most [`PARSE_QUEUE`] chunks; when it is
//! full the reactor stops reading that pane (its program waits) until a parser has taken
//! the queue's items and tells the reactor to go on ([`Resume`]). A parser waits while the
//! owner's event queue is full (src/service/pty/events.rs), so a slow owner slows the
//! readers down, never grows memory (`docs/reliability.md#load`).

use super::batching::{self, Queued, Take};
use super::drain::{Chunk, Parse};
use super::events::{EventTx, PtyEvent, PtyExit};
use super::priority;
use super::screen_log::ScreenLog;
use super::shared::{lock, Shared};
use crate::model::PaneId;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

/// Chunks (of at most 16 KiB; PTY reads mostly return a few KiB) queued per pane between
/// the reactor and the parsers. A parser that falls behind takes them all at once,
/// and only a long batch can be coalesced (src/service/pty/emulator.rs).
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
    /// The screen log of a held pane; only the parser working on the pane writes it.
    log: Mutex<Option<ScreenLog>>,
}

#[derive(Default)]
struct QueueState {
    items: VecDeque<Parse>,
    /// Chunks in `items`.
    chunks: usize,
    /// Screen bytes in `items`.
    bytes: usize,
    /// When the oldest chunk in `items` was queued.
    oldest: Option<Instant>,
    /// The program's exit is in `items`.
    exit_queued: bool,
    /// When the pane's last batch ended.
    last_batch: Option<Instant>,
    /// A parser put the pane aside ([`Pool`]'s `later`) to let its batch grow.
    delayed: bool,
    /// The pane is on the run queue or a parser works on it.
    scheduled: bool,
    /// The reactor found the queue full and waits for [`Resume`].
    reader_waiting: bool,
}

/// The pool's run queue: panes with queued items, in the order they became ready.
pub(super) struct Pool {
    run: Mutex<RunQueue>,
    ready: Condvar,
    capacity: usize,
}

/// Lock order: a pane's `state`, then its `log`, then the pool's `run` (never the other
/// way round).
#[derive(Default)]
struct RunQueue {
    ready: VecDeque<Arc<PaneQueue>>,
    /// Panes put aside until a time, to let a flood's batch grow (src/service/pty/batching.rs).
    later: Vec<(Instant, Arc<PaneQueue>)>,
}

impl RunQueue {
    /// Moves the panes whose time came to the ready queue; the earliest time left.
    fn due(&mut self, now: Instant) -> Option<Instant> {
        let mut i = 0;
        while i < self.later.len() {
            if self.later[i].0 <= now {
                let (_, q) = self.later.swap_remove(i);
                self.ready.push_back(q);
            } else {
                i += 1;
            }
        }
        self.later.iter().map(|(t, _)| *t).min()
    }
}

impl Pool {
    /// A pool whose panes queue at most `capacity` chunks; start its threads with
    /// [`Pool::start`].
    pub(super) fn new(capacity: usize) -> Pool {
        Pool {
            run: Mutex::new(RunQueue::default()),
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
        lock(&self.run).ready.push_back(q);
        self.ready.notify_one();
    }

    /// Puts `q` aside until `at` (the caller holds `q`'s state lock).
    fn later(&self, q: Arc<PaneQueue>, at: Instant) {
        lock(&self.run).later.push((at, q));
        // A waiting parser recomputes its timeout.
        self.ready.notify_one();
    }

    /// Moves `q` from the panes put aside to the ready queue, unless a parser's timer did
    /// already (the caller holds `q`'s state lock).
    fn promote(&self, q: &Arc<PaneQueue>) {
        let mut run = lock(&self.run);
        if let Some(i) = run.later.iter().position(|(_, p)| Arc::ptr_eq(p, q)) {
            let (_, q) = run.later.swap_remove(i);
            run.ready.push_back(q);
            drop(run);
            self.ready.notify_one();
        }
    }

    fn work(&self, resume: &dyn Resume) {
        priority::lower_this_thread();
        loop {
            let q = {
                let mut run = lock(&self.run);
                loop {
                    let now = Instant::now();
                    let next = run.due(now);
                    if let Some(q) = run.ready.pop_front() {
                        break q;
                    }
                    run = match next {
                        Some(t) => {
                            self.ready
                                .wait_timeout(run, t.saturating_duration_since(now))
                                .unwrap_or_else(|p| p.into_inner())
                                .0
                        }
                        None => self.ready.wait(run).unwrap_or_else(|p| p.into_inner()),
                    };
                }
            };
            q.parse_batch(self, resume);
        }
    }
}

impl PaneQueue {
    /// An empty queue for `pane` (reactor id `id`) whose parser feeds `shared`, appends
    /// to `log` (held panes) and reports on `tx`.
    pub(super) fn new(
        pane: PaneId,
        id: u64,
        shared: Arc<Shared>,
        tx: EventTx,
        log: Option<ScreenLog>,
    ) -> Arc<Self> {
        Arc::new(PaneQueue {
            pane,
            id,
            shared,
            tx,
            state: Mutex::new(QueueState::default()),
            log: Mutex::new(log),
        })
    }

    /// Queues a resize behind the output queued so far (never refused): the screen log
    /// records the new size between the bytes printed before and after it.
    pub(super) fn push_resize(self: &Arc<Self>, pool: &Pool, rows: u16, cols: u16) {
        let mut s = lock(&self.state);
        s.items.push_back(Parse::Resize(rows, cols));
        self.wake(pool, s);
    }

    /// Queues a chunk from the reactor; gives it back when the queue is full (a parser
    /// calls [`Resume`] once it has room again).
    pub(super) fn push_chunk(self: &Arc<Self>, pool: &Pool, chunk: Chunk) -> Result<(), Chunk> {
        let (mut s, chunk) = match self.try_inline(lock(&self.state), chunk) {
            Ok(()) => return Ok(()),
            Err(back) => back,
        };
        if s.chunks >= pool.capacity {
            s.reader_waiting = true;
            return Err(chunk);
        }
        if s.chunks == 0 {
            s.oldest = Some(Instant::now());
        }
        s.chunks += 1;
        s.bytes += chunk.screen.len();
        s.items.push_back(Parse::Chunk(chunk));
        if s.delayed && (s.bytes >= batching::FLOOD_BATCH_BYTES || s.chunks >= pool.capacity) {
            s.delayed = false;
            pool.promote(self);
        }
        self.wake(pool, s);
        Ok(())
    }

    /// Parses `chunk` on the calling thread (the reactor's) when
    /// [`batching::parse_inline`] allows and the owner's queue has room, so that no parser
    /// is woken; gives the state lock `s` and the chunk back otherwise. Nothing else can
    /// queue for the pane meanwhile: only the reactor queues, and it is here.
    fn try_inline<'a>(
        &'a self,
        mut s: MutexGuard<'a, QueueState>,
        chunk: Chunk,
    ) -> Result<(), (MutexGuard<'a, QueueState>, Chunk)> {
        let arrival = batching::Arrival {
            bytes: chunk.screen.len(),
            idle: s.items.is_empty() && !s.scheduled && !s.delayed,
            last_batch: s.last_batch,
            log_holds: lock(&self.log).as_ref().is_some_and(ScreenLog::holds),
        };
        if !batching::parse_inline(arrival, Instant::now()) {
            return Err((s, chunk));
        }
        // The owner is behind: the chunk waits in the queue (back-pressure, module docs).
        let Some(permit) = self.tx.try_reserve() else {
            return Err((s, chunk));
        };
        // No parser takes the pane while the screen is fed here.
        s.scheduled = true;
        drop(s);
        permit.send(output(
            self.pane,
            vec![chunk],
            &self.shared,
            (&self.log, false),
        ));
        let mut s = lock(&self.state);
        s.scheduled = false;
        s.last_batch = Some(Instant::now());
        Ok(())
    }

    /// Queues the exit behind the output queued so far (never refused).
    pub(super) fn push_exit(self: &Arc<Self>, pool: &Pool, exit: PtyExit) {
        let mut s = lock(&self.state);
        s.items.push_back(Parse::Exit(exit));
        s.exit_queued = true;
        if s.delayed {
            s.delayed = false;
            pool.promote(self);
        }
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
        let (batch, exit, wake_reader, sizes, flood) = {
            let mut s = lock(&self.state);
            s.delayed = false;
            let queued = Queued {
                bytes: s.bytes,
                oldest: s.oldest,
                last_batch: s.last_batch,
                urgent: s.exit_queued || s.reader_waiting,
            };
            if let Take::At(at) = batching::decide(queued, Instant::now()) {
                s.delayed = true;
                pool.later(self.clone(), at);
                return;
            }
            let flood = batching::is_flood(queued);
            let (mut batch, mut size, mut exit) = (Vec::new(), 0, None);
            let mut sizes = Vec::new();
            while let Some(item) = s.items.pop_front() {
                match item {
                    // A batch never spans a resize: the sizes come before its bytes.
                    Parse::Resize(rows, cols) if batch.is_empty() => sizes.push((rows, cols)),
                    Parse::Resize(..) => {
                        s.items.push_front(item);
                        break;
                    }
                    Parse::Chunk(c) => {
                        s.chunks -= 1;
                        s.bytes -= c.screen.len();
                        size += c.screen.len();
                        batch.push(c);
                    }
                    Parse::Exit(e) => {
                        s.exit_queued = false;
                        exit = Some(e);
                        break;
                    }
                }
                if size >= MAX_BATCH_BYTES {
                    break;
                }
            }
            s.oldest = (s.chunks > 0).then(Instant::now);
            let wake = s.reader_waiting && s.chunks < pool.capacity;
            if wake {
                s.reader_waiting = false;
            }
            (batch, exit, wake, sizes, flood)
        };
        if wake_reader {
            resume.resume(self.id);
        }
        if let Some(log) = lock(&self.log).as_mut() {
            for (rows, cols) in sizes {
                log.resize(rows, cols);
            }
            // The flood paused (nothing was queued when its flush time came), or ended.
            if batch.is_empty() || exit.is_some() {
                log.flush();
            }
        }
        if !batch.is_empty() {
            let ev = output(self.pane, batch, &self.shared, (&self.log, flood));
            let _ = self.tx.blocking_send(ev);
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
        let now = Instant::now();
        s.last_batch = Some(now);
        if s.items.is_empty() {
            // A flood's held screen log is written once it pauses for a moment.
            if lock(&self.log).as_ref().is_some_and(ScreenLog::holds) {
                s.delayed = true;
                pool.later(self.clone(), now + batching::FLOOD_DELAY);
            } else {
                s.scheduled = false;
            }
        } else {
            drop(s);
            pool.schedule(self.clone());
        }
    }
}

/// One batch of chunks → screen + screen log + broadcast → the one `Output` to send (the
/// caller sends it, a parser waiting while the owner is behind: back-pressure, see the
/// module docs). The chunks of a flood that the screen can no longer show are never
/// joined nor parsed (`Terminal::unread_head`).
fn output(
    pane: PaneId,
    batch: Vec<Chunk>,
    shared: &Shared,
    (log, flood): (&Mutex<Option<ScreenLog>>, bool),
) -> PtyEvent {
    let slices: Vec<&[u8]> = batch.iter().map(|c| c.screen.as_slice()).collect();
    let mut screen = lock(&shared.screen);
    let (unread, bytes) = screen.term.feed_batch(&slices);
    if let Some(b) = screen.broadcast.as_ref().filter(|b| b.receiver_count() > 0) {
        for c in &batch {
            // A subscriber that went away meanwhile is not an error.
            let _ = b.send(Arc::from(c.raw.as_deref().unwrap_or(&c.screen)));
        }
    }
    drop(screen);
    if let Some(log) = lock(log).as_mut() {
        // The log keeps what the parser skipped too: it is the pane's record.
        if flood {
            log.hold_chunks(&slices, Instant::now());
        } else if unread == 0 {
            log.append(&bytes);
        } else {
            slices.iter().for_each(|s| log.append(s));
        }
    }
    let mut events = Vec::new();
    let mut printable = false;
    for c in batch {
        events.extend(c.events);
        printable |= c.printable;
    }
    PtyEvent::Output {
        pane,
        events,
        printable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::pty::emulator::Terminal;
    use crate::service::pty::shared::Screen;
    use std::sync::atomic::AtomicBool;
    use tokio::sync::mpsc;

    struct NoResume;
    impl Resume for NoResume {
        fn resume(&self, _: u64) {}
    }

    fn queue(tx: mpsc::Sender<PtyEvent>) -> Arc<PaneQueue> {
        let shared = Arc::new(Shared {
            screen: Mutex::new(Screen {
                term: Terminal::new(24, 80, 100),
                broadcast: None,
            }),
            wants_focus: AtomicBool::new(false),
            reaped: AtomicBool::new(false),
            exit: Mutex::new(None),
            exit_at: Mutex::new(None),
        });
        PaneQueue::new(PaneId(1), 1, shared, EventTx::from(tx), None)
    }

    fn chunk(text: &str) -> Chunk {
        Chunk {
            screen: text.as_bytes().to_vec(),
            raw: None,
            events: Vec::new(),
            printable: true,
        }
    }

    fn screen_text(q: &PaneQueue) -> String {
        lock(&q.shared.screen).term.screen().contents()
    }

    /// A pool with no parser threads: what reaches the screen and the owner did so on the
    /// reactor's (here: the test's) thread.
    #[test]
    fn a_small_chunk_of_an_idle_pane_is_parsed_by_the_reader_and_reported_at_once() {
        let pool = Pool::new(PARSE_QUEUE);
        let (tx, mut rx) = mpsc::channel(4);
        let q = queue(tx);
        assert!(q.push_chunk(&pool, chunk("frame 1")).is_ok());
        assert!(screen_text(&q).contains("frame 1"));
        assert!(matches!(
            rx.try_recv(),
            Ok(PtyEvent::Output {
                printable: true,
                ..
            })
        ));
        assert!(lock(&pool.run).ready.is_empty(), "no parser was asked");
    }

    #[test]
    fn a_big_chunk_or_a_floods_next_read_goes_to_the_parsers() {
        let pool: &'static Pool = Box::leak(Box::new(Pool::new(PARSE_QUEUE)));
        let (tx, mut rx) = mpsc::channel(4);
        let q = queue(tx);
        let big = "x".repeat(batching::INLINE_MAX_BYTES + 1);
        assert!(q.push_chunk(pool, chunk(&big)).is_ok());
        assert!(rx.try_recv().is_err(), "queued, not parsed here");
        assert_eq!(lock(&pool.run).ready.len(), 1, "a parser is asked");
        // A parser takes it; a small chunk right after is a flood's next read.
        let next = lock(&pool.run).ready.pop_front().expect("scheduled");
        next.parse_batch(pool, &NoResume);
        assert!(matches!(rx.try_recv(), Ok(PtyEvent::Output { .. })));
        assert!(q.push_chunk(pool, chunk("right after")).is_ok());
        assert!(rx.try_recv().is_err(), "a flood's read is queued");
        assert!(!screen_text(&q).contains("right after"));
    }

    #[test]
    fn a_small_chunk_waits_for_a_parser_while_the_owner_is_behind() {
        let pool = Pool::new(PARSE_QUEUE);
        let (tx, mut rx) = mpsc::channel(1);
        let q = queue(tx.clone());
        tx.try_send(PtyEvent::Exited {
            pane: PaneId(9),
            code: Some(0),
            signal: None,
        })
        .expect("room for one");
        assert!(q.push_chunk(&pool, chunk("owner behind")).is_ok());
        assert!(!screen_text(&q).contains("owner behind"), "not parsed here");
        assert_eq!(lock(&pool.run).ready.len(), 1, "a parser is asked");
        assert!(matches!(rx.try_recv(), Ok(PtyEvent::Exited { .. })));
        assert!(rx.try_recv().is_err(), "nothing sent past the full queue");
    }
}
