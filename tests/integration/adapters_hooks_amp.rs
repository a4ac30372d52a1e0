//! Amp's rows (docs/adapters.md, "Amp"; documented only, it needs an Amp account): each
//! payload of `tests/fixtures/amp/0.0.1790712063-gb89205/documented/` (what Attend's plugin,
//! `data/amp/attend.ts`, sends for the events of Amp's plugin API) through `map_hook`, and
//! `attend install-hooks amp` in a temporary home.

use attend::adapters::hooks::{map_hook, HookMapping};
use attend::install::{config_paths, plan_install, plan_uninstall, Dirs, Scope};
use attend::model::*;
use std::fs;
use std::path::Path;

const AT: Timestamp = Timestamp(1_800_000_000_000);
const EXE: &str = "/opt/attend/bin/attend";

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/amp/0.0.1790712063-gb89205/documented")
        .join(format!("{name}.json"));
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Asserts fixture `name` is a known event that maps to `kind` from Amp's source, with
/// its thread and directory.
fn assert_maps(name: &str, kind: SignalKind) -> HookMapping {
    let m = map_hook(AgentKind::Amp, None, &fixture(name), AT).unwrap();
    assert!(m.known_event, "{name}");
    assert_eq!(m.signal.kind, kind, "{name}");
    assert_eq!(m.signal.source, Source::hook("amp", &m.event));
    assert_eq!(m.session_id.as_deref(), Some("T-0001"), "{name}");
    assert_eq!(m.cwd.as_deref(), Some("/tmp/proj"), "{name}");
    m
}

#[test]
fn amp_session_start_starts_session_with_its_thread() {
    let m = assert_maps("session.start", SignalKind::SessionStarted { source: None });
    assert_eq!(
        m.signal.identity.resume_argv,
        Some(vec![
            "amp".into(),
            "threads".into(),
            "continue".into(),
            "T-0001".into()
        ])
    );
}

#[test]
fn amp_agent_start_starts_turn() {
    assert_maps("agent.start", SignalKind::TurnStarted);
}

#[test]
fn amp_tool_call_and_result_run_a_tool() {
    assert_maps(
        "tool.call",
        SignalKind::ToolStarted {
            tool: "Bash".into(),
            tool_use_id: Some("toolu_0001".into()),
        },
    );
    assert_maps(
        "tool.result",
        SignalKind::ToolFinished {
            tool: Some("Bash".into()),
            tool_use_id: Some("toolu_0001".into()),
        },
    );
    assert_maps(
        "tool.result-error",
        SignalKind::ToolError {
            error: "exit code 1".into(),
        },
    );
}

#[test]
fn amp_agent_end_ends_the_turn_by_its_status() {
    assert_maps(
        "agent.end",
        SignalKind::TurnStopped {
            summary: Some("Wrote hi to out.txt.".into()),
        },
    );
    assert_maps("agent.end-interrupted", SignalKind::GateDismissed);
    assert_maps(
        "agent.end-error",
        SignalKind::TurnFailed {
            error: "the turn ended on an error".into(),
            usage_limit: false,
        },
    );
    let m = map_hook(
        AgentKind::Amp,
        None,
        r#"{"hook_event_name":"thread.title","thread_id":"T-0001"}"#,
        AT,
    )
    .unwrap();
    assert!(!m.known_event);
    assert_eq!(m.signal.kind, SignalKind::IdentityOnly);
}

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

/// `attend install-hooks amp`: Attend's plugin in `~/.config/amp/plugins/attend.ts` with
/// the absolute hook path, a second install changes nothing, a user's own plugin beside it
/// stays, and uninstalling leaves the tree as it was (the directories it made removed).
#[test]
fn amp_install_writes_the_plugin_and_uninstall_leaves_the_tree_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    let path = config_paths(AgentKind::Amp, Scope::User, &d)[0].clone();
    assert_eq!(path, d.home.join(".config/amp/plugins/attend.ts"));
    fs::create_dir_all(&d.home).unwrap();
    let plan = plan_install(AgentKind::Amp, Scope::User, Path::new(EXE), &d).unwrap();
    let diff = plan.diff();
    assert!(
        diff.contains("+const HOOK = [\"/opt/attend/bin/attend-hook\", \"amp\"];"),
        "{diff}"
    );
    plan.apply().unwrap();
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("// @i-know-the-amp-plugin-api-is-wip-and-very-experimental-right-now\n// Attend's Amp plugin"));
    for event in [
        "session.start",
        "agent.start",
        "tool.call",
        "tool.result",
        "agent.end",
    ] {
        assert!(text.contains(&format!("amp.on(\"{event}\"")), "{event}");
    }
    let again = plan_install(AgentKind::Amp, Scope::User, Path::new(EXE), &d).unwrap();
    assert!(again.is_noop(), "{}", again.diff());
    plan_uninstall(AgentKind::Amp, Scope::User, Path::new(EXE), &d)
        .unwrap()
        .apply()
        .unwrap();
    assert!(!d.home.join(".config/amp").exists());
    assert!(d.home.exists());

    // A user's plugin of the same name is not Attend's: refused, kept.
    let project = config_paths(AgentKind::Amp, Scope::Project, &d)[0].clone();
    assert_eq!(project, d.project.join(".amp/plugins/attend.ts"));
    fs::create_dir_all(project.parent().unwrap()).unwrap();
    fs::write(&project, "export default function (amp) {}\n").unwrap();
    assert!(plan_install(AgentKind::Amp, Scope::Project, Path::new(EXE), &d).is_err());
    assert!(
        plan_uninstall(AgentKind::Amp, Scope::Project, Path::new(EXE), &d)
            .unwrap()
            .is_noop()
    );
}
