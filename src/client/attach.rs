//! The `attend attach` client: raw mode on the outer terminal, focus reports, SIGWINCH,
//! the detach key, and the frame loop (protocol in the parent module's docs).

pub mod frame;
pub mod relay;
pub mod watch;

use crate::adapters::terminal_signals::{TerminalEvent, TerminalScanner};
use frame::{read_frame_blocking, write_frame_blocking, ClientFrame, ServerFrame};
use std::io::{self, Read};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::path::{Path, PathBuf};

/// Why `attend attach` failed.
#[derive(Debug, thiserror::Error)]
pub enum AttachError {
    #[error("cannot connect to {}: {source}", path.display())]
    Connect { path: PathBuf, source: io::Error },
    /// The daemon refused the attach (its text, e.g. `unknown pane p9`).
    #[error("{0}")]
    Refused(String),
    #[error("standard input is not a terminal")]
    NotATerminal,
    #[error("attach protocol error: {0}")]
    Protocol(String),
    #[error("the daemon closed the connection")]
    Disconnected,
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Parses a detach key: `C-\`, `^\`, `ctrl-x` (any case), `0x1c`, or one character.
/// The result is the byte the terminal sends (`C-\` → 0x1c).
pub fn parse_detach_key(s: &str) -> Option<u8> {
    let ctrl = |c: char| -> Option<u8> {
        let c = c.to_ascii_uppercase();
        ('@'..='_').contains(&c).then(|| c as u8 - b'@')
    };
    let lower = s.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        return u8::from_str_radix(hex, 16).ok();
    }
    for prefix in ["c-", "ctrl-", "ctrl+", "^"] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            let mut chars = rest.chars();
            return match (chars.next(), chars.next()) {
                (Some(c), None) => ctrl(c),
                _ => None,
            };
        }
    }
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii() => Some(c as u8),
        _ => None,
    }
}

/// `attend attach PANE` on this process's terminal (stdin and stdout); see
/// [`run_attach_client_on`].
/// With `watch` the hello is a watch client's ([`frame::HELLO_WATCH`]): the daemon does
/// not count the attach and detach as focus (`attend attach --watch`, the panel's
/// terminal for a remote pane).
pub fn run_attach_client(
    socket: &Path,
    pane: &str,
    detach_key: u8,
    watch: bool,
) -> Result<i32, AttachError> {
    attach_on(
        socket,
        pane,
        detach_key,
        watch,
        io::stdin().as_fd(),
        io::stdout().as_fd(),
    )
}

/// Attaches the terminal `input`/`output` to `pane` through the daemon's socket.
///
/// Puts `input` in raw mode (restored on return, on panic and on SIGTERM/SIGHUP), enables
/// focus reporting on the outer terminal (`CSI ?1004h`, disabled on return), turns
/// `CSI I`/`CSI O` from the terminal into focus frames (never forwarded as input), sends
/// SIGWINCH size changes as resize frames, and forwards everything else as input.
/// `detach_key` (also in its kitty-keyboard `CSI <key>;5u` and modifyOtherKeys
/// `CSI 27;5;<key>~` encodings, which agents switch on) detaches and leaves the program
/// running.
///
/// Returns the exit code for `attend attach`: 0 after a detach, the program's exit code
/// (128 + signal when a signal killed it) when it exited while attached, 128 + signal when
/// SIGTERM or SIGHUP ended the client. Errors: cannot connect, refused (unknown pane),
/// `input` not a terminal, protocol errors, the daemon closing the connection.
pub fn run_attach_client_on(
    socket: &Path,
    pane: &str,
    detach_key: u8,
    input: BorrowedFd<'_>,
    output: BorrowedFd<'_>,
) -> Result<i32, AttachError> {
    attach_on(socket, pane, detach_key, false, input, output)
}

/// [`run_attach_client_on`], as a watch client when `watch`.
fn attach_on(
    socket: &Path,
    pane: &str,
    detach_key: u8,
    watch: bool,
    input: BorrowedFd<'_>,
    output: BorrowedFd<'_>,
) -> Result<i32, AttachError> {
    let original = nix::sys::termios::tcgetattr(input).map_err(|_| AttachError::NotATerminal)?;
    let mut stream =
        std::os::unix::net::UnixStream::connect(socket).map_err(|source| AttachError::Connect {
            path: socket.to_path_buf(),
            source,
        })?;
    let (rows, cols) = terminal_size(output)
        .or_else(|| terminal_size(input))
        .unwrap_or((24, 80));
    write_frame_blocking(
        &mut stream,
        &ClientFrame::Hello {
            pane: pane.to_string(),
            rows,
            cols,
            watch,
        },
    )?;
    match read_server_frame(&mut stream)? {
        Some(ServerFrame::Ok) => {}
        Some(ServerFrame::Error(text)) => return Err(AttachError::Refused(text)),
        Some(other) => return Err(AttachError::Protocol(format!("expected ok, got {other:?}"))),
        None => return Err(AttachError::Disconnected),
    }

    let _raw = RawMode::enter(input, output, original)?;
    write_all_fd(output, FOCUS_ON)?;
    let mut signals = signal_hook::iterator::Signals::new([
        signal_hook::consts::SIGWINCH,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ])?;
    let signal_handle = signals.handle();
    let (cancel_rx, cancel_tx) =
        nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(io::Error::from)?;
    let reader_stream = stream.try_clone()?;
    let (tx, rx) = std::sync::mpsc::channel::<ClientEvent>();

    std::thread::scope(|scope| {
        let tx_in = tx.clone();
        let cancel = cancel_rx.as_fd();
        scope.spawn(move || read_terminal(input, cancel, &tx_in));
        let tx_net = tx.clone();
        scope.spawn(move || {
            let mut s = reader_stream;
            loop {
                let ev = match read_server_frame(&mut s) {
                    Ok(Some(frame)) => ClientEvent::Server(frame),
                    Ok(None) => ClientEvent::ServerGone(None),
                    Err(e) => ClientEvent::ServerGone(Some(e)),
                };
                let end = matches!(ev, ClientEvent::ServerGone(_));
                if tx_net.send(ev).is_err() || end {
                    break;
                }
            }
        });
        let tx_sig = tx.clone();
        scope.spawn(move || {
            for sig in signals.forever() {
                if tx_sig.send(ClientEvent::Signal(sig)).is_err() {
                    break;
                }
            }
        });
        drop(tx);

        let result = client_loop(&mut stream, &rx, detach_key, input, output);

        // Stop the helper threads: the terminal reader via its cancel pipe, the socket
        // reader by shutting the socket down, the signal thread by closing its handle.
        let _ = nix::unistd::write(&cancel_tx, b"x");
        let _ = stream.shutdown(std::net::Shutdown::Both);
        signal_handle.close();
        result
    })
}

const FOCUS_ON: &[u8] = b"\x1b[?1004h";

/// Resets the outer terminal's modes a program may have switched on through the stream:
/// attributes, cursor, keypad, bracketed paste, mouse, focus, kitty keyboard flags and
/// modifyOtherKeys.
const RESET_MODES: &[u8] = b"\x1b[0m\x1b[?25h\x1b[?1l\x1b>\x1b[?2004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[<99u\x1b[>4m";

enum ClientEvent {
    Input(Vec<u8>),
    InputClosed,
    Server(ServerFrame),
    ServerGone(Option<AttachError>),
    Signal(i32),
}

fn client_loop(
    stream: &mut std::os::unix::net::UnixStream,
    rx: &std::sync::mpsc::Receiver<ClientEvent>,
    detach_key: u8,
    input: BorrowedFd<'_>,
    output: BorrowedFd<'_>,
) -> Result<i32, AttachError> {
    // Follows the program's output to re-enable focus reporting when the program turns it
    // off, and to leave its alternate screen on exit.
    let mut scanner = TerminalScanner::new();
    let mut events = Vec::new();
    let code = loop {
        let Ok(ev) = rx.recv() else {
            break Err(AttachError::Disconnected);
        };
        match ev {
            ClientEvent::Input(bytes) => {
                let mut detach = false;
                for piece in split_input(&bytes, detach_key) {
                    let frame = match piece {
                        InputPiece::Bytes(b) => ClientFrame::Input(b),
                        InputPiece::FocusIn => ClientFrame::FocusIn,
                        InputPiece::FocusOut => ClientFrame::FocusOut,
                        InputPiece::Detach => {
                            detach = true;
                            ClientFrame::Detach
                        }
                    };
                    write_frame_blocking(stream, &frame)?;
                }
                if detach {
                    break Ok(0);
                }
            }
            ClientEvent::InputClosed => {
                let _ = write_frame_blocking(stream, &ClientFrame::Detach);
                break Ok(0);
            }
            ClientEvent::Server(ServerFrame::Output(bytes)) => {
                events.clear();
                scanner.feed(&bytes, &mut events);
                write_all_fd(output, &bytes)?;
                if events.contains(&TerminalEvent::FocusReporting(false)) {
                    write_all_fd(output, FOCUS_ON)?;
                }
            }
            ClientEvent::Server(ServerFrame::Exited(exit)) => {
                break Ok(exit.code.unwrap_or_else(|| 128 + exit.signal.unwrap_or(0)));
            }
            ClientEvent::Server(other) => {
                break Err(AttachError::Protocol(format!("unexpected {other:?}")))
            }
            ClientEvent::ServerGone(None) => break Err(AttachError::Disconnected),
            ClientEvent::ServerGone(Some(e)) => break Err(e),
            ClientEvent::Signal(sig) if sig == signal_hook::consts::SIGWINCH => {
                if let Some((rows, cols)) = terminal_size(output).or_else(|| terminal_size(input)) {
                    write_frame_blocking(stream, &ClientFrame::Resize { rows, cols })?;
                }
            }
            ClientEvent::Signal(sig) => {
                let _ = write_frame_blocking(stream, &ClientFrame::Detach);
                break Ok(128 + sig);
            }
        }
    };
    if scanner.alternate_screen() {
        let _ = write_all_fd(output, b"\x1b[?1049l");
    }
    code
}

fn read_server_frame(r: &mut impl Read) -> Result<Option<ServerFrame>, AttachError> {
    match read_frame_blocking(r)? {
        Some((kind, payload)) => ServerFrame::decode(kind, payload)
            .map(Some)
            .map_err(AttachError::Protocol),
        None => Ok(None),
    }
}

/// The terminal reader thread: waits on the terminal and the cancel pipe (poll, no
/// timeout) so that it ends when the client does.
fn read_terminal(
    input: BorrowedFd<'_>,
    cancel: BorrowedFd<'_>,
    tx: &std::sync::mpsc::Sender<ClientEvent>,
) {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    let mut buf = [0u8; 4096];
    loop {
        let mut fds = [
            PollFd::new(input, PollFlags::POLLIN),
            PollFd::new(cancel, PollFlags::POLLIN),
        ];
        match poll(&mut fds, PollTimeout::NONE) {
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => {
                let _ = tx.send(ClientEvent::InputClosed);
                return;
            }
        }
        if fds[1].any().unwrap_or(false) {
            return;
        }
        if !fds[0].any().unwrap_or(false) {
            continue;
        }
        match nix::unistd::read(input, &mut buf) {
            Ok(0) | Err(nix::errno::Errno::EIO) => {
                let _ = tx.send(ClientEvent::InputClosed);
                return;
            }
            Ok(n) => {
                if tx.send(ClientEvent::Input(buf[..n].to_vec())).is_err() {
                    return;
                }
            }
            Err(nix::errno::Errno::EINTR | nix::errno::Errno::EAGAIN) => {}
            Err(_) => {
                let _ = tx.send(ClientEvent::InputClosed);
                return;
            }
        }
    }
}

/// A piece of terminal input after focus reports and the detach key were picked out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputPiece {
    Bytes(Vec<u8>),
    FocusIn,
    FocusOut,
    /// The detach key; the rest of the chunk is dropped.
    Detach,
}

/// Splits one read from the outer terminal into input bytes, focus reports (`CSI I`,
/// `CSI O`) and the detach key (the raw byte, kitty `CSI <key>;5u` with an optional
/// press/repeat event type, or modifyOtherKeys `CSI 27;5;<key>~`). Sequences are
/// recognised within one read only: terminals write them whole, and holding back a
/// lone ESC would delay the Esc key.
pub fn split_input(chunk: &[u8], detach_key: u8) -> Vec<InputPiece> {
    let key_code = match detach_key {
        1..=26 => Some(u32::from(detach_key) + 0x60),
        0..=0x1f => Some(u32::from(detach_key) + 0x40),
        _ => None,
    };
    let mut pieces = Vec::new();
    let mut plain = Vec::new();
    let mut i = 0;
    while i < chunk.len() {
        let special = if chunk[i] == detach_key {
            Some((InputPiece::Detach, 1))
        } else if chunk[i..].starts_with(b"\x1b[") {
            csi_piece(&chunk[i..], key_code)
        } else {
            None
        };
        match special {
            Some((piece, len)) => {
                if !plain.is_empty() {
                    pieces.push(InputPiece::Bytes(std::mem::take(&mut plain)));
                }
                let detach = piece == InputPiece::Detach;
                pieces.push(piece);
                if detach {
                    return pieces;
                }
                i += len;
            }
            None => {
                plain.push(chunk[i]);
                i += 1;
            }
        }
    }
    if !plain.is_empty() {
        pieces.push(InputPiece::Bytes(plain));
    }
    pieces
}

/// A focus report or an encoded detach key at the start of `s` (which starts with
/// `ESC [`), with its length.
fn csi_piece(s: &[u8], key_code: Option<u32>) -> Option<(InputPiece, usize)> {
    let end = s[2..].iter().position(|b| (0x40..=0x7e).contains(b))? + 2;
    let params = std::str::from_utf8(&s[2..end]).ok()?;
    let len = end + 1;
    match (s[end], params) {
        (b'I', "") => return Some((InputPiece::FocusIn, len)),
        (b'O', "") => return Some((InputPiece::FocusOut, len)),
        _ => {}
    }
    let code = key_code?.to_string();
    let fields: Vec<&str> = params.split(';').collect();
    let detach = match (s[end], fields.as_slice()) {
        // kitty: key[:alternates];modifiers[:event type]
        (b'u', [key, mods]) => {
            let key = key.split(':').next() == Some(code.as_str());
            let mut m = mods.split(':');
            let ctrl = m.next() == Some("5");
            let press = matches!(m.next(), None | Some("1") | Some("2"));
            key && ctrl && press
        }
        (b'~', ["27", "5", key]) => *key == code,
        _ => false,
    };
    detach.then_some((InputPiece::Detach, len))
}

/// (rows, cols) of the terminal on `fd`, when it is one and reports a size.
pub fn terminal_size(fd: BorrowedFd<'_>) -> Option<(u16, u16)> {
    let mut ws = nix::libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one `winsize` into the pointer we pass.
    let rc = unsafe { nix::libc::ioctl(fd.as_raw_fd(), nix::libc::TIOCGWINSZ, &mut ws) };
    (rc == 0 && ws.ws_row > 0 && ws.ws_col > 0).then_some((ws.ws_row, ws.ws_col))
}

fn write_all_fd(fd: BorrowedFd<'_>, mut bytes: &[u8]) -> io::Result<()> {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    while !bytes.is_empty() {
        match nix::unistd::write(fd, bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(nix::errno::Errno::EINTR) => {}
            Err(nix::errno::Errno::EAGAIN) => {
                let mut fds = [PollFd::new(fd, PollFlags::POLLOUT)];
                let _ = poll(&mut fds, PollTimeout::NONE);
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// The terminal settings to restore if the client panics while in raw mode.
static RESTORE: std::sync::Mutex<Option<(i32, i32, nix::sys::termios::Termios)>> =
    std::sync::Mutex::new(None);

/// Raw mode on the outer terminal, undone on drop and by a panic hook.
struct RawMode<'a> {
    input: BorrowedFd<'a>,
    output: BorrowedFd<'a>,
    original: nix::sys::termios::Termios,
}

impl<'a> RawMode<'a> {
    fn enter(
        input: BorrowedFd<'a>,
        output: BorrowedFd<'a>,
        original: nix::sys::termios::Termios,
    ) -> io::Result<Self> {
        use nix::sys::termios::{cfmakeraw, tcsetattr, SetArg};
        static HOOK: std::sync::Once = std::sync::Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore_after_panic();
                previous(info);
            }));
        });
        let mut raw = original.clone();
        cfmakeraw(&mut raw);
        *RESTORE.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((input.as_raw_fd(), output.as_raw_fd(), original.clone()));
        tcsetattr(input, SetArg::TCSANOW, &raw).map_err(io::Error::from)?;
        Ok(RawMode {
            input,
            output,
            original,
        })
    }
}

impl Drop for RawMode<'_> {
    fn drop(&mut self) {
        use nix::sys::termios::{tcsetattr, SetArg};
        let _ = write_all_fd(self.output, RESET_MODES);
        let _ = write_all_fd(self.output, b"\r\n");
        let _ = tcsetattr(self.input, SetArg::TCSANOW, &self.original);
        *RESTORE.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

fn restore_after_panic() {
    use nix::sys::termios::{tcsetattr, SetArg};
    let Ok(mut saved) = RESTORE.try_lock() else {
        return;
    };
    if let Some((input, output, termios)) = saved.take() {
        // SAFETY: the fds belong to a RawMode guard that is still alive (it clears
        // RESTORE when it drops), so they are open.
        let (input, output) = unsafe {
            (
                BorrowedFd::borrow_raw(input),
                BorrowedFd::borrow_raw(output),
            )
        };
        let _ = write_all_fd(output, RESET_MODES);
        let _ = tcsetattr(input, SetArg::TCSANOW, &termios);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_split_focus_and_detach() {
        use InputPiece::*;
        assert_eq!(split_input(b"ab", 0x1c), vec![Bytes(b"ab".to_vec())]);
        assert_eq!(
            split_input(b"a\x1b[Ib\x1b[O", 0x1c),
            vec![
                Bytes(b"a".to_vec()),
                FocusIn,
                Bytes(b"b".to_vec()),
                FocusOut
            ]
        );
        assert_eq!(
            split_input(b"x\x1cignored", 0x1c),
            vec![Bytes(b"x".to_vec()), Detach]
        );
        assert_eq!(split_input(b"\x1b[92;5u", 0x1c), vec![Detach]);
        assert_eq!(split_input(b"\x1b[92:124;5:1u", 0x1c), vec![Detach]);
        assert_eq!(
            split_input(b"\x1b[92;5:3u", 0x1c),
            vec![Bytes(b"\x1b[92;5:3u".to_vec())]
        );
        assert_eq!(split_input(b"\x1b[27;5;92~", 0x1c), vec![Detach]);
        assert_eq!(split_input(b"\x1b[100;5u", 0x04), vec![Detach]);
        assert_eq!(
            split_input(b"\x1b[1;5I", 0x1c),
            vec![Bytes(b"\x1b[1;5I".to_vec())]
        );
        assert_eq!(split_input(b"\x1b", 0x1c), vec![Bytes(b"\x1b".to_vec())]);
        assert_eq!(
            split_input(b"\x1b[A", 0x1c),
            vec![Bytes(b"\x1b[A".to_vec())]
        );
    }

    #[test]
    fn detach_key_names() {
        assert_eq!(parse_detach_key("C-\\"), Some(0x1c));
        assert_eq!(parse_detach_key("ctrl-a"), Some(0x01));
        assert_eq!(parse_detach_key("^]"), Some(0x1d));
        assert_eq!(parse_detach_key("0x1c"), Some(0x1c));
        assert_eq!(parse_detach_key("q"), Some(b'q'));
        assert_eq!(parse_detach_key("ctrl-ab"), None);
        assert_eq!(parse_detach_key(""), None);
    }
}
