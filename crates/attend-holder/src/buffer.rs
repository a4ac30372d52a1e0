//! The bounded output buffer of a holder while no daemon is connected: it keeps the
//! newest bytes and counts what it dropped (docs/decisions/0009-pane-holders.md#buffer).

use std::collections::VecDeque;

/// Output kept while the daemon is away: at most `cap` bytes, the newest ones.
#[derive(Debug)]
pub struct Backlog {
    bytes: VecDeque<u8>,
    cap: usize,
    dropped: u64,
}

impl Backlog {
    /// An empty buffer of at most `cap` bytes (0 keeps nothing and counts every byte).
    pub fn new(cap: usize) -> Backlog {
        Backlog {
            bytes: VecDeque::new(),
            cap,
            dropped: 0,
        }
    }

    /// Appends `data`, dropping the oldest bytes beyond the cap.
    pub fn push(&mut self, data: &[u8]) {
        let keep = data.len().min(self.cap);
        let skip = data.len() - keep;
        self.dropped += skip as u64;
        let over = (self.bytes.len() + keep).saturating_sub(self.cap);
        self.bytes.drain(..over);
        self.dropped += over as u64;
        self.bytes.extend(&data[skip..]);
    }

    /// Bytes held.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Bytes dropped since the last [`take`](Self::take).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Everything held, oldest first, and the dropped count; the buffer is empty after.
    pub fn take(&mut self) -> (Vec<u8>, u64) {
        let bytes: Vec<u8> = self.bytes.drain(..).collect();
        self.bytes.shrink_to_fit();
        (bytes, std::mem::take(&mut self.dropped))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest_bytes_and_counts_the_rest() {
        let mut b = Backlog::new(5);
        b.push(b"abc");
        b.push(b"defg");
        assert_eq!(b.len(), 5);
        assert_eq!(b.take(), (b"cdefg".to_vec(), 2));
        b.push(b"0123456789");
        assert_eq!(b.take(), (b"56789".to_vec(), 5));
        assert!(b.is_empty());
        assert_eq!(b.dropped(), 0);
    }

    #[test]
    fn a_zero_cap_keeps_nothing_and_counts_every_byte() {
        let mut b = Backlog::new(0);
        b.push(b"abc");
        b.push(b"defg");
        assert!(b.is_empty());
        assert_eq!(b.take(), (Vec::new(), 7));
    }

    #[test]
    fn under_the_cap_nothing_is_dropped() {
        let mut b = Backlog::new(1 << 20);
        for i in 0..1000 {
            b.push(format!("{i}\n").as_bytes());
        }
        let (bytes, dropped) = b.take();
        assert_eq!(dropped, 0);
        let text = String::from_utf8(bytes).unwrap();
        assert_eq!(text.lines().count(), 1000);
        assert_eq!(text.lines().last(), Some("999"));
    }
}
