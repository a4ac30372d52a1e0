//! `install-hooks amp`. Amp runs no hook commands; it loads TypeScript plugins: Attend's
//! plugin (`data/amp/attend.ts`, compiled in, the one source of the file Meson also
//! installs) is written as `attend.ts` into Amp's plugin directory (`~/.config/amp/plugins`,
//! a project's `.amp/plugins`), with the hook argv (`<dir>/attend-hook amp`, absolute) in
//! its `const HOOK = …` line (docs/adapters.md "Amp"). The file is wholly Attend's, as
//! pi's extension is ([`super::pi::plan_file`]): install → uninstall leaves the tree as it
//! was.

use super::pi::OwnFile;
use std::path::{Path, PathBuf};

/// The plugin as shipped (`const HOOK = ["attend-hook", "amp"];`: found on `PATH`).
pub const PLUGIN: &str = include_str!("../../data/amp/attend.ts");

/// The plugin as Attend writes it: its first two lines say it is Attend's (the first is
/// the line Amp's plugin API asks every plugin to carry).
pub(super) const FILE: OwnFile = OwnFile {
    template: PLUGIN,
    marker: "// @i-know-the-amp-plugin-api-is-wip-and-very-experimental-right-now\n\
             // Attend's Amp plugin",
    name: "attend.ts",
};

/// Amp's directories under `home` (user scope: `~/.config/amp/plugins`, `~/.config/amp`)
/// or the project's (`.amp/plugins`, `.amp`), innermost first: the plugin goes into the
/// first, an uninstall removes each it left empty.
pub(super) fn dirs(home: &Path, project: &Path, user: bool) -> Vec<PathBuf> {
    let amp = if user {
        home.join(".config/amp")
    } else {
        project.join(".amp")
    };
    vec![amp.join("plugins"), amp]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_plugin_starts_with_its_marker_and_has_one_hook_line() {
        assert!(PLUGIN.starts_with(FILE.marker));
        let hook_lines = PLUGIN
            .lines()
            .filter(|l| l.starts_with("const HOOK = "))
            .collect::<Vec<_>>();
        assert_eq!(hook_lines, ["const HOOK = [\"attend-hook\", \"amp\"];"]);
    }
}
