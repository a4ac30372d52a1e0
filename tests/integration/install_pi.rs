//! `attend install-hooks pi`: Attend's extension file (docs/adapters.md "pi"), in temporary
//! homes and projects: install, idempotence, uninstall leaving the tree as it was, the
//! user's own files and directories, `$PI_CODING_AGENT_DIR`, dry run.

use attend::install::pi::extension_text;
use attend::install::{config_paths, plan_install, plan_uninstall, Dirs, InstallError, Scope};
use attend::model::AgentKind;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const EXE: &str = "/opt/attend/bin/attend";
const PI: AgentKind = AgentKind::Pi;

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

    /// `~/.pi/agent/extensions` (user scope) or `<project>/.pi/extensions`.
    fn extensions(&self, scope: Scope) -> PathBuf {
        match scope {
            Scope::User => self.dirs.home.join(".pi/agent/extensions"),
            Scope::Project => self.dirs.project.join(".pi/extensions"),
        }
    }

    fn install(&self, scope: Scope) {
        plan_install(PI, scope, Path::new(EXE), &self.dirs)
            .unwrap()
            .apply()
            .unwrap();
    }

    fn uninstall(&self, scope: Scope) {
        plan_uninstall(PI, scope, Path::new(EXE), &self.dirs)
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

/// The extension as installed for [`EXE`]: the hook executable beside it.
fn installed() -> String {
    extension_text(&["/opt/attend/bin/attend-hook".into(), "pi".into()])
}

#[test]
fn a_fresh_install_writes_the_extension_and_an_uninstall_leaves_the_tree_as_it_was() {
    for scope in [Scope::User, Scope::Project] {
        let home = Home::new();
        let before = home.tree();
        home.install(scope);
        let file = home.extensions(scope).join("attend.ts");
        let text = fs::read_to_string(&file).unwrap();
        assert_eq!(text, installed());
        assert!(text.contains("const HOOK = [\"/opt/attend/bin/attend-hook\", \"pi\"];"));
        assert_eq!(config_paths(PI, scope, &home.dirs), vec![file]);

        let again = plan_install(PI, scope, Path::new(EXE), &home.dirs).unwrap();
        assert!(again.is_noop(), "{scope:?}: {again:?}");
        home.install(scope);
        home.uninstall(scope);
        assert_eq!(home.tree(), before, "{scope:?}: the tree as it was");
        let nothing = plan_uninstall(PI, scope, Path::new(EXE), &home.dirs).unwrap();
        assert!(nothing.is_noop(), "{scope:?}");
    }
}

#[test]
fn the_users_own_extensions_and_settings_stay_byte_identical() {
    let home = Home::new();
    let agent = home.dirs.home.join(".pi/agent");
    home.write(&agent.join("settings.json"), "{\"defaultModel\": \"m\"}\n");
    home.write(
        &agent.join("extensions/mine.ts"),
        "export default () => {};\n",
    );
    let before = home.tree();
    home.install(Scope::User);
    assert!(agent.join("extensions/attend.ts").is_file());
    home.uninstall(Scope::User);
    assert_eq!(home.tree(), before, "only Attend's file came and went");
}

#[test]
fn someone_elses_attend_ts_is_refused_and_kept() {
    let home = Home::new();
    let file = home.extensions(Scope::User).join("attend.ts");
    home.write(&file, "// my own extension\nexport default () => {};\n");
    let err = plan_install(PI, Scope::User, Path::new(EXE), &home.dirs).unwrap_err();
    assert!(matches!(err, InstallError::Shape { .. }), "{err:?}");
    let before = home.tree();
    home.uninstall(Scope::User);
    assert_eq!(home.tree(), before, "an uninstall keeps it");
}

#[test]
fn an_older_extension_is_rewritten_in_place() {
    let home = Home::new();
    let file = home.extensions(Scope::User).join("attend.ts");
    let older = extension_text(&["/old/attend-hook".into(), "pi".into()]);
    home.write(&file, &older);
    let plan = plan_install(PI, Scope::User, Path::new(EXE), &home.dirs).unwrap();
    assert!(!plan.is_noop());
    assert_eq!(plan.apply().unwrap(), Vec::<PathBuf>::new(), "no backup");
    assert_eq!(fs::read_to_string(&file).unwrap(), installed());
}

#[test]
fn pi_coding_agent_dir_moves_the_user_directory() {
    let mut home = Home::new();
    let agent = home.tmp.path().join("pi-agent");
    home.dirs.pi_agent_dir = Some(agent.clone());
    fs::create_dir_all(&agent).unwrap();
    let before = home.tree();
    home.install(Scope::User);
    assert_eq!(
        fs::read_to_string(agent.join("extensions/attend.ts")).unwrap(),
        installed()
    );
    assert!(!home.dirs.home.join(".pi").exists());
    home.uninstall(Scope::User);
    assert_eq!(home.tree(), before, "the named directory itself stays");
}

#[test]
fn dry_run_shows_the_file_and_writes_nothing() {
    let home = Home::new();
    let before = home.tree();
    let plan = plan_install(PI, Scope::User, Path::new(EXE), &home.dirs).unwrap();
    let diff = plan.diff();
    assert!(diff.contains("+++ "), "{diff}");
    assert!(diff.contains("extensions/attend.ts"), "{diff}");
    assert!(diff.contains("+const HOOK = [\"/opt/attend/bin/attend-hook\", \"pi\"];"));
    assert_eq!(home.tree(), before);
    home.install(Scope::User);
    let removal = plan_uninstall(PI, Scope::User, Path::new(EXE), &home.dirs)
        .unwrap()
        .diff();
    assert!(removal.contains("rmdir "), "{removal}");
    assert!(removal.contains("+++ /dev/null"), "{removal}");
}
