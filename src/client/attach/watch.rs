//! A **watch** connection to the attach socket: the attach protocol without a terminal of
//! its own, for a client that draws the stream itself (the panel's terminal widget,
//! `docs/decisions/0017-panel-terminal-over-the-attach-socket.md`). The hello carries
//! [`HELLO_WATCH`](super::frame::HELLO_WATCH): the daemon does not count the connection
//! as an attach for focus, and its focus frames reach only the program.
//!
//! [`Watch::start`] returns at once; the handshake, the reading of the daemon's frames
//! and the writing of the client's happen on two threads, so a slow or stuck daemon
//! never blocks the caller (the GTK main loop). Frames come out through the caller's
//! `on_event`, on the reader thread.

use super::frame::{read_frame_blocking, write_frame_blocking, ClientFrame, PtyExit, ServerFrame};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::mpsc;

/// What a watch connection reports, in order: then [`WatchEvent::Output`] chunks, and
/// last exactly one of [`WatchEvent::Exited`], [`WatchEvent::Refused`] or
/// [`WatchEvent::Ended`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchEvent {
    /// The daemon accepted the hello; output follows (first a full redraw).
    Attached,
    /// Terminal bytes of the program (the redraw, then the live output).
    Output(Vec<u8>),
    /// The program exited while watched (the last frame).
    Exited(PtyExit),
    /// The daemon refused the hello: its text (`unknown pane p9`), or why it could not
    /// be reached (the socket path and the error).
    Refused(String),
    /// The connection ended without an exit: the daemon went away, or the watch was
    /// stopped. `Some` names a protocol or I/O error.
    Ended(Option<String>),
}

/// A running watch connection. Dropping it detaches (the program keeps running).
#[derive(Debug)]
pub struct Watch {
    tx: mpsc::Sender<ClientFrame>,
}

impl Watch {
    /// Connects to `socket` and watches `pane` at `rows` × `cols` (0 × 0 keeps the
    /// pane's size); `on_event` receives every [`WatchEvent`] on the reader thread, the
    /// last one being `Exited`, `Refused` or `Ended`. Never blocks.
    pub fn start(
        socket: PathBuf,
        pane: String,
        rows: u16,
        cols: u16,
        on_event: impl FnMut(WatchEvent) + Send + 'static,
    ) -> Watch {
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("attend-watch".into())
            .spawn(move || run(socket, pane, rows, cols, rx, on_event))
            .expect("a thread for the watch connection");
        Watch { tx }
    }

    /// Queues `frame` for the daemon (input, resize, focus). Frames sent before the
    /// handshake are written after it; after the end they are dropped.
    pub fn send(&self, frame: ClientFrame) {
        let _ = self.tx.send(frame);
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.tx.send(ClientFrame::Detach);
    }
}

/// The reader side: connect, hello, then every server frame to `on_event`; the writer
/// thread takes the queued client frames.
fn run(
    socket: PathBuf,
    pane: String,
    rows: u16,
    cols: u16,
    rx: mpsc::Receiver<ClientFrame>,
    mut on_event: impl FnMut(WatchEvent),
) {
    let mut stream = match UnixStream::connect(&socket) {
        Ok(s) => s,
        Err(e) => return on_event(WatchEvent::Refused(format!("{}: {e}", socket.display()))),
    };
    let hello = ClientFrame::Hello {
        pane,
        rows,
        cols,
        watch: true,
    };
    if let Err(e) = write_frame_blocking(&mut stream, &hello) {
        return on_event(WatchEvent::Ended(Some(e.to_string())));
    }
    match read(&mut stream) {
        Ok(Some(ServerFrame::Ok)) => on_event(WatchEvent::Attached),
        Ok(Some(ServerFrame::Error(text))) => return on_event(WatchEvent::Refused(text)),
        Ok(Some(other)) => {
            return on_event(WatchEvent::Ended(Some(format!(
                "expected ok, got {other:?}"
            ))))
        }
        Ok(None) => return on_event(WatchEvent::Ended(None)),
        Err(e) => return on_event(WatchEvent::Ended(Some(e))),
    }
    let writer = match stream.try_clone() {
        Ok(w) => w,
        Err(e) => return on_event(WatchEvent::Ended(Some(e.to_string()))),
    };
    std::thread::Builder::new()
        .name("attend-watch-write".into())
        .spawn(move || write_frames(writer, rx))
        .expect("a thread for the watch connection's writes");
    let last = loop {
        match read(&mut stream) {
            Ok(Some(ServerFrame::Output(bytes))) => on_event(WatchEvent::Output(bytes)),
            Ok(Some(ServerFrame::Exited(exit))) => break WatchEvent::Exited(exit),
            Ok(Some(other)) => break WatchEvent::Ended(Some(format!("unexpected {other:?}"))),
            Ok(None) => break WatchEvent::Ended(None),
            Err(e) => break WatchEvent::Ended(Some(e)),
        }
    };
    let _ = stream.shutdown(std::net::Shutdown::Both);
    on_event(last);
}

/// Writes the queued frames until a detach (written, then the socket is shut down, which
/// ends the reader), a write error, or the [`Watch`] is gone (a detach too).
fn write_frames(mut stream: UnixStream, rx: mpsc::Receiver<ClientFrame>) {
    loop {
        let frame = rx.recv().unwrap_or(ClientFrame::Detach);
        let detach = frame == ClientFrame::Detach;
        if write_frame_blocking(&mut stream, &frame).is_err() || detach {
            break;
        }
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

fn read(stream: &mut UnixStream) -> Result<Option<ServerFrame>, String> {
    match read_frame_blocking(stream) {
        Ok(Some((kind, payload))) => ServerFrame::decode(kind, payload).map(Some),
        Ok(None) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::attach::frame::{frame_bytes, HELLO};
    use std::os::unix::net::UnixListener;
    use std::time::Duration;

    /// A fake daemon on a socket in a temporary directory: `serve` gets the accepted
    /// stream.
    fn fake(serve: impl FnOnce(UnixStream) + Send + 'static) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("attach.sock");
        let listener = UnixListener::bind(&path).unwrap();
        std::thread::spawn(move || {
            let (s, _) = listener.accept().unwrap();
            serve(s);
        });
        (dir, path)
    }

    fn client_frame(s: &mut UnixStream) -> Option<ClientFrame> {
        let (kind, payload) = read_frame_blocking(s).unwrap()?;
        Some(ClientFrame::decode(kind, payload).unwrap())
    }

    fn server(s: &mut UnixStream, f: &ServerFrame) {
        use std::io::Write;
        let (kind, payload) = f.encode();
        s.write_all(&frame_bytes(kind, &payload)).unwrap();
    }

    fn events() -> (
        impl FnMut(WatchEvent) + Send + 'static,
        mpsc::Receiver<WatchEvent>,
    ) {
        let (tx, rx) = mpsc::channel();
        (move |e| tx.send(e).unwrap(), rx)
    }

    fn next(rx: &mpsc::Receiver<WatchEvent>) -> WatchEvent {
        rx.recv_timeout(Duration::from_secs(10)).expect("an event")
    }

    #[test]
    fn a_watch_says_hello_as_a_watch_streams_output_and_sends_frames_then_detaches() {
        let (got_tx, got_rx) = mpsc::channel();
        let (_dir, path) = fake(move |mut s| {
            let (kind, payload) = read_frame_blocking(&mut s).unwrap().unwrap();
            assert_eq!(kind, HELLO);
            got_tx
                .send(ClientFrame::decode(kind, payload).unwrap())
                .unwrap();
            server(&mut s, &ServerFrame::Ok);
            server(&mut s, &ServerFrame::Output(b"redraw".to_vec()));
            while let Some(f) = client_frame(&mut s) {
                got_tx.send(f).unwrap();
            }
        });
        let (on_event, rx) = events();
        let watch = Watch::start(path, "p3".into(), 30, 100, on_event);
        watch.send(ClientFrame::Input(b"ls\r".to_vec()));
        watch.send(ClientFrame::Resize { rows: 40, cols: 90 });
        assert_eq!(next(&rx), WatchEvent::Attached);
        assert_eq!(next(&rx), WatchEvent::Output(b"redraw".to_vec()));
        let got = |rx: &mpsc::Receiver<ClientFrame>| rx.recv_timeout(Duration::from_secs(10));
        assert_eq!(
            got(&got_rx).unwrap(),
            ClientFrame::Hello {
                pane: "p3".into(),
                rows: 30,
                cols: 100,
                watch: true
            }
        );
        assert_eq!(got(&got_rx).unwrap(), ClientFrame::Input(b"ls\r".to_vec()));
        assert_eq!(
            got(&got_rx).unwrap(),
            ClientFrame::Resize { rows: 40, cols: 90 }
        );
        drop(watch);
        assert_eq!(got(&got_rx).unwrap(), ClientFrame::Detach);
        // The detach shuts the socket: the reader ends without an exit.
        assert_eq!(next(&rx), WatchEvent::Ended(None));
    }

    #[test]
    fn a_refusal_an_exit_and_a_missing_socket_are_the_last_event() {
        let (_dir, path) = fake(|mut s| {
            client_frame(&mut s);
            server(&mut s, &ServerFrame::Error("unknown pane p9".into()));
        });
        let (on_event, rx) = events();
        let _w = Watch::start(path, "p9".into(), 0, 0, on_event);
        assert_eq!(next(&rx), WatchEvent::Refused("unknown pane p9".into()));

        let exit = PtyExit {
            code: Some(3),
            signal: None,
        };
        let (_dir2, path) = fake(move |mut s| {
            client_frame(&mut s);
            server(&mut s, &ServerFrame::Ok);
            server(&mut s, &ServerFrame::Exited(exit));
        });
        let (on_event, rx) = events();
        let _w = Watch::start(path, "p1".into(), 0, 0, on_event);
        assert_eq!(next(&rx), WatchEvent::Attached);
        assert_eq!(next(&rx), WatchEvent::Exited(exit));

        let (on_event, rx) = events();
        let _w = Watch::start(
            "/nonexistent/attach.sock".into(),
            "p1".into(),
            0,
            0,
            on_event,
        );
        match next(&rx) {
            WatchEvent::Refused(text) => assert!(text.starts_with("/nonexistent/attach.sock: ")),
            other => panic!("{other:?}"),
        }
    }
}
