//! `attend bridge --stdio`: run on the remote machine by ssh (or a `--via` carrier), it
//! joins its stdin/stdout to the user's session bus there, as `systemd-stdio-bridge`
//! does (`docs/decisions/0014-remote-link.md`).
//!
//! It finds the bus with [`attend_hook::address::session`], connects a Unix socket,
//! authenticates itself with SASL `EXTERNAL` (its own uid: the bus sees the bridge's
//! user), answers the far client's handshake itself ([`sasl`]), then relays bytes both
//! ways until either side closes. Every failure is one line on stderr, which the local
//! side shows as the link's last error.

pub mod sasl;

use attend_hook::address::{session, Socket};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;

/// Runs the bridge on this process's stdin/stdout; returns the exit code (0 when either
/// side closed after the handshake, 1 on a failure, reported on stderr).
pub fn run_stdio() -> i32 {
    match bridge() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("attend bridge: {e}");
            1
        }
    }
}

fn bridge() -> Result<(), String> {
    let dup = |fd: std::os::fd::BorrowedFd<'_>| {
        fd.try_clone_to_owned()
            .map(File::from)
            .map_err(|e| format!("cannot use stdio: {e}"))
    };
    let stdin = dup(std::io::stdin().as_fd())?;
    let mut stdout = dup(std::io::stdout().as_fd())?;
    let (bus, guid) = connect_bus()?;
    let mut client = BufReader::new(stdin);
    handshake(&mut client, &mut stdout, &guid)?;
    relay(client, stdout, bus)
}

/// Connects to the first session bus socket that answers and authenticates with
/// `EXTERNAL`; the stream (after `BEGIN`) and the bus's guid.
fn connect_bus() -> Result<(UnixStream, String), String> {
    let sockets = session();
    let mut last = String::from("no Unix socket in DBUS_SESSION_BUS_ADDRESS");
    for socket in &sockets {
        let connected = match socket {
            Socket::Path(p) => UnixStream::connect(p),
            Socket::Abstract(name) => {
                use std::os::linux::net::SocketAddrExt;
                std::os::unix::net::SocketAddr::from_abstract_name(name)
                    .and_then(|a| UnixStream::connect_addr(&a))
            }
        };
        match connected {
            Ok(s) => return authenticate(s),
            Err(e) => {
                last = match socket {
                    Socket::Path(p) => format!("{}: {e}", p.display()),
                    Socket::Abstract(n) => format!("@{}: {e}", String::from_utf8_lossy(n)),
                }
            }
        }
    }
    Err(format!("cannot connect to the session bus: {last}"))
}

fn authenticate(mut bus: UnixStream) -> Result<(UnixStream, String), String> {
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    let hello = format!("\0{}", sasl::auth_external(uid));
    let failed = |e: std::io::Error| format!("the session bus failed the handshake: {e}");
    bus.write_all(hello.as_bytes()).map_err(failed)?;
    let mut reader = BufReader::new(bus.try_clone().map_err(failed)?);
    let line = read_line(&mut reader)?.ok_or("the session bus closed during the handshake")?;
    let guid = sasl::ok_guid(&line).ok_or_else(|| {
        format!(
            "the session bus refused this user: {}",
            String::from_utf8_lossy(&line).escape_debug()
        )
    })?;
    bus.write_all(b"BEGIN\r\n").map_err(failed)?;
    Ok((bus, guid))
}

/// One `\r\n`-terminated line of at most [`sasl::LINE_MAX`] bytes, without its end;
/// `None` at a clean end of input. Errors: an overlong or unterminated line.
fn read_line(r: &mut impl BufRead) -> Result<Option<Vec<u8>>, String> {
    let mut line = Vec::new();
    let n = r
        .take(sasl::LINE_MAX as u64 + 2)
        .read_until(b'\n', &mut line)
        .map_err(|e| format!("cannot read the handshake: {e}"))?;
    if n == 0 {
        return Ok(None);
    }
    if line.pop() != Some(b'\n') {
        return Err(format!(
            "a handshake line longer than {} bytes or cut short: not a D-Bus client",
            sasl::LINE_MAX
        ));
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(Some(line))
}

/// Plays the server side of the handshake on the client's stdio.
fn handshake(client: &mut BufReader<File>, out: &mut File, guid: &str) -> Result<(), String> {
    let mut nul = [0u8; 1];
    client
        .read_exact(&mut nul)
        .map_err(|_| "the client closed before the handshake".to_string())?;
    if nul[0] != 0 {
        return Err(
            "the client did not start with the NUL byte of D-Bus: not a D-Bus client".into(),
        );
    }
    let mut server = sasl::Server::new(guid);
    loop {
        let line = read_line(client)?.ok_or("the client closed during the handshake")?;
        match server.line(&line) {
            sasl::Step::Reply(r) => out
                .write_all(format!("{r}\r\n").as_bytes())
                .map_err(|e| format!("cannot answer the client: {e}"))?,
            sasl::Step::Begin => return Ok(()),
            sasl::Step::Fail(why) => return Err(why),
        }
    }
}

/// Copies client → bus (what the handshake's reader holds first) and bus → client until
/// either side closes. Errors: the bus closed first (said on stderr, so the far side
/// sees why its link ended).
fn relay(client: BufReader<File>, mut out: File, bus: UnixStream) -> Result<(), String> {
    let (done_tx, done_rx) = std::sync::mpsc::channel::<bool>();
    let mut to_bus = bus.try_clone().map_err(|e| e.to_string())?;
    let mut from_bus = bus;
    let tx = done_tx.clone();
    std::thread::spawn(move || {
        let mut client = client;
        if let Err(e) = pump(&mut client, &mut to_bus) {
            eprintln!("attend bridge: client to bus: {e}");
        }
        let _ = to_bus.shutdown(std::net::Shutdown::Write);
        let _ = tx.send(false);
    });
    std::thread::spawn(move || {
        if let Err(e) = pump(&mut from_bus, &mut out) {
            eprintln!("attend bridge: bus to client: {e}");
        }
        let _ = done_tx.send(true);
    });
    match done_rx.recv() {
        Ok(true) => Err("the session bus closed the connection".into()),
        _ => Ok(()),
    }
}

/// Copies `from` to `to` until end of file, through a buffer. Not `std::io::copy`: between
/// a pipe (sshd gives the bridge pipes) and a socket it moves the bytes with `splice`, and
/// with it the far end's sshd stalled after the first message (its keep-alive answers
/// too, so the local ssh gave up on a sound link; seen on Linux 6.18, the bridge's splice
/// holding the pipe sshd writes into). `tests/integration/remote_link.rs` runs the link through sshd.
fn pump(from: &mut impl Read, to: &mut impl Write) -> std::io::Result<()> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => to.write_all(&buf[..n])?,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}
