//! The history of one pane's screen: the last `max` rows that scrolled off its top, each
//! the bytes of one row (src/service/pty/emulator.rs says which bytes), kept back to back
//! in one buffer rather than one allocation per row.
//!
//! A pane flooding its terminal replaces its whole history every batch (2 000 rows of a
//! `cat` about a hundred times a second); with one allocation per row, allocating and
//! freeing them was a third of the parser's time (`docs/benchmarks.md`, "PTY throughput:
//! unread chunks and the history in one buffer"). Rows are appended at the buffer's end
//! and dropped by moving its start; the buffer is compacted (the live rows moved to its
//! front) once the dropped bytes outnumber the live ones, so each byte is copied about
//! once more and the buffer holds at most twice the live rows plus one row.

use std::collections::VecDeque;

/// The rows (see the module docs).
#[derive(Debug, Default)]
pub(super) struct History {
    /// Dropped rows (before `start`), then the live rows, oldest first.
    bytes: Vec<u8>,
    /// Where the oldest live row starts in `bytes`.
    start: usize,
    /// The length of every live row, oldest first.
    lens: VecDeque<usize>,
    /// Most rows kept.
    max: usize,
}

impl History {
    /// An empty history that keeps at most `max` rows (0: none).
    pub(super) fn new(max: usize) -> History {
        History {
            max,
            ..History::default()
        }
    }

    /// Most rows kept.
    pub(super) fn max(&self) -> usize {
        self.max
    }

    /// Rows kept now.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.lens.len()
    }

    /// Appends one row, dropping the oldest beyond [`History::max`].
    pub(super) fn push(&mut self, row: &[u8]) {
        if self.max == 0 {
            return;
        }
        self.bytes.extend_from_slice(row);
        self.lens.push_back(row.len());
        while self.lens.len() > self.max {
            if let Some(len) = self.lens.pop_front() {
                self.start += len;
            }
        }
        let live = self.bytes.len() - self.start;
        if self.start > live {
            self.bytes.drain(..self.start);
            self.start = 0;
        }
    }

    /// The last `n` rows (oldest first).
    pub(super) fn last(&self, n: usize) -> Vec<Vec<u8>> {
        let n = n.min(self.lens.len());
        let mut end = self.bytes.len();
        let mut rows: Vec<Vec<u8>> = self
            .lens
            .iter()
            .rev()
            .take(n)
            .map(|&len| {
                let row = self.bytes[end - len..end].to_vec();
                end -= len;
                row
            })
            .collect();
        rows.reverse();
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(range: std::ops::Range<usize>) -> Vec<Vec<u8>> {
        range.map(|i| format!("row {i}").into_bytes()).collect()
    }

    #[test]
    fn keeps_the_newest_rows_in_order_through_compactions() {
        let mut h = History::new(3);
        let all = rows(0..1000);
        for (i, row) in all.iter().enumerate() {
            h.push(row);
            let kept = (i + 1).min(3);
            assert_eq!(h.len(), kept);
            assert_eq!(h.last(10), all[i + 1 - kept..=i].to_vec(), "after row {i}");
            // Dropped bytes never outnumber the live ones after a push.
            assert!(h.start <= h.bytes.len() - h.start, "after row {i}");
        }
        assert_eq!(h.last(2), all[998..].to_vec());
        assert_eq!(h.last(0), Vec::<Vec<u8>>::new());
    }

    #[test]
    fn empty_rows_count_and_no_history_keeps_nothing() {
        let mut h = History::new(2);
        for row in [&b"a"[..], b"", b"", b"b"] {
            h.push(row);
        }
        assert_eq!(h.last(5), vec![b"".to_vec(), b"b".to_vec()]);
        let mut none = History::new(0);
        none.push(b"x");
        assert_eq!((none.len(), none.last(1).len(), none.max()), (0, 0, 0));
    }
}
