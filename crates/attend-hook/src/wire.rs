//! One blocking D-Bus method call to the daemon, pipelined over the session bus's Unix
//! socket: the hot path of every agent tool call.
//!
//! The SASL handshake (`AUTH EXTERNAL`, `BEGIN`), the bus's `Hello` and the call go out in
//! one write, and the answers are read back in order: one round trip to the bus instead of
//! three, no thread. Buses accept a client's messages right after `BEGIN` (libdbus keeps
//! the bytes that follow it; sd-bus clients pipeline the same way). An address with no
//! Unix socket gives [`CallError::Unsupported`].

use crate::address::{self, Socket};
use crate::marshal::{self, Call, Malformed, ERROR, FIXED_HEADER, METHOD_RETURN};
use crate::names::{BUS_NAME, INTERFACE, OBJECT_PATH};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

/// Largest answer accepted (the daemon's are a few dozen bytes).
const MAX_MESSAGE: usize = 1024 * 1024;

/// Why the call did not return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// The bus address names no Unix socket path or abstract name.
    Unsupported,
    /// No bus, refused authentication, a broken connection, or `Hello` failed.
    Unreachable(String),
    /// The deadline passed before the answer came.
    Timeout,
    /// The call was answered with a D-Bus error (`name`, its message).
    Failed { name: String, message: String },
}

fn unreachable(e: impl std::fmt::Display) -> CallError {
    CallError::Unreachable(e.to_string())
}

fn io_error(e: io::Error) -> CallError {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => CallError::Timeout,
        _ => unreachable(e),
    }
}

impl From<Malformed> for CallError {
    fn from(e: Malformed) -> CallError {
        unreachable(e)
    }
}

/// Connects to the first session bus socket that answers ([`address::session`]).
fn connect() -> Result<UnixStream, CallError> {
    let mut last = None;
    for socket in address::session() {
        let stream = match &socket {
            Socket::Path(path) => UnixStream::connect(path),
            Socket::Abstract(name) => {
                use std::os::linux::net::SocketAddrExt;
                std::os::unix::net::SocketAddr::from_abstract_name(name)
                    .and_then(|a| UnixStream::connect_addr(&a))
            }
        };
        match stream {
            Ok(stream) => return Ok(stream),
            Err(e) => last = Some(e),
        }
    }
    match last {
        Some(e) => Err(unreachable(format!(
            "cannot connect to the session bus: {e}"
        ))),
        None => Err(CallError::Unsupported),
    }
}

/// The time left until `deadline`, or [`CallError::Timeout`].
fn left(deadline: Instant) -> Result<Duration, CallError> {
    let now = Instant::now();
    if now >= deadline {
        return Err(CallError::Timeout);
    }
    Ok(deadline - now)
}

/// Reads one whole message and parses its header.
fn read_message(r: &mut impl Read) -> Result<marshal::Received, CallError> {
    let mut head = [0u8; FIXED_HEADER];
    r.read_exact(&mut head).map_err(io_error)?;
    let total = marshal::message_len(&head)?;
    if total > MAX_MESSAGE {
        return Err(unreachable("the bus sent an oversized message"));
    }
    let mut bytes = vec![0u8; total];
    bytes[..FIXED_HEADER].copy_from_slice(&head);
    r.read_exact(&mut bytes[FIXED_HEADER..]).map_err(io_error)?;
    Ok(marshal::parse(&bytes)?)
}

/// The error name and message of an error reply.
fn failure(msg: marshal::Received) -> CallError {
    CallError::Failed {
        name: msg.error_name.unwrap_or_default(),
        message: msg.first_string.unwrap_or_default(),
    }
}

/// Calls `member` of the daemon's interface ([`INTERFACE`] at [`OBJECT_PATH`] on
/// [`BUS_NAME`]) with `body` (encoded, of D-Bus signature `signature`), and returns once
/// the method return arrives, all before `deadline`.
///
/// Errors: [`CallError::Unsupported`] (no Unix socket in the address: nothing was sent),
/// [`CallError::Unreachable`], [`CallError::Timeout`] (the call may still be applied
/// later: the caller's delivery id makes a second delivery harmless),
/// [`CallError::Failed`] with the D-Bus error (e.g. `ServiceUnknown` when no daemon owns
/// the name).
pub fn call(
    member: &str,
    signature: &str,
    body: &[u8],
    deadline: Instant,
) -> Result<(), CallError> {
    call_reply(member, signature, body, deadline).map(|_| ())
}

/// Like [`call`], and returns the reply's first value when it is a string (`AwaitGate`'s
/// behavior), else `None`.
pub fn call_reply(
    member: &str,
    signature: &str,
    body: &[u8],
    deadline: Instant,
) -> Result<Option<String>, CallError> {
    const HELLO_SERIAL: u32 = 1;
    const CALL_SERIAL: u32 = 2;
    let hello = marshal::method_call(
        HELLO_SERIAL,
        &Call {
            path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus",
            member: "Hello",
            destination: "org.freedesktop.DBus",
            signature: "",
        },
        &[],
    )?;
    let request = marshal::method_call(
        CALL_SERIAL,
        &Call {
            path: OBJECT_PATH,
            interface: INTERFACE,
            member,
            destination: BUS_NAME,
            signature,
        },
        body,
    )?;
    let stream = connect()?;
    stream
        .set_write_timeout(Some(left(deadline)?))
        .map_err(io_error)?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() }.to_string();
    let mut out = Vec::with_capacity(64 + hello.len() + request.len());
    out.extend_from_slice(b"\0AUTH EXTERNAL ");
    for b in uid.bytes() {
        out.extend_from_slice(format!("{b:02x}").as_bytes());
    }
    out.extend_from_slice(b"\r\nBEGIN\r\n");
    out.extend_from_slice(&hello);
    out.extend_from_slice(&request);
    (&stream).write_all(&out).map_err(io_error)?;

    let mut reader = BufReader::new(&stream);
    stream
        .set_read_timeout(Some(left(deadline)?))
        .map_err(io_error)?;
    let mut line = Vec::new();
    reader.read_until(b'\n', &mut line).map_err(io_error)?;
    if !line.starts_with(b"OK ") {
        let text = String::from_utf8_lossy(&line).trim().to_string();
        return Err(unreachable(format!(
            "the session bus refused the connection ({text})"
        )));
    }
    loop {
        stream
            .set_read_timeout(Some(left(deadline)?))
            .map_err(io_error)?;
        let msg = read_message(&mut reader)?;
        match (msg.kind, msg.reply_serial) {
            (ERROR, Some(HELLO_SERIAL)) => {
                return Err(unreachable(format!("Hello failed: {:?}", failure(msg))));
            }
            (ERROR, Some(CALL_SERIAL)) => return Err(failure(msg)),
            (METHOD_RETURN, Some(CALL_SERIAL)) => return Ok(msg.first_string),
            _ => {} // The Hello reply, NameAcquired, …
        }
    }
}
