//! `install-hooks opencode` and `install-hooks kilo`. OpenCode runs no hook commands; it
//! loads plugins, and so does its fork Kilo Code ([`Host`]): Attend's plugin
//! (`data/opencode/attend.js`, compiled in, the one source of the file Meson also
//! installs) is written as `plugin/attend.js` into the agent's user directory
//! (`$XDG_CONFIG_HOME/opencode`, by default `~/.config/opencode`; Kilo's `…/kilo`) or the
//! project's `.opencode/` (Kilo's `.kilo/`), with the hook argv (`<dir>/attend-hook
//! opencode`, absolute; `… kilo`) in its `const HOOK = …` line (docs/adapters.md
//! "OpenCode", "Kilo Code CLI").
//!
//! At start OpenCode runs an npm install into every configuration directory that has no
//! `node_modules/` (or whose `package-lock.json` does not name `@opencode-ai/plugin`;
//! Kilo's `@kilocode/plugin`), and waits for it: offline that stalls its start by over a
//! minute. Where the directory has none of `node_modules/`, `package-lock.json` and
//! `package.json` (nothing was ever installed there, e.g. the `.opencode/` this install
//! creates), the install seeds an empty `node_modules/` and a `package-lock.json` naming
//! the plugin package ([`SEED`], [`KILO_SEED`]); anywhere else those belong to the user or
//! to the agent and are left alone.
//!
//! Uninstall deletes the plugin file (a file of that name whose first line is not the
//! plugin's marker is the user's: an install refuses to replace it, an uninstall keeps
//! it), the seed when it is still exactly Attend's (the lock byte for byte, `node_modules/`
//! empty), and then the plugin directory and the configuration directory when nothing
//! else is left in them: install → uninstall leaves the tree as it was.

use super::error::InstallError;
use super::files;
use crate::model::AgentKind;
use std::path::{Path, PathBuf};

/// An agent that loads Attend's plugin: where its configuration directories are and the
/// lock its start-up npm install is satisfied by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Host {
    /// The agent (its wire name is the plugin's hook argument).
    pub agent: AgentKind,
    /// The user directory's name under `$XDG_CONFIG_HOME` (`opencode`, `kilo`).
    pub user_dir: &'static str,
    /// The project directory's name (`.opencode`, `.kilo`).
    pub project_dir: &'static str,
    /// The `package-lock.json` seeded beside an empty `node_modules/`.
    pub seed: &'static str,
}

impl Host {
    /// The host of `agent`'s plugin: OpenCode or Kilo Code; `None` for every other agent.
    pub fn of(agent: AgentKind) -> Option<Host> {
        match agent {
            AgentKind::OpenCode => Some(Host {
                agent,
                user_dir: "opencode",
                project_dir: ".opencode",
                seed: SEED,
            }),
            AgentKind::Kilo => Some(Host {
                agent,
                user_dir: "kilo",
                project_dir: ".kilo",
                seed: KILO_SEED,
            }),
            _ => None,
        }
    }
}

/// The plugin as shipped (`const HOOK = ["attend-hook", "opencode"];`: found on `PATH`).
pub const PLUGIN: &str = include_str!("../../data/opencode/attend.js");

/// The plugin's first line: a file of [`PLUGIN_FILE`] that starts with it is Attend's.
const MARKER: &str = "// Attend's OpenCode plugin";

/// The start of the line that holds the hook argv.
const HOOK_LINE: &str = "const HOOK = ";

/// The plugin's file name, in [`PLUGIN_DIR`] of the configuration directory.
const PLUGIN_FILE: &str = "attend.js";
const PLUGIN_DIR: &str = "plugin";
const LOCK: &str = "package-lock.json";
const MODULES: &str = "node_modules";
const PACKAGE: &str = "package.json";

/// The `package-lock.json` seeded beside an empty `node_modules/`: OpenCode's install
/// check finds `@opencode-ai/plugin` installed and skips the npm install (the plugin
/// imports nothing).
pub const SEED: &str =
    "{\"packages\": {\"\": {\"dependencies\": {\"@opencode-ai/plugin\": \"*\"}}}}\n";

/// [`SEED`] for Kilo Code, whose start-up install adds `@kilocode/plugin` (7.7.7).
pub const KILO_SEED: &str =
    "{\"packages\": {\"\": {\"dependencies\": {\"@kilocode/plugin\": \"*\"}}}}\n";

/// A planned install or uninstall in one configuration directory: every file it
/// touches as (path, text before, text after; `None`: absent), and the directories it
/// creates (`true`) or removes when empty (`false`), in order.
pub(super) struct Planned {
    pub(super) files: Vec<(PathBuf, Option<String>, Option<String>)>,
    pub(super) dirs: Vec<(PathBuf, bool)>,
}

/// The files an install writes in `dir`: the plugin, then the seed's lock.
pub(super) fn paths(dir: &Path) -> Vec<PathBuf> {
    vec![dir.join(PLUGIN_DIR).join(PLUGIN_FILE), dir.join(LOCK)]
}

/// [`PLUGIN`] with `argv` (program first) in its `const HOOK = […];` line, each element a
/// JSON string.
pub fn plugin_text(argv: &[String]) -> String {
    let list: Vec<String> = argv
        .iter()
        .map(|a| serde_json::Value::String(a.clone()).to_string())
        .collect();
    let line = format!("{HOOK_LINE}[{}];", list.join(", "));
    PLUGIN
        .split_inclusive('\n')
        .map(|l| {
            if l.starts_with(HOOK_LINE) {
                format!("{line}\n")
            } else {
                l.to_string()
            }
        })
        .collect()
}

/// True for a plugin file Attend wrote (any version).
fn is_ours(text: &str) -> bool {
    text.starts_with(MARKER)
}

/// Plans installing Attend's plugin into `host`'s configuration directory `dir` with the
/// hook argv `install` (program first), or removing it (`None`); see the module docs.
/// Reads, writes nothing.
///
/// Errors: [`InstallError::Shape`] when a plugin file of that name is not Attend's
/// (install only), [`InstallError::Io`].
pub(super) fn plan(
    host: Host,
    dir: &Path,
    install: Option<&[String]>,
) -> Result<Planned, InstallError> {
    let dir = dir.to_path_buf();
    let plugin = files::resolve(dir.join(PLUGIN_DIR).join(PLUGIN_FILE));
    let lock = dir.join(LOCK);
    let modules = dir.join(MODULES);
    let plugin_before = files::read_optional(&plugin)?;
    let lock_before = files::read_optional(&lock)?;
    let ours = plugin_before.as_deref().is_some_and(is_ours);
    let mut dir_changes = Vec::new();
    let (plugin_after, lock_after) = if let Some(argv) = install {
        if plugin_before.is_some() && !ours {
            return Err(InstallError::Shape {
                path: plugin,
                message: "a plugin of that name is there that is not Attend's".into(),
            });
        }
        let seed = lock_before.is_none() && !modules.exists() && !dir.join(PACKAGE).exists();
        if seed {
            dir_changes.push((modules.clone(), true));
        }
        let lock_after = if seed {
            Some(host.seed.to_string())
        } else {
            lock_before.clone()
        };
        (Some(plugin_text(argv)), lock_after)
    } else {
        let seeded = lock_before.as_deref() == Some(host.seed) && files::is_empty_dir(&modules);
        let plugin_after = if ours { None } else { plugin_before.clone() };
        let lock_after = if seeded { None } else { lock_before.clone() };
        // What is left in the directories once the plugin and the seed are gone.
        let mut gone: Vec<PathBuf> = Vec::new();
        if ours && only_entry(plugin.parent().unwrap_or(&dir), PLUGIN_FILE) {
            gone.push(dir.join(PLUGIN_DIR));
        }
        if seeded {
            gone.extend([lock.clone(), modules.clone()]);
            dir_changes.push((modules.clone(), false));
        }
        if ours && gone.contains(&dir.join(PLUGIN_DIR)) {
            dir_changes.push((dir.join(PLUGIN_DIR), false));
        }
        if !gone.is_empty() && entries(&dir).iter().all(|e| gone.contains(e)) {
            dir_changes.push((dir.clone(), false));
        }
        (plugin_after, lock_after)
    };
    Ok(Planned {
        files: vec![
            (plugin, plugin_before, plugin_after),
            (lock, lock_before, lock_after),
        ],
        dirs: dir_changes,
    })
}

/// The entries of `dir` (none when it cannot be read).
fn entries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|it| it.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default()
}

/// True when `name` is the only entry of `dir`.
fn only_entry(dir: &Path, name: &str) -> bool {
    let found = entries(dir);
    found.len() == 1 && found[0].file_name().is_some_and(|n| n == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hook_line_is_replaced_and_nothing_else() {
        let argv = vec!["/opt/my attend/attend-hook".to_string(), "opencode".into()];
        let text = plugin_text(&argv);
        assert!(text.contains("\nconst HOOK = [\"/opt/my attend/attend-hook\", \"opencode\"];\n"));
        assert_eq!(text.lines().count(), PLUGIN.lines().count());
        let differing = text
            .lines()
            .zip(PLUGIN.lines())
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(differing, 1);
        assert!(is_ours(&text) && is_ours(PLUGIN));
        // The shipped file runs the hook executable from PATH.
        assert_eq!(
            plugin_text(&["attend-hook".into(), "opencode".into()]),
            PLUGIN
        );
    }
}
