//! Where Attend keeps its files (docs/dbus-api.md "Start-up and files"): the state
//! directory (the daemon's SQLite file `attend.db`) and the runtime directory (the hook
//! spool and its lock).

use std::ffi::OsString;
use std::path::PathBuf;

/// The state directory: `$ATTEND_STATE_DIR`, else `$XDG_STATE_HOME/attend`, else
/// `$HOME/.local/state/attend` (XDG Base Directory spec). Empty variables
/// count as unset, and so does a relative `XDG_STATE_HOME` (the XDG spec says to ignore
/// it). Without `HOME` the home directory comes from the password database (and `/`
/// when even that has no entry).
///
/// Reads the environment; creates nothing (the daemon creates it when it opens its
/// database).
pub fn state_dir() -> PathBuf {
    let env = |name: &str| std::env::var_os(name);
    state_dir_from(&env, std::env::home_dir)
}

/// The runtime directory: `$XDG_RUNTIME_DIR/attend`, else [`state_dir`] when
/// `XDG_RUNTIME_DIR` is unset, empty or relative. Reads the environment; creates
/// nothing.
pub fn runtime_dir() -> PathBuf {
    let env = |name: &str| std::env::var_os(name);
    runtime_dir_from(&env, std::env::home_dir)
}

type Env<'a> = &'a dyn Fn(&str) -> Option<OsString>;

fn state_dir_from(env: Env, home: fn() -> Option<PathBuf>) -> PathBuf {
    if let Some(dir) = env("ATTEND_STATE_DIR").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(xdg) = absolute(env("XDG_STATE_HOME")) {
        return xdg.join("attend");
    }
    let home = env("HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(home)
        .unwrap_or_else(|| PathBuf::from("/"));
    home.join(".local/state/attend")
}

fn runtime_dir_from(env: Env, home: fn() -> Option<PathBuf>) -> PathBuf {
    match absolute(env("XDG_RUNTIME_DIR")) {
        Some(run) => run.join("attend"),
        None => state_dir_from(env, home),
    }
}

/// An XDG base directory value: set, non-empty and absolute.
fn absolute(value: Option<OsString>) -> Option<PathBuf> {
    value.map(PathBuf::from).filter(|p| p.is_absolute())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, OsString> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        move |name| map.get(name).cloned()
    }

    fn no_home() -> Option<PathBuf> {
        None
    }

    fn passwd_home() -> Option<PathBuf> {
        Some(PathBuf::from("/var/lib/someone"))
    }

    #[test]
    fn state_dir_prefers_attend_state_dir_then_xdg_then_home() {
        let all = env_of(&[
            ("ATTEND_STATE_DIR", "/srv/attend"),
            ("XDG_STATE_HOME", "/x/state"),
            ("HOME", "/h"),
        ]);
        assert_eq!(state_dir_from(&all, no_home), PathBuf::from("/srv/attend"));
        let xdg = env_of(&[("XDG_STATE_HOME", "/x/state"), ("HOME", "/h")]);
        assert_eq!(
            state_dir_from(&xdg, no_home),
            PathBuf::from("/x/state/attend")
        );
        let home = env_of(&[("HOME", "/h")]);
        assert_eq!(
            state_dir_from(&home, no_home),
            PathBuf::from("/h/.local/state/attend")
        );
    }

    #[test]
    fn empty_or_relative_values_count_as_unset() {
        let env = env_of(&[
            ("ATTEND_STATE_DIR", ""),
            ("XDG_STATE_HOME", "relative/state"),
            ("HOME", "/h"),
        ]);
        assert_eq!(
            state_dir_from(&env, no_home),
            PathBuf::from("/h/.local/state/attend")
        );
        let env = env_of(&[("XDG_RUNTIME_DIR", ""), ("HOME", "/h")]);
        assert_eq!(
            runtime_dir_from(&env, no_home),
            PathBuf::from("/h/.local/state/attend")
        );
    }

    #[test]
    fn without_home_the_password_database_decides() {
        let env = env_of(&[]);
        assert_eq!(
            state_dir_from(&env, passwd_home),
            PathBuf::from("/var/lib/someone/.local/state/attend")
        );
    }

    #[test]
    fn runtime_dir_is_under_xdg_runtime_dir_else_the_state_dir() {
        let env = env_of(&[
            ("XDG_RUNTIME_DIR", "/run/user/1000"),
            ("ATTEND_STATE_DIR", "/s"),
        ]);
        assert_eq!(
            runtime_dir_from(&env, no_home),
            PathBuf::from("/run/user/1000/attend")
        );
        let env = env_of(&[("ATTEND_STATE_DIR", "/s")]);
        assert_eq!(runtime_dir_from(&env, no_home), PathBuf::from("/s"));
    }
}
