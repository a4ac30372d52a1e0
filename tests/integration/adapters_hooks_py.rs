//! The hook rows of aider, Mistral Vibe and OpenHands CLI (docs/adapters.md, "aider",
//! "Mistral Vibe", "OpenHands CLI"): aider's notification as the hook client sends it
//! (`tests/fixtures/aider/0.86.2/observed/`), Vibe's and OpenHands's documented payloads
//! (`tests/fixtures/vibe/3.0.3/documented/`, `tests/fixtures/openhands/1.16.0/documented/`).

use attend::adapters::hooks::{map_hook, HookMapping};
use attend::engine::{NewPane, World};
use attend::model::*;
use serde_json::json;
use std::path::Path;

const AT: Timestamp = Timestamp(1_800_000_000_000);

fn fixture(dir: &str, name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir)
        .join(format!("{name}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn aider(name: &str) -> HookMapping {
    let text = fixture("aider/0.86.2/observed", name);
    map_hook(AgentKind::Aider, Some("notify"), &text, AT).unwrap()
}

fn vibe(name: &str) -> HookMapping {
    map_hook(
        AgentKind::Vibe,
        None,
        &fixture("vibe/3.0.3/documented", name),
        AT,
    )
    .unwrap()
}

fn openhands(name: &str) -> HookMapping {
    let text = fixture("openhands/1.16.0/documented", name);
    map_hook(AgentKind::OpenHands, None, &text, AT).unwrap()
}

#[test]
fn aider_notify_stops_the_turn_with_the_reply_the_hook_client_added() {
    let m = aider("notify-sent");
    assert!(m.known_event);
    assert_eq!(m.event, "notify");
    assert_eq!(m.signal.source, Source::hook("aider", "notify"));
    assert_eq!(
        m.signal.kind,
        SignalKind::TurnStopped {
            summary: Some("Done: offline reply.".into())
        }
    );
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"));
    assert_eq!(m.session_id, None, "aider has no session id");
    // What aider's command itself passes: `{}`, a turn's end without words.
    assert_eq!(
        aider("notify").signal.kind,
        SignalKind::TurnStopped { summary: None }
    );
    let other = map_hook(AgentKind::Aider, Some("ready"), "{}", AT).unwrap();
    assert!(!other.known_event);
}

#[test]
fn aider_notify_ends_a_turn_done_unread_and_a_confirmation_on_screen_outranks_it() {
    let mut world = World::new();
    let (pane, _) = world.add_pane(
        NewPane {
            workspace: "/tmp/proj".into(),
            agent: AgentKind::Aider,
            owned: true,
            ..Default::default()
        },
        AT,
    );
    let signal = aider("notify-sent").signal;
    world.apply_signal(pane, &signal).unwrap();
    let p = world.pane(pane).unwrap();
    assert_eq!(
        (p.lifecycle, p.attention()),
        (Lifecycle::Done, Attention::Unread)
    );
    assert_eq!(p.last_message.as_deref(), Some("Done: offline reply."));
    // aider rings just before its "Run shell command?" row: the screen opens the gate.
    let kind = SignalKind::PermissionRequested {
        prompt: "Run shell command?".into(),
        options: Vec::new(),
        answer_keys: Vec::new(),
        tool_use_id: None,
    };
    let source = Source::new(Rung::NeedsInputChrome, "screen.chrome");
    world
        .apply_signal(pane, &Signal::new(kind, source, Timestamp(AT.0 + 100)))
        .unwrap();
    let p = world.pane(pane).unwrap();
    assert_eq!(
        (p.lifecycle, p.attention()),
        (Lifecycle::Blocked, Attention::PermissionRequired)
    );
}

#[test]
fn vibe_tool_hooks_and_turn_end() {
    let m = vibe("pre_tool");
    assert_eq!(
        m.signal.kind,
        SignalKind::ToolStarted {
            tool: "bash".into(),
            tool_use_id: None
        }
    );
    assert_eq!(m.signal.source, Source::hook("vibe", "pre_tool"));
    assert_eq!(
        vibe("post_tool").signal.kind,
        SignalKind::ToolFinished {
            tool: Some("bash".into()),
            tool_use_id: None
        }
    );
    let m = vibe("post_agent");
    assert_eq!(m.signal.kind, SignalKind::TurnStopped { summary: None });
    assert_eq!(
        m.session_id.as_deref(),
        Some("51ed706e-9352-fb40-404b-1149f8e9f3e8")
    );
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"));
    assert_eq!(m.signal.identity.resume_argv, None);
    // A subagent's turn end is inside the main agent's turn.
    let sub = json!({"hook_event_name": "post_agent", "session_id": "c1",
        "parent_session_id": "p1"});
    let m = map_hook(AgentKind::Vibe, None, &sub.to_string(), AT).unwrap();
    assert_eq!(m.signal.kind, SignalKind::IdentityOnly);
    let m = map_hook(AgentKind::Vibe, Some("before_tool"), "{}", AT).unwrap();
    assert!(!m.known_event);
}

#[test]
fn openhands_events_are_claudes_named_by_event_type() {
    let m = openhands("SessionStart");
    assert_eq!(m.event, "SessionStart");
    assert!(matches!(m.signal.kind, SignalKind::SessionStarted { .. }));
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"));
    assert_eq!(
        m.signal.identity.resume_argv,
        Some(vec![
            "openhands".to_string(),
            "--resume".into(),
            "a1b2c3d4-0000-4000-8000-000000000001".into()
        ])
    );
    assert_eq!(
        openhands("UserPromptSubmit").signal.kind,
        SignalKind::TurnStarted
    );
    assert_eq!(
        openhands("PreToolUse").signal.kind,
        SignalKind::ToolStarted {
            tool: "terminal".into(),
            tool_use_id: None
        }
    );
    assert!(matches!(
        openhands("PostToolUse").signal.kind,
        SignalKind::ToolFinished { .. }
    ));
    assert!(matches!(
        openhands("Stop").signal.kind,
        SignalKind::TurnStopped { .. }
    ));
    assert!(matches!(
        openhands("SessionEnd").signal.kind,
        SignalKind::SessionEnded { .. }
    ));
    // Claude's events OpenHands does not fire are unknown here.
    let m = map_hook(
        AgentKind::OpenHands,
        None,
        r#"{"event_type":"PermissionRequest"}"#,
        AT,
    )
    .unwrap();
    assert!(!m.known_event);
}
