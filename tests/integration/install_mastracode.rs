//! `attend install-hooks mastracode`: Attend's entries in MastraCode's flat
//! `~/.mastracode/hooks.json` (event lists at the top level; install, idempotence, the
//! user's hooks kept, uninstall byte-identical, dry-run diff, a moved executable, invalid
//! JSON, the project's `.mastracode/hooks.json`), in temporary homes (docs/adapters.md,
//! "MastraCode").

use attend::install::{config_paths, plan_install, plan_uninstall, Dirs, InstallError, Scope};
use attend::model::AgentKind;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

const EXE: &str = "/opt/attend/bin/attend";
const HOOK: &str = "/opt/attend/bin/attend-hook mastracode";
const MASTRA: AgentKind = AgentKind::MastraCode;

/// The events Attend registers (docs/adapters.md, "MastraCode"), in its order.
const EVENTS: [&str; 11] = [
    "SessionStart",
    "UserPromptSubmit",
    "AgentStart",
    "PreToolUse",
    "PermissionRequest",
    "PermissionResult",
    "PostToolUse",
    "Notification",
    "AgentEnd",
    "Interrupt",
    "SessionEnd",
];

/// A user's own hooks, in MastraCode's documented shape (a matcher on one), two-space
/// JSON with no newline at the end.
const USERS: &str = r#"{
  "PreToolUse": [
    {
      "type": "command",
      "command": "~/.mastracode/check.sh",
      "matcher": { "tool_name": "execute_command" },
      "description": "check commands"
    }
  ],
  "Stop": [
    { "type": "command", "command": "notify-send done" }
  ]
}"#;

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

fn hooks_file(d: &Dirs, scope: Scope) -> PathBuf {
    config_paths(MASTRA, scope, d)[0].clone()
}

fn install(d: &Dirs, scope: Scope, exe: &str) {
    plan_install(MASTRA, scope, Path::new(exe), d)
        .unwrap()
        .apply()
        .unwrap();
}

fn uninstall(d: &Dirs, scope: Scope) {
    plan_uninstall(MASTRA, scope, Path::new(EXE), d)
        .unwrap()
        .apply()
        .unwrap();
}

/// Attend's entries: (event, the entry's object).
fn attends(value: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (event, list) in value.as_object().unwrap() {
        for entry in list.as_array().unwrap() {
            if entry["command"]
                .as_str()
                .is_some_and(|c| c.contains("attend"))
            {
                out.push((event.clone(), entry.clone()));
            }
        }
    }
    out
}

#[test]
fn mastracode_install_writes_one_typed_entry_per_event_and_a_second_install_is_a_noop() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    let path = hooks_file(&d, Scope::User);
    assert_eq!(path, d.home.join(".mastracode/hooks.json"));
    install(&d, Scope::User, EXE);
    let value: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    // The event lists stand at the top level: no `hooks` object, no version.
    assert!(value.get("hooks").is_none(), "{value}");
    let got = attends(&value);
    let mut events: Vec<&str> = got.iter().map(|(e, _)| e.as_str()).collect();
    events.sort_unstable();
    let mut want = EVENTS.to_vec();
    want.sort_unstable();
    assert_eq!(events, want);
    for (event, entry) in &got {
        // MastraCode skips an entry without `"type": "command"`; timeouts in milliseconds.
        assert_eq!(
            entry,
            &serde_json::json!({"type": "command", "command": HOOK, "timeout": 5000}),
            "{event}"
        );
    }
    let again = plan_install(MASTRA, Scope::User, Path::new(EXE), &d).unwrap();
    assert!(again.is_noop(), "{}", again.diff());
}

#[test]
fn mastracode_install_keeps_the_users_hooks_and_uninstall_restores_them_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    let path = hooks_file(&d, Scope::User);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, USERS).unwrap();

    // Dry run: the diff names Attend's command, nothing is written.
    let plan = plan_install(MASTRA, Scope::User, Path::new(EXE), &d).unwrap();
    assert!(plan.diff().contains(HOOK), "{}", plan.diff());
    assert_eq!(fs::read_to_string(&path).unwrap(), USERS);

    plan.apply().unwrap();
    let value: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let pre = value["PreToolUse"].as_array().unwrap();
    assert_eq!(
        pre[0]["command"], "~/.mastracode/check.sh",
        "the user's own entry stays first"
    );
    assert_eq!(value["Stop"].as_array().unwrap().len(), 1, "{value}");
    assert_eq!(attends(&value).len(), EVENTS.len());

    uninstall(&d, Scope::User);
    assert_eq!(fs::read_to_string(&path).unwrap(), USERS);
    let again = plan_uninstall(MASTRA, Scope::User, Path::new(EXE), &d).unwrap();
    assert!(again.is_noop(), "{}", again.diff());
}

/// A moved executable: the commands are rewritten in place, one entry per event stays.
#[test]
fn mastracode_reinstall_from_another_directory_rewrites_the_commands() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    install(&d, Scope::User, "/usr/local/bin/attend");
    install(&d, Scope::User, EXE);
    let text = fs::read_to_string(hooks_file(&d, Scope::User)).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    let got = attends(&value);
    assert_eq!(got.len(), EVENTS.len(), "{text}");
    assert!(got.iter().all(|(_, e)| e["command"] == HOOK), "{text}");
}

#[test]
fn mastracode_uninstall_of_a_file_attend_created_removes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    install(&d, Scope::User, EXE);
    assert!(hooks_file(&d, Scope::User).exists());
    uninstall(&d, Scope::User);
    assert!(!hooks_file(&d, Scope::User).exists());
}

#[test]
fn mastracode_invalid_json_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    let path = hooks_file(&d, Scope::User);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    // MastraCode reads hooks.json with JSON.parse: no comments.
    for bad in ["{\"Stop\": ", "// mine\n{}"] {
        fs::write(&path, bad).unwrap();
        let err = plan_install(MASTRA, Scope::User, Path::new(EXE), &d).unwrap_err();
        assert!(matches!(err, InstallError::Parse { .. }), "{bad:?}: {err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), bad);
    }
    // An event whose value is not a list cannot take Attend's entry.
    fs::write(&path, r#"{"AgentEnd": {}}"#).unwrap();
    let err = plan_install(MASTRA, Scope::User, Path::new(EXE), &d).unwrap_err();
    assert!(matches!(err, InstallError::Shape { .. }), "{err}");
}

#[test]
fn mastracode_project_scope_is_the_projects_hooks_file() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    let path = hooks_file(&d, Scope::Project);
    assert_eq!(path, d.project.join(".mastracode/hooks.json"));
    install(&d, Scope::Project, EXE);
    let value: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(attends(&value).len(), EVENTS.len());
    assert!(!hooks_file(&d, Scope::User).exists());
    uninstall(&d, Scope::Project);
    assert!(!path.exists());
}
