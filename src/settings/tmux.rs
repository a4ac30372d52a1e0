//! `[tmux]` of `config.toml` (`docs/tmux.md#configuration`): whether Attend follows the
//! user's tmux, which of its panes, and sockets to follow besides the default one.

use super::problem::Problem;
use toml_edit::TableLike;

/// Which tmux panes become Attend panes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TmuxPanes {
    /// Only panes whose process tree runs a known agent (the default).
    #[default]
    Agents,
    /// Every pane, plain shells too.
    All,
}

/// The `[tmux]` settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tmux {
    /// `follow` (default true): follow the user's tmux servers at all.
    pub follow: bool,
    /// `panes` (default `"agents"`).
    pub panes: TmuxPanes,
    /// `sockets`: socket paths of servers to follow besides the user's default socket
    /// and those hooks name (absolute paths; default none).
    pub sockets: Vec<String>,
}

impl Default for Tmux {
    fn default() -> Tmux {
        Tmux {
            follow: true,
            panes: TmuxPanes::Agents,
            sockets: Vec::new(),
        }
    }
}

const KEYS: [&str; 3] = ["follow", "panes", "sockets"];

impl Tmux {
    /// Reads the `[tmux]` table; a bad entry is a problem and keeps its default.
    pub(super) fn read(&mut self, table: &dyn TableLike, problems: &mut Vec<Problem>) {
        for (key, item) in table.iter() {
            match key {
                "follow" => match item.as_bool() {
                    Some(b) => self.follow = b,
                    None => problems.push(Problem::new("tmux.follow", "not true or false")),
                },
                "panes" => match item.as_str() {
                    Some("agents") => self.panes = TmuxPanes::Agents,
                    Some("all") => self.panes = TmuxPanes::All,
                    _ => problems.push(Problem::new(
                        "tmux.panes",
                        "not a kind of panes (accepted: \"agents\", \"all\")",
                    )),
                },
                "sockets" => {
                    let list: Option<Vec<String>> = item.as_array().and_then(|a| {
                        a.iter()
                            .map(|v| v.as_str().filter(|s| s.starts_with('/')).map(String::from))
                            .collect()
                    });
                    match list {
                        Some(l) => self.sockets = l,
                        None => problems.push(Problem::new(
                            "tmux.sockets",
                            "not a list of absolute socket paths",
                        )),
                    }
                }
                other => problems.push(Problem::unknown_key("tmux", other, &KEYS)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Settings;
    use super::*;

    #[test]
    fn tmux_is_followed_for_agents_by_default_and_configurable() {
        let (s, p) = Settings::parse("");
        assert!(p.is_empty());
        assert_eq!(s.tmux, Tmux::default());
        assert!(s.tmux.follow && s.tmux.panes == TmuxPanes::Agents);
        let (s, p) =
            Settings::parse("[tmux]\nfollow = false\npanes = \"all\"\nsockets = [\"/tmp/t/s\"]\n");
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(
            s.tmux,
            Tmux {
                follow: false,
                panes: TmuxPanes::All,
                sockets: vec!["/tmp/t/s".into()]
            }
        );
    }

    #[test]
    fn a_bad_tmux_entry_is_a_problem_and_keeps_its_default() {
        let (s, p) = Settings::parse(
            "[tmux]\nfollow = \"yes\"\npanes = \"shells\"\nsockets = [\"rel\"]\nwatch = 1\n",
        );
        assert_eq!(s.tmux, Tmux::default());
        let entries: Vec<&str> = p.iter().map(|p| p.entry.as_str()).collect();
        assert_eq!(
            entries,
            ["tmux.follow", "tmux.panes", "tmux.sockets", "tmux.watch"]
        );
    }
}
