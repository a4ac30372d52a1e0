//! `attend install-hooks opencode`: Attend's plugin file and, where OpenCode would otherwise
//! run an npm install at start, the seed that skips it (docs/adapters.md "OpenCode"), in
//! temporary homes and projects: install, idempotence, uninstall leaving the tree as it
//! was, the user's own files, dry run.

use attend::install::opencode::{plugin_text, PLUGIN, SEED};
use attend::install::{
    config_paths, plan_install, plan_install_as, plan_uninstall, Dirs, HookForm, InstallError,
    Scope,
};
use attend::model::AgentKind;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const EXE: &str = "/opt/attend/bin/attend";
const OPENCODE: AgentKind = AgentKind::OpenCode;

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

    /// `~/.config/opencode` (user scope) or `<project>/.opencode`.
    fn config(&self, scope: Scope) -> PathBuf {
        match scope {
            Scope::User => self.dirs.home.join(".config/opencode"),
            Scope::Project => self.dirs.project.join(".opencode"),
        }
    }

    fn install(&self, scope: Scope) {
        plan_install(OPENCODE, scope, Path::new(EXE), &self.dirs)
            .unwrap()
            .apply()
            .unwrap();
    }

    fn uninstall(&self, scope: Scope) {
        plan_uninstall(OPENCODE, scope, Path::new(EXE), &self.dirs)
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

/// The plugin as installed for [`EXE`]: the hook executable beside it.
fn installed_plugin() -> String {
    plugin_text(&["/opt/attend/bin/attend-hook".into(), "opencode".into()])
}

#[test]
fn a_fresh_install_writes_the_plugin_and_the_seed_and_an_uninstall_removes_them() {
    for scope in [Scope::User, Scope::Project] {
        let home = Home::new();
        // Every desktop has one; OpenCode's own directory in it is new.
        fs::create_dir_all(home.dirs.home.join(".config")).unwrap();
        let before = home.tree();
        home.install(scope);
        let dir = home.config(scope);
        let plugin = fs::read_to_string(dir.join("plugin/attend.js")).unwrap();
        assert_eq!(plugin, installed_plugin());
        assert!(plugin.contains("const HOOK = [\"/opt/attend/bin/attend-hook\", \"opencode\"];"));
        assert_eq!(
            fs::read_to_string(dir.join("package-lock.json")).unwrap(),
            SEED
        );
        assert!(fs::read_dir(dir.join("node_modules"))
            .unwrap()
            .next()
            .is_none());
        assert_eq!(
            config_paths(OPENCODE, scope, &home.dirs),
            vec![dir.join("plugin/attend.js"), dir.join("package-lock.json")]
        );

        let again = plan_install(OPENCODE, scope, Path::new(EXE), &home.dirs).unwrap();
        assert!(again.is_noop(), "{scope:?}: {again:?}");
        home.install(scope);
        home.uninstall(scope);
        assert_eq!(home.tree(), before, "{scope:?}: the tree as it was");
        let nothing = plan_uninstall(OPENCODE, scope, Path::new(EXE), &home.dirs).unwrap();
        assert!(nothing.is_noop(), "{scope:?}");
    }
}

#[test]
fn the_users_own_config_stays_byte_identical_and_the_seed_goes() {
    let home = Home::new();
    let dir = home.config(Scope::User);
    let config = "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"model\": \"x/y\"\n}";
    home.write(&dir.join("opencode.json"), config);
    home.write(
        &dir.join("plugin/theirs.js"),
        "export const X = async () => ({});\n",
    );
    let before = home.tree();
    home.install(Scope::User);
    // No node_modules, lock or package.json: OpenCode would install, so the seed goes in.
    assert_eq!(
        fs::read_to_string(dir.join("package-lock.json")).unwrap(),
        SEED
    );
    home.uninstall(Scope::User);
    assert_eq!(home.tree(), before);
}

#[test]
fn where_opencode_installed_its_packages_nothing_is_seeded_or_removed() {
    let home = Home::new();
    let dir = home.config(Scope::User);
    let package = "{\"dependencies\": {\"@opencode-ai/plugin\": \"1.18.33\"}}\n";
    let lock = "{\"lockfileVersion\": 3, \"packages\": {\"\": {\"dependencies\": {\"@opencode-ai/plugin\": \"1.18.33\"}}}}\n";
    home.write(&dir.join("package.json"), package);
    home.write(&dir.join("package-lock.json"), lock);
    home.write(
        &dir.join("node_modules/@opencode-ai/plugin/package.json"),
        "{}",
    );
    let before = home.tree();
    home.install(Scope::User);
    assert_eq!(
        fs::read_to_string(dir.join("package-lock.json")).unwrap(),
        lock
    );
    home.uninstall(Scope::User);
    assert_eq!(home.tree(), before);
    // Only a package.json (the user's): no seed either.
    let home = Home::new();
    let dir = home.config(Scope::Project);
    home.write(&dir.join("package.json"), package);
    home.install(Scope::Project);
    assert!(!dir.join("package-lock.json").exists());
    assert!(!dir.join("node_modules").exists());
}

#[test]
fn a_seed_opencode_or_the_user_changed_is_theirs() {
    let home = Home::new();
    home.install(Scope::Project);
    let dir = home.config(Scope::Project);
    home.write(&dir.join("node_modules/left/index.js"), "x");
    home.uninstall(Scope::Project);
    assert!(
        !dir.join("plugin").exists(),
        "the plugin and its directory go"
    );
    assert_eq!(
        fs::read_to_string(dir.join("package-lock.json")).unwrap(),
        SEED
    );
    assert!(dir.join("node_modules/left/index.js").exists());
}

#[test]
fn someone_elses_attend_js_is_refused_and_kept() {
    let home = Home::new();
    let path = home.config(Scope::User).join("plugin/attend.js");
    let theirs = "// my own attend plugin\nexport const A = async () => ({});\n";
    home.write(&path, theirs);
    let before = home.tree();
    let err = plan_install(OPENCODE, Scope::User, Path::new(EXE), &home.dirs).unwrap_err();
    assert!(matches!(err, InstallError::Shape { .. }), "{err:?}");
    assert!(err.to_string().contains("not Attend's"), "{err}");
    home.uninstall(Scope::User);
    assert_eq!(home.tree(), before);
}

#[test]
fn an_older_plugin_is_rewritten_in_place_without_a_backup() {
    let home = Home::new();
    let dir = home.config(Scope::User);
    let moved = plugin_text(&["/usr/bin/attend-hook".into(), "opencode".into()]);
    home.write(&dir.join("plugin/attend.js"), &moved);
    home.install(Scope::User);
    assert_eq!(
        fs::read_to_string(dir.join("plugin/attend.js")).unwrap(),
        installed_plugin()
    );
    let names: Vec<_> = fs::read_dir(dir.join("plugin"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names,
        ["attend.js"],
        "no backup beside it: OpenCode loads *.js"
    );
    // Without an attend-hook beside attend, the plugin runs `attend hook opencode`.
    let home = Home::new();
    plan_install_as(
        OPENCODE,
        Scope::User,
        Path::new(EXE),
        HookForm::AttendHook,
        &home.dirs,
    )
    .unwrap()
    .apply()
    .unwrap();
    let text = fs::read_to_string(home.config(Scope::User).join("plugin/attend.js")).unwrap();
    assert!(text.contains("const HOOK = [\"/opt/attend/bin/attend\", \"hook\", \"opencode\"];"));
}

#[test]
fn xdg_config_home_moves_the_user_directory() {
    let mut home = Home::new();
    home.dirs.config_home = Some(home.dirs.home.join("xdg"));
    home.install(Scope::User);
    assert!(home
        .dirs
        .home
        .join("xdg/opencode/plugin/attend.js")
        .exists());
    assert!(!home.dirs.home.join(".config").exists());
}

#[test]
fn dry_run_shows_the_directories_and_files_and_writes_nothing() {
    let home = Home::new();
    let before = home.tree();
    let plan = plan_install(OPENCODE, Scope::User, Path::new(EXE), &home.dirs).unwrap();
    let diff = plan.diff();
    let dir = home.config(Scope::User);
    assert!(diff.starts_with(&format!(
        "mkdir -p {}\n",
        dir.join("node_modules").display()
    )));
    assert!(diff.contains("+const HOOK = [\"/opt/attend/bin/attend-hook\", \"opencode\"];"));
    assert!(diff.contains(&format!("+++ {}", dir.join("package-lock.json").display())));
    assert_eq!(home.tree(), before);
    plan.apply().unwrap();
    let diff = plan_uninstall(OPENCODE, Scope::User, Path::new(EXE), &home.dirs)
        .unwrap()
        .diff();
    assert!(
        diff.ends_with(&format!("rmdir {}\n", dir.display())),
        "{diff}"
    );
    assert!(PLUGIN.lines().count() > 20);
}
