//! `attend config check`: the daemon's reading of `config.toml`, without a daemon
//! (`docs/configuration.md#bad-entries`).

use super::client::{CliError, EXIT_BAD_INPUT, EXIT_OK};
use super::out;
use crate::engine::escape_controls;
use crate::settings::read;

/// `attend config` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum ConfigCmd {
    /// Check config.toml as the daemon reads it: prints each bad entry (the entry, what
    /// is wrong, the accepted values) and exits 2 when there is one; prints `ok` and
    /// exits 0 otherwise (also when there is no file: the defaults apply).
    Check,
}

/// Runs an `attend config` subcommand; returns its exit code.
pub fn run(cmd: ConfigCmd) -> Result<i32, CliError> {
    match cmd {
        ConfigCmd::Check => check(),
    }
}

fn check() -> Result<i32, CliError> {
    let loaded = read();
    let Some(path) = loaded.path else {
        out::line("no config.toml (neither XDG_CONFIG_HOME nor HOME is set): the defaults apply")?;
        return Ok(EXIT_OK);
    };
    let path = escape_controls(&path.display().to_string());
    if !loaded.found {
        out::line(&format!("{path}: not found; the defaults apply"))?;
        return Ok(EXIT_OK);
    }
    if loaded.problems.is_empty() {
        out::line(&format!("{path}: ok"))?;
        return Ok(EXIT_OK);
    }
    for p in &loaded.problems {
        out::line(&escape_controls(&format!(
            "{path}: {p}; that entry is ignored"
        )))?;
    }
    Ok(EXIT_BAD_INPUT)
}
