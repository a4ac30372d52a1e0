//! The attach protocol's frames and their wire format (see src/service/pty/attach.rs for the
//! protocol): encoding, decoding, and reading and writing one frame, async (the server)
//! or blocking (the client).

use std::io::{self, Read, Write};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// How a pane's program ended: its exit code, or the signal that killed it (the PTY
/// host's exit event, and the `Exited` frame that tells an attached client).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PtyExit {
    /// The exit status when the program exited.
    pub code: Option<i32>,
    /// The signal number when a signal ended it.
    pub signal: Option<i32>,
}

/// Version byte of the hello frame: `1` for a plain attach, `2` for a hello that carries
/// flags ([`HELLO_WATCH`]). A client writes version 1 whenever it sets no flag, so
/// `attend attach` still speaks to a daemon that knows only version 1.
pub const PROTOCOL_VERSION: u8 = 2;

/// Hello flag (version 2): the client is a view that reports its own focus (the panel's
/// terminal, `docs/decisions/0017-panel-terminal-over-the-attach-socket.md`). Its attach
/// and detach are not the engine's attach and detach, and its focus frames reach only the
/// program (as `CSI I` / `CSI O` when the program asked for them), never the engine's
/// focus: the panel reports that over D-Bus (`SetFocused`).
pub const HELLO_WATCH: u8 = 0x01;

/// Largest frame payload either side accepts (bytes).
pub const MAX_FRAME: usize = 1 << 20;

/// Ctrl-\ : the default detach key of `attend attach`.
pub const DEFAULT_DETACH_KEY: u8 = 0x1c;

pub(crate) const HELLO: u8 = 0x01;
const INPUT: u8 = 0x02;
const RESIZE: u8 = 0x03;
const FOCUS_IN: u8 = 0x04;
const FOCUS_OUT: u8 = 0x05;
const DETACH: u8 = 0x06;
const OK: u8 = 0x81;
const ERROR: u8 = 0x82;
const OUTPUT: u8 = 0x83;
const EXITED: u8 = 0x84;

/// A frame from the attach client (see the module docs for the wire format).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientFrame {
    /// The first frame: the pane (`p3`), the client's size (0 × 0: leave the pane's size
    /// as it is), and whether it is a view that reports its own focus ([`HELLO_WATCH`]).
    Hello {
        pane: String,
        rows: u16,
        cols: u16,
        watch: bool,
    },
    Input(Vec<u8>),
    Resize {
        rows: u16,
        cols: u16,
    },
    FocusIn,
    FocusOut,
    Detach,
}

/// A frame from the attach server (see the module docs for the wire format).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerFrame {
    Ok,
    Error(String),
    Output(Vec<u8>),
    Exited(PtyExit),
}

impl ClientFrame {
    /// Kind byte and payload.
    pub fn encode(&self) -> (u8, Vec<u8>) {
        match self {
            ClientFrame::Hello {
                pane,
                rows,
                cols,
                watch,
            } => {
                let mut p = vec![if *watch { 2 } else { 1 }];
                p.extend(rows.to_be_bytes());
                p.extend(cols.to_be_bytes());
                if *watch {
                    p.push(HELLO_WATCH);
                }
                p.extend(pane.as_bytes());
                (HELLO, p)
            }
            ClientFrame::Input(bytes) => (INPUT, bytes.clone()),
            ClientFrame::Resize { rows, cols } => {
                (RESIZE, [rows.to_be_bytes(), cols.to_be_bytes()].concat())
            }
            ClientFrame::FocusIn => (FOCUS_IN, Vec::new()),
            ClientFrame::FocusOut => (FOCUS_OUT, Vec::new()),
            ClientFrame::Detach => (DETACH, Vec::new()),
        }
    }

    /// Parses a kind byte and payload; the error names what is wrong.
    pub fn decode(kind: u8, payload: Vec<u8>) -> Result<ClientFrame, String> {
        match kind {
            HELLO => {
                let [version, r0, r1, c0, c1, rest @ ..] = payload.as_slice() else {
                    return Err("short hello".into());
                };
                let (flags, pane) = match (version, rest) {
                    (1, pane) => (0, pane),
                    (2, [flags, pane @ ..]) => (*flags, pane),
                    (2, []) => return Err("short hello".into()),
                    _ => {
                        return Err(format!(
                            "attach protocol version {version} is not supported (this daemon speaks 1 and {PROTOCOL_VERSION})"
                        ))
                    }
                };
                if flags & !HELLO_WATCH != 0 {
                    return Err(format!("unknown hello flags {flags:#04x}"));
                }
                let pane = String::from_utf8(pane.to_vec())
                    .map_err(|_| "pane id is not UTF-8".to_string())?;
                Ok(ClientFrame::Hello {
                    pane,
                    rows: u16::from_be_bytes([*r0, *r1]),
                    cols: u16::from_be_bytes([*c0, *c1]),
                    watch: flags & HELLO_WATCH != 0,
                })
            }
            INPUT => Ok(ClientFrame::Input(payload)),
            RESIZE => match payload.as_slice() {
                [r0, r1, c0, c1] => Ok(ClientFrame::Resize {
                    rows: u16::from_be_bytes([*r0, *r1]),
                    cols: u16::from_be_bytes([*c0, *c1]),
                }),
                _ => Err("bad resize frame".into()),
            },
            FOCUS_IN => Ok(ClientFrame::FocusIn),
            FOCUS_OUT => Ok(ClientFrame::FocusOut),
            DETACH => Ok(ClientFrame::Detach),
            other => Err(format!("unknown client frame kind {other:#04x}")),
        }
    }
}

impl ServerFrame {
    /// Kind byte and payload.
    pub fn encode(&self) -> (u8, Vec<u8>) {
        match self {
            ServerFrame::Ok => (OK, Vec::new()),
            ServerFrame::Error(text) => (ERROR, text.as_bytes().to_vec()),
            ServerFrame::Output(bytes) => (OUTPUT, bytes.clone()),
            ServerFrame::Exited(exit) => {
                let code = exit.code.unwrap_or(i32::MIN);
                let signal = exit.signal.unwrap_or(0);
                (EXITED, [code.to_be_bytes(), signal.to_be_bytes()].concat())
            }
        }
    }

    /// Parses a kind byte and payload; the error names what is wrong.
    pub fn decode(kind: u8, payload: Vec<u8>) -> Result<ServerFrame, String> {
        match kind {
            OK => Ok(ServerFrame::Ok),
            ERROR => Ok(ServerFrame::Error(
                String::from_utf8_lossy(&payload).into_owned(),
            )),
            OUTPUT => Ok(ServerFrame::Output(payload)),
            EXITED => match payload.as_slice() {
                [c0, c1, c2, c3, s0, s1, s2, s3] => {
                    let code = i32::from_be_bytes([*c0, *c1, *c2, *c3]);
                    let signal = i32::from_be_bytes([*s0, *s1, *s2, *s3]);
                    Ok(ServerFrame::Exited(PtyExit {
                        code: (code != i32::MIN).then_some(code),
                        signal: (signal != 0).then_some(signal),
                    }))
                }
                _ => Err("bad exited frame".into()),
            },
            other => Err(format!("unknown server frame kind {other:#04x}")),
        }
    }
}

pub(crate) fn frame_bytes(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(5 + payload.len());
    out.push(kind);
    out.extend((payload.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

fn too_large(len: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("frame of {len} bytes exceeds {MAX_FRAME}"),
    )
}

/// Reads one frame; `None` at a clean end of stream between frames.
pub(crate) async fn read_frame_async<R: AsyncRead + Unpin>(
    r: &mut R,
) -> io::Result<Option<(u8, Vec<u8>)>> {
    let mut head = [0u8; 5];
    match r.read_exact(&mut head[..1]).await {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    r.read_exact(&mut head[1..]).await?;
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    if len > MAX_FRAME {
        return Err(too_large(len));
    }
    let mut payload = vec![0u8; len];
    r.read_exact(&mut payload).await?;
    Ok(Some((head[0], payload)))
}

pub(crate) async fn write_frame_async<W: AsyncWrite + Unpin>(
    w: &mut W,
    frame: &ServerFrame,
) -> io::Result<()> {
    let (kind, payload) = frame.encode();
    w.write_all(&frame_bytes(kind, &payload)).await?;
    w.flush().await
}

pub(crate) fn read_frame_blocking(r: &mut impl Read) -> io::Result<Option<(u8, Vec<u8>)>> {
    let mut head = [0u8; 5];
    match r.read_exact(&mut head[..1]) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    r.read_exact(&mut head[1..])?;
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    if len > MAX_FRAME {
        return Err(too_large(len));
    }
    let mut payload = vec![0u8; len];
    r.read_exact(&mut payload)?;
    Ok(Some((head[0], payload)))
}

pub(crate) fn write_frame_blocking(w: &mut impl Write, frame: &ClientFrame) -> io::Result<()> {
    let (kind, payload) = frame.encode();
    w.write_all(&frame_bytes(kind, &payload))?;
    w.flush()
}
