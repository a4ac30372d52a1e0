//! `[worktrees]` of `config.toml` (`docs/worktrees.md#where-worktrees-go`): where `attend
//! run --worktree` puts new git worktrees.

use super::problem::Problem;
use std::path::PathBuf;
use toml_edit::TableLike;

/// The `[worktrees]` settings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Worktrees {
    /// `dir`: an absolute folder; worktrees go to `DIR/REPO/BRANCH`. `None` (the
    /// default): beside the repository, `REPO.worktrees/BRANCH`.
    pub dir: Option<PathBuf>,
}

const KEYS: [&str; 1] = ["dir"];

impl Worktrees {
    /// Reads the `[worktrees]` table; a bad entry is a problem and keeps its default.
    pub(super) fn read(&mut self, table: &dyn TableLike, problems: &mut Vec<Problem>) {
        for (key, item) in table.iter() {
            match key {
                "dir" => match item.as_str().filter(|s| s.starts_with('/')) {
                    Some(d) => self.dir = Some(PathBuf::from(d)),
                    None => problems.push(Problem::new(
                        "worktrees.dir",
                        "not an absolute folder (\"/home/me/worktrees\")",
                    )),
                },
                other => problems.push(Problem::unknown_key("worktrees", other, &KEYS)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Settings;
    use super::*;

    #[test]
    fn worktrees_go_beside_the_repository_unless_a_folder_is_set() {
        let (s, p) = Settings::parse("");
        assert!(p.is_empty());
        assert_eq!(s.worktrees.dir, None);
        let (s, p) = Settings::parse("[worktrees]\ndir = \"/home/me/wt\"\n");
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(s.worktrees.dir, Some(PathBuf::from("/home/me/wt")));
    }

    #[test]
    fn a_relative_folder_or_unknown_key_is_a_problem() {
        let (s, p) = Settings::parse("[worktrees]\ndir = \"wt\"\nroot = 1\n");
        assert_eq!(s.worktrees, Worktrees::default());
        let entries: Vec<&str> = p.iter().map(|p| p.entry.as_str()).collect();
        assert_eq!(entries, ["worktrees.dir", "worktrees.root"]);
    }
}
