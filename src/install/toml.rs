//! Codex `notify` in `config.toml`, edited with `toml_edit` so the user's comments, key
//! order and spacing stay as written. Codex runs one notify program only
//! (`docs/adapters.md#hook-configuration-files`), so Attend never replaces someone else's.

use super::command::Matcher;
use super::error::InstallError;
use std::path::Path;
use toml_edit::{Array, DocumentMut, Item, Value};

/// The text with `notify = <argv>` at the top level: unchanged when it is already there;
/// a stale `notify` of Attend's (another executable path) is replaced in place.
///
/// Errors: [`InstallError::Parse`] for invalid TOML, [`InstallError::NotifyTaken`] when
/// `notify` is set to some other program.
pub(super) fn install(
    path: &Path,
    text: &str,
    argv: &[String],
    matcher: &Matcher,
) -> Result<String, InstallError> {
    let mut doc = parse(path, text)?;
    match doc.get("notify") {
        Some(item) if notify_argv(item).as_deref() == Some(argv) => return Ok(text.to_string()),
        Some(item) if !is_ours(item, matcher) => {
            return Err(InstallError::NotifyTaken {
                path: path.to_path_buf(),
                existing: item.to_string().trim().to_string(),
            })
        }
        _ => {}
    }
    let array: Array = argv.iter().map(String::as_str).collect();
    match doc.get_mut("notify").and_then(Item::as_value_mut) {
        // Keep the user's spacing and any comment around the old value.
        Some(value) => {
            let decor = value.decor().clone();
            *value = Value::Array(array);
            *value.decor_mut() = decor;
        }
        None => {
            doc.insert("notify", toml_edit::value(array));
        }
    }
    Ok(doc.to_string())
}

/// The text without Attend's `notify`; unchanged when `notify` is absent or not Attend's.
pub(super) fn uninstall(
    path: &Path,
    text: &str,
    matcher: &Matcher,
) -> Result<String, InstallError> {
    let mut doc = parse(path, text)?;
    match doc.get("notify") {
        Some(item) if is_ours(item, matcher) => {
            doc.remove("notify");
            Ok(doc.to_string())
        }
        _ => Ok(text.to_string()),
    }
}

/// The document as a JSON value, for comparing a file with its backups; `None` when it
/// does not parse.
pub(super) fn value(text: &str) -> Option<serde_json::Value> {
    toml_edit::de::from_str(text).ok()
}

pub(super) fn parse(path: &Path, text: &str) -> Result<DocumentMut, InstallError> {
    text.parse::<DocumentMut>().map_err(|e| {
        let offset = e.span().map_or(0, |span| span.start);
        let (line, column) = line_column(text, offset);
        InstallError::Parse {
            path: path.to_path_buf(),
            line,
            column,
            message: e.message().trim().to_string(),
        }
    })
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let (mut line, mut column) = (1, 1);
    for (_, c) in text.char_indices().take_while(|(i, _)| *i < offset) {
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    (line, column)
}

fn notify_argv(item: &Item) -> Option<Vec<String>> {
    item.as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect()
}

fn is_ours(item: &Item, matcher: &Matcher) -> bool {
    notify_argv(item).is_some_and(|argv| matcher.is_ours_argv(&argv))
}
