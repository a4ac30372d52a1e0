//! `attend install-hooks cline`: Attend's hook files in Cline's hooks directory
//! (docs/adapters.md "Cline CLI"), in temporary homes and projects: install, idempotence,
//! uninstall leaving the tree as it was, the user's own hook files, `$CLINE_DIR`, dry run.

use attend::install::cline::hook_file;
use attend::install::{config_paths, plan_install, plan_uninstall, Dirs, InstallError, Scope};
use attend::model::AgentKind;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const EXE: &str = "/opt/attend/bin/attend";
const HOOK: &str = "/opt/attend/bin/attend-hook";
const CLINE: AgentKind = AgentKind::Cline;

/// The hook files Attend writes, as `data/agents.tsv` lists them.
const EVENTS: [&str; 9] = [
    "TaskStart",
    "TaskResume",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "TaskComplete",
    "TaskError",
    "TaskCancel",
    "SessionShutdown",
];

struct Home {
    tmp: tempfile::TempDir,
    dirs: Dirs,
}

impl Home {
    fn new() -> Home {
        let tmp = tempfile::tempdir().unwrap();
        let dirs = Dirs {
            home: tmp.path().join("home"),
            project: tmp.path().join("project"),
            claude_config_dir: None,
            codex_home: None,
            config_home: None,
            copilot_home: None,
            pi_agent_dir: None,
            cline_dir: None,
        };
        fs::create_dir_all(&dirs.home).unwrap();
        fs::create_dir_all(&dirs.project).unwrap();
        Home { tmp, dirs }
    }

    /// `~/.cline/hooks` (user scope) or `<project>/.cline/hooks`.
    fn hooks(&self, scope: Scope) -> PathBuf {
        match scope {
            Scope::User => self.dirs.home.join(".cline/hooks"),
            Scope::Project => self.dirs.project.join(".cline/hooks"),
        }
    }

    fn install(&self, scope: Scope) {
        plan_install(CLINE, scope, Path::new(EXE), &self.dirs)
            .unwrap()
            .apply()
            .unwrap();
    }

    fn uninstall(&self, scope: Scope) {
        plan_uninstall(CLINE, scope, Path::new(EXE), &self.dirs)
            .unwrap()
            .apply()
            .unwrap();
    }

    fn write(&self, path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// Every directory (`None`) and file (its text) under the temp dir.
    fn tree(&self) -> BTreeMap<PathBuf, Option<String>> {
        let mut out = BTreeMap::new();
        let mut stack = vec![self.tmp.path().to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let rel = path.strip_prefix(self.tmp.path()).unwrap().to_path_buf();
                if path.is_dir() {
                    out.insert(rel, None);
                    stack.push(path);
                } else {
                    out.insert(rel, Some(fs::read_to_string(&path).unwrap()));
                }
            }
        }
        out
    }
}

#[test]
fn a_fresh_install_writes_one_hook_file_per_event_and_an_uninstall_leaves_the_tree_as_it_was() {
    for scope in [Scope::User, Scope::Project] {
        let home = Home::new();
        let before = home.tree();
        home.install(scope);
        let dir = home.hooks(scope);
        let files: Vec<PathBuf> = EVENTS.iter().map(|e| dir.join(e)).collect();
        assert_eq!(config_paths(CLINE, scope, &home.dirs), files);
        for (event, file) in EVENTS.iter().zip(&files) {
            let text = fs::read_to_string(file).unwrap();
            assert!(text.starts_with("#!/bin/sh\n"), "{event}: {text}");
            assert!(
                text.ends_with(&format!("\nexec {HOOK} cline {event}\n")),
                "{event}: {text}"
            );
        }
        assert_eq!(fs::read_dir(&dir).unwrap().count(), EVENTS.len(), "no more");

        let again = plan_install(CLINE, scope, Path::new(EXE), &home.dirs).unwrap();
        assert!(again.is_noop(), "{scope:?}: {again:?}");
        home.install(scope);
        home.uninstall(scope);
        assert_eq!(home.tree(), before, "{scope:?}: the tree as it was");
        let nothing = plan_uninstall(CLINE, scope, Path::new(EXE), &home.dirs).unwrap();
        assert!(nothing.is_noop(), "{scope:?}");
    }
}

#[test]
fn the_users_own_hooks_and_cline_data_stay_byte_identical() {
    let home = Home::new();
    let cline = home.dirs.home.join(".cline");
    home.write(
        &cline.join("data/settings/providers.json"),
        "{\"version\": 1}\n",
    );
    // Cline runs `PreCompact` and `TaskStart.sh` beside Attend's `TaskStart`.
    home.write(&cline.join("hooks/PreCompact"), "#!/bin/sh\necho mine\n");
    home.write(&cline.join("hooks/TaskStart.sh"), "#!/bin/sh\necho mine\n");
    let before = home.tree();
    home.install(Scope::User);
    assert!(cline.join("hooks/TaskStart").is_file());
    home.uninstall(Scope::User);
    assert_eq!(home.tree(), before, "only Attend's files came and went");
}

#[test]
fn someone_elses_hook_file_of_an_event_is_refused_and_kept() {
    let home = Home::new();
    let mine = home.hooks(Scope::User).join("PostToolUse");
    home.write(&mine, "#!/bin/sh\necho my own\n");
    let before = home.tree();
    let err = plan_install(CLINE, Scope::User, Path::new(EXE), &home.dirs).unwrap_err();
    match &err {
        InstallError::Shape { path, message } => {
            assert_eq!(path, &mine);
            assert!(message.contains("not Attend's"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(home.tree(), before, "nothing was written");
    home.uninstall(Scope::User);
    assert_eq!(home.tree(), before, "an uninstall keeps it");
}

#[test]
fn hook_files_of_an_older_attend_are_rewritten_in_place() {
    let home = Home::new();
    let file = home.hooks(Scope::User).join("TaskComplete");
    let older = hook_file(&["/old/attend-hook".into(), "cline".into()], "TaskComplete").unwrap();
    home.write(&file, &older);
    let plan = plan_install(CLINE, Scope::User, Path::new(EXE), &home.dirs).unwrap();
    assert!(!plan.is_noop());
    assert_eq!(plan.apply().unwrap(), Vec::<PathBuf>::new(), "no backup");
    assert!(fs::read_to_string(&file)
        .unwrap()
        .ends_with(&format!("\nexec {HOOK} cline TaskComplete\n")));
    home.uninstall(Scope::User);
    assert!(!home.dirs.home.join(".cline").exists());
}

#[test]
fn cline_dir_moves_the_user_directory() {
    let mut home = Home::new();
    let cline = home.tmp.path().join("cline-dir");
    home.dirs.cline_dir = Some(cline.clone());
    fs::create_dir_all(&cline).unwrap();
    let before = home.tree();
    home.install(Scope::User);
    assert!(cline.join("hooks/SessionShutdown").is_file());
    assert!(!home.dirs.home.join(".cline").exists());
    home.uninstall(Scope::User);
    assert_eq!(home.tree(), before, "the named directory itself stays");
}

#[test]
fn dry_run_shows_the_files_and_writes_nothing() {
    let home = Home::new();
    let before = home.tree();
    let plan = plan_install(CLINE, Scope::User, Path::new(EXE), &home.dirs).unwrap();
    let diff = plan.diff();
    assert_eq!(diff.matches("+++ ").count(), EVENTS.len(), "{diff}");
    assert!(diff.contains(".cline/hooks/PreToolUse"), "{diff}");
    assert!(
        diff.contains(&format!("+exec {HOOK} cline PreToolUse")),
        "{diff}"
    );
    assert_eq!(home.tree(), before);
    home.install(Scope::User);
    let removal = plan_uninstall(CLINE, Scope::User, Path::new(EXE), &home.dirs)
        .unwrap()
        .diff();
    assert!(removal.contains("rmdir "), "{removal}");
    assert_eq!(removal.matches("+++ /dev/null").count(), EVENTS.len());
}
