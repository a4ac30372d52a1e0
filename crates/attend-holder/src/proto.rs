//! The holder protocol (version [`VERSION`]), spoken over the holder's Unix socket
//! (docs/decisions/0009-pane-holders.md#protocol).
//!
//! On connect the holder sends one byte (`F` with the PTY master attached as SCM_RIGHTS,
//! `N` without: the master was closed after the program's output ended), then frames:
//! [`Frame::Hello`], the buffered output as [`Frame::Data`] frames, [`Frame::End`], and
//! [`Frame::Exit`] if the program has exited (now or later while connected). The daemon
//! answers [`Frame::Collected`] once it recorded the exit; the holder then ends.
//!
//! A frame is `len: u32 LE` (of what follows), `kind: u8`, payload. Integers are little
//! endian. `Hello` starts with [`MAGIC`] and the version so that any reader can tell an
//! incompatible holder from a broken one.

use std::io::{self, Read, Write};
use std::path::PathBuf;

/// Protocol version spoken by this build.
pub const VERSION: u32 = 1;
/// First bytes of a `Hello` payload.
pub const MAGIC: &[u8; 4] = b"ATTH";
/// Largest frame accepted (bytes after the length).
pub const MAX_FRAME: usize = 1 << 20;
/// Bytes of buffered output per `Data` frame.
pub const DATA_CHUNK: usize = 64 * 1024;

const HELLO: u8 = 1;
const DATA: u8 = 2;
const END: u8 = 3;
const EXIT: u8 = 4;
const COLLECTED: u8 = 11;

/// How the program ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// It exited with this code.
    Code(i32),
    /// A signal (number) ended it.
    Signal(i32),
    /// Nobody knows (the status was lost).
    Unknown,
}

/// The program's end as the holder saw it: status and wall-clock time in milliseconds
/// since the Unix epoch (the clock the hook client stamps its events with).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitRecord {
    /// How it ended.
    pub status: ExitStatus,
    /// When the holder reaped it (ms since the epoch, `CLOCK_REALTIME`).
    pub at_ms: u64,
}

/// What a holder says first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hello {
    /// The holder's process id.
    pub holder_pid: u32,
    /// The program's process id (its session and process group id too).
    pub child_pid: u32,
    /// The pane number (`pN`).
    pub pane: u64,
    /// Terminal size, rows and columns.
    pub rows: u16,
    /// Columns.
    pub cols: u16,
    /// Bytes of buffered output that follow as `Data` frames.
    pub backlog: u64,
    /// Bytes of output dropped (oldest first) because the buffer was full.
    pub dropped: u64,
    /// The program's exit, if it ended already.
    pub exit: Option<ExitRecord>,
    /// The state directory of the daemon that started the holder.
    pub state_dir: PathBuf,
}

/// One message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// Holder → daemon, first.
    Hello(Hello),
    /// Holder → daemon: buffered output.
    Data(Vec<u8>),
    /// Holder → daemon: the buffered output is complete.
    End,
    /// Holder → daemon: the program ended.
    Exit(ExitRecord),
    /// Daemon → holder: the exit is recorded; the holder may end.
    Collected,
}

/// Why a frame could not be read.
#[derive(Debug)]
pub enum ProtoError {
    /// The socket failed or closed mid-frame.
    Io(io::Error),
    /// The peer speaks another protocol version.
    Version(u32),
    /// Not a frame of this protocol.
    Malformed(&'static str),
}

impl std::fmt::Display for ProtoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProtoError::Io(e) => write!(f, "{e}"),
            ProtoError::Version(v) => write!(
                f,
                "the holder speaks protocol version {v}, this build speaks {VERSION}"
            ),
            ProtoError::Malformed(what) => write!(f, "malformed holder message: {what}"),
        }
    }
}

impl std::error::Error for ProtoError {}

impl From<io::Error> for ProtoError {
    fn from(e: io::Error) -> ProtoError {
        ProtoError::Io(e)
    }
}

fn put_exit(out: &mut Vec<u8>, e: &ExitRecord) {
    let (kind, value) = match e.status {
        ExitStatus::Code(c) => (0u8, c),
        ExitStatus::Signal(s) => (1, s),
        ExitStatus::Unknown => (2, 0),
    };
    out.push(kind);
    out.extend(value.to_le_bytes());
    out.extend(e.at_ms.to_le_bytes());
}

impl Frame {
    /// The frame's bytes, length prefix included.
    pub fn encode(&self) -> Vec<u8> {
        let mut p = Vec::new();
        let kind = match self {
            Frame::Hello(h) => {
                p.extend(MAGIC);
                p.extend(VERSION.to_le_bytes());
                p.extend(h.holder_pid.to_le_bytes());
                p.extend(h.child_pid.to_le_bytes());
                p.extend(h.pane.to_le_bytes());
                p.extend(h.rows.to_le_bytes());
                p.extend(h.cols.to_le_bytes());
                p.extend(h.backlog.to_le_bytes());
                p.extend(h.dropped.to_le_bytes());
                match &h.exit {
                    Some(e) => {
                        p.push(1);
                        put_exit(&mut p, e);
                    }
                    None => p.push(0),
                }
                use std::os::unix::ffi::OsStrExt;
                p.extend(h.state_dir.as_os_str().as_bytes());
                HELLO
            }
            Frame::Data(d) => {
                p.extend(d);
                DATA
            }
            Frame::End => END,
            Frame::Exit(e) => {
                put_exit(&mut p, e);
                EXIT
            }
            Frame::Collected => COLLECTED,
        };
        let mut out = Vec::with_capacity(p.len() + 5);
        out.extend(((p.len() + 1) as u32).to_le_bytes());
        out.push(kind);
        out.extend(p);
        out
    }

    /// Writes the frame.
    pub fn write_to(&self, w: &mut impl Write) -> io::Result<()> {
        w.write_all(&self.encode())
    }

    /// Reads one frame; `Ok(None)` at a clean end of stream (between frames).
    pub fn read_from(r: &mut impl Read) -> Result<Option<Frame>, ProtoError> {
        let mut len = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            match r.read(&mut len[got..]) {
                Ok(0) if got == 0 => return Ok(None),
                Ok(0) => return Err(io::Error::from(io::ErrorKind::UnexpectedEof).into()),
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        let len = u32::from_le_bytes(len) as usize;
        if len == 0 || len > MAX_FRAME {
            return Err(ProtoError::Malformed("frame length"));
        }
        let mut body = vec![0u8; len];
        r.read_exact(&mut body)?;
        Frame::decode(body[0], &body[1..]).map(Some)
    }

    fn decode(kind: u8, p: &[u8]) -> Result<Frame, ProtoError> {
        let mut c = Cursor(p);
        Ok(match kind {
            HELLO => {
                if c.take(4)? != MAGIC {
                    return Err(ProtoError::Malformed("not an attend holder"));
                }
                let version = c.u32()?;
                if version != VERSION {
                    return Err(ProtoError::Version(version));
                }
                let holder_pid = c.u32()?;
                let child_pid = c.u32()?;
                let pane = c.u64()?;
                let rows = c.u16()?;
                let cols = c.u16()?;
                let backlog = c.u64()?;
                let dropped = c.u64()?;
                let exit = match c.take(1)?[0] {
                    0 => None,
                    _ => Some(c.exit()?),
                };
                use std::os::unix::ffi::OsStrExt;
                let state_dir = PathBuf::from(std::ffi::OsStr::from_bytes(c.0));
                Frame::Hello(Hello {
                    holder_pid,
                    child_pid,
                    pane,
                    rows,
                    cols,
                    backlog,
                    dropped,
                    exit,
                    state_dir,
                })
            }
            DATA => Frame::Data(p.to_vec()),
            END => Frame::End,
            EXIT => Frame::Exit(c.exit()?),
            COLLECTED => Frame::Collected,
            _ => return Err(ProtoError::Malformed("unknown frame kind")),
        })
    }
}

struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ProtoError> {
        if self.0.len() < n {
            return Err(ProtoError::Malformed("short frame"));
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }
    fn u16(&mut self) -> Result<u16, ProtoError> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().unwrap()))
    }
    fn u32(&mut self) -> Result<u32, ProtoError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn i32(&mut self) -> Result<i32, ProtoError> {
        Ok(i32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn u64(&mut self) -> Result<u64, ProtoError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn exit(&mut self) -> Result<ExitRecord, ProtoError> {
        let kind = self.take(1)?[0];
        let value = self.i32()?;
        let at_ms = self.u64()?;
        let status = match kind {
            0 => ExitStatus::Code(value),
            1 => ExitStatus::Signal(value),
            2 => ExitStatus::Unknown,
            _ => return Err(ProtoError::Malformed("exit kind")),
        };
        Ok(ExitRecord { status, at_ms })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip() {
        let exit = ExitRecord {
            status: ExitStatus::Signal(9),
            at_ms: 1_700_000_000_123,
        };
        let frames = [
            Frame::Hello(Hello {
                holder_pid: 10,
                child_pid: 11,
                pane: 12,
                rows: 24,
                cols: 80,
                backlog: 3,
                dropped: 7,
                exit: Some(exit),
                state_dir: PathBuf::from("/tmp/state dir"),
            }),
            Frame::Data(b"abc".to_vec()),
            Frame::End,
            Frame::Exit(ExitRecord {
                status: ExitStatus::Code(3),
                at_ms: 5,
            }),
            Frame::Collected,
        ];
        let mut wire = Vec::new();
        for f in &frames {
            f.write_to(&mut wire).unwrap();
        }
        let mut r = &wire[..];
        for f in &frames {
            assert_eq!(&Frame::read_from(&mut r).unwrap().unwrap(), f);
        }
        assert!(Frame::read_from(&mut r).unwrap().is_none());
    }

    #[test]
    fn another_version_is_named() {
        let mut bytes = Frame::Hello(Hello {
            holder_pid: 1,
            child_pid: 2,
            pane: 3,
            rows: 1,
            cols: 1,
            backlog: 0,
            dropped: 0,
            exit: None,
            state_dir: PathBuf::from("/s"),
        })
        .encode();
        bytes[9..13].copy_from_slice(&0u32.to_le_bytes());
        match Frame::read_from(&mut &bytes[..]) {
            Err(ProtoError::Version(0)) => {}
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            Frame::read_from(&mut &[9u8, 0, 0, 0, 1, b'x'][..]),
            Err(ProtoError::Malformed(_) | ProtoError::Io(_))
        ));
    }
}
