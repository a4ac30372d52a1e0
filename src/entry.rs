//! The one entry of the `attend` executable (`src/main.rs`). Three commands run the
//! daemon's own code: `attend daemon` ([`crate::service::daemon`]), `attend bridge
//! --stdio` (the far end of a remote link, [`crate::service::remotes::bridge`]) and a pane
//! holder (`attend __holder …`, when no `attend-holder` is installed beside `attend`;
//! `docs/decisions/0009-pane-holders.md`). Every other command is the CLI's
//! ([`crate::cli`]), a client of the daemon only (`docs/decisions/0005-one-service-thin-clients.md`).

use crate::cli::{self, Cmd};
use crate::service::daemon::{self, DaemonOptions};
use crate::service::pty::holders::HOLDER_SUBCOMMAND;
use crate::service::remotes::bridge;

/// Runs the command of this process's argv; returns the process exit code (the CLI's
/// exit codes, `crate::cli`).
pub fn main() -> i32 {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // `attend hook` runs before every tool call of an agent: no clap on its hot path.
    if let Some(code) = cli::hook_fast_path(&args) {
        return code;
    }
    // Without a session bus of its own, the private one `attend up` started: set in the
    // environment here, while the process is still single-threaded (`set_var` races with
    // other threads' `getenv`), for every library and child that looks for the bus.
    crate::system::private_bus::adopt();
    if args.get(1).is_some_and(|a| a == HOLDER_SUBCOMMAND) {
        return attend_holder::main_with_args(&args[2..]);
    }
    let command = match cli::parse() {
        Ok(c) => c.command,
        Err(code) => return code,
    };
    match command {
        Cmd::Daemon(a) => {
            // Still single-threaded: the panes the daemon runs never carry its tmux.
            crate::service::tmux::take_own_env();
            daemon::run(DaemonOptions {
                no_tray: a.no_tray,
                no_notifications: a.no_notifications,
                state_dir: a.state_dir,
                scrollback: a.scrollback,
                holder_buffer: a.holder_buffer,
                replace: a.replace,
            })
        }
        Cmd::Bridge { .. } => bridge::run_stdio(),
        other => cli::run(other),
    }
}
