//! Panes followed in the user's tmux (`docs/tmux.md`, ADR
//! `docs/decisions/0016-following-tmux.md`): their output is not read from a PTY of ours
//! but comes from a tmux control client (src/service/tmux/), which writes each followed
//! pane's unescaped `%output` into a pipe. The reactor reads that pipe like a PTY master,
//! so the bytes take the same way as an owned pane's — the terminal scanner, the parse
//! queue, the emulator, [`super::PtyEvent::Output`], the evidence ladder and the pane's
//! machine. The agent's exit comes from a `pidfd` of its process; keys go to tmux
//! ([`crate::service::tmux::TmuxKeys`]).

use super::events::EventTx;
use super::follow_spec::Followed;
use super::reactor::{self, PaneIo, Watch};
use super::shared::{Screen, Shared};
use super::{emulator, Inner, Master, PtyHandle, SpawnError};
use crate::model::PaneId;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// Opens a pidfd for `pid` (`pidfd_open(2)`, Linux ≥ 5.3), non-blocking.
fn pidfd_open(pid: u32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, libc::O_NONBLOCK) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the descriptor was just created and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

impl PtyHandle {
    /// Follows a tmux pane as pane `pane`: a `scrollback`-line screen of its size, fed
    /// `seed` and then whatever arrives on `output`, until its agent ends. Errors: the
    /// agent is already gone (no pidfd), or the reactor refused the pipe.
    pub fn follow(
        pane: PaneId,
        f: Followed,
        scrollback: usize,
        tx: impl Into<EventTx>,
    ) -> Result<PtyHandle, SpawnError> {
        let tx: EventTx = tx.into();
        let err = |e: io::Error| SpawnError::Pty(format!("cannot follow the tmux pane: {e}"));
        let pidfd = pidfd_open(f.agent_pid).map_err(err)?;
        let (rows, cols) = (f.size.0.max(1), f.size.1.max(1));
        let shared = Arc::new(Shared {
            screen: Mutex::new(Screen {
                term: emulator::Terminal::new(rows, cols, scrollback),
                broadcast: Some(broadcast::channel(super::BROADCAST_CAPACITY).0),
            }),
            wants_focus: AtomicBool::new(false),
            reaped: AtomicBool::new(false),
            exit: Mutex::new(None),
            exit_at: Mutex::new(None),
        });
        let io = PaneIo {
            pane,
            master: Some(f.output),
            prefix: f.seed,
            log: None,
            shared: shared.clone(),
            tx,
            watch: Watch::Pidfd(pidfd),
        };
        let io_id = reactor::host().and_then(|host| host.add(io)).map_err(err)?;
        Ok(PtyHandle {
            inner: Arc::new(Inner {
                pane,
                pid: Some(f.agent_pid),
                master: Mutex::new(Master(None)),
                writer: Mutex::new(f.keys),
                shared,
                holder: None,
                screen_log: None,
                io_id,
            }),
        })
    }
}

impl PtyHandle {
    /// Gives a followed pane's screen a new size (rows, cols), as its tmux pane got
    /// (`docs/tmux.md#resize`): the emulator only (the program's terminal is tmux's).
    /// Errors: a zero size.
    pub fn resize_followed(&self, rows: u16, cols: u16) -> io::Result<()> {
        if rows == 0 || cols == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "rows and cols must be positive",
            ));
        }
        super::shared::lock(&self.inner.shared.screen)
            .term
            .set_size(rows, cols);
        Ok(())
    }
}
