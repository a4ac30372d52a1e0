//! Qoder CLI's hook rows (docs/adapters.md, "Qoder CLI"; documented only, it needs a Qoder
//! sign-in): each payload of `tests/fixtures/qoder/1.1.52/documented/` (written from its
//! bundled hook guide and the payload builders of its `qodercli.js`) through `map_hook`,
//! and `attend install-hooks qoder` in a temporary home.

use attend::adapters::hooks::{map_hook, HookMapping};
use attend::install::{config_paths, plan_install, plan_uninstall, Dirs, Scope};
use attend::model::*;
use std::fs;
use std::path::Path;

const AT: Timestamp = Timestamp(1_800_000_000_000);
const SESSION: &str = "5f0c2a9e-0000-4000-8000-000000000001";

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/qoder/1.1.52/documented")
        .join(format!("{name}.json"));
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Asserts fixture `name` is a known event that maps to `kind` from Qoder's hook source,
/// with its session and directory.
fn assert_maps(name: &str, kind: SignalKind) -> HookMapping {
    let m = map_hook(AgentKind::Qoder, None, &fixture(name), AT).unwrap();
    assert!(m.known_event, "{name}");
    assert_eq!(m.agent, AgentKind::Qoder, "{name}");
    assert_eq!(m.signal.kind, kind, "{name}");
    assert_eq!(m.signal.source, Source::hook("qoder", &m.event));
    assert_eq!(m.session_id.as_deref(), Some(SESSION), "{name}");
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"), "{name}");
    m
}

#[test]
fn qoder_session_start_starts_session_with_its_resume_argv() {
    let m = assert_maps(
        "SessionStart",
        SignalKind::SessionStarted {
            source: Some("startup".into()),
        },
    );
    assert_eq!(
        m.signal.identity.resume_argv,
        Some(vec!["qodercli".into(), "--resume".into(), SESSION.into()])
    );
}

#[test]
fn qoder_prompt_and_tools_are_claudes_rows() {
    assert_maps("UserPromptSubmit", SignalKind::TurnStarted);
    assert_maps(
        "PreToolUse",
        SignalKind::ToolStarted {
            tool: "Bash".into(),
            tool_use_id: Some("call_0001".into()),
        },
    );
    assert_maps(
        "PostToolUse",
        SignalKind::ToolFinished {
            tool: Some("Bash".into()),
            tool_use_id: Some("call_0001".into()),
        },
    );
    assert_maps(
        "PostToolUseFailure",
        SignalKind::ToolError {
            error: "Command exited with code 1".into(),
        },
    );
    assert_maps("PostToolUseFailure-interrupt", SignalKind::GateDismissed);
}

/// Its dialog was never seen: the gate has its prompt and the two choices, no labels.
#[test]
fn qoder_permission_request_opens_a_gate_without_option_labels() {
    let m = assert_maps(
        "PermissionRequest",
        SignalKind::PermissionRequested {
            prompt: "Bash: echo hi > out.txt".into(),
            options: Vec::new(),
            answer_keys: ["allow", "deny"]
                .into_iter()
                .map(|c| AnswerKey {
                    choice: c.into(),
                    keys: String::new(),
                })
                .collect(),
            tool_use_id: None,
        },
    );
    assert_eq!(m.event, "PermissionRequest");
    assert_maps(
        "Notification-permission_prompt",
        SignalKind::AgentNotification {
            text: "Tool Bash requires confirmation".into(),
            gate: GateRef::Names(DecisionKind::Permission),
        },
    );
}

#[test]
fn qoder_stop_failure_and_session_end() {
    assert_maps(
        "Stop",
        SignalKind::TurnStopped {
            summary: Some("Wrote hi to out.txt.".into()),
        },
    );
    assert_maps(
        "StopFailure",
        SignalKind::TurnFailed {
            error: "usage limit".into(),
            usage_limit: true,
        },
    );
    assert_maps(
        "SessionEnd",
        SignalKind::SessionEnded {
            reason: Some("prompt_input_exit".into()),
        },
    );
    let m = map_hook(
        AgentKind::Qoder,
        None,
        r#"{"hook_event_name":"TeammateIdle","session_id":"s"}"#,
        AT,
    )
    .unwrap();
    assert!(!m.known_event);
}

/// `attend install-hooks qoder`: a group per event (no matcher: Qoder's matcher is a
/// regular expression; timeout 5 s) in `~/.qoder/settings.json`, a second install changes
/// nothing, the user's settings (comments included) stay, uninstall restores the bytes.
#[test]
fn qoder_install_writes_every_event_and_uninstall_restores_the_file() {
    const EXE: &str = "/opt/attend/bin/attend";
    let tmp = tempfile::tempdir().unwrap();
    let d = Dirs {
        home: tmp.path().join("home"),
        project: tmp.path().join("project"),
        claude_config_dir: None,
        codex_home: None,
        config_home: None,
        copilot_home: None,
        pi_agent_dir: None,
        cline_dir: None,
    };
    let path = config_paths(AgentKind::Qoder, Scope::User, &d)[0].clone();
    assert_eq!(path, d.home.join(".qoder/settings.json"));
    assert_eq!(
        config_paths(AgentKind::Qoder, Scope::Project, &d),
        [d.project.join(".qoder/settings.json")]
    );
    let users = "{\n  // mine\n  \"model\": \"auto\"\n}\n";
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, users).unwrap();
    plan_install(AgentKind::Qoder, Scope::User, Path::new(EXE), &d)
        .unwrap()
        .apply()
        .unwrap();
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains("// mine"), "{text}");
    let json: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["model"], "auto");
    let events = value["hooks"].as_object().unwrap();
    assert_eq!(events.len(), 12, "{text}");
    for (event, groups) in events {
        let group = &groups[0];
        assert!(group.get("matcher").is_none(), "{event}");
        assert_eq!(
            group["hooks"][0]["command"],
            "/opt/attend/bin/attend-hook qoder"
        );
        assert_eq!(group["hooks"][0]["timeout"], 5, "{event}");
    }
    assert!(events.contains_key("PermissionRequest") && events.contains_key("Stop"));
    let again = plan_install(AgentKind::Qoder, Scope::User, Path::new(EXE), &d).unwrap();
    assert!(again.is_noop(), "{}", again.diff());
    plan_uninstall(AgentKind::Qoder, Scope::User, Path::new(EXE), &d)
        .unwrap()
        .apply()
        .unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), users);
}
