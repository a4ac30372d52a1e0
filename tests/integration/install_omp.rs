//! `attend install-hooks omp`: Attend's pi extension written where oh-my-pi loads it
//! (docs/adapters.md "oh-my-pi"), in temporary homes and projects: install with `omp` in
//! its hook line, idempotence, uninstall leaving the tree as it was, pi's directory and
//! `$PI_CODING_AGENT_DIR` untouched, dry run; and `install-hooks grok`, which has nothing
//! to write.

use attend::install::pi::extension_text;
use attend::install::{config_paths, plan_install, plan_uninstall, Dirs, Scope};
use attend::model::AgentKind;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const EXE: &str = "/opt/attend/bin/attend";
const OMP: AgentKind = AgentKind::Omp;

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
fn install_hooks_omp_writes_the_pi_extension_naming_omp_and_uninstall_restores_the_tree() {
    for (scope, dir) in [
        (Scope::User, "home/.omp/agent/extensions"),
        (Scope::Project, "project/.omp/extensions"),
    ] {
        let mut home = Home::new();
        // pi's own directory override is pi's: omp's file does not move with it.
        home.dirs.pi_agent_dir = Some(home.tmp.path().join("pi-agent"));
        let before = home.tree();
        let plan = plan_install(OMP, scope, Path::new(EXE), &home.dirs).unwrap();
        let diff = plan.diff();
        assert!(diff.contains("extensions/attend.ts"), "{diff}");
        assert_eq!(home.tree(), before, "a plan (--dry-run) writes nothing");
        plan.apply().unwrap();
        let file = home.tmp.path().join(dir).join("attend.ts");
        let text = fs::read_to_string(&file).unwrap();
        assert_eq!(
            text,
            extension_text(&["/opt/attend/bin/attend-hook".into(), "omp".into()])
        );
        assert!(text.contains("const HOOK = [\"/opt/attend/bin/attend-hook\", \"omp\"];"));
        assert_eq!(config_paths(OMP, scope, &home.dirs), vec![file]);
        assert!(
            !home.dirs.home.join(".pi").exists(),
            "pi's directory untouched"
        );

        let again = plan_install(OMP, scope, Path::new(EXE), &home.dirs).unwrap();
        assert!(again.is_noop(), "{scope:?}: {again:?}");
        plan_uninstall(OMP, scope, Path::new(EXE), &home.dirs)
            .unwrap()
            .apply()
            .unwrap();
        assert_eq!(home.tree(), before, "{scope:?}: the tree as it was");
        let nothing = plan_uninstall(OMP, scope, Path::new(EXE), &home.dirs).unwrap();
        assert!(nothing.is_noop(), "{scope:?}");
    }
}

#[test]
fn install_hooks_omp_keeps_the_users_own_config_and_extensions() {
    let home = Home::new();
    let agent = home.dirs.home.join(".omp/agent");
    fs::create_dir_all(agent.join("extensions")).unwrap();
    fs::write(agent.join("config.yml"), "tools:\n  approvalMode: write\n").unwrap();
    fs::write(
        agent.join("extensions/mine.ts"),
        "export default () => {};\n",
    )
    .unwrap();
    let before = home.tree();
    plan_install(OMP, Scope::User, Path::new(EXE), &home.dirs)
        .unwrap()
        .apply()
        .unwrap();
    assert!(agent.join("extensions/attend.ts").is_file());
    plan_uninstall(OMP, Scope::User, Path::new(EXE), &home.dirs)
        .unwrap()
        .apply()
        .unwrap();
    assert_eq!(home.tree(), before, "only Attend's file came and went");
}

#[test]
fn install_hooks_grok_has_nothing_to_write() {
    let home = Home::new();
    for scope in [Scope::User, Scope::Project] {
        let plan = plan_install(AgentKind::Grok, scope, Path::new(EXE), &home.dirs).unwrap();
        assert!(plan.is_noop() && plan.files.is_empty(), "{plan:?}");
        let plan = plan_uninstall(AgentKind::Grok, scope, Path::new(EXE), &home.dirs).unwrap();
        assert!(plan.is_noop(), "{plan:?}");
        assert!(config_paths(AgentKind::Grok, scope, &home.dirs).is_empty());
    }
}

/// `attend install-hooks grok` (and `--dry-run`, `--uninstall`) says Grok CLI runs no
/// hooks, exits 0 and writes nothing into the home or the project.
#[test]
fn install_hooks_grok_on_the_command_line_says_there_is_nothing_to_install() {
    let home = Home::new();
    let before = home.tree();
    for extra in [&[][..], &["--dry-run"][..], &["--uninstall"][..]] {
        let out = std::process::Command::new(crate::support::attend_bin())
            .arg("install-hooks")
            .arg("grok")
            .args(extra)
            .env("HOME", &home.dirs.home)
            .env_remove("XDG_CONFIG_HOME")
            .current_dir(&home.dirs.project)
            .output()
            .unwrap();
        assert!(out.status.success(), "{extra:?}: {out:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("grok: Grok CLI runs no hooks or plugins; nothing to change"),
            "{extra:?}: {stdout}"
        );
    }
    assert_eq!(home.tree(), before, "nothing written");
}
