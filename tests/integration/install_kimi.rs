//! `attend install-hooks kimi`: Attend's `[[hooks]]` tables in Kimi Code CLI's
//! `~/.kimi-code/config.toml` (install, idempotence, the user's own tables and comments
//! kept, uninstall byte-identical, dry-run diff, invalid files, no project scope), in
//! temporary homes (docs/adapters.md, "Kimi Code CLI").

use attend::install::{config_paths, plan_install, plan_uninstall, Dirs, InstallError, Scope};
use attend::model::AgentKind;
use std::fs;
use std::path::{Path, PathBuf};

const EXE: &str = "/opt/attend/bin/attend";
const HOOK: &str = "/opt/attend/bin/attend-hook kimi";

/// The events Attend registers (docs/adapters.md, "Kimi Code CLI").
const EVENTS: [&str; 13] = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PermissionResult",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "StopFailure",
    "Interrupt",
    "SubagentStart",
    "SubagentStop",
    "SessionEnd",
];

/// A user's config as Kimi's docs show it: a provider, a model, a hook of their own,
/// comments, and no newline at the end.
const USERS: &str = "# my Kimi settings\n\
default_model = \"local/m\"\n\
\n\
[providers.local]\n\
type = \"openai\"   # an OpenAI-compatible server\n\
base_url = \"http://127.0.0.1:8080/v1\"\n\
api_key = \"k\"\n\
\n\
[[hooks]]\n\
event = \"PreToolUse\"\n\
matcher = \"Bash\"\n\
command = \"node ~/.kimi-code/hooks/check-bash.mjs\"\n\
timeout = 5";

fn dirs(tmp: &Path) -> Dirs {
    Dirs {
        home: tmp.join("home"),
        project: tmp.join("project"),
        claude_config_dir: None,
        codex_home: None,
        config_home: None,
        copilot_home: None,
        pi_agent_dir: None,
        cline_dir: None,
    }
}

fn config(d: &Dirs) -> PathBuf {
    config_paths(AgentKind::Kimi, Scope::User, d)[0].clone()
}

fn tables(text: &str) -> Vec<(String, String, Option<i64>)> {
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    doc.get("hooks")
        .and_then(|h| h.as_array_of_tables())
        .map(|hooks| {
            hooks
                .iter()
                .map(|t| {
                    (
                        t["event"].as_str().unwrap().to_string(),
                        t["command"].as_str().unwrap().to_string(),
                        t.get("timeout").and_then(|v| v.as_integer()),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn kimi_install_writes_a_table_per_event_and_a_second_install_is_a_noop() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    let path = config(&d);
    assert!(
        path.ends_with(".kimi-code/config.toml"),
        "{}",
        path.display()
    );
    let plan = plan_install(AgentKind::Kimi, Scope::User, Path::new(EXE), &d).unwrap();
    assert!(!plan.is_noop());
    plan.apply().unwrap();
    let text = fs::read_to_string(&path).unwrap();
    let want: Vec<_> = EVENTS
        .iter()
        .map(|e| (e.to_string(), HOOK.to_string(), Some(5)))
        .collect();
    assert_eq!(tables(&text), want);
    // Only the four fields Kimi allows (any other makes it refuse the file).
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    for t in doc["hooks"].as_array_of_tables().unwrap().iter() {
        let keys: Vec<&str> = t.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["event", "command", "timeout"]);
    }
    let again = plan_install(AgentKind::Kimi, Scope::User, Path::new(EXE), &d).unwrap();
    assert!(again.is_noop(), "{}", again.diff());
}

#[test]
fn kimi_install_keeps_the_users_config_and_uninstall_restores_it_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    let path = config(&d);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, USERS).unwrap();

    // Dry run: the diff names Attend's command, nothing is written.
    let plan = plan_install(AgentKind::Kimi, Scope::User, Path::new(EXE), &d).unwrap();
    assert!(plan.diff().contains(HOOK), "{}", plan.diff());
    assert_eq!(fs::read_to_string(&path).unwrap(), USERS);

    plan.apply().unwrap();
    plan_install(AgentKind::Kimi, Scope::User, Path::new(EXE), &d)
        .unwrap()
        .apply()
        .unwrap();
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("# my Kimi settings\n"), "{text}");
    assert!(text.contains("type = \"openai\"   # an OpenAI-compatible server"));
    let hooks = tables(&text);
    assert_eq!(
        hooks[0],
        (
            "PreToolUse".into(),
            "node ~/.kimi-code/hooks/check-bash.mjs".into(),
            Some(5)
        ),
        "the user's own table stays first"
    );
    assert_eq!(hooks.len(), 1 + EVENTS.len());

    plan_uninstall(AgentKind::Kimi, Scope::User, Path::new(EXE), &d)
        .unwrap()
        .apply()
        .unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), USERS);
    let again = plan_uninstall(AgentKind::Kimi, Scope::User, Path::new(EXE), &d).unwrap();
    assert!(again.is_noop(), "{}", again.diff());
}

#[test]
fn kimi_uninstall_of_a_file_attend_created_removes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    plan_install(AgentKind::Kimi, Scope::User, Path::new(EXE), &d)
        .unwrap()
        .apply()
        .unwrap();
    plan_uninstall(AgentKind::Kimi, Scope::User, Path::new(EXE), &d)
        .unwrap()
        .apply()
        .unwrap();
    assert!(!config(&d).exists());
}

#[test]
fn kimi_invalid_toml_or_hooks_of_another_shape_change_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    let path = config(&d);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    for bad in ["default_model = \n", "hooks = \"none\"\n"] {
        fs::write(&path, bad).unwrap();
        let err = plan_install(AgentKind::Kimi, Scope::User, Path::new(EXE), &d).unwrap_err();
        assert!(matches!(err, InstallError::Parse { .. }), "{bad:?}: {err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), bad);
    }
}

#[test]
fn kimi_has_no_project_scope() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    let err = plan_install(AgentKind::Kimi, Scope::Project, Path::new(EXE), &d).unwrap_err();
    assert!(
        err.to_string().contains("~/.kimi-code/config.toml"),
        "{err}"
    );
}
