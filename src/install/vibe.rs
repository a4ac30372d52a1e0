//! `install-hooks vibe`. Mistral Vibe reads `[[hooks]]` tables from `~/.vibe/hooks.toml`
//! (and a trusted project's `.vibe/hooks.toml`): `name` (unique), `type` (`pre_tool`,
//! `post_tool`, `post_agent`), `match` (the tool glob, tool hooks only), `command`,
//! `timeout` (seconds). Attend's tables are named `attend-<type>` and known by their
//! command ([`Matcher`]); edited with `toml_edit`, so the user's tables, comments and
//! spacing stay as written (docs/adapters.md, "Mistral Vibe").

use super::command::Matcher;
use super::error::InstallError;
use std::path::Path;
use toml_edit::{value, ArrayOfTables, Item, Table};

/// The hook types Attend installs.
pub(super) const TYPES: [&str; 3] = ["pre_tool", "post_tool", "post_agent"];

/// The key of Vibe's hook tables.
const HOOKS: &str = "hooks";

/// Seconds Vibe waits for a hook.
const TIMEOUT_S: f64 = 5.0;

/// The text with Attend's `[[hooks]]` tables (one per [`TYPES`], running `command`) after
/// the user's own: unchanged when they are already exactly these; older ones replaced.
///
/// Errors: [`InstallError::Parse`] for invalid TOML or a `hooks` that is not an array of
/// tables.
pub(super) fn install(
    path: &Path,
    text: &str,
    command: &str,
    matcher: &Matcher,
) -> Result<String, InstallError> {
    let mut doc = super::toml::parse(path, text)?;
    let wanted: Vec<Table> = TYPES.iter().map(|t| table(t, command)).collect();
    let hooks = match doc.get(HOOKS) {
        None => None,
        Some(item) => Some(item.as_array_of_tables().ok_or_else(|| not_tables(path))?),
    };
    let ours: Vec<Fields> = hooks
        .map(|h| {
            h.iter()
                .filter(|t| is_ours(t, matcher))
                .map(fields)
                .collect()
        })
        .unwrap_or_default();
    if ours == wanted.iter().map(fields).collect::<Vec<_>>() {
        return Ok(text.to_string());
    }
    remove_ours(&mut doc, matcher);
    let hooks = doc
        .entry(HOOKS)
        .or_insert_with(|| Item::ArrayOfTables(ArrayOfTables::new()))
        .as_array_of_tables_mut()
        .ok_or_else(|| not_tables(path))?;
    for t in wanted {
        hooks.push(t);
    }
    Ok(doc.to_string())
}

/// The text without Attend's tables (the key removed when none is left); unchanged when
/// there are none. Errors as [`install`].
pub(super) fn uninstall(
    path: &Path,
    text: &str,
    matcher: &Matcher,
) -> Result<String, InstallError> {
    let mut doc = super::toml::parse(path, text)?;
    let any = match doc.get(HOOKS) {
        None => false,
        Some(item) => item
            .as_array_of_tables()
            .ok_or_else(|| not_tables(path))?
            .iter()
            .any(|t| is_ours(t, matcher)),
    };
    if !any {
        return Ok(text.to_string());
    }
    remove_ours(&mut doc, matcher);
    Ok(doc.to_string())
}

/// A table's `name`, `type`, `match`, `command` and `timeout`, for comparing.
type Fields = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<f64>,
);

fn fields(t: &Table) -> Fields {
    let s = |k: &str| t.get(k).and_then(Item::as_str).map(str::to_string);
    (
        s("name"),
        s("type"),
        s("match"),
        s("command"),
        t.get("timeout").and_then(Item::as_float),
    )
}

/// Attend's table of hook type `kind`.
fn table(kind: &str, command: &str) -> Table {
    let mut t = Table::new();
    t.insert("name", value(format!("attend-{kind}")));
    t.insert("type", value(kind));
    if kind != "post_agent" {
        t.insert("match", value("*"));
    }
    t.insert("command", value(command));
    t.insert("timeout", value(TIMEOUT_S));
    t
}

fn remove_ours(doc: &mut toml_edit::DocumentMut, matcher: &Matcher) {
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
