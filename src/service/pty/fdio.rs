//! Small file-descriptor helpers of the PTY host: non-blocking PTY masters (the reactor
//! reads them without a thread each, src/service/pty/reactor.rs), a writer that still
//! waits for room on such a descriptor, reads that tell a PTY's end of output from a
//! premature EIO ([`read_master`]).

use std::io::{self, Write};
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};

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

/// What one read of a PTY master gave ([`read_master`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MasterRead {
    /// This many bytes.
    Bytes(usize),
    /// Nothing for now (EAGAIN): wait for readiness.
    Drained,
    /// Read again at once: EINTR, or an EIO that may not be the end yet.
    Again,
    /// The end of output: EIO right after an EIO, end of file, or another error.
    End,
}

/// Reads the non-blocking PTY master `fd` into `buf`. Linux answers EIO once no process
/// has the terminal open, but may answer it once while the last writes of the program
/// that closed it are still on their way to the master (a program exiting right after a
/// flood lost its last 2 KiB writes that way, about once in 500 runs; a read right after
/// the EIO returned them). So an EIO is the end only when the read right after it gives
/// EIO again: `eio` says the previous read gave EIO (false to start with).
pub fn read_master(fd: RawFd, buf: &mut [u8], eio: &mut bool) -> MasterRead {
    // SAFETY: reads at most `buf.len()` bytes into `buf`.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    let result = usize::try_from(n).map_err(|_| io::Error::last_os_error());
    master_read(result, eio)
}

/// [`read_master`]'s reading of one `read` result.
fn master_read(result: io::Result<usize>, eio: &mut bool) -> MasterRead {
    let after_eio = std::mem::replace(eio, false);
    match result {
        Ok(0) => MasterRead::End,
        Ok(n) => MasterRead::Bytes(n),
        Err(e) => match e.kind() {
            io::ErrorKind::WouldBlock => MasterRead::Drained,
            io::ErrorKind::Interrupted => {
                *eio = after_eio;
                MasterRead::Again
            }
            _ if e.raw_os_error() == Some(libc::EIO) && !after_eio => {
                *eio = true;
                MasterRead::Again
            }
            _ => MasterRead::End,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A first EIO is read again: the output after it counts, and only EIO twice in a
    /// row ends it (the kernel's premature EIO, see `read_master`).
    #[test]
    fn only_eio_twice_in_a_row_ends_a_masters_output() {
        let eio = || Err(io::Error::from_raw_os_error(libc::EIO));
        let mut after = false;
        let got: Vec<MasterRead> = [
            Ok(4096),
            eio(),
            Ok(252),
            eio(),
            Err(io::Error::from_raw_os_error(libc::EINTR)),
            eio(),
        ]
        .into_iter()
        .map(|r| master_read(r, &mut after))
        .collect();
        use MasterRead::*;
        assert_eq!(got, [Bytes(4096), Again, Bytes(252), Again, Again, End]);
        // A real PTY whose slave is closed: EIO, read again, EIO: the end.
        let pty = nix::pty::openpty(None, None).unwrap();
        drop(pty.slave);
        set_nonblocking(&pty.master).unwrap();
        let (mut buf, mut after) = ([0u8; 64], false);
        let fd = pty.master.as_raw_fd();
        assert_eq!(read_master(fd, &mut buf, &mut after), Again);
        assert_eq!(read_master(fd, &mut buf, &mut after), End);
        // Other errors end it at once (EBADF here).
        assert_eq!(read_master(-1, &mut buf, &mut false), End);
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
