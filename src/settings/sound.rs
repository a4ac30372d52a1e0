//! The `[sound]` table of `config.toml` (`docs/configuration.md#sound`): which
//! notifications come with a sound, for which agents, from which XDG sound theme. Off by
//! default (no levels).
//!
//! ```toml
//! [sound]
//! levels = ["permission", "input", "error"]   # default: none (off)
//! agents = ["claude", "codex"]                # default: every agent
//! theme = "freedesktop"                       # the XDG sound theme (default freedesktop)
//! ```

use super::levels;
use super::problem::Problem;
use crate::model::{AgentKind, Attention};
use std::collections::BTreeSet;
use toml_edit::TableLike;

/// The theme every sound-theme lookup ends in (XDG Sound Theme spec).
pub const DEFAULT_THEME: &str = "freedesktop";

const KEYS: [&str; 3] = ["levels", "agents", "theme"];

/// The sound settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sound {
    /// The levels whose notifications come with a sound; empty (the default): no sound.
    pub levels: BTreeSet<Attention>,
    /// The agents whose panes' notifications do; `None` (the default): every agent.
    pub agents: Option<BTreeSet<AgentKind>>,
    /// The XDG sound theme the sound file is looked up in when Attend plays it itself.
    pub theme: String,
}

impl Default for Sound {
    fn default() -> Sound {
        Sound {
            levels: BTreeSet::new(),
            agents: None,
            theme: DEFAULT_THEME.to_string(),
        }
    }
}

impl Sound {
    /// Whether a notification at `level` for a pane of `agent` comes with a sound.
    pub fn wanted(&self, level: Attention, agent: AgentKind) -> bool {
        self.levels.contains(&level) && self.agents.as_ref().map_or(true, |a| a.contains(&agent))
    }

    /// Reads the `[sound]` table; each bad entry is a [`Problem`] and keeps its default.
    pub fn read(&mut self, table: &dyn TableLike, problems: &mut Vec<Problem>) {
        for (key, item) in table.iter() {
            match key {
                "levels" => {
                    if let Some(l) = levels::read("sound.levels", item, problems) {
                        self.levels = l;
                    }
                }
                "agents" => {
                    let Some(array) = item.as_array() else {
                        problems.push(Problem::new(
                            "sound.agents",
                            format!(
                                "not a list of agents (accepted: {})",
                                AgentKind::names(false)
                            ),
                        ));
                        continue;
                    };
                    let mut agents = BTreeSet::new();
                    for v in array.iter() {
                        match v.as_str().and_then(AgentKind::parse) {
                            Some(a) => {
                                agents.insert(a);
                            }
                            None => problems.push(Problem::new(
                                "sound.agents",
                                format!(
                                    "unknown agent {} (accepted: {})",
                                    v.to_string().trim(),
                                    AgentKind::names(false)
                                ),
                            )),
                        }
                    }
                    self.agents = Some(agents);
                }
                "theme" => match item.as_str() {
                    Some(t) if is_theme_name(t) => self.theme = t.to_string(),
                    _ => problems.push(Problem::new(
                        "sound.theme",
                        format!(
                            "{} is not a sound theme name (accepted: the name of a directory \
                             under a sounds directory, such as {DEFAULT_THEME:?}: ASCII, no \
                             slash, comma or space)",
                            item.to_string().trim()
                        ),
                    )),
                },
                other => problems.push(Problem::unknown_key("sound", other, &KEYS)),
            }
        }
    }
}

/// A theme name as the XDG Sound Theme spec allows it (ASCII, no comma or space) that is
/// one path component.
fn is_theme_name(t: &str) -> bool {
    !t.is_empty()
        && t != "."
        && t != ".."
        && t.chars()
            .all(|c| c.is_ascii_graphic() && c != '/' && c != ',')
}
