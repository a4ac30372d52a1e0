//! A block of Attend's own lines at the end of a YAML configuration file that Attend has
//! no YAML editor for: aider's `.aider.conf.yml` (its `notifications-command`) and Hermes
//! Agent's `config.yaml` (its `hooks:`). The block starts and ends with a comment line
//! that names it ([`begin`], [`end`]); everything between is Attend's and is replaced as a
//! whole. Top-level keys the block sets must not be set by the user's own lines too (a
//! YAML mapping holds a key once; the agents' loaders keep the last one, which would drop
//! the user's): such a key is refused with its line, and nothing is written
//! (docs/adapters.md, "aider" and "Hermes Agent").
//!
//! Uninstall removes the block, and a newline an install added before it (the file's
//! backup, compared by [`value`], restores the exact bytes).

use super::error::InstallError;
use std::path::Path;

/// The comment line that opens Attend's block for `agent`.
pub(super) fn begin(agent: &str) -> String {
    format!("# >>> attend install-hooks {agent} >>> (Attend's lines, rewritten by it)")
}

/// The comment line that closes Attend's block for `agent`.
pub(super) fn end(agent: &str) -> String {
    format!("# <<< attend install-hooks {agent} <<<")
}

/// A YAML single-quoted scalar of `s` (its `'` doubled): safe for any command line.
pub(super) fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The text with Attend's block for `agent` holding `body` (lines ending in `\n`) at its
/// end: unchanged when the block already holds exactly `body`; an older block is
/// replaced. `keys` are the top-level keys `body` sets.
///
/// Errors: [`InstallError::Shape`] when one of `keys` is set outside the block, or the
/// block's opening line has no closing line.
pub(super) fn install(
    path: &Path,
    text: &str,
    agent: &str,
    body: &str,
    keys: &[&str],
) -> Result<String, InstallError> {
    let (outside, inside) = split(path, text, agent)?;
    if let Some((line, key)) = taken(&outside, keys) {
        return Err(InstallError::Shape {
            path: path.to_path_buf(),
            message: format!(
                "line {line} sets `{key}` already; Attend's lines set it too (a YAML key is \
                 read once), so remove or merge that line and run install-hooks again"
            ),
        });
    }
    if inside.as_deref() == Some(body) {
        return Ok(text.to_string());
    }
    let mut out = outside;
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&begin(agent));
    out.push('\n');
    out.push_str(body);
    out.push_str(&end(agent));
    out.push('\n');
    Ok(out)
}

/// The text without Attend's block for `agent`; unchanged when there is none.
///
/// Errors: [`InstallError::Shape`] when the block's opening line has no closing line.
pub(super) fn uninstall(path: &Path, text: &str, agent: &str) -> Result<String, InstallError> {
    let (outside, inside) = split(path, text, agent)?;
    Ok(if inside.is_some() {
        outside
    } else {
        text.to_string()
    })
}

/// What a file's text is compared by when an uninstall looks for the backup to restore:
/// the text without trailing white space (an install may have added a line break).
pub(super) fn value(text: &str) -> serde_json::Value {
    serde_json::Value::String(text.trim_end().to_string())
}

/// The text outside Attend's block, and the block's body (`None` when there is no block).
fn split(path: &Path, text: &str, agent: &str) -> Result<(String, Option<String>), InstallError> {
    let (open, close) = (begin(agent), end(agent));
    let mut outside = String::new();
    let mut inside: Option<String> = None;
    let mut in_block = false;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if !in_block && bare == open {
            in_block = true;
            inside.get_or_insert_with(String::new);
        } else if in_block && bare == close {
            in_block = false;
        } else if in_block {
            inside.get_or_insert_with(String::new).push_str(line);
        } else {
            outside.push_str(line);
        }
    }
    if in_block {
        return Err(InstallError::Shape {
            path: path.to_path_buf(),
            message: format!("the line {open:?} has no closing line {close:?}"),
        });
    }
    Ok((outside, inside))
}

/// The first top-level line (1-based, of `text`) that sets one of `keys`, and the key.
fn taken<'k>(text: &str, keys: &[&'k str]) -> Option<(usize, &'k str)> {
    text.lines().enumerate().find_map(|(i, line)| {
        keys.iter()
            .find(|k| {
                line.strip_prefix(**k)
                    .is_some_and(|rest| rest.trim_start().starts_with(':'))
            })
            .map(|k| (i + 1, *k))
    })
}
