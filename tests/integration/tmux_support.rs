//! What the tests of panes followed in the user's tmux share (docs/tmux.md): a tmux
//! server of the test's own (`TMUX_TMPDIR` is the test's), killed when its [`Server`]
//! guard drops (a failed test's too), `attend ls --json`, and a program named like
//! Claude Code that draws its recorded folder-trust dialog.

use crate::support;

use serde_json::Value;
use support::Env;

/// Runs `tmux ARGS` with the test's environment (its `TMUX_TMPDIR`); its stdout.
/// Panics when tmux fails.
pub(crate) fn tmux(env: &Env, args: &[&str]) -> String {
    let out = env
        .program("tmux")
        .arg("-f")
        .arg("/dev/null")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "tmux {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A tmux server of a test, killed (`tmux -S SOCKET kill-server`) when this guard
/// drops: at the test's end, or while a failed test unwinds, so no server outlives its
/// test. Declare it after the test's `Env` (it drops first, while the socket's directory
/// still exists); the server's pid, read when the guard is made, is killed too should
/// the socket be gone by then.
pub(crate) struct Server {
    kill: Option<std::process::Command>,
    pid: Option<u32>,
}

impl Server {
    /// The guard of the server on `env`'s default socket
    /// (`$TMUX_TMPDIR/tmux-UID/default`, the one plain `tmux` commands of the test
    /// reach), made right after the test started it.
    pub(crate) fn of(env: &Env) -> Server {
        let socket = env
            .tmux_dir()
            .join(format!("tmux-{}", nix::unistd::getuid()))
            .join("default");
        let mut kill = env.program("tmux");
        kill.arg("-S").arg(&socket).arg("kill-server");
        let pid = tmux_pid(env.program("tmux").arg("-S").arg(&socket));
        Server::with(kill, pid)
    }

    /// A guard that runs `kill` (a ready `tmux … kill-server`) on drop, then SIGKILLs
    /// `pid` when it still is a tmux server.
    pub(crate) fn with(kill: std::process::Command, pid: Option<u32>) -> Server {
        Server {
            kill: Some(kill),
            pid,
        }
    }
}

/// The pid of the server `tmux` (a command naming its socket) reaches, when one answers.
pub(crate) fn tmux_pid(tmux: &mut std::process::Command) -> Option<u32> {
    let out = tmux
        .args(["display-message", "-p", "#{pid}"])
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut kill) = self.kill.take() {
            let _ = kill
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
        }
        let Some(pid) = self.pid else { return };
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if comm.starts_with("tmux") {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

/// Panics unless tmux is installed.
pub(crate) fn need_tmux() {
    if std::process::Command::new("tmux")
        .arg("-V")
        .output()
        .is_err()
    {
        panic!("tmux is not installed (build-aux/deps.sh installs it)");
    }
}

/// `attend ls --json` of this machine.
pub(crate) fn panes(env: &Env) -> Vec<Value> {
    serde_json::from_str::<Value>(&env.ok(&["ls", "--json"]))
        .unwrap()
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The argv (after `tmux`) of the tests' usual server: a detached session `work`, 120×40,
/// running `sh`, its pane id printed (`%N`).
pub(crate) const WORK_SESSION: [&str; 12] = [
    "new-session",
    "-d",
    "-s",
    "work",
    "-x",
    "120",
    "-y",
    "40",
    "-P",
    "-F",
    "#{pane_id}",
    "sh",
];

/// A tmux server with one 40×120 session whose pane runs a plain `sh`; waits until the
/// daemon's control client is attached to it (the daemon found the new server through
/// its socket directory's watch). Returns its guard and the pane id (`%N`).
pub(crate) fn server_with_a_shell(env: &Env) -> (Server, String) {
    let pane = tmux(env, &WORK_SESSION);
    let server = Server::of(env);
    env.wait_until("the daemon's control client attached", || {
        tmux(env, &["list-clients", "-F", "#{client_control_mode}"]).contains('1')
    });
    (server, pane.trim().to_string())
}

/// A program named `claude` (so its process is named like Claude Code's: a link to
/// `sh` called `claude`, as tmux and `/proc` see it) running a script that draws the
/// recorded folder-trust dialog, reads one line into `out` and exits. The command line
/// to type into a shell.
pub(crate) fn fake_claude(env: &Env, out: &std::path::Path) -> String {
    fake_claude_with(env, "dialog", out, "", "")
}

/// [`fake_claude`] with the script `NAME.sh`, `before` run first and `after` run after
/// the line was written (shell lines, each ending in a newline, or empty).
pub(crate) fn fake_claude_with(
    env: &Env,
    name: &str,
    out: &std::path::Path,
    before: &str,
    after: &str,
) -> String {
    fake_claude_in(&env.path("bin"), name, out, before, after)
}

/// [`fake_claude_with`] made in the directory `bin` (created when missing), with its own
/// copy of the recorded dialog: another user running it needs to read nothing else.
pub(crate) fn fake_claude_in(
    bin: &std::path::Path,
    name: &str,
    out: &std::path::Path,
    before: &str,
    after: &str,
) -> String {
    std::fs::create_dir_all(bin).unwrap();
    let claude = bin.join("claude");
    if !claude.exists() {
        std::os::unix::fs::symlink("/bin/sh", &claude).unwrap();
    }
    let fixture = bin.join("folder-trust.txt");
    if !fixture.exists() {
        let recorded = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/screens/claude/2.1.332/folder-trust.txt"
        );
        std::fs::copy(recorded, &fixture).unwrap();
    }
    let script = bin.join(format!("{name}.sh"));
    std::fs::write(
        &script,
        format!(
            "{before}printf '\\033[H\\033[2J'\ncat '{}'\nIFS= read -r k\nprintf '%s' \"$k\" > '{}'\n{after}",
            fixture.display(),
            out.display()
        ),
    )
    .unwrap();
    format!("{} {}", claude.display(), script.display())
}

/// Types `command` and Enter into tmux pane `pane`.
pub(crate) fn type_line(env: &Env, pane: &str, command: &str) {
    tmux(env, &["send-keys", "-t", pane, "-l", command]);
    tmux(env, &["send-keys", "-t", pane, "Enter"]);
}

/// Types `command` (an agent's command line) into tmux pane `shell` and waits until the
/// running pane that tmux pane became is `blocked` (its dialog read). Returns its id.
pub(crate) fn blocked_in(env: &Env, shell: &str, command: &str) -> String {
    type_line(env, shell, command);
    let mut pane = Value::Null;
    let blocked = support::poll(std::time::Duration::from_secs(10), || {
        pane = panes(env)
            .into_iter()
            .find(|p| p["location"]["pane"] == shell && p["live"]["state"] == "running")
            .unwrap_or(Value::Null);
        pane["lifecycle"] == "blocked"
    });
    assert!(blocked, "{pane:#}\n{}", env.daemon_log());
    pane["id"].as_str().unwrap().to_string()
}

/// Waits until tmux pane `pane` runs its shell again (`#{pane_current_command}` is `sh`)
/// and tmux has looked at it (its subscriptions are checked once a second): a program
/// started after this is a change tmux reports (docs/tmux.md#limits).
pub(crate) fn shell_again(env: &Env, pane: &str) {
    env.wait_until("the shell in the foreground again", || {
        tmux(
            env,
            &[
                "display-message",
                "-p",
                "-t",
                pane,
                "#{pane_current_command}",
            ],
        )
        .trim()
            == "sh"
    });
    std::thread::sleep(std::time::Duration::from_millis(1500));
}

/// A person's tmux client attached to `target` (`tmux attach -t TARGET`) in a 120×40
/// terminal of its own (`script` gives it a PTY); it stays until killed or detached.
pub(crate) fn user_client(env: &Env, target: &str) -> std::process::Child {
    // The terminal is 120×40, the size of the test's windows: the agent's screen is not
    // reflowed by the attach.
    let attach = format!("stty cols 120 rows 40; tmux -f /dev/null attach -t '{target}'");
    env.program("script")
        .args(["-qfec", &attach, "/dev/null"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// The active pane (`%N`) of each attached client that is no control client.
pub(crate) fn user_panes(env: &Env) -> Vec<String> {
    tmux(
        env,
        &["list-clients", "-F", "#{client_control_mode} #{pane_id}"],
    )
    .lines()
    .filter_map(|l| l.strip_prefix("0 "))
    .map(str::to_string)
    .collect()
}

/// A new window in session `work` running a plain `sh`, left in the background; its pane
/// id (`%N`).
pub(crate) fn background_window(env: &Env) -> String {
    tmux(
        env,
        &[
            "new-window",
            "-d",
            "-t",
            "work:",
            "-P",
            "-F",
            "#{pane_id}",
            "sh",
        ],
    )
    .trim()
    .to_string()
}

/// A test that fails with its tmux server running leaves no server behind: the
/// [`Server`] guard kills it while the panic unwinds.
#[test]
fn a_failed_tests_tmux_server_is_killed_by_its_guard() {
    need_tmux();
    let env = Env::new();
    let mut pid = None;
    let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tmux(&env, &["new-session", "-d", "-s", "work", "sh"]);
        let server = Server::of(&env);
        pid = server.pid;
        panic!("a test failing with its tmux server running");
    }));
    assert!(failed.is_err());
    let pid = pid.expect("the server's pid");
    let gone = support::poll(std::time::Duration::from_secs(5), || !support::running(pid));
    assert!(gone, "the tmux server {pid} still runs");
}
