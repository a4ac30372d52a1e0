//! The daemon's open-files limit (`RLIMIT_NOFILE`).
//!
//! Every pane Attend runs costs the daemon about six descriptors (the PTY master, its
//! reader's and writer's copies, the holder's socket, the waiter's copy of it and the
//! screen log; `docs/benchmarks.md#panes-daemon-threads-memory-and-descriptors-item-8`),
//! so 1 000 panes need more than the soft limit of 1 024 that a desktop session usually
//! gives. At start the daemon raises its soft limit to the hard limit ([`raise`]). The
//! programs in the panes must not inherit the raised limit (`select(2)` cannot take
//! descriptors from 1 024 up, and some programs close every possible descriptor at
//! start): each pane holder gets the original soft limit back before it starts its
//! program ([`restore_in`]), so an agent sees the limit it would see anywhere else.

use nix::libc;
use std::io;
use std::sync::OnceLock;

/// The soft limit this process had before [`raise`] raised it.
static ORIGINAL_SOFT: OnceLock<libc::rlim_t> = OnceLock::new();

/// A process's `RLIMIT_NOFILE` (`pid` 0: this process).
fn get(pid: i32) -> io::Result<libc::rlimit> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: prlimit writes one rlimit; no new limit is given.
    let rc = unsafe { libc::prlimit(pid, libc::RLIMIT_NOFILE, std::ptr::null(), &mut lim) };
    if rc == 0 {
        Ok(lim)
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Sets the soft `RLIMIT_NOFILE` of `pid` (0: this process) to `soft` (at most its hard
/// limit), keeping the hard limit.
fn set_soft(pid: i32, soft: libc::rlim_t) -> io::Result<()> {
    let mut lim = get(pid)?;
    lim.rlim_cur = soft.min(lim.rlim_max);
    // SAFETY: prlimit reads one rlimit; the old one is not asked for.
    let rc = unsafe { libc::prlimit(pid, libc::RLIMIT_NOFILE, &lim, std::ptr::null_mut()) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Raises this process's soft open-files limit to its hard limit and remembers the
/// original soft limit for [`restore_in`]. Returns `(from, to)` when it raised it, `None`
/// when the soft limit already was the hard one. Errors: `getrlimit`/`setrlimit`'s.
pub fn raise() -> io::Result<Option<(u64, u64)>> {
    let lim = get(0)?;
    if lim.rlim_cur >= lim.rlim_max {
        return Ok(None);
    }
    set_soft(0, lim.rlim_max)?;
    let _ = ORIGINAL_SOFT.set(lim.rlim_cur);
    Ok(Some((lim.rlim_cur as u64, lim.rlim_max as u64)))
}

/// Gives process `pid` (a pane holder, before it starts its program) the soft
/// open-files limit this process had before [`raise`]; nothing when it was not raised.
/// Best effort: a failure is logged, the pane starts all the same.
pub fn restore_in(pid: u32) {
    let Some(&soft) = ORIGINAL_SOFT.get() else {
        return;
    };
    if let Err(e) = set_soft(pid as i32, soft) {
        tracing::warn!(
            pid,
            "cannot give the pane holder the usual open-files limit: {e}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raise_lifts_the_soft_limit_to_the_hard_one() {
        let before = get(0).unwrap();
        let lower = before.rlim_cur.min(before.rlim_max) - 1;
        set_soft(0, lower).unwrap();
        let raised = raise().unwrap();
        let after = get(0).unwrap();
        set_soft(0, before.rlim_cur).unwrap();
        assert_eq!(raised, Some((lower as u64, before.rlim_max as u64)));
        assert_eq!(after.rlim_cur, before.rlim_max);
    }

    #[test]
    fn another_process_gets_a_lower_soft_limit_and_keeps_its_hard_one() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id() as i32;
        let hard = get(pid).unwrap().rlim_max;
        let set = set_soft(pid, 512);
        let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
        let _ = child.kill();
        let _ = child.wait();
        set.unwrap();
        let line = limits
            .lines()
            .find(|l| l.starts_with("Max open files"))
            .unwrap();
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields[3], "512", "{line}");
        assert_eq!(fields[4], hard.to_string(), "{line}");
    }
}
