//! The screen of one pane: a vt100 parser for the live screen, and a compact ring of the
//! lines that scrolled off its top
//! (`docs/benchmarks.md#pty-throughput-profile-fix-beforeafter-item-3`,
//! `docs/benchmarks.md#memory-fix-beforeafter-item-5`).
//!
//! **History.** vt100 keeps scrollback as full rows of 32-byte cells (120 columns × 2 000
//! lines ≈ 7.7 MB per pane). Here vt100 keeps only [`STAGE`] rows of scrollback, a staging
//! area: after every piece of input the rows it pushed are moved into [`Terminal`]'s
//! history as compact bytes (the row as vt100's `rows_formatted` writes it: the text, SGR
//! changes and cursor-right moves over gaps, starting from default attributes at column 0;
//! about the length of the text). vt100 has no hook for "a row scrolled off", so the
//! number of rows a piece pushed is read from the scrollback offset, which vt100 advances
//! by one per pushed row while it is non-zero: the offset is set to 1 before the piece and
//! read after it. That count is exact while a piece pushes fewer than `STAGE` rows, so the
//! input is cut into pieces whose worst case stays below that (each LF, VT, FF, tab and
//! cursor-moving CSI may push one row, every `cols` printable bytes one wrap, `CSI n S`
//! up to `n`), and every sequence that can switch the grid (private-mode CSI such as
//! `?1049h`, and every escape that is not a CSI, e.g. RIS) is a piece of its own.
//!
//! **Coalescing.** The screen only needs the end of the stream: when a batch holds a long
//! run of plain lines (no ESC), with at least `rows` LFs before a CR LF and at least
//! `rows + history` LFs after it, the part before that CR LF cannot show on the screen
//! nor survive in the history, so it is replaced by `rows` CR LFs (which leave the cursor
//! and the pushed rows as the real lines would) and never parsed. Attributes and modes
//! cannot change inside such a run (no ESC), and it is never done while a scroll region
//! may be set (`CSI t;b r` seen and not reset since), where LF does not scroll the whole
//! screen. The terminal-event scanner runs before this on every byte (src/service/pty.rs).
//!
//! **Plain lines straight to the history.** After coalescing, the lines that follow and
//! end up in the history would each be parsed and then formatted back into the same
//! bytes: a line of printable ASCII ended by CR LF and written with default attributes
//! is exactly its own formatted row (one row per screen width when it wraps). Such lines (all but the
//! last `rows` LFs of the run) go into the history as they are; vt100 parses only the
//! rest. The screen vt100 still shows then is the coalescing's (the cursor at the start
//! of the bottom row, `rows - 1` rows above it that no real line would push), so the next
//! `rows - 1` rows it pushes are dropped ([`Terminal`]'s `drop_pushes`). Measured in
//! `docs/benchmarks.md#pty-throughput-batches`.
//!
//! **Unread chunks.** A parser feeds a flood in batches of read chunks
//! ([`Terminal::feed_batch`]). When a batch is plain lines throughout and its last chunks
//! alone hold enough LFs that coalescing would cut at the same LF inside them, the chunks
//! before those are never joined nor parsed (only searched for an ESC): coalescing would
//! have replaced them unread anyway, so the screen and history are the same
//! (`docs/benchmarks.md`, "PTY throughput: unread chunks and the history in one buffer").

use super::history::History;
use std::borrow::Cow;

/// Scrollback rows vt100 keeps (the staging area described in the module docs).
pub const STAGE: usize = 48;
/// The most rows one piece may push: below `STAGE`, so the count is exact.
const MAX_PUSH: usize = STAGE - 1;
/// Smallest screen side given to vt100: vt100 0.16 panics (an overflow in
/// `Grid::col_wrap`, then an unwrap) when text wraps on a 1-row screen or a wide
/// character lands on a 1-column one, which reset the screen on every wrap (found by
/// `tests/fuzz/pane.rs`). A 1-row or 1-column pane is emulated one row or column larger.
pub const MIN_SIZE: u16 = 2;

/// How many LFs coalescing looks back from the last place it could cut for one that ends
/// a line with CR LF.
const CUT_SEARCH: usize = 64;

const ESC: u8 = 0x1b;
const CAN: u8 = 0x18;
const SUB: u8 = 0x1a;

/// Where the stream is, as far as splitting into pieces needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seq {
    Ground,
    /// After ESC.
    Esc,
    /// ESC and intermediates (0x20–0x2F).
    EscInter,
    /// Inside `ESC [`.
    Csi,
}

/// The live screen (vt100) and the compact history of one pane.
pub struct Terminal {
    parser: vt100::Parser,
    history: History,
    seq: Seq,
    /// The current CSI has a private marker (`<`, `=`, `>`, `?`) or intermediates.
    csi_private: bool,
    /// The current CSI has parameter bytes.
    csi_params: bool,
    /// The current CSI's first numeric parameter (saturating).
    csi_n: u16,
    /// A scroll region may be set on the main (0) or alternate (1) grid: a `CSI … r` with
    /// parameters seen on that grid, and no `CSI r` on it or RIS since.
    region: [bool; 2],
    /// Lines never parsed thanks to coalescing.
    skipped: u64,
    /// The start of a UTF-8 character whose end has not come yet (see `run_piece`).
    utf8_tail: Vec<u8>,
    /// Rows vt100 pushes next that no real line would have pushed (see the module docs).
    drop_pushes: usize,
    /// History rows formatted from vt100's screen (not put there as they were).
    #[cfg(test)]
    formatted: u64,
    /// Chunks [`Terminal::unread_head`] spared.
    #[cfg(test)]
    unread: usize,
}

/// Cutting one `feed` call into pieces.
struct Cutter {
    start: usize,
    budget: usize,
    col_bytes: usize,
}

impl Terminal {
    /// A `rows`×`cols` screen that keeps `history` lines of history (at least
    /// [`MIN_SIZE`] each way).
    pub fn new(rows: u16, cols: u16, history: usize) -> Terminal {
        Terminal {
            parser: vt100::Parser::new(rows.max(MIN_SIZE), cols.max(MIN_SIZE), STAGE),
            history: History::new(history),
            seq: Seq::Ground,
            csi_private: false,
            csi_params: false,
            csi_n: 0,
            region: [false; 2],
            skipped: 0,
            utf8_tail: Vec::new(),
            drop_pushes: 0,
            #[cfg(test)]
            formatted: 0,
            #[cfg(test)]
            unread: 0,
        }
    }

    /// The live screen (scrollback offset always 0 between calls).
    pub fn screen(&self) -> &vt100::Screen {
        self.parser.screen()
    }

    /// Resizes the screen (at least [`MIN_SIZE`] each way).
    pub fn set_size(&mut self, rows: u16, cols: u16) {
        self.parser
            .screen_mut()
            .set_size(rows.max(MIN_SIZE), cols.max(MIN_SIZE));
    }

    /// The last `n` history lines (oldest first), each the formatted bytes of one screen
    /// row (see the module docs).
    pub fn history(&self, n: usize) -> Vec<Vec<u8>> {
        self.history.last(n)
    }

    /// Lines in the history (at most the `history` given to [`Terminal::new`]).
    #[cfg(test)]
    pub fn history_len(&self) -> usize {
        self.history.len()
    }

    /// Lines coalescing skipped so far.
    #[cfg(test)]
    pub fn skipped_lines(&self) -> u64 {
        self.skipped
    }

    /// Feeds output bytes (after the scanner removed OSC and other control strings). Should
    /// vt100 ever panic, the screen starts afresh (the history is kept).
    pub fn feed(&mut self, bytes: &[u8]) {
        let (rows, cols) = self.parser.screen().size();
        let (rows, cols) = (usize::from(rows), usize::from(cols));
        let mut cut = Cutter {
            start: 0,
            budget: 1,
            col_bytes: 0,
        };
        // Where the current escape sequence started (0: in an earlier call).
        let mut esc_start = 0;
        let mut i = 0;
        while i < bytes.len() {
            if self.seq == Seq::Ground {
                let end = memchr::memchr(ESC, &bytes[i..]).map_or(bytes.len(), |p| i + p);
                i = self.plain(bytes, i, end, &mut cut, rows, cols);
                if i < bytes.len() {
                    self.seq = Seq::Esc;
                    esc_start = i;
                    i += 1;
                }
                continue;
            }
            let b = bytes[i];
            match b {
                b'\n' | 0x0b | 0x0c | b'\t' => self.add(bytes, &mut cut, i, 1),
                ESC => {
                    self.seq = Seq::Esc;
                    esc_start = i;
                }
                CAN | SUB => self.seq = Seq::Ground,
                0x00..=0x1f => {}
                _ => self.sequence_byte(bytes, &mut cut, esc_start, i, rows),
            }
            i += 1;
        }
        self.cut(bytes, &mut cut, bytes.len());
    }

    /// Feeds a batch of `chunks` (a stream cut into pieces, in order) as one: the same
    /// screen and history as feeding each in turn. Returns how many leading chunks were
    /// never read ([`Terminal::unread_head`]) and the bytes fed (the rest, joined).
    pub fn feed_batch<'a>(&mut self, chunks: &[&'a [u8]]) -> (usize, Cow<'a, [u8]>) {
        let unread = self.unread_head(chunks);
        let bytes = match &chunks[unread..] {
            [one] => Cow::Borrowed(*one),
            many => Cow::Owned(many.concat()),
        };
        self.feed(&bytes);
        (unread, bytes)
    }

    /// How many leading `chunks` of a batch need not be read at all: feeding only the
    /// rest gives the same screen and history as feeding them all. Coalescing (module
    /// docs) would replace those chunks unparsed anyway, and knowing it early spares
    /// joining and parsing them: the batch is plain lines (no ESC, in the ground state, no
    /// scroll region) and the chunks after them hold enough LFs that coalescing cuts at
    /// the same LF from the one run they start (`rows + history` kept, `rows` before the
    /// cut and the [`CUT_SEARCH`] it looks back). 0 when not.
    fn unread_head(&mut self, chunks: &[&[u8]]) -> usize {
        if chunks.len() < 2 || self.seq != Seq::Ground || self.region[self.grid()] {
            return 0;
        }
        let rows = usize::from(self.parser.screen().size().0);
        let need = 2 * rows + self.history.max() + CUT_SEARCH + 1;
        let mut lfs = 0;
        let Some(first) = (1..chunks.len()).rev().find(|&j| {
            lfs += memchr::memchr_iter(b'\n', chunks[j]).count();
            lfs >= need
        }) else {
            return 0;
        };
        if chunks.iter().any(|c| memchr::memchr(ESC, c).is_some()) {
            return 0;
        }
        #[cfg(test)]
        {
            self.unread += first;
        }
        first
    }

    /// A plain run `bytes[i..end]` (no ESC) in the ground state; returns `end`.
    fn plain(
        &mut self,
        bytes: &[u8],
        i: usize,
        end: usize,
        cut: &mut Cutter,
        rows: usize,
        cols: usize,
    ) -> usize {
        let mut i = i;
        if let Some(skip_to) = self.coalescible(&bytes[i..end], rows) {
            self.cut(bytes, cut, i);
            // `rows` CR LFs in pieces that stay within the push budget.
            let mut left = rows;
            while left > 0 {
                let n = left.min(MAX_PUSH - 1);
                self.run_piece(&b"\r\n".repeat(n));
                left -= n;
            }
            i += skip_to;
            i += self.plain_lines_to_history(&bytes[i..end], rows, cols);
            cut.start = i;
        }
        for (k, &b) in bytes[i..end].iter().enumerate() {
            match b {
                b'\n' | 0x0b | 0x0c | b'\t' => self.add(bytes, cut, i + k, 1),
                b'\r' => cut.col_bytes = 0,
                0x20.. => {
                    cut.col_bytes += 1;
                    if cut.col_bytes >= cols {
                        cut.col_bytes = 0;
                        self.add(bytes, cut, i + k, 1);
                    }
                }
                _ => {}
            }
        }
        end
    }

    /// The grid vt100 is on: 0 the main screen, 1 the alternate one (each has its own
    /// scroll region).
    fn grid(&self) -> usize {
        usize::from(self.parser.screen().alternate_screen())
    }

    /// Puts the plain lines at the head of `run` (just after coalescing) into the history
    /// as they are, all but the last `rows` LFs' worth; returns the bytes taken (module
    /// docs).
    fn plain_lines_to_history(&mut self, run: &[u8], rows: usize, cols: usize) -> usize {
        let screen = self.parser.screen();
        let default_look = screen.fgcolor() == vt100::Color::Default
            && screen.bgcolor() == vt100::Color::Default
            && !(screen.bold()
                || screen.dim()
                || screen.italic()
                || screen.underline()
                || screen.inverse());
        if self.history.max() == 0 || screen.alternate_screen() || !default_look {
            return 0;
        }
        let most = memchr::memchr_iter(b'\n', run).count().saturating_sub(rows);
        let (mut taken, mut lines) = (0, 0);
        while lines < most {
            let Some(lf) = memchr::memchr(b'\n', &run[taken..]) else {
                break;
            };
            let Some(text) = run[taken..taken + lf].strip_suffix(b"\r") else {
                break;
            };
            if !text.iter().all(|b| (0x20..0x7f).contains(b)) {
                break;
            }
            // A line wider than the screen wraps: one row per `cols` bytes.
            if text.is_empty() {
                self.history.push(b"");
            }
            for row in text.chunks(cols) {
                self.history.push(row);
            }
            taken += lf + 1;
            lines += 1;
        }
        if lines > 0 {
            self.drop_pushes = rows - 1;
        }
        taken
    }

    /// Where the coalescible head of plain `run` ends (just after a CR LF), if it has one:
    /// at least `rows` LFs up to there and at least `rows + history` after.
    fn coalescible(&mut self, run: &[u8], rows: usize) -> Option<usize> {
        if self.region[self.grid()] {
            return None;
        }
        let keep = rows + self.history.max();
        let min = rows + keep;
        if run.len() <= min {
            return None;
        }
        let lfs = memchr::memchr_iter(b'\n', run).count();
        if lfs < min {
            return None;
        }
        // The LF with exactly `keep` LFs after it, then earlier ones, looking for a CR LF.
        let mut k = lfs - keep - 1;
        let mut pos = memchr::memchr_iter(b'\n', run).nth(k)?;
        for _ in 0..CUT_SEARCH {
            if pos > 0 && run[pos - 1] == b'\r' {
                self.skipped += k as u64 + 1;
                return Some(pos + 1);
            }
            if k < rows {
                return None;
            }
            k -= 1;
            pos = memchr::memrchr(b'\n', &run[..pos])?;
        }
        None
    }

    /// A byte of an escape sequence (not a C0 control).
    fn sequence_byte(
        &mut self,
        bytes: &[u8],
        cut: &mut Cutter,
        esc_start: usize,
        i: usize,
        rows: usize,
    ) {
        let b = bytes[i];
        match self.seq {
            Seq::Ground => {}
            Seq::Esc => match b {
                b'[' => {
                    self.seq = Seq::Csi;
                    self.csi_private = false;
                    self.csi_params = false;
                    self.csi_n = 0;
                }
                0x20..=0x2f => self.seq = Seq::EscInter,
                0x30..=0x7e => {
                    if b == b'c' {
                        self.region = [false; 2];
                    }
                    // May switch the grid (RIS) or move the cursor (DECRC): alone.
                    self.alone(bytes, cut, esc_start, i);
                    self.seq = Seq::Ground;
                }
                // DEL and bytes above 0x7F: stay (never assume the ground state early).
                _ => {}
            },
            Seq::EscInter => {
                if (0x30..=0x7e).contains(&b) {
                    self.seq = Seq::Ground;
                }
            }
            Seq::Csi => match b {
                b'0'..=b'9' => {
                    self.csi_params = true;
                    self.csi_n = self
                        .csi_n
                        .saturating_mul(10)
                        .saturating_add(u16::from(b - b'0'));
                }
                b';' | b':' => self.csi_params = true,
                b'<'..=b'?' | 0x20..=0x2f => self.csi_private = true,
                0x40..=0x7e => {
                    self.seq = Seq::Ground;
                    if self.csi_private {
                        // Modes, among them the alternate screen: alone.
                        self.alone(bytes, cut, esc_start, i);
                        return;
                    }
                    match b {
                        b'm' => {}
                        b'r' => {
                            // Private modes ran alone: vt100 is on the grid this
                            // sequence is for.
                            let grid = self.grid();
                            self.region[grid] = self.csi_params;
                            self.add(bytes, cut, esc_start.max(cut.start), 1);
                        }
                        b'S' => {
                            let n = usize::from(self.csi_n.max(1)).min(rows);
                            self.cut(bytes, cut, esc_start.max(cut.start));
                            cut.budget += n;
                            self.cut(bytes, cut, i + 1);
                        }
                        _ => self.add(bytes, cut, esc_start.max(cut.start), 1),
                    }
                }
                _ => {}
            },
        }
    }

    /// Makes `bytes[esc_start..=i]` a piece of its own.
    fn alone(&mut self, bytes: &[u8], cut: &mut Cutter, esc_start: usize, i: usize) {
        self.cut(bytes, cut, esc_start.max(cut.start));
        cut.budget += 1;
        self.cut(bytes, cut, i + 1);
    }

    /// Adds `n` possible pushes at byte `at`, first ending the piece before `at` when the
    /// budget would overflow.
    fn add(&mut self, bytes: &[u8], cut: &mut Cutter, at: usize, n: usize) {
        if cut.budget + n > MAX_PUSH {
            self.cut(bytes, cut, at);
        }
        cut.budget += n;
    }

    /// Runs `bytes[cut.start..at]` as a piece and starts the next one at `at`.
    fn cut(&mut self, bytes: &[u8], cut: &mut Cutter, at: usize) {
        if at > cut.start {
            self.run_piece(&bytes[cut.start..at]);
        }
        cut.start = at.max(cut.start);
        cut.budget = 1;
        cut.col_bytes = 0;
    }

    /// Processes one piece and moves the rows it pushed into the history.
    ///
    /// vt100 only ever gets whole UTF-8 characters: a character cut at the end of a piece
    /// waits for the next one. vte 0.15 (vt100's parser) mishandles a character split
    /// across two calls when what follows it holds another incomplete one: it drops the
    /// byte after the character (`\xc2` then `\xb7 \xe2` shows `·` and loses the space),
    /// so the screen depended on where the reads happened to end (found by
    /// `tests/fuzz/pane.rs`).
    fn run_piece(&mut self, piece: &[u8]) {
        let joined;
        let mut piece = piece;
        if !self.utf8_tail.is_empty() {
            joined = [std::mem::take(&mut self.utf8_tail).as_slice(), piece].concat();
            piece = &joined;
        }
        let (piece, tail) = piece.split_at(piece.len() - incomplete_utf8(piece));
        self.utf8_tail = tail.to_vec();
        if piece.is_empty() {
            return;
        }
        let screen = self.parser.screen_mut();
        let alt_before = screen.alternate_screen();
        screen.set_scrollback(usize::MAX);
        let had = screen.scrollback() > 0;
        screen.set_scrollback(usize::from(had));
        let ok =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.parser.process(piece)))
                .is_ok();
        if !ok {
            let (rows, cols) = self.parser.screen().size();
            self.parser = vt100::Parser::new(rows, cols, STAGE);
            return;
        }
        let screen = self.parser.screen_mut();
        let pushed = if alt_before || screen.alternate_screen() {
            0
        } else if had {
            screen.scrollback().saturating_sub(1)
        } else {
            screen.set_scrollback(usize::MAX);
            screen.scrollback()
        };
        if self.history.max() > 0 && pushed > 0 {
            let cols = screen.size().1;
            for back in (1..=pushed).rev() {
                if self.drop_pushes > 0 {
                    self.drop_pushes -= 1;
                    continue;
                }
                screen.set_scrollback(back);
                #[cfg(test)]
                {
                    self.formatted += 1;
                }
                if let Some(row) = screen.rows_formatted(0, cols).next() {
                    self.history.push(&row);
                }
            }
        }
        self.parser.screen_mut().set_scrollback(0);
    }
}

/// Length (0 to 3) of an incomplete UTF-8 character at the end of `bytes`: a lead byte
/// followed by fewer continuation bytes than it announces.
fn incomplete_utf8(bytes: &[u8]) -> usize {
    let n = bytes.len();
    for back in 1..=n.min(3) {
        let need = match bytes[n - back] {
            0x80..=0xbf => continue,
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => return 0,
        };
        return if back < need { back } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests;
