//! Agents in git worktrees (docs/worktrees.md): the real `attend daemon` on a private
//! bus, the real `attend` CLI and real git. `attend run --worktree BRANCH` makes the
//! worktree beside the repository and runs the pane there with its repo and branch;
//! `attend rm --worktree` refuses while the worktree holds changes, naming them, and once
//! it is clean removes it and keeps the branch; plain `rm` keeps it and says where; an
//! existing branch is checked out or refused naming the worktree that has it; a folder
//! outside a repository is exit 2; resume re-enters the worktree.

use crate::desktop;
use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::Env;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `git -C DIR ARGS` (with an identity for commits); returns its stdout.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.invalid",
        ])
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .unwrap();
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(stderr(&out))
    }
}

/// A repository `app` in the test's directory with one commit on `main`; its path
/// (canonical, as git names it).
fn repo(env: &Env) -> PathBuf {
    let dir = env.path("app");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]).unwrap();
    std::fs::write(dir.join("README"), "hello\n").unwrap();
    git(&dir, &["add", "README"]).unwrap();
    git(&dir, &["commit", "-q", "-m", "start"]).unwrap();
    std::fs::canonicalize(dir).unwrap()
}

/// Where a worktree of `branch` goes by default: `app.worktrees/BRANCH` beside `app`.
fn beside(repo: &Path, folder: &str) -> PathBuf {
    repo.parent().unwrap().join("app.worktrees").join(folder)
}

fn ids(env: &Env) -> Vec<String> {
    let v: Value = serde_json::from_str(&env.ok(&["ls", "--json"])).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect()
}

/// The working directory of pane `pane`'s program, read from `/proc`.
fn program_cwd(env: &Env, pane: &str) -> PathBuf {
    let mut pid = None;
    env.wait_until("the pane's program", || {
        pid = support::program_of(&env.state_dir(), pane);
        pid.is_some()
    });
    std::fs::read_link(format!("/proc/{}/cwd", pid.unwrap())).unwrap()
}

#[test]
fn a_worktree_pane_runs_on_a_new_branch_and_rm_removes_only_a_clean_worktree() {
    let env = Env::with_daemon();
    let repo = repo(&env);
    let out = env.attend(&[
        "run",
        "--cwd",
        repo.to_str().unwrap(),
        "--worktree",
        "feature-x",
        "--",
        "sh",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let pane = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let wt = beside(&repo, "feature-x");
    assert!(
        stderr(&out).contains(&format!("runs in the worktree {}", wt.display())),
        "{}",
        stderr(&out)
    );

    assert!(wt.join("README").is_file(), "the worktree is checked out");
    assert_eq!(
        git(&wt, &["symbolic-ref", "--short", "HEAD"]).unwrap(),
        "feature-x"
    );
    assert_eq!(
        git(&repo, &["rev-parse", "feature-x"]).unwrap(),
        git(&repo, &["rev-parse", "main"]).unwrap(),
        "a new branch starts at HEAD"
    );
    let shown = env.wait_pane(&pane, "repo and branch", |v| {
        v["repo"] == "app" && v["branch"] == "feature-x"
    });
    assert_eq!(shown["cwd"], wt.to_str().unwrap());
    assert_eq!(shown["worktree"], wt.to_str().unwrap());
    assert_eq!(program_cwd(&env, &pane), wt, "the program runs inside it");
    let text = env.ok(&["show", &pane]);
    assert!(
        text.lines()
            .any(|l| l.starts_with("worktree") && l.ends_with(wt.to_str().unwrap())),
        "{text}"
    );

    // Work in the worktree: nothing goes, and the change is named.
    std::fs::write(wt.join("notes.txt"), "work\n").unwrap();
    std::fs::write(wt.join("README"), "changed\n").unwrap();
    let out = env.attend(&["rm", "--worktree", "--kill", &pane]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("uncommitted or untracked changes"), "{err}");
    assert!(err.contains("notes.txt") && err.contains("README"), "{err}");
    assert_eq!(ids(&env), [pane.as_str()], "the pane stays");
    assert!(wt.join("notes.txt").is_file(), "the work stays");

    // Once clean (committed on the branch), the worktree goes and the branch stays.
    git(&wt, &["add", "-A"]).unwrap();
    git(&wt, &["commit", "-q", "-m", "work"]).unwrap();
    let out = env.attend(&["rm", "--worktree", "--kill", "--json", &pane]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["removed"], serde_json::json!([pane]));
    assert_eq!(v["worktrees"][0]["path"], wt.to_str().unwrap());
    assert_eq!(v["worktrees"][0]["removed"], true);
    assert!(
        stderr(&out).contains("branch feature-x stays"),
        "{}",
        stderr(&out)
    );
    assert!(!wt.exists(), "the worktree is gone");
    assert!(
        git(&repo, &["show-ref", "--verify", "refs/heads/feature-x"]).is_ok(),
        "the branch stays"
    );
    assert_eq!(
        git(&repo, &["log", "-1", "--format=%s", "feature-x"]).unwrap(),
        "work"
    );
    assert!(
        !git(&repo, &["worktree", "list"])
            .unwrap()
            .contains("feature-x"),
        "git forgot the worktree too"
    );
}

#[test]
fn an_existing_branch_is_checked_out_or_refused_naming_the_worktree_that_has_it() {
    let env = Env::with_daemon();
    let repo = repo(&env);
    git(&repo, &["branch", "fix/login"]).unwrap();
    let cwd = repo.to_str().unwrap();
    let pane = env.run(&[
        "--cwd",
        cwd,
        "--worktree",
        "fix/login",
        "--",
        "sleep",
        "1000",
    ]);
    let wt = beside(&repo, "fix-login");
    assert_eq!(
        git(&wt, &["symbolic-ref", "--short", "HEAD"]).unwrap(),
        "fix/login",
        "the existing branch, in a folder named after it"
    );
    env.wait_pane(&pane, "branch", |v| v["branch"] == "fix/login");

    let again = env.attend(&["run", "--cwd", cwd, "--worktree", "fix/login", "--", "sh"]);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(
        stderr(&again).contains(&format!(
            "branch fix/login is already checked out in the worktree {}",
            wt.display()
        )),
        "{}",
        stderr(&again)
    );
    let main = env.attend(&["run", "--cwd", cwd, "--worktree", "main", "--", "sh"]);
    assert_eq!(main.status.code(), Some(2));
    assert!(
        stderr(&main).contains(&format!("checked out in the worktree {}", repo.display())),
        "{}",
        stderr(&main)
    );
    let base = env.attend(&[
        "run",
        "--cwd",
        cwd,
        "--worktree",
        "new",
        "--base",
        "nope",
        "--",
        "sh",
    ]);
    assert_eq!(base.status.code(), Some(2), "a base git does not know");
    assert!(!beside(&repo, "new").exists());
    assert_eq!(ids(&env), [pane.as_str()], "no pane for a refusal");

    // Without --worktree, rm keeps the worktree and says where.
    let out = env.attend(&["rm", "--kill", &pane]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("its worktree stays at {}", wt.display())),
        "{}",
        stderr(&out)
    );
    assert!(wt.is_dir());
}

#[test]
fn a_folder_outside_a_git_repository_is_a_clear_error() {
    let env = Env::with_daemon();
    let plain = env.path("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let out = env.attend(&[
        "run",
        "--cwd",
        plain.to_str().unwrap(),
        "--worktree",
        "x",
        "--",
        "sh",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("{} is not in a git repository", plain.display())),
        "{}",
        stderr(&out)
    );
    assert!(ids(&env).is_empty());
    let out = env.attend(&["run", "--base", "main", "--", "sh"]);
    assert_eq!(out.status.code(), Some(2), "--base needs --worktree");
}

#[test]
fn resume_re_enters_the_worktree_and_rm_exited_keeps_it() {
    let env = Env::with_daemon();
    let repo = repo(&env);
    let log = env.path("pwd.log");
    // The program says (OSC 7) that it moved to /tmp, records where it really runs, and
    // exits.
    let script = format!(
        "printf '\\033]7;file:///tmp\\007'; pwd >> {}; sleep 0.5",
        log.display()
    );
    let pane = env.run(&[
        "--cwd",
        repo.to_str().unwrap(),
        "--worktree",
        "again",
        "--",
        "sh",
        "-c",
        &script,
    ]);
    env.wait_pane(&pane, "exited, cwd /tmp", |v| {
        v["live"]["state"] == "exited" && v["cwd"] == "/tmp"
    });
    env.ok(&["resume", &pane]);
    env.wait_pane(&pane, "exited again", |v| {
        v["live"]["state"] == "exited" && v["exited_at"] != Value::Null
    });
    env.wait_until("two runs recorded", || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .count()
            == 2
    });
    let wt = beside(&repo, "again");
    let runs = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        runs.lines().collect::<Vec<_>>(),
        [wt.to_str().unwrap(), wt.to_str().unwrap()],
        "the resumed run starts in the worktree, not in the cwd it last reported"
    );
    // Removing the exited pane keeps its worktree.
    env.ok(&["seen", &pane]);
    let out = env.attend(&["rm", "--exited"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("its worktree stays"),
        "{}",
        stderr(&out)
    );
    assert!(wt.is_dir());
}

#[test]
fn the_automatic_removal_of_exited_panes_never_removes_a_worktree() {
    let mut d = desktop::Desk::new();
    d.config("[panes]\nremove_exited_after = \"1s\"\n");
    d.start_daemon(&["--no-tray", "--no-notifications"]);
    let repo = repo(&d);
    let pane = d.run(&[
        "--cwd",
        repo.to_str().unwrap(),
        "--worktree",
        "auto",
        "--",
        "sh",
        "-c",
        "exit 0",
    ]);
    d.wait_pane(&pane, "exited", |v| v["live"]["state"] == "exited");
    d.ok(&["seen", &pane]);
    d.wait_until("the pane removed by itself", || ids(&d).is_empty());
    let wt = beside(&repo, "auto");
    assert!(wt.join("README").is_file(), "the worktree stays");
    assert!(git(&repo, &["worktree", "list"]).unwrap().contains("auto"));
}

#[test]
fn rm_worktree_of_a_pane_whose_worktree_folder_is_gone_removes_the_pane() {
    let env = Env::with_daemon();
    let repo = repo(&env);
    let out = env.attend(&[
        "run",
        "--cwd",
        repo.to_str().unwrap(),
        "--worktree",
        "gone-x",
        "--",
        "sh",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let pane = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let wt = beside(&repo, "gone-x");
    env.wait_pane(&pane, "its worktree shown", |v| {
        v["worktree"] == wt.to_str().unwrap()
    });
    // The user deleted the folder by hand: nothing is left to lose, so the pane goes.
    std::fs::remove_dir_all(&wt).unwrap();
    let out = env.attend(&["rm", "--worktree", "--kill", "--json", &pane]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["removed"], serde_json::json!([pane]));
    assert_eq!(v["worktrees"][0]["removed"], false, "{v}");
    let err = stderr(&out);
    assert!(
        err.contains("was already gone") && err.contains("git worktree prune"),
        "{err}"
    );
    assert!(ids(&env).is_empty(), "the pane went");
    assert!(
        git(&repo, &["show-ref", "--verify", "refs/heads/gone-x"]).is_ok(),
        "the branch stays"
    );
}
