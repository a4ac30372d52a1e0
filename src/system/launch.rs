//! Starting other programs from the daemon and the CLI: finding `attend-panel` and
//! `attend`, starting them detached, and running a terminal's own CLI with a time bound.
//! Always an argv, never a shell.

use std::collections::BTreeMap;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `name` beside the running executable (a build tree or an install prefix), else the
/// first match on `PATH`; `None` when neither exists.
pub fn find_program(name: &str) -> Option<PathBuf> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|d| d.join(name)));
    if let Some(p) = beside.filter(|p| is_executable(p)) {
        return Some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// True when a graphical session is reachable: `WAYLAND_DISPLAY` or `DISPLAY` is set and
/// not empty.
pub fn has_display() -> bool {
    ["WAYLAND_DISPLAY", "DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
}

/// Starts `argv` in a new session (it outlives the caller and ignores the caller's
/// terminal), stdin from `/dev/null`, stdout and stderr appended to `log` (or
/// `/dev/null`; a log is private whatever the umask: made 0600 in a directory made 0700
/// when missing, and an existing one closed to others, src/system/private.rs), with `env` added to the caller's environment. A thread reaps the child
/// so that it never lingers as a zombie of a long-running caller. Returns its pid.
///
/// Errors: an empty argv, the program cannot be started, the log cannot be opened.
pub fn spawn_detached(
    argv: &[String],
    env: &BTreeMap<String, String>,
    log: Option<&Path>,
) -> io::Result<u32> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty argv"))?;
    let (out, err) = match log {
        Some(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.is_dir()) {
                crate::system::private::dir(dir)?;
            }
            let f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .mode(crate::system::private::FILE_MODE)
                .open(path)?;
            crate::system::private::tighten(path)?;
            (Stdio::from(f.try_clone()?), Stdio::from(f))
        }
        None => (Stdio::null(), Stdio::null()),
    };
    let mut cmd = Command::new(program);
    cmd.args(args)
        .envs(env)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| nix::unistd::setsid().map(|_| ()).map_err(io::Error::from));
    }
    let mut child = cmd.spawn()?;
    let pid = child.id();
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    Ok(pid)
}

/// A program to run with extra environment (a terminal's remote-control CLI).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub argv: Vec<String>,
    pub env: BTreeMap<String, String>,
}

impl Invocation {
    /// `argv` with no extra environment.
    pub fn new(argv: &[&str]) -> Invocation {
        Invocation {
            argv: argv.iter().map(|s| s.to_string()).collect(),
            env: BTreeMap::new(),
        }
    }
}

/// Runs `inv` and waits at most `limit`; kills it after that. Output is discarded.
/// Returns whether it exited 0. Blocking: call it from a blocking thread.
pub fn run_bounded(inv: &Invocation, limit: Duration) -> io::Result<bool> {
    let (program, args) = inv
        .argv
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty argv"))?;
    let mut child = Command::new(program)
        .args(args)
        .envs(&inv.env)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status.success());
        }
        if start.elapsed() >= limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("`{program}` did not finish within {} ms", limit.as_millis()),
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_on_the_path() {
        assert!(find_program("sh").is_some());
        assert!(find_program("no-such-program-attend").is_none());
    }

    #[test]
    fn bounded_runs_report_success_failure_and_timeouts() {
        assert!(run_bounded(&Invocation::new(&["true"]), Duration::from_secs(5)).unwrap());
        assert!(!run_bounded(&Invocation::new(&["false"]), Duration::from_secs(5)).unwrap());
        let slow = run_bounded(
            &Invocation::new(&["sleep", "5"]),
            Duration::from_millis(100),
        );
        assert_eq!(slow.unwrap_err().kind(), io::ErrorKind::TimedOut);
    }

    #[test]
    fn detached_children_write_to_their_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("sub/out.log");
        let mut env = BTreeMap::new();
        env.insert("ATTEND_TEST_WORD".to_string(), "hello".to_string());
        let argv: Vec<String> = ["sh", "-c", "echo $ATTEND_TEST_WORD"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        spawn_detached(&argv, &env, Some(&log)).unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(log.parent().unwrap()), mode(&log)), (0o700, 0o600));
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            if std::fs::read_to_string(&log).unwrap_or_default() == "hello\n" {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("the detached child did not write its log");
    }
}
