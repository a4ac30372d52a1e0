//! PTY host: spawns programs in PTYs, feeds vt100 and the terminal scanner.
//!
//! One [`PtyHandle`] per pane. [`PtyHandle::spawn`] opens a PTY (portable-pty), starts the
//! program as a session leader with the PTY as its controlling terminal, and starts three
//! threads (no timers, no polling):
//!
//! * the **reader** blocks on the PTY master; for every chunk it runs the
//!   [`TerminalScanner`] (which sees every byte; it strips OSC and other control strings
//!   from what the screen gets, so a huge unterminated OSC cannot grow vt100's buffers)
//!   and hands the chunk to the parser through a bounded channel ([`PARSE_QUEUE`] chunks;
//!   when it is full the reader waits, and so does the program);
//! * the **parser** takes every chunk queued at once (a batch), feeds the screen
//!   ([`terminal::Terminal`]: vt100 for the live screen, a compact ring for the history,
//!   and coalescing of long plain runs when it falls behind), broadcasts the raw bytes to
//!   attach clients ([`PtyHandle::subscribe`]) and sends one [`PtyEvent::Output`] per
//!   batch. Reading and parsing run in parallel (issue 7, benchmark 3). The daemon's
//!   event queue is bounded ([`event_channel`], [`EVENT_QUEUE`] events for all panes):
//!   when the owner is behind, the parser waits, its chunk queue fills, the reader waits
//!   and so does the program, so fast output never piles up in memory (issue 7, "Load");
//!   meanwhile chunks queue up, so the owner gets fewer, larger batches;
//! * the **waiter** blocks in `waitpid` for the child; once it exited it waits for the
//!   parser to reach end of file (all output delivered), at most [`EXIT_DRAIN_GRACE`]
//!   (not counting a parser held up by a busy owner) in case a background process keeps
//!   the terminal open, then closes the broadcast and
//!   sends [`PtyEvent::Exited`] with the exit code or the signal number.
//!
//! Dropping the last handle of a running pane hangs it up (SIGHUP to its process group),
//! as closing a terminal window does.

mod terminal;

use crate::adapters::terminal::{TerminalEvent, TerminalScanner};
use crate::model::PaneId;
use nix::sys::signal::{killpg, Signal};
use nix::sys::wait::{waitpid, WaitStatus};
use nix::unistd::Pid;
use portable_pty::{native_pty_system, CommandBuilder, MasterPty, PtySize};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};

/// History lines kept per pane unless the caller asks otherwise.
pub const DEFAULT_SCROLLBACK: usize = 2000;

/// Chunks (of at most [`READ_CHUNK`] bytes; PTY reads mostly return a few KiB) queued
/// between the reader and the parser. A parser that falls behind takes them all at once,
/// and only a long batch can be coalesced (src/service/pty/terminal.rs).
pub const PARSE_QUEUE: usize = 512;

/// How long, after the child exited, the waiter lets the reader drain output before it
/// reports the exit anyway (a background process may keep the terminal open forever).
pub const EXIT_DRAIN_GRACE: Duration = Duration::from_secs(1);

/// [`PtyEvent`]s queued for the owner by all panes together ([`event_channel`]): the
/// owner takes up to this many in one pass of its loop (src/service/owner.rs
/// `MAX_BATCH`), so one pass can empty a full queue.
pub const EVENT_QUEUE: usize = 256;

/// Raw output chunks buffered per attach subscriber before it lags (and gets a redraw).
const BROADCAST_CAPACITY: usize = 1024;

/// Bytes read from the PTY master at once.
const READ_CHUNK: usize = 16 * 1024;

/// What to spawn and how big its terminal is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnSpec {
    /// Program and arguments; `argv[0]` is looked up in `PATH` (the one in `env` if given).
    pub argv: Vec<String>,
    /// Working directory; must exist.
    pub cwd: PathBuf,
    /// Added to the daemon's environment (the caller puts `ATTEND_PANE=<pane>` here).
    /// `TERM=xterm-256color` is added when this has no `TERM`.
    pub env: Vec<(String, String)>,
    pub rows: u16,
    pub cols: u16,
    /// History lines kept ([`DEFAULT_SCROLLBACK`]): rows that scrolled off the top of the
    /// screen, see [`PtyHandle::history`].
    pub scrollback: usize,
}

impl SpawnSpec {
    /// `argv` in `cwd` with a 24×80 terminal, no extra environment and the default
    /// scrollback.
    pub fn new(argv: Vec<String>, cwd: impl Into<PathBuf>) -> SpawnSpec {
        SpawnSpec {
            argv,
            cwd: cwd.into(),
            env: Vec::new(),
            rows: 24,
            cols: 80,
            scrollback: DEFAULT_SCROLLBACK,
        }
    }
}

/// What the PTY host reports to the daemon, in order, per pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PtyEvent {
    /// One per batch of read chunks, sent once the screen shows them: the terminal events
    /// found in them (in stream order) and `printable: true` when they held printable
    /// text outside escape sequences.
    Output {
        pane: PaneId,
        events: Vec<TerminalEvent>,
        printable: bool,
    },
    /// The program exited: `code` for a normal exit, `signal` (number, e.g. 9) when a
    /// signal killed it. Sent after all output was delivered (see module docs).
    Exited {
        pane: PaneId,
        code: Option<i32>,
        signal: Option<i32>,
    },
}

/// The daemon's queue of [`PtyEvent`]s: bounded to [`EVENT_QUEUE`] events, so that the
/// PTY threads wait (back-pressure) when the owner is behind.
pub fn event_channel() -> (EventTx, mpsc::Receiver<PtyEvent>) {
    let (tx, rx) = mpsc::channel(EVENT_QUEUE);
    (EventTx::Bounded(tx), rx)
}

/// Where PTYs (and the external panes' process watch, src/service/procwatch.rs) report
/// their [`PtyEvent`]s: the daemon's bounded queue ([`event_channel`]), or an unbounded
/// channel (tests and tools that read every event themselves).
#[derive(Debug, Clone)]
pub enum EventTx {
    Bounded(mpsc::Sender<PtyEvent>),
    Unbounded(mpsc::UnboundedSender<PtyEvent>),
}

impl From<mpsc::Sender<PtyEvent>> for EventTx {
    fn from(tx: mpsc::Sender<PtyEvent>) -> EventTx {
        EventTx::Bounded(tx)
    }
}

impl From<mpsc::UnboundedSender<PtyEvent>> for EventTx {
    fn from(tx: mpsc::UnboundedSender<PtyEvent>) -> EventTx {
        EventTx::Unbounded(tx)
    }
}

impl EventTx {
    /// Sends from a plain thread (never from async code: tokio panics), waiting while a
    /// bounded queue is full. False once the receiver is gone.
    pub fn blocking_send(&self, ev: PtyEvent) -> bool {
        match self {
            EventTx::Bounded(tx) => tx.blocking_send(ev).is_ok(),
            EventTx::Unbounded(tx) => tx.send(ev).is_ok(),
        }
    }

    /// Sends from async code, waiting for room in a bounded queue. False once the
    /// receiver is gone.
    pub async fn send(&self, ev: PtyEvent) -> bool {
        match self {
            EventTx::Bounded(tx) => tx.send(ev).await.is_ok(),
            EventTx::Unbounded(tx) => tx.send(ev).is_ok(),
        }
    }

    /// Sends without ever waiting, for the owner task itself (the queue's only reader:
    /// waiting there would deadlock): when a bounded queue is full, a task spawned on the
    /// current tokio runtime delivers the event once there is room.
    pub fn send_now(&self, ev: PtyEvent) {
        match self {
            EventTx::Bounded(tx) => {
                if let Err(mpsc::error::TrySendError::Full(ev)) = tx.try_send(ev) {
                    let tx = tx.clone();
                    tokio::spawn(async move {
                        let _ = tx.send(ev).await;
                    });
                }
            }
            EventTx::Unbounded(tx) => {
                let _ = tx.send(ev);
            }
        }
    }
}

/// How the program ended (the payload of [`PtyEvent::Exited`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PtyExit {
    pub code: Option<i32>,
    pub signal: Option<i32>,
}

/// Why a program could not be started. Nothing is left running when this is returned.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("cannot spawn: the command is empty")]
    EmptyCommand,
    /// The program was not found, is not executable, or exec failed:
    /// "cannot spawn `nosuchprog`: No such file or directory (os error 2)".
    #[error("cannot spawn `{program}`: {source}")]
    Program { program: String, source: io::Error },
    #[error("cannot spawn `{program}` in {}: {source}", cwd.display())]
    Cwd {
        program: String,
        cwd: PathBuf,
        source: io::Error,
    },
    #[error("cannot open a pseudo-terminal: {0}")]
    Pty(String),
}

/// A program running in a PTY owned by Attend. Cheap to clone and share
/// (`Send + Sync`, an `Arc` inside).
#[derive(Clone)]
pub struct PtyHandle {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for PtyHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PtyHandle")
            .field("pane", &self.inner.pane)
            .field("pid", &self.inner.pid)
            .finish_non_exhaustive()
    }
}

/// Owned by the handles only: dropping the last handle hangs the program up.
struct Inner {
    pane: PaneId,
    pid: Option<u32>,
    master: Mutex<Box<dyn MasterPty + Send>>,
    writer: Mutex<Box<dyn Write + Send>>,
    shared: Arc<Shared>,
}

/// Shared between the handles and the reader and waiter threads.
struct Shared {
    screen: Mutex<Screen>,
    wants_focus: AtomicBool,
    /// The child was reaped: its pid may belong to another process now, never signal it.
    reaped: AtomicBool,
    /// The parser is waiting for room in the owner's queue (the owner is behind).
    held_up: AtomicBool,
    exit: Mutex<Option<PtyExit>>,
}

/// The screen and the raw-output broadcast, under one lock so that a subscriber gets a
/// redraw and exactly the output after it.
struct Screen {
    term: terminal::Terminal,
    /// `None` once the program exited and its output was drained.
    broadcast: Option<broadcast::Sender<Arc<[u8]>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl PtyHandle {
    /// Spawns `spec.argv` in a new PTY of `spec.rows`×`spec.cols` and starts reporting
    /// its output and exit on `tx` (a bounded queue makes the PTY threads wait while it is
    /// full). The child is a session leader with the PTY as its controlling terminal.
    /// Errors name the program and the OS error and leave nothing behind.
    pub fn spawn(
        pane: PaneId,
        spec: &SpawnSpec,
        tx: impl Into<EventTx>,
    ) -> Result<PtyHandle, SpawnError> {
        let tx: EventTx = tx.into();
        let program = spec.argv.first().ok_or(SpawnError::EmptyCommand)?.clone();
        if !spec.cwd.is_dir() {
            let source = std::fs::metadata(&spec.cwd)
                .err()
                .unwrap_or_else(|| io::Error::from_raw_os_error(nix::libc::ENOTDIR));
            return Err(SpawnError::Cwd {
                program,
                cwd: spec.cwd.clone(),
                source,
            });
        }
        let path_var = spec
            .env
            .iter()
            .rev()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone().into())
            .or_else(|| std::env::var_os("PATH"));
        resolve_program(&program, &spec.cwd, path_var.as_deref()).map_err(|source| {
            SpawnError::Program {
                program: program.clone(),
                source,
            }
        })?;

        let size = PtySize {
            rows: spec.rows.max(1),
            cols: spec.cols.max(1),
            pixel_width: 0,
            pixel_height: 0,
        };
        let pair = native_pty_system()
            .openpty(size)
            .map_err(|e| SpawnError::Pty(format!("{e:#}")))?;
        let reader = pair
            .master
            .try_clone_reader()
            .map_err(|e| SpawnError::Pty(format!("{e:#}")))?;
        let writer = pair
            .master
            .take_writer()
            .map_err(|e| SpawnError::Pty(format!("{e:#}")))?;

        let mut cmd = CommandBuilder::new(&program);
        cmd.args(&spec.argv[1..]);
        cmd.cwd(&spec.cwd);
        if !spec.env.iter().any(|(k, _)| k == "TERM") {
            cmd.env("TERM", "xterm-256color");
        }
        for (k, v) in &spec.env {
            cmd.env(k, v);
        }
        let child = pair
            .slave
            .spawn_command(cmd)
            .map_err(|e| SpawnError::Program {
                program: program.clone(),
                source: match e.downcast::<io::Error>() {
                    Ok(io) => io,
                    Err(other) => io::Error::other(format!("{other:#}")),
                },
            })?;
        // Only the child may hold the slave side, so that its exit ends our reads.
        drop(pair.slave);
        let pid = child.process_id();
        // The waiter reaps by pid; the std Child handle is not needed (dropping it does
        // not signal the process).
        drop(child);

        let shared = Arc::new(Shared {
            screen: Mutex::new(Screen {
                term: terminal::Terminal::new(size.rows, size.cols, spec.scrollback),
                broadcast: Some(broadcast::channel(BROADCAST_CAPACITY).0),
            }),
            wants_focus: AtomicBool::new(false),
            reaped: AtomicBool::new(false),
            held_up: AtomicBool::new(false),
            exit: Mutex::new(None),
        });
        let handle = PtyHandle {
            inner: Arc::new(Inner {
                pane,
                pid,
                master: Mutex::new(pair.master),
                writer: Mutex::new(writer),
                shared: shared.clone(),
            }),
        };
        let (eof_tx, eof_rx) = std::sync::mpsc::channel::<()>();
        let (chunk_tx, chunk_rx) = std::sync::mpsc::sync_channel::<Chunk>(PARSE_QUEUE);
        let started = std::thread::Builder::new()
            .name(format!("pty-parse-{pane}"))
            .spawn({
                let (shared, tx) = (shared.clone(), tx.clone());
                move || parse_loop(pane, chunk_rx, &shared, &tx, eof_tx)
            })
            .and_then(|_| {
                std::thread::Builder::new()
                    .name(format!("pty-read-{pane}"))
                    .spawn({
                        let shared = shared.clone();
                        move || read_loop(reader, &shared, chunk_tx)
                    })
            })
            .and_then(|_| {
                std::thread::Builder::new()
                    .name(format!("pty-wait-{pane}"))
                    .spawn(move || wait_loop(pane, pid, &shared, &tx, eof_rx))
            });
        if let Err(e) = started {
            // Leave nothing behind: kill and reap the child, and mark it reaped so that
            // dropping the handle signals nobody.
            if let Some(pid) = pid {
                let _ = killpg(Pid::from_raw(pid as i32), Signal::SIGKILL);
                let _ = waitpid(Pid::from_raw(pid as i32), None);
            }
            handle.inner.shared.reaped.store(true, Ordering::SeqCst);
            return Err(SpawnError::Pty(format!(
                "cannot start the PTY threads: {e}"
            )));
        }
        Ok(handle)
    }

    /// The pane this PTY belongs to.
    pub fn pane(&self) -> PaneId {
        self.inner.pane
    }

    /// Process id of the spawned program (also its process group and session id).
    pub fn pid(&self) -> Option<u32> {
        self.inner.pid
    }

    /// Writes `bytes` to the program's terminal input (blocks while the PTY input buffer
    /// is full).
    pub fn write(&self, bytes: &[u8]) -> io::Result<()> {
        let mut w = lock(&self.inner.writer);
        w.write_all(bytes)?;
        w.flush()
    }

    /// Resizes the terminal (kernel window size, so the program gets SIGWINCH, and the
    /// vt100 screen). Rows and cols must be positive.
    pub fn resize(&self, rows: u16, cols: u16) -> io::Result<()> {
        if rows == 0 || cols == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "rows and cols must be positive",
            ));
        }
        lock(&self.inner.master)
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(|e| io::Error::other(format!("{e:#}")))?;
        lock(&self.inner.shared.screen).term.set_size(rows, cols);
        Ok(())
    }

    /// Sends signal number `signal` to the program's process group (0 only checks that
    /// it exists). Errors: not a signal number (InvalidInput); the program already exited
    /// (ESRCH, "No such process").
    pub fn kill(&self, signal: i32) -> io::Result<()> {
        let sig = match signal {
            0 => None,
            n => Some(Signal::try_from(n).map_err(|_| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{n} is not a signal number"),
                )
            })?),
        };
        let pid = match self.inner.pid {
            Some(pid) if !self.inner.shared.reaped.load(Ordering::SeqCst) => pid,
            _ => return Err(io::Error::from_raw_os_error(nix::libc::ESRCH)),
        };
        killpg(Pid::from_raw(pid as i32), sig).map_err(io::Error::from)
    }

    /// How the program ended; `None` while it runs (set just before
    /// [`PtyEvent::Exited`] is sent).
    pub fn exit_status(&self) -> Option<PtyExit> {
        *lock(&self.inner.shared.exit)
    }

    /// Bytes that redraw the current screen on a fresh terminal: enter the alternate
    /// screen if the program is on it, then vt100's `state_formatted` (clear, contents
    /// with attributes, cursor position and visibility, keypad/cursor/bracketed-paste/mouse
    /// input modes).
    pub fn screen_redraw(&self) -> Vec<u8> {
        redraw(&lock(&self.inner.shared.screen).term)
    }

    /// Plain text of the visible screen, rows separated by `\n`, trailing blanks trimmed.
    pub fn screen_text(&self) -> String {
        lock(&self.inner.shared.screen).term.screen().contents()
    }

    /// Like [`screen_text`](Self::screen_text), but `None` instead of waiting while the
    /// parser is feeding the screen (for the owner task, which must not wait behind a pane
    /// that prints continuously: issue 7, "Load").
    pub fn try_screen_text(&self) -> Option<String> {
        let screen = match self.inner.shared.screen.try_lock() {
            Ok(screen) => screen,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return None,
        };
        Some(screen.term.screen().contents())
    }

    /// The bottom `n` non-empty lines of the live screen (never scrollback), top to
    /// bottom, trailing blanks trimmed.
    pub fn screen_bottom_lines(&self, n: usize) -> Vec<String> {
        let screen = lock(&self.inner.shared.screen);
        let screen = screen.term.screen();
        let (_, cols) = screen.size();
        let lines: Vec<String> = screen
            .rows(0, cols)
            .map(|r| r.trim_end().to_string())
            .filter(|r| !r.is_empty())
            .collect();
        lines[lines.len().saturating_sub(n)..].to_vec()
    }

    /// Raw output chunks for an attach client, from now on. The channel closes once the
    /// program exited and its output was drained (at once if that already happened).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<[u8]>> {
        subscribe(&lock(&self.inner.shared.screen))
    }

    /// [`screen_redraw`](Self::screen_redraw) and [`subscribe`](Self::subscribe) taken
    /// atomically: the receiver yields exactly the output that follows the redraw.
    pub fn subscribe_with_redraw(&self) -> (Vec<u8>, broadcast::Receiver<Arc<[u8]>>) {
        let screen = lock(&self.inner.shared.screen);
        (redraw(&screen.term), subscribe(&screen))
    }

    /// True while the program has focus reporting (`CSI ?1004h`) enabled itself.
    pub fn wants_focus_events(&self) -> bool {
        self.inner.shared.wants_focus.load(Ordering::Relaxed)
    }

    /// Current terminal size (rows, cols).
    pub fn size(&self) -> (u16, u16) {
        lock(&self.inner.shared.screen).term.screen().size()
    }

    /// The last `n` lines of history (rows that scrolled off the top of the main screen;
    /// at most [`SpawnSpec::scrollback`]), oldest first. Each is one screen row as bytes
    /// that redraw it from column 0 with default attributes: its text (UTF-8), SGR
    /// changes, and `CSI n C` over gaps; trailing blanks are left out. Replaying several
    /// needs `CSI m` and CR LF between them.
    pub fn history(&self, n: usize) -> Vec<Vec<u8>> {
        lock(&self.inner.shared.screen).term.history(n)
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let running = !self.shared.reaped.load(Ordering::SeqCst);
        if let (Some(pid), true) = (self.pid, running) {
            let _ = killpg(Pid::from_raw(pid as i32), Signal::SIGHUP);
        }
    }
}

fn redraw(term: &terminal::Terminal) -> Vec<u8> {
    let screen = term.screen();
    let mut out = Vec::new();
    if screen.alternate_screen() {
        out.extend_from_slice(b"\x1b[?1049h");
    }
    out.extend(screen.state_formatted());
    out
}

fn subscribe(screen: &Screen) -> broadcast::Receiver<Arc<[u8]>> {
    match &screen.broadcast {
        Some(tx) => tx.subscribe(),
        None => broadcast::channel(1).1,
    }
}

/// Checks that `program` can be executed the way exec would find it: a path containing
/// `/` relative to `cwd`, else the first match in `path`. Errors are the OS errors exec
/// would give (ENOENT, EACCES, EISDIR).
fn resolve_program(
    program: &str,
    cwd: &Path,
    path: Option<&std::ffi::OsStr>,
) -> io::Result<PathBuf> {
    use nix::unistd::{access, AccessFlags};
    let check = |candidate: &Path| -> io::Result<()> {
        if candidate.is_dir() {
            return Err(io::Error::from_raw_os_error(nix::libc::EISDIR));
        }
        access(candidate, AccessFlags::X_OK).map_err(io::Error::from)
    };
    if program.contains('/') {
        let candidate = cwd.join(program);
        check(&candidate)?;
        return Ok(candidate);
    }
    let mut first_error = None;
    for dir in std::env::split_paths(path.unwrap_or_default()) {
        let candidate = cwd.join(dir).join(program);
        match check(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.unwrap_or_else(|| io::Error::from_raw_os_error(nix::libc::ENOENT)))
}

/// One read chunk on its way from the reader to the parser.
struct Chunk {
    /// What the screen gets (the scanner's filtered bytes).
    screen: Vec<u8>,
    /// The raw bytes for attach clients; `None` when the same as `screen` (nothing was
    /// filtered out).
    raw: Option<Vec<u8>>,
    events: Vec<TerminalEvent>,
    printable: bool,
}

/// The reader thread: chunk → scanner → parser queue.
fn read_loop(
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
fn parse_loop(
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
fn wait_loop(
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
fn reap(pid: Pid) -> PtyExit {
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let (tx, mut rx) = mpsc::unbounded_channel();
        let pty = PtyHandle::spawn(PaneId(1), &spec, tx).expect("spawn");
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
        let (tx, mut rx) = mpsc::channel(1);
        let pty = PtyHandle::spawn(PaneId(1), &spec, tx).expect("spawn");
        // `cat` exits at once; the parser waits for room in the queue meanwhile.
        tokio::time::sleep(EXIT_DRAIN_GRACE * 3).await;
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
}
