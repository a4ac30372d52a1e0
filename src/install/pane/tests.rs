//! The argv and environment a pane's agent gets (docs/adapters.md "Hooks for panes Attend
//! starts").

use super::*;
use crate::install::HookForm;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const EXE: &str = "/opt/attend/bin/attend";
const HOOK: &str = "/opt/attend/bin/attend-hook";
const DIR: &str = "/run/user/1000/attend/panes";

/// A world of files and variables for [`plan`].
struct World {
    files: BTreeMap<PathBuf, String>,
    vars: BTreeMap<String, String>,
}

impl World {
    fn new() -> World {
        World {
            files: BTreeMap::new(),
            vars: BTreeMap::from([("HOME".to_string(), "/home/u".to_string())]),
        }
    }

    fn file(mut self, path: &str, text: &str) -> World {
        self.files.insert(PathBuf::from(path), text.to_string());
        self
    }

    fn var(mut self, name: &str, value: &str) -> World {
        self.vars.insert(name.to_string(), value.to_string());
        self
    }

    fn plan(&self, agent: AgentKind, argv: &[&str]) -> Result<Option<PaneHooks>, InstallError> {
        let argv: Vec<String> = argv.iter().map(|a| a.to_string()).collect();
        let var = |name: &str| self.vars.get(name).cloned();
        let read = |path: &Path| -> Result<Option<String>, InstallError> {
            Ok(self.files.get(path).cloned())
        };
        plan(&PaneSetup {
            agent,
            argv: &argv,
            cwd: Path::new("/work/proj"),
            attend_exe: Path::new(EXE),
            form: HookForm::Executable,
            dir: Path::new(DIR),
            pane: "p3",
            var: &var,
            read: &read,
        })
    }

    fn hooks(&self, agent: AgentKind, argv: &[&str]) -> PaneHooks {
        self.plan(agent, argv)
            .expect("planned")
            .expect("hooks added")
    }
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn file_json(hooks: &PaneHooks) -> Value {
    assert_eq!(hooks.files.len(), 1, "one generated file");
    serde_json::from_str(&hooks.files[0].1).unwrap()
}

/// The commands of every hook of `event` in a settings value.
fn commands(settings: &Value, event: &str) -> Vec<String> {
    settings["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default())
        .filter_map(|h| h["command"].as_str().map(str::to_string))
        .collect()
}

const CLAUDE_FILE: &str = "/run/user/1000/attend/panes/p3-claude-settings.json";

#[test]
fn claude_gets_a_settings_file_with_every_hook_marked_as_the_panes() {
    let hooks = World::new().hooks(AgentKind::Claude, &["claude", "-p", "hi"]);
    assert_eq!(
        strs(&hooks.argv),
        ["claude", "--settings", CLAUDE_FILE, "-p", "hi"]
    );
    assert_eq!(
        hooks.env,
        [("ATTEND_PANE_HOOKS".to_string(), "claude".to_string())]
    );
    assert_eq!(hooks.files[0].0, PathBuf::from(CLAUDE_FILE));
    let settings = file_json(&hooks);
    let ours = format!("{HOOK} claude --pane-hooks");
    // Every event `install-hooks` writes for Claude, and no other.
    let events: Vec<&str> = settings["hooks"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut expected = crate::install::CLAUDE_EVENTS.to_vec();
    expected.sort_unstable();
    assert_eq!(events, expected);
    for event in crate::install::CLAUDE_EVENTS {
        assert_eq!(
            commands(&settings, event),
            std::slice::from_ref(&ours),
            "{event}"
        );
    }
    // The same groups `install-hooks` writes (tool events match every tool; 5 s).
    assert_eq!(settings["hooks"]["PreToolUse"][0]["matcher"], "*");
    assert_eq!(settings["hooks"]["Stop"][0]["hooks"][0]["timeout"], 5);
}

#[test]
fn claude_users_settings_are_merged_not_replaced() {
    let world = World::new().file(
        "/work/proj/my.json",
        r#"{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]}}"#,
    );
    // A file, relative to the pane's directory; the last `--settings` wins, as in Claude.
    let hooks = world.hooks(
        AgentKind::Claude,
        &[
            "claude",
            "--settings={\"model\": \"haiku\"}",
            "--resume",
            "s1",
            "--settings",
            "my.json",
            "--",
            "--settings",
        ],
    );
    assert_eq!(
        strs(&hooks.argv),
        [
            "claude",
            "--settings",
            CLAUDE_FILE,
            "--resume",
            "s1",
            "--",
            "--settings"
        ]
    );
    let settings = file_json(&hooks);
    assert_eq!(settings["model"], "opus");
    let ours = format!("{HOOK} claude --pane-hooks");
    assert_eq!(
        commands(&settings, "Stop"),
        ["mine".to_string(), ours.clone()]
    );
    assert_eq!(commands(&settings, "SessionStart"), [ours]);

    // JSON text.
    let hooks = World::new().hooks(
        AgentKind::Claude,
        &[
            "claude",
            "--settings",
            r#" {"permissions": {"defaultMode": "plan"}}"#,
        ],
    );
    assert_eq!(strs(&hooks.argv), ["claude", "--settings", CLAUDE_FILE]);
    assert_eq!(
        file_json(&hooks)["permissions"]["defaultMode"],
        "plan",
        "the user's settings are kept"
    );
}

#[test]
fn claude_resume_argv_gets_the_hooks_again() {
    let hooks = World::new().hooks(AgentKind::Claude, &["claude", "--resume", "abc-123"]);
    assert_eq!(
        strs(&hooks.argv),
        ["claude", "--settings", CLAUDE_FILE, "--resume", "abc-123"]
    );
}

#[test]
fn claude_settings_that_cannot_be_merged_leave_the_command_alone() {
    let world = World::new()
        .file("/work/proj/bad.json", "{\"hooks\": ")
        .file("/work/proj/list.json", "{\"hooks\": []}");
    let err = world
        .plan(AgentKind::Claude, &["claude", "--settings", "missing.json"])
        .unwrap_err();
    assert!(matches!(err, InstallError::Io { .. }), "{err}");
    let err = world
        .plan(AgentKind::Claude, &["claude", "--settings", "bad.json"])
        .unwrap_err();
    assert!(matches!(err, InstallError::Parse { line: 1, .. }), "{err}");
    let err = world
        .plan(AgentKind::Claude, &["claude", "--settings", "list.json"])
        .unwrap_err();
    assert!(
        err.to_string().contains("`hooks` is not an object"),
        "{err}"
    );
    // `--settings` without its value: Claude says so itself.
    assert_eq!(
        world
            .plan(AgentKind::Claude, &["claude", "--settings"])
            .unwrap(),
        None
    );
}

#[test]
fn only_the_agents_own_program_gets_hooks() {
    let world = World::new();
    for argv in [
        &["bash"][..],
        &["sh", "-c", "claude"],
        &["npx", "@anthropic-ai/claude-code"],
        &["claude", "mcp", "list"],
        &["/usr/bin/claude", "doctor"],
        &["env", "-S", "claude -p", "x"],
        &["env", "--chdir=/x", "claude"],
    ] {
        assert_eq!(
            world.plan(AgentKind::Claude, argv).unwrap(),
            None,
            "{argv:?}"
        );
    }
    assert_eq!(world.plan(AgentKind::Shell, &["bash"]).unwrap(), None);
    assert_eq!(
        world.plan(AgentKind::Cursor, &["cursor-agent"]).unwrap(),
        None
    );
    assert_eq!(
        world.plan(AgentKind::Codex, &["codex", "login"]).unwrap(),
        None
    );
}

#[test]
fn an_env_prefix_is_followed_to_the_program() {
    let hooks = World::new().hooks(
        AgentKind::Claude,
        &[
            "env",
            "-u",
            "CI",
            "--unset=X",
            "FOO=1",
            "/opt/bin/claude",
            "-c",
        ],
    );
    assert_eq!(
        strs(&hooks.argv),
        [
            "env",
            "-u",
            "CI",
            "--unset=X",
            "FOO=1",
            "/opt/bin/claude",
            "--settings",
            CLAUDE_FILE,
            "-c"
        ]
    );
    // `env -i` would drop ATTEND_PANE_HOOKS: it goes into the prefix as well.
    let hooks = World::new().hooks(AgentKind::Claude, &["env", "-i", "HOME=/h", "claude"]);
    assert_eq!(
        strs(&hooks.argv),
        [
            "env",
            "-i",
            "HOME=/h",
            "ATTEND_PANE_HOOKS=claude",
            "claude",
            "--settings",
            CLAUDE_FILE
        ]
    );
}

/// The `-c` overrides of a Codex argv, as `(key, TOML value)`.
fn overrides(argv: &[String]) -> Vec<(String, toml_edit::Item)> {
    argv.windows(2)
        .filter(|w| w[0] == "-c")
        .map(|w| {
            let (key, value) = w[1].split_once('=').unwrap();
            let doc: toml_edit::DocumentMut = format!("v={value}").parse().unwrap();
            (key.to_string(), doc["v"].clone())
        })
        .collect()
}

#[test]
fn codex_gets_trusted_hooks_and_notify_as_overrides() {
    let hooks = World::new().hooks(AgentKind::Codex, &["codex", "--no-daemon"]);
    assert_eq!(
        hooks.env,
        [("ATTEND_PANE_HOOKS".to_string(), "codex".to_string())]
    );
    assert!(hooks.files.is_empty());
    assert_eq!(hooks.argv.first().map(String::as_str), Some("codex"));
    assert_eq!(hooks.argv.last().map(String::as_str), Some("--no-daemon"));
    let found = overrides(&hooks.argv);
    let keys: Vec<&str> = found.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "hooks.SessionStart",
            "hooks.UserPromptSubmit",
            "hooks.PreToolUse",
            "hooks.PermissionRequest",
            "hooks.PostToolUse",
            "hooks.Stop",
            "hooks.SessionEnd",
            "hooks.state",
            "notify"
        ]
    );
    let stop = &found[5].1;
    assert_eq!(
        stop[0]["hooks"][0]["command"].as_str(),
        Some(format!("{HOOK} codex --pane-hooks").as_str())
    );
    assert_eq!(stop[0]["hooks"][0]["timeout"].as_integer(), Some(3));
    let state = &found[7].1;
    let trusted = state["/<session-flags>/config.toml:stop:0:0"]["trusted_hash"]
        .as_str()
        .unwrap();
    assert!(
        trusted.starts_with("sha256:") && trusted.len() == 71,
        "{trusted}"
    );
    assert!(state["/<session-flags>/config.toml:session_end:0:0"].is_inline_table());
    let notify: Vec<&str> = found[8]
        .1
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(notify, [HOOK, "codex", "--notify", "--pane-hooks"]);
}

#[test]
fn codex_resume_gets_the_overrides_before_the_subcommand() {
    let hooks = World::new().hooks(AgentKind::Codex, &["codex", "resume", "019a-thread"]);
    let n = hooks.argv.len();
    assert_eq!(strs(&hooks.argv[n - 2..]), ["resume", "019a-thread"]);
    assert_eq!(overrides(&hooks.argv).len(), 9);
}

#[test]
fn codex_never_replaces_someone_elses_notify_or_the_users_hook_overrides() {
    let taken = World::new()
        .var("CODEX_HOME", "/c")
        .file("/c/config.toml", "notify = [\"my-notifier\"]\n");
    let hooks = taken.hooks(AgentKind::Codex, &["codex"]);
    let keys: Vec<String> = overrides(&hooks.argv).into_iter().map(|(k, _)| k).collect();
    assert!(!keys.contains(&"notify".to_string()), "{keys:?}");
    assert!(keys.contains(&"hooks.Stop".to_string()));
    // Attend's own notify from install-hooks: replaced by the pane's.
    let installed = World::new().file(
        "/home/u/.codex/config.toml",
        &format!("notify = [\"{HOOK}\", \"codex\", \"--notify\"]\n"),
    );
    let hooks = installed.hooks(AgentKind::Codex, &["codex"]);
    assert_eq!(overrides(&hooks.argv).last().unwrap().0, "notify");
    // `env -i` hides the pane's CODEX_HOME (and its taken notify); an assignment names one.
    let hidden = taken.hooks(AgentKind::Codex, &["env", "-i", "HOME=/h", "codex"]);
    assert_eq!(overrides(&hidden.argv).last().unwrap().0, "notify");
    let named = World::new().file("/c/config.toml", "notify = [\"my-notifier\"]\n");
    let hooks = named.hooks(AgentKind::Codex, &["env", "CODEX_HOME=/c", "codex"]);
    assert_eq!(overrides(&hooks.argv).last().unwrap().0, "hooks.state");
    // The user's `-c notify=…` and `-c hooks…` are theirs.
    let hooks = World::new().hooks(AgentKind::Codex, &["codex", "-c", "notify=[\"x\"]"]);
    assert_eq!(
        overrides(&hooks.argv).last().unwrap().0,
        "notify",
        "the user's"
    );
    assert_eq!(overrides(&hooks.argv).len(), 9);
    assert_eq!(
        World::new()
            .plan(AgentKind::Codex, &["codex", "--config", "hooks.Stop=[]"])
            .unwrap(),
        None
    );
}

/// Gemini reads hooks from no file a user can name for one run (its system files must
/// belong to root): its panes report through `install-hooks` only.
#[test]
fn gemini_gets_nothing() {
    assert_eq!(
        World::new().plan(AgentKind::Gemini, &["gemini"]).unwrap(),
        None
    );
}
