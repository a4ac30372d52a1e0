//! The pane holder of Attend (docs/decisions/0009-pane-holders.md).
//!
//! One small process per pane that Attend runs: it owns the pane's PTY and its program,
//! lives outside the daemon's process group (and, where a systemd user manager runs, its
//! cgroup), and passes the PTY master to whichever daemon connects to its socket. While
//! no daemon is connected it drains the PTY into a bounded buffer (the program never
//! blocks on a full terminal) and records the program's exit; a daemon that connects
//! later gets both. So the daemon's crash, restart or upgrade never ends an agent.
//!
//! [`proto`] is the protocol both sides speak; [`fdpass`] passes the descriptor; the
//! holder process itself is [`holder`] (binary `attend-holder`; `attend` runs the same
//! code when no `attend-holder` is installed beside it); [`tether`] is how test harnesses
//! tie a holder to their own process.

pub mod buffer;
pub mod client;
pub mod fdpass;
pub mod holder;
pub mod proto;
pub mod tether;

/// Runs the holder with its command line (without the program name); the exit code:
/// 0 after the exit was collected, 1 on a start-up error, 2 on bad arguments.
pub fn main_with_args(args: &[std::ffi::OsString]) -> i32 {
    let args = match holder::Args::parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("attend-holder: {e}");
            return 2;
        }
    };
    match holder::run(args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("attend-holder: {e}");
            1
        }
    }
}
