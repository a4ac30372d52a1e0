//! PTYs kept by a pane holder process (`docs/decisions/0009-pane-holders.md`): the daemon
//! got the master over the holder's socket and reads it with the same reader and parser
//! threads as its own PTYs; the waiter learns the exit from the holder instead of
//! `waitpid` (the holder is the program's parent).

use super::drain::{self, Parse};
use super::events::{EventTx, PtyExit};
use super::screen_log::ScreenLog;
use super::shared::{Screen, Shared};
use super::{start_threads, terminal, Inner, Master, PtyHandle, SpawnError, Waiter};
use crate::model::PaneId;
use attend_holder::client::Attached;
use attend_holder::proto::{ExitStatus, Frame};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::io::{self, Read};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// The line a pane's history shows where a holder dropped `dropped` bytes of output
/// because its buffer was full while no daemon was connected.
pub fn gap_line(dropped: u64) -> Vec<u8> {
    format!(
        "\r\n\x1b[m\x1b[7m[attend: {dropped} bytes of output were dropped while the service was away]\x1b[m\r\n"
    )
    .into_bytes()
}

impl PtyHandle {
    /// Takes over the PTY of a holder (just started, or found at start-up). The screen of
    /// a `scrollback`-line terminal of the holder's size is fed what `log` kept (a
    /// re-adopted pane: the screen and history the previous daemon showed, fed straight
    /// to the screen, so no BEL or notification in it fires twice), then a gap line if
    /// the holder dropped output, the holder's buffered output and the live PTY (these
    /// through the terminal scanner, and appended to `log`). The exit comes from the
    /// holder; a holder that vanishes without one ends the pane with an unknown status
    /// (its program is hung up first).
    pub fn adopt(
        pane: PaneId,
        attached: Attached,
        scrollback: usize,
        log: Option<(PathBuf, bool)>,
        tx: impl Into<EventTx>,
    ) -> Result<PtyHandle, SpawnError> {
        let tx: EventTx = tx.into();
        let Attached {
            sock,
            hello,
            master,
            backlog,
        } = attached;
        let pty = |e: io::Error| SpawnError::Pty(format!("cannot take over the holder's PTY: {e}"));
        let (restore, log) = match log {
            Some((path, true)) => (ScreenLog::read(&path), Some(path)),
            Some((path, false)) => (Vec::new(), Some(path)),
            None => (Vec::new(), None),
        };
        let open = match (&log, restore.is_empty()) {
            (Some(path), true) => ScreenLog::create(path.clone()).map(Some),
            (Some(path), false) => ScreenLog::append_to(path.clone()).map(Some),
            (None, _) => Ok(None),
        }
        .unwrap_or_else(|e| {
            tracing::warn!(%pane, "no screen log for the pane: {e}");
            None
        });
        let mut prefix = Vec::new();
        if hello.dropped > 0 {
            prefix.extend(gap_line(hello.dropped));
        }
        prefix.extend(backlog);
        let prefix = io::Cursor::new(prefix);
        let (reader, writer): (Box<dyn Read + Send>, Box<dyn io::Write + Send>) = match &master {
            Some(fd) => (
                Box::new(prefix.chain(std::fs::File::from(fd.try_clone().map_err(pty)?))),
                Box::new(std::fs::File::from(fd.try_clone().map_err(pty)?)),
            ),
            None => (Box::new(prefix), Box::new(io::sink())),
        };
        let mut term = terminal::Terminal::new(hello.rows.max(1), hello.cols.max(1), scrollback);
        term.feed(&restore);
        let shared = Arc::new(Shared {
            screen: Mutex::new(Screen {
                term,
                broadcast: Some(broadcast::channel(super::BROADCAST_CAPACITY).0),
            }),
            wants_focus: AtomicBool::new(false),
            reaped: AtomicBool::new(false),
            backlog: drain::Backlog::default(),
            exit: Mutex::new(None),
            exit_at: Mutex::new(None),
        });
        let child = hello.child_pid;
        let known = hello.exit;
        let read_sock = sock.try_clone().map_err(pty)?;
        let handle = PtyHandle {
            inner: Arc::new(Inner {
                pane,
                pid: Some(child),
                master: Mutex::new(Master::Held(master)),
                writer: Mutex::new(writer),
                shared: shared.clone(),
                holder: Some(sock),
                screen_log: log,
            }),
        };
        let waiter: Waiter = Box::new(move |shared, exit, eof| {
            wait_for_holder(read_sock, known, child, shared, exit, eof)
        });
        start_threads(pane, reader, &shared, &tx, waiter, open).map_err(pty)?;
        Ok(handle)
    }

    /// Tells the pane's holder that its program's exit is recorded, so it ends, and
    /// removes the pane's screen log (nothing for a PTY of this process).
    pub fn collected(&self) {
        if let Some(sock) = &self.inner.holder {
            let _ = Frame::Collected.write_to(&mut &*sock);
        }
        if let Some(path) = &self.inner.screen_log {
            ScreenLog::remove(path);
        }
    }

    /// When the pane's holder saw the program end (ms since the epoch, the hook client's
    /// clock): an exit during an outage is recorded at the time it happened. `None` for
    /// a PTY of this process or a holder that vanished.
    pub fn exit_at(&self) -> Option<u64> {
        *super::shared::lock(&self.inner.shared.exit_at)
    }

    /// True when a pane holder keeps this PTY (it outlives the daemon).
    pub fn is_held(&self) -> bool {
        self.inner.holder.is_some()
    }
}

/// The waiter of a held PTY: the exit the holder reported (before or now), else — the
/// holder vanished — hang the program up and report an unknown status; then drain and
/// queue the exit behind the output.
fn wait_for_holder(
    mut sock: UnixStream,
    known: Option<attend_holder::proto::ExitRecord>,
    child: u32,
    shared: &Shared,
    queue: std::sync::mpsc::SyncSender<Parse>,
    eof: std::sync::mpsc::Receiver<()>,
) {
    let record = known.or_else(|| loop {
        match Frame::read_from(&mut sock) {
            Ok(Some(Frame::Exit(e))) => break Some(e),
            Ok(Some(_)) => continue,
            Ok(None) | Err(_) => break None,
        }
    });
    *super::shared::lock(&shared.exit_at) = record.map(|r| r.at_ms);
    let exit = match record.map(|r| r.status) {
        Some(ExitStatus::Code(c)) => PtyExit {
            code: Some(c),
            signal: None,
        },
        Some(ExitStatus::Signal(s)) => PtyExit {
            code: None,
            signal: Some(s),
        },
        Some(ExitStatus::Unknown) => PtyExit {
            code: None,
            signal: None,
        },
        None => {
            tracing::warn!(
                child,
                "the pane's holder went away without an exit record; its program is hung up \
                 and the pane ends with an unknown status"
            );
            // Without its holder the program cannot outlive this daemon: end it as a
            // closed terminal would.
            let _ = killpg(Pid::from_raw(child as i32), Signal::SIGHUP);
            PtyExit {
                code: None,
                signal: None,
            }
        }
    };
    shared.reaped.store(true, Ordering::SeqCst);
    drain::wait_for_output(&eof, &shared.backlog);
    let _ = queue.send(Parse::Exit(exit));
}
