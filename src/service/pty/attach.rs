//! Attach sockets: stream a pane to a terminal client.
//!
//! `attend attach PANE` talks to the daemon over a Unix stream socket (not D-Bus
//! messages): [`AttachServer`] / [`serve_attach`] in the daemon, [`run_attach_client`] in
//! the CLI. The socket lives in `$XDG_RUNTIME_DIR/attend/` ([`default_socket_path`]); the
//! server makes that directory mode 0700 and the socket 0600.
//!
//! # Protocol
//!
//! Every message is a frame: one kind byte, a big-endian `u32` payload length (at most
//! [`MAX_FRAME`]), then the payload.
//!
//! | kind | direction | payload |
//! | --- | --- | --- |
//! | `0x01` hello | client → server, first frame | version `u8` (1, or 2 = [`PROTOCOL_VERSION`] with flags), rows `u16`, cols `u16`, flags `u8` (version 2 only: [`HELLO_WATCH`]), pane id (UTF-8, `p3`) |
//! | `0x02` input | client → server | bytes typed into the program |
//! | `0x03` resize | client → server | rows `u16`, cols `u16` |
//! | `0x04` focus in, `0x05` focus out | client → server | empty |
//! | `0x06` detach | client → server | empty; the program keeps running |
//! | `0x81` ok | server → client, answers hello | empty |
//! | `0x82` error | server → client, answers hello, then the server closes | UTF-8 text (`unknown pane p9`) |
//! | `0x83` output | server → client | terminal bytes: first a full screen redraw, then the live output |
//! | `0x84` exited | server → client, last frame | code `i32` (`i32::MIN` = none), signal `i32` (0 = none) |
//!
//! After `ok` the server resizes the pane to the client's size, sends the redraw and the
//! live output, and reports [`AttachFocus::Attached`]; focus frames report
//! [`AttachFocus::FocusIn`] / [`AttachFocus::FocusOut`] and are forwarded to the program as
//! `CSI I` / `CSI O` only when it enabled focus reporting itself; the end of the
//! connection (detach, client gone, program exited) reports [`AttachFocus::Detached`]. An
//! attach client that falls behind the output gets a fresh redraw instead of the lost
//! chunks.
//!
//! A **watch** client (hello flag [`HELLO_WATCH`], the panel's terminal) is the same
//! stream without the focus reports: its attach and detach report nothing, and its focus
//! frames only reach the program (`CSI I` / `CSI O`, when it asked for them); the panel
//! reports focus itself over D-Bus (`SetFocused`,
//! `docs/decisions/0017-panel-terminal-over-the-attach-socket.md`). Interrupt keys it
//! forwards are reported as from any client. Its first output is the pane's history
//! (the last [`WATCH_HISTORY_ROWS`] rows that scrolled off, [`history_replay`]) before
//! the redraw, so its own scrollback starts with what the pane printed before.

use crate::model::PaneId;
use crate::service::pty::{PtyExit, PtyHandle};
use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::net::UnixListener;
use tokio::sync::broadcast::error::RecvError;

use crate::client::attach::frame::{read_frame_async, write_frame_async};
pub use crate::client::attach::frame::{
    ClientFrame, ServerFrame, DEFAULT_DETACH_KEY, HELLO_WATCH, MAX_FRAME, PROTOCOL_VERSION,
};

/// What an attach connection tells the daemon about focus
/// (`docs/lifecycle-attention.md#focus`: a pane is focused while a client reported
/// focus-in, and from attach to detach when it never reports), and the interrupt keys its
/// user types (`docs/lifecycle-attention.md#interrupts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttachFocus {
    Attached,
    FocusIn,
    FocusOut,
    Detached,
    /// An interrupt key (`crate::adapters::keys::is_interrupt`), reported before it is
    /// written to the program.
    Interrupt,
}

/// Most history rows a watch client gets before the redraw (the panel's terminal keeps
/// 10 000 lines of scrollback).
pub const WATCH_HISTORY_ROWS: usize = 10_000;

/// Largest output frame of the history replay (bytes; frames are at most [`MAX_FRAME`]).
const REPLAY_CHUNK: usize = 64 * 1024;

/// The bytes that put `history` (rows as `PtyHandle::history` gives them, oldest first)
/// into a fresh terminal's scrollback on a screen of `screen_rows` rows: each row with its
/// attributes reset and CR LF after it, then `screen_rows` more CR LFs, which scroll the
/// last rows off the screen too; the redraw that follows paints the screen. Empty
/// without history.
pub fn history_replay(history: &[Vec<u8>], screen_rows: u16) -> Vec<u8> {
    if history.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(history.iter().map(|r| r.len() + 5).sum());
    for row in history {
        out.extend_from_slice(row);
        out.extend_from_slice(b"\x1b[m\r\n");
    }
    for _ in 0..screen_rows {
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// `$XDG_RUNTIME_DIR/attend/attach.sock`; `None` when `XDG_RUNTIME_DIR` is unset or empty.
pub fn default_socket_path() -> Option<PathBuf> {
    let dir = std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty())?;
    Some(PathBuf::from(dir).join("attend").join("attach.sock"))
}

/// A bound attach socket. Dropping it removes the socket file.
#[derive(Debug)]
pub struct AttachServer {
    listener: UnixListener,
    path: PathBuf,
}

impl AttachServer {
    /// Binds `path` (call inside a tokio runtime). Creates the parent directory with mode
    /// 0700 (and tightens an existing one we own to 0700; one owned by another user is
    /// refused), replaces a stale socket file (any other kind of file is an error), and
    /// makes the socket 0600.
    pub fn bind(path: &Path) -> io::Result<AttachServer> {
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "the socket path has no directory",
                )
            })?;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        let meta = std::fs::metadata(dir)?;
        // SAFETY: geteuid has no preconditions and cannot fail.
        if meta.uid() != unsafe { nix::libc::geteuid() } {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{} belongs to another user", dir.display()),
            ));
        }
        if meta.permissions().mode() & 0o777 != 0o700 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        }
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_socket() => std::fs::remove_file(path)?,
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("{} exists and is not a socket", path.display()),
                ))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let listener = UnixListener::bind(path)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        Ok(AttachServer {
            listener,
            path: path.to_path_buf(),
        })
    }

    /// The socket path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Accepts attach clients until the future is dropped (or accepting fails), one task
    /// per connection. `lookup` finds the PTY of a pane id (`None` → the client gets
    /// `unknown pane pN`); `on_focus` is called from the connection tasks.
    pub async fn serve<L, F>(self, lookup: L, on_focus: F) -> io::Result<()>
    where
        L: Fn(PaneId) -> Option<PtyHandle> + Send + Sync + 'static,
        F: Fn(PaneId, AttachFocus) + Send + Sync + 'static,
    {
        let lookup = Arc::new(lookup);
        let on_focus: Arc<dyn Fn(PaneId, AttachFocus) + Send + Sync> = Arc::new(on_focus);
        loop {
            let (stream, _) = self.listener.accept().await?;
            let (lookup, on_focus) = (lookup.clone(), on_focus.clone());
            tokio::spawn(async move {
                if let Err(e) = session(stream, &*lookup, on_focus).await {
                    tracing::debug!("attach connection ended: {e}");
                }
            });
        }
    }
}

impl Drop for AttachServer {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// [`AttachServer::bind`] then [`AttachServer::serve`].
pub async fn serve_attach<L, F>(listener_path: &Path, lookup: L, on_focus: F) -> io::Result<()>
where
    L: Fn(PaneId) -> Option<PtyHandle> + Send + Sync + 'static,
    F: Fn(PaneId, AttachFocus) + Send + Sync + 'static,
{
    AttachServer::bind(listener_path)?
        .serve(lookup, on_focus)
        .await
}

/// One attach connection.
async fn session(
    stream: tokio::net::UnixStream,
    lookup: &(dyn Fn(PaneId) -> Option<PtyHandle> + Send + Sync),
    on_focus: Arc<dyn Fn(PaneId, AttachFocus) + Send + Sync>,
) -> io::Result<()> {
    let (mut rd, mut wr) = stream.into_split();
    let hello = match read_frame_async(&mut rd).await? {
        Some((kind, payload)) => ClientFrame::decode(kind, payload),
        None => return Ok(()),
    };
    let (pane_text, rows, cols, watch) = match hello {
        Ok(ClientFrame::Hello {
            pane,
            rows,
            cols,
            watch,
        }) => (pane, rows, cols, watch),
        Ok(other) => return refuse(&mut wr, format!("expected hello, got {other:?}")).await,
        Err(e) => return refuse(&mut wr, e).await,
    };
    let Some(pane) = PaneId::parse(&pane_text) else {
        return refuse(&mut wr, format!("not a pane id: {pane_text:?}")).await;
    };
    let Some(pty) = lookup(pane) else {
        return refuse(&mut wr, format!("unknown pane {pane}")).await;
    };
    if rows > 0 && cols > 0 && pty.size() != (rows, cols) && pty.exit_status().is_none() {
        // Best effort: a failed resize leaves the old size, which the redraw shows.
        let _ = pty.resize(rows, cols);
    }
    write_frame_async(&mut wr, &ServerFrame::Ok).await?;
    let (history, redraw, rx) = if watch {
        pty.subscribe_with_history(WATCH_HISTORY_ROWS)
    } else {
        let (redraw, rx) = pty.subscribe_with_redraw();
        (Vec::new(), redraw, rx)
    };
    for chunk in history_replay(&history, pty.size().0).chunks(REPLAY_CHUNK) {
        write_frame_async(&mut wr, &ServerFrame::Output(chunk.to_vec())).await?;
    }
    write_frame_async(&mut wr, &ServerFrame::Output(redraw)).await?;
    // A watch client's focus is the panel's to report (module docs): only its interrupt
    // keys reach the daemon from here.
    let on_focus: Arc<dyn Fn(PaneId, AttachFocus) + Send + Sync> = if watch {
        Arc::new(move |pane: PaneId, focus: AttachFocus| {
            if focus == AttachFocus::Interrupt {
                on_focus(pane, focus)
            }
        })
    } else {
        on_focus
    };
    on_focus(pane, AttachFocus::Attached);

    let mut output = tokio::spawn(stream_output(pty.clone(), rx, wr));
    let mut input = tokio::spawn(forward_input(pane, pty, rd, on_focus.clone()));
    tokio::select! {
        _ = &mut output => input.abort(),
        _ = &mut input => output.abort(),
    }
    on_focus(pane, AttachFocus::Detached);
    Ok(())
}

async fn refuse(wr: &mut tokio::net::unix::OwnedWriteHalf, text: String) -> io::Result<()> {
    write_frame_async(wr, &ServerFrame::Error(text)).await
}

/// Live output to the client; a redraw after lagging; `exited` at the end.
async fn stream_output(
    pty: PtyHandle,
    mut rx: tokio::sync::broadcast::Receiver<Arc<[u8]>>,
    mut wr: tokio::net::unix::OwnedWriteHalf,
) -> io::Result<()> {
    loop {
        match rx.recv().await {
            Ok(chunk) => write_frame_async(&mut wr, &ServerFrame::Output(chunk.to_vec())).await?,
            Err(RecvError::Lagged(_)) => {
                let (redraw, fresh) = pty.subscribe_with_redraw();
                rx = fresh;
                write_frame_async(&mut wr, &ServerFrame::Output(redraw)).await?;
            }
            Err(RecvError::Closed) => {
                let exit = pty.exit_status().unwrap_or(PtyExit {
                    code: None,
                    signal: None,
                });
                write_frame_async(&mut wr, &ServerFrame::Exited(exit)).await?;
                return Ok(());
            }
        }
    }
}

/// Client frames to the program until detach or the end of the connection.
async fn forward_input(
    pane: PaneId,
    pty: PtyHandle,
    mut rd: tokio::net::unix::OwnedReadHalf,
    on_focus: Arc<dyn Fn(PaneId, AttachFocus) + Send + Sync>,
) -> io::Result<()> {
    while let Some((kind, payload)) = read_frame_async(&mut rd).await? {
        let frame = ClientFrame::decode(kind, payload)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        match frame {
            ClientFrame::Input(bytes) => {
                if crate::adapters::keys::is_interrupt(&bytes) {
                    on_focus(pane, AttachFocus::Interrupt);
                }
                write_to_program(&pty, bytes).await?
            }
            ClientFrame::Resize { rows, cols } => {
                if rows > 0 && cols > 0 {
                    let _ = pty.resize(rows, cols);
                }
            }
            ClientFrame::FocusIn | ClientFrame::FocusOut => {
                let inside = frame == ClientFrame::FocusIn;
                on_focus(
                    pane,
                    if inside {
                        AttachFocus::FocusIn
                    } else {
                        AttachFocus::FocusOut
                    },
                );
                if pty.wants_focus_events() {
                    let report = if inside {
                        b"\x1b[I".to_vec()
                    } else {
                        b"\x1b[O".to_vec()
                    };
                    write_to_program(&pty, report).await?;
                }
            }
            ClientFrame::Detach => return Ok(()),
            ClientFrame::Hello { .. } => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "hello after the handshake",
                ))
            }
        }
    }
    Ok(())
}

/// PTY writes block when the program does not read; keep them off the async workers.
async fn write_to_program(pty: &PtyHandle, bytes: Vec<u8>) -> io::Result<()> {
    let pty = pty.clone();
    tokio::task::spawn_blocking(move || pty.write(&bytes))
        .await
        .map_err(io::Error::other)?
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::attach::frame::HELLO;

    #[test]
    fn the_history_replay_scrolls_every_row_off_a_screen_of_its_size() {
        assert_eq!(history_replay(&[], 24), b"");
        let rows = [b"one".to_vec(), b"\x1b[31mtwo".to_vec()];
        assert_eq!(
            history_replay(&rows, 2),
            b"one\x1b[m\r\n\x1b[31mtwo\x1b[m\r\n\r\n\r\n".to_vec()
        );
        // Through a terminal of 3 rows: both rows end up above the screen, in order.
        let mut parser = vt100::Parser::new(3, 10, 10);
        parser.process(&history_replay(&rows, 3));
        assert_eq!(parser.screen().contents().trim(), "");
        parser.screen_mut().set_scrollback(10);
        let scrolled = parser.screen().contents();
        assert!(scrolled.starts_with("one\ntwo"), "{scrolled:?}");
    }

    #[test]
    fn frames_round_trip() {
        for f in [
            ClientFrame::Hello {
                pane: "p12".into(),
                rows: 40,
                cols: 120,
                watch: false,
            },
            ClientFrame::Hello {
                pane: "p12".into(),
                rows: 0,
                cols: 0,
                watch: true,
            },
            ClientFrame::Input(b"ls\r".to_vec()),
            ClientFrame::Resize {
                rows: 1,
                cols: 65535,
            },
            ClientFrame::FocusIn,
            ClientFrame::FocusOut,
            ClientFrame::Detach,
        ] {
            let (k, p) = f.encode();
            assert_eq!(ClientFrame::decode(k, p), Ok(f));
        }
        for f in [
            ServerFrame::Ok,
            ServerFrame::Error("unknown pane p9".into()),
            ServerFrame::Output(b"\x1b[H".to_vec()),
            ServerFrame::Exited(PtyExit {
                code: Some(3),
                signal: None,
            }),
            ServerFrame::Exited(PtyExit {
                code: None,
                signal: Some(9),
            }),
            ServerFrame::Exited(PtyExit {
                code: Some(-1),
                signal: None,
            }),
        ] {
            let (k, p) = f.encode();
            assert_eq!(ServerFrame::decode(k, p), Ok(f));
        }
        assert!(ClientFrame::decode(HELLO, vec![9, 0, 1, 0, 1, b'p']).is_err());
        // A plain hello is written as version 1 (older daemons read it); flags need 2.
        let plain = ClientFrame::Hello {
            pane: "p1".into(),
            rows: 1,
            cols: 2,
            watch: false,
        };
        assert_eq!(plain.encode().1, vec![1, 0, 1, 0, 2, b'p', b'1']);
        let watch = ClientFrame::Hello {
            pane: "p1".into(),
            rows: 1,
            cols: 2,
            watch: true,
        };
        assert_eq!(
            watch.encode().1,
            vec![2, 0, 1, 0, 2, HELLO_WATCH, b'p', b'1']
        );
        assert!(
            ClientFrame::decode(HELLO, vec![2, 0, 1, 0, 1]).is_err(),
            "no flags"
        );
        assert!(
            ClientFrame::decode(HELLO, vec![2, 0, 1, 0, 1, 0x80, b'p']).is_err(),
            "unknown flag"
        );
        assert!(ClientFrame::decode(0x7f, vec![]).is_err());
    }
}
