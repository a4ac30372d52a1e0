//! What the PTY host reports to the daemon ([`PtyEvent`]) and the one bounded queue it
//! reports on ([`EventTx`], [`event_channel`]).

use crate::adapters::terminal_signals::TerminalEvent;
use crate::model::PaneId;
use tokio::sync::mpsc;

/// [`PtyEvent`]s queued for the owner by all panes together ([`event_channel`]): the
/// owner takes up to this many in one pass of its loop (src/service/owner.rs
/// `MAX_BATCH`), so one pass can empty a full queue.
pub const EVENT_QUEUE: usize = 256;

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

/// How the program ended (the payload of [`PtyEvent::Exited`]); the attach protocol
/// carries the same value to attached clients.
pub use crate::client::attach::frame::PtyExit;

/// The daemon's queue of [`PtyEvent`]s: bounded to [`EVENT_QUEUE`] events, so that the
/// PTY threads wait (back-pressure) when the owner is behind.
pub fn event_channel() -> (EventTx, mpsc::Receiver<PtyEvent>) {
    let (tx, rx) = mpsc::channel(EVENT_QUEUE);
    (EventTx(tx), rx)
}

/// Where PTYs (and the external panes' process watch, src/service/processes/procwatch.rs) report
/// their [`PtyEvent`]s: a bounded queue (the daemon's is [`event_channel`]; tests may
/// make their own of any capacity with `mpsc::channel`). Senders wait while it is full.
#[derive(Debug, Clone)]
pub struct EventTx(mpsc::Sender<PtyEvent>);

impl From<mpsc::Sender<PtyEvent>> for EventTx {
    fn from(tx: mpsc::Sender<PtyEvent>) -> EventTx {
        EventTx(tx)
    }
}

impl EventTx {
    /// Sends from a plain thread (never from async code: tokio panics), waiting while the
    /// queue is full. False once the receiver is gone.
    pub fn blocking_send(&self, ev: PtyEvent) -> bool {
        self.0.blocking_send(ev).is_ok()
    }

    /// Room for one event, or `None` when the queue is full (or closed): for a thread that
    /// must never wait (the reactor parsing a chunk itself, src/service/pty/batching.rs).
    pub fn try_reserve(&self) -> Option<mpsc::Permit<'_, PtyEvent>> {
        self.0.try_reserve().ok()
    }

    /// Sends from async code, waiting for room in the queue. False once the receiver is
    /// gone.
    pub async fn send(&self, ev: PtyEvent) -> bool {
        self.0.send(ev).await.is_ok()
    }

    /// Sends without ever waiting, for the owner task itself (the queue's only reader:
    /// waiting there would deadlock): when the queue is full, a task spawned on the
    /// current tokio runtime delivers the event once there is room.
    pub fn send_now(&self, ev: PtyEvent) {
        if let Err(mpsc::error::TrySendError::Full(ev)) = self.0.try_send(ev) {
            let tx = self.0.clone();
            tokio::spawn(async move {
                let _ = tx.send(ev).await;
            });
        }
    }
}
