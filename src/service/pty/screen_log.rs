//! The screen log of a held pane (`docs/decisions/0009-pane-holders.md#screen-log`): every
//! byte the pane's screen was fed (after the terminal scanner took out control strings),
//! appended by the reader thread as it reads, so a daemon that starts after a crash
//! rebuilds the screen and history the previous one showed by feeding it again. Bounded:
//! at [`SCREEN_LOG_BYTES`] the file becomes `pN.log.old` (replacing the older one) and a new
//! one starts, so between one and two caps are kept.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Bytes per log file before it rotates (so 256–512 KiB of screen bytes per pane are kept:
/// more than the default 2 000 lines of history hold in plain text).
pub const SCREEN_LOG_BYTES: u64 = 256 * 1024;

/// An open screen log, appended to by the reader thread.
#[derive(Debug)]
pub struct ScreenLog {
    path: PathBuf,
    file: File,
    len: u64,
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

fn old(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".old");
    PathBuf::from(p)
}

impl ScreenLog {
    /// A fresh, empty log at `path` (a new pane, or a resumed one): older bytes are gone.
    pub fn create(path: PathBuf) -> io::Result<ScreenLog> {
        let _ = std::fs::remove_file(old(&path));
        let file = open(&path, true)?;
        Ok(ScreenLog { path, file, len: 0 })
    }

    /// The log at `path` continued (a re-adopted pane).
    pub fn append_to(path: PathBuf) -> io::Result<ScreenLog> {
        let file = open(&path, false)?;
        let len = file.metadata()?.len();
        Ok(ScreenLog { path, file, len })
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

    /// Appends `bytes`, rotating first when the file is full. A failed write (full disk)
    /// is given up for this chunk: the screen log is a convenience, never a reason to
    /// hold the program's output back.
    pub fn append(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let full = self.len + bytes.len() as u64 > SCREEN_LOG_BYTES && self.len > 0;
        if full && std::fs::rename(&self.path, old(&self.path)).is_ok() {
            if let Ok(f) = open(&self.path, true) {
                self.file = f;
                self.len = 0;
            }
        }
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
        let mut log = ScreenLog::create(path.clone()).unwrap();
        let mut all = Vec::new();
        for i in 0..100_000u32 {
            let line = format!("{i}\r\n");
            log.append(line.as_bytes());
            all.extend(line.as_bytes());
        }
        let kept = ScreenLog::read(&path);
        assert!(kept.len() as u64 >= SCREEN_LOG_BYTES && kept.len() as u64 <= 2 * SCREEN_LOG_BYTES);
        assert!(all.ends_with(&kept), "the newest bytes, in order");
        drop(log);
        let mut more = ScreenLog::append_to(path.clone()).unwrap();
        more.append(b"tail");
        assert!(ScreenLog::read(&path).ends_with(b"\r\ntail"));
        ScreenLog::create(path.clone()).unwrap();
        assert!(ScreenLog::read(&path).is_empty(), "a new pane starts empty");
        ScreenLog::remove(&path);
        assert!(!path.exists());
    }
}
