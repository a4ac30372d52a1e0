//! The user's settings: `$XDG_CONFIG_HOME/attend/config.toml` (else
//! `~/.config/attend/config.toml`), read once when the daemon starts
//! (`docs/configuration.md`).
//!
//! ```toml
//! [notifications]
//! # Which attention levels raise a desktop notification. `unread` means
//! # "after a completion" (agent.done). Default: everything but warning.
//! levels = ["permission_required", "input_required", "error", "unread"]
//!
//! [panes]
//! # Remove exited, reviewed panes this long after their exit (humantime: "12h", "3d").
//! # Absent (the default): never. The rule: docs/lifecycle-attention.md#removing-panes.
//! remove_exited_after = "3d"
//!
//! [sound]
//! # Which notifications come with a sound, for which agents (default: none).
//! levels = ["permission", "input", "error"]
//! agents = ["claude"]
//!
//! [away]
//! # Push a gate or question left open while the user is away (docs/away.md). Off.
//! enabled = true
//! ntfy_topic = "attend-…"
//!
//! [tmux]
//! # Follow the user's tmux (docs/tmux.md): on by default; "agents" or "all" panes.
//! follow = true
//! panes = "agents"
//!
//! [worktrees]
//! # Where `attend run --worktree BRANCH` puts new git worktrees (docs/worktrees.md):
//! # DIR/REPO/BRANCH. Absent (the default): beside the repository, REPO.worktrees/BRANCH.
//! dir = "/home/me/worktrees"
//!
//! [remote.buildbox]
//! # Link to the Attend daemon of another machine (docs/decisions/0014-remote-link.md).
//! target = "me@buildbox:22"
//! ```
//!
//! Lenient by entry (`docs/configuration.md#bad-entries`): a bad entry (an unknown level,
//! key or table, a value of the wrong kind) is a [`Problem`] and only that entry falls
//! back to its default; the others stay in force. The daemon logs each problem once as a
//! warning ([`load`]); `attend config check` prints them and exits 2 ([`read`]).

mod away;
pub mod carrier;
mod levels;
mod problem;
pub mod remote;
mod sound;
mod tmux;
mod worktrees;

pub use away::{Away, Ntfy, Secret, DEFAULT_AWAY_DELAY, DEFAULT_NTFY_SERVER};
pub use levels::level;
pub use problem::Problem;
pub use remote::{Remote, Target};
pub use sound::{Sound, DEFAULT_THEME};
pub use tmux::{Tmux, TmuxPanes};
pub use worktrees::Worktrees;

use crate::model::Attention;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;
use toml_edit::{DocumentMut, TableLike};

/// The tables `config.toml` has.
const TABLES: [&str; 7] = [
    "notifications",
    "panes",
    "sound",
    "away",
    "remote",
    "tmux",
    "worktrees",
];

/// Everything `config.toml` sets, defaults where it says nothing (or something bad).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Levels that raise a notification (`docs/desktop-surfaces.md#which-levels-notify`:
    /// permission, input, error and unread after a completion; warning off by default).
    pub notify_levels: BTreeSet<Attention>,
    /// `[panes] remove_exited_after`: the age after which exited, reviewed panes are
    /// removed (`docs/lifecycle-attention.md#removing-panes`); `None`: never.
    pub remove_exited_after: Option<Duration>,
    /// `[sound]`: which notifications come with a sound (`docs/configuration.md#sound`);
    /// none by default.
    pub sound: Sound,
    /// `[away]`: pushing gates and questions to a phone while the user is away
    /// (`docs/away.md`); off by default.
    pub away: Away,
    /// `[remote.NAME]`: the other machines' Attend daemons to link to
    /// (`docs/decisions/0014-remote-link.md`), in file order; none by default.
    pub remotes: Vec<Remote>,
    /// `[tmux]`: following the user's tmux (`docs/tmux.md#configuration`); on, for
    /// agent panes, by default.
    pub tmux: Tmux,
    /// `[worktrees]`: where `attend run --worktree` puts new git worktrees
    /// (`docs/worktrees.md#where-worktrees-go`); beside the repository by default.
    pub worktrees: Worktrees,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            notify_levels: [
                Attention::PermissionRequired,
                Attention::InputRequired,
                Attention::Error,
                Attention::Unread,
            ]
            .into_iter()
            .collect(),
            remove_exited_after: None,
            sound: Sound::default(),
            away: Away::default(),
            remotes: Vec::new(),
            tmux: Tmux::default(),
            worktrees: Worktrees::default(),
        }
    }
}

impl Settings {
    /// Parses the text of `config.toml`: the settings, the defaults for every entry that
    /// is absent or bad, and one [`Problem`] per bad entry (text that is no TOML at all is
    /// one problem, entry `config.toml`, and gives the defaults).
    pub fn parse(text: &str) -> (Settings, Vec<Problem>) {
        let mut settings = Settings::default();
        let mut problems = Vec::new();
        let doc = match text.parse::<DocumentMut>() {
            Ok(d) => d,
            Err(e) => {
                let e = e.to_string().replace('\n', " ");
                let e = e.split_whitespace().collect::<Vec<_>>().join(" ");
                problems.push(Problem::new("config.toml", format!("not TOML: {e}")));
                return (settings, problems);
            }
        };
        for (name, item) in doc.iter() {
            let Some(table) = item.as_table_like() else {
                problems.push(Problem::new(
                    name,
                    format!("not a table (accepted tables: {})", TABLES.join(", ")),
                ));
                continue;
            };
            match name {
                "notifications" => settings.read_notifications(table, &mut problems),
                "panes" => settings.read_panes(table, &mut problems),
                "sound" => settings.sound.read(table, &mut problems),
                "away" => settings.away.read(table, &mut problems),
                "remote" => remote::read(table, &mut settings.remotes, &mut problems),
                "tmux" => settings.tmux.read(table, &mut problems),
                "worktrees" => settings.worktrees.read(table, &mut problems),
                other => problems.push(Problem::new(
                    format!("[{other}]"),
                    format!("unknown table (accepted: {})", TABLES.join(", ")),
                )),
            }
        }
        (settings, problems)
    }

    fn read_notifications(&mut self, table: &dyn TableLike, problems: &mut Vec<Problem>) {
        for (key, item) in table.iter() {
            match key {
                "levels" => {
                    if let Some(l) = levels::read("notifications.levels", item, problems) {
                        self.notify_levels = l;
                    }
                }
                other => problems.push(Problem::unknown_key("notifications", other, &["levels"])),
            }
        }
    }

    fn read_panes(&mut self, table: &dyn TableLike, problems: &mut Vec<Problem>) {
        const ENTRY: &str = "panes.remove_exited_after";
        for (key, item) in table.iter() {
            if key != "remove_exited_after" {
                problems.push(Problem::unknown_key("panes", key, &["remove_exited_after"]));
                continue;
            }
            let Some(value) = item.as_str() else {
                problems.push(Problem::new(
                    ENTRY,
                    "not a duration string (accepted: a humantime duration such as \"12h\", \
                     \"3d\", \"1w\")",
                ));
                continue;
            };
            match humantime::parse_duration(value.trim()) {
                Ok(d) if !d.is_zero() => self.remove_exited_after = Some(d),
                Ok(_) => problems.push(Problem::new(ENTRY, "must be longer than zero")),
                Err(e) => problems.push(Problem::new(
                    ENTRY,
                    format!("{value:?} is not a duration (accepted: 12h, 3d, 1w, …): {e}"),
                )),
            }
        }
    }
}

/// What [`read`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// The file read ([`config_path`]); `None` without `XDG_CONFIG_HOME` and `HOME`.
    pub path: Option<PathBuf>,
    /// Whether the file exists.
    pub found: bool,
    pub settings: Settings,
    /// The bad entries (an unreadable file is one problem, entry `config.toml`).
    pub problems: Vec<Problem>,
}

/// Reads [`config_path`]: a missing file gives the defaults and no problem.
pub fn read() -> Loaded {
    let path = config_path();
    let mut loaded = Loaded {
        path: path.clone(),
        found: false,
        settings: Settings::default(),
        problems: Vec::new(),
    };
    let Some(path) = path else {
        return loaded;
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            loaded.found = true;
            (loaded.settings, loaded.problems) = Settings::parse(&text);
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            loaded.found = true;
            loaded
                .problems
                .push(Problem::new("config.toml", format!("cannot be read: {e}")));
        }
    }
    loaded
}

/// [`read`], logging one warning per bad entry (the file, the entry, what it accepts) and
/// what the settings in force are.
pub fn load() -> Settings {
    let loaded = read();
    let path = loaded
        .path
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    for p in &loaded.problems {
        tracing::warn!(
            path = %path,
            "config.toml: {p}; that entry is ignored (`attend config check` lists every bad entry)"
        );
    }
    if let Some(age) = loaded.settings.remove_exited_after {
        let age = humantime::format_duration(age);
        tracing::info!(%age, "exited, reviewed panes are removed this long after their exit");
    }
    loaded.settings
}

/// `$XDG_CONFIG_HOME/attend/config.toml` (an absolute `XDG_CONFIG_HOME`), else
/// `$HOME/.config/attend/config.toml`; `None` without either.
pub fn config_path() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    let base = xdg.or_else(|| {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".config"))
    })?;
    Some(base.join("attend").join("config.toml"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Settings {
        let (s, problems) = Settings::parse(text);
        assert_eq!(problems, [], "{text}");
        s
    }

    #[test]
    fn defaults_warning_off_and_no_automatic_removal() {
        let s = ok("");
        assert_eq!(s, Settings::default());
        assert!(!s.notify_levels.contains(&Attention::Warning));
        assert!(s.notify_levels.contains(&Attention::Unread));
        assert_eq!(s.remove_exited_after, None);
        assert_eq!(ok("[panes]\n"), Settings::default());
    }

    #[test]
    fn levels_are_configurable_by_wire_name_or_short_word() {
        let s = ok("[notifications]\nlevels = [\"permission\", \"warning\"]\n");
        let want: BTreeSet<_> = [Attention::PermissionRequired, Attention::Warning].into();
        assert_eq!(s.notify_levels, want);
        assert!(ok("[notifications]\nlevels = []\n")
            .notify_levels
            .is_empty());
    }

    #[test]
    fn the_age_is_a_humantime_duration() {
        let day = Duration::from_secs(86_400);
        let s = ok("[panes]\nremove_exited_after = \"3d\"\n");
        assert_eq!(s.remove_exited_after, Some(3 * day));
        let s = ok("[panes]\nremove_exited_after = \"2h 30m\"\n");
        assert_eq!(s.remove_exited_after, Some(Duration::from_secs(9_000)));
    }

    /// One bad entry is one problem naming it and what is accepted; every valid entry,
    /// in the same list or elsewhere, stays in force.
    #[test]
    fn a_bad_entry_is_one_problem_and_the_valid_ones_stay() {
        let (s, problems) = Settings::parse(
            "[notifications]\nlevels = [\"permission\", \"loud\", \"error\"]\n\
             [panes]\nremove_exited_after = \"3d\"\n",
        );
        let want: BTreeSet<_> = [Attention::PermissionRequired, Attention::Error].into();
        assert_eq!(s.notify_levels, want);
        assert_eq!(s.remove_exited_after, Some(Duration::from_secs(3 * 86_400)));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(
            problems[0].to_string(),
            "notifications.levels: unknown level \"loud\" (accepted: permission_required, \
             input_required, error, warning, unread (or permission, input, question))"
        );
    }

    #[test]
    fn sound_is_off_by_default_and_set_per_level_and_agent() {
        use crate::model::AgentKind::{Claude, Codex};
        let off = ok("");
        assert!(!off.sound.wanted(Attention::PermissionRequired, Claude));
        assert_eq!(off.sound.theme, DEFAULT_THEME);
        let s = ok("[sound]\nlevels = [\"permission\", \"error\"]\n");
        assert!(s.sound.wanted(Attention::PermissionRequired, Codex));
        assert!(!s.sound.wanted(Attention::Unread, Codex));
        let s =
            ok("[sound]\nlevels = [\"permission\"]\nagents = [\"claude\"]\ntheme = \"ocean\"\n");
        assert!(s.sound.wanted(Attention::PermissionRequired, Claude));
        assert!(!s.sound.wanted(Attention::PermissionRequired, Codex));
        assert_eq!(s.sound.theme, "ocean");
        let (s, problems) = Settings::parse(
            "[sound]\nlevels = [\"error\", \"beep\"]\nagents = [\"claude\", \"vim\"]\n\
             theme = \"../x\"\nvolume = 3\n",
        );
        let entries: Vec<&str> = problems.iter().map(|p| p.entry.as_str()).collect();
        assert_eq!(
            entries,
            [
                "sound.levels",
                "sound.agents",
                "sound.theme",
                "sound.volume"
            ]
        );
        assert!(problems[1]
            .message
            .contains(&crate::model::AgentKind::names(false)));
        assert!(s.sound.wanted(Attention::Error, Claude));
        assert!(!s.sound.wanted(Attention::Error, Codex));
        assert_eq!(s.sound.theme, DEFAULT_THEME);
    }

    #[test]
    fn unknown_keys_tables_and_wrong_kinds_are_problems() {
        let entries = |text: &str| -> Vec<String> {
            Settings::parse(text)
                .1
                .into_iter()
                .map(|p| p.entry)
                .collect()
        };
        assert_eq!(
            entries("[notifications]\nlevel = []\n"),
            ["notifications.level"]
        );
        assert_eq!(
            entries("[panes]\nremove_after = \"1d\"\n"),
            ["panes.remove_after"]
        );
        assert_eq!(
            entries("[panes]\nremove_exited_after = 5\n"),
            ["panes.remove_exited_after"]
        );
        assert_eq!(
            entries("[panes]\nremove_exited_after = \"soon\"\n"),
            ["panes.remove_exited_after"]
        );
        assert_eq!(
            entries("[panes]\nremove_exited_after = \"0s\"\n"),
            ["panes.remove_exited_after"]
        );
        assert_eq!(entries("[notification]\n"), ["[notification]"]);
        assert_eq!(entries("levels = 3\n"), ["levels"]);
        assert_eq!(
            entries("[notifications]\nlevels = \"error\"\n"),
            ["notifications.levels"]
        );
        let (s, problems) = Settings::parse("[notifications\n");
        assert_eq!(s, Settings::default());
        assert_eq!(problems[0].entry, "config.toml");
        assert!(!problems[0].message.contains('\n'), "{problems:?}");
    }
}
