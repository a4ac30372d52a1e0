//! The pure half of git worktrees for agents (`docs/worktrees.md`,
//! `docs/decisions/0018-where-worktrees-go.md`): where a new worktree goes, the `git
//! worktree add` argv that makes it, why one is refused, and whether one may be removed.
//! No I/O: the facts come in read by the shell ([`super::git`]).

use std::fmt;
use std::path::{Path, PathBuf};

/// Where new worktrees go (`[worktrees] dir` of `config.toml`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Place {
    /// `REPO.worktrees/FOLDER` beside the repository's main worktree `REPO` (the default).
    #[default]
    NextToRepo,
    /// `DIR/REPO/FOLDER` under a configured absolute folder.
    Under(PathBuf),
}

/// One entry of `git worktree list --porcelain`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The worktree's folder.
    pub path: PathBuf,
    /// The branch checked out there (`refs/heads/` taken off); `None` when detached or bare.
    pub branch: Option<String>,
}

/// The facts [`plan`] decides from, read by the shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    /// The top level of the folder the agent was asked to run in (where `git worktree
    /// add` runs, so that the default base is that checkout's `HEAD`).
    pub toplevel: PathBuf,
    /// The repository's worktrees, the main one first (`git worktree list`).
    pub worktrees: Vec<Listed>,
    /// Whether `refs/heads/BRANCH` exists.
    pub branch_exists: bool,
    /// Whether the folder [`target`] names exists already.
    pub target_exists: bool,
}

/// What `attend run --worktree BRANCH [--base REF]` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The branch the worktree checks out (made when it does not exist).
    pub branch: String,
    /// The start of a new branch (default: the checkout's `HEAD`).
    pub base: Option<String>,
}

/// A worktree to add: where, and the argv that adds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Add {
    /// The new worktree's folder (absolute).
    pub path: PathBuf,
    /// `git -C TOPLEVEL worktree add …`.
    pub argv: Vec<String>,
    /// True when the branch is made by this add (`-b`); false when an existing branch is
    /// checked out.
    pub new_branch: bool,
}

/// Why a worktree is not added or not removed; each names what is in the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The branch name cannot be a branch (empty, a leading `-`, …): the name and why.
    BadBranch {
        /// The name asked for.
        branch: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// `--base` starts with `-` or is empty.
    BadBase(String),
    /// The branch exists and is checked out in that worktree already (git allows a branch
    /// in one worktree only).
    CheckedOut {
        /// The branch asked for.
        branch: String,
        /// The worktree that has it.
        path: PathBuf,
    },
    /// `--base` with a branch that exists: the branch already says where it starts.
    BaseWithExisting {
        /// The existing branch.
        branch: String,
        /// The `--base` given.
        base: String,
    },
    /// The target folder exists (another branch flattened to the same name, or a leftover).
    Exists(PathBuf),
    /// The repository lists no worktree (no main worktree to place the new one beside).
    NoMainWorktree,
    /// The worktree holds uncommitted or untracked changes: those paths (at most
    /// [`NAMED_CHANGES`] of them) and how many there are in all.
    Dirty {
        /// The worktree.
        path: PathBuf,
        /// The first changed paths, relative to it.
        changes: Vec<String>,
        /// How many changed paths there are.
        total: usize,
    },
}

impl std::error::Error for Refusal {}

/// How many changed paths a [`Refusal::Dirty`] names.
pub const NAMED_CHANGES: usize = 10;

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::BadBranch { branch, why } => {
                write!(f, "{branch:?} is not a branch name: {why}")
            }
            Refusal::BadBase(base) => write!(f, "{base:?} is not a revision"),
            Refusal::CheckedOut { branch, path } => write!(
                f,
                "branch {branch} is already checked out in the worktree {}",
                path.display()
            ),
            Refusal::BaseWithExisting { branch, base } => write!(
                f,
                "branch {branch} exists, so --base {base} has nothing to start; \
                 leave --base out to check {branch} out as it is"
            ),
            Refusal::Exists(p) => write!(f, "{} already exists", p.display()),
            Refusal::NoMainWorktree => write!(f, "the repository lists no worktree"),
            Refusal::Dirty {
                path,
                changes,
                total,
            } => {
                write!(
                    f,
                    "the worktree {} holds uncommitted or untracked changes: {}",
                    path.display(),
                    changes.join(", ")
                )?;
                if *total > changes.len() {
                    write!(f, " and {} more", total - changes.len())?;
                }
                write!(
                    f,
                    " (commit, stash or delete them first; nothing was removed)"
                )
            }
        }
    }
}

/// The folder name of a branch: `/` becomes `-` (`feature/login` → `feature-login`), so
/// every worktree is one folder deep and its name (the workspace's name) says the branch.
pub fn folder_name(branch: &str) -> String {
    branch.replace('/', "-")
}

/// The repository's name: the last component of its main worktree's folder.
pub fn repo_name(main: &Path) -> String {
    main.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".to_string())
}

/// Where the worktree of `branch` goes for a repository whose main worktree is `main`
/// (`docs/worktrees.md#where-worktrees-go`).
pub fn target(main: &Path, branch: &str, place: &Place) -> PathBuf {
    let repo = repo_name(main);
    let folder = folder_name(branch);
    match place {
        Place::NextToRepo => {
            let parent = main.parent().unwrap_or(Path::new("/"));
            parent.join(format!("{repo}.worktrees")).join(folder)
        }
        Place::Under(dir) => dir.join(repo).join(folder),
    }
}

/// The checks of a branch name Attend makes before git's own (`git check-ref-format
/// --branch`, which the shell runs): what could be read as an option or a path trick.
pub fn check_branch(branch: &str) -> Result<(), Refusal> {
    let why = if branch.is_empty() {
        Some("empty")
    } else if branch.starts_with('-') {
        Some("it starts with '-'")
    } else if branch.starts_with('/') || branch.ends_with('/') || branch.contains("//") {
        Some("an empty part between '/'")
    } else if branch.split('/').any(|part| part == "." || part == "..") {
        Some("a part that is '.' or '..'")
    } else if branch.chars().any(|c| c.is_control() || c.is_whitespace()) {
        Some("it holds a space or a control character")
    } else {
        None
    };
    match why {
        Some(why) => Err(Refusal::BadBranch {
            branch: branch.to_string(),
            why,
        }),
        None => Ok(()),
    }
}

/// Decides how `req` is carried out in the repository of `facts`, the worktree going to
/// `path` ([`target`]): a new branch from `--base` (default `HEAD`), an existing branch
/// checked out as it is, or a [`Refusal`] naming what is in the way.
pub fn plan(req: &Request, facts: &Facts, path: &Path) -> Result<Add, Refusal> {
    check_branch(&req.branch)?;
    if let Some(base) = &req.base {
        if base.is_empty() || base.starts_with('-') {
            return Err(Refusal::BadBase(base.clone()));
        }
    }
    if facts.worktrees.is_empty() {
        return Err(Refusal::NoMainWorktree);
    }
    if let Some(w) = facts
        .worktrees
        .iter()
        .find(|w| w.branch.as_deref() == Some(req.branch.as_str()))
    {
        return Err(Refusal::CheckedOut {
            branch: req.branch.clone(),
            path: w.path.clone(),
        });
    }
    if facts.branch_exists {
        if let Some(base) = &req.base {
            return Err(Refusal::BaseWithExisting {
                branch: req.branch.clone(),
                base: base.clone(),
            });
        }
    }
    if facts.target_exists {
        return Err(Refusal::Exists(path.to_path_buf()));
    }
    let mut argv: Vec<String> = vec![
        "git".into(),
        "-C".into(),
        facts.toplevel.to_string_lossy().into_owned(),
        "worktree".into(),
        "add".into(),
    ];
    let path_arg = path.to_string_lossy().into_owned();
    if facts.branch_exists {
        argv.extend([path_arg, req.branch.clone()]);
    } else {
        let base = req.base.clone().unwrap_or_else(|| "HEAD".to_string());
        argv.extend(["-b".into(), req.branch.clone(), path_arg, base]);
    }
    Ok(Add {
        path: path.to_path_buf(),
        argv,
        new_branch: !facts.branch_exists,
    })
}

/// The entries of `git worktree list --porcelain` (main worktree first); a `prunable`
/// entry whose folder is gone is listed as git lists it.
pub fn parse_list(porcelain: &str) -> Vec<Listed> {
    let mut out = Vec::new();
    let mut current: Option<Listed> = None;
    for line in porcelain.lines() {
        if let Some(path) = line.strip_prefix("worktree ") {
            out.extend(current.take());
            current = Some(Listed {
                path: PathBuf::from(path),
                branch: None,
            });
        } else if let Some(b) = line.strip_prefix("branch ") {
            if let Some(c) = current.as_mut() {
                c.branch = Some(b.strip_prefix("refs/heads/").unwrap_or(b).to_string());
            }
        }
    }
    out.extend(current);
    out
}

/// The paths `git status --porcelain=v1 -z --untracked-files=all` reports: every
/// modified, staged, deleted, conflicted and untracked path (ignored files are not
/// listed: they go with the worktree, `docs/worktrees.md#removing`). A rename's entry is
/// followed by its old path, which is skipped.
pub fn parse_status(porcelain_z: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut fields = porcelain_z.split(|b| *b == 0).filter(|f| !f.is_empty());
    while let Some(entry) = fields.next() {
        if entry.len() < 4 {
            continue;
        }
        let (xy, path) = (&entry[..2], &entry[3..]);
        out.push(String::from_utf8_lossy(path).into_owned());
        if xy.contains(&b'R') || xy.contains(&b'C') {
            fields.next();
        }
    }
    out
}

/// Whether the worktree at `path` may go, given the paths `git status` named
/// ([`parse_status`]): none → `Ok`; else [`Refusal::Dirty`] naming them.
pub fn check_clean(path: &Path, changes: Vec<String>) -> Result<(), Refusal> {
    if changes.is_empty() {
        return Ok(());
    }
    let total = changes.len();
    Err(Refusal::Dirty {
        path: path.to_path_buf(),
        changes: changes.into_iter().take(NAMED_CHANGES).collect(),
        total,
    })
}

/// The argv that removes the worktree at `path` from the repository whose main worktree
/// is `main`. No `--force`: git refuses a worktree that changed after Attend's check, so
/// nothing is ever deleted that was not clean.
pub fn remove_argv(main: &Path, path: &Path) -> Vec<String> {
    vec![
        "git".into(),
        "-C".into(),
        main.to_string_lossy().into_owned(),
        "worktree".into(),
        "remove".into(),
        path.to_string_lossy().into_owned(),
    ]
}

/// The folder a resumed pane starts in (`docs/worktrees.md#resume`): its last cwd while
/// that is inside its worktree, else the worktree itself; without a worktree, its cwd.
pub fn resume_dir<'a>(cwd: Option<&'a str>, worktree: Option<&'a str>) -> Option<&'a str> {
    match (cwd, worktree) {
        (Some(c), Some(w)) if Path::new(c).starts_with(w) => Some(c),
        (_, Some(w)) => Some(w),
        (c, None) => c,
    }
}

#[cfg(test)]
mod tests;
