//! The state the PTY handles share with the reactor and the parsers.

use super::emulator::Terminal;
use super::events::PtyExit;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::broadcast;

/// Shared between the handles, the reactor and the parsers.
pub struct Shared {
    pub screen: Mutex<Screen>,
    pub wants_focus: AtomicBool,
    /// The child was reaped: its pid may belong to another process now, never signal it.
    pub reaped: AtomicBool,
    pub exit: Mutex<Option<PtyExit>>,
    /// When a pane holder saw the program end (ms since the epoch; held panes only).
    pub exit_at: Mutex<Option<u64>>,
}

/// The screen and the raw-output broadcast, under one lock so that a subscriber gets a
/// redraw and exactly the output after it.
pub struct Screen {
    pub term: Terminal,
    /// `None` once the program exited and its output was drained.
    pub broadcast: Option<broadcast::Sender<Arc<[u8]>>>,
}

pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Bytes that redraw the screen of `term` on a fresh terminal (see
/// `PtyHandle::screen_redraw`).
pub fn redraw(term: &Terminal) -> Vec<u8> {
    let screen = term.screen();
    let mut out = Vec::new();
    if screen.alternate_screen() {
        out.extend_from_slice(b"\x1b[?1049h");
    }
    out.extend(screen.state_formatted());
    out
}

/// A receiver of the raw output after now; closed at once when the output was drained.
pub fn subscribe(screen: &Screen) -> broadcast::Receiver<Arc<[u8]>> {
    match &screen.broadcast {
        Some(tx) => tx.subscribe(),
        None => broadcast::channel(1).1,
    }
}
