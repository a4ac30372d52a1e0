//! Two daemons linked as remote and local (docs/remote.md, ADR 0014) for the remote tests
//! (tests/integration/remote_link.rs, tests/integration/remote_events.rs, tests/integration/remote_surfaces.rs,
//! tests/integration/remote_scale.rs, tests/integration/remote_scenario.rs, tests/integration/panel_ui.rs): each on its own
//! private bus with its own state and `config.toml`, the remote's bus at a fixed socket so
//! it can be started again there, linked by `attend remote add … --via` (a plain local
//! command, no ssh) through `attend bridge --stdio`; bounded polls of `attend remote ls`
//! and `attend ls`. The default ssh carrier to a test sshd: [`ssh_on_path`].

use super::{attend_bin, Bus, Env};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// Generous: reconnecting waits out a backoff of up to 8 s after the outage below, and
/// ssh and the daemons start slowly on a loaded machine.
pub const LINK_TIMEOUT: Duration = Duration::from_secs(60);

/// A world whose config.toml is its own (never the user's).
pub fn env_on(bus: Bus, dir: tempfile::TempDir) -> Env {
    let home = dir.path().to_path_buf();
    let config = dir.path().join("config");
    Env::with(
        bus,
        dir,
        home,
        vec![("XDG_CONFIG_HOME".into(), Some(config.into_os_string()))],
        LINK_TIMEOUT,
    )
}

/// The remote: a daemon on a bus at a fixed socket (so it can be started again there).
pub fn remote_env() -> (Env, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("bus.sock");
    let mut env = env_on(Bus::at(&socket), dir);
    env.start_daemon();
    (env, socket)
}

pub fn local_env() -> Env {
    let mut env = env_on(Bus::start(), tempfile::tempdir().unwrap());
    env.start_daemon();
    env
}

/// `--via` and `--command` that reach the remote's bus with a plain local command.
pub fn via_args(remote: &Env, socket: &Path) -> [String; 4] {
    via_address(remote, &format!("unix:path={}", socket.display()))
}

/// `--via` and `--command` that reach the remote's bus at `address` (any D-Bus address,
/// e.g. a bus without a fixed socket) with a plain local command.
pub fn via_address(remote: &Env, address: &str) -> [String; 4] {
    let via = shlex::try_join([
        "env",
        &format!("DBUS_SESSION_BUS_ADDRESS={address}"),
        &format!("XDG_RUNTIME_DIR={}", remote.path("run").display()),
    ])
    .unwrap();
    ["--via".into(), via, "--command".into(), bridge_command()]
}

/// `attend bridge --stdio`, quoted, as a remote's `--command`.
pub fn bridge_command() -> String {
    shlex::try_join([attend_bin(), "bridge", "--stdio"]).unwrap()
}

pub fn add(env: &Env, name: &str, target: &str, extra: &[String]) {
    let mut args = vec!["remote", "add", name, target];
    args.extend(extra.iter().map(String::as_str));
    let out = env.ok(&args);
    assert!(out.starts_with(&format!("added {name}")), "{out}");
}

/// The entry of the JSON array `attend ARGS` prints whose `key` is `value`.
pub fn entry(env: &Env, args: &[&str], key: &str, value: &str) -> Option<Value> {
    let all: Value = serde_json::from_str(&env.ok(args)).unwrap();
    all.as_array()?.iter().find(|r| r[key] == value).cloned()
}

/// Polls [`entry`] until it exists and `cond` holds; returns it.
pub fn wait_entry(
    env: &Env,
    (args, key, value): (&[&str], &str, &str),
    what: &str,
    cond: impl Fn(&Value) -> bool,
) -> Value {
    let mut last = None;
    env.wait_until(&format!("{value}: {what}"), || {
        last = entry(env, args, key, value);
        last.as_ref().is_some_and(&cond)
    });
    last.unwrap()
}

/// `attend remote ls --json`'s entry for `name`.
pub fn remote_of(env: &Env, name: &str) -> Option<Value> {
    entry(env, &["remote", "ls", "--json"], "name", name)
}

pub fn wait_state(env: &Env, name: &str, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
    wait_entry(env, (&["remote", "ls", "--json"], "name", name), what, cond)
}

/// One Claude hook of `session` on `env` through the real hook client (cwd `/tmp/mirror`).
pub fn hook(env: &Env, session: &str, event: &str) {
    hook_in(env, session, "/tmp/mirror", event)
}

/// One Claude hook of `session` in `cwd` on `env` through the real hook client.
pub fn hook_in(env: &Env, session: &str, cwd: &str, event: &str) {
    let payload = serde_json::json!({"session_id": session, "cwd": cwd,
        "hook_event_name": event, "prompt": "go", "stop_hook_active": false,
        "last_assistant_message": "done"});
    let out = env.attend_with(&["hook", "claude"], payload.to_string().as_bytes(), &[]);
    assert!(
        out.status.success(),
        "attend hook: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Polls `attend ls --json`'s entry for `id` until `cond` holds.
pub fn wait_listed(env: &Env, id: &str, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
    wait_entry(env, (&["ls", "--json"], "id", id), what, cond)
}

/// A remote's `last_error` (empty when none).
pub fn error_of(r: &Value) -> String {
    r["last_error"].as_str().unwrap_or("").to_string()
}

/// The `PATH` on which the default carrier is the real `ssh` with the harness's client
/// config: a two-line `ssh` written into `dir`, first on it, adds `-F` (the host alias,
/// key and known host) to Attend's own options, which win over the file's.
pub fn ssh_on_path(sshd: &super::sshd::Sshd, dir: &Path) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let ssh = dir.join("ssh");
    std::fs::write(
        &ssh,
        format!(
            "#!/bin/sh\nexec /usr/bin/ssh -F '{}' \"$@\"\n",
            sshd.client_config().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &ssh,
        <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755),
    )
    .unwrap();
    format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// The local daemon, whose default carrier is the real `ssh` with the harness's client
/// config ([`ssh_on_path`]).
pub fn local_env_over_ssh(sshd: &super::sshd::Sshd) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let path = ssh_on_path(sshd, &dir.path().join("bin"));
    let home = dir.path().to_path_buf();
    let config = dir.path().join("config");
    let mut local = Env::with(
        Bus::start(),
        dir,
        home,
        vec![
            ("XDG_CONFIG_HOME".into(), Some(config.into_os_string())),
            ("PATH".into(), Some(path.into())),
        ],
        LINK_TIMEOUT,
    );
    local.start_daemon();
    local
}

/// `attend status --follow --format json` of `env`, each line with when it was read (the
/// child ends with the test: its bus goes).
pub fn status_follower(env: &Env) -> std::sync::mpsc::Receiver<(String, std::time::Instant)> {
    let mut child = env
        .cmd()
        .args(["status", "--follow", "--format", "json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(out)) {
            let Ok(line) = line else { break };
            if tx.send((line, std::time::Instant::now())).is_err() {
                break;
            }
        }
        let _ = child.kill();
        let _ = child.wait();
    });
    rx
}
