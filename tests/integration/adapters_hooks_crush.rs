//! Crush's rows (docs/adapters.md, "Crush"; documented only, its binary downloads from
//! GitHub): its one hook event from `tests/fixtures/crush/0.90.0/documented/` (written
//! from its hooks guide and `internal/hooks/input.go`) through `map_hook`, its turn-end
//! notification's bytes through the terminal scanner, and `attend install-hooks crush` in a
//! temporary home.

use attend::adapters::hooks::map_hook;
use attend::adapters::terminal_signals::{to_signal, TerminalEvent, TerminalScanner};
use attend::install::{config_paths, plan_install, plan_uninstall, Dirs, Scope};
use attend::model::*;
use std::fs;
use std::path::{Path, PathBuf};

const AT: Timestamp = Timestamp(1_800_000_000_000);

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/crush/0.90.0/documented")
        .join(name)
}

#[test]
fn crush_pre_tool_use_starts_tool_named_by_its_event_field() {
    let text = fs::read_to_string(fixture("PreToolUse.json")).unwrap();
    let m = map_hook(AgentKind::Crush, None, &text, AT).unwrap();
    assert!(m.known_event);
    assert_eq!(m.event, "PreToolUse");
    assert_eq!(m.signal.source, Source::hook("crush", "PreToolUse"));
    assert_eq!(
        m.signal.kind,
        SignalKind::ToolStarted {
            tool: "bash".into(),
            tool_use_id: None,
        }
    );
    assert_eq!(m.session_id.as_deref(), Some("313909e"));
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"));
    assert_eq!(
        m.signal.identity.resume_argv,
        Some(vec!["crush".into(), "--session".into(), "313909e".into()])
    );
    // Its event names are case-insensitive and snake-caseable.
    let snake = text.replace("\"PreToolUse\"", "\"pre_tool_use\"");
    let m = map_hook(AgentKind::Crush, None, &snake, AT).unwrap();
    assert!(m.known_event);
    assert!(matches!(m.signal.kind, SignalKind::ToolStarted { .. }));
    let other = map_hook(
        AgentKind::Crush,
        None,
        r#"{"event":"PostToolUse","session_id":"313909e"}"#,
        AT,
    )
    .unwrap();
    assert!(!other.known_event);
    assert_eq!(other.signal.kind, SignalKind::IdentityOnly);
}

/// Crush's turn end with `"notifications": "osc"` on a terminal without OSC 99: OSC 777,
/// which Attend's terminal scanner reads as a notification (unread).
#[test]
fn crush_turn_end_notification_is_a_terminal_notification() {
    let bytes = fs::read(fixture("turn-end.osc777")).unwrap();
    let mut scanner = TerminalScanner::new();
    let mut events = Vec::new();
    scanner.feed(&bytes, &mut events);
    let body = "Agent's turn completed in \"Write hi\"";
    assert_eq!(
        events,
        [TerminalEvent::Notification {
            title: Some("Crush is waiting...".into()),
            body: body.into(),
        }]
    );
    let signal = to_signal(&events[0], AT).unwrap();
    assert_eq!(
        signal.kind,
        SignalKind::TerminalNotification {
            text: format!("Crush is waiting...: {body}"),
        }
    );
}

/// `attend install-hooks crush`: one `PreToolUse` entry (no matcher, timeout 5 s) in
/// `~/.config/crush/crush.json`, the user's settings and hooks kept, a second install
/// changes nothing, and uninstalling restores the file byte for byte.
#[test]
fn crush_install_writes_its_hook_and_uninstall_restores_the_file() {
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
    let path = config_paths(AgentKind::Crush, Scope::User, &d)[0].clone();
    assert_eq!(path, d.home.join(".config/crush/crush.json"));
    assert_eq!(
        config_paths(AgentKind::Crush, Scope::Project, &d),
        [d.project.join("crush.json")]
    );
    let users = "{\n  \"options\": { \"notifications\": \"osc\" },\n  \"hooks\": {\n    \"PreToolUse\": [\n      { \"matcher\": \"^bash$\", \"command\": \"./no-haskell.sh\" }\n    ]\n  }\n}\n";
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, users).unwrap();
    plan_install(AgentKind::Crush, Scope::User, Path::new(EXE), &d)
        .unwrap()
        .apply()
        .unwrap();
    let value: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(value["options"]["notifications"], "osc");
    let entries = value["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["command"], "./no-haskell.sh");
    assert_eq!(
        entries[1],
        serde_json::json!({"command": "/opt/attend/bin/attend-hook crush", "timeout": 5})
    );
    assert_eq!(value["hooks"].as_object().unwrap().len(), 1);
    let again = plan_install(AgentKind::Crush, Scope::User, Path::new(EXE), &d).unwrap();
    assert!(again.is_noop(), "{}", again.diff());
    plan_uninstall(AgentKind::Crush, Scope::User, Path::new(EXE), &d)
        .unwrap()
        .apply()
        .unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), users);
}
