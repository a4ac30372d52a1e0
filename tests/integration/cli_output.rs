//! What the `attend` CLI prints (docs/cli.md): names as data in aligned columns, a reader
//! that goes away, the manual page and completions, the one suggestion when the daemon is
//! down, and `config.toml`'s bad entries (docs/configuration.md#bad-entries) — the real
//! binary, on a private bus with the real daemon where one is needed.

use crate::desktop;
use crate::support;

use desktop::Desk;
use std::process::{Command, Output, Stdio};
use support::Env;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The terminal columns before `needle` on `line`.
fn column_of(line: &str, needle: &str) -> usize {
    attend::engine::width(
        &line[..line
            .find(needle)
            .unwrap_or_else(|| panic!("{needle} in {line}"))],
    )
}

fn is_bidi(c: char) -> bool {
    attend::engine::is_bidi_control(c)
}

/// A workspace, tab or pane name with escape sequences, a newline, bidi controls, wide
/// characters or a great length is shown as data: escaped, cut to its column, the columns
/// aligned, in `ls`, `workspaces`, `show` and `next`.
#[test]
fn names_are_data_in_ls_workspaces_show_and_next() {
    let env = Env::with_daemon();
    let hostile = "x\u{202e}gpj.exe\u{2066}";
    let p1 = env.run(&[
        "-w",
        "/src/数据库",
        "-n",
        "🚀 launch",
        "--agent",
        "claude",
        "--",
        "sleep",
        "100",
    ]);
    let p2 = env.run(&[
        "-w",
        "/src/w\u{202e}s",
        "-n",
        hostile,
        "-t",
        "t\x1b[2Jab\nx",
        "--agent",
        "claude",
        "--",
        "sh",
        "-c",
        "printf '\\a'; sleep 100",
    ]);
    let long = "n".repeat(60);
    let p3 = env.run(&[
        "-w",
        "/src/plain",
        "-n",
        &long,
        "-t",
        &"t".repeat(40),
        "--agent",
        "claude",
        "--",
        "sleep",
        "100",
    ]);
    env.wait_pane(&p2, "unread", |v| v["attention"] == "unread");

    let raw = |s: &str| {
        s.chars()
            .any(|c| (c.is_control() && c != '\n') || is_bidi(c))
    };
    let ls = env.ok(&["ls"]);
    assert!(!raw(&ls), "{ls:?}");
    let lines: Vec<&str> = ls.lines().collect();
    assert_eq!(lines.len(), 4, "{ls}");
    let agent_at: Vec<usize> = lines[1..].iter().map(|l| column_of(l, "claude")).collect();
    assert!(agent_at.windows(2).all(|w| w[0] == w[1]), "{ls}");
    assert!(ls.contains("x\\u{202e}gpj.exe\\u{2066}"), "{ls}");
    assert!(ls.contains("t\\x1b[2Jab\\nx"), "{ls}");
    assert!(ls.contains("🚀 launch"), "{ls}");
    let cut = format!("{}…", "n".repeat(attend::engine::NAME_COLUMN - 1));
    assert!(ls.contains(&format!("{cut}  ")), "{ls}");
    assert!(!ls.contains(&long), "{ls}");

    let ws = env.ok(&["workspaces"]);
    assert!(!raw(&ws), "{ws:?}");
    let lines: Vec<&str> = ws.lines().collect();
    assert_eq!(lines.len(), 4, "{ws}");
    assert!(ws.contains("w\\u{202e}s"), "{ws}");
    let panes_at: Vec<usize> = lines[1..].iter().map(|l| column_of(l, "claude")).collect();
    assert!(panes_at.windows(2).all(|w| w[0] == w[1]), "{ws}");

    let show = env.ok(&["show", &p2]);
    assert!(!raw(&show), "{show:?}");
    assert!(show.contains("x\\u{202e}gpj.exe\\u{2066}\n"), "{show}");
    // `show` prints a long name whole.
    assert!(env.ok(&["show", &p3]).contains(&long));
    assert_eq!(env.show(&p2)["name"], hostile, "JSON keeps the value exact");

    assert_eq!(env.ok(&["next"]), format!("{p2}\n"));
    let _ = p1;
}

/// The writing end of a pipe whose reading end is closed: a write fails with EPIPE.
fn closed_pipe() -> std::os::fd::OwnedFd {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: pipe(2) fills the two-element array we pass; each fd is owned once below.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: fresh descriptors from pipe(2), owned by nothing else.
    let (reader, writer) = unsafe {
        (
            std::os::fd::OwnedFd::from_raw_fd(fds[0]),
            std::os::fd::OwnedFd::from_raw_fd(fds[1]),
        )
    };
    drop(reader);
    writer
}

/// Runs `attend ARGS` with a stdout whose reader is already gone: the command must end
/// quietly with status 0.
fn with_closed_stdout(env: &Env, args: &[&str]) -> Output {
    let writer = closed_pipe();
    let out = env
        .cmd()
        .args(args)
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "attend {args:?} with a closed stdout: {}",
        stderr(&out)
    );
    assert_eq!(stderr(&out), "", "attend {args:?}: nothing on stderr");
    out
}

#[test]
fn a_reader_that_goes_away_ends_the_command_quietly_with_status_0() {
    let env = Env::new();
    for args in [
        vec!["man"],
        vec!["completions", "bash"],
        vec!["completions", "zsh"],
        vec!["completions", "fish"],
        vec!["demo"],
        vec!["--help"],
    ] {
        with_closed_stdout(&env, &args);
    }
    let mut env = env;
    env.start_daemon();
    env.run(&["--", "sleep", "100"]);
    with_closed_stdout(&env, &["ls"]);
    with_closed_stdout(&env, &["events"]);
    // Following ends at its first line too, rather than running on for nobody.
    with_closed_stdout(&env, &["events", "--follow"]);
    // `attend man | head -1` in a shell.
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "set -o pipefail; '{}' man | head -1 >/dev/null",
            support::attend_bin()
        ))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

/// Starts `attend ARGS` with stdout a pipe, reads `lines` lines, closes the pipe and
/// asserts that the command ends quietly with status 0 while the daemon makes no new
/// event (so no write told it the reader was gone).
fn ends_when_its_reader_closes(env: &Env, args: &[&str], lines: usize) {
    use std::io::BufRead;
    let before = env.events().len();
    let mut child = env
        .cmd()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    for _ in 0..lines {
        let mut line = String::new();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "attend {args:?} printed"
        );
    }
    drop(out);
    let ended = support::poll(env.timeout, || child.try_wait().unwrap().is_some());
    if !ended {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        ended,
        "attend {args:?} ran on after its reader closed the pipe"
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "attend {args:?}: {}",
        stderr(&out)
    );
    assert_eq!(stderr(&out), "", "attend {args:?}: nothing on stderr");
    assert_eq!(env.events().len(), before, "no event was made meanwhile");
}

/// `attend events --follow | head -2` and `attend status --follow | head -1` on an idle
/// daemon end when `head` does, not at the next event.
#[test]
fn a_follower_ends_when_its_reader_goes_away_while_nothing_happens() {
    let env = Env::with_daemon();
    env.run(&["--", "sleep", "1000"]);
    env.run(&["--", "sleep", "1000"]);
    env.wait_until("two events", || env.events().len() >= 2);
    // Every event of the log read: the follower has printed them all and waits.
    let logged = env.events().len();
    ends_when_its_reader_closes(&env, &["events", "--follow"], logged);
    ends_when_its_reader_closes(&env, &["status", "--follow"], 1);
}

/// attend(1) renders without a warning and names no other page; each shell's completion
/// script parses in that shell.
#[test]
fn the_man_page_and_completions_are_well_formed() {
    let env = Env::new();
    let dir = env.path("out");
    std::fs::create_dir_all(&dir).unwrap();
    let man = env.ok(&["man"]);
    std::fs::write(dir.join("attend.1"), &man).unwrap();
    let out = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .arg(dir.join("attend.1"))
        .output()
        .expect("groff must be installed (groff-base)");
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        stderr(&out)
    );
    let refs = regex::Regex::new(r"[A-Za-z][\w\\-]*\(\d\)").unwrap();
    assert_eq!(
        refs.find(&man).map(|m| m.as_str()),
        None,
        "a page reference"
    );
    for sub in ["daemon", "answer", "config check", "task add", "status"] {
        assert!(man.contains(&format!(".SS \"attend {sub}")), "{sub}");
    }
    for (shell, check) in [
        ("bash", vec!["bash", "-n"]),
        ("zsh", vec!["zsh", "-n"]),
        ("fish", vec!["fish", "--no-execute"]),
    ] {
        let script = env.ok(&["completions", shell]);
        assert!(script.contains("workspaces"), "{shell}");
        let file = dir.join(format!("completion.{shell}"));
        std::fs::write(&file, script).unwrap();
        let out = Command::new(check[0])
            .args(&check[1..])
            .arg(&file)
            .output()
            .unwrap_or_else(|e| panic!("{shell} must be installed: {e}"));
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
    }
}

/// Every error that finds the daemon down suggests the same command.
#[test]
fn every_daemon_is_down_error_suggests_attend_up() {
    let env = Env::new();
    for args in [
        vec!["ls"],
        vec!["show", "p1"],
        vec!["next"],
        vec!["answer", "p1", "allow"],
        vec!["workspaces"],
        vec!["status"],
        vec!["version"],
    ] {
        let out = env.attend(&args);
        assert_eq!(
            out.status.code(),
            Some(3),
            "attend {args:?}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out)
                .trim_end()
                .ends_with("start it with `attend up`"),
            "attend {args:?}: {}",
            stderr(&out)
        );
    }
}

/// A bad entry in config.toml: `attend config check` names it and what is accepted and
/// exits 2; the daemon logs the same once, starts, and keeps the valid entries.
#[test]
fn a_bad_config_entry_is_named_once_and_the_valid_entries_stay() {
    let mut d = Desk::new();
    let out = d.attend(&["config", "check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).ends_with("not found; the defaults apply\n"));

    d.config("[notifications]\nlevels = [\"permission\", \"loud\"]\n");
    let out = d.attend(&["config", "check"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let printed = String::from_utf8(out.stdout).unwrap();
    let want = "notifications.levels: unknown level \"loud\" (accepted: permission_required, \
                input_required, error, warning, unread (or permission, input, question))";
    assert_eq!(printed.lines().count(), 1, "{printed}");
    assert!(printed.contains(want), "{printed}");

    d.start_daemon(&["--no-tray"]);
    let log = d.daemon_log();
    let warnings: Vec<&str> = log.lines().filter(|l| l.contains("\"loud\"")).collect();
    assert_eq!(warnings.len(), 1, "{log}");
    assert!(
        warnings[0].contains("WARN") && warnings[0].contains(want),
        "{log}"
    );
    assert!(
        log.contains("desktop notifications on levels=permission_required"),
        "the valid level stays in force: {log}"
    );

    d.config("[notifications]\nlevels = [\"permission\"]\n");
    let out = d.attend(&["config", "check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).ends_with(": ok\n"));
}

/// `attend answer --help` says what CHOICE may be: the choices `attend show` lists (the
/// panel's and the notification's buttons) and the agent's own option numbers.
#[test]
fn answer_help_documents_the_choice_names_and_option_numbers() {
    let env = Env::new();
    let help = env.ok(&["answer", "--help"]);
    for want in [
        "`attend show PANE` lists them",
        "on its `choices` line (allow, deny",
        "the number the agent draws beside an option",
        "an option's whole label",
    ] {
        assert!(help.contains(want), "{want:?} missing from\n{help}");
    }
}
