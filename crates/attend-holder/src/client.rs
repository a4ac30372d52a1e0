//! The daemon's side of a holder: starting one ([`start`]) and connecting to one
//! ([`connect`]), blocking std I/O only (docs/decisions/0009-pane-holders.md).

use crate::fdpass;
use crate::holder::Args;
use crate::proto::{ExitRecord, Frame, Hello, ProtoError};
use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// How long a holder may take to answer a connection with its hello and backlog.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(3);

/// The holder executable: `program pre_args… ARGS…` (`attend-holder`, or `attend
/// __holder` where no `attend-holder` is installed).
#[derive(Debug, Clone)]
pub struct Launcher {
    /// Executable path.
    pub program: PathBuf,
    /// Arguments before the holder's own.
    pub pre_args: Vec<OsString>,
}

/// A started holder and its program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Started {
    /// The holder's pid.
    pub holder_pid: u32,
    /// The program's pid.
    pub child_pid: u32,
}

/// Why a holder could not start its program.
#[derive(Debug)]
pub enum StartError {
    /// The holder could not be started or did not follow the start-up protocol.
    Holder(io::Error),
    /// The program could not be started (the errno of its exec or chdir).
    Program(io::Error),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Holder(e) => write!(f, "cannot start the pane holder: {e}"),
            StartError::Program(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for StartError {}

/// Starts a holder for `args` with `env` added to this process's environment; calls
/// `before_program(holder_pid)` once the holder listens and before it starts the program
/// (the place to move it into a cgroup scope). Blocks until the program runs.
pub fn start(
    launcher: &Launcher,
    args: &Args,
    env: &[(OsString, OsString)],
    before_program: impl FnOnce(u32),
) -> Result<Started, StartError> {
    let holder = |e: io::Error| StartError::Holder(e);
    let mut child = Command::new(&launcher.program)
        .args(&launcher.pre_args)
        .args(args.to_args())
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(holder)?;
    let mut stdin = child.stdin.take().expect("piped");
    let mut out = BufReader::new(child.stdout.take().expect("piped"));
    let mut line = String::new();
    let ended = |what: &str| io::Error::other(format!("the holder ended {what}"));
    out.read_line(&mut line).map_err(holder)?;
    // The first process exits once the holder detached.
    let _ = child.wait();
    let holder_pid: u32 = line
        .strip_prefix("ready ")
        .and_then(|p| p.trim().parse().ok())
        .ok_or_else(|| holder(ended("before it was ready")))?;
    before_program(holder_pid);
    stdin.write_all(b"go\n").map_err(holder)?;
    drop(stdin);
    line.clear();
    out.read_line(&mut line).map_err(holder)?;
    let word = |w: &str| {
        line.strip_prefix(w)
            .and_then(|p| p.trim().parse::<i32>().ok())
    };
    if let Some(pid) = word("started ") {
        return Ok(Started {
            holder_pid,
            child_pid: pid as u32,
        });
    }
    match word("error ") {
        Some(errno) => Err(StartError::Program(io::Error::from_raw_os_error(errno))),
        None => Err(holder(ended("before the program started"))),
    }
}

/// A connection to a holder: its hello, the PTY master (unless its output already
/// ended), and the output it buffered while no daemon was connected.
#[derive(Debug)]
pub struct Attached {
    /// The socket (blocking; frames after the backlog: [`Frame::Exit`]).
    pub sock: UnixStream,
    /// What the holder said.
    pub hello: Hello,
    /// The PTY master.
    pub master: Option<OwnedFd>,
    /// Buffered output, oldest first.
    pub backlog: Vec<u8>,
}

/// Why a holder could not be attached.
#[derive(Debug)]
pub enum AttachError {
    /// Nobody listens on the socket (a holder that died): the file is stale.
    Stale(io::Error),
    /// Another user's socket, or one that did not answer the protocol.
    Refused(String),
    /// The holder speaks another protocol version.
    Version(u32),
}

impl std::fmt::Display for AttachError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AttachError::Stale(e) => write!(f, "no holder listens ({e})"),
            AttachError::Refused(why) => write!(f, "{why}"),
            AttachError::Version(v) => write!(f, "{}", ProtoError::Version(*v)),
        }
    }
}

impl std::error::Error for AttachError {}

/// Connects to the holder at `socket` and takes over its PTY: the holder stops reading
/// it. Waits at most [`HANDSHAKE_TIMEOUT`] for the hello and the backlog.
pub fn connect(socket: &Path) -> Result<Attached, AttachError> {
    let sock = UnixStream::connect(socket).map_err(AttachError::Stale)?;
    let refused = |why: String| AttachError::Refused(why);
    let me = nix::unistd::getuid().as_raw();
    match fdpass::peer_uid(&sock) {
        Ok(uid) if uid == me => {}
        Ok(uid) => return Err(refused(format!("the socket belongs to uid {uid}"))),
        Err(e) => return Err(refused(e.to_string())),
    }
    sock.set_read_timeout(Some(HANDSHAKE_TIMEOUT))
        .map_err(|e| refused(e.to_string()))?;
    let master = fdpass::recv_fd(&sock).map_err(|e| refused(format!("no answer: {e}")))?;
    let mut r = &sock;
    let proto = |e: ProtoError| match e {
        ProtoError::Version(v) => AttachError::Version(v),
        other => refused(other.to_string()),
    };
    let hello = match Frame::read_from(&mut r).map_err(proto)? {
        Some(Frame::Hello(h)) => h,
        _ => return Err(refused("the holder did not say hello".into())),
    };
    let mut backlog = Vec::with_capacity(hello.backlog as usize);
    loop {
        match Frame::read_from(&mut r).map_err(proto)? {
            Some(Frame::Data(d)) => backlog.extend(d),
            Some(Frame::End) => break,
            _ => return Err(refused("the holder's backlog is cut short".into())),
        }
    }
    sock.set_read_timeout(None)
        .map_err(|e| refused(e.to_string()))?;
    Ok(Attached {
        sock,
        hello,
        master,
        backlog,
    })
}

impl Attached {
    /// Blocks until the holder reports the program's exit (or returns the one it had
    /// already). `None` when the holder went away without one (killed).
    pub fn wait_exit(&mut self) -> Option<ExitRecord> {
        if let Some(e) = self.hello.exit {
            return Some(e);
        }
        let mut r = &self.sock;
        loop {
            match Frame::read_from(&mut r) {
                Ok(Some(Frame::Exit(e))) => return Some(e),
                Ok(Some(_)) => continue,
                Ok(None) | Err(_) => return None,
            }
        }
    }

    /// Tells the holder its exit is recorded: it ends.
    pub fn collected(&self) -> io::Result<()> {
        Frame::Collected.write_to(&mut &self.sock)
    }
}
