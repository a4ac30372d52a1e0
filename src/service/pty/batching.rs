//! When a parser takes a pane's queued output: at once, or a moment later as one larger
//! batch ([`decide`], a pure function of what the pane's queue knows; time passed in).
//!
//! Parsing costs a fixed amount per batch whatever its size: the screen keeps the last
//! `rows + history` lines of every batch, so those lines are always parsed, and only a
//! batch longer than that can skip (coalesce) the rest (src/service/pty/emulator.rs). A
//! program that floods its terminal (`cat` of a big file, a verbose build) is read a few
//! KiB at a time; parsed read by read, every byte goes through the terminal emulator and
//! the parsers, not the program, set the pace (measured in
//! `docs/benchmarks.md#pty-throughput-batches`). So output that arrives while the pane's
//! previous batch ended only a moment ago ([`HOT_GAP`]) waits up to [`FLOOD_DELAY`] to
//! grow, and is taken at once when it reaches [`FLOOD_BATCH_BYTES`]. Output after a quiet
//! moment (a keystroke's echo, an agent's redraw, the first bytes of a flood) is taken at
//! once: interactive latency is unchanged.
//!
//! A small chunk after a quiet moment, with nothing queued for its pane, is parsed by the
//! reactor on its own thread ([`parse_inline`]): an agent's spinner frame then wakes one
//! thread (the owner) instead of two (a parser, then the owner), as tmux parses in the
//! thread that reads. Anything larger, or part of a flood, goes to the parsers, so a
//! flood never holds up the reads of the other panes.

use std::time::{Duration, Instant};

/// A pane whose previous batch ended less than this long ago is flooding its terminal;
/// its output may wait ([`FLOOD_DELAY`]). Shorter than a frame at 60 Hz (16.7 ms), so a
/// TUI that redraws once per frame is never delayed.
pub const HOT_GAP: Duration = Duration::from_millis(5);

/// Longest a flooding pane's oldest queued byte waits before a parser takes the batch:
/// below one frame at 60 Hz, so a screen shown live never lags visibly.
pub const FLOOD_DELAY: Duration = Duration::from_millis(10);

/// A flooding pane's batch is taken at once when this many bytes are queued: enough
/// lines that most of them can be coalesced (a 2 000-line history of 94-byte lines is
/// ≈ 190 KB).
pub const FLOOD_BATCH_BYTES: usize = 1024 * 1024;

/// Most bytes of a chunk the reactor parses itself ([`parse_inline`]): a redraw of a
/// spinner or a status line (an agent's frame is 0.1–2 KiB), never a flood's read.
pub const INLINE_MAX_BYTES: usize = 4 * 1024;

/// What the reactor knows of a pane when a chunk of `bytes` was read ([`parse_inline`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Arrival {
    /// Screen bytes of the chunk.
    pub(super) bytes: usize,
    /// Nothing is queued for the pane and no parser has it (queued, working or put
    /// aside), so parsing here keeps the pane's order.
    pub(super) idle: bool,
    /// When the pane's previous batch ended (`None`: never parsed).
    pub(super) last_batch: Option<Instant>,
    /// The screen log holds a flood's output back (it is written by the parsers).
    pub(super) log_holds: bool,
}

/// True when the reactor parses the chunk of `a` itself, at `now` (the module docs give
/// the rule): small, its pane idle, and not part of a flood.
pub(super) fn parse_inline(a: Arrival, now: Instant) -> bool {
    let hot = a
        .last_batch
        .is_some_and(|last| now.saturating_duration_since(last) < HOT_GAP);
    a.idle && !hot && !a.log_holds && a.bytes <= INLINE_MAX_BYTES
}

/// What a pane's parse queue knows when a parser is about to take it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Queued {
    /// Bytes of output queued.
    pub(super) bytes: usize,
    /// When the oldest queued chunk was queued (`None`: no output queued).
    pub(super) oldest: Option<Instant>,
    /// When the pane's previous batch ended (`None`: never parsed).
    pub(super) last_batch: Option<Instant>,
    /// The program's exit is queued, or the reader waits for room: nothing may wait.
    pub(super) urgent: bool,
}

/// A parser's call on a pane ([`decide`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Take {
    /// Take the batch now.
    Now,
    /// Put the pane aside until then (or until [`FLOOD_BATCH_BYTES`] are queued).
    At(Instant),
}

/// True when `q`'s output is part of a flood: it came less than [`HOT_GAP`] after the
/// pane's previous batch ended (the screen log holds such output back too:
/// src/service/pty/screen_log.rs).
pub(super) fn is_flood(q: Queued) -> bool {
    matches!((q.oldest, q.last_batch),
        (Some(oldest), Some(last)) if oldest.saturating_duration_since(last) < HOT_GAP)
}

/// Whether a parser takes `q` now or later (the module docs give the rule).
pub(super) fn decide(q: Queued, now: Instant) -> Take {
    // Quiet before this output (or nothing queued): take it at once.
    let (true, Some(oldest)) = (is_flood(q), q.oldest) else {
        return Take::Now;
    };
    if q.urgent || q.bytes >= FLOOD_BATCH_BYTES {
        return Take::Now;
    }
    let due = oldest + FLOOD_DELAY;
    if due <= now {
        Take::Now
    } else {
        Take::At(due)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn queued(t0: Instant, last: Option<u64>, oldest: u64, bytes: usize) -> Queued {
        Queued {
            bytes,
            oldest: Some(t0 + ms(oldest)),
            last_batch: last.map(|l| t0 + ms(l)),
            urgent: false,
        }
    }

    #[test]
    fn output_after_a_quiet_moment_is_taken_at_once() {
        let t0 = Instant::now();
        // Never parsed before.
        assert_eq!(decide(queued(t0, None, 100, 10), t0 + ms(100)), Take::Now);
        // The previous batch ended 50 ms before this output came.
        assert_eq!(
            decide(queued(t0, Some(50), 100, 10), t0 + ms(100)),
            Take::Now
        );
        // Exactly HOT_GAP later counts as quiet.
        assert_eq!(
            decide(queued(t0, Some(95), 100, 10), t0 + ms(100)),
            Take::Now
        );
    }

    #[test]
    fn a_flood_waits_for_a_larger_batch_until_its_delay_passed() {
        let t0 = Instant::now();
        let q = queued(t0, Some(99), 100, 4096);
        assert_eq!(
            decide(q, t0 + ms(101)),
            Take::At(t0 + ms(100) + FLOOD_DELAY)
        );
        assert_eq!(decide(q, t0 + ms(100) + FLOOD_DELAY), Take::Now);
    }

    #[test]
    fn a_big_queue_an_exit_or_a_waiting_reader_is_taken_at_once() {
        let t0 = Instant::now();
        let big = queued(t0, Some(99), 100, FLOOD_BATCH_BYTES);
        assert_eq!(decide(big, t0 + ms(100)), Take::Now);
        let urgent = Queued {
            urgent: true,
            ..queued(t0, Some(99), 100, 10)
        };
        assert_eq!(decide(urgent, t0 + ms(100)), Take::Now);
    }

    #[test]
    fn only_a_small_chunk_of_an_idle_quiet_pane_is_parsed_inline() {
        let t0 = Instant::now();
        let frame = Arrival {
            bytes: 180,
            idle: true,
            last_batch: Some(t0),
            log_holds: false,
        };
        assert!(parse_inline(frame, t0 + ms(110)), "a spinner frame");
        assert!(parse_inline(
            Arrival {
                last_batch: None,
                ..frame
            },
            t0
        ));
        assert!(!parse_inline(frame, t0 + ms(2)), "a flood's next read");
        assert!(!parse_inline(
            Arrival {
                idle: false,
                ..frame
            },
            t0 + ms(110)
        ));
        assert!(!parse_inline(
            Arrival {
                log_holds: true,
                ..frame
            },
            t0 + ms(110)
        ));
        assert!(!parse_inline(
            Arrival {
                bytes: INLINE_MAX_BYTES + 1,
                ..frame
            },
            t0 + ms(110)
        ));
    }

    #[test]
    fn nothing_queued_is_taken_at_once() {
        let t0 = Instant::now();
        let q = Queued {
            bytes: 0,
            oldest: None,
            last_batch: Some(t0),
            urgent: false,
        };
        assert_eq!(decide(q, t0), Take::Now);
    }
}
