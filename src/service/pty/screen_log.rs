//! The screen log of a held pane (`docs/decisions/0009-pane-holders.md#screen-log`): every
//! byte the pane's screen was fed (after the terminal scanner took out control strings),
//! appended by the reactor as it reads, so a daemon that starts after a crash
//! rebuilds the screen and history the previous one showed by feeding it again. Bounded:
//! at [`SCREEN_LOG_BYTES`] the file becomes `pN.log.old` (replacing the older one) and a new
//! one starts, so between one and two caps are kept.
//!
//! **Sizes.** The bytes were printed for the terminal size of their time, and a pane is
//! resized often (every attach fits it to the client's terminal), so the log records the
//! size too: a marker `ESC _ attend-size=ROWS,COLS ESC \` (an APC string) at the start of
//! every file and at every resize. The terminal scanner takes every APC string out of what
//! a program prints before the log sees it, so a marker is always the log's own. [`replay`]
//! resizes the screen at each marker, as the live screen was.
//!
//! **Floods.** Output a pane floods its terminal with (src/service/pty/batching.rs) is
//! not written as it comes: only the newest two caps of it are kept ([`ScreenLog::hold`],
//! the older bytes could never be replayed anyway) and written when the flood pauses or
//! at least every [`FLOOD_FLUSH`]. The chunks of a batch the screen's parser skipped
//! (`Terminal::feed_batch`) are kept like any others ([`ScreenLog::hold_chunks`]): the
//! log is the pane's record (a re-adopted pane's output is checked against it), so only
//! the two caps bound it. Writing every byte of a 256 MiB `cat` cost the daemon
//! 0.6 s of CPU and the pane a third of its drain rate (docs/benchmarks.md "PTY
//! throughput: the reader"); so a daemon killed during a flood rebuilds the screen of up
//! to [`FLOOD_FLUSH`] before, and the output since comes from the holder, as always.

use super::emulator::Terminal;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Longest a flood's output is held before it is written (see the module docs).
pub const FLOOD_FLUSH: Duration = Duration::from_secs(1);

/// Bytes per log file before it rotates (so 256–512 KiB of screen bytes per pane are kept:
/// more than the default 2 000 lines of history hold in plain text).
pub const SCREEN_LOG_BYTES: u64 = 256 * 1024;

/// An open screen log, appended to by the reactor (src/service/pty/reactor.rs).
#[derive(Debug)]
pub struct ScreenLog {
    path: PathBuf,
    file: File,
    len: u64,
    /// The pane's terminal size (rows, cols), recorded at the start of every file.
    size: (u16, u16),
    /// A flood's newest bytes, not yet written ([`ScreenLog::hold`]).
    held: Vec<u8>,
    /// Bytes of the flood that were dropped from `held` (too old to be kept).
    held_dropped: bool,
    /// When the oldest bytes in `held` came.
    held_since: Option<Instant>,
}

const MARK_START: &[u8] = b"\x1b_attend-size=";
const MARK_END: &[u8] = b"\x1b\\";

/// The size marker for `rows`×`cols` (see the module docs).
fn marker((rows, cols): (u16, u16)) -> Vec<u8> {
    let mut m = MARK_START.to_vec();
    m.extend(format!("{rows},{cols}").as_bytes());
    m.extend(MARK_END);
    m
}

/// Feeds what a log kept to `term`, resizing it at every size marker (see the module
/// docs); a malformed marker is skipped.
pub fn replay(bytes: &[u8], term: &mut Terminal) {
    let mut rest = bytes;
    while let Some(at) = memchr::memmem::find(rest, MARK_START) {
        term.feed(&rest[..at]);
        let after = &rest[at + MARK_START.len()..];
        let Some(end) = memchr::memmem::find(after, MARK_END) else {
            return;
        };
        let size = std::str::from_utf8(&after[..end]).ok().and_then(|s| {
            let (r, c) = s.split_once(',')?;
            Some((r.parse::<u16>().ok()?, c.parse::<u16>().ok()?))
        });
        if let Some((rows, cols)) = size.filter(|(r, c)| *r > 0 && *c > 0) {
            term.set_size(rows, cols);
        }
        rest = &after[end + MARK_END.len()..];
    }
    term.feed(rest);
}

fn open(path: &Path, truncate: bool) -> io::Result<File> {
    OpenOptions::new()
        .create(true)
        .append(!truncate)
        .write(true)
        .truncate(truncate)
        .mode(0o600)
        .open(path)
}

/// The first line start at or after `from` (after its `\n`), else `from`: a log that
/// begins mid-line or mid-sequence would replay a stray fragment.
fn line_start(bytes: &[u8], from: usize) -> usize {
    memchr::memchr(b'\n', &bytes[from..]).map_or(from, |i| from + i + 1)
}

fn old(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".old");
    PathBuf::from(p)
}

impl ScreenLog {
    /// A fresh log at `path` for a terminal of `size` (rows, cols) (a new pane, or a
    /// resumed one): older bytes are gone.
    pub fn create(path: PathBuf, size: (u16, u16)) -> io::Result<ScreenLog> {
        let _ = std::fs::remove_file(old(&path));
        let file = open(&path, true)?;
        let mut log = ScreenLog::with(path, file, 0, size);
        log.write(&marker(size));
        Ok(log)
    }

    fn with(path: PathBuf, file: File, len: u64, size: (u16, u16)) -> ScreenLog {
        ScreenLog {
            path,
            file,
            len,
            size,
            held: Vec::new(),
            held_dropped: false,
            held_since: None,
        }
    }

    /// The log at `path` continued (a re-adopted pane) with a terminal of `size` now.
    pub fn append_to(path: PathBuf, size: (u16, u16)) -> io::Result<ScreenLog> {
        let file = open(&path, false)?;
        let len = file.metadata()?.len();
        let mut log = ScreenLog::with(path, file, len, size);
        log.write(&marker(size));
        Ok(log)
    }

    /// Records that the pane's terminal is now `rows`×`cols`.
    pub fn resize(&mut self, rows: u16, cols: u16) {
        if self.size != (rows, cols) {
            self.flush();
            self.size = (rows, cols);
            self.append(&marker(self.size));
        }
    }

    /// Everything kept at `path`, oldest first (empty when there is none).
    pub fn read(path: &Path) -> Vec<u8> {
        let mut bytes = std::fs::read(old(path)).unwrap_or_default();
        bytes.extend(std::fs::read(path).unwrap_or_default());
        bytes
    }

    /// Removes the log at `path` (the pane's program ended: nothing to rebuild).
    pub fn remove(path: &Path) {
        let _ = std::fs::remove_file(old(path));
        let _ = std::fs::remove_file(path);
    }

    /// Appends `bytes` (after what a flood left held), rotating first when the file is
    /// full. A failed write (full disk) is given up for this chunk: the screen log is a
    /// convenience, never a reason to hold the program's output back.
    pub fn append(&mut self, bytes: &[u8]) {
        self.flush();
        self.write_rotating(bytes);
    }

    /// Keeps a flood's `bytes` (arrived at `now`) to write later: only the newest two
    /// caps are kept (cut at a line start), and everything held is written once it has
    /// waited [`FLOOD_FLUSH`]. The caller calls [`ScreenLog::flush`] when the flood
    /// pauses ([`ScreenLog::holds`] says whether it must).
    pub fn hold(&mut self, bytes: &[u8], now: Instant) {
        self.hold_chunks(&[bytes], now);
    }

    /// [`ScreenLog::hold`] of the `chunks` joined, without joining them: a chunk older
    /// than the newest two caps (the head of a long batch) is never copied. The bytes
    /// kept are exactly those `hold` of the joined chunks keeps.
    pub fn hold_chunks(&mut self, chunks: &[&[u8]], now: Instant) {
        let total: usize = chunks.iter().map(|c| c.len()).sum();
        if total == 0 {
            return;
        }
        let keep = 2 * SCREEN_LOG_BYTES as usize;
        // Where the kept bytes may start in the held bytes and the chunks after them;
        // the cut is the first line start from there.
        let from = (self.held.len() + total).saturating_sub(keep);
        let mut skip = from.saturating_sub(self.held.len());
        let start = if skip > 0 {
            self.held.clear();
            0
        } else {
            from
        };
        for c in chunks {
            let s = skip.min(c.len());
            skip -= s;
            self.held.extend_from_slice(&c[s..]);
        }
        if from > 0 {
            let cut = line_start(&self.held, start);
            self.held.drain(..cut);
            self.held_dropped = true;
        }
        let since = *self.held_since.get_or_insert(now);
        if now.saturating_duration_since(since) >= FLOOD_FLUSH {
            self.flush();
        }
    }

    /// True while a flood's bytes wait to be written.
    pub fn holds(&self) -> bool {
        !self.held.is_empty()
    }

    /// Writes what a flood left held: appended as usual, or, when older bytes of it were
    /// dropped, as the whole log (its older bytes would join the newest with a gap).
    pub fn flush(&mut self) {
        self.held_since = None;
        if self.held.is_empty() {
            return;
        }
        let held = std::mem::take(&mut self.held);
        if !std::mem::take(&mut self.held_dropped) {
            self.write_rotating(&held);
            return;
        }
        let split = line_start(&held, held.len().saturating_sub(SCREEN_LOG_BYTES as usize));
        let older = [marker(self.size).as_slice(), &held[..split]].concat();
        if std::fs::write(old(&self.path), older).is_err() {
            let _ = std::fs::remove_file(old(&self.path));
        }
        if let Ok(f) = open(&self.path, true) {
            self.file = f;
            self.len = 0;
            self.write(&marker(self.size));
            self.write(&held[split..]);
        }
    }

    fn write_rotating(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let full = self.len + bytes.len() as u64 > SCREEN_LOG_BYTES && self.len > 0;
        if full && std::fs::rename(&self.path, old(&self.path)).is_ok() {
            if let Ok(f) = open(&self.path, true) {
                self.file = f;
                self.len = 0;
                self.write(&marker(self.size));
            }
        }
        self.write(bytes);
    }

    fn write(&mut self, bytes: &[u8]) {
        if self.file.write_all(bytes).is_ok() {
            self.len += bytes.len() as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_between_one_and_two_caps_of_the_newest_bytes_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p1.log");
        let mut log = ScreenLog::create(path.clone(), (24, 80)).unwrap();
        let mut all = Vec::new();
        for i in 0..100_000u32 {
            let line = format!("{i}\r\n");
            log.append(line.as_bytes());
            all.extend(line.as_bytes());
        }
        let kept = ScreenLog::read(&path);
        assert!(kept.len() as u64 >= SCREEN_LOG_BYTES && kept.len() as u64 <= 2 * SCREEN_LOG_BYTES);
        let text: Vec<u8> = without_markers(&kept);
        assert!(all.ends_with(&text), "the newest bytes, in order");
        drop(log);
        let mut more = ScreenLog::append_to(path.clone(), (24, 80)).unwrap();
        more.append(b"tail");
        let resumed = [b"\r\n".to_vec(), marker((24, 80)), b"tail".to_vec()].concat();
        assert!(ScreenLog::read(&path).ends_with(&resumed));
        ScreenLog::create(path.clone(), (24, 80)).unwrap();
        assert_eq!(
            ScreenLog::read(&path),
            marker((24, 80)),
            "a new pane starts empty"
        );
        ScreenLog::remove(&path);
        assert!(!path.exists());
    }

    /// A flood held back: nothing written until it is flushed (its time passed or the
    /// caller saw it pause), then only its newest two caps, from a line start, and the
    /// replay shows the same screen as the live terminal.
    #[test]
    fn a_flood_is_written_late_and_only_its_newest_two_caps() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p1.log");
        let mut live = Terminal::new(10, 80, 100);
        let mut log = ScreenLog::create(path.clone(), (10, 80)).unwrap();
        log.append(b"before the flood\r\n");
        live.feed(b"before the flood\r\n");
        let t0 = Instant::now();
        let mut all = Vec::new();
        for i in 0..100_000u32 {
            let line = format!("line {i}\r\n");
            live.feed(line.as_bytes());
            all.extend(line.as_bytes());
            log.hold(line.as_bytes(), t0);
        }
        assert!(log.holds());
        assert!(
            without_markers(&ScreenLog::read(&path)).ends_with(b"before the flood\r\n"),
            "held bytes are not written before their time"
        );
        // Its time passed: written with the next bytes held.
        log.hold(b"last\r\n", t0 + FLOOD_FLUSH);
        live.feed(b"last\r\n");
        all.extend(b"last\r\n");
        assert!(!log.holds());
        let kept = ScreenLog::read(&path);
        let text = without_markers(&kept);
        assert!(all.ends_with(&text), "the newest bytes, in order");
        assert!(text.starts_with(b"line "), "from a line start");
        assert!(
            text.len() as u64 > SCREEN_LOG_BYTES && kept.len() as u64 <= 2 * SCREEN_LOG_BYTES + 64
        );
        let mut rebuilt = Terminal::new(10, 80, 100);
        replay(&kept, &mut rebuilt);
        assert_eq!(rebuilt.screen().contents(), live.screen().contents());
        // A short flood, nothing dropped: flushed as an ordinary append.
        log.hold(b"short\r\n", t0);
        log.flush();
        assert!(without_markers(&ScreenLog::read(&path)).ends_with(b"last\r\nshort\r\n"));
    }

    /// A flood whose parser skipped chunks the screen could no longer show
    /// (`Terminal::feed_batch`): the log still keeps every byte, after what was written
    /// before the flood, and the replay shows the live screen and history.
    #[test]
    fn a_flood_whose_head_was_not_parsed_keeps_every_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p1.log");
        let mut live = Terminal::new(10, 80, 100);
        let mut log = ScreenLog::create(path.clone(), (10, 80)).unwrap();
        let t0 = Instant::now();
        log.append(b"written before\r\n");
        log.hold(b"held before\r\n", t0);
        live.feed(b"written before\r\nheld before\r\n");
        let stream: Vec<u8> = (0..2_000)
            .flat_map(|i| format!("line {i}\r\n").into_bytes())
            .collect();
        // Chunks cut mid-line, as reads are.
        let chunks: Vec<&[u8]> = stream.chunks(700).collect();
        let (unread, _) = live.feed_batch(&chunks);
        assert!(unread > 0, "the head of the flood was not parsed");
        log.hold_chunks(&chunks, t0);
        log.flush();
        let text = without_markers(&ScreenLog::read(&path));
        assert_eq!(
            text,
            [b"written before\r\nheld before\r\n".as_slice(), &stream].concat()
        );
        let mut rebuilt = Terminal::new(10, 80, 100);
        replay(&ScreenLog::read(&path), &mut rebuilt);
        assert_eq!(rebuilt.screen().contents(), live.screen().contents());
        assert_eq!(rebuilt.history(100), live.history(100));
    }

    /// `hold_chunks` keeps exactly what `hold` of the joined chunks keeps, whatever was
    /// held before and however the bytes are cut (the newest two caps, from a line start).
    #[test]
    fn holding_chunks_keeps_what_holding_them_joined_keeps() {
        let dir = tempfile::tempdir().unwrap();
        let line = |i: usize| format!("{}{i}\r\n", "x".repeat(i % 97)).into_bytes();
        let t0 = Instant::now();
        for (before, lines, cut) in [
            (0, 10, 7),
            (0, 20_000, 4_096),
            (10_000, 10_000, 65_536),
            (12_000, 3_000, 1_000),
            (0, 30_000, 1 << 20),
            (5, 9_000, 333),
        ] {
            let held: Vec<u8> = (0..before).flat_map(line).collect();
            let stream: Vec<u8> = (before..before + lines).flat_map(line).collect();
            let chunks: Vec<&[u8]> = stream.chunks(cut).collect();
            let mut a = ScreenLog::create(dir.path().join("a.log"), (10, 80)).unwrap();
            let mut b = ScreenLog::create(dir.path().join("b.log"), (10, 80)).unwrap();
            a.hold(&held, t0);
            b.hold(&held, t0);
            a.hold(&stream, t0);
            b.hold_chunks(&chunks, t0);
            let case = format!("{before} held, {lines} lines in chunks of {cut}");
            assert_eq!(a.held, b.held, "{case}");
            assert_eq!(a.held_dropped, b.held_dropped, "{case}");
            assert!(b.held.len() <= 2 * SCREEN_LOG_BYTES as usize, "{case}");
        }
    }

    fn without_markers(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut rest = bytes;
        while let Some(at) = memchr::memmem::find(rest, MARK_START) {
            out.extend(&rest[..at]);
            let end = memchr::memmem::find(&rest[at..], MARK_END).unwrap();
            rest = &rest[at + end + MARK_END.len()..];
        }
        out.extend(rest);
        out
    }

    /// Lines printed at 80 columns, then a resize to 40: the replay shows them cut, as
    /// the live screen did, not wrapped at 40 (and a rotation keeps the size).
    #[test]
    fn a_replay_resizes_where_the_pane_was_resized() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p1.log");
        let mut live = Terminal::new(10, 80, 100);
        let mut log = ScreenLog::create(path.clone(), (10, 80)).unwrap();
        let long = format!("{}\r\n", "x".repeat(60));
        for _ in 0..3 {
            live.feed(long.as_bytes());
            log.append(long.as_bytes());
        }
        live.set_size(10, 40);
        log.resize(10, 40);
        live.feed(b"after\r\n");
        log.append(b"after\r\n");
        let mut rebuilt = Terminal::new(10, 40, 100);
        replay(&ScreenLog::read(&path), &mut rebuilt);
        assert_eq!(rebuilt.screen().contents(), live.screen().contents());
        assert_eq!(rebuilt.screen().size(), (10, 40));
        // A file started by a rotation begins with the size of its time.
        let mut log = ScreenLog::create(path.clone(), (5, 30)).unwrap();
        for i in 0..40_000u32 {
            log.append(format!("{i}\r\n").as_bytes());
        }
        assert!(std::fs::read(&path).unwrap().starts_with(&marker((5, 30))));
    }
}
