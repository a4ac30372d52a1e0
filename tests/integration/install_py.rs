//! `attend install-hooks aider|hermes|vibe|openhands` in temporary homes (docs/adapters.md,
//! "aider", "Hermes Agent", "Mistral Vibe", "OpenHands CLI"): the file each agent loads,
//! a second install changing nothing, the user's own lines kept, uninstall restoring the
//! file byte for byte (and deleting a file Attend created), the dry run's diff, and the
//! refusals.

use attend::install::{config_paths, plan_install, plan_uninstall, Dirs, InstallError, Scope};
use attend::model::AgentKind;
use std::fs;
use std::path::{Path, PathBuf};

const EXE: &str = "/opt/attend/bin/attend";

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

fn path(agent: AgentKind, d: &Dirs) -> PathBuf {
    config_paths(agent, Scope::User, d)[0].clone()
}

fn install(agent: AgentKind, d: &Dirs) {
    plan_install(agent, Scope::User, Path::new(EXE), d)
        .unwrap()
        .apply()
        .unwrap();
}

fn uninstall(agent: AgentKind, d: &Dirs) {
    plan_uninstall(agent, Scope::User, Path::new(EXE), d)
        .unwrap()
        .apply()
        .unwrap();
}

/// A user's file of each agent (no newline at the end: an install adds one).
fn users(agent: AgentKind) -> &'static str {
    match agent {
        AgentKind::Aider => "# my aider settings\nmodel: openai/local\nauto-commits: false",
        AgentKind::Hermes => "model:\n  provider: custom   # my server\n  default: m\n",
        AgentKind::Vibe => "# mine\n[[hooks]]\nname = \"guard\"\ntype = \"pre_tool\"\nmatch = \"bash\"\ncommand = \"guard-bash\"\n",
        AgentKind::OpenHands => "{\n  \"hooks\": {\n    \"Stop\": [{\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint.sh\"}]}]\n  }\n}\n",
        _ => unreachable!(),
    }
}

const AGENTS: [AgentKind; 4] = [
    AgentKind::Aider,
    AgentKind::Hermes,
    AgentKind::Vibe,
    AgentKind::OpenHands,
];

#[test]
fn py_agents_install_where_they_load_hooks_and_a_second_install_is_a_noop() {
    for agent in AGENTS {
        let tmp = tempfile::tempdir().unwrap();
        let d = dirs(tmp.path());
        let file = path(agent, &d);
        let want = match agent {
            AgentKind::Aider => ".aider.conf.yml",
            AgentKind::Hermes => ".hermes/config.yaml",
            AgentKind::Vibe => ".vibe/hooks.toml",
            _ => ".openhands/hooks.json",
        };
        assert!(file.ends_with(want), "{agent}: {}", file.display());
        install(agent, &d);
        let text = fs::read_to_string(&file).unwrap();
        assert!(
            text.contains(&format!("/opt/attend/bin/attend-hook {agent}")),
            "{agent}: {text}"
        );
        let again = plan_install(agent, Scope::User, Path::new(EXE), &d).unwrap();
        assert!(again.is_noop(), "{agent}: {}", again.diff());
        uninstall(agent, &d);
        assert!(!file.exists(), "{agent}: a file Attend created is removed");
    }
}

#[test]
fn py_agents_keep_the_users_file_and_uninstall_restores_it_byte_identical() {
    for agent in AGENTS {
        let tmp = tempfile::tempdir().unwrap();
        let d = dirs(tmp.path());
        let file = path(agent, &d);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, users(agent)).unwrap();
        // Dry run: a diff, nothing written.
        let plan = plan_install(agent, Scope::User, Path::new(EXE), &d).unwrap();
        assert!(
            plan.diff().contains("attend-hook"),
            "{agent}: {}",
            plan.diff()
        );
        assert_eq!(fs::read_to_string(&file).unwrap(), users(agent));
        plan.apply().unwrap();
        install(agent, &d);
        let text = fs::read_to_string(&file).unwrap();
        let mine = match agent {
            AgentKind::Aider => "auto-commits: false",
            AgentKind::Hermes => "provider: custom   # my server",
            AgentKind::Vibe => "command = \"guard-bash\"",
            _ => "lint.sh",
        };
        assert!(text.contains(mine), "{agent}: {text}");
        uninstall(agent, &d);
        assert_eq!(fs::read_to_string(&file).unwrap(), users(agent), "{agent}");
        let again = plan_uninstall(agent, Scope::User, Path::new(EXE), &d).unwrap();
        assert!(again.is_noop(), "{agent}: {}", again.diff());
    }
}

#[test]
fn aider_gets_notifications_with_the_payload_as_an_argument() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    install(AgentKind::Aider, &d);
    let text = fs::read_to_string(path(AgentKind::Aider, &d)).unwrap();
    assert_eq!(
        text,
        "# >>> attend install-hooks aider >>> (Attend's lines, rewritten by it)\n\
         notifications: true\n\
         notifications-command: '/opt/attend/bin/attend-hook aider --notify {}'\n\
         # <<< attend install-hooks aider <<<\n"
    );
    // The project's file too.
    plan_install(AgentKind::Aider, Scope::Project, Path::new(EXE), &d)
        .unwrap()
        .apply()
        .unwrap();
    assert!(d.project.join(".aider.conf.yml").is_file());
}

#[test]
fn hermes_gets_one_hook_per_event_and_vibe_one_table_per_type() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    install(AgentKind::Hermes, &d);
    let text = fs::read_to_string(path(AgentKind::Hermes, &d)).unwrap();
    for event in [
        "on_session_start",
        "on_session_reset",
        "pre_llm_call",
        "pre_tool_call",
        "pre_approval_request",
        "post_approval_response",
        "post_tool_call",
        "post_llm_call",
        "on_session_end",
        "on_session_finalize",
    ] {
        assert!(
            text.contains(&format!(
                "  {event}:\n    - command: '/opt/attend/bin/attend-hook hermes'\n      timeout: 5\n"
            )),
            "{event}: {text}"
        );
    }
    install(AgentKind::Vibe, &d);
    let doc: toml_edit::DocumentMut = fs::read_to_string(path(AgentKind::Vibe, &d))
        .unwrap()
        .parse()
        .unwrap();
    let tables: Vec<(String, String, Option<String>)> = doc["hooks"]
        .as_array_of_tables()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["type"].as_str().unwrap().to_string(),
                t.get("match").and_then(|m| m.as_str()).map(str::to_string),
            )
        })
        .collect();
    assert_eq!(
        tables,
        [
            (
                "attend-pre_tool".into(),
                "pre_tool".into(),
                Some("*".into())
            ),
            (
                "attend-post_tool".into(),
                "post_tool".into(),
                Some("*".into())
            ),
            ("attend-post_agent".into(), "post_agent".into(), None),
        ]
    );
}

#[test]
fn a_key_the_user_set_is_refused_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    for (agent, text) in [
        (AgentKind::Aider, "notifications-command: say done\n"),
        (
            AgentKind::Hermes,
            "hooks:\n  pre_llm_call:\n    - command: mine.sh\n",
        ),
    ] {
        let file = path(agent, &d);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, text).unwrap();
        let err = plan_install(agent, Scope::User, Path::new(EXE), &d).unwrap_err();
        assert!(matches!(err, InstallError::Shape { .. }), "{agent}: {err}");
        assert!(err.to_string().contains("line 1"), "{agent}: {err}");
        assert_eq!(fs::read_to_string(&file).unwrap(), text);
    }
    let err = plan_install(AgentKind::Hermes, Scope::Project, Path::new(EXE), &d).unwrap_err();
    assert!(err.to_string().contains("~/.hermes/config.yaml"), "{err}");
}
