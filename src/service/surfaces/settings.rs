//! The user's settings for the desktop surfaces: `$XDG_CONFIG_HOME/attend/config.toml`
//! (else `~/.config/attend/config.toml`), read once when the daemon starts.
//!
//! ```toml
//! [notifications]
//! # Which attention levels raise a desktop notification. `unread` means
//! # "after a completion" (agent.done). Default: everything but warning.
//! levels = ["permission_required", "input_required", "error", "unread"]
//! ```

use crate::model::Attention;
use serde::Deserialize;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Settings of the surfaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Levels that raise a notification (`docs/desktop-surfaces.md#which-levels-notify`:
    /// permission, input, error and unread after a completion; warning off by default).
    pub notify_levels: BTreeSet<Attention>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            notify_levels: [
                Attention::PermissionRequired,
                Attention::InputRequired,
                Attention::Error,
                Attention::Unread,
            ]
            .into_iter()
            .collect(),
        }
    }
}

/// The file: other tables are left to their owners.
#[derive(Deserialize, Default)]
struct File {
    #[serde(default)]
    notifications: Option<Notifications>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Notifications {
    levels: Option<Vec<String>>,
}

/// A level named in the file: the wire name (`permission_required`) or the short word
/// (`permission`, `input`).
fn level(name: &str) -> Option<Attention> {
    match name {
        "permission" => Some(Attention::PermissionRequired),
        "input" | "question" => Some(Attention::InputRequired),
        other => Attention::parse(other).filter(|a| *a != Attention::None),
    }
}

impl Settings {
    /// Parses the text of `config.toml`. Errors: malformed TOML, unknown keys, unknown
    /// level names (the message names them).
    pub fn parse(text: &str) -> Result<Settings, String> {
        let file: File = toml_edit::de::from_str(text).map_err(|e| e.to_string())?;
        let mut settings = Settings::default();
        if let Some(names) = file.notifications.and_then(|n| n.levels) {
            let mut levels = BTreeSet::new();
            for n in &names {
                levels.insert(level(n).ok_or_else(|| {
                    format!(
                        "notifications.levels: unknown level {n:?} (permission_required, \
                         input_required, error, warning, unread)"
                    )
                })?);
            }
            settings.notify_levels = levels;
        }
        Ok(settings)
    }

    /// Reads [`config_path`]; a missing file gives the defaults, an unreadable or invalid
    /// one gives the defaults and a warning in the log.
    pub fn load() -> Settings {
        let Some(path) = config_path() else {
            return Settings::default();
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Settings::default(),
            Err(e) => {
                tracing::warn!(path = %path.display(), "cannot read the settings: {e}; using the defaults");
                return Settings::default();
            }
        };
        match Settings::parse(&text) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(path = %path.display(), "invalid settings: {e}; using the defaults");
                Settings::default()
            }
        }
    }
}

/// `$XDG_CONFIG_HOME/attend/config.toml` (an absolute `XDG_CONFIG_HOME`), else
/// `$HOME/.config/attend/config.toml`; `None` without either.
pub fn config_path() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    let base = xdg.or_else(|| {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".config"))
    })?;
    Some(base.join("attend").join("config.toml"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warning_is_off_by_default() {
        let s = Settings::parse("").unwrap();
        assert_eq!(s, Settings::default());
        assert!(!s.notify_levels.contains(&Attention::Warning));
        assert!(s.notify_levels.contains(&Attention::Unread));
    }

    #[test]
    fn levels_are_configurable_by_wire_name_or_short_word() {
        let s =
            Settings::parse("[notifications]\nlevels = [\"permission\", \"warning\"]\n").unwrap();
        let want: BTreeSet<_> = [Attention::PermissionRequired, Attention::Warning].into();
        assert_eq!(s.notify_levels, want);
        let none = Settings::parse("[notifications]\nlevels = []\n").unwrap();
        assert!(none.notify_levels.is_empty());
    }

    #[test]
    fn unknown_levels_and_keys_are_errors() {
        let e = Settings::parse("[notifications]\nlevels = [\"loud\"]\n").unwrap_err();
        assert!(e.contains("\"loud\""), "{e}");
        assert!(Settings::parse("[notifications]\nlevel = []\n").is_err());
        assert!(Settings::parse("[notifications\n").is_err());
    }
}
