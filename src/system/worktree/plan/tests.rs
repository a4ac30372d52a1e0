use super::*;

fn facts(worktrees: &[(&str, Option<&str>)], branch_exists: bool) -> Facts {
    Facts {
        toplevel: PathBuf::from("/src/app"),
        worktrees: worktrees
            .iter()
            .map(|(p, b)| Listed {
                path: PathBuf::from(p),
                branch: b.map(String::from),
            })
            .collect(),
        branch_exists,
        target_exists: false,
    }
}

fn req(branch: &str, base: Option<&str>) -> Request {
    Request {
        branch: branch.into(),
        base: base.map(String::from),
    }
}

#[test]
fn worktrees_go_beside_the_repository_or_under_the_configured_folder() {
    let main = Path::new("/src/app");
    assert_eq!(
        target(main, "feature-x", &Place::NextToRepo),
        Path::new("/src/app.worktrees/feature-x")
    );
    assert_eq!(
        target(main, "feature/login", &Place::NextToRepo),
        Path::new("/src/app.worktrees/feature-login"),
        "a branch with '/' is one folder"
    );
    assert_eq!(
        target(main, "fix/a/b", &Place::Under("/home/me/wt".into())),
        Path::new("/home/me/wt/app/fix-a-b")
    );
}

#[test]
fn a_new_branch_starts_at_head_or_the_base() {
    let f = facts(&[("/src/app", Some("main"))], false);
    let path = Path::new("/src/app.worktrees/feature-x");
    let add = plan(&req("feature-x", None), &f, path).unwrap();
    assert!(add.new_branch);
    assert_eq!(
        add.argv,
        [
            "git",
            "-C",
            "/src/app",
            "worktree",
            "add",
            "-b",
            "feature-x",
            "/src/app.worktrees/feature-x",
            "HEAD"
        ]
    );
    let add = plan(&req("feature/y", Some("v1.2")), &f, path).unwrap();
    assert_eq!(
        add.argv[5..],
        ["-b", "feature/y", "/src/app.worktrees/feature-x", "v1.2"]
    );
}

#[test]
fn an_existing_branch_is_checked_out_unless_a_worktree_has_it() {
    let path = Path::new("/src/app.worktrees/old");
    let free = facts(&[("/src/app", Some("main"))], true);
    let add = plan(&req("old", None), &free, path).unwrap();
    assert!(!add.new_branch);
    assert_eq!(
        add.argv[3..],
        ["worktree", "add", "/src/app.worktrees/old", "old"]
    );

    let taken = facts(
        &[("/src/app", Some("main")), ("/elsewhere/old", Some("old"))],
        true,
    );
    let e = plan(&req("old", None), &taken, path).unwrap_err();
    assert_eq!(
        e,
        Refusal::CheckedOut {
            branch: "old".into(),
            path: "/elsewhere/old".into()
        }
    );
    assert!(e.to_string().contains("/elsewhere/old"), "{e}");
    let e = plan(&req("main", None), &taken, path).unwrap_err();
    assert!(
        e.to_string()
            .contains("checked out in the worktree /src/app"),
        "{e}"
    );

    let e = plan(&req("old", Some("main")), &free, path).unwrap_err();
    assert!(matches!(e, Refusal::BaseWithExisting { .. }), "{e:?}");
}

#[test]
fn bad_names_and_taken_folders_are_refused() {
    let f = facts(&[("/src/app", Some("main"))], false);
    let path = Path::new("/x");
    for bad in ["", "-f", "a//b", "/a", "a/", "a/../b", "a b", "./a"] {
        let e = plan(&req(bad, None), &f, path).unwrap_err();
        assert!(matches!(e, Refusal::BadBranch { .. }), "{bad:?}: {e:?}");
    }
    assert!(check_branch("feature/login-2").is_ok());
    let e = plan(&req("ok", Some("--orphan")), &f, path).unwrap_err();
    assert_eq!(e, Refusal::BadBase("--orphan".into()));
    let mut taken = f.clone();
    taken.target_exists = true;
    let e = plan(&req("ok", None), &taken, path).unwrap_err();
    assert_eq!(e.to_string(), "/x already exists");
    let e = plan(&req("ok", None), &facts(&[], false), path).unwrap_err();
    assert_eq!(e, Refusal::NoMainWorktree);
}

#[test]
fn the_porcelain_list_gives_paths_and_branches_main_first() {
    let text = "worktree /src/app\nHEAD 1111\nbranch refs/heads/main\n\n\
                worktree /src/app.worktrees/f\nHEAD 2222\nbranch refs/heads/feature/f\n\n\
                worktree /tmp/detached\nHEAD 3333\ndetached\n\n";
    let l = parse_list(text);
    assert_eq!(
        l,
        [
            Listed {
                path: "/src/app".into(),
                branch: Some("main".into())
            },
            Listed {
                path: "/src/app.worktrees/f".into(),
                branch: Some("feature/f".into())
            },
            Listed {
                path: "/tmp/detached".into(),
                branch: None
            },
        ]
    );
    assert!(parse_list("").is_empty());
}

#[test]
fn status_names_every_change_and_skips_a_renames_old_path() {
    let z = b" M src/lib.rs\0?? notes.txt\0R  new.rs\0old.rs\0A  added.rs\0";
    assert_eq!(
        parse_status(z),
        ["src/lib.rs", "notes.txt", "new.rs", "added.rs"]
    );
    assert!(parse_status(b"").is_empty());
}

#[test]
fn a_dirty_worktree_is_refused_naming_its_changes() {
    let p = Path::new("/w");
    assert_eq!(check_clean(p, Vec::new()), Ok(()));
    let e = check_clean(p, vec!["notes.txt".into()]).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("/w holds uncommitted or untracked changes: notes.txt"),
        "{text}"
    );
    assert!(text.contains("nothing was removed"), "{text}");
    let many: Vec<String> = (0..13).map(|i| format!("f{i}")).collect();
    let text = check_clean(p, many).unwrap_err().to_string();
    assert!(text.contains("f9 and 3 more"), "{text}");
    assert!(!text.contains("f10"), "{text}");
}

#[test]
fn removal_never_forces() {
    let argv = remove_argv(Path::new("/src/app"), Path::new("/src/app.worktrees/f"));
    assert_eq!(
        argv,
        [
            "git",
            "-C",
            "/src/app",
            "worktree",
            "remove",
            "/src/app.worktrees/f"
        ]
    );
}

#[test]
fn resume_re_enters_the_worktree() {
    let w = Some("/src/app.worktrees/f");
    assert_eq!(
        resume_dir(Some("/src/app.worktrees/f/src"), w),
        Some("/src/app.worktrees/f/src")
    );
    assert_eq!(resume_dir(Some("/tmp"), w), w, "a cwd that left it");
    assert_eq!(resume_dir(None, w), w);
    assert_eq!(
        resume_dir(Some("/src/app.worktrees/feature"), w),
        w,
        "a sibling folder is not inside"
    );
    assert_eq!(resume_dir(Some("/tmp"), None), Some("/tmp"));
}
