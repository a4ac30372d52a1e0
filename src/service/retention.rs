//! The `[panes]` table of the user's `config.toml` (the file of
//! [`super::surfaces::settings::config_path`]), read once when the daemon starts:
//!
//! ```toml
//! [panes]
//! # Remove exited, reviewed panes (attention none, nothing unread, no open decision,
//! # task or hold, not focused) this long after their exit: a humantime duration such
//! # as "12h", "3d", "1w". Absent (the default): never.
//! remove_exited_after = "3d"
//! ```
//!
//! The rule: `docs/lifecycle-attention.md#removing-panes`.

use serde::Deserialize;
use std::time::Duration;

/// The file: other tables are left to their owners.
#[derive(Deserialize, Default)]
struct File {
    #[serde(default)]
    panes: Option<Panes>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Panes {
    remove_exited_after: Option<String>,
}

/// Parses the text of `config.toml`: the age after which exited, reviewed panes are
/// removed, `None` when unset. Errors: malformed TOML, unknown keys of `[panes]`, a value
/// that is no humantime duration or is zero (the message names it).
pub fn parse(text: &str) -> Result<Option<Duration>, String> {
    let file: File = toml_edit::de::from_str(text).map_err(|e| e.to_string())?;
    let Some(value) = file.panes.and_then(|p| p.remove_exited_after) else {
        return Ok(None);
    };
    match humantime::parse_duration(value.trim()) {
        Ok(d) if !d.is_zero() => Ok(Some(d)),
        Ok(_) => Err("panes.remove_exited_after: must be longer than zero".into()),
        Err(e) => Err(format!(
            "panes.remove_exited_after: {value:?} is not a duration (12h, 3d, 1w): {e}"
        )),
    }
}

/// Reads the setting from the user's `config.toml`; a missing file or key gives `None`
/// (off), an unreadable or invalid one gives `None` and a warning in the log.
pub fn load() -> Option<Duration> {
    let path = super::surfaces::settings::config_path()?;
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            tracing::warn!(path = %path.display(), "cannot read the settings: {e}; no automatic removal");
            return None;
        }
    };
    match parse(&text) {
        Ok(age) => {
            if let Some(age) = age {
                let age = humantime::format_duration(age);
                tracing::info!(%age, "exited, reviewed panes are removed this long after their exit");
            }
            age
        }
        Err(e) => {
            tracing::warn!(path = %path.display(), "invalid settings: {e}; no automatic removal");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn automatic_removal_is_off_unless_configured() {
        assert_eq!(parse(""), Ok(None));
        assert_eq!(parse("[notifications]\nlevels = []\n"), Ok(None));
        assert_eq!(parse("[panes]\n"), Ok(None));
    }

    #[test]
    fn the_age_is_a_humantime_duration() {
        let day = Duration::from_secs(86_400);
        assert_eq!(
            parse("[panes]\nremove_exited_after = \"3d\"\n"),
            Ok(Some(3 * day))
        );
        assert_eq!(
            parse("[panes]\nremove_exited_after = \"2h 30m\"\n"),
            Ok(Some(Duration::from_secs(9_000)))
        );
    }

    #[test]
    fn bad_values_and_unknown_keys_are_errors() {
        let e = parse("[panes]\nremove_exited_after = \"soon\"\n").unwrap_err();
        assert!(e.contains("\"soon\""), "{e}");
        assert!(parse("[panes]\nremove_exited_after = \"0s\"\n").is_err());
        assert!(parse("[panes]\nremove_after = \"1d\"\n").is_err());
        assert!(parse("[panes]\nremove_exited_after = 5\n").is_err());
    }
}
