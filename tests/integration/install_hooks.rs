//! `attend install-hooks`: merging Attend's entries into the agents' own configs
//! (install, idempotence, the user's other hooks, byte-identical round trip, dry-run diff,
//! invalid files, backups), for Claude, Codex, Cursor, Gemini, Qwen, Copilot and Droid, in
//! temporary homes.

use crate::support::hook_events;

use attend::install::{
    config_paths, plan_install, plan_install_as, plan_uninstall, Dirs, HookForm, InstallError,
    InstallPlan, Scope,
};
use attend::model::AgentKind;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

const EXE: &str = "/opt/attend/bin/attend";
/// The hook executable beside [`EXE`]: what new entries run.
const HOOK: &str = "/opt/attend/bin/attend-hook";

const AGENTS: [AgentKind; 8] = [
    AgentKind::Claude,
    AgentKind::Codex,
    AgentKind::Cursor,
    AgentKind::Gemini,
    AgentKind::Qwen,
    AgentKind::Copilot,
    AgentKind::Droid,
    AgentKind::Continue,
];

struct Home {
    _tmp: tempfile::TempDir,
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
        Home { _tmp: tmp, dirs }
    }

    fn paths(&self, agent: AgentKind) -> Vec<PathBuf> {
        config_paths(agent, Scope::User, &self.dirs)
    }

    fn install(&self, agent: AgentKind) -> InstallPlan {
        plan_install(agent, Scope::User, Path::new(EXE), &self.dirs).unwrap()
    }

    fn uninstall(&self, agent: AgentKind) -> InstallPlan {
        plan_uninstall(agent, Scope::User, Path::new(EXE), &self.dirs).unwrap()
    }

    fn write(&self, path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

fn read(path: &Path) -> Option<String> {
    fs::read_to_string(path).ok()
}

fn json(path: &Path) -> Value {
    let text = read(path).unwrap();
    let stripped: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    serde_json::from_str(&stripped).unwrap()
}

fn backups_of(path: &Path) -> Vec<PathBuf> {
    let name = path.file_name().unwrap().to_str().unwrap().to_string();
    let mut found: Vec<PathBuf> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with(&format!("{name}.attend-backup-"))
        })
        .collect();
    found.sort();
    found
}

/// Realistic configs holding the user's own hooks, per agent and file (2- and 4-space
/// indentation, comments in TOML and in Gemini's JSON, no trailing newline in one).
fn fixtures(agent: AgentKind) -> Vec<&'static str> {
    match agent {
        AgentKind::Claude => vec![
            r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": ["Bash(git status)", "Read(./src/**)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "/usr/local/bin/guard.sh", "timeout": 10 }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [{ "type": "command", "command": "notify-send done" }]
      }
    ]
  },
  "model": "opus"
}
"#,
        ],
        AgentKind::Codex => vec![
            r#"# Codex configuration
model = "gpt-5-codex"   # the default model
approval_policy = "on-request"

[features]
hooks = true

# trusted projects
[projects."/srv/work/demo"]
trust_level = "trusted"
"#,
            r#"{
    "hooks": {
        "SessionStart": [
            {
                "matcher": "startup",
                "hooks": [
                    {
                        "type": "command",
                        "command": "python3 ~/.codex/hooks/session_start.py",
                        "timeout": 30
                    }
                ]
            }
        ]
    }
}"#,
        ],
        AgentKind::Cursor => vec![
            r#"{
  "version": 1,
  "hooks": {
    "afterFileEdit": [{ "command": "./hooks/format.sh" }],
    "stop": [
      { "command": "./hooks/audit.sh", "timeout": 10 }
    ]
  }
}
"#,
        ],
        AgentKind::Gemini => vec![
            r#"{
    // user settings
    "theme": "GitHub",
    "security": {
        "auth": { "selectedType": "gemini-api-key" }
    },
    "hooks": {
        "BeforeTool": [
            {
                "matcher": "run_shell_command",
                "hooks": [
                    {
                        "name": "guard",
                        "type": "command",
                        "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/guard.sh",
                        "timeout": 2000
                    }
                ]
            }
        ]
    }
}
"#,
        ],
        AgentKind::Qwen => vec![
            r#"{
  // user settings
  "security": {
    "auth": { "selectedType": "openai" }
  },
  "tools": { "approvalMode": "default" },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "run_shell_command",
        "hooks": [
          { "type": "command", "command": "$QWEN_PROJECT_DIR/.qwen/hooks/guard.sh", "timeout": 10 }
        ]
      }
    ]
  }
}"#,
        ],
        // A plugin file (or pi's extension), not hook entries:
        // tests/integration/install_opencode.rs, tests/integration/install_kilo.rs,
        // tests/integration/install_pi.rs.
        AgentKind::OpenCode | AgentKind::Kilo | AgentKind::Pi => vec![],
        AgentKind::Copilot => vec![
            r#"{
  "model": "gpt-5",
  "trustedFolders": ["/srv/work/demo"],
  "hooks": {
    "preToolUse": [
      { "type": "command", "bash": "./scripts/guard.sh", "timeoutSec": 10 }
    ]
  }
}
"#,
        ],
        AgentKind::Droid => vec![
            r#"{
    "customModels": [
        {
            "model": "local-model",
            "baseUrl": "http://127.0.0.1:8080/v1",
            "apiKey": "${LOCAL_API_KEY}",
            "provider": "generic-chat-completion-api"
        }
    ],
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Execute",
                "hooks": [
                    { "type": "command", "command": "\"$FACTORY_PROJECT_DIR\"/.factory/hooks/guard.sh" }
                ]
            }
        ]
    }
}"#,
        ],
        // Continue CLI reads Claude's shape (its own settings keys beside it).
        AgentKind::Continue => vec![
            r#"{
  "disableAllHooks": false,
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{ "type": "command", "command": "./guard.sh", "timeout": 10 }]
      }
    ]
  }
}
"#,
        ],
        // TOML `[[hooks]]` tables: tests/integration/install_kimi.rs; hook files:
        // tests/integration/install_cline.rs; extension files and none:
        // tests/integration/install_omp.rs; the PyPI agents: install_py.rs.
        // Letta, Auggie, Amp, Qoder CLI and Crush: their own files.
        // Letta, Auggie and MastraCode: their own files.
        AgentKind::Kimi
        | AgentKind::Cline
        | AgentKind::Omp
        | AgentKind::Grok
        | AgentKind::Letta
        | AgentKind::Auggie
        | AgentKind::Vibe
        | AgentKind::Aider
        | AgentKind::Hermes
        | AgentKind::OpenHands
        | AgentKind::Amp
        | AgentKind::Qoder
        | AgentKind::Crush
        | AgentKind::MastraCode
        | AgentKind::Shell => vec![],
    }
}

/// Commands of every hook under `hooks.<event>` (grouped or flat shapes; Copilot's flat
/// entries hold theirs under `bash`).
fn commands(value: &Value, event: &str) -> Vec<String> {
    let mut out = Vec::new();
    for entry in value["hooks"][event].as_array().into_iter().flatten() {
        if let Some(c) = entry["command"].as_str().or(entry["bash"].as_str()) {
            out.push(c.to_string());
        }
        for hook in entry["hooks"].as_array().into_iter().flatten() {
            out.push(hook["command"].as_str().unwrap().to_string());
        }
    }
    out
}

fn events(agent: AgentKind) -> &'static [&'static str] {
    match agent {
        AgentKind::Claude => hook_events::CLAUDE,
        AgentKind::Codex => &[
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PermissionRequest",
            "PostToolUse",
            "Stop",
            "SessionEnd",
        ],
        AgentKind::Cursor => hook_events::CURSOR,
        AgentKind::Gemini => &[
            "SessionStart",
            "SessionEnd",
            "BeforeAgent",
            "AfterAgent",
            "BeforeModel",
            "BeforeTool",
            "AfterTool",
            "Notification",
        ],
        AgentKind::Qwen => hook_events::QWEN,
        AgentKind::OpenCode | AgentKind::Kilo | AgentKind::Pi => &[],
        AgentKind::Copilot => hook_events::COPILOT,
        AgentKind::Droid => hook_events::DROID,
        AgentKind::Continue => &[
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PermissionRequest",
            "PostToolUse",
            "PostToolUseFailure",
            "Notification",
            "Stop",
            "SubagentStart",
            "SubagentStop",
            "PreCompact",
            "SessionEnd",
        ],
        AgentKind::Kimi
        | AgentKind::Cline
        | AgentKind::Omp
        | AgentKind::Grok
        | AgentKind::Letta
        | AgentKind::Auggie
        | AgentKind::Vibe
        | AgentKind::Aider
        | AgentKind::Hermes
        | AgentKind::OpenHands
        | AgentKind::Amp
        | AgentKind::Qoder
        | AgentKind::Crush
        | AgentKind::MastraCode
        | AgentKind::Shell => &[],
    }
}

/// The command Attend's entry for `event` runs: `<HOOK> <agent>`, Copilot's followed by
/// the event (its payloads do not name it).
fn want(agent: AgentKind, event: &str) -> String {
    match agent {
        AgentKind::Copilot => format!("{HOOK} {agent} {event}"),
        _ => format!("{HOOK} {agent}"),
    }
}

/// The JSON hook file of an agent (Codex: hooks.json, the second file).
fn hook_file(home: &Home, agent: AgentKind) -> PathBuf {
    home.paths(agent).last().unwrap().clone()
}

#[test]
fn fresh_install_writes_every_event_and_a_second_install_is_a_noop() {
    for agent in AGENTS {
        let home = Home::new();
        let plan = home.install(agent);
        assert!(!plan.is_noop(), "{agent}");
        assert!(plan.files.iter().all(|f| f.before.is_none()), "{agent}");
        let backups = plan.apply().unwrap();
        assert!(backups.is_empty(), "{agent}: nothing to back up");

        let value = json(&hook_file(&home, agent));
        for event in events(agent) {
            assert_eq!(
                commands(&value, event),
                vec![want(agent, event)],
                "{agent} {event}"
            );
        }
        let hooks = value["hooks"].as_object().unwrap();
        assert_eq!(
            hooks.len(),
            events(agent).len(),
            "{agent}: only these events"
        );
        match agent {
            AgentKind::Claude => {
                assert_eq!(value["hooks"]["PreToolUse"][0]["matcher"], "*");
                assert_eq!(value["hooks"]["Stop"][0]["hooks"][0]["timeout"], 5);
                assert_eq!(value["hooks"]["Stop"][0]["hooks"][0]["type"], "command");
                // Its run may wait for a choice made in Attend on an external pane's gate
                // (docs/decisions/0015-answering-external-gates.md): longer than the wait.
                let gate = &value["hooks"]["PermissionRequest"][0];
                assert_eq!(
                    (&gate["matcher"], &gate["hooks"][0]["timeout"]),
                    (&"*".into(), &300.into())
                );
            }
            AgentKind::Gemini => {
                assert_eq!(value["hooks"]["AfterTool"][0]["hooks"][0]["timeout"], 5000);
            }
            AgentKind::Cursor => assert_eq!(value["version"], 1),
            AgentKind::Copilot => {
                let stop = &value["hooks"]["agentStop"][0];
                assert_eq!(
                    (&stop["type"], &stop["timeoutSec"]),
                    (&"command".into(), &5.into())
                );
                assert!(value.get("version").is_none(), "settings.json has none");
            }
            AgentKind::Droid => {
                assert_eq!(value["hooks"]["PreToolUse"][0]["matcher"], "*");
                assert_eq!(value["hooks"]["PostToolUse"][0]["matcher"], "*");
                let stop = &value["hooks"]["Stop"][0];
                assert!(stop.get("matcher").is_none(), "{stop}");
                assert_eq!(stop["hooks"][0]["timeout"], 5, "seconds");
                assert!(home.paths(agent)[0].ends_with(".factory/settings.json"));
            }
            AgentKind::Qwen => {
                let stop = &value["hooks"]["Stop"][0];
                assert!(stop.get("matcher").is_none(), "every tool: {stop}");
                assert_eq!(stop["hooks"][0]["timeout"], 5, "seconds");
                assert_eq!(stop["hooks"][0]["name"], "attend");
            }
            AgentKind::Codex => {
                let toml = read(&home.paths(agent)[0]).unwrap();
                assert_eq!(
                    toml,
                    format!("notify = [\"{HOOK}\", \"codex\", \"--notify\"]\n")
                );
            }
            AgentKind::Continue => {
                assert_eq!(value["hooks"]["PermissionRequest"][0]["matcher"], "*");
                let stop = &value["hooks"]["Stop"][0];
                assert!(stop.get("matcher").is_none(), "{stop}");
                assert_eq!(stop["hooks"][0]["timeout"], 5, "seconds");
                assert!(home.paths(agent)[0].ends_with(".continue/settings.json"));
            }
            AgentKind::OpenCode
            | AgentKind::Kilo
            | AgentKind::Pi
            | AgentKind::Kimi
            | AgentKind::Cline
            | AgentKind::Omp
            | AgentKind::Grok
            | AgentKind::Letta
            | AgentKind::Auggie
            | AgentKind::Vibe
            | AgentKind::Aider
            | AgentKind::Hermes
            | AgentKind::OpenHands
            | AgentKind::Amp
            | AgentKind::Qoder
            | AgentKind::Crush
            | AgentKind::MastraCode
            | AgentKind::Shell => {
                unreachable!()
            }
        }
        for path in home.paths(agent) {
            assert!(read(&path).unwrap().ends_with('\n'), "{}", path.display());
        }

        let again = home.install(agent);
        assert!(again.is_noop(), "{agent}: {}", again.diff());
        assert_eq!(again.diff(), "");
        assert_eq!(again.apply().unwrap(), Vec::<PathBuf>::new());
    }
}

#[test]
fn install_keeps_the_users_own_hooks_and_settings() {
    for agent in AGENTS {
        let home = Home::new();
        let paths = home.paths(agent);
        for (path, text) in paths.iter().zip(fixtures(agent)) {
            home.write(path, text);
        }
        let before = json(&hook_file(&home, agent));
        home.install(agent).apply().unwrap();
        let after = json(&hook_file(&home, agent));

        for (event, list) in before["hooks"].as_object().unwrap() {
            let old = list.as_array().unwrap();
            let new = after["hooks"][event].as_array().unwrap();
            assert_eq!(&new[..old.len()], &old[..], "{agent} {event}: user's first");
        }
        for (key, value) in before.as_object().unwrap() {
            if key != "hooks" {
                assert_eq!(&after[key], value, "{agent} {key}");
            }
        }
        for event in events(agent) {
            assert_eq!(
                commands(&after, event)
                    .iter()
                    .filter(|c| **c == want(agent, event))
                    .count(),
                1,
                "{agent} {event}"
            );
        }
        if agent == AgentKind::Codex {
            let toml = read(&paths[0]).unwrap();
            assert!(toml.starts_with(
                "# Codex configuration\nmodel = \"gpt-5-codex\"   # the default model\n"
            ));
            assert!(toml.contains("\n# trusted projects\n[projects.\"/srv/work/demo\"]\n"));
            assert!(toml.contains(&format!("notify = [\"{HOOK}\", \"codex\", \"--notify\"]\n")));
        }
        // The user's formatting is kept: the file's own lines are still there, in order.
        let text = read(&hook_file(&home, agent)).unwrap();
        let original = fixtures(agent).last().unwrap().to_string();
        let first_lines: Vec<&str> = original.lines().take(3).collect();
        assert!(
            text.starts_with(&first_lines.join("\n")),
            "{agent}:\n{text}"
        );
    }
}

#[test]
fn install_install_uninstall_leaves_the_config_byte_identical() {
    for agent in AGENTS {
        for (with_files, drop_backups) in [(true, false), (true, true), (false, false)] {
            let home = Home::new();
            let paths = home.paths(agent);
            if with_files {
                for (path, text) in paths.iter().zip(fixtures(agent)) {
                    home.write(path, text);
                }
            }
            let originals: Vec<Option<String>> = paths.iter().map(|p| read(p)).collect();

            home.install(agent).apply().unwrap();
            let second = home.install(agent);
            assert!(second.is_noop(), "{agent}");
            second.apply().unwrap();
            if drop_backups {
                // Without backups the format-preserving edit alone must restore the bytes.
                for path in &paths {
                    for backup in backups_of(path) {
                        fs::remove_file(backup).unwrap();
                    }
                }
            }
            home.uninstall(agent).apply().unwrap();

            for (path, original) in paths.iter().zip(&originals) {
                assert_eq!(
                    &read(path),
                    original,
                    "{agent} {} (files: {with_files}, backups dropped: {drop_backups})",
                    path.display()
                );
            }
            assert!(
                home.uninstall(agent).is_noop(),
                "{agent}: nothing left to remove"
            );
        }
    }
}

#[test]
fn round_trip_is_byte_identical_for_compact_and_four_space_json() {
    let cases = [
        "{\"model\":\"opus\",\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"true\"}]}]}}",
        "{\n    \"model\": \"opus\",\n    \"env\": {\n        \"A\": \"1\"\n    }\n}\n",
        "{}\n",
        "{\n  \"hooks\": {}\n}\n",
        "",
    ];
    for original in cases {
        let home = Home::new();
        let path = hook_file(&home, AgentKind::Claude);
        home.write(&path, original);
        home.install(AgentKind::Claude).apply().unwrap();
        assert!(home.install(AgentKind::Claude).is_noop());
        home.uninstall(AgentKind::Claude).apply().unwrap();
        assert_eq!(read(&path).as_deref(), Some(original), "{original:?}");
    }
}

#[test]
fn uninstall_removes_only_attends_entries_when_the_user_changed_the_file_meanwhile() {
    let home = Home::new();
    let path = hook_file(&home, AgentKind::Claude);
    home.write(&path, fixtures(AgentKind::Claude)[0]);
    home.install(AgentKind::Claude).apply().unwrap();
    // The user adds a setting after installing.
    let edited = read(&path)
        .unwrap()
        .replace("\"model\": \"opus\"", "\"model\": \"sonnet\"");
    fs::write(&path, edited).unwrap();
    home.uninstall(AgentKind::Claude).apply().unwrap();

    let expected =
        fixtures(AgentKind::Claude)[0].replace("\"model\": \"opus\"", "\"model\": \"sonnet\"");
    assert_eq!(read(&path).unwrap(), expected);
}

#[test]
fn dry_run_diff_shows_the_added_command_and_writes_nothing() {
    for agent in AGENTS {
        let home = Home::new();
        let paths = home.paths(agent);
        for (path, text) in paths.iter().zip(fixtures(agent)) {
            home.write(path, text);
        }
        let plan = home.install(agent);
        let diff = plan.diff();
        assert!(
            diff.contains(&format!("{HOOK} {agent}")),
            "{agent}:\n{diff}"
        );
        for path in &paths {
            assert!(
                diff.contains(&format!("+++ {}", path.display())),
                "{agent}:\n{diff}"
            );
        }
        assert!(diff
            .lines()
            .filter(|l| l.contains(&format!("{HOOK} {agent}")))
            .all(|l| l.starts_with('+')));
        // Planning (the dry run) wrote nothing and made no backup.
        for (path, text) in paths.iter().zip(fixtures(agent)) {
            assert_eq!(read(path).as_deref(), Some(text));
            assert!(backups_of(path).is_empty());
        }
    }
    // A missing file shows as created from /dev/null.
    let home = Home::new();
    let diff = home.install(AgentKind::Cursor).diff();
    assert!(diff.starts_with("--- /dev/null\n"), "{diff}");
    assert!(!hook_file(&home, AgentKind::Cursor).exists());
}

#[test]
fn invalid_files_are_refused_with_the_line_and_left_untouched() {
    let cases: [(AgentKind, usize, &str, usize); 4] = [
        (
            AgentKind::Claude,
            0,
            "{\n  \"model\": \"opus\",\n  \"hooks\": {,\n}\n",
            3,
        ),
        (
            AgentKind::Cursor,
            0,
            "{\n  \"version\": 1\n  // no comments in Cursor's file\n}\n",
            3,
        ),
        (
            AgentKind::Codex,
            0,
            "model = \"o3\"\n[features\nhooks = true\n",
            2,
        ),
        // A missing comma is reported where the comma belongs.
        (
            AgentKind::Gemini,
            0,
            "{\n    // ok\n    \"theme\": \"GitHub\"\n    \"x\": 1\n}\n",
            3,
        ),
    ];
    for (agent, index, text, line) in cases {
        let home = Home::new();
        let path = home.paths(agent)[index].clone();
        home.write(&path, text);
        for result in [
            plan_install(agent, Scope::User, Path::new(EXE), &home.dirs),
            plan_uninstall(agent, Scope::User, Path::new(EXE), &home.dirs),
        ] {
            match result {
                Err(InstallError::Parse {
                    path: p, line: l, ..
                }) => {
                    assert_eq!(p, path, "{agent}");
                    assert_eq!(l, line, "{agent}");
                }
                other => panic!("{agent}: expected a parse error, got {other:?}"),
            }
        }
        let message = plan_install(agent, Scope::User, Path::new(EXE), &home.dirs)
            .unwrap_err()
            .to_string();
        assert!(message.contains(&format!("line {line}")), "{message}");
        assert_eq!(read(&path).as_deref(), Some(text));
        assert!(backups_of(&path).is_empty());
    }
}

#[test]
fn apply_backs_up_the_original_once_per_change() {
    let home = Home::new();
    let path = hook_file(&home, AgentKind::Gemini);
    let original = fixtures(AgentKind::Gemini)[0];
    home.write(&path, original);
    let backups = home.install(AgentKind::Gemini).apply().unwrap();
    assert_eq!(backups, backups_of(&path));
    assert_eq!(backups.len(), 1);
    assert_eq!(read(&backups[0]).as_deref(), Some(original));
    assert!(backups[0]
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .strip_prefix("settings.json.attend-backup-")
        .unwrap()
        .parse::<u64>()
        .is_ok());
    // A no-op install makes no backup.
    assert!(home.install(AgentKind::Gemini).apply().unwrap().is_empty());
    assert_eq!(backups_of(&path).len(), 1);
}

#[test]
fn codex_refuses_someone_elses_notify_and_replaces_a_stale_own_one() {
    let home = Home::new();
    let [toml_path, json_path] = <[PathBuf; 2]>::try_from(home.paths(AgentKind::Codex)).unwrap();
    let theirs = "notify = [\"notify-send\", \"Codex\"]\nmodel = \"o3\"\n";
    home.write(&toml_path, theirs);
    let err = home.dirs.clone();
    match plan_install(AgentKind::Codex, Scope::User, Path::new(EXE), &err) {
        Err(e @ InstallError::NotifyTaken { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("notify-send"), "{msg}");
            assert!(msg.contains("only one notify program"), "{msg}");
        }
        other => panic!("expected NotifyTaken, got {other:?}"),
    }
    assert_eq!(read(&toml_path).as_deref(), Some(theirs));
    assert!(!json_path.exists());

    // An old install from another location is Attend's: replaced in place, not refused.
    let stale = "model = \"o3\"\nnotify = [\"/usr/local/bin/attend\", \"hook\", \"codex\", \"--notify\"] # attend\n";
    home.write(&toml_path, stale);
    home.install(AgentKind::Codex).apply().unwrap();
    assert_eq!(
        read(&toml_path).unwrap(),
        format!("model = \"o3\"\nnotify = [\"{HOOK}\", \"codex\", \"--notify\"] # attend\n")
    );
}

#[test]
fn reinstall_from_a_moved_binary_replaces_the_old_entries() {
    let home = Home::new();
    let old = Path::new("/usr/local/bin/attend");
    plan_install(AgentKind::Cursor, Scope::User, old, &home.dirs)
        .unwrap()
        .apply()
        .unwrap();
    home.install(AgentKind::Cursor).apply().unwrap();
    let value = json(&hook_file(&home, AgentKind::Cursor));
    for event in events(AgentKind::Cursor) {
        assert_eq!(commands(&value, event), vec![format!("{HOOK} cursor")]);
    }
}

#[test]
fn an_executable_path_with_spaces_is_quoted_and_still_recognised() {
    let home = Home::new();
    let exe = Path::new("/opt/my tools/attend");
    plan_install(AgentKind::Claude, Scope::User, exe, &home.dirs)
        .unwrap()
        .apply()
        .unwrap();
    let value = json(&hook_file(&home, AgentKind::Claude));
    assert_eq!(
        commands(&value, "Stop"),
        vec!["'/opt/my tools/attend-hook' claude".to_string()]
    );
    assert!(
        plan_install(AgentKind::Claude, Scope::User, exe, &home.dirs)
            .unwrap()
            .is_noop()
    );
    plan_uninstall(AgentKind::Claude, Scope::User, exe, &home.dirs)
        .unwrap()
        .apply()
        .unwrap();
    assert!(!hook_file(&home, AgentKind::Claude).exists());
}

#[test]
fn locations_follow_scope_and_the_agents_environment_overrides() {
    let home = Home::new();
    let mut dirs = home.dirs.clone();
    assert_eq!(
        config_paths(AgentKind::Claude, Scope::Project, &dirs),
        vec![dirs.project.join(".claude/settings.json")]
    );
    assert_eq!(
        config_paths(AgentKind::Codex, Scope::User, &dirs),
        vec![
            dirs.home.join(".codex/config.toml"),
            dirs.home.join(".codex/hooks.json")
        ]
    );
    assert_eq!(
        config_paths(AgentKind::Cursor, Scope::Project, &dirs),
        vec![dirs.project.join(".cursor/hooks.json")]
    );
    assert_eq!(
        config_paths(AgentKind::Gemini, Scope::User, &dirs),
        vec![dirs.home.join(".gemini/settings.json")]
    );
    assert_eq!(
        config_paths(AgentKind::Copilot, Scope::User, &dirs),
        vec![dirs.home.join(".copilot/settings.json")]
    );
    assert_eq!(
        config_paths(AgentKind::Copilot, Scope::Project, &dirs),
        vec![dirs.project.join(".github/hooks/attend.json")]
    );
    dirs.claude_config_dir = Some(dirs.home.join("claude-alt"));
    dirs.codex_home = Some(dirs.home.join("codex-alt"));
    dirs.copilot_home = Some(dirs.home.join("copilot-alt"));
    assert_eq!(
        config_paths(AgentKind::Copilot, Scope::User, &dirs),
        vec![dirs.home.join("copilot-alt/settings.json")]
    );
    assert_eq!(
        config_paths(AgentKind::Claude, Scope::User, &dirs),
        vec![dirs.home.join("claude-alt/settings.json")]
    );
    assert_eq!(
        config_paths(AgentKind::Codex, Scope::User, &dirs)[0],
        dirs.home.join("codex-alt/config.toml")
    );
    // Project scope writes into the project, not the overrides.
    plan_install(AgentKind::Codex, Scope::Project, Path::new(EXE), &dirs)
        .unwrap()
        .apply()
        .unwrap();
    assert!(dirs.project.join(".codex/hooks.json").exists());
    assert!(dirs.project.join(".codex/config.toml").exists());
    assert!(matches!(
        plan_install(AgentKind::Shell, Scope::User, Path::new(EXE), &dirs),
        Err(InstallError::Unsupported(AgentKind::Shell))
    ));
    assert!(matches!(
        plan_install(AgentKind::Claude, Scope::User, Path::new("attend"), &dirs),
        Err(InstallError::ExePath(_))
    ));
}

#[test]
fn a_file_changed_after_planning_is_not_overwritten() {
    let home = Home::new();
    let path = hook_file(&home, AgentKind::Claude);
    home.write(&path, "{}\n");
    let plan = home.install(AgentKind::Claude);
    fs::write(&path, "{\"model\": \"opus\"}\n").unwrap();
    assert!(matches!(plan.apply(), Err(InstallError::Changed { .. })));
    assert_eq!(read(&path).as_deref(), Some("{\"model\": \"opus\"}\n"));
}

#[test]
fn a_symlinked_config_stays_a_symlink() {
    let home = Home::new();
    let target = home.dirs.home.join("dotfiles/claude-settings.json");
    home.write(&target, "{\n  \"model\": \"opus\"\n}\n");
    let link = hook_file(&home, AgentKind::Claude);
    fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    home.install(AgentKind::Claude).apply().unwrap();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(read(&target).unwrap().contains(&format!("{HOOK} claude")));
}

/// Installs the older `<attend> hook <agent>` entries, as earlier versions wrote them.
fn install_older_form(home: &Home, agent: AgentKind) {
    plan_install_as(
        agent,
        Scope::User,
        Path::new(EXE),
        HookForm::AttendHook,
        &home.dirs,
    )
    .unwrap()
    .apply()
    .unwrap();
}

fn drop_backups(paths: &[PathBuf]) {
    for path in paths {
        for backup in backups_of(path) {
            fs::remove_file(backup).unwrap();
        }
    }
}

#[test]
fn older_attend_hook_entries_are_rewritten_in_place_then_uninstalled_byte_exactly() {
    for agent in AGENTS {
        for keep_backups in [true, false] {
            let home = Home::new();
            let paths = home.paths(agent);
            for (path, text) in paths.iter().zip(fixtures(agent)) {
                home.write(path, text);
            }
            let originals: Vec<Option<String>> = paths.iter().map(|p| read(p)).collect();
            install_older_form(&home, agent);
            let older: Vec<String> = paths.iter().map(|p| read(p).unwrap()).collect();
            assert!(
                older[older.len() - 1].contains(&format!("{EXE} hook {agent}")),
                "{agent}: the older form"
            );
            if !keep_backups {
                drop_backups(&paths);
            }

            let upgrade = home.install(agent);
            assert!(!upgrade.is_noop(), "{agent}");
            upgrade.apply().unwrap();
            // In place: the files differ only in Attend's commands.
            for (path, old) in paths.iter().zip(&older) {
                let want = old
                    .replace(&format!("{EXE} hook {agent}"), &format!("{HOOK} {agent}"))
                    .replace(
                        &format!("\"{EXE}\", \"hook\", \"codex\""),
                        &format!("\"{HOOK}\", \"codex\""),
                    );
                assert_eq!(read(path).unwrap(), want, "{agent} {}", path.display());
            }
            assert!(home.install(agent).is_noop(), "{agent}: upgraded once");

            if !keep_backups {
                drop_backups(&paths);
            }
            home.uninstall(agent).apply().unwrap();
            for (path, original) in paths.iter().zip(&originals) {
                assert_eq!(
                    &read(path),
                    original,
                    "{agent} {} (backups kept: {keep_backups})",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn uninstall_removes_both_forms_side_by_side() {
    for agent in AGENTS {
        let home = Home::new();
        let paths = home.paths(agent);
        for (path, text) in paths.iter().zip(fixtures(agent)) {
            home.write(path, text);
        }
        let originals: Vec<Option<String>> = paths.iter().map(|p| read(p)).collect();
        home.install(agent).apply().unwrap();
        drop_backups(&paths);
        // One entry of the older form among the new ones (a hand-edited file).
        let file = hook_file(&home, agent);
        let text = read(&file).unwrap().replacen(
            &format!("{HOOK} {agent}"),
            &format!("/usr/bin/attend hook {agent}"),
            1,
        );
        assert!(text.contains("/usr/bin/attend hook"), "{agent}");
        fs::write(&file, &text).unwrap();

        home.uninstall(agent).apply().unwrap();
        for (path, original) in paths.iter().zip(&originals) {
            assert_eq!(&read(path), original, "{agent} {}", path.display());
        }
    }
}

#[test]
fn hooks_never_name_an_attend_hook_that_is_not_there() {
    let tmp = tempfile::tempdir().unwrap();
    let attend = tmp.path().join("attend");
    fs::write(&attend, "").unwrap();
    assert_eq!(HookForm::for_installed(&attend), HookForm::AttendHook);
    fs::write(tmp.path().join("attend-hook"), "").unwrap();
    assert_eq!(HookForm::for_installed(&attend), HookForm::Executable);

    let home = Home::new();
    install_older_form(&home, AgentKind::Claude);
    let value = json(&hook_file(&home, AgentKind::Claude));
    assert_eq!(commands(&value, "Stop"), vec![format!("{EXE} hook claude")]);
    // The older form is not rewritten when it is the form asked for.
    let again = plan_install_as(
        AgentKind::Claude,
        Scope::User,
        Path::new(EXE),
        HookForm::AttendHook,
        &home.dirs,
    )
    .unwrap();
    assert!(again.is_noop());
    // Someone else's program named like a hook is not Attend's.
    let theirs = "{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"/x/attend-hook codex\"},{\"type\":\"command\",\"command\":\"/x/not-attend-hook claude\"}]}]}}";
    let home = Home::new();
    let path = hook_file(&home, AgentKind::Claude);
    home.write(&path, theirs);
    home.install(AgentKind::Claude).apply().unwrap();
    home.uninstall(AgentKind::Claude).apply().unwrap();
    assert_eq!(read(&path).as_deref(), Some(theirs));
}

#[test]
fn an_upgrade_keeps_attends_entries_where_they_stand() {
    for agent in [AgentKind::Claude, AgentKind::Cursor] {
        let home = Home::new();
        install_older_form(&home, agent);
        // The user then added a hook of their own after Attend's.
        let path = hook_file(&home, agent);
        let mut value = json(&path);
        let (event, theirs) = match agent {
            AgentKind::Claude => (
                "Stop",
                serde_json::json!({"hooks": [{"type": "command", "command": "notify-send done"}]}),
            ),
            _ => ("stop", serde_json::json!({"command": "notify-send done"})),
        };
        value["hooks"][event].as_array_mut().unwrap().push(theirs);
        let edited = serde_json::to_string_pretty(&value).unwrap() + "\n";
        fs::write(&path, &edited).unwrap();

        home.install(agent).apply().unwrap();
        let want = edited.replace(&format!("{EXE} hook {agent}"), &format!("{HOOK} {agent}"));
        assert_eq!(read(&path).unwrap(), want, "{agent}");
        assert_eq!(
            commands(&json(&path), event),
            vec![format!("{HOOK} {agent}"), "notify-send done".to_string()]
        );
    }
}

/// Copilot's project scope is a repository hook file of Attend's own,
/// `.github/hooks/attend.json`, with the version such files carry; uninstalling deletes
/// it. Entries of the older `attend hook copilot EVENT` form are rewritten in place, each
/// keeping its own event.
#[test]
fn copilot_project_file_is_attends_own_and_older_entries_keep_their_event() {
    let home = Home::new();
    let plan = plan_install(
        AgentKind::Copilot,
        Scope::Project,
        Path::new(EXE),
        &home.dirs,
    )
    .unwrap();
    plan.apply().unwrap();
    let path = home.dirs.project.join(".github/hooks/attend.json");
    let value = json(&path);
    assert_eq!(value["version"], 1);
    assert_eq!(
        commands(&value, "agentStop"),
        vec![want(AgentKind::Copilot, "agentStop")]
    );
    plan_uninstall(
        AgentKind::Copilot,
        Scope::Project,
        Path::new(EXE),
        &home.dirs,
    )
    .unwrap()
    .apply()
    .unwrap();
    assert!(!path.exists(), "the file Attend created is gone");

    let user = hook_file(&home, AgentKind::Copilot);
    let old = Path::new("/usr/local/bin/attend");
    plan_install_as(
        AgentKind::Copilot,
        Scope::User,
        old,
        HookForm::AttendHook,
        &home.dirs,
    )
    .unwrap()
    .apply()
    .unwrap();
    let value = json(&user);
    assert_eq!(
        commands(&value, "notification"),
        vec!["/usr/local/bin/attend hook copilot notification".to_string()]
    );
    home.install(AgentKind::Copilot).apply().unwrap();
    let value = json(&user);
    for event in events(AgentKind::Copilot) {
        assert_eq!(
            commands(&value, event),
            vec![want(AgentKind::Copilot, event)],
            "{event}"
        );
    }
}

/// Droid's project scope is the project's `.factory/settings.json` (its hooks reference);
/// the user scope `~/.factory/settings.json`.
#[test]
fn droid_reads_its_hooks_from_the_factory_settings_files() {
    let home = Home::new();
    assert_eq!(
        config_paths(AgentKind::Droid, Scope::Project, &home.dirs),
        vec![home.dirs.project.join(".factory/settings.json")]
    );
    assert_eq!(
        home.paths(AgentKind::Droid),
        vec![home.dirs.home.join(".factory/settings.json")]
    );
    let plan = plan_install(AgentKind::Droid, Scope::Project, Path::new(EXE), &home.dirs).unwrap();
    plan.apply().unwrap();
    let value = json(&home.dirs.project.join(".factory/settings.json"));
    assert_eq!(
        commands(&value, "SessionStart"),
        vec![format!("{HOOK} droid")]
    );
}
