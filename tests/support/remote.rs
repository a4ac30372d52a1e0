//! Helpers of the tests of remote hosts (tests/remote_link.rs, tests/remote_surfaces.rs):
//! linking a daemon to another daemon's bus with `attend remote add … --via` (a plain
//! local command, no ssh) through `attend bridge --stdio`, and reading `attend remote ls`
//! and `attend ls` until a condition holds.

use super::{attend_bin, Env};
use serde_json::Value;
use std::path::Path;

/// `--via` and `--command` that reach the bus at `address` (with `XDG_RUNTIME_DIR`
/// `runtime`, the remote daemon's) with a plain local command: `env …` then
/// `attend bridge --stdio`.
pub fn via_args(address: &str, runtime: &Path) -> [String; 4] {
    let via = shlex::try_join([
        "env",
        &format!("DBUS_SESSION_BUS_ADDRESS={address}"),
        &format!("XDG_RUNTIME_DIR={}", runtime.display()),
    ])
    .unwrap();
    ["--via".into(), via, "--command".into(), bridge_command()]
}

/// `attend bridge --stdio`, quoted, as a remote's `--command`.
pub fn bridge_command() -> String {
    shlex::try_join([attend_bin(), "bridge", "--stdio"]).unwrap()
}

/// `attend remote add NAME TARGET EXTRA…` on `env`; it must say `added NAME`.
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

/// Polls `attend remote ls --json` until `name`'s entry satisfies `cond`.
pub fn wait_state(env: &Env, name: &str, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
    wait_entry(env, (&["remote", "ls", "--json"], "name", name), what, cond)
}

/// A remote's `last_error` (empty when none).
pub fn error_of(r: &Value) -> String {
    r["last_error"].as_str().unwrap_or("").to_string()
}
