//! The thin shell of worktrees for agents (`docs/worktrees.md`): runs `git` to read the
//! facts [`super::plan`] decides from and to carry its decision out. Every error is one
//! sentence for a person ([`WorktreeError`]).

use super::plan::{self, Add, Facts, Place, Refusal, Request};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Why a worktree was not made or not removed.
#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    /// The folder is not inside a git repository (or git is not installed).
    #[error("{0} is not in a git repository")]
    NotARepo(PathBuf),
    /// The plan refused (what is in the way is named).
    #[error("{0}")]
    Refused(#[from] Refusal),
    /// A git command failed: the command and git's own message.
    #[error("`{argv}` failed: {message}")]
    Git {
        /// The command line that failed.
        argv: String,
        /// Git's stderr on one line (else its exit status).
        message: String,
    },
}

/// A worktree made by [`create`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Created {
    /// Its folder.
    pub path: PathBuf,
    /// The branch checked out there.
    pub branch: String,
    /// True when the branch was made for it.
    pub new_branch: bool,
}

/// Runs `argv` (`git …`) with no input; its stdout, or [`WorktreeError::Git`] with git's
/// stderr.
fn run(argv: &[String]) -> Result<Vec<u8>, WorktreeError> {
    let failed = |message: String| WorktreeError::Git {
        argv: argv.join(" "),
        message,
    };
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::null())
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .map_err(|e| failed(e.to_string()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let err = err.split_whitespace().collect::<Vec<_>>().join(" ");
        return Err(failed(if err.is_empty() {
            format!("exit status {}", out.status)
        } else {
            err
        }));
    }
    Ok(out.stdout)
}

fn git(dir: &Path, args: &[&str]) -> Vec<String> {
    let mut argv = vec![
        "git".to_string(),
        "-C".into(),
        dir.to_string_lossy().into_owned(),
    ];
    argv.extend(args.iter().map(|a| a.to_string()));
    argv
}

/// The git top level of `dir`; [`WorktreeError::NotARepo`] outside a repository.
pub fn toplevel(dir: &Path) -> Result<PathBuf, WorktreeError> {
    let out = run(&git(dir, &["rev-parse", "--show-toplevel"]))
        .map_err(|_| WorktreeError::NotARepo(dir.to_path_buf()))?;
    let text = String::from_utf8_lossy(&out);
    let top = text.trim_end_matches(['\n', '\r']);
    if top.is_empty() {
        return Err(WorktreeError::NotARepo(dir.to_path_buf()));
    }
    Ok(PathBuf::from(top))
}

/// The repository's worktrees, the main one first (`git worktree list --porcelain`).
pub fn list(dir: &Path) -> Result<Vec<plan::Listed>, WorktreeError> {
    let out = run(&git(dir, &["worktree", "list", "--porcelain"]))?;
    Ok(plan::parse_list(&String::from_utf8_lossy(&out)))
}

/// Makes the worktree `req` asks for in the repository of `dir`, at [`plan::target`] for
/// `place` (`docs/worktrees.md#making-one`): git checks the branch name
/// (`check-ref-format --branch`), [`plan::plan`] decides, `git worktree add` does it.
pub fn create(dir: &Path, req: &Request, place: &Place) -> Result<Created, WorktreeError> {
    let top = toplevel(dir)?;
    plan::check_branch(&req.branch)?;
    run(&git(&top, &["check-ref-format", "--branch", &req.branch])).map_err(|_| {
        Refusal::BadBranch {
            branch: req.branch.clone(),
            why: "git does not take it (git check-ref-format --branch)",
        }
    })?;
    let worktrees = list(&top)?;
    let main = worktrees
        .first()
        .map(|w| w.path.clone())
        .ok_or(Refusal::NoMainWorktree)?;
    let branch_ref = format!("refs/heads/{}", req.branch);
    let branch_exists = run(&git(
        &top,
        &["show-ref", "--verify", "--quiet", &branch_ref],
    ))
    .is_ok();
    let path = plan::target(&main, &req.branch, place);
    let facts = Facts {
        toplevel: top,
        worktrees,
        branch_exists,
        target_exists: path.symlink_metadata().is_ok(),
    };
    let Add {
        path,
        argv,
        new_branch,
    } = plan::plan(req, &facts, &path)?;
    run(&argv)?;
    Ok(Created {
        path,
        branch: req.branch.clone(),
        new_branch,
    })
}

/// The uncommitted and untracked paths of the worktree at `path`
/// (`git status --porcelain=v1 -z --untracked-files=all`).
pub fn changes(path: &Path) -> Result<Vec<String>, WorktreeError> {
    let out = run(&git(
        path,
        &["status", "--porcelain=v1", "-z", "--untracked-files=all"],
    ))?;
    Ok(plan::parse_status(&out))
}

/// Refuses ([`Refusal::Dirty`]) while the worktree at `path` holds changes; a folder
/// that is gone or no worktree any more is an error too.
pub fn check_clean(path: &Path) -> Result<(), WorktreeError> {
    if !path.is_dir() {
        return Err(WorktreeError::NotARepo(path.to_path_buf()));
    }
    Ok(plan::check_clean(path, changes(path)?)?)
}

/// Removes the clean worktree at `path` (`git worktree remove`, never forced: git refuses
/// one that changed since [`check_clean`]); its branch stays.
pub fn remove(path: &Path) -> Result<(), WorktreeError> {
    check_clean(path)?;
    let main = list(path)?
        .first()
        .map(|w| w.path.clone())
        .ok_or(Refusal::NoMainWorktree)?;
    run(&plan::remove_argv(&main, path))?;
    Ok(())
}
