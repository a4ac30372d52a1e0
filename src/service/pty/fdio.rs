//! Small file-descriptor helpers of the PTY host: non-blocking PTY masters (the reactor
//! reads them without a thread each, src/service/pty/reactor.rs), a writer that still
//! waits for room on such a descriptor, and process descriptors (`pidfd`) that become
//! readable when a child exits.

use std::io::{self, Write};
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};

/// A duplicate of `fd` (close-on-exec).
pub fn dup(fd: RawFd) -> io::Result<OwnedFd> {
    // SAFETY: the caller's descriptor is open for the duration of this call.
    unsafe { BorrowedFd::borrow_raw(fd) }.try_clone_to_owned()
}

/// Sets `O_NONBLOCK` on the open file description of `fd` (every duplicate shares it,
/// including one a pane holder kept: its reads already treat EAGAIN as "nothing yet").
pub fn set_nonblocking(fd: &OwnedFd) -> io::Result<()> {
    use nix::fcntl::{fcntl, FcntlArg, OFlag};
    let flags = OFlag::from_bits_truncate(fcntl(fd, FcntlArg::F_GETFL)?);
    fcntl(fd, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
    Ok(())
}

/// Writes to a descriptor that may be non-blocking, waiting (poll for `POLLOUT`) while it
/// has no room: the program's input buffer is full. Blocks like a plain write would.
pub struct PollWriter(pub OwnedFd);

impl Write for PollWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
        loop {
            // SAFETY: writes at most `buf.len()` bytes from `buf`.
            let n = unsafe { libc::write(self.0.as_raw_fd(), buf.as_ptr().cast(), buf.len()) };
            if n >= 0 {
                return Ok(n as usize);
            }
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock => {
                    let mut fds = [PollFd::new(
                        // SAFETY: `self.0` is open while we poll it.
                        unsafe { BorrowedFd::borrow_raw(self.0.as_raw_fd()) },
                        PollFlags::POLLOUT,
                    )];
                    match poll(&mut fds, PollTimeout::NONE) {
                        Ok(_) | Err(nix::errno::Errno::EINTR) => continue,
                        Err(e) => return Err(e.into()),
                    }
                }
                _ => return Err(e),
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A process descriptor of child `pid` (`pidfd_open`, Linux 5.3): readable once the
/// child exited. Errors: ENOSYS on an older kernel, ESRCH when there is no such process.
pub fn pidfd_open(pid: u32) -> io::Result<OwnedFd> {
    // SAFETY: plain system call; a non-negative result is a new descriptor we own.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by the kernel and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pidfd_becomes_readable_when_the_child_exits() {
        use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
        use std::os::fd::AsFd;
        let mut child = std::process::Command::new("sleep")
            .arg("0.2")
            .spawn()
            .unwrap();
        let fd = pidfd_open(child.id()).unwrap();
        let mut fds = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
        assert_eq!(
            poll(&mut fds, PollTimeout::ZERO).unwrap(),
            0,
            "still running"
        );
        let mut fds = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
        assert_eq!(poll(&mut fds, PollTimeout::from(5000u16)).unwrap(), 1);
        assert!(child.wait().unwrap().success());
    }

    #[test]
    fn a_poll_writer_waits_for_room_instead_of_failing() {
        let (r, w) = nix::unistd::pipe().unwrap();
        set_nonblocking(&w).unwrap();
        let reader = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            let mut f = std::fs::File::from(r);
            let mut all = Vec::new();
            std::io::Read::read_to_end(&mut f, &mut all).unwrap();
            all.len()
        });
        // Far more than a pipe holds (64 KiB): plain writes would fail with EAGAIN.
        let data = vec![b'x'; 1 << 20];
        let mut writer = PollWriter(w);
        writer.write_all(&data).unwrap();
        drop(writer);
        assert_eq!(reader.join().unwrap(), data.len());
    }
}
