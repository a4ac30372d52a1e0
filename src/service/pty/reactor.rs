//! The reactor: one thread (`pty-io`) reads every pane's PTY master and watches every
//! pane's program for its exit, without a thread per pane
//! (`docs/decisions/0010-one-reactor-for-all-ptys.md`).
//!
//! It waits on an epoll set (mio) holding each pane's master (non-blocking) and one
//! exit source per pane: a `pidfd` for a program this process started (reaped with
//! `waitpid` once it is readable), or the socket of the pane's holder (its `Exit` frame;
//! a holder that goes away without one hangs the program up and ends the pane with an
//! unknown status). For every chunk read it runs the terminal scanner and queues the
//! chunk for the parser pool (src/service/pty/parsers.rs), which also writes the screen
//! log of a held pane: the reader does nothing per chunk but what it must, so that a
//! program printing fast waits for nothing else. A pane whose parse queue is full is not read
//! (its program waits: back-pressure) until a parser resumes it; a pane reads at most
//! [`READ_TURN`] bytes before the others get their turn. Once the exit is known,
//! src/service/pty/drain.rs decides when to queue it behind the output. Other threads
//! talk to the reactor through a command list and a waker: add a pane, resume a pane,
//! an exit learned elsewhere. No timers run while nothing happens: the only timeout is
//! an exiting pane's drain grace.
//!
//! The reactor runs at the default priority: a pane's program waits whenever its reader
//! does, so the reader is not screen work (src/service/pty/priority.rs); what it does per
//! chunk is cheap (a scan that skips plain text with `memchr`, a copy, a queue push).

use super::drain::{self, Chunk, Decision, Drain};
use super::events::{EventTx, PtyExit};
use super::fdio::{self, MasterRead};
use super::parsers::{parser_count, PaneQueue, Pool, Resume, PARSE_QUEUE};
use super::shared::{lock, Shared};
use crate::adapters::terminal_signals::{TerminalEvent, TerminalScanner};
use crate::model::PaneId;
use attend_holder::proto::{ExitRecord, ExitStatus, Frame};
use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::collections::{HashMap, VecDeque};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Bytes read from a PTY master at once.
const READ_CHUNK: usize = 16 * 1024;
/// Bytes one pane may read in one turn before the other ready panes get theirs.
pub const READ_TURN: usize = 256 * 1024;
/// Readiness events taken from epoll at once.
const EVENTS: usize = 1024;
const WAKE: Token = Token(usize::MAX);

/// How the reactor learns that a pane's program ended.
pub(super) enum Watch {
    /// A pane holder's connection: the holder reports the exit of its program `child`
    /// (`known` when its hello already carried the record).
    Holder {
        sock: UnixStream,
        child: u32,
        known: Option<ExitRecord>,
    },
    /// A process this daemon did not start (the agent of a pane followed in tmux):
    /// its `pidfd` becomes readable when it ends (code and signal unknown). Its output
    /// ends with it: what its terminal shows after is no longer the agent's.
    Pidfd(OwnedFd),
}

/// A pane handed to the reactor: where its output comes from and where it goes.
pub(super) struct PaneIo {
    pub(super) pane: PaneId,
    /// The PTY master (made non-blocking here); `None` when its output already ended.
    pub(super) master: Option<OwnedFd>,
    /// Output to process before the master's (a holder's buffer).
    pub(super) prefix: Vec<u8>,
    pub(super) log: Option<super::screen_log::ScreenLog>,
    pub(super) shared: Arc<Shared>,
    pub(super) tx: EventTx,
    pub(super) watch: Watch,
}

/// What other threads ask of the reactor.
enum Command {
    Add(u64, Box<PaneIo>),
    Resume(u64),
    Resize(u64, u16, u16),
}

/// The process's PTY host: the reactor thread and the parser pool, started once.
pub(super) struct Host {
    pool: Pool,
    commands: Mutex<Vec<Command>>,
    waker: mio::Waker,
    next_id: AtomicU64,
}

static HOST: Mutex<Option<&'static Host>> = Mutex::new(None);

/// The PTY host, started on first use (one reactor thread and [`parser_count`] parser
/// threads for the life of the process). Errors: epoll or a thread could not be made.
pub(super) fn host() -> io::Result<&'static Host> {
    let mut started = lock(&HOST);
    if let Some(host) = *started {
        return Ok(host);
    }
    let poll = Poll::new()?;
    let waker = mio::Waker::new(poll.registry(), WAKE)?;
    let host: &'static Host = Box::leak(Box::new(Host {
        pool: Pool::new(PARSE_QUEUE),
        commands: Mutex::new(Vec::new()),
        waker,
        next_id: AtomicU64::new(0),
    }));
    Pool::start(&host.pool, parser_count(), host)?;
    std::thread::Builder::new()
        .name("pty-io".into())
        .spawn(move || Reactor::new(poll, host).run())?;
    *started = Some(host);
    Ok(host)
}

impl Host {
    /// Hands a pane to the reactor; from now on its output and exit are reported on
    /// `io.tx`. Returns the reactor's id of the pane. Errors: the master could not be
    /// made non-blocking.
    pub(super) fn add(&self, io: PaneIo) -> io::Result<u64> {
        if let Some(m) = &io.master {
            fdio::set_nonblocking(m)?;
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.command(Command::Add(id, Box::new(io)));
        Ok(id)
    }

    /// The pane `id` was resized to `rows`×`cols`: its screen log records it in order
    /// with the output (src/service/pty/screen_log.rs).
    pub(super) fn resized(&self, id: u64, rows: u16, cols: u16) {
        self.command(Command::Resize(id, rows, cols));
    }

    fn command(&self, c: Command) {
        lock(&self.commands).push(c);
        if let Err(e) = self.waker.wake() {
            tracing::error!("cannot wake the PTY reactor: {e}");
        }
    }
}

impl Resume for Host {
    fn resume(&self, id: u64) {
        self.command(Command::Resume(id));
    }
}

/// How a pane's program is watched, on the reactor's side.
enum ExitSource {
    Holder {
        sock: UnixStream,
        child: u32,
        buf: Vec<u8>,
    },
    Pidfd(OwnedFd),
    Done,
}

/// One pane on the reactor's side.
struct Pane {
    master: Option<OwnedFd>,
    prefix: VecDeque<u8>,
    scanner: TerminalScanner,
    shared: Arc<Shared>,
    queue: Arc<PaneQueue>,
    source: ExitSource,
    /// The program's exit, once known, and the drain window since then.
    exit: Option<(PtyExit, Drain)>,
    reported: bool,
    /// Its holder vanished: once the exit is queued the reactor closes its copy of the
    /// master at once (with the daemon's others, a closed terminal: the program reads
    /// EIO even where SIGHUP is ignored), instead of reading to the end of output.
    hang_up: bool,
    /// A chunk the full parse queue refused: the pane is paused until it is queued.
    pending: Option<Chunk>,
    pauses: u64,
    eof: bool,
    in_ready: bool,
}

/// How one read turn of a pane ended.
enum Turn {
    /// Nothing more to read now (wait for readiness).
    Drained,
    /// The parse queue is full (wait for [`Command::Resume`]).
    Paused,
    /// End of output.
    Eof,
    /// Its turn is over; more may be there.
    More,
}

struct Reactor {
    poll: Poll,
    host: &'static Host,
    panes: HashMap<u64, Pane>,
    ready: VecDeque<u64>,
    exiting: Vec<u64>,
    buf: Vec<u8>,
}

fn master_token(id: u64) -> Token {
    Token((id << 1) as usize)
}

fn watch_token(id: u64) -> Token {
    Token(((id << 1) | 1) as usize)
}

impl Reactor {
    fn new(poll: Poll, host: &'static Host) -> Reactor {
        Reactor {
            poll,
            host,
            panes: HashMap::new(),
            ready: VecDeque::new(),
            exiting: Vec::new(),
            buf: vec![0; READ_CHUNK],
        }
    }

    fn run(mut self) {
        let mut events = Events::with_capacity(EVENTS);
        let mut watch_ready = Vec::new();
        loop {
            let timeout = if self.ready.is_empty() {
                self.next_deadline()
                    .map(|t| t.saturating_duration_since(Instant::now()))
            } else {
                Some(std::time::Duration::ZERO)
            };
            if let Err(e) = self.poll.poll(&mut events, timeout) {
                if e.kind() != io::ErrorKind::Interrupted {
                    tracing::error!("PTY reactor: epoll failed: {e}");
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                continue;
            }
            for ev in events.iter() {
                let token = ev.token();
                if token == WAKE {
                    continue;
                }
                let id = (token.0 >> 1) as u64;
                if token.0 & 1 == 0 {
                    self.mark_ready(id);
                } else {
                    watch_ready.push(id);
                }
            }
            let commands = std::mem::take(&mut *lock(&self.host.commands));
            for c in commands {
                self.apply(c);
            }
            for id in watch_ready.drain(..) {
                self.watch_readable(id);
            }
            self.read_ready();
            self.drain_exits();
        }
    }

    fn mark_ready(&mut self, id: u64) {
        if let Some(p) = self.panes.get_mut(&id) {
            if !p.in_ready && p.pending.is_none() {
                p.in_ready = true;
                self.ready.push_back(id);
            }
        }
    }

    fn apply(&mut self, c: Command) {
        match c {
            Command::Add(id, io) => self.add(id, *io),
            Command::Resume(id) => {
                let pool = &self.host.pool;
                if let Some(p) = self.panes.get_mut(&id) {
                    if let Some(chunk) = p.pending.take() {
                        if let Err(chunk) = p.queue.push_chunk(pool, chunk) {
                            p.pending = Some(chunk);
                        }
                    }
                }
                self.mark_ready(id);
            }
            Command::Resize(id, rows, cols) => {
                if let Some(p) = self.panes.get(&id) {
                    p.queue.push_resize(&self.host.pool, rows, cols);
                }
            }
        }
    }

    fn add(&mut self, id: u64, io: PaneIo) {
        let PaneIo {
            pane,
            master,
            prefix,
            log,
            shared,
            tx,
            watch,
        } = io;
        let registry = self.poll.registry();
        let master = master.and_then(|m| {
            match registry.register(
                &mut SourceFd(&m.as_raw_fd()),
                master_token(id),
                Interest::READABLE,
            ) {
                Ok(()) => Some(m),
                Err(e) => {
                    tracing::error!(%pane, "cannot watch the PTY: {e}; its output is lost");
                    None
                }
            }
        });
        let mut known = None;
        let source = match watch {
            Watch::Holder {
                known: Some(record),
                ..
            } => {
                known = Some(record);
                ExitSource::Done
            }
            Watch::Holder {
                sock,
                child,
                known: None,
            } => {
                let _ = registry.register(
                    &mut SourceFd(&sock.as_raw_fd()),
                    watch_token(id),
                    Interest::READABLE,
                );
                ExitSource::Holder {
                    sock,
                    child,
                    buf: Vec::new(),
                }
            }
            Watch::Pidfd(fd) => {
                let _ = registry.register(
                    &mut SourceFd(&fd.as_raw_fd()),
                    watch_token(id),
                    Interest::READABLE,
                );
                ExitSource::Pidfd(fd)
            }
        };
        let queue = PaneQueue::new(pane, id, shared.clone(), tx, log);
        self.panes.insert(
            id,
            Pane {
                master,
                prefix: prefix.into(),
                scanner: TerminalScanner::new(),
                shared,
                queue,
                source,
                exit: None,
                reported: false,
                hang_up: false,
                pending: None,
                pauses: 0,
                eof: false,
                in_ready: false,
            },
        );
        if let Some(record) = known {
            self.exit_known(id, holder_exit(&self.panes[&id].shared, record));
        }
        self.mark_ready(id);
    }

    /// Reads every ready pane for one turn each; a pane with more left goes to the back.
    fn read_ready(&mut self) {
        for _ in 0..self.ready.len() {
            let Some(id) = self.ready.pop_front() else {
                break;
            };
            let pool = &self.host.pool;
            let Some(p) = self.panes.get_mut(&id) else {
                continue;
            };
            p.in_ready = false;
            match p.read_turn(pool, &mut self.buf) {
                Turn::More => {
                    p.in_ready = true;
                    self.ready.push_back(id);
                }
                Turn::Drained | Turn::Paused => {}
                Turn::Eof => self.end_of_output(id),
            }
        }
    }

    fn end_of_output(&mut self, id: u64) {
        let Some(p) = self.panes.get_mut(&id) else {
            return;
        };
        p.eof = true;
        if let Some(m) = p.master.take() {
            let _ = self
                .poll
                .registry()
                .deregister(&mut SourceFd(&m.as_raw_fd()));
        }
        if p.reported {
            self.panes.remove(&id);
        }
    }

    /// The pane's exit source is readable: learn the exit if it is there.
    fn watch_readable(&mut self, id: u64) {
        let Some(p) = self.panes.get_mut(&id) else {
            return;
        };
        let mut hang_up = false;
        let mut agent_ended = false;
        let exit = match &mut p.source {
            ExitSource::Holder { sock, child, buf } => {
                read_holder(sock, buf).map(|record| match record {
                    Some(record) => holder_exit(&p.shared, record),
                    None => {
                        tracing::warn!(
                            child = *child,
                            "the pane's holder went away without an exit record; its program \
                             is hung up and the pane ends with an unknown status"
                        );
                        // Without its holder the program cannot outlive this daemon: end
                        // it as a closed terminal would.
                        let _ = killpg(Pid::from_raw(*child as i32), Signal::SIGHUP);
                        hang_up = true;
                        PtyExit {
                            code: None,
                            signal: None,
                        }
                    }
                })
            }
            ExitSource::Pidfd(_) => {
                agent_ended = true;
                Some(PtyExit {
                    code: None,
                    signal: None,
                })
            }
            ExitSource::Done => None,
        };
        if agent_ended {
            // The agent ended: what its terminal shows from now on is not its own.
            self.end_of_output(id);
        }
        let Some(p) = self.panes.get_mut(&id) else {
            return;
        };
        p.hang_up |= hang_up;
        if let Some(exit) = exit {
            self.exit_known(id, exit);
        }
    }

    /// The program ended: stop watching it and open the drain window.
    fn exit_known(&mut self, id: u64, exit: PtyExit) {
        let Some(p) = self.panes.get_mut(&id) else {
            return;
        };
        if p.exit.is_some() {
            return;
        }
        let registry = self.poll.registry();
        match std::mem::replace(&mut p.source, ExitSource::Done) {
            ExitSource::Holder { sock, .. } => {
                let _ = registry.deregister(&mut SourceFd(&sock.as_raw_fd()));
            }
            ExitSource::Pidfd(fd) => {
                let _ = registry.deregister(&mut SourceFd(&fd.as_raw_fd()));
            }
            ExitSource::Done => {}
        }
        p.shared
            .reaped
            .store(true, std::sync::atomic::Ordering::SeqCst);
        p.exit = Some((exit, Drain::start(Instant::now(), p.reader())));
        self.exiting.push(id);
    }

    /// Queues the exits that are due (src/service/pty/drain.rs).
    fn drain_exits(&mut self) {
        let now = Instant::now();
        let pool = &self.host.pool;
        let mut done = Vec::new();
        self.exiting.retain(|id| {
            let Some(p) = self.panes.get_mut(id) else {
                return false;
            };
            let reader = p.reader();
            let Some((exit, drain)) = p.exit.as_mut() else {
                return false;
            };
            match drain::decide(drain, reader, now) {
                Decision::Report => {
                    p.queue.push_exit(pool, *exit);
                    p.reported = true;
                    if p.eof || p.hang_up {
                        done.push(*id);
                    }
                    false
                }
                Decision::WaitUntil(_) => true,
            }
        });
        for id in done {
            if let Some(m) = self.panes.remove(&id).and_then(|p| p.master) {
                let _ = self
                    .poll
                    .registry()
                    .deregister(&mut SourceFd(&m.as_raw_fd()));
            }
        }
    }

    /// The earliest drain deadline of an exiting pane.
    fn next_deadline(&mut self) -> Option<Instant> {
        let now = Instant::now();
        self.exiting
            .iter()
            .filter_map(|id| {
                let p = self.panes.get(id)?;
                let (_, drain) = p.exit?;
                match drain::decide(&mut drain.clone(), p.reader(), now) {
                    Decision::Report => Some(now),
                    Decision::WaitUntil(t) => Some(t),
                }
            })
            .min()
    }
}

impl Pane {
    fn reader(&self) -> drain::Reader {
        drain::Reader {
            eof: self.eof,
            paused: self.pending.is_some(),
            pauses: self.pauses,
        }
    }

    /// Reads and queues up to [`READ_TURN`] bytes (the holder's buffer first). Reads
    /// fill `buf` back to back and its bytes are scanned and queued as one chunk when it
    /// is full, the PTY has nothing more for now, or the turn ends: a PTY read returns at
    /// most the line discipline's 4 KiB, and a program printing fast waits while its
    /// reader is away from `read`, so the reader does per chunk what it can do once.
    fn read_turn(&mut self, pool: &Pool, buf: &mut [u8]) -> Turn {
        if self.pending.is_some() {
            return Turn::Paused;
        }
        let mut taken = 0;
        let mut filled = 0;
        let mut eio = false;
        let end = loop {
            if filled == buf.len() {
                if let Some(t) = self.flush(pool, &buf[..filled]) {
                    return t;
                }
                filled = 0;
            }
            if taken >= READ_TURN {
                break Turn::More;
            }
            let room = &mut buf[filled..];
            let n = if !self.prefix.is_empty() {
                let n = self.prefix.len().min(room.len());
                for (slot, b) in room.iter_mut().zip(self.prefix.drain(..n)) {
                    *slot = b;
                }
                n
            } else if let Some(m) = &self.master {
                // EIO twice in a row: no process has the terminal open any more, and
                // the output they wrote is all read (`fdio::read_master`).
                match fdio::read_master(m.as_raw_fd(), room, &mut eio) {
                    MasterRead::Bytes(n) => n,
                    MasterRead::Drained => break Turn::Drained,
                    MasterRead::Again => continue,
                    MasterRead::End => break Turn::Eof,
                }
            } else {
                break Turn::Eof;
            };
            taken += n;
            filled += n;
        };
        match self.flush(pool, &buf[..filled]) {
            Some(paused) => paused,
            None => end,
        }
    }

    /// Scans and queues `raw` (nothing when empty); `Some(Turn::Paused)` when the parse
    /// queue is full (the chunk waits in `pending`).
    fn flush(&mut self, pool: &Pool, raw: &[u8]) -> Option<Turn> {
        if raw.is_empty() {
            return None;
        }
        let chunk = self.scan(raw);
        if let Err(chunk) = self.queue.push_chunk(pool, chunk) {
            self.pending = Some(chunk);
            self.pauses += 1;
            return Some(Turn::Paused);
        }
        None
    }

    /// One read: scanner → chunk.
    fn scan(&mut self, raw: &[u8]) -> Chunk {
        let mut events = Vec::new();
        let mut screen = Vec::with_capacity(raw.len());
        let printable = self.scanner.feed_filtered(raw, &mut events, &mut screen);
        for ev in &events {
            if let TerminalEvent::FocusReporting(on) = ev {
                self.shared
                    .wants_focus
                    .store(*on, std::sync::atomic::Ordering::Relaxed);
            }
        }
        let raw = (screen.len() != raw.len()).then(|| raw.to_vec());
        Chunk {
            screen,
            raw,
            events,
            printable,
        }
    }
}

/// Reads what the holder sent (without waiting): `Some(Some(record))` once its `Exit`
/// frame is complete, `Some(None)` when it went away (or spoke nonsense) without one,
/// `None` while it is still there with nothing decisive.
fn read_holder(sock: &UnixStream, buf: &mut Vec<u8>) -> Option<Option<ExitRecord>> {
    use nix::sys::socket::{recv, MsgFlags};
    let mut chunk = [0u8; 4096];
    let gone = loop {
        match recv(sock.as_raw_fd(), &mut chunk, MsgFlags::MSG_DONTWAIT) {
            Ok(0) => break true,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(nix::errno::Errno::EINTR) => continue,
            Err(nix::errno::Errno::EAGAIN) => break false,
            Err(_) => break true,
        }
    };
    while buf.len() >= 4 {
        let len = u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]) as usize;
        if buf.len() < 4 + len {
            break;
        }
        let frame: Vec<u8> = buf.drain(..4 + len).collect();
        match Frame::read_from(&mut frame.as_slice()) {
            Ok(Some(Frame::Exit(record))) => return Some(Some(record)),
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => return Some(None),
        }
    }
    gone.then_some(None)
}

/// A holder's exit record as the pane's exit; its time is kept for the owner.
fn holder_exit(shared: &Shared, record: ExitRecord) -> PtyExit {
    *lock(&shared.exit_at) = Some(record.at_ms);
    match record.status {
        ExitStatus::Code(c) => PtyExit {
            code: Some(c),
            signal: None,
        },
        ExitStatus::Signal(s) => PtyExit {
            code: None,
            signal: Some(s),
        },
        ExitStatus::Unknown => PtyExit {
            code: None,
            signal: None,
        },
    }
}
