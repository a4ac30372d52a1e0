//! `attend demo --live` (`docs/desktop-surfaces.md#attend-up-and-attend-demo---live`): a
//! demo in the running service, through the real hook path. Four panes run small `sh`
//! scripts that call `attend hook claude` with Claude Code's own hook payloads (the
//! recorded 2.1.197 fixtures in `tests/fixtures/claude/2.1.197/`, with the session,
//! directory and texts of the demo filled in) at a human pace, so that within a minute a
//! newcomer sees a permission gate (answerable from the notification, the panel or `attend
//! answer`), a completion, a failure and a finished piece of work waiting for review.
//!
//! `attend demo` without `--live` stays the offline replay through the engine.

use super::client::{call, CliError, Client, EXIT_INTERNAL, EXIT_OK};
use attend_hook::paths::runtime_dir;
use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use zbus::zvariant::Value;

const SESSION_START: &str =
    include_str!("../../tests/fixtures/claude/2.1.197/observed/SessionStart.json");
const PROMPT: &str =
    include_str!("../../tests/fixtures/claude/2.1.197/observed/UserPromptSubmit.json");
const PRE_TOOL: &str = include_str!("../../tests/fixtures/claude/2.1.197/observed/PreToolUse.json");
const PERMISSION: &str =
    include_str!("../../tests/fixtures/claude/2.1.197/observed/PermissionRequest.json");
const POST_TOOL: &str =
    include_str!("../../tests/fixtures/claude/2.1.197/observed/PostToolUse.json");
const STOP: &str = include_str!("../../tests/fixtures/claude/2.1.197/observed/Stop.json");
const SESSION_END: &str =
    include_str!("../../tests/fixtures/claude/2.1.197/observed/SessionEnd.json");
/// Not in `observed/` (Claude's failure hook was not recorded yet): the reconstructed one.
const STOP_FAILURE: &str = include_str!("../../tests/fixtures/claude/2.1.197/StopFailure.json");

/// Claude Code's permission dialog as 2.1.197 draws it (recorded in
/// `tests/fixtures/screens/`), for the `npm test` gate: an answer's keys are derived from
/// the dialog on screen (`docs/lifecycle-attention.md#answer`).
const PERMISSION_DIALOG: &[&str] = &[
    "────────────────────────────────────────────────────────────",
    " Bash command",
    "",
    "   npm test",
    "   Run a command",
    "",
    " Do you want to proceed?",
    " ❯ 1. Yes",
    "   2. Yes, and don't ask again for npm test commands in webapp/",
    "   3. No",
    "",
    " Esc to cancel",
];

/// One step of a pane's script.
enum Step {
    /// Wait this many seconds.
    Sleep(u32),
    /// Print a line on the pane's screen.
    Say(&'static str),
    /// Draw a dialog (its rows) the way the agent draws it; `attend answer` reads it.
    Dialog(&'static [&'static str]),
    /// Deliver a hook payload through `attend hook claude`.
    Hook(Json),
    /// Wait for one key typed into the pane (an answer): `1` runs `allow`, anything else
    /// `deny`.
    Gate { allow: Vec<Step>, deny: Vec<Step> },
}

/// A demo pane: workspace directory name, pane name, script.
struct DemoPane {
    workspace: &'static str,
    name: &'static str,
    steps: Vec<Step>,
}

/// A fixture with the demo's values: a fresh session id, the pane's directory, no
/// transcript, and `set` applied (`a.b` keys reach into objects).
fn payload(fixture: &str, session: &str, cwd: &Path, set: &[(&str, Json)]) -> Json {
    let mut v: Json = serde_json::from_str(fixture).expect("the fixtures are JSON");
    v["session_id"] = json!(session);
    v["cwd"] = json!(cwd.to_string_lossy());
    if let Some(m) = v.as_object_mut() {
        m.remove("transcript_path");
        m.remove("permission_suggestions");
    }
    for (key, value) in set {
        let mut target = &mut v;
        let parts: Vec<&str> = key.split('.').collect();
        for p in &parts[..parts.len() - 1] {
            target = &mut target[*p];
        }
        target[parts[parts.len() - 1]] = value.clone();
    }
    v
}

fn panes(root: &Path) -> Vec<DemoPane> {
    let dir = |ws: &str| root.join(ws);
    let session = || uuid::Uuid::new_v4().to_string();
    let (s1, s2, s3, s4) = (session(), session(), session(), session());
    let api = |f: &str, set: &[(&str, Json)]| payload(f, &s1, &dir("webapp"), set);
    let tests = |f: &str, set: &[(&str, Json)]| payload(f, &s2, &dir("webapp"), set);
    let deploy = |f: &str, set: &[(&str, Json)]| payload(f, &s3, &dir("infra"), set);
    let review = |f: &str, set: &[(&str, Json)]| payload(f, &s4, &dir("docs"), set);
    let bash = |cmd: &str, id: &str| -> Vec<(&'static str, Json)> {
        vec![
            ("tool_input.command", json!(cmd)),
            ("tool_input.description", json!("Run a command")),
            ("tool_use_id", json!(id)),
        ]
    };
    vec![
        DemoPane {
            workspace: "webapp",
            name: "api",
            steps: vec![
                Step::Hook(api(SESSION_START, &[])),
                Step::Sleep(3),
                Step::Say("> run the test suite"),
                Step::Hook(api(PROMPT, &[("prompt", json!("run the test suite"))])),
                Step::Sleep(3),
                Step::Hook(api(PRE_TOOL, &bash("npm test", "toolu_demo_1"))),
                Step::Say("● Bash(npm test)"),
                Step::Dialog(PERMISSION_DIALOG),
                Step::Hook(api(PERMISSION, &bash("npm test", "toolu_demo_1"))),
                Step::Gate {
                    allow: vec![
                        Step::Say("● Bash(npm test) — allowed; running"),
                        Step::Sleep(2),
                        Step::Hook(api(POST_TOOL, &bash("npm test", "toolu_demo_1"))),
                        Step::Sleep(1),
                        Step::Hook(api(
                            STOP,
                            &[("last_assistant_message", json!("All 42 tests pass."))],
                        )),
                        Step::Say("All 42 tests pass."),
                    ],
                    deny: vec![
                        Step::Say("● Bash(npm test) — denied"),
                        Step::Sleep(1),
                        Step::Hook(api(
                            STOP,
                            &[(
                                "last_assistant_message",
                                json!("Understood: I did not run the tests."),
                            )],
                        )),
                        Step::Say("Understood: I did not run the tests."),
                    ],
                },
            ],
        },
        DemoPane {
            workspace: "webapp",
            name: "tests",
            steps: vec![
                Step::Hook(tests(SESSION_START, &[])),
                Step::Sleep(4),
                Step::Say("> add tests for the parser"),
                Step::Hook(tests(
                    PROMPT,
                    &[("prompt", json!("add tests for the parser"))],
                )),
                Step::Sleep(4),
                Step::Hook(tests(PRE_TOOL, &bash("cargo test parser", "toolu_demo_2"))),
                Step::Sleep(4),
                Step::Hook(tests(POST_TOOL, &bash("cargo test parser", "toolu_demo_2"))),
                Step::Sleep(3),
                Step::Hook(tests(
                    STOP,
                    &[(
                        "last_assistant_message",
                        json!("Added 3 tests for the parser; all pass."),
                    )],
                )),
                Step::Say("Added 3 tests for the parser; all pass."),
            ],
        },
        DemoPane {
            workspace: "infra",
            name: "deploy",
            steps: vec![
                Step::Hook(deploy(SESSION_START, &[])),
                Step::Sleep(6),
                Step::Say("> deploy the staging stack"),
                Step::Hook(deploy(
                    PROMPT,
                    &[("prompt", json!("deploy the staging stack"))],
                )),
                Step::Sleep(5),
                Step::Hook(deploy(
                    PRE_TOOL,
                    &bash("make deploy-staging", "toolu_demo_3"),
                )),
                Step::Sleep(6),
                Step::Hook(deploy(
                    STOP_FAILURE,
                    &[(
                        "error_details",
                        json!("5-hour limit reached while deploying; resets at 18:00"),
                    )],
                )),
                Step::Say("API Error: rate limit reached"),
            ],
        },
        DemoPane {
            workspace: "docs",
            name: "review",
            steps: vec![
                Step::Hook(review(SESSION_START, &[])),
                Step::Sleep(8),
                Step::Say("> review README.md and suggest fixes"),
                Step::Hook(review(
                    PROMPT,
                    &[("prompt", json!("review README.md and suggest fixes"))],
                )),
                Step::Sleep(20),
                Step::Hook(review(
                    STOP,
                    &[(
                        "last_assistant_message",
                        json!("Ready for your review: 4 suggestions for README.md."),
                    )],
                )),
                Step::Say("Ready for your review: 4 suggestions for README.md."),
                Step::Sleep(30),
                Step::Hook(review(SESSION_END, &[])),
                Step::Say("(session ended; a pane you reviewed stays quiet)"),
            ],
        },
    ]
}

fn quote(s: &str) -> String {
    shlex::try_quote(s)
        .map(|q| q.into_owned())
        .unwrap_or_else(|_| "''".to_string())
}

/// Writes the payload files of `steps` into `dir` and returns the script lines.
fn script_lines(
    steps: &[Step],
    dir: &Path,
    attend: &str,
    n: &mut usize,
) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    for step in steps {
        match step {
            Step::Sleep(s) => out.push(format!("sleep {s}")),
            Step::Say(text) => out.push(format!("printf '%s\\r\\n' {}", quote(text))),
            Step::Dialog(rows) => {
                for row in rows.iter() {
                    out.push(format!("printf '%s\\r\\n' {}", quote(row)));
                }
            }
            Step::Hook(v) => {
                *n += 1;
                let file = dir.join(format!(
                    "{:02}-{}.json",
                    *n,
                    v["hook_event_name"].as_str().unwrap_or("hook")
                ));
                std::fs::write(&file, serde_json::to_vec_pretty(v)?)?;
                out.push(format!(
                    "{} hook claude < {}",
                    quote(attend),
                    quote(&file.to_string_lossy())
                ));
            }
            Step::Gate { allow, deny } => {
                out.push("stty -icanon -echo min 1 2>/dev/null".into());
                out.push("key=$(dd bs=1 count=1 2>/dev/null)".into());
                out.push("stty sane 2>/dev/null".into());
                // The agent takes its dialog off the screen once answered.
                out.push("printf '\\033[H\\033[2J'".into());
                out.push("if [ \"$key\" = 1 ]; then".into());
                out.extend(
                    script_lines(allow, dir, attend, n)?
                        .into_iter()
                        .map(|l| format!("  {l}")),
                );
                out.push("else".into());
                out.extend(
                    script_lines(deny, dir, attend, n)?
                        .into_iter()
                        .map(|l| format!("  {l}")),
                );
                out.push("fi".into());
            }
        }
    }
    Ok(out)
}

/// Writes `run.sh` (and its payloads) for one pane into `dir`.
fn write_script(pane: &DemoPane, dir: &Path, attend: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let mut n = 0;
    let mut lines = vec![
        "#!/bin/sh".to_string(),
        format!(
            "# attend demo --live: pane {} (a scripted Claude Code session)",
            pane.name
        ),
    ];
    lines.extend(script_lines(&pane.steps, dir, attend, &mut n)?);
    // Stay alive: an exit would be news of its own.
    lines.push("exec sleep 86400".into());
    let script = dir.join("run.sh");
    std::fs::write(&script, lines.join("\n") + "\n")?;
    Ok(script)
}

/// Runs `attend demo --live`: starts the four demo panes in the running daemon and
/// prints their ids and what to expect. Errors: the daemon is unreachable (exit 3), the
/// demo files cannot be written (exit 4).
pub fn run() -> Result<i32, CliError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::new(EXIT_INTERNAL, e.to_string()))?;
    rt.block_on(async move {
        let c = Client::connect().await?;
        call!(c, version())?;
        let attend = std::env::current_exe()
            .map_err(|e| CliError::new(EXIT_INTERNAL, format!("cannot find attend itself: {e}")))?;
        let root = runtime_dir()
            .join("demo")
            .join(uuid::Uuid::new_v4().to_string());
        let io = |e: std::io::Error| {
            CliError::new(
                EXIT_INTERNAL,
                format!("cannot write the demo files under {}: {e}", root.display()),
            )
        };
        let mut started = Vec::new();
        for pane in panes(&root.join("workspaces")) {
            let ws = root.join("workspaces").join(pane.workspace);
            std::fs::create_dir_all(&ws).map_err(io)?;
            let script = write_script(
                &pane,
                &root.join("scripts").join(pane.name),
                &attend.to_string_lossy(),
            )
            .map_err(io)?;
            let mut spec: HashMap<&str, Value<'static>> = HashMap::new();
            spec.insert(
                "argv",
                Value::from(vec![
                    "sh".to_string(),
                    script.to_string_lossy().into_owned(),
                ]),
            );
            spec.insert("cwd", Value::from(ws.to_string_lossy().into_owned()));
            spec.insert("name", Value::from(pane.name));
            spec.insert("agent", Value::from("claude"));
            let env: HashMap<String, String> = std::env::var("DBUS_SESSION_BUS_ADDRESS")
                .ok()
                .map(|a| ("DBUS_SESSION_BUS_ADDRESS".to_string(), a))
                .into_iter()
                .collect();
            spec.insert("env", Value::from(env));
            let id = call!(c, run(&spec))?;
            started.push((id, pane.workspace, pane.name));
        }
        super::out::line(
            "attend demo: four scripted Claude Code panes, driven through `attend hook`:",
        )?;
        for (id, ws, name) in &started {
            super::out::line(&format!("  {id}  {ws} › {name}"))?;
        }
        let api = &started[0].0;
        super::out::line(&format!(
            "Within a minute: a permission gate on api (answer it with the notification's \
             allow/deny buttons, the panel, or `attend answer {api} allow`), a completion on tests, \
             a failure on deploy, and work waiting for your review on review."
        ))?;
        super::out::line(
            "Follow along: `attend status --follow`, `attend ls`, or the panel (`attend up`).",
        )?;
        Ok(EXIT_OK)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_are_the_fixtures_with_the_demo_values() {
        let cwd = Path::new("/tmp/demo/webapp");
        let v = payload(
            PERMISSION,
            "s-1",
            cwd,
            &[("tool_input.command", json!("npm test"))],
        );
        assert_eq!(v["hook_event_name"], "PermissionRequest");
        assert_eq!(v["session_id"], "s-1");
        assert_eq!(v["cwd"], "/tmp/demo/webapp");
        assert_eq!(v["tool_input"]["command"], "npm test");
        assert!(v.get("transcript_path").is_none());
    }

    #[test]
    fn every_pane_script_is_valid_sh_and_calls_the_hook() {
        let dir = tempfile::tempdir().unwrap();
        for pane in panes(&dir.path().join("ws")) {
            let script =
                write_script(&pane, &dir.path().join(pane.name), "/opt/attend dir/attend").unwrap();
            let text = std::fs::read_to_string(&script).unwrap();
            assert!(
                text.contains("'/opt/attend dir/attend' hook claude < "),
                "{text}"
            );
            let check = std::process::Command::new("sh")
                .arg("-n")
                .arg(&script)
                .status()
                .unwrap();
            assert!(check.success(), "sh -n {}", script.display());
        }
    }
}
