//! PTY host: spawns programs in PTYs (or takes over the PTY of a pane holder), feeds
//! vt100 and the terminal scanner.
//!
//! One [`PtyHandle`] per pane. [`PtyHandle::spawn`] opens a PTY (portable-pty) and starts
//! the program as a session leader with the PTY as its controlling terminal;
//! [`PtyHandle::adopt`] takes over a PTY a pane holder keeps
//! (`docs/decisions/0009-pane-holders.md`). Either way the pane is handed to the process's
//! one PTY host, a fixed number of threads whatever the number of panes
//! (`docs/decisions/0010-one-reactor-for-all-ptys.md`); no timers, no polling:
//!
//! * the **reactor** (src/service/pty/reactor.rs, one thread) waits on every pane's
//!   non-blocking master and exit source (a pidfd, or the holder's socket). For every
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
//! Dropping the last handle of a running pane this process started hangs it up (SIGHUP
//! to its process group), as closing a terminal window does.

mod adopted;
pub mod attach;
mod batching;
mod drain;
mod emulator;
mod events;
mod fdio;
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
pub use parsers::{parser_count, MAX_PARSERS, PARSE_QUEUE};
pub use reactor::READ_TURN;
pub use screen_log::{ScreenLog, SCREEN_LOG_BYTES};
pub use spawn::{check, SpawnError, SpawnSpec, DEFAULT_SCROLLBACK};

use crate::model::PaneId;
use nix::sys::signal::{killpg, Signal};
use nix::sys::wait::waitpid;
use nix::unistd::Pid;
use portable_pty::{native_pty_system, CommandBuilder, MasterPty, PtySize};
use shared::{lock, redraw, subscribe, Screen, Shared};
use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::broadcast;

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

/// Owned by the handles only: dropping the last handle hangs up a program this process
/// started itself; a program kept by a pane holder stays (its holder keeps the PTY).
struct Inner {
    pane: PaneId,
    pid: Option<u32>,
    master: Mutex<Master>,
    writer: Mutex<Box<dyn Write + Send>>,
    shared: Arc<Shared>,
    /// The connection to the pane's holder (`None` for a PTY of this process).
    holder: Option<std::os::unix::net::UnixStream>,
    /// The pane's screen log (held panes).
    screen_log: Option<std::path::PathBuf>,
    /// The reactor's id of the pane (src/service/pty/reactor.rs).
    io_id: u64,
}

/// The PTY master, for resizing.
enum Master {
    /// Opened by this process (portable-pty).
    Local(Box<dyn MasterPty + Send>),
    /// Received from a pane holder; `None` once its output had ended before.
    Held(Option<std::os::fd::OwnedFd>),
}

impl Master {
    fn resize(&self, rows: u16, cols: u16) -> io::Result<()> {
        let size = PtySize {
            rows,
            cols,
            pixel_width: 0,
            pixel_height: 0,
        };
        match self {
            Master::Local(m) => m
                .resize(size)
                .map_err(|e| io::Error::other(format!("{e:#}"))),
            Master::Held(Some(fd)) => resize_fd(fd, rows, cols),
            Master::Held(None) => Err(io::Error::from_raw_os_error(nix::libc::EIO)),
        }
    }
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
        let program = spawn::check(spec)?;
        let size = PtySize {
            rows: spec.rows.max(1),
            cols: spec.cols.max(1),
            pixel_width: 0,
            pixel_height: 0,
        };
        let child = start_child(spec, &program, size)?;
        let shared = Arc::new(Shared {
            screen: Mutex::new(Screen {
                term: emulator::Terminal::new(size.rows, size.cols, spec.scrollback),
                broadcast: Some(broadcast::channel(BROADCAST_CAPACITY).0),
            }),
            wants_focus: AtomicBool::new(false),
            reaped: AtomicBool::new(false),
            exit: Mutex::new(None),
            exit_at: Mutex::new(None),
        });
        let watch = match child.pid {
            Some(pid) => reactor::Watch::Child(pid),
            None => reactor::Watch::None,
        };
        let io = reactor::PaneIo {
            pane,
            master: Some(child.reader),
            prefix: Vec::new(),
            log: None,
            shared: shared.clone(),
            tx,
            watch,
        };
        let io_id = match reactor::host().and_then(|host| host.add(io)) {
            Ok(id) => id,
            Err(e) => {
                // Leave nothing behind: kill and reap the child.
                if let Some(pid) = child.pid {
                    let _ = killpg(Pid::from_raw(pid as i32), Signal::SIGKILL);
                    let _ = waitpid(Pid::from_raw(pid as i32), None);
                }
                return Err(SpawnError::Pty(format!("cannot read the PTY: {e}")));
            }
        };
        Ok(PtyHandle {
            inner: Arc::new(Inner {
                pane,
                pid: child.pid,
                master: Mutex::new(Master::Local(child.master)),
                writer: Mutex::new(child.writer),
                shared,
                holder: None,
                screen_log: None,
                io_id,
            }),
        })
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
        lock(&self.inner.master).resize(rows, cols)?;
        lock(&self.inner.shared.screen).term.set_size(rows, cols);
        if self.inner.screen_log.is_some() {
            reactor::host()?.resized(self.inner.io_id, rows, cols);
        }
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

/// A started child and the master side of its PTY.
struct Child {
    pid: Option<u32>,
    master: Box<dyn MasterPty + Send>,
    /// A duplicate of the master for the reactor (made non-blocking there).
    reader: std::os::fd::OwnedFd,
    writer: Box<dyn Write + Send>,
}

/// Opens a PTY of `size` and starts `program` with `spec`'s arguments, directory and
/// environment in it (`TERM=xterm-256color` unless `spec.env` has a `TERM`).
fn start_child(spec: &SpawnSpec, program: &str, size: PtySize) -> Result<Child, SpawnError> {
    let pair = native_pty_system()
        .openpty(size)
        .map_err(|e| SpawnError::Pty(format!("{e:#}")))?;
    let fd = pair
        .master
        .as_raw_fd()
        .ok_or_else(|| SpawnError::Pty("the PTY master has no descriptor".into()))?;
    let dup = || fdio::dup(fd).map_err(|e| SpawnError::Pty(e.to_string()));
    let reader = dup()?;
    // The master is non-blocking for the reactor: writes wait for room by polling.
    let writer = Box::new(fdio::PollWriter(dup()?));

    let mut cmd = CommandBuilder::new(program);
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
            program: program.to_string(),
            source: match e.downcast::<io::Error>() {
                Ok(io) => io,
                Err(other) => io::Error::other(format!("{other:#}")),
            },
        })?;
    // Only the child may hold the slave side, so that its exit ends our reads.
    drop(pair.slave);
    let pid = child.process_id();
    // The reactor reaps by pid; the std Child handle is not needed (dropping it does
    // not signal the process).
    drop(child);
    Ok(Child {
        pid,
        master: pair.master,
        reader,
        writer,
    })
}

impl Drop for Inner {
    fn drop(&mut self) {
        let running = !self.shared.reaped.load(Ordering::SeqCst);
        if let (Some(pid), true, None) = (self.pid, running, &self.holder) {
            let _ = killpg(Pid::from_raw(pid as i32), Signal::SIGHUP);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tokio::sync::mpsc;

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
        let (tx, mut rx) = event_channel();
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
