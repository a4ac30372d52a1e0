//! The `attend` command line (ADR 0005, `docs/decisions/0005-one-service-thin-clients.md`):
//! a D-Bus client of the daemon through `crate::client`; `attend daemon` and `attend
//! bridge` are parsed here and run by the entry (`crate::entry`).
//!
//! Exit codes: 0 ok; 1 nothing (`attend next` with nothing unread); 2 bad input (unknown
//! pane, no decision, not owned, invalid argument, spawn failure, usage errors); 3 the
//! daemon is unreachable; 4 the daemon failed internally.

mod args;
mod client;
mod commands;
pub mod demo;
mod demo_live;
mod explain;
mod follow;
mod hook;
mod install;
mod man;
mod needs;
mod out;
pub mod pane_table;
mod remote;
pub(crate) mod render;
mod rm;
mod settings;
mod status;
mod stop_all;
mod tasks;
mod tmux_attach;
mod up;
mod worktree;

pub use client::{
    CliError, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_NOTHING, EXIT_OK, EXIT_UNREACHABLE,
};

pub use args::{Cli, Cmd, DaemonArgs, RmArgs, RunArgs};
use clap::{CommandFactory, Parser};

/// The exit code of a command's result; the error is printed after `attend: `
/// ([`CliError::report`]; nothing when stdout's reader went away).
fn report(r: Result<i32, CliError>) -> i32 {
    r.unwrap_or_else(|e| e.report())
}

/// Whether `args` (the whole argv) is `attend hook …` on its fast path (no clap before an
/// agent's tool call), and then its exit code.
pub fn hook_fast_path(args: &[std::ffi::OsString]) -> Option<i32> {
    hook::fast_path(args)
}

/// The command line of this process, or the exit code of its usage error (after printing
/// it; `--help` and `--version` print and exit 0).
pub fn parse() -> Result<Cli, i32> {
    Cli::try_parse().map_err(|e| {
        let _ = e.print();
        // `attend hook` runs as an agent's hook: an agent reads exit 2 as "block the tool
        // call", and a misconfigured hook line must not block the user's agent
        // (docs/adapters.md, "Never block, never fail, never lose"); `attend-hook` says
        // so the same way.
        let hook = std::env::args_os().nth(1).is_some_and(|a| a == "hook");
        if e.use_stderr() && !hook {
            EXIT_BAD_INPUT
        } else {
            EXIT_OK
        }
    })
}

/// Runs one client command; returns the process exit code. The commands that run the
/// daemon's own code (`daemon`, `bridge`) are the entry's (`crate::entry`).
pub fn run(command: Cmd) -> i32 {
    match command {
        Cmd::Hook {
            agent,
            mut args,
            notify,
            pane_hooks,
        } => {
            let payload = if notify { args.pop() } else { None };
            let event = args.first().map(String::as_str);
            hook::run(&agent, event, notify, payload, pane_hooks)
        }
        Cmd::Demo { live: false } => demo::run_demo(),
        Cmd::Demo { live: true } => report(demo_live::run()),
        Cmd::Status {
            format,
            json,
            follow,
        } => {
            let format = if json { status::Format::Json } else { format };
            report(status::run(format, follow))
        }
        Cmd::Up(a) => report(up::run(a)),
        Cmd::InstallHooks {
            agent,
            scope,
            dry_run,
            uninstall,
        } => report(install::run(&agent, scope, dry_run, uninstall)),
        Cmd::Completions { shell } => {
            // Into memory first: clap_complete panics when its writer fails.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "attend", &mut script);
            report(out::write_bytes(&script).map(|()| EXIT_OK))
        }
        Cmd::Man => report(out::write(&man::render(Cli::command())).map(|()| EXIT_OK)),
        Cmd::Config { cmd } => report(settings::run(cmd)),
        Cmd::Remote { cmd } => report(remote::run(cmd)),
        Cmd::Daemon(_) | Cmd::Bridge { .. } => {
            eprintln!("attend: this command runs the daemon's code: run it as `attend`");
            EXIT_INTERNAL
        }
        other => report(commands::run(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn run_takes_the_program_after_double_dash() {
        let cli =
            Cli::try_parse_from(["attend", "run", "-w", "ws", "--", "sh", "-c", "x"]).unwrap();
        let Cmd::Run(r) = cli.command else {
            panic!("not run")
        };
        assert_eq!(r.workspace.as_deref(), Some("ws"));
        assert_eq!(r.argv, ["sh", "-c", "x"]);
    }

    /// A negative number is a bad value with clap's "invalid value" message naming the
    /// option, not an "unexpected argument".
    #[test]
    fn negative_numbers_are_invalid_values() {
        for args in [
            vec!["attend", "daemon", "--scrollback", "-5"],
            vec!["attend", "daemon", "--holder-buffer", "-1"],
            vec!["attend", "events", "--after", "-3"],
            vec!["attend", "events", "--limit", "-3"],
        ] {
            let e = Cli::try_parse_from(&args).unwrap_err();
            assert_eq!(
                e.kind(),
                clap::error::ErrorKind::ValueValidation,
                "{args:?}"
            );
            assert!(e.to_string().contains("invalid value '-"), "{args:?}: {e}");
        }
        let cli = Cli::try_parse_from(["attend", "daemon", "--holder-buffer", "0"]).unwrap();
        let Cmd::Daemon(d) = cli.command else {
            panic!("not daemon")
        };
        assert_eq!(d.holder_buffer, 0);
    }
}
