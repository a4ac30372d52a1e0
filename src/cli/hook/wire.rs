//! One blocking D-Bus method call to the daemon for `attend hook`, pipelined over the
//! session bus's Unix socket: the hot path of every agent tool call (issue 4
//! "Performance").
//!
//! zbus encodes and decodes the messages; this module only moves their bytes. The
//! SASL handshake (`AUTH EXTERNAL`, `BEGIN`), the bus's `Hello` and the call go out in one
//! write, and the answers are read back in order: one round trip to the bus instead of
//! three, no async runtime and no thread. Buses accept a client's messages right after
//! `BEGIN` (libdbus keeps the bytes that follow it; sd-bus clients pipeline the same way).
//! An address that is not a Unix socket gives [`CallError::Unsupported`], for the caller's
//! zbus fallback.

use crate::service::dbus::{BUS_NAME, INTERFACE, OBJECT_PATH};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Instant;
use zbus::address::transport::{Transport, UnixSocket};
use zbus::message::Type;
use zbus::zvariant::serialized::{Context, Data};
use zbus::zvariant::{DynamicType, Endian};
use zbus::Message;

/// Largest answer accepted (the daemon's are a few dozen bytes).
const MAX_MESSAGE: usize = 1024 * 1024;

/// Why the call did not return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// The bus address is not a Unix socket path or abstract name.
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

/// Connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`,
/// as zbus reads it).
fn connect() -> Result<UnixStream, CallError> {
    let address = zbus::Address::session().map_err(unreachable)?;
    let Transport::Unix(unix) = address.transport() else {
        return Err(CallError::Unsupported);
    };
    let stream = match unix.path() {
        UnixSocket::File(path) => UnixStream::connect(path),
        UnixSocket::Abstract(name) => {
            use std::os::linux::net::SocketAddrExt;
            use std::os::unix::ffi::OsStrExt;
            std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())
                .and_then(|a| UnixStream::connect_addr(&a))
        }
        _ => return Err(CallError::Unsupported),
    };
    stream.map_err(|e| unreachable(format!("cannot connect to the session bus: {e}")))
}

/// The time left until `deadline`, or [`CallError::Timeout`].
fn left(deadline: Instant) -> Result<std::time::Duration, CallError> {
    let now = Instant::now();
    if now >= deadline {
        return Err(CallError::Timeout);
    }
    Ok(deadline - now)
}

/// Reads one whole message (fixed header, header fields, body).
fn read_message(r: &mut impl Read) -> Result<Message, CallError> {
    let mut head = [0u8; 16];
    r.read_exact(&mut head).map_err(io_error)?;
    let endian = match head[0] {
        b'l' => Endian::Little,
        b'B' => Endian::Big,
        _ => return Err(unreachable("the bus sent a malformed message")),
    };
    let word = |at: usize| {
        let b = [head[at], head[at + 1], head[at + 2], head[at + 3]];
        match endian {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    };
    let body = word(4) as usize;
    let fields = word(12) as usize;
    let total = (16 + fields).next_multiple_of(8) + body;
    if total > MAX_MESSAGE {
        return Err(unreachable("the bus sent an oversized message"));
    }
    let mut bytes = vec![0u8; total];
    bytes[..16].copy_from_slice(&head);
    r.read_exact(&mut bytes[16..]).map_err(io_error)?;
    // SAFETY: from_bytes checks the encoding as it parses; a malformed message is an
    // error, not undefined behaviour ("unsafe" marks that zbus did not produce it).
    unsafe { Message::from_bytes(Data::new(bytes, Context::new_dbus(endian, 0))) }
        .map_err(unreachable)
}

/// The error name and message of an error reply.
fn failure(msg: &Message) -> CallError {
    let header = msg.header();
    let name = header
        .error_name()
        .map(|n| n.to_string())
        .unwrap_or_default();
    let message = msg.body().deserialize::<String>().unwrap_or_default();
    CallError::Failed { name, message }
}

/// Calls `method` of `io.github.attend.Attend1` on the daemon with `body`, and returns
/// the reply once it arrives, all before `deadline`.
///
/// Errors: [`CallError::Unsupported`] (not a Unix socket address: nothing was sent),
/// [`CallError::Unreachable`], [`CallError::Timeout`] (the call may still be applied
/// later: the caller's delivery id makes a second delivery harmless),
/// [`CallError::Failed`] with the D-Bus error (e.g. `ServiceUnknown` when no daemon owns
/// the name).
pub fn call<B>(method: &str, body: &B, deadline: Instant) -> Result<Message, CallError>
where
    B: serde::Serialize + DynamicType,
{
    let hello = Message::method_call("/org/freedesktop/DBus", "Hello")
        .and_then(|b| b.destination("org.freedesktop.DBus"))
        .and_then(|b| b.interface("org.freedesktop.DBus"))
        .and_then(|b| b.build(&()))
        .map_err(unreachable)?;
    let request = Message::method_call(OBJECT_PATH, method)
        .and_then(|b| b.destination(BUS_NAME))
        .and_then(|b| b.interface(INTERFACE))
        .and_then(|b| b.build(body))
        .map_err(unreachable)?;
    let stream = connect()?;
    stream
        .set_write_timeout(Some(left(deadline)?))
        .map_err(io_error)?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() }.to_string();
    let hex: String = uid.bytes().map(|b| format!("{b:02x}")).collect();
    let mut out = format!("\0AUTH EXTERNAL {hex}\r\nBEGIN\r\n").into_bytes();
    out.extend_from_slice(hello.data().bytes());
    out.extend_from_slice(request.data().bytes());
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
    let hello_serial = hello.primary_header().serial_num();
    let request_serial = request.primary_header().serial_num();
    loop {
        stream
            .set_read_timeout(Some(left(deadline)?))
            .map_err(io_error)?;
        let msg = read_message(&mut reader)?;
        let reply_to = msg.header().reply_serial();
        match msg.message_type() {
            Type::Error if reply_to == Some(hello_serial) => {
                return Err(unreachable(format!("Hello failed: {:?}", failure(&msg))));
            }
            Type::Error if reply_to == Some(request_serial) => return Err(failure(&msg)),
            Type::MethodReturn if reply_to == Some(request_serial) => return Ok(msg),
            _ => {} // The Hello reply, NameAcquired, …
        }
    }
}
