//! The CLI's side of git worktrees for agents (`docs/worktrees.md`): `attend run
//! --worktree BRANCH [--base REF]` makes the worktree before asking the daemon to run the
//! agent there; `attend rm` says where a removed pane's worktree stays, and with
//! `--worktree` removes it once it is clean. Git runs in
//! [`crate::system::worktree::git`]; the decisions are [`crate::system::worktree::plan`]'s.

use super::client::CliError;
use crate::client::wire::WirePane;
use crate::system::worktree::git::{self, Created, WorktreeError};
use crate::system::worktree::plan::{Place, Request};
use std::path::{Path, PathBuf};

impl From<WorktreeError> for CliError {
    fn from(e: WorktreeError) -> CliError {
        CliError::bad_input(e.to_string())
    }
}

/// Where new worktrees go: `[worktrees] dir` of `config.toml`, else beside the repository.
fn place() -> Place {
    match crate::settings::read().settings.worktrees.dir {
        Some(dir) => Place::Under(dir),
        None => Place::NextToRepo,
    }
}

/// Makes the worktree of `branch` (from `base`) for the repository of `cwd`. Exit 2 for
/// a folder outside a git repository, a refused branch or folder, a failed `git worktree
/// add`.
pub fn make(cwd: &Path, branch: &str, base: Option<&str>) -> Result<Created, CliError> {
    let req = Request {
        branch: branch.to_string(),
        base: base.map(String::from),
    };
    Ok(git::create(cwd, &req, &place())?)
}

/// Takes back a worktree [`make`] just made for a pane that then did not start (never
/// forced; its branch stays). Says so on stderr.
pub fn undo(made: &Created) {
    match git::remove(&made.path) {
        Ok(()) => eprintln!(
            "attend: the worktree {} was removed again (branch {} stays)",
            made.path.display(),
            made.branch
        ),
        Err(e) => eprintln!("attend: the worktree {} stays: {e}", made.path.display()),
    }
}

/// A pane's worktree, read before the pane goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneWorktree {
    /// The pane's id.
    pub pane: String,
    /// The worktree's folder.
    pub path: PathBuf,
    /// The branch the pane showed last.
    pub branch: Option<String>,
}

/// The worktrees of those of `panes` that have one Attend made.
pub fn of_panes(panes: &[WirePane], ids: &[String]) -> Vec<PaneWorktree> {
    panes
        .iter()
        .filter(|p| ids.contains(&p.id))
        .filter_map(|p| {
            Some(PaneWorktree {
                pane: p.id.clone(),
                path: PathBuf::from(p.worktree.as_ref()?),
                branch: p.branch.clone(),
            })
        })
        .collect()
}

/// `attend rm --worktree PANE…` before anything goes: every named pane has a worktree
/// Attend made, and each is clean or its folder is gone already
/// (`docs/worktrees.md#removing`). Exit 2 naming the pane or the changes otherwise.
pub fn check_removable(ids: &[String], worktrees: &[PaneWorktree]) -> Result<(), CliError> {
    for id in ids {
        let Some(w) = worktrees.iter().find(|w| &w.pane == id) else {
            return Err(CliError::bad_input(format!(
                "{id} has no worktree Attend made (attend run --worktree); nothing was removed"
            )));
        };
        // A folder already gone holds nothing to lose: the pane may go.
        if w.path.exists() {
            git::check_clean(&w.path).map_err(|e| CliError::bad_input(format!("{id}: {e}")))?;
        }
    }
    Ok(())
}

/// After the panes went: removes each worktree of a removed pane when `remove` (else it
/// stays), saying on stderr what happened to each. Returns the JSON entries
/// (`{"pane", "path", "branch", "removed"}`) and the first failure.
pub fn after_removal(
    worktrees: &[PaneWorktree],
    removed: &[String],
    remove: bool,
    dry_run: bool,
) -> (Vec<serde_json::Value>, Option<CliError>) {
    let mut entries = Vec::new();
    let mut failure = None;
    for w in worktrees.iter().filter(|w| removed.contains(&w.pane)) {
        let branch = w.branch.clone().unwrap_or_else(|| "-".into());
        let path = w.path.display();
        let gone = if !remove {
            let verb = if dry_run { "would stay" } else { "stays" };
            eprintln!(
                "attend: {}: its worktree {verb} at {path} (branch {branch}); \
                 `git worktree remove {path}` removes it",
                w.pane
            );
            false
        } else if !w.path.exists() {
            eprintln!(
                "attend: {}: its worktree folder {path} was already gone; branch {branch} \
                 stays; `git worktree prune` in its repository drops git's record of it",
                w.pane
            );
            false
        } else {
            match git::remove(&w.path) {
                Ok(()) => {
                    eprintln!(
                        "attend: {}: worktree {path} removed; branch {branch} stays",
                        w.pane
                    );
                    true
                }
                Err(e) => {
                    failure.get_or_insert_with(|| {
                        CliError::bad_input(format!(
                            "{}: the pane went but its worktree stays: {e}",
                            w.pane
                        ))
                    });
                    false
                }
            }
        };
        entries.push(serde_json::json!({
            "pane": w.pane,
            "path": w.path.to_string_lossy(),
            "branch": w.branch,
            "removed": gone,
        }));
    }
    (entries, failure)
}
