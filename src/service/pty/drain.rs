//! The order of a pane's last output and its exit (src/service/pty.rs module docs).
//!
//! The reactor hands both its output chunks and the exit to the pane's parse queue
//! ([`Parse`]) and only a parser sends [`super::events::PtyEvent`]s, one pane at a time
//! in queue order, so the exit can never overtake output that was read before it.
//!
//! When to queue the exit is [`decide`]'s call, a pure function of what the reactor knows:
//! at once when the reader reached end of file (every byte of the program is queued),
//! or once [`EXIT_DRAIN_GRACE`] passed in which the reader never waited for room in the
//! parse queue (a background process keeps the terminal open). Time the reader spends
//! waiting for room (a busy owner holds the parsers, the queue fills) does not count: that
//! output belongs before the exit. The reader's pauses are counted ([`Drain`]) so that a
//! pause that began and ended within one grace is seen too.

use super::events::PtyExit;
use crate::adapters::terminal_signals::TerminalEvent;
use std::time::{Duration, Instant};

/// How long, after the child exited, the reader may drain output before the exit is
/// reported anyway (a background process may keep the terminal open forever); time the
/// reader waits for room in the parse queue does not count.
pub const EXIT_DRAIN_GRACE: Duration = Duration::from_secs(1);

/// One read chunk on its way from the reactor to a parser.
pub(super) struct Chunk {
    /// What the screen gets (the scanner's filtered bytes).
    pub(super) screen: Vec<u8>,
    /// The raw bytes for attach clients; `None` when the same as `screen` (nothing was
    /// filtered out).
    pub(super) raw: Option<Vec<u8>>,
    pub(super) events: Vec<TerminalEvent>,
    pub(super) printable: bool,
}

/// What a parser takes from a pane's queue, in the order it was queued.
pub(super) enum Parse {
    /// Output read from the PTY.
    Chunk(Chunk),
    /// The program ended: the parser sends the output queued before this, then the exit.
    Exit(PtyExit),
    /// The terminal was resized to `rows`×`cols` here, between the chunks before and
    /// after (recorded in the screen log in that order).
    Resize(u16, u16),
}

/// The grace window of a pane whose program ended: since when, and how many times the
/// reader had paused (waited for room in the parse queue) when it began.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Drain {
    since: Instant,
    pauses: u64,
}

/// What the reader of an exited program is doing, as [`decide`] needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Reader {
    /// It reached end of file: every byte is queued.
    pub(super) eof: bool,
    /// It waits for room in the parse queue now.
    pub(super) paused: bool,
    /// How many times it began to wait for room, ever.
    pub(super) pauses: u64,
}

/// [`decide`]'s answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decision {
    /// Queue the exit now.
    Report,
    /// Ask again at this instant (or when the reader's state changes).
    WaitUntil(Instant),
}

impl Drain {
    /// The window that opens when the exit became known at `now`.
    pub(super) fn start(now: Instant, reader: Reader) -> Drain {
        Drain {
            since: now,
            pauses: reader.pauses,
        }
    }
}

/// Whether to queue the exit now (see the module docs); a window in which the reader
/// paused is followed by a fresh one.
pub(super) fn decide(drain: &mut Drain, reader: Reader, now: Instant) -> Decision {
    if reader.eof && !reader.paused {
        return Decision::Report;
    }
    let end = drain.since + EXIT_DRAIN_GRACE;
    if now < end {
        return Decision::WaitUntil(end);
    }
    if !reader.paused && reader.pauses == drain.pauses {
        return Decision::Report;
    }
    *drain = Drain::start(now, reader);
    Decision::WaitUntil(now + EXIT_DRAIN_GRACE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(eof: bool, paused: bool, pauses: u64) -> Reader {
        Reader {
            eof,
            paused,
            pauses,
        }
    }

    #[test]
    fn end_of_file_reports_at_once() {
        let t = Instant::now();
        let mut d = Drain::start(t, reader(false, false, 0));
        assert_eq!(decide(&mut d, reader(true, false, 0), t), Decision::Report);
    }

    #[test]
    fn a_silent_open_terminal_reports_after_one_grace() {
        let t = Instant::now();
        let r = reader(false, false, 0);
        let mut d = Drain::start(t, r);
        let almost = t + EXIT_DRAIN_GRACE - Duration::from_millis(1);
        assert_eq!(
            decide(&mut d, r, almost),
            Decision::WaitUntil(t + EXIT_DRAIN_GRACE)
        );
        assert_eq!(decide(&mut d, r, t + EXIT_DRAIN_GRACE), Decision::Report);
    }

    /// A reader held up by a full parse queue keeps the exit back, however long.
    #[test]
    fn a_reader_waiting_for_room_holds_the_exit_back() {
        let t = Instant::now();
        let mut d = Drain::start(t, reader(false, true, 1));
        for k in 1..10u32 {
            let now = t + EXIT_DRAIN_GRACE * k;
            assert!(matches!(
                decide(&mut d, reader(false, true, 1), now),
                Decision::WaitUntil(_)
            ));
        }
        // Paused even at end of file (its last chunk is not queued yet).
        assert!(matches!(
            decide(&mut d, reader(true, true, 1), t + EXIT_DRAIN_GRACE * 20),
            Decision::WaitUntil(_)
        ));
    }

    /// A pause that began and ended inside the window still opens a fresh one.
    #[test]
    fn a_pause_within_the_window_opens_another() {
        let t = Instant::now();
        let mut d = Drain::start(t, reader(false, false, 3));
        let end = t + EXIT_DRAIN_GRACE;
        assert_eq!(
            decide(&mut d, reader(false, false, 4), end),
            Decision::WaitUntil(end + EXIT_DRAIN_GRACE)
        );
        assert_eq!(
            decide(&mut d, reader(false, false, 4), end + EXIT_DRAIN_GRACE),
            Decision::Report
        );
    }
}
