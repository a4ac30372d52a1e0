//! Auggie's hook rows (docs/adapters.md, "Auggie"; documented only, it needs an Augment
//! sign-in): each payload of `tests/fixtures/auggie/0.36.0/documented/` (written from its
//! documentation and its package's payload builders) through `map_hook`, and
//! `attend install-hooks auggie` in a temporary home.

use attend::adapters::hooks::{map_hook, HookMapping};
use attend::install::{config_paths, plan_install, plan_uninstall, Dirs, Scope};
use attend::model::*;
use std::fs;
use std::path::Path;

const AT: Timestamp = Timestamp(1_800_000_000_000);

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/auggie/0.36.0/documented")
        .join(format!("{name}.json"));
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Asserts fixture `name` is a known event that maps to `kind` from Auggie's hook source,
/// with its conversation and workspace.
fn assert_maps(name: &str, kind: SignalKind) -> HookMapping {
    let m = map_hook(AgentKind::Auggie, None, &fixture(name), AT).unwrap();
    assert!(m.known_event, "{name}");
    assert_eq!(m.signal.kind, kind, "{name}");
    assert_eq!(m.signal.source, Source::hook("auggie", &m.event));
    assert_eq!(m.session_id.as_deref(), Some("conv-0001"), "{name}");
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"), "{name}");
    m
}

#[test]
fn auggie_session_start_starts_session_with_identity() {
    let m = assert_maps("SessionStart", SignalKind::SessionStarted { source: None });
    assert_eq!(
        m.signal.identity.resume_argv,
        Some(vec!["auggie".into(), "--resume".into(), "conv-0001".into()])
    );
}

#[test]
fn auggie_prompt_submit_starts_turn() {
    assert_maps("PromptSubmit", SignalKind::TurnStarted);
}

#[test]
fn auggie_pre_tool_use_starts_tool() {
    assert_maps(
        "PreToolUse",
        SignalKind::ToolStarted {
            tool: "launch-process".into(),
            tool_use_id: None,
        },
    );
}

#[test]
fn auggie_post_tool_use_finishes_tool_or_reports_its_error() {
    assert_maps(
        "PostToolUse",
        SignalKind::ToolFinished {
            tool: Some("launch-process".into()),
            tool_use_id: None,
        },
    );
    assert_maps(
        "PostToolUse-error",
        SignalKind::ToolError {
            error: "Command exited with code 1".into(),
        },
    );
}

#[test]
fn auggie_notification_is_plain() {
    assert_maps(
        "Notification",
        SignalKind::AgentNotification {
            text: "Auggie is waiting for your input".into(),
            gate: GateRef::None,
        },
    );
}

#[test]
fn auggie_stop_ends_the_turn_by_its_cause() {
    assert_maps("Stop", SignalKind::TurnStopped { summary: None });
    assert_maps("Stop-interrupted", SignalKind::GateDismissed);
    assert_maps(
        "Stop-error",
        SignalKind::TurnFailed {
            error: "the agent stopped on an error".into(),
            usage_limit: false,
        },
    );
}

#[test]
fn auggie_session_end_ends_session_and_unknown_events_are_identity_only() {
    assert_maps("SessionEnd", SignalKind::SessionEnded { reason: None });
    let m = map_hook(
        AgentKind::Auggie,
        None,
        r#"{"hook_event_name":"SomethingNew"}"#,
        AT,
    )
    .unwrap();
    assert!(!m.known_event);
    assert_eq!(m.signal.kind, SignalKind::IdentityOnly);
}

/// `attend install-hooks auggie`: a matcher group per event in `~/.augment/settings.json`
/// (timeout 5000 ms, no matcher: every tool), a second install changes nothing, the
/// user's settings stay, and uninstalling restores the file byte for byte.
#[test]
fn auggie_install_writes_every_event_and_uninstall_restores_the_file() {
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
    let path = config_paths(AgentKind::Auggie, Scope::User, &d)[0].clone();
    assert_eq!(path, d.home.join(".augment/settings.json"));
    let users = "{\n  \"model\": \"sonnet4.5\"\n}";
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, users).unwrap();
    let plan = plan_install(AgentKind::Auggie, Scope::User, Path::new(EXE), &d).unwrap();
    assert!(
        plan.diff().contains("attend-hook auggie"),
        "{}",
        plan.diff()
    );
    plan.apply().unwrap();
    let value: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(value["model"], "sonnet4.5");
    for event in [
        "SessionStart",
        "PromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Notification",
        "Stop",
        "SessionEnd",
    ] {
        let hook = &value["hooks"][event][0]["hooks"][0];
        assert_eq!(
            hook["command"], "/opt/attend/bin/attend-hook auggie",
            "{event}"
        );
        assert_eq!(hook["timeout"], 5000, "{event}");
    }
    let again = plan_install(AgentKind::Auggie, Scope::User, Path::new(EXE), &d).unwrap();
    assert!(again.is_noop(), "{}", again.diff());
    plan_uninstall(AgentKind::Auggie, Scope::User, Path::new(EXE), &d)
        .unwrap()
        .apply()
        .unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), users);
}
