//! The test tether: `ATTEND_HOLDER_TETHER=PID` in a holder's environment ties the holder to
//! process PID. When that process ends, the holder kills every process of its program's
//! session (SIGKILL: a program that ignores the hang-up of its terminal goes too), removes
//! its sockets and exits, without waiting for a daemon to collect the exit.
//!
//! Only test harnesses set it (`tests/support` sets the test process's own pid for every
//! daemon it starts, and the daemon's environment reaches its holders): a holder detaches
//! into a session of its own, so a test run killed by a timeout or Ctrl-C (signals to its
//! process group) or `kill -9` runs no cleanup, and the holders it started, and their
//! programs, would otherwise keep running. Unset, as for every user, nothing changes: a
//! holder outlives the daemon and everything else but its program
//! (docs/decisions/0009-pane-holders.md).

use std::os::fd::{AsFd, BorrowedFd, FromRawFd, OwnedFd};

/// The variable naming the process a holder is tied to.
pub const TETHER_ENV: &str = "ATTEND_HOLDER_TETHER";

/// The process a holder is tied to.
pub struct Tether {
    pid: i32,
    /// A pidfd of it (readable once it ended); `None` where `pidfd_open` is missing or
    /// refused, then [`Tether::gone`] looks at `/proc` every [`Tether::POLL_MS`].
    fd: Option<OwnedFd>,
    /// It had ended before the holder started.
    ended: bool,
}

impl Tether {
    /// How often a tether without a pidfd is looked at (ms).
    pub const POLL_MS: u16 = 500;

    /// The tether [`TETHER_ENV`] names, if it names a pid.
    pub fn from_env() -> Option<Tether> {
        let pid: i32 = std::env::var(TETHER_ENV).ok()?.trim().parse().ok()?;
        if pid <= 0 {
            return None;
        }
        // SAFETY: pidfd_open(pid, 0) returns a new descriptor or -1; nothing else is touched.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if fd >= 0 {
            // SAFETY: the descriptor was just opened and is owned here only.
            let fd = unsafe { OwnedFd::from_raw_fd(fd as i32) };
            return Some(Tether {
                pid,
                fd: Some(fd),
                ended: false,
            });
        }
        let ended = std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        Some(Tether {
            pid,
            fd: None,
            ended,
        })
    }

    /// The pidfd to poll for readability, if there is one.
    pub fn fd(&self) -> Option<BorrowedFd<'_>> {
        self.fd.as_ref().map(|f| f.as_fd())
    }

    /// True once the process ended (exited, killed; a zombie counts as ended).
    pub fn gone(&self) -> bool {
        if self.ended {
            return true;
        }
        match &self.fd {
            Some(fd) => {
                let mut p = [nix::poll::PollFd::new(
                    fd.as_fd(),
                    nix::poll::PollFlags::POLLIN,
                )];
                nix::poll::poll(&mut p, nix::poll::PollTimeout::ZERO).is_ok_and(|n| n > 0)
            }
            None => match stat(self.pid as u32) {
                Some(s) => s.state == 'Z',
                None => true,
            },
        }
    }
}

/// The fields of `/proc/PID/stat` a tether needs.
struct Stat {
    state: char,
    session: i32,
}

fn stat(pid: u32) -> Option<Stat> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // pid (comm) state ppid pgrp session …: the comm may hold spaces and parentheses.
    let mut f = s.get(s.rfind(')')? + 2..)?.split(' ');
    let state = f.next()?.chars().next()?;
    let session = f.nth(2)?.parse().ok()?;
    Some(Stat { state, session })
}

/// SIGKILLs every process of session `sid` (a pane's program leads a session of its own:
/// that is it and everything it started on its terminal, background jobs in process groups
/// of their own included), a few rounds, for processes forked meanwhile.
pub fn kill_session(sid: i32) {
    use nix::sys::signal::{kill, killpg, Signal};
    use nix::unistd::Pid;
    let _ = killpg(Pid::from_raw(sid), Signal::SIGKILL);
    for _ in 0..3 {
        let mut found = false;
        let pids = std::fs::read_dir("/proc").into_iter().flatten().flatten();
        for pid in pids.filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok()) {
            if stat(pid).is_some_and(|s| s.session == sid && s.state != 'Z') {
                found = true;
                let _ = kill(Pid::from_raw(pid as i32), Signal::SIGKILL);
            }
        }
        if !found {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
