//! The test hook `ATTEND_PANEL_DUMP=<file>`: after each render the window writes what its
//! widgets display (row labels, CSS classes, decision buttons, …) as one JSON document,
//! read back from the widgets themselves, never from the data they were given. The file
//! is replaced atomically (written beside it, then renamed), so a reader never sees half
//! a document.

use std::path::{Path, PathBuf};

/// The environment variable naming the dump file.
pub const ENV: &str = "ATTEND_PANEL_DUMP";

/// The dump file, when the hook is on.
pub fn path() -> Option<PathBuf> {
    std::env::var_os(ENV)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
}

/// Writes `value` to `path` atomically; failures are logged (the hook never disturbs the
/// panel).
pub fn write(path: &Path, value: &serde_json::Value) {
    let tmp = path.with_extension("tmp");
    let text = match serde_json::to_string_pretty(value) {
        Ok(t) => t,
        Err(e) => return tracing::warn!("panel dump: {e}"),
    };
    if let Err(e) = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, path)) {
        tracing::warn!(path = %path.display(), "panel dump: {e}");
    }
}

/// A part of the dump made by a widget the window does not know by type (the New agent
/// dialog): called when the window writes its dump.
pub struct Part(pub Box<dyn Fn() -> serde_json::Value>);

impl std::fmt::Debug for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dump::Part")
    }
}
