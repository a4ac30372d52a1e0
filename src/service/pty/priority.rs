//! Screen work yields the CPU to hooks and user commands: the PTY parser threads run as
//! batch work at a lower priority, so that on a busy machine the daemon's D-Bus and owner
//! threads (and the agents' hook processes) run first when they wake up, and a pane
//! printing fast is what waits (its program waits with it once its parse queue is full:
//! back-pressure, see src/service/pty.rs). On an idle machine nothing changes. Measured in
//! docs/benchmarks.md ("Hooks under PTY load").
//!
//! The reactor (the one thread that reads every PTY) is not lowered: a program waits
//! whenever its reader does, and at a lower priority the reader lost the core to the
//! program it reads and to any other work on the machine, so a flood drained at 0.55–0.88×
//! a bare reader's rate (docs/benchmarks.md "PTY throughput: the reader"). What it does per
//! chunk is cheap; the parsing, which is not, stays here.

/// The nice value of the PTY parser threads (0 is the default, 19 the lowest). It was 10
/// while every pane had threads of its own, whose weights added up with the panes
/// printing; the pool's few threads share one weight whatever the panes, and at 10 a
/// machine busy with ten compilers left them so little CPU that 100 panes' output took
/// over a minute to reach their screens (`tests/reliability/reliability_outage.rs`), so it is 5:
/// still below the daemon's other threads.
pub const PTY_THREAD_NICE: i32 = 5;

/// Lowers the calling thread: `SCHED_BATCH` (it never preempts another thread when it
/// wakes up, which a reader does for every chunk) and nice [`PTY_THREAD_NICE`]. Both
/// are per thread on Linux and allowed without privileges; a failure leaves the thread
/// as it was.
pub(super) fn lower_this_thread() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: plain system calls about the calling thread; `param` is initialised and
    // outlives the call.
    unsafe {
        libc::sched_setscheduler(0, libc::SCHED_BATCH, &param);
        libc::setpriority(
            libc::PRIO_PROCESS,
            libc::gettid() as libc::id_t,
            PTY_THREAD_NICE,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lowered_thread_is_batch_work_at_the_lower_priority() {
        std::thread::spawn(|| {
            lower_this_thread();
            // SAFETY: queries about the calling thread.
            let (policy, nice) = unsafe {
                (
                    libc::sched_getscheduler(0),
                    libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t),
                )
            };
            assert_eq!(policy, libc::SCHED_BATCH);
            assert!(nice >= PTY_THREAD_NICE, "nice {nice}");
        })
        .join()
        .unwrap();
    }
}
