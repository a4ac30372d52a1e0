//! `attend install-hooks letta`: Attend's matcher groups in Letta Code's
//! `~/.letta/settings.json` (install, idempotence, the user's settings and hooks kept,
//! uninstall byte-identical, dry-run diff, invalid JSON, the project's
//! `.letta/settings.json`, no `PermissionRequest` entry), in temporary homes
//! (docs/adapters.md, "Letta Code").

use attend::install::{config_paths, plan_install, plan_uninstall, Dirs, InstallError, Scope};
use attend::model::AgentKind;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

const EXE: &str = "/opt/attend/bin/attend";
const HOOK: &str = "/opt/attend/bin/attend-hook letta";
const LETTA: AgentKind = AgentKind::Letta;

/// The events Attend registers (docs/adapters.md, "Letta Code"), in its order.
const EVENTS: [&str; 10] = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionEnd",
];

/// Settings as Letta 0.25.9 writes them (its own state) plus a hook of the user's, in
/// two-space JSON with no newline at the end.
const USERS: &str = r#"{
  "lastAgent": "agent-local-1",
  "tokenStreaming": false,
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "~/.letta/hooks/check-bash.sh"
          }
        ]
      }
    ]
  }
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

fn settings(d: &Dirs, scope: Scope) -> PathBuf {
    config_paths(LETTA, scope, d)[0].clone()
}

fn install(d: &Dirs, scope: Scope) {
    plan_install(LETTA, scope, Path::new(EXE), d)
        .unwrap()
        .apply()
        .unwrap();
}

fn uninstall(d: &Dirs, scope: Scope) {
    plan_uninstall(LETTA, scope, Path::new(EXE), d)
        .unwrap()
        .apply()
        .unwrap();
}

/// Attend's groups per event: (event, matcher, command, timeout).
fn attends(value: &Value) -> Vec<(String, Option<String>, String, Option<u64>)> {
    let mut out = Vec::new();
    for (event, groups) in value["hooks"].as_object().unwrap() {
        for group in groups.as_array().unwrap() {
            for hook in group["hooks"].as_array().unwrap() {
                let command = hook["command"].as_str().unwrap();
                if command.starts_with(HOOK) {
                    out.push((
                        event.clone(),
                        group["matcher"].as_str().map(str::to_string),
                        command.to_string(),
                        hook["timeout"].as_u64(),
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn letta_install_writes_a_group_per_event_and_a_second_install_is_a_noop() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    let path = settings(&d, Scope::User);
    assert_eq!(path, d.home.join(".letta/settings.json"));
    install(&d, Scope::User);
    let value: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let got = attends(&value);
    let events: Vec<&str> = got.iter().map(|(e, ..)| e.as_str()).collect();
    let mut want = EVENTS.to_vec();
    want.sort_unstable();
    let mut sorted = events.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, want);
    for (event, matcher, command, timeout) in &got {
        assert_eq!(command, HOOK, "{event}");
        // Letta's timeouts are in milliseconds.
        assert_eq!(*timeout, Some(5000), "{event}");
        let tool_event = matches!(
            event.as_str(),
            "PreToolUse" | "PostToolUse" | "PostToolUseFailure"
        );
        assert_eq!(matcher.as_deref(), tool_event.then_some("*"), "{event}");
    }
    // A PermissionRequest hook that exits 0 approves the call: never registered.
    assert!(value["hooks"].get("PermissionRequest").is_none(), "{value}");
    let again = plan_install(LETTA, Scope::User, Path::new(EXE), &d).unwrap();
    assert!(again.is_noop(), "{}", again.diff());
}

#[test]
fn letta_install_keeps_the_users_settings_and_uninstall_restores_them_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    let path = settings(&d, Scope::User);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, USERS).unwrap();

    // Dry run: the diff names Attend's command, nothing is written.
    let plan = plan_install(LETTA, Scope::User, Path::new(EXE), &d).unwrap();
    assert!(plan.diff().contains(HOOK), "{}", plan.diff());
    assert_eq!(fs::read_to_string(&path).unwrap(), USERS);

    plan.apply().unwrap();
    install(&d, Scope::User);
    let value: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(value["lastAgent"], "agent-local-1");
    let pre = value["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(
        pre[0]["hooks"][0]["command"], "~/.letta/hooks/check-bash.sh",
        "the user's own group stays first"
    );
    assert_eq!(attends(&value).len(), EVENTS.len());

    uninstall(&d, Scope::User);
    assert_eq!(fs::read_to_string(&path).unwrap(), USERS);
    let again = plan_uninstall(LETTA, Scope::User, Path::new(EXE), &d).unwrap();
    assert!(again.is_noop(), "{}", again.diff());
}

#[test]
fn letta_uninstall_of_a_file_attend_created_removes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    install(&d, Scope::User);
    assert!(settings(&d, Scope::User).exists());
    uninstall(&d, Scope::User);
    assert!(!settings(&d, Scope::User).exists());
}

#[test]
fn letta_invalid_json_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    let path = settings(&d, Scope::User);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    // Letta reads its settings with JSON.parse: no comments.
    for bad in ["{\"hooks\": ", "// mine\n{}"] {
        fs::write(&path, bad).unwrap();
        let err = plan_install(LETTA, Scope::User, Path::new(EXE), &d).unwrap_err();
        assert!(matches!(err, InstallError::Parse { .. }), "{bad:?}: {err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), bad);
    }
}

#[test]
fn letta_project_scope_is_the_projects_letta_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    let path = settings(&d, Scope::Project);
    assert_eq!(path, d.project.join(".letta/settings.json"));
    install(&d, Scope::Project);
    let value: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(attends(&value).len(), EVENTS.len());
    assert!(!settings(&d, Scope::User).exists());
    uninstall(&d, Scope::Project);
    assert!(!path.exists());
}
