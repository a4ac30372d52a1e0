//! One bad entry of `config.toml` (`docs/configuration.md#bad-entries`).

use std::fmt;

/// A bad entry: which entry (`notifications.levels`, `[sound]`, `config.toml` for a file
/// that is no TOML) and what is wrong with it, naming the accepted values. The daemon logs
/// each once as a warning and goes on without the entry; `attend config check` prints each
/// and exits 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub entry: String,
    pub message: String,
}

impl Problem {
    /// A problem with `entry`.
    pub fn new(entry: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            entry: entry.into(),
            message: message.into(),
        }
    }

    /// An unknown key `key` of table `table`, naming the keys it accepts.
    pub fn unknown_key(table: &str, key: &str, accepted: &[&str]) -> Problem {
        Problem::new(
            format!("{table}.{key}"),
            format!("unknown key (accepted: {})", accepted.join(", ")),
        )
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.entry, self.message)
    }
}
