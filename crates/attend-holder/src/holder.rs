//! The holder process: detaches from the daemon, opens the PTY, starts the program in it,
//! then keeps the PTY open for as long as the program runs, whether a daemon is connected
//! or not (docs/decisions/0009-pane-holders.md).
//!
//! Start-up talks to the daemon over stdin/stdout (lines): `ready PID` once the socket
//! listens (the daemon may move PID into a cgroup scope of its own now), then it waits for
//! one byte on stdin before it starts the program, then `started PID` or `error ERRNO`.
//! After that it has no terminal, no standard streams and one thread: a `poll` loop over
//! the listening socket, the connected daemon (if any), the PTY master (only while no
//! daemon is connected) and a signalfd for SIGCHLD. It never wakes up on its own (a test
//! harness's [`crate::tether`] adds a pidfd to the loop).

use crate::buffer::Backlog;
use crate::fdpass;
use crate::proto::{ExitRecord, ExitStatus, Frame, Hello, DATA_CHUNK};
use crate::tether::Tether;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{SigSet, SigmaskHow, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use std::ffi::{CString, OsString};
use std::io::{self, BufRead, Read, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;

/// Default output buffer while no daemon is connected (bytes).
pub const DEFAULT_BUFFER: usize = 8 * 1024 * 1024;

/// The holder's command line: `--socket PATH --state-dir DIR --pane N --rows R --cols C
/// [--buffer BYTES] [--cwd DIR] -- PROGRAM ARGS…`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Args {
    /// The socket to listen on (its directory exists, mode 0700).
    pub socket: PathBuf,
    /// A second socket, best effort (in the state directory: it outlives the removal of
    /// the runtime directory at logout).
    pub also_socket: Option<PathBuf>,
    /// The state directory of the daemon that starts it (told to every daemon that
    /// connects, so that a daemon of another directory leaves it alone).
    pub state_dir: PathBuf,
    /// Pane number.
    pub pane: u64,
    /// Terminal rows.
    pub rows: u16,
    /// Terminal columns.
    pub cols: u16,
    /// Output buffer while no daemon is connected (bytes).
    pub buffer: usize,
    /// Working directory of the program.
    pub cwd: Option<PathBuf>,
    /// The program and its arguments.
    pub argv: Vec<OsString>,
}

impl Args {
    /// The command line for these arguments (the inverse of [`Args::parse`]).
    pub fn to_args(&self) -> Vec<OsString> {
        let mut a: Vec<OsString> = vec![
            "--socket".into(),
            self.socket.clone().into(),
            "--state-dir".into(),
            self.state_dir.clone().into(),
            "--pane".into(),
            self.pane.to_string().into(),
            "--rows".into(),
            self.rows.to_string().into(),
            "--cols".into(),
            self.cols.to_string().into(),
            "--buffer".into(),
            self.buffer.to_string().into(),
        ];
        if let Some(cwd) = &self.cwd {
            a.push("--cwd".into());
            a.push(cwd.clone().into());
        }
        if let Some(also) = &self.also_socket {
            a.push("--also-socket".into());
            a.push(also.clone().into());
        }
        a.push("--".into());
        a.extend(self.argv.iter().cloned());
        a
    }

    /// Parses the command line. Errors name the flag.
    pub fn parse(args: &[OsString]) -> Result<Args, String> {
        let mut it = args.iter();
        let (mut socket, mut state_dir, mut pane, mut rows, mut cols, mut cwd) =
            (None, None, None, None, None, None);
        let mut also_socket = None;
        let mut buffer = DEFAULT_BUFFER;
        let num = |v: Option<&OsString>, flag: &str| -> Result<u64, String> {
            v.and_then(|v| v.to_str())
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{flag} needs a number"))
        };
        while let Some(a) = it.next() {
            match a.to_str() {
                Some("--socket") => socket = it.next().map(PathBuf::from),
                Some("--also-socket") => also_socket = it.next().map(PathBuf::from),
                Some("--state-dir") => state_dir = it.next().map(PathBuf::from),
                Some("--cwd") => cwd = it.next().map(PathBuf::from),
                Some("--pane") => pane = Some(num(it.next(), "--pane")?),
                Some("--rows") => rows = Some(num(it.next(), "--rows")?.clamp(1, 1000) as u16),
                Some("--cols") => cols = Some(num(it.next(), "--cols")?.clamp(1, 1000) as u16),
                Some("--buffer") => buffer = num(it.next(), "--buffer")? as usize,
                Some("--") => break,
                _ => return Err(format!("unknown argument {}", a.to_string_lossy())),
            }
        }
        let argv: Vec<OsString> = it.cloned().collect();
        if argv.is_empty() {
            return Err("no program after --".into());
        }
        Ok(Args {
            socket: socket.ok_or("--socket is required")?,
            also_socket,
            state_dir: state_dir.ok_or("--state-dir is required")?,
            pane: pane.ok_or("--pane is required")?,
            rows: rows.unwrap_or(24),
            cols: cols.unwrap_or(80),
            buffer,
            cwd,
            argv,
        })
    }
}

/// Runs a holder with `args` (see the module docs). Returns when the program's exit was
/// collected by a daemon, or on a start-up error (reported on stdout as `error …`).
pub fn run(args: Args) -> io::Result<()> {
    // Nothing the daemon had open stays open here (a lock file would outlive it).
    // SAFETY: closes descriptors this process does not use; std's are 0..=2.
    unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) };
    detach()?;
    let tether = Tether::from_env();
    let mut out = io::stdout().lock();
    let mut sockets = Sockets::default();
    let listener = sockets.bind(&args.socket)?;
    let spare = args
        .also_socket
        .as_deref()
        .and_then(|p| sockets.bind(p).ok());
    let ws = nix::pty::Winsize {
        ws_row: args.rows,
        ws_col: args.cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let pty = nix::pty::openpty(Some(&ws), None).map_err(io::Error::from)?;
    cloexec(&pty.master)?;
    cloexec(&pty.slave)?;
    let mut chld = SigSet::empty();
    chld.add(Signal::SIGCHLD);
    nix::sys::signal::sigprocmask(SigmaskHow::SIG_BLOCK, Some(&chld), None)
        .map_err(io::Error::from)?;
    let sfd = SignalFd::with_flags(&chld, SfdFlags::SFD_CLOEXEC | SfdFlags::SFD_NONBLOCK)
        .map_err(io::Error::from)?;

    writeln!(out, "ready {}", std::process::id())?;
    out.flush()?;
    let mut go = String::new();
    if io::stdin().lock().read_line(&mut go)? == 0 {
        sockets.remove();
        return Err(io::Error::other("the daemon went away before the start"));
    }
    let child = match start_child(&args, &pty.slave) {
        Ok(pid) => pid,
        Err(errno) => {
            sockets.remove();
            writeln!(out, "error {errno}")?;
            out.flush()?;
            return Err(io::Error::from_raw_os_error(errno));
        }
    };
    drop(pty.slave);
    writeln!(out, "started {child}")?;
    out.flush()?;
    drop(out);
    quiet_stdio();

    let mut h = Holder {
        args,
        sockets,
        listener,
        spare,
        client: None,
        master: Some(pty.master),
        master_eof: false,
        child: Pid::from_raw(child),
        exit: None,
        backlog: Backlog::new(0),
        sfd,
        tether,
    };
    h.backlog = Backlog::new(h.args.buffer);
    h.serve()
}

/// `setsid` (own session and process group, no controlling terminal) and a fork whose
/// parent exits at once: the daemon reaps that parent, and the holder is nobody's child
/// but init's (or the nearest subreaper's).
fn detach() -> io::Result<()> {
    nix::unistd::setsid().map_err(io::Error::from)?;
    // SAFETY: single-threaded here; the parent leaves with _exit.
    match unsafe { nix::unistd::fork() }.map_err(io::Error::from)? {
        nix::unistd::ForkResult::Parent { .. } => unsafe { libc::_exit(0) },
        nix::unistd::ForkResult::Child => Ok(()),
    }
}

/// The socket files this holder bound, each with its device and inode: a resumed pane
/// keeps its id, so the holder that ends after its exit was collected may find its path
/// already taken by the next holder of the same pane, whose socket it must not remove.
#[derive(Default)]
struct Sockets(Vec<(PathBuf, u64, u64)>);

impl Sockets {
    /// Binds a listening socket at `path` (mode 0600) and remembers which file it is.
    fn bind(&mut self, path: &std::path::Path) -> io::Result<UnixListener> {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        // A socket left by a holder that died, or by the pane's previous holder that is
        // ending (its program's exit was collected): the path is this holder's now.
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let listener = UnixListener::bind(path)?;
        // 0600 whatever the umask, as every file Attend keeps (its directory is 0700 too):
        // it carries keystrokes into the agent.
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        let meta = std::fs::metadata(path)?;
        self.0.push((path.to_path_buf(), meta.dev(), meta.ino()));
        Ok(listener)
    }

    /// Removes the socket files that are still the ones this holder bound.
    fn remove(&self) {
        use std::os::unix::fs::MetadataExt;
        for (path, dev, ino) in &self.0 {
            if std::fs::metadata(path).is_ok_and(|m| m.dev() == *dev && m.ino() == *ino) {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

fn cloexec(fd: &OwnedFd) -> io::Result<()> {
    use nix::fcntl::{fcntl, FcntlArg, FdFlag};
    fcntl(fd, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC)).map_err(io::Error::from)?;
    Ok(())
}

/// Standard streams on /dev/null: the daemon's pipes are closed, nothing can block on them.
fn quiet_stdio() {
    if let Ok(null) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
    {
        for fd in 0..=2 {
            // SAFETY: plain descriptor duplication.
            unsafe { libc::dup2(null.as_raw_fd(), fd) };
        }
    }
}

/// Forks and execs the program on the PTY slave (session leader, controlling terminal,
/// default signal mask and SIGPIPE). Returns its pid, or the errno of a failed exec/chdir.
fn start_child(args: &Args, slave: &OwnedFd) -> Result<i32, i32> {
    let argv: Vec<CString> = args
        .argv
        .iter()
        .map(|a| CString::new(a.as_bytes()).map_err(|_| libc::EINVAL))
        .collect::<Result<_, _>>()?;
    let mut ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    let cwd = match &args.cwd {
        Some(c) => Some(CString::new(c.as_os_str().as_bytes()).map_err(|_| libc::EINVAL)?),
        None => None,
    };
    let (r, w) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(|e| e as i32)?;
    let slave = slave.as_raw_fd();
    // SAFETY: single-threaded; the child calls only async-signal-safe functions.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO));
    }
    if pid == 0 {
        unsafe {
            let mut empty: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut empty);
            libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
            libc::setsid();
            libc::ioctl(slave, libc::TIOCSCTTY, 0);
            for fd in 0..=2 {
                libc::dup2(slave, fd);
            }
            let fail = |w: i32| {
                let errno = *libc::__errno_location();
                libc::write(w, (&errno as *const i32).cast(), 4);
                libc::_exit(127);
            };
            if let Some(cwd) = &cwd {
                if libc::chdir(cwd.as_ptr()) != 0 {
                    fail(w.as_raw_fd());
                }
            }
            libc::execvp(ptrs[0], ptrs.as_ptr());
            fail(w.as_raw_fd());
        }
    }
    drop(w);
    let mut errno = [0u8; 4];
    let mut f = std::fs::File::from(r);
    match f.read_exact(&mut errno) {
        Ok(()) => {
            let _ = waitpid(Pid::from_raw(pid), None);
            Err(i32::from_ne_bytes(errno))
        }
        Err(_) => Ok(pid),
    }
}

/// The terminal size the program sees now (the daemon may have resized it).
fn winsize(master: &OwnedFd) -> Option<nix::pty::Winsize> {
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: TIOCGWINSZ writes one winsize.
    let rc = unsafe { libc::ioctl(master.as_raw_fd(), libc::TIOCGWINSZ, &mut ws) };
    (rc == 0).then_some(ws)
}

/// Gives the heap pages of a handed-over backlog back to the system (glibc's allocator
/// keeps freed pages otherwise), so that a holder whose buffer is empty again is as small
/// as one that never buffered.
fn release_free_memory() {
    // SAFETY: malloc_trim only returns free memory of the allocator to the kernel.
    #[cfg(target_env = "gnu")]
    unsafe {
        libc::malloc_trim(0)
    };
}

/// Wall clock in ms since the epoch.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

struct Holder {
    args: Args,
    sockets: Sockets,
    listener: UnixListener,
    spare: Option<UnixListener>,
    client: Option<UnixStream>,
    master: Option<OwnedFd>,
    /// The PTY's output ended (read returned EIO): no more polling it.
    master_eof: bool,
    child: Pid,
    exit: Option<ExitRecord>,
    backlog: Backlog,
    sfd: SignalFd,
    /// The process this holder ends with (test harnesses only: [`crate::tether`]).
    tether: Option<Tether>,
}

impl Holder {
    fn serve(&mut self) -> io::Result<()> {
        // Reads while no daemon is connected land here. Allocated, never zeroed: only the
        // pages the kernel writes into become resident, so a holder whose daemon is
        // connected (the usual case) keeps none of it (docs/benchmarks.md, holder memory).
        let mut buf: Vec<u8> = Vec::with_capacity(DATA_CHUNK);
        loop {
            let (listen, sig, spare, other) = {
                let mut fds = vec![
                    PollFd::new(self.listener.as_fd(), PollFlags::POLLIN),
                    PollFd::new(self.sfd.as_fd(), PollFlags::POLLIN),
                ];
                if let Some(l) = &self.spare {
                    fds.push(PollFd::new(l.as_fd(), PollFlags::POLLIN));
                }
                let first = fds.len();
                // The daemon reads the PTY while it is connected; the holder only then.
                if let Some(c) = &self.client {
                    fds.push(PollFd::new(c.as_fd(), PollFlags::POLLIN));
                } else if let (Some(m), false) = (&self.master, self.master_eof) {
                    fds.push(PollFd::new(m.as_fd(), PollFlags::POLLIN));
                }
                let has_other = fds.len() > first;
                let mut timeout = PollTimeout::NONE;
                match self.tether.as_ref().map(Tether::fd) {
                    Some(Some(fd)) => fds.push(PollFd::new(fd, PollFlags::POLLIN)),
                    Some(None) => timeout = PollTimeout::from(Tether::POLL_MS),
                    None => {}
                }
                match poll(&mut fds, timeout) {
                    Err(nix::errno::Errno::EINTR) => continue,
                    Err(e) => return Err(e.into()),
                    Ok(_) => {}
                }
                let ready = |f: &PollFd| f.revents().is_some_and(|r| !r.is_empty());
                (
                    ready(&fds[0]),
                    ready(&fds[1]),
                    first == 3 && ready(&fds[2]),
                    has_other && ready(&fds[first]),
                )
            };
            if self.tether.as_ref().is_some_and(Tether::gone) {
                // The test process that started it is gone: so is everything of the pane.
                crate::tether::kill_session(self.child.as_raw());
                let _ = waitpid(self.child, None);
                self.sockets.remove();
                return Ok(());
            }
            if sig {
                self.reap();
            }
            if other {
                if self.client.is_some() {
                    if self.daemon_message() {
                        self.sockets.remove();
                        return Ok(());
                    }
                } else {
                    self.drain_master(&mut buf);
                }
            }
            if listen {
                self.accept(false);
            }
            if spare {
                self.accept(true);
            }
        }
    }

    /// Reaps the program (SIGCHLD) and tells a connected daemon.
    fn reap(&mut self) {
        while self.sfd.read_signal().ok().flatten().is_some() {}
        loop {
            let status = match waitpid(self.child, Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::Exited(_, code)) => ExitStatus::Code(code),
                Ok(WaitStatus::Signaled(_, sig, _)) => ExitStatus::Signal(sig as i32),
                Ok(WaitStatus::StillAlive) => return,
                Ok(_) => continue,
                Err(nix::errno::Errno::EINTR) => continue,
                Err(_) if self.exit.is_none() => ExitStatus::Unknown,
                Err(_) => return,
            };
            let record = ExitRecord {
                status,
                at_ms: now_ms(),
            };
            self.exit = Some(record);
            self.send(&[Frame::Exit(record)]);
            return;
        }
    }

    /// Output while no daemon is connected goes to the bounded buffer. At the end of
    /// output (no process has the terminal open any more: EIO) the holder stops reading
    /// but keeps the master: closing it would hang the terminal up, and a program that
    /// closed its terminal but runs on (a daemonized child, say) would get SIGHUP.
    fn drain_master(&mut self, buf: &mut Vec<u8>) {
        let Some(m) = &self.master else { return };
        buf.clear();
        // SAFETY: `read` writes at most `capacity` bytes into the buffer's spare capacity.
        let n = unsafe { libc::read(m.as_raw_fd(), buf.as_mut_ptr().cast(), buf.capacity()) };
        if n > 0 {
            // SAFETY: the kernel initialised the first `n` bytes.
            unsafe { buf.set_len(n as usize) };
            self.backlog.push(buf);
            return;
        }
        match (n, nix::errno::Errno::last()) {
            (n, nix::errno::Errno::EINTR | nix::errno::Errno::EAGAIN) if n < 0 => {}
            _ => self.master_eof = true,
        }
    }

    /// A message from the daemon; true when the holder may end (exit collected).
    fn daemon_message(&mut self) -> bool {
        let Some(c) = self.client.as_mut() else {
            return false;
        };
        match Frame::read_from(c) {
            Ok(Some(Frame::Collected)) if self.exit.is_some() => true,
            Ok(Some(_)) => false,
            // The daemon went away: read the PTY again.
            Ok(None) | Err(_) => {
                self.client = None;
                false
            }
        }
    }

    /// A new connection: same uid only, one daemon at a time; it gets the master, the
    /// hello, the buffered output and a recorded exit.
    fn accept(&mut self, spare: bool) {
        let listener = match (spare, &self.spare) {
            (true, Some(l)) => l,
            _ => &self.listener,
        };
        let Ok((sock, _)) = listener.accept() else {
            return;
        };
        let me = nix::unistd::getuid().as_raw();
        if self.client.is_some() || fdpass::peer_uid(&sock).map_or(true, |uid| uid != me) {
            return;
        }
        let _ = sock.set_nonblocking(false);
        if fdpass::send_fd(&sock, self.master.as_ref().map(|m| m.as_fd())).is_err() {
            return;
        }
        let (bytes, dropped) = self.backlog.take();
        let ws = self.master.as_ref().and_then(winsize);
        let mut frames = vec![Frame::Hello(Hello {
            holder_pid: std::process::id(),
            child_pid: self.child.as_raw() as u32,
            pane: self.args.pane,
            rows: ws.map_or(self.args.rows, |w| w.ws_row),
            cols: ws.map_or(self.args.cols, |w| w.ws_col),
            backlog: bytes.len() as u64,
            dropped,
            exit: self.exit,
            state_dir: self.args.state_dir.clone(),
        })];
        frames.extend(bytes.chunks(DATA_CHUNK).map(|c| Frame::Data(c.to_vec())));
        frames.push(Frame::End);
        self.client = Some(sock);
        self.send(&frames);
        if !bytes.is_empty() {
            drop((frames, bytes));
            release_free_memory();
        }
    }

    fn send(&mut self, frames: &[Frame]) {
        let Some(c) = self.client.as_mut() else {
            return;
        };
        for f in frames {
            if f.write_to(c).is_err() {
                self.client = None;
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ending_holder_leaves_the_socket_its_pane_next_holder_bound() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p3.sock");
        let mut old = Sockets::default();
        let _old_listener = old.bind(&path).unwrap();
        // The pane was resumed: its next holder binds the same path while the old one
        // still ends.
        let mut new = Sockets::default();
        let _new_listener = new.bind(&path).unwrap();
        old.remove();
        assert!(
            UnixStream::connect(&path).is_ok(),
            "the next holder's socket must survive the old holder's end"
        );
        new.remove();
        assert!(!path.exists(), "a holder removes its own socket");
    }
}
