//! Gemini CLI: no settings flag, but its system defaults file (the lowest settings layer)
//! can be named by `GEMINI_CLI_SYSTEM_DEFAULTS_PATH`, and Gemini concatenates the hook
//! lists of all layers. So the pane gets that variable naming a generated file: the
//! system defaults it replaces (`$GEMINI_CLI_SYSTEM_DEFAULTS_PATH`, else
//! `system-defaults.json` beside the system settings file, `$GEMINI_CLI_SYSTEM_SETTINGS_PATH`
//! or `/etc/gemini-cli/settings.json`), comments dropped, plus Attend's hooks.

use super::argv::{subcommand, Located};
use super::{entries, generated, merge_hooks, PaneHooks, PaneSetup};
use crate::install::error::InstallError;
use jsonc_parser::cst::CstRootNode;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Gemini CLI subcommands that start no session.
const SUBCOMMANDS: &[&str] = &["mcp", "extensions", "extension", "skills", "hooks", "help"];

/// The variable that names Gemini's system defaults file.
pub(super) const DEFAULTS_ENV: &str = "GEMINI_CLI_SYSTEM_DEFAULTS_PATH";

/// The argv unchanged, [`DEFAULTS_ENV`] naming the generated file. `None` for a
/// subcommand. Errors: the system defaults file cannot be read, is not JSON (comments
/// allowed) or its `hooks` has another type.
pub(super) fn plan(
    setup: &PaneSetup<'_>,
    located: &Located,
    var: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<PaneHooks>, InstallError> {
    if subcommand(&setup.argv[located.program + 1..], SUBCOMMANDS).is_some() {
        return Ok(None);
    }
    let original = defaults_path(var);
    let base = match (setup.read)(&original)? {
        None => Value::Object(Default::default()),
        Some(text) if text.trim().is_empty() => Value::Object(Default::default()),
        Some(text) => parse(&original, &text)?,
    };
    let file = generated(setup, "gemini-system-defaults.json");
    let (ours, _) = entries(setup)?;
    let merged = merge_hooks(&original, base, &ours)?;
    let text = serde_json::to_string_pretty(&merged).unwrap_or_default() + "\n";
    Ok(Some(PaneHooks {
        argv: setup.argv.to_vec(),
        env: vec![(DEFAULTS_ENV.into(), file.display().to_string())],
        files: vec![(file, text)],
    }))
}

/// The system defaults file Gemini would read.
fn defaults_path(var: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    if let Some(path) = var(DEFAULTS_ENV).filter(|v| !v.is_empty()) {
        return PathBuf::from(path);
    }
    let settings = var("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "/etc/gemini-cli/settings.json".into());
    Path::new(&settings)
        .parent()
        .unwrap_or(Path::new("/"))
        .join("system-defaults.json")
}

fn parse(path: &Path, text: &str) -> Result<Value, InstallError> {
    let options = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_loose_object_property_names: false,
        allow_trailing_commas: true,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let root = CstRootNode::parse(text, &options).map_err(|e| InstallError::Parse {
        path: path.to_path_buf(),
        line: e.line_display(),
        column: e.column_display(),
        message: e.kind().to_string(),
    })?;
    Ok(root
        .value()
        .and_then(|v| v.to_serde_value())
        .unwrap_or_else(|| Value::Object(Default::default())))
}
