//! Kimi Code CLI's hooks in `config.toml`: `[[hooks]]` array tables of `event`, optional
//! `matcher`, `command` and `timeout` (seconds) — no other field is allowed (Kimi refuses
//! to load a config with one), so Attend's entries are known by their command
//! ([`Matcher`]). Edited with `toml_edit`, so the user's comments, tables and spacing stay
//! as written (docs/adapters.md, "Kimi Code CLI").

use super::command::Matcher;
use super::error::InstallError;
use std::path::Path;
use toml_edit::{value, ArrayOfTables, DocumentMut, Item, Table};

/// The key of Kimi's hook tables.
const HOOKS: &str = "hooks";

/// The text with one `[[hooks]]` table per event of `events` running `command` with
/// `timeout` seconds, after the user's own: unchanged when Attend's tables are already
/// exactly these; Attend's older tables (another executable path, other events) are
/// replaced.
///
/// Errors: [`InstallError::Parse`] for invalid TOML or a `hooks` that is not an array of
/// tables.
pub(super) fn install(
    path: &Path,
    text: &str,
    events: &[&str],
    command: &str,
    timeout: i64,
    matcher: &Matcher,
) -> Result<String, InstallError> {
    let mut doc = super::toml::parse(path, text)?;
    let ours: Vec<(String, String, Option<i64>)> = tables(path, &doc)?
        .map(|hooks| {
            hooks
                .iter()
                .filter(|t| is_ours(t, matcher))
                .map(|t| {
                    (
                        t.get("event").and_then(Item::as_str).unwrap_or("").into(),
                        t.get("command").and_then(Item::as_str).unwrap_or("").into(),
                        t.get("timeout").and_then(Item::as_integer),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let wanted: Vec<(String, String, Option<i64>)> = events
        .iter()
        .map(|e| (e.to_string(), command.to_string(), Some(timeout)))
        .collect();
    if ours == wanted {
        return Ok(text.to_string());
    }
    remove_ours(&mut doc, matcher);
    let hooks = doc
        .entry(HOOKS)
        .or_insert_with(|| Item::ArrayOfTables(ArrayOfTables::new()))
        .as_array_of_tables_mut()
        .ok_or_else(|| not_tables(path))?;
    for event in events {
        let mut table = Table::new();
        table.insert("event", value(*event));
        table.insert("command", value(command));
        table.insert("timeout", value(timeout));
        hooks.push(table);
    }
    Ok(doc.to_string())
}

/// The text without Attend's `[[hooks]]` tables (the key removed when none is left);
/// unchanged when there are none.
///
/// Errors: [`InstallError::Parse`] as [`install`].
pub(super) fn uninstall(
    path: &Path,
    text: &str,
    matcher: &Matcher,
) -> Result<String, InstallError> {
    let mut doc = super::toml::parse(path, text)?;
    let any = tables(path, &doc)?.is_some_and(|hooks| hooks.iter().any(|t| is_ours(t, matcher)));
    if !any {
        return Ok(text.to_string());
    }
    remove_ours(&mut doc, matcher);
    Ok(doc.to_string())
}

/// The `hooks` array of tables, `None` when absent; an error when `hooks` is something
/// else.
fn tables<'d>(
    path: &Path,
    doc: &'d DocumentMut,
) -> Result<Option<&'d ArrayOfTables>, InstallError> {
    match doc.get(HOOKS) {
        None => Ok(None),
        Some(item) => item
            .as_array_of_tables()
            .map(Some)
            .ok_or_else(|| not_tables(path)),
    }
}

fn remove_ours(doc: &mut DocumentMut, matcher: &Matcher) {
    let Some(hooks) = doc.get_mut(HOOKS).and_then(Item::as_array_of_tables_mut) else {
        return;
    };
    hooks.retain(|t| !is_ours(t, matcher));
    if hooks.is_empty() {
        doc.remove(HOOKS);
    }
}

fn is_ours(table: &Table, matcher: &Matcher) -> bool {
    table
        .get("command")
        .and_then(Item::as_str)
        .is_some_and(|c| matcher.is_ours_command(c))
}

fn not_tables(path: &Path) -> InstallError {
    InstallError::Parse {
        path: path.to_path_buf(),
        line: 1,
        column: 1,
        message: "`hooks` is not an array of tables ([[hooks]])".into(),
    }
}
