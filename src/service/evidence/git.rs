//! Repository facts of a directory, read from the `git` CLI (the repo and branch of
//! `docs/lifecycle-attention.md#workspace-summary`, per pane, refreshed when the cwd
//! changes, never polled). Blocking; call it off the async threads. Arguments are passed as
//! argv, never through a shell.

use std::process::{Command, Stdio};

/// The git facts of a directory (`git rev-parse`); both `None` outside a repository.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitInfo {
    /// Absolute path of the top-level directory.
    pub toplevel: Option<String>,
    /// Current branch (`HEAD` when detached).
    pub branch: Option<String>,
    /// The repository's main worktree when the top level is a linked worktree (`git
    /// worktree add`, `docs/worktrees.md#repo-and-branch`): the pane's repo is named
    /// after it. `None` in the main worktree and outside a repository.
    pub main: Option<String>,
}

fn git(dir: &str, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let line = text.trim_end_matches(['\n', '\r']);
    (!line.is_empty()).then(|| line.to_string())
}

/// The top level (`git rev-parse --show-toplevel`) and the branch of `dir`
/// (`git symbolic-ref --short HEAD`, which also names an unborn branch; `HEAD` when
/// detached). Both `None` outside a repository or without git.
pub fn info(dir: &str) -> GitInfo {
    let both = git(
        dir,
        &[
            "rev-parse",
            "--path-format=absolute",
            "--show-toplevel",
            "--git-common-dir",
        ],
    );
    let (toplevel, common) = match both.as_deref().and_then(|t| t.split_once('\n')) {
        Some((top, common)) => (top.to_string(), Some(common.to_string())),
        // A git older than 2.31 knows no --path-format: the top level alone.
        None => match git(dir, &["rev-parse", "--show-toplevel"]) {
            Some(top) => (top, None),
            None => return GitInfo::default(),
        },
    };
    let branch =
        git(dir, &["symbolic-ref", "--short", "-q", "HEAD"]).or_else(|| Some("HEAD".into()));
    GitInfo {
        main: common.and_then(|c| main_worktree(&toplevel, &c)),
        toplevel: Some(toplevel),
        branch,
    }
}

/// The main worktree of a linked one: the folder holding the common `.git` directory,
/// when that is not `toplevel` itself (a bare repository's common dir has none).
fn main_worktree(toplevel: &str, common_dir: &str) -> Option<String> {
    let common = std::path::Path::new(common_dir);
    if common.file_name()? != std::ffi::OsStr::new(".git") {
        return None;
    }
    let main = common.parent()?;
    (main != std::path::Path::new(toplevel)).then(|| main.to_string_lossy().into_owned())
}

/// [`info`] off the async threads (on tokio's blocking pool); `GitInfo::default()`
/// without a directory. What `Run` and the owner's lookups await: the owner task never
/// runs `git` itself.
pub async fn lookup(dir: Option<String>) -> GitInfo {
    match dir {
        Some(dir) => tokio::task::spawn_blocking(move || info(&dir))
            .await
            .unwrap_or_default(),
        None => GitInfo::default(),
    }
}

/// The workspace key for a directory: the git top level, else the directory itself
/// (`docs/lifecycle-attention.md#workspace-key`).
pub fn workspace_of(cwd: &str, info: &GitInfo) -> String {
    info.toplevel.clone().unwrap_or_else(|| cwd.to_string())
}

/// The workspace key and git facts of `cwd` (`"external"` without a cwd), read off the
/// async threads: where a new external pane lives.
pub async fn workspace(cwd: Option<String>) -> (String, GitInfo) {
    match cwd {
        Some(dir) => {
            let info = lookup(Some(dir.clone())).await;
            (workspace_of(&dir, &info), info)
        }
        None => ("external".to_string(), GitInfo::default()),
    }
}

/// Display name of a repository: its top level's last path component.
pub fn repo_name(toplevel: &str) -> String {
    crate::engine::workspace_name(toplevel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repository_has_a_toplevel_and_a_branch_and_a_plain_dir_has_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_str().unwrap();
        assert_eq!(info(path), GitInfo::default());
        let ok = Command::new("git")
            .args(["init", "-q", "-b", "trunk", path])
            .status()
            .unwrap();
        assert!(ok.success());
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let got = info(sub.to_str().unwrap());
        let top = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(got.toplevel.as_deref(), top.to_str());
        assert_eq!(got.branch.as_deref(), Some("trunk"));
        assert_eq!(got.main, None, "the main worktree");

        let git = |args: &[&str]| {
            let ok = Command::new("git")
                .arg("-C")
                .arg(&top)
                .args(["-c", "user.name=t", "-c", "user.email=t@t"])
                .args(args)
                .status()
                .unwrap();
            assert!(ok.success(), "{args:?}");
        };
        git(&["commit", "-q", "--allow-empty", "-m", "start"]);
        let linked = dir.path().join("linked");
        git(&[
            "worktree",
            "add",
            "-q",
            "-b",
            "feature/x",
            linked.to_str().unwrap(),
        ]);
        let got = info(linked.to_str().unwrap());
        let linked = std::fs::canonicalize(&linked).unwrap();
        assert_eq!(got.toplevel.as_deref(), linked.to_str());
        assert_eq!(got.branch.as_deref(), Some("feature/x"));
        assert_eq!(
            got.main.as_deref(),
            top.to_str(),
            "a linked worktree names its main one"
        );
    }
}
