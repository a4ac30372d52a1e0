//! A fresh interactive shell's quiet start: its own first prompt is not news
//! (`docs/lifecycle-attention.md#quiet-shell-start`). Pure: the spawn time is an argument.

use crate::model::{AgentKind, StartQuiet, Timestamp};

/// How long (milliseconds) after its spawn an interactive shell that sends no OSC 133
/// prompt marks stays quiet: its start-up output and first prompt raise no unread
/// (`docs/lifecycle-attention.md#quiet-shell-start`).
pub const SHELL_QUIET_MS: i64 = 3_000;

/// Program names (file name of `argv[0]`, a login shell's leading `-` removed) that are
/// interactive shells when started without a command or a script.
const SHELLS: [&str; 14] = [
    "sh", "bash", "dash", "ash", "zsh", "fish", "ksh", "mksh", "oksh", "yash", "tcsh", "csh", "nu",
    "elvish",
];

/// True when `argv` starts an interactive shell: a known shell program with `-i`, or with
/// neither a command (`-c`, `--command`) nor a script file (a non-option argument).
/// `sh -i`, `bash`, `-zsh`, `bash -l` → true; `sh -c 'ls'`, `bash script.sh`, `ls` → false.
pub fn is_interactive_shell(argv: &[String]) -> bool {
    let Some((program, args)) = argv.split_first() else {
        return false;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    if !SHELLS.contains(&name.trim_start_matches('-')) {
        return false;
    }
    let short = |a: &str, flag: char| {
        a.len() > 1 && a.starts_with('-') && !a.starts_with("--") && a[1..].contains(flag)
    };
    if args.iter().any(|a| short(a, 'i') || a == "--interactive") {
        return true;
    }
    !args
        .iter()
        .any(|a| short(a, 'c') || a == "--command" || !(a.starts_with('-') || a.starts_with('+')))
}

/// The quiet start of a pane whose program `argv` Attend spawns at `at`: timed from the
/// spawn for an interactive shell on a shell pane that Attend owns, else `None`
/// (`attend run -- CMD` of any other command is unchanged).
pub fn start_quiet(
    agent: AgentKind,
    owned: bool,
    argv: &[String],
    at: Timestamp,
) -> Option<StartQuiet> {
    (owned && agent == AgentKind::Shell && is_interactive_shell(argv))
        .then_some(StartQuiet::Timed { since: at })
}

/// Whether output at `at` still falls into the quiet start `quiet`.
pub(super) fn is_quiet(quiet: Option<StartQuiet>, at: Timestamp) -> bool {
    match quiet {
        None => false,
        Some(StartQuiet::FirstCommand) => true,
        Some(StartQuiet::Timed { since }) => at.millis_since(since) < SHELL_QUIET_MS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn interactive_shells_are_recognised_by_program_and_arguments() {
        for yes in [
            "sh -i",
            "bash",
            "/bin/bash -l",
            "-zsh",
            "fish",
            "bash -il",
            "dash -i x",
        ] {
            assert!(is_interactive_shell(&argv(yes)), "{yes}");
        }
        for no in [
            "sh -c ls",
            "bash -lc ls",
            "bash script.sh",
            "ls",
            "claude",
            "fish --command x",
        ] {
            assert!(!is_interactive_shell(&argv(no)), "{no}");
        }
        assert!(!is_interactive_shell(&[]));
    }

    #[test]
    fn the_quiet_time_ends_after_shell_quiet_ms_and_marks_wait_for_a_command() {
        let t0 = Timestamp(1_000);
        let q = start_quiet(AgentKind::Shell, true, &argv("bash"), t0);
        assert!(is_quiet(q, Timestamp(1_000 + SHELL_QUIET_MS - 1)));
        assert!(!is_quiet(q, Timestamp(1_000 + SHELL_QUIET_MS)));
        assert!(is_quiet(
            Some(StartQuiet::FirstCommand),
            Timestamp(i64::MAX)
        ));
        assert_eq!(
            start_quiet(AgentKind::Shell, false, &argv("bash"), t0),
            None
        );
        assert_eq!(
            start_quiet(AgentKind::Claude, true, &argv("bash"), t0),
            None
        );
        assert_eq!(
            start_quiet(AgentKind::Shell, true, &argv("sleep 9"), t0),
            None
        );
    }
}
