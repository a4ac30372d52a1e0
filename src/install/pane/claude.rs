//! Claude Code: `--settings <file>`, a generated settings file with Attend's hook entries.
//!
//! Claude loads hooks from every settings source and runs them all (user, project, local
//! and the `--settings` file, 2.1.197 and 2.1.332 alike), but a second `--settings`
//! replaces the first. So the user's own `--settings` argument (a file or a JSON text) is
//! taken out of the argv and its settings go into the generated file, with Attend's hooks
//! appended after the user's own hooks of each event.

use super::argv::{subcommand, Located};
use super::setup::{entries, generated, merge_hooks, PaneHooks, PaneSetup};
use crate::install::error::InstallError;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Claude Code's subcommands (2.1.197 and 2.1.332): none of them starts a session.
const SUBCOMMANDS: &[&str] = &[
    "agents",
    "attach",
    "auth",
    "auto-mode",
    "config",
    "doctor",
    "gateway",
    "import",
    "install",
    "kill",
    "logs",
    "mcp",
    "migrate-installer",
    "plugin",
    "plugins",
    "project",
    "purge",
    "respawn",
    "rm",
    "setup-token",
    "stop",
    "ultrareview",
    "update",
    "upgrade",
];

const FLAG: &str = "--settings";

/// The argv with `--settings <generated file>` right after the program, the user's
/// `--settings` arguments removed and their settings merged into the file. `None` for a
/// subcommand. Errors: the user's settings cannot be read or merged (see
/// [`super::plan`]).
pub(super) fn plan(
    setup: &PaneSetup<'_>,
    located: &Located,
) -> Result<Option<PaneHooks>, InstallError> {
    let (head, args) = setup.argv.split_at(located.program + 1);
    if subcommand(args, SUBCOMMANDS).is_some() {
        return Ok(None);
    }
    let Some((rest, user)) = take_settings(args) else {
        // `--settings` without a value: Claude reports that itself.
        return Ok(None);
    };
    let file = generated(setup, "claude-settings.json");
    let base = match user {
        None => Value::Object(Default::default()),
        Some(value) => user_settings(setup, &value)?,
    };
    let (ours, _) = entries(setup)?;
    let merged = merge_hooks(&file, base, &ours)?;
    let text = serde_json::to_string_pretty(&merged).unwrap_or_default() + "\n";
    let mut argv = head.to_vec();
    argv.push(FLAG.into());
    argv.push(file.display().to_string());
    argv.extend(rest);
    Ok(Some(PaneHooks {
        argv,
        env: Vec::new(),
        files: vec![(file, text)],
    }))
}

/// The arguments without any `--settings VALUE` / `--settings=VALUE` (before a `--`),
/// and the last such value (Claude keeps the last). `None` when `--settings` has no
/// value.
fn take_settings(args: &[String]) -> Option<(Vec<String>, Option<String>)> {
    let mut rest = Vec::new();
    let mut value = None;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "--" {
            rest.push(word.clone());
            rest.extend(words.by_ref().cloned());
            break;
        }
        if word == FLAG {
            value = Some(words.next()?.clone());
        } else if let Some(v) = word.strip_prefix("--settings=") {
            value = Some(v.to_string());
        } else {
            rest.push(word.clone());
        }
    }
    Some((rest, value))
}

/// The user's settings: a JSON text (it starts with `{`), else a file (relative to the
/// pane's working directory). Errors: [`InstallError::Io`] for a file that does not
/// exist or cannot be read, [`InstallError::Parse`] for text that is not JSON.
fn user_settings(setup: &PaneSetup<'_>, value: &str) -> Result<Value, InstallError> {
    let (path, text) = if value.trim_start().starts_with('{') {
        (PathBuf::from("--settings"), value.to_string())
    } else {
        let path = setup.cwd.join(value);
        let text = (setup.read)(&path)?.ok_or_else(|| InstallError::Io {
            path: path.clone(),
            source: std::io::ErrorKind::NotFound.into(),
        })?;
        (path, text)
    };
    parse(&path, &text)
}

fn parse(path: &Path, text: &str) -> Result<Value, InstallError> {
    serde_json::from_str(text).map_err(|e| InstallError::Parse {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}
