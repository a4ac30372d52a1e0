//! "Attach in a terminal": the argv that opens `attend attach PANE` in the user's
//! terminal emulator (`docs/desktop-surfaces.md#panel`). Always an argv, never a shell
//! command line.

use std::path::{Path, PathBuf};

/// The terminal to use when `$TERMINAL` is unset or empty (Debian's alternative).
pub const DEFAULT_TERMINAL: &str = "x-terminal-emulator";

/// `TERMINAL... -e ATTEND attach PANE`.
///
/// `terminal` is `$TERMINAL`; it may carry arguments (`kitty --single-instance`), split
/// with POSIX shell word rules but never run through a shell. Unset, empty or
/// unsplittable values fall back to [`DEFAULT_TERMINAL`].
pub fn attach_argv(terminal: Option<&str>, attend: &Path, pane: &str) -> Vec<String> {
    let mut argv = terminal
        .and_then(shlex::split)
        .filter(|words| !words.is_empty())
        .unwrap_or_else(|| vec![DEFAULT_TERMINAL.to_string()]);
    argv.extend([
        "-e".to_string(),
        attend.to_string_lossy().into_owned(),
        "attach".to_string(),
        pane.to_string(),
    ]);
    argv
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

    #[test]
    fn the_terminal_variable_is_split_without_a_shell() {
        let attend = Path::new("/usr/bin/attend");
        assert_eq!(
            attach_argv(Some("kitty --single-instance"), attend, "p3"),
            [
                "kitty",
                "--single-instance",
                "-e",
                "/usr/bin/attend",
                "attach",
                "p3"
            ]
        );
        assert_eq!(
            attach_argv(Some("foot; rm -rf x"), attend, "p1")[..2],
            ["foot;", "rm"],
            "shell syntax stays literal words"
        );
    }

    #[test]
    fn no_terminal_falls_back_to_x_terminal_emulator() {
        let attend = Path::new("attend");
        for t in [None, Some(""), Some("  "), Some("\"unterminated")] {
            assert_eq!(
                attach_argv(t, attend, "p2"),
                ["x-terminal-emulator", "-e", "attend", "attach", "p2"],
                "{t:?}"
            );
        }
    }

    #[test]
    fn a_missing_program_is_an_error_naming_it() {
        let err = spawn_detached(&["/nonexistent/term".to_string()]).unwrap_err();
        assert!(err.starts_with("/nonexistent/term: "), "{err}");
    }
}
