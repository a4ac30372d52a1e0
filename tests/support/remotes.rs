//! Linked daemons for the tests of remote panes (docs/remote.md): a "remote" daemon on a
//! bus at a fixed socket with its own state directory, a local daemon whose config.toml
//! is its own, and `attend remote add … --via` a plain local command (no ssh) that
//! reaches the remote's bus through `attend bridge --stdio`.

use super::{attend_bin, Bus, Env};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Generous: links and daemons start slowly on a loaded machine.
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

/// A remote: a daemon on a bus at a fixed socket; the env and the socket.
pub fn remote_env() -> (Env, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("bus.sock");
    let mut env = env_on(Bus::at(&socket), dir);
    env.start_daemon();
    (env, socket)
}

/// The local daemon, on a bus of its own.
pub fn local_env() -> Env {
    let mut env = env_on(Bus::start(), tempfile::tempdir().unwrap());
    env.start_daemon();
    env
}

/// `--via` and `--command` that reach the remote's bus with a plain local command.
pub fn via_args(remote: &Env, socket: &Path) -> [String; 4] {
    let via = shlex::try_join([
        "env",
        &format!("DBUS_SESSION_BUS_ADDRESS=unix:path={}", socket.display()),
        &format!("XDG_RUNTIME_DIR={}", remote.path("run").display()),
    ])
    .unwrap();
    let command = shlex::try_join([attend_bin(), "bridge", "--stdio"]).unwrap();
    ["--via".into(), via, "--command".into(), command]
}

/// `attend remote add NAME TARGET EXTRA…` on `env`.
pub fn add(env: &Env, name: &str, target: &str, extra: &[String]) {
    let mut args = vec!["remote", "add", name, target];
    args.extend(extra.iter().map(String::as_str));
    let out = env.ok(&args);
    assert!(out.starts_with(&format!("added {name}")), "{out}");
}

/// One Claude hook of `session` in `cwd` on `env` through the real hook client.
pub fn hook(env: &Env, session: &str, cwd: &str, event: &str) {
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
