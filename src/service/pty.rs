//! PTY host: spawns programs in PTYs (or takes over the PTY of a pane holder), feeds
//! vt100 and the terminal scanner.
//!
//! One [`PtyHandle`] per pane. Every pane's program runs in a PTY a pane holder keeps
//! (`docs/decisions/0009-pane-holders.md`): [`holders::Holders::spawn`] starts a holder for a
//! new pane, [`PtyHandle::adopt`] takes over the PTY of a holder already running (a pane of
//! the previous daemon). Either way the pane is handed to the process's
//! one PTY host, a fixed number of threads whatever the number of panes
//! (`docs/decisions/0010-one-reactor-for-all-ptys.md`); no timers, no polling:
//!
//! * the **reactor** (src/service/pty/reactor.rs, one thread) waits on every pane's
//!   non-blocking master and exit source (the holder's socket). For every
//!   chunk it runs the [`TerminalScanner`] (which sees every byte; it strips OSC and other
//!   control strings from what the screen gets, so a huge unterminated OSC cannot grow
//!   vt100's buffers) and queues the chunk in the pane's parse queue ([`PARSE_QUEUE`]
//!   chunks; when it is full the reactor stops reading that pane, and its program waits);
//! * the **parsers** (src/service/pty/parsers.rs, a pool of 2–4 threads) take every chunk
//!   queued for a pane at once (a batch), feed the screen ([`emulator::Terminal`]: vt100
//!   for the live screen, a compact ring for the history, and coalescing of long plain
//!   runs when they fall behind), broadcast the raw bytes to attach clients
//!   ([`PtyHandle::subscribe`]) and send one [`PtyEvent::Output`] per batch; one parser
//!   at a time per pane, so a pane's events keep their order. Reading and parsing run in
//!   parallel (`docs/benchmarks.md#pty-throughput-profile-fix-beforeafter-item-3`). The
//!   daemon's event queue is bounded ([`event_channel`], [`EVENT_QUEUE`] events for all
//!   panes): when the owner is behind, the parsers wait, the parse queues fill, the
//!   reactor stops reading and the programs wait, so fast output never piles up in memory
//!   (`docs/decisions/0005-one-service-thin-clients.md#bounded-memory-under-load`;
//!   `docs/reliability.md#load`); meanwhile chunks queue up, so the owner gets fewer,
//!   larger batches;
//! * once a program ended, the reactor lets its output drain (end of file, or
//!   [`EXIT_DRAIN_GRACE`] not counting time the pane waited for room in its parse queue,
//!   in case a background process keeps the terminal open) and then queues the exit
//!   behind that output: the parser closes the broadcast and sends [`PtyEvent::Exited`]
//!   with the exit code or the signal number after the output before it
//!   (src/service/pty/drain.rs).
//!
//! The reactor and the parsers run at a lower priority than the rest of the daemon
//! (src/service/pty/priority.rs): screen updates yield the CPU to hooks and commands.
//!
//! Dropping the last handle leaves the program running: its holder keeps the PTY until
//! the next daemon adopts it.

mod adopted;
pub mod attach;
mod batching;
mod drain;
mod emulator;
mod events;
mod fdio;
mod follow_spec;
mod followed;
mod history;
pub mod holders;
pub mod pane_hooks;
mod parsers;
mod priority;
mod reactor;
mod screen_log;
mod shared;
mod spawn;

pub use drain::EXIT_DRAIN_GRACE;
pub use events::{event_channel, EventTx, PtyEvent, PtyExit, EVENT_QUEUE};
pub use follow_spec::Followed;
pub use parsers::{parser_count, MAX_PARSERS, PARSE_QUEUE};
pub use reactor::READ_TURN;
pub use screen_log::{ScreenLog, SCREEN_LOG_BYTES};
pub use spawn::{check, SpawnError, SpawnSpec, DEFAULT_SCROLLBACK};

use crate::model::PaneId;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use shared::{lock, redraw, subscribe, Shared};
use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::broadcast;

/// A receiver of a pane's raw output chunks (what [`PtyHandle::subscribe`] returns).
pub type OutputReceiver = broadcast::Receiver<Arc<[u8]>>;

/// Raw output chunks buffered per attach subscriber before it lags (and gets a redraw).
const BROADCAST_CAPACITY: usize = 1024;

/// The live PTYs by pane: owned by the owner task, shared with the attach server, the
/// evidence ladder and the hook checks (which only look them up). Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct PtyRegistry(Arc<Mutex<HashMap<PaneId, PtyHandle>>>);

impl PtyRegistry {
    /// Locks the registry (a panic elsewhere does not make it unusable).
    pub fn lock(&self) -> MutexGuard<'_, HashMap<PaneId, PtyHandle>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
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

/// Owned by the handles only: dropping the last handle leaves the program running (its
/// holder keeps the PTY).
struct Inner {
    pane: PaneId,
    pid: Option<u32>,
    master: Mutex<Master>,
    writer: Mutex<Box<dyn Write + Send>>,
    shared: Arc<Shared>,
    /// The connection to the pane's holder; `None` for a pane followed in tmux.
    holder: Option<std::os::unix::net::UnixStream>,
    /// The pane's screen log.
    screen_log: Option<std::path::PathBuf>,
    /// The reactor's id of the pane (src/service/pty/reactor.rs).
    io_id: u64,
}

/// The PTY master received from the pane's holder, for resizing; `None` once its output
/// had ended before.
struct Master(Option<std::os::fd::OwnedFd>);

impl Master {
    fn resize(&self, rows: u16, cols: u16) -> io::Result<()> {
        match &self.0 {
            Some(fd) => resize_fd(fd, rows, cols),
            None => Err(io::Error::from_raw_os_error(nix::libc::EIO)),
        }
    }
}

impl PtyHandle {
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
        lock(&self.inner.master).resize(rows, cols)?;
        lock(&self.inner.shared.screen).term.set_size(rows, cols);
        if self.inner.screen_log.is_some() {
            reactor::host()?.resized(self.inner.io_id, rows, cols);
        }
        Ok(())
    }

    /// Sends signal number `signal` to the program's process group (0 only checks that
    /// it exists); to the program alone when it leads no group (a followed tmux pane's
    /// agent started by a wrapper). Errors: not a signal number (InvalidInput); the program already exited
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
        let pid = Pid::from_raw(pid as i32);
        // A followed tmux pane's agent need not lead a process group of its own (a
        // wrapper started it): then the signal goes to it alone (docs/tmux.md#kill).
        if nix::unistd::getpgid(Some(pid)).is_ok_and(|g| g != pid) {
            return nix::sys::signal::kill(pid, sig).map_err(io::Error::from);
        }
        killpg(pid, sig).map_err(io::Error::from)
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

    /// The visible screen's text and whether the terminal is in application cursor mode
    /// (arrow keys sent as `ESC O x`), for deriving an answer's keys; `None` while the
    /// parser is feeding the screen.
    pub fn try_screen_for_answer(&self) -> Option<(String, bool)> {
        let screen = match self.inner.shared.screen.try_lock() {
            Ok(screen) => screen,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return None,
        };
        let s = screen.term.screen();
        Some((s.contents(), s.application_cursor()))
    }

    /// Like [`screen_text`](Self::screen_text), but `None` instead of waiting while the
    /// parser is feeding the screen (for the owner task, which must not wait behind a pane
    /// that prints continuously: `docs/reliability.md#load`).
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

    /// [`subscribe_with_redraw`](Self::subscribe_with_redraw) with the last `n` history
    /// rows (as [`history`](Self::history) gives them) read under the same lock: the rows,
    /// the redraw, and the receiver of the output after them.
    pub fn subscribe_with_history(&self, n: usize) -> (Vec<Vec<u8>>, Vec<u8>, OutputReceiver) {
        let screen = lock(&self.inner.shared.screen);
        (
            screen.term.history(n),
            redraw(&screen.term),
            subscribe(&screen),
        )
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

/// Sets the kernel window size of the PTY behind `master` (the program gets SIGWINCH).
fn resize_fd(master: &std::os::fd::OwnedFd, rows: u16, cols: u16) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let ws = nix::libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCSWINSZ reads one winsize.
    let rc = unsafe { nix::libc::ioctl(master.as_raw_fd(), nix::libc::TIOCSWINSZ, &ws) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}
