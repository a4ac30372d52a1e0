//! How Attend ends the programs it runs (`docs/lifecycle-attention.md#removing-panes`;
//! `attend rm --kill`, `attend stop-all`, the panel's and the tray's Remove): the signals
//! in turn and the time each leaves the program, shared by the daemon and the CLI.

use nix::sys::signal::Signal;
use std::time::Duration;

/// How long a program has to exit after SIGHUP before it gets SIGTERM.
pub const HUP_GRACE: Duration = Duration::from_secs(1);
/// How long it then has after SIGTERM before it gets SIGKILL.
pub const TERM_GRACE: Duration = Duration::from_secs(5);
/// How long it then has after SIGKILL; after that a removal fails and removes nothing.
pub const KILL_GRACE: Duration = Duration::from_secs(2);

/// How Attend ends the programs it runs (`attend rm --kill`, `attend stop-all`): each
/// signal in turn to the process group of each program still running, which then has the
/// duration to exit. SIGHUP first, as a closing terminal sends: an interactive shell
/// ignores SIGTERM but ends on SIGHUP at once.
pub const ENDING: [(Signal, Duration); 3] = [
    (Signal::SIGHUP, HUP_GRACE),
    (Signal::SIGTERM, TERM_GRACE),
    (Signal::SIGKILL, KILL_GRACE),
];
