//! "Attach in Terminal": which terminal emulator opens `attend attach PANE`, and the argv
//! that does it (`docs/desktop-surfaces.md#attach-in-a-terminal`). Always an argv, never
//! a shell command line.
//!
//! The order: `xdg-terminal-exec` (the user's default terminal, where that tool is
//! installed), then `$TERMINAL`, then the known terminals of [`KNOWN`] in their order.
//! [`attach_argv`] is pure: what exists is a question it asks its caller, so the whole
//! order is unit-tested; [`on_path`] answers it from `PATH`.

use std::path::{Path, PathBuf};

/// The freedesktop "default terminal" launcher: `xdg-terminal-exec COMMAND…`.
pub const XDG_TERMINAL_EXEC: &str = "xdg-terminal-exec";

/// Known terminals, tried in this order after `xdg-terminal-exec` and `$TERMINAL`: the
/// program, and the words that come between it and the command (each takes the command
/// as separate arguments after them).
pub const KNOWN: &[(&str, &[&str])] = &[
    ("kgx", &["--"]),
    ("ptyxis", &["--"]),
    ("gnome-terminal", &["--"]),
    ("konsole", &["-e"]),
    ("kitty", &["--"]),
    ("wezterm", &["start", "--"]),
    ("alacritty", &["-e"]),
    ("foot", &["--"]),
    ("xterm", &["-e"]),
    // Debian's alternative: whichever terminal the administrator chose (it takes `-e`).
    ("x-terminal-emulator", &["-e"]),
];

/// No terminal was found: what was tried, in order (`$TERMINAL` with its value).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no terminal found (tried {})", .tried.join(", "))]
pub struct NoTerminal {
    pub tried: Vec<String>,
}

/// The argv that runs `ATTEND attach PANE` in a terminal, given `terminal` (the value of
/// `$TERMINAL`) and `exists` (true for a program that can be run: a name found on `PATH`,
/// or a path to an executable).
///
/// `$TERMINAL` may carry arguments (`kitty --single-instance`): split with POSIX shell
/// word rules but never run through a shell, then `-e` and the command, the convention
/// of `$TERMINAL`. An empty, unsplittable or missing `$TERMINAL` is skipped.
///
/// Errors: [`NoTerminal`] naming each candidate tried.
pub fn attach_argv(
    terminal: Option<&str>,
    exists: &dyn Fn(&str) -> bool,
    attend: &Path,
    pane: &str,
) -> Result<Vec<String>, NoTerminal> {
    let command = [
        attend.to_string_lossy().into_owned(),
        "attach".to_string(),
        pane.to_string(),
    ];
    let with = |prefix: Vec<String>| prefix.into_iter().chain(command.clone()).collect();
    let mut tried = vec![XDG_TERMINAL_EXEC.to_string()];
    if exists(XDG_TERMINAL_EXEC) {
        return Ok(with(vec![XDG_TERMINAL_EXEC.to_string()]));
    }
    if let Some(value) = terminal.filter(|t| !t.trim().is_empty()) {
        tried.push(format!("$TERMINAL ({value})"));
        if let Some(words) = shlex::split(value).filter(|w| !w.is_empty()) {
            if exists(&words[0]) {
                let mut prefix = words;
                prefix.push("-e".to_string());
                return Ok(with(prefix));
            }
        }
    }
    for (program, args) in KNOWN {
        tried.push(program.to_string());
        if exists(program) {
            let prefix = std::iter::once(*program)
                .chain(args.iter().copied())
                .map(String::from)
                .collect();
            return Ok(with(prefix));
        }
    }
    Err(NoTerminal { tried })
}

/// True when `program` can be run: a path (it contains `/`) to an executable file, or a
/// name found as one in a directory of `PATH`.
pub fn on_path(program: &str) -> bool {
    if program.contains('/') {
        return is_executable(Path::new(program));
    }
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| is_executable(&dir.join(program)))
    })
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The `attend` binary: the one beside this executable when there is one (an install or
/// a cargo build), else `attend` from `PATH`.
pub fn attend_binary() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("attend")))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("attend"))
}

/// Starts `argv` detached from the panel (its exit status is collected by a thread so it
/// leaves no zombie).
///
/// Errors: the spawn error (program not found, not executable), with the program named.
pub fn spawn_detached(argv: &[String]) -> Result<(), String> {
    let (program, args) = argv.split_first().ok_or("empty command")?;
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("{program}: {e}"))?;
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ATTEND: &str = "/usr/bin/attend";

    /// The lookup with exactly `present` runnable.
    fn lookup(terminal: Option<&str>, present: &[&str]) -> Result<Vec<String>, NoTerminal> {
        let exists = |p: &str| present.contains(&p);
        attach_argv(terminal, &exists, Path::new(ATTEND), "p3")
    }

    #[test]
    fn xdg_terminal_exec_comes_first_and_takes_the_command_as_it_is() {
        assert_eq!(
            lookup(Some("foot"), &["xdg-terminal-exec", "foot", "kgx"]).unwrap(),
            ["xdg-terminal-exec", ATTEND, "attach", "p3"]
        );
    }

    #[test]
    fn the_terminal_variable_is_next_split_without_a_shell() {
        assert_eq!(
            lookup(Some("kitty --single-instance"), &["kitty", "kgx"]).unwrap(),
            ["kitty", "--single-instance", "-e", ATTEND, "attach", "p3"]
        );
        assert_eq!(
            lookup(Some("foot; rm -rf x"), &["foot;", "xterm"]).unwrap()[..3],
            ["foot;", "rm", "-rf"],
            "shell syntax stays literal words"
        );
    }

    #[test]
    fn then_the_known_terminals_in_their_order() {
        let order: Vec<&str> = KNOWN.iter().map(|(p, _)| *p).collect();
        assert_eq!(
            order,
            [
                "kgx",
                "ptyxis",
                "gnome-terminal",
                "konsole",
                "kitty",
                "wezterm",
                "alacritty",
                "foot",
                "xterm",
                "x-terminal-emulator"
            ]
        );
        // Each one is picked when it is the first present, with its own separator.
        let want: [&[&str]; 10] = [
            &["kgx", "--"],
            &["ptyxis", "--"],
            &["gnome-terminal", "--"],
            &["konsole", "-e"],
            &["kitty", "--"],
            &["wezterm", "start", "--"],
            &["alacritty", "-e"],
            &["foot", "--"],
            &["xterm", "-e"],
            &["x-terminal-emulator", "-e"],
        ];
        for (i, prefix) in want.iter().enumerate() {
            let present = &order[i..];
            let argv = lookup(None, present).unwrap();
            let mut expected: Vec<&str> = prefix.to_vec();
            expected.extend([ATTEND, "attach", "p3"]);
            assert_eq!(argv, expected, "with {present:?}");
        }
    }

    #[test]
    fn a_terminal_variable_naming_nothing_present_falls_through() {
        for t in [
            None,
            Some(""),
            Some("  "),
            Some("\"unterminated"),
            Some("gone"),
        ] {
            assert_eq!(
                lookup(t, &["xterm"]).unwrap()[..2],
                ["xterm", "-e"],
                "{t:?}"
            );
        }
    }

    #[test]
    fn the_error_names_everything_tried_in_order() {
        let err = lookup(Some("myterm -x"), &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "no terminal found (tried xdg-terminal-exec, $TERMINAL (myterm -x), kgx, ptyxis, \
             gnome-terminal, konsole, kitty, wezterm, alacritty, foot, xterm, \
             x-terminal-emulator)"
        );
        let err = lookup(None, &[]).unwrap_err();
        assert_eq!(
            err.tried.len(),
            1 + KNOWN.len(),
            "no $TERMINAL entry when unset"
        );
    }

    #[test]
    fn programs_are_found_by_path_or_on_path() {
        assert!(on_path("ls"));
        assert!(on_path("/bin/ls"));
        assert!(!on_path("no-such-terminal-attend"));
        assert!(!on_path("/nonexistent/term"));
    }

    #[test]
    fn a_missing_program_is_an_error_naming_it() {
        let err = spawn_detached(&["/nonexistent/term".to_string()]).unwrap_err();
        assert!(err.starts_with("/nonexistent/term: "), "{err}");
    }
}
