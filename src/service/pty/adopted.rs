//! PTYs kept by a pane holder process (`docs/decisions/0009-pane-holders.md`): the daemon
//! got the master over the holder's socket and reads it in the same reactor and parsers
//! as its own PTYs (src/service/pty/reactor.rs); the reactor learns the exit from the
//! holder's socket instead of a pidfd (the holder is the program's parent).

use super::events::EventTx;
use super::fdio::PollWriter;
use super::reactor::{self, PaneIo, Watch};
use super::screen_log::{self, ScreenLog};
use super::shared::{Screen, Shared};
use super::{emulator, Inner, Master, PtyHandle, SpawnError};
use crate::model::PaneId;
use attend_holder::client::Attached;
use attend_holder::proto::Frame;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
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
        let size = (hello.rows.max(1), hello.cols.max(1));
        let pty = |e: io::Error| SpawnError::Pty(format!("cannot take over the holder's PTY: {e}"));
        let (restore, log) = match log {
            Some((path, true)) => (ScreenLog::read(&path), Some(path)),
            Some((path, false)) => (Vec::new(), Some(path)),
            None => (Vec::new(), None),
        };
        let open = match (&log, restore.is_empty()) {
            (Some(path), true) => ScreenLog::create(path.clone(), size).map(Some),
            (Some(path), false) => ScreenLog::append_to(path.clone(), size).map(Some),
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
        let (reader, writer): (_, Box<dyn io::Write + Send>) = match &master {
            Some(fd) => (
                Some(fd.try_clone().map_err(pty)?),
                // The master is non-blocking for the reactor: writes wait by polling.
                Box::new(PollWriter(fd.try_clone().map_err(pty)?)),
            ),
            None => (None, Box::new(io::sink())),
        };
        let mut term = emulator::Terminal::new(size.0, size.1, scrollback);
        screen_log::replay(&restore, &mut term);
        let shared = Arc::new(Shared {
            screen: Mutex::new(Screen {
                term,
                broadcast: Some(broadcast::channel(super::BROADCAST_CAPACITY).0),
            }),
            wants_focus: AtomicBool::new(false),
            reaped: AtomicBool::new(false),
            exit: Mutex::new(None),
            exit_at: Mutex::new(None),
        });
        let child = hello.child_pid;
        let watch = Watch::Holder {
            sock: sock.try_clone().map_err(pty)?,
            child,
            known: hello.exit,
        };
        let io = PaneIo {
            pane,
            master: reader,
            prefix,
            log: open,
            shared: shared.clone(),
            tx,
            watch,
        };
        let io_id = reactor::host().and_then(|host| host.add(io)).map_err(pty)?;
        Ok(PtyHandle {
            inner: Arc::new(Inner {
                pane,
                pid: Some(child),
                master: Mutex::new(Master(master)),
                writer: Mutex::new(writer),
                shared,
                holder: Some(sock),
                screen_log: log,
                io_id,
            }),
        })
    }

    /// Tells the pane's holder that its program's exit is recorded, so it ends, and
    /// removes the pane's screen log.
    pub fn collected(&self) {
        if let Some(holder) = &self.inner.holder {
            let _ = Frame::Collected.write_to(&mut &*holder);
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
}
