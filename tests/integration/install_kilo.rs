//! `attend install-hooks kilo`: the OpenCode plugin file written where Kilo Code loads
//! plugins (`$XDG_CONFIG_HOME/kilo/plugin/`, the project's `.kilo/plugin/`) with `kilo` as
//! its hook argument, and the seed that skips Kilo's start-up install of
//! `@kilocode/plugin` (docs/adapters.md "Kilo Code CLI"), in temporary homes and projects:
//! install, idempotence, uninstall leaving the tree as it was, OpenCode's own directory
//! untouched, the user's own files, dry run.

use attend::install::opencode::{plugin_text, KILO_SEED, SEED};
use attend::install::{
    config_paths, plan_install, plan_install_as, plan_uninstall, Dirs, HookForm, InstallError,
    Scope,
};
use attend::model::AgentKind;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const EXE: &str = "/opt/attend/bin/attend";
const KILO: AgentKind = AgentKind::Kilo;

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

    /// `~/.config/kilo` (user scope) or `<project>/.kilo`.
    fn config(&self, scope: Scope) -> PathBuf {
        match scope {
            Scope::User => self.dirs.home.join(".config/kilo"),
            Scope::Project => self.dirs.project.join(".kilo"),
        }
    }

    fn install(&self, agent: AgentKind, scope: Scope) {
        plan_install(agent, scope, Path::new(EXE), &self.dirs)
            .unwrap()
            .apply()
            .unwrap();
    }

    fn uninstall(&self, agent: AgentKind, scope: Scope) {
        plan_uninstall(agent, scope, Path::new(EXE), &self.dirs)
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

/// The plugin as installed for Kilo: the hook executable beside [`EXE`], agent `kilo`.
fn installed_plugin() -> String {
    plugin_text(&["/opt/attend/bin/attend-hook".into(), "kilo".into()])
}

#[test]
fn kilo_fresh_install_writes_the_plugin_and_its_seed_and_an_uninstall_removes_them() {
    for scope in [Scope::User, Scope::Project] {
        let home = Home::new();
        fs::create_dir_all(home.dirs.home.join(".config")).unwrap();
        let before = home.tree();
        home.install(KILO, scope);
        let dir = home.config(scope);
        let plugin = fs::read_to_string(dir.join("plugin/attend.js")).unwrap();
        assert_eq!(plugin, installed_plugin());
        assert!(plugin.contains("const HOOK = [\"/opt/attend/bin/attend-hook\", \"kilo\"];"));
        // Kilo's start-up install adds `@kilocode/plugin`: the seed names that one.
        let lock = fs::read_to_string(dir.join("package-lock.json")).unwrap();
        assert_eq!(lock, KILO_SEED);
        assert!(lock.contains("\"@kilocode/plugin\"") && lock != SEED);
        assert!(fs::read_dir(dir.join("node_modules"))
            .unwrap()
            .next()
            .is_none());
        assert_eq!(
            config_paths(KILO, scope, &home.dirs),
            vec![dir.join("plugin/attend.js"), dir.join("package-lock.json")]
        );
        // Nothing of OpenCode's.
        assert!(!home.dirs.home.join(".config/opencode").exists());
        assert!(!home.dirs.project.join(".opencode").exists());

        let again = plan_install(KILO, scope, Path::new(EXE), &home.dirs).unwrap();
        assert!(again.is_noop(), "{scope:?}: {again:?}");
        home.install(KILO, scope);
        home.uninstall(KILO, scope);
        assert_eq!(home.tree(), before, "{scope:?}: the tree as it was");
        let nothing = plan_uninstall(KILO, scope, Path::new(EXE), &home.dirs).unwrap();
        assert!(nothing.is_noop(), "{scope:?}");
    }
}

#[test]
fn kilo_and_opencode_installs_live_side_by_side_and_uninstall_alone() {
    let home = Home::new();
    fs::create_dir_all(home.dirs.home.join(".config")).unwrap();
    let before = home.tree();
    home.install(AgentKind::OpenCode, Scope::User);
    let with_opencode = home.tree();
    home.install(KILO, Scope::User);
    let opencode = home.dirs.home.join(".config/opencode");
    assert!(fs::read_to_string(opencode.join("plugin/attend.js"))
        .unwrap()
        .contains("\"opencode\"];"));
    assert_eq!(
        fs::read_to_string(opencode.join("package-lock.json")).unwrap(),
        SEED
    );
    home.uninstall(KILO, Scope::User);
    assert_eq!(home.tree(), with_opencode, "OpenCode's install stays");
    home.uninstall(AgentKind::OpenCode, Scope::User);
    assert_eq!(home.tree(), before);
}

#[test]
fn kilo_users_own_config_and_plugins_stay_byte_identical() {
    let home = Home::new();
    let dir = home.config(Scope::User);
    let config = "{\n  \"$schema\": \"https://app.kilo.ai/config.json\",\n  \"model\": \"x/y\"\n}";
    home.write(&dir.join("kilo.json"), config);
    home.write(
        &dir.join("plugin/theirs.js"),
        "export const X = async () => ({});\n",
    );
    let before = home.tree();
    home.install(KILO, Scope::User);
    assert_eq!(
        fs::read_to_string(dir.join("package-lock.json")).unwrap(),
        KILO_SEED
    );
    home.uninstall(KILO, Scope::User);
    assert_eq!(home.tree(), before);
    // Where Kilo installed its packages, nothing is seeded or removed.
    let lock = "{\"lockfileVersion\": 3, \"packages\": {\"\": {\"dependencies\": {\"@kilocode/plugin\": \"7.7.7\"}}}}\n";
    home.write(&dir.join("package-lock.json"), lock);
    home.write(
        &dir.join("node_modules/@kilocode/plugin/package.json"),
        "{}",
    );
    let before = home.tree();
    home.install(KILO, Scope::User);
    assert_eq!(
        fs::read_to_string(dir.join("package-lock.json")).unwrap(),
        lock
    );
    home.uninstall(KILO, Scope::User);
    assert_eq!(home.tree(), before);
}

#[test]
fn kilo_someone_elses_attend_js_is_refused_and_kept() {
    let home = Home::new();
    let path = home.config(Scope::Project).join("plugin/attend.js");
    let theirs = "// my own attend plugin\nexport const A = async () => ({});\n";
    home.write(&path, theirs);
    let before = home.tree();
    let err = plan_install(KILO, Scope::Project, Path::new(EXE), &home.dirs).unwrap_err();
    assert!(matches!(err, InstallError::Shape { .. }), "{err:?}");
    home.uninstall(KILO, Scope::Project);
    assert_eq!(home.tree(), before);
}

#[test]
fn kilo_xdg_config_home_and_the_attend_hook_form() {
    let mut home = Home::new();
    home.dirs.config_home = Some(home.dirs.home.join("xdg"));
    plan_install_as(
        KILO,
        Scope::User,
        Path::new(EXE),
        HookForm::AttendHook,
        &home.dirs,
    )
    .unwrap()
    .apply()
    .unwrap();
    let text = fs::read_to_string(home.dirs.home.join("xdg/kilo/plugin/attend.js")).unwrap();
    assert!(text.contains("const HOOK = [\"/opt/attend/bin/attend\", \"hook\", \"kilo\"];"));
    assert!(!home.dirs.home.join(".config").exists());
}

#[test]
fn kilo_dry_run_shows_the_change_and_writes_nothing() {
    let home = Home::new();
    let before = home.tree();
    let plan = plan_install(KILO, Scope::User, Path::new(EXE), &home.dirs).unwrap();
    let diff = plan.diff();
    let dir = home.config(Scope::User);
    assert!(diff.starts_with(&format!(
        "mkdir -p {}\n",
        dir.join("node_modules").display()
    )));
    assert!(diff.contains("+const HOOK = [\"/opt/attend/bin/attend-hook\", \"kilo\"];"));
    assert!(
        diff.contains("+{\"packages\": {\"\": {\"dependencies\": {\"@kilocode/plugin\": \"*\"}}}}")
    );
    assert_eq!(home.tree(), before);
    plan.apply().unwrap();
    let diff = plan_uninstall(KILO, Scope::User, Path::new(EXE), &home.dirs)
        .unwrap()
        .diff();
    assert!(
        diff.ends_with(&format!("rmdir {}\n", dir.display())),
        "{diff}"
    );
}
