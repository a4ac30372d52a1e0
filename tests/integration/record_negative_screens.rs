//! Records fixtures from the real agent CLIs and a plain shell (docs/real-agents.md); every
//! test here is `#[ignore]`d and run by hand:
//!
//! ```sh
//! cargo test --test integration record_negative_screens:: -- --ignored --test-threads=1
//! ATTEND_AGENT_VERSIONS=claude=2.1.197 cargo test --test integration record_negative_screens::claude -- --ignored
//! ```
//!
//! - The **negative screen corpus**, `tests/fixtures/screens/negative/<agent>/<version>-<name>.txt`
//!   and `…/negative/shell/<name>.txt`: 120×40 screens that are not dialogs — model replies
//!   that quote the agents' dialogs, numbered lists, `❯`/`›` options in prose, tables, code,
//!   compiler errors and shell output; the agents' idle, working and tool-output screens;
//!   bash printing listings, logs, progress and help text. `tests/integration/screen_corpus.rs` checks
//!   that no rule of any shipped manifest matches them.
//! - Claude Code's `Stop` payload while a background command still runs,
//!   `tests/fixtures/claude/<version>/observed/Stop-background.json`.
//!
//! Temp paths are scrubbed ([`AgentHome::scrub_screen`]); a screen that still names a home
//! directory or a temp directory of this machine fails the recording.

use crate::support;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::agents::{event_name, require, AgentHome, Cli, HookRecorder, Launch, Tmux};
use support::model_server::{ModelServer, Reply};

/// Generous bound for one step (a CLI's start-up on a loaded 2-core machine included).
const STEP: Duration = Duration::from_secs(90);
/// OpenCode runs no hook commands, which this recorder waits on: its idle screen is
/// recorded by hand (`negative/opencode/`), the rest not yet.
const NOT_RECORDED: &str =
    "OpenCode's, pi's, Kimi Code CLI's, Kilo's, Cline's and Letta Code's negative screens are not recorded by this test";
/// The terminal size of every recorded screen.
const COLS: u16 = 120;
const ROWS: u16 = 40;

/// Text that must not remain in a recorded fixture.
const FORBIDDEN: [&str; 5] = [
    "/home/",
    "/root",
    "attend-agent-",
    "attend-tmux-",
    "attend-shell-",
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Writes `text` to `path` after checking it names nothing of this machine.
fn write_fixture(path: &Path, text: &str) {
    for bad in FORBIDDEN {
        assert!(
            !text.contains(bad),
            "{} would contain {bad:?}:\n{text}",
            path.display()
        );
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    println!("recorded {}", path.display());
}

/// Waits until the screen stays the same for `quiet`; returns it.
fn settle(term: &Tmux, quiet: Duration) -> String {
    let deadline = Instant::now() + STEP;
    let mut last = term.screen();
    let mut since = Instant::now();
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        let now = term.screen();
        if now != last {
            last = now;
            since = Instant::now();
        } else if since.elapsed() >= quiet {
            break;
        }
    }
    last
}

/// Merges `extra`'s top-level keys into the JSON file at `path`.
fn merge_json(path: &Path, extra: Value) {
    let mut value: Value = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| json!({}));
    for (k, v) in extra.as_object().unwrap() {
        value[k] = v.clone();
    }
    std::fs::write(path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
}

/// One real CLI in tmux against the scripted model, with recording hooks.
struct Agent {
    cli: Cli,
    server: ModelServer,
    home: AgentHome,
    hooks: HookRecorder,
    term: Tmux,
    /// Screens recorded so far.
    saved: usize,
}

impl Agent {
    /// Starts `cli` (`None` when it is unavailable: skipped) with `script`, after
    /// `configure` adjusted its home; waits for its idle prompt.
    fn start(
        cli: Cli,
        script: Vec<Reply>,
        configure: impl FnOnce(&mut AgentHome),
    ) -> Option<Agent> {
        let binary = require(cli)?;
        let server = ModelServer::start(script);
        let mut home = AgentHome::new(cli, binary, &server);
        let hooks = HookRecorder::new(home.dir.path().join("hooks"));
        home.install_hooks(&hooks.command());
        configure(&mut home);
        let term = Tmux::start(&home.launch(), COLS, ROWS).expect("tmux starts");
        let agent = Agent {
            cli,
            server,
            home,
            hooks,
            term,
            saved: 0,
        };
        agent.check(agent.term.wait_for_text(agent.idle_marker(), STEP));
        Some(agent)
    }

    /// Text the idle prompt screen shows.
    fn idle_marker(&self) -> &'static str {
        match self.cli {
            Cli::Claude => "for shortcuts",
            Cli::Codex => "OpenAI Codex",
            Cli::Gemini | Cli::Qwen => "Type your message",
            Cli::OpenCode | Cli::Pi | Cli::Kimi | Cli::Kilo | Cli::Cline | Cli::Omp => NOT_RECORDED,
            Cli::Continue | Cli::Grok | Cli::Letta | Cli::Aider | Cli::Hermes | Cli::MastraCode => {
                NOT_RECORDED
            }
            Cli::Copilot => "/ commands",
        }
    }

    /// The hook event that ends a turn.
    fn turn_end(&self) -> &'static str {
        match self.cli {
            Cli::Claude | Cli::Codex | Cli::Qwen => "Stop",
            Cli::Gemini => "AfterAgent",
            Cli::OpenCode | Cli::Pi | Cli::Kimi | Cli::Kilo | Cli::Cline | Cli::Omp => NOT_RECORDED,
            Cli::Continue | Cli::Grok | Cli::Letta | Cli::Aider | Cli::Hermes | Cli::MastraCode => {
                NOT_RECORDED
            }
            Cli::Copilot => "agentStop",
        }
    }

    fn check<T>(&self, result: Result<T, String>) -> T {
        result.unwrap_or_else(|e| {
            panic!(
                "{}: {e}\n--- screen ---\n{}--- hook events ---\n{:?}\n--- model server ---\n{}",
                self.cli.name(),
                self.term.screen(),
                self.hooks.events(),
                self.server.summary()
            )
        })
    }

    /// Types `text` and presses Enter (separately, once the text is drawn: one read of
    /// both can be taken as a paste).
    fn prompt(&self, text: &str) {
        self.term.submit(text);
    }

    /// Prompts, waits for the turn's end hook and for `marker` on screen, lets the screen
    /// settle and returns it.
    fn turn(&self, prompt: &str, marker: &str) -> String {
        let before = self.hooks.payloads().len();
        self.prompt(prompt);
        self.check(self.hooks.wait_for(self.turn_end(), before, STEP));
        self.check(self.term.wait_for_text(marker, STEP));
        settle(&self.term, Duration::from_millis(1500))
    }

    /// Prompts for a turn whose reply is a shell tool call and returns once the tool
    /// started: Gemini's confirmation is answered "allow once" (never recorded).
    fn run_tool(&self, prompt: &str) {
        let before = self.hooks.payloads().len();
        self.prompt(prompt);
        match self.cli {
            Cli::Claude | Cli::Codex => {
                self.check(self.hooks.wait_for("PreToolUse", before, STEP));
            }
            Cli::Gemini | Cli::Qwen => {
                self.check(self.term.wait_for_text("Allow execution", STEP));
                self.check(self.term.answer_dialog("Allow execution", "1"));
            }
            Cli::OpenCode
            | Cli::Pi
            | Cli::Kimi
            | Cli::Kilo
            | Cli::Cline
            | Cli::Omp
            | Cli::Continue
            | Cli::Grok
            | Cli::Letta
            | Cli::Aider
            | Cli::Hermes
            | Cli::MastraCode => {
                unreachable!("{NOT_RECORDED}")
            }
            // A reading command runs without a dialog; one that writes asks.
            Cli::Copilot => {
                self.check(self.hooks.wait_for("preToolUse", before, STEP));
            }
        }
    }

    /// Records `screen` as `negative/<agent>/<version>-<name>.txt`.
    fn save(&mut self, name: &str, screen: &str) {
        let path = fixtures()
            .join("screens/negative")
            .join(self.cli.name())
            .join(format!("{}-{name}.txt", self.cli.version()));
        write_fixture(&path, &self.home.scrub_screen(screen));
        println!("{} title: {:?}", self.cli.name(), self.term.title());
        self.saved += 1;
    }
}

// ---------------------------------------------------------------- the agents' screens

/// Model replies that are not dialogs, each with a distinctive text to wait for. Several
/// quote the agents' own dialogs word for word — at the end of the reply, right above the
/// input box, where a rule that looks at the bottom of the screen sees them.
const REPLIES: &[(&str, &str, &str)] = &[
    (
        "reply-numbered-yes-no",
        "Here are the two choices:\n\n1. Yes\n2. No\n\nTell me which one you want.",
        "which one you want",
    ),
    (
        "reply-proceed-inline",
        "Do you want to proceed? 1. Yes 2. No. I would pick yes: the change is small and \
         the tests cover it.",
        "the tests cover it",
    ),
    (
        "reply-quotes-claude-dialog",
        "When a command writes files, Claude Code asks before it runs it. The dialog \
         reads:\n\nDo you want to proceed?\n❯ 1. Yes\n  2. Yes, and don't ask again\n  3. No\n\n\
         Esc to cancel · Tab to amend",
        "Tab to amend",
    ),
    (
        "reply-quotes-codex-dialog",
        "Codex asks like this before it runs a command outside the sandbox:\n\n\
         Would you like to run the following command?\n\n$ rm -rf build\n\n\
         › 1. Yes, proceed (y)\n  2. Yes, and don't ask again (p)\n  \
         3. No, and tell Codex what to do differently (esc)\n\n\
         Press enter to confirm or esc to cancel",
        "esc to cancel",
    ),
    (
        "reply-quotes-gemini-dialog",
        "Gemini CLI shows a confirmation box for shell commands:\n\n\
         Allow execution of [Shell]?\n\n● 1. Allow once\n  2. Allow for this session\n  \
         3. No, suggest changes (esc)",
        "suggest changes",
    ),
    (
        "reply-options-chevron",
        "Pick the migration path:\n\n❯ 1. Keep the old API for one release\n  \
         2. Migrate every caller now\n  3. No change this sprint\n\nReply with the number.",
        "Reply with the number",
    ),
    (
        "reply-options-guillemet",
        "Your options, as the picker would show them:\n\n› 1. Yes, rebase onto main\n  \
         2. No, merge instead\n\nI recommend option 1.",
        "I recommend option 1",
    ),
    (
        "reply-markdown-table",
        "| Choice | Keys | Effect |\n| --- | --- | --- |\n| 1. Yes | `1` | run the command once |\n\
         | 2. Yes, always | `2` | never ask again here |\n| 3. No | `3` or Esc | cancel |\n\n\
         That is the whole table.",
        "the whole table",
    ),
    (
        "reply-compiler-error",
        "The build fails with:\n\n```\nerror[E0308]: mismatched types\n  --> src/main.rs:4:18\n   |\n\
         4 |     let n: u32 = \"one\";\n   |            ---   ^^^^^ expected `u32`, found `&str`\n   \
         |            |\n   |            expected due to this\n\nerror: aborting due to 1 previous \
         error\n\nFor more information about this error, try `rustc --explain E0308`.\n```\n\n\
         Change the literal to 1.",
        "Change the literal to 1",
    ),
    (
        "reply-git-log",
        "Recent history:\n\n```\n9ce4708 Real agents pinned twice\nf9d0d87 tests: the hook event \
         lists once\nd215561 attend hook's zbus fallback calls the typed proxy\n620ecf2 tray uses \
         the engine's clip\na514d12 reliability.md: the CI budget table\n```\n\nNothing else landed \
         this week.",
        "Nothing else landed",
    ),
    (
        "reply-npm-install",
        "The install printed:\n\n```\n$ npm install\nnpm warn deprecated inflight@1.0.6: This \
         module is not supported\n⸩ ░░░░░░░░░░░░░░░░░░ idealTree: timing arborist:ctor\n\nadded 312 \
         packages, and audited 313 packages in 9s\n\n41 packages are looking for funding\n  run \
         `npm fund` for details\n\nfound 0 vulnerabilities\n```\n\nAll dependencies are in place.",
        "All dependencies are in place",
    ),
    (
        "reply-select-menu",
        "Bash's `select` prints its menu like this and then reads a number:\n\n```\n1) Yes\n2) No\n\
         3) Quit\n#? \n```\n\nIn a script you would answer with 1, 2 or 3.",
        "answer with 1, 2 or 3",
    ),
    (
        "reply-help-text",
        "Usage: attend [OPTIONS] <COMMAND>\n\nCommands:\n  run      Run an agent in a new pane\n  \
         ls       List every pane\n  answer   Answer an open permission gate (allow, deny)\n  \
         next     The pane to look at next\n\nOptions:\n  -h, --help     Print help\n  \
         -V, --version  Print version",
        "Print version",
    ),
    (
        "reply-question-prose",
        "Should I go ahead and delete the build directory? Answer yes or no; nothing \
         happens until you do.",
        "nothing happens until you do",
    ),
    (
        "reply-diff",
        "The fix:\n\n```diff\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n-fn proceed() -> \
         bool { false }\n+fn proceed() -> bool { true }\n // 1. Yes\n // 2. No\n```\n\nApplied.",
        "Applied.",
    ),
    (
        "reply-long-list",
        "The steps, in order:\n\n1. Yes, read the spec.\n2. No shortcuts.\n3. Write the test \
         first.\n4. Run it red.\n5. Write the code.\n6. Run it green.\n7. Refactor.\n8. Run clippy.\n\
         9. Run fmt.\n10. Commit.\n11. Push.\n12. Open the pull request.\n13. Answer the review.\n\
         14. Merge.\n15. Delete the branch.\n16. Tag the release.\n17. Write the notes.\n18. \
         Announce it.\n19. Watch the dashboards.\n20. Close the ticket.\n21. Review the incident \
         log.\n22. Update the runbook.\n23. Archive the channel.\n24. Celebrate.\n25. Rest.\n26. \
         Plan the next one.\n27. Do you want to proceed?\n28. Yes.\n29. No.\n30. Esc to cancel \
         is not a step.\n\nThat is all thirty.",
        "That is all thirty",
    ),
];

/// A command the agent runs through its shell tool (no dialog: allowed by configuration).
fn shell_tool(cli: Cli, command: &str) -> Reply {
    match cli {
        Cli::Claude => Reply::Tool {
            name: "Bash".into(),
            input_json: json!({"command": command, "description": "Look around"}).to_string(),
        },
        Cli::Codex => Reply::Tool {
            name: "exec_command".into(),
            input_json: json!({"cmd": command}).to_string(),
        },
        Cli::Gemini => Reply::Tool {
            name: "run_shell_command".into(),
            input_json: json!({"command": command, "description": "Look around"}).to_string(),
        },
        Cli::Qwen => Reply::qwen_shell(command, "Look around"),
        Cli::OpenCode | Cli::Kilo => Reply::opencode_bash(command, "Look around"),
        Cli::Copilot => Reply::copilot_shell(command, "Look around"),
        Cli::Pi | Cli::Omp => unreachable!("{NOT_RECORDED}"),
        Cli::Kimi => Reply::claude_bash(command, "Look around"),
        Cli::Cline
        | Cli::Continue
        | Cli::Grok
        | Cli::Letta
        | Cli::Aider
        | Cli::Hermes
        | Cli::MastraCode => {
            unreachable!("{NOT_RECORDED}")
        }
    }
}

/// Lets the shell commands of [`record_agent`] run without a dialog where the agent has a
/// setting for it.
fn allow_shell_commands(home: &mut AgentHome) {
    match home.cli {
        Cli::Claude => merge_json(
            &home.config_dir().join("settings.json"),
            json!({"permissions": {"defaultMode": "default",
                   "allow": ["Bash(ls:*)", "Bash(git log:*)", "Bash(sleep:*)"]}}),
        ),
        // Codex runs these in its workspace-write sandbox without asking. Gemini's
        // allow-list setting prints a deprecation warning on every screen, so its dialog is
        // answered instead ([`Agent::run_tool`]).
        Cli::Codex
        | Cli::Gemini
        | Cli::Qwen
        | Cli::OpenCode
        | Cli::Copilot
        | Cli::Pi
        | Cli::Kimi
        | Cli::Kilo
        | Cli::Cline
        | Cli::Omp
        | Cli::Continue
        | Cli::Grok
        | Cli::Letta
        | Cli::Aider
        | Cli::Hermes
        | Cli::MastraCode => {}
    }
}

/// Records one agent's negative screens: idle, working (a slow model turn), every reply
/// of [`REPLIES`], a shell tool running and its output, and the agent's help.
fn record_agent(cli: Cli) {
    const WORKING_TEXT: &str = "Finished thinking about it.";
    const RUNNING_TEXT: &str = "The slow command finished.";
    const LISTED_TEXT: &str = "Those are the files and the history.";
    let mut script = vec![Reply::text(WORKING_TEXT)];
    script.extend(REPLIES.iter().map(|(_, text, _)| Reply::text(*text)));
    script.push(shell_tool(cli, "sleep 6"));
    script.push(Reply::text(RUNNING_TEXT));
    script.push(shell_tool(cli, "ls -la && git log --oneline -5"));
    script.push(Reply::text(LISTED_TEXT));
    let Some(mut agent) = Agent::start(cli, script, allow_shell_commands) else {
        return;
    };
    // Commits for `git log`, and files for `ls`.
    let project = agent.home.project.clone();
    for (i, name) in ["README.md", "main.rs", "Cargo.toml"].iter().enumerate() {
        std::fs::write(project.join(name), format!("file {i}\n")).unwrap();
        let ok = std::process::Command::new("git")
            .args(["-c", "user.name=Dev", "-c", "user.email=dev@example.com"])
            .args([
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                &format!("commit {i}: {name}"),
            ])
            .current_dir(&project)
            .env("HOME", &agent.home.home)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git commit");
    }

    let idle = settle(&agent.term, Duration::from_secs(2));
    agent.save("idle", &idle);

    // Working: the model takes its time, the spinner runs.
    agent.server.slow_turn(1, Duration::from_secs(8));
    let before = agent.hooks.payloads().len();
    agent.prompt("think about it");
    let working = agent.check(
        agent
            .term
            .wait_for_screen("the working spinner", STEP, |s| {
                let s = s.to_lowercase();
                s.contains("esc to interrupt") || s.contains("esc to cancel")
            }),
    );
    std::thread::sleep(Duration::from_millis(1500));
    let working_later = agent.term.screen();
    agent.save("working", &working);
    agent.save("working-later", &working_later);
    agent.check(agent.hooks.wait_for(agent.turn_end(), before, STEP));
    agent.check(agent.term.wait_for_text(WORKING_TEXT, STEP));
    let after = settle(&agent.term, Duration::from_millis(1500));
    agent.save("turn-done", &after);

    for (name, _, marker) in REPLIES {
        let screen = agent.turn(&format!("show {name}"), marker);
        agent.save(name, &screen);
    }

    // A shell command that takes a while: its running screen.
    let before = agent.hooks.payloads().len();
    agent.run_tool("run the slow command");
    std::thread::sleep(Duration::from_millis(2000));
    let running = agent.term.screen();
    agent.save("tool-running", &running);
    agent.check(agent.hooks.wait_for(agent.turn_end(), before, STEP));
    agent.check(agent.term.wait_for_text(RUNNING_TEXT, STEP));
    let screen = settle(&agent.term, Duration::from_millis(1500));
    agent.save("tool-done", &screen);

    let before = agent.hooks.payloads().len();
    agent.run_tool("list the files");
    agent.check(agent.hooks.wait_for(agent.turn_end(), before, STEP));
    agent.check(agent.term.wait_for_text(LISTED_TEXT, STEP));
    let screen = settle(&agent.term, Duration::from_millis(1500));
    agent.save("tool-output", &screen);
    println!(
        "{}: tool payloads: {:?}",
        cli.name(),
        agent
            .hooks
            .payloads()
            .iter()
            .filter(|p| p["tool_name"].is_string())
            .map(|p| format!(
                "{} {} {}",
                event_name(p),
                p["tool_name"],
                p["tool_response"]
            ))
            .collect::<Vec<_>>()
    );

    // The agent's help, printed in place (nothing waits for a key).
    match cli {
        Cli::Claude | Cli::Codex => {
            agent.term.type_text("?");
            std::thread::sleep(Duration::from_secs(2));
            let help = settle(&agent.term, Duration::from_secs(1));
            agent.save("shortcuts-help", &help);
            agent.term.keys(&["BSpace"]);
        }
        Cli::Gemini
        | Cli::Qwen
        | Cli::OpenCode
        | Cli::Copilot
        | Cli::Pi
        | Cli::Kimi
        | Cli::Kilo
        | Cli::Cline
        | Cli::Omp
        | Cli::Continue
        | Cli::Grok
        | Cli::Letta
        | Cli::Aider
        | Cli::Hermes
        | Cli::MastraCode => {
            agent.prompt("/help");
            std::thread::sleep(Duration::from_secs(2));
            let help = settle(&agent.term, Duration::from_secs(1));
            agent.save("slash-help", &help);
        }
    }
    println!("{}: {} screens recorded", cli.name(), agent.saved);
}

#[test]
#[ignore = "records the negative screen corpus from the real Claude Code"]
fn claude_negative_screens() {
    record_agent(Cli::Claude);
}

#[test]
#[ignore = "records the negative screen corpus from the real Codex CLI"]
fn codex_negative_screens() {
    record_agent(Cli::Codex);
}

#[test]
#[ignore = "records the negative screen corpus from the real Gemini CLI"]
fn gemini_negative_screens() {
    record_agent(Cli::Gemini);
}

// ---------------------------------------------------------------- a plain shell

/// Files the shell screens show (`cat`), written into its working directory.
const SHELL_FILES: &[(&str, &str)] = &[
    (
        "notes.md",
        "# Release checklist\n\n| Step | Owner | Done |\n| --- | --- | --- |\n| 1. Yes, tag it | dev | ✓ |\n\
         | 2. No, wait | ops | ✗ |\n\nDo you want to proceed?\n❯ 1. Yes\n  2. No\n",
    ),
    (
        "bad.rs",
        "fn main() {\n    let n: u32 = \"one\";\n    println!(\"{n}\");\n}\n",
    ),
    (
        "menu.sh",
        "#!/bin/sh\nprintf '%s\\n' '────────────────────────────────' ' Choose an action' \
         ' ❯ 1. Yes' '   2. No' '   3. Later' '────────────────────────────────'\n",
    ),
];

/// The shell commands, one screen each: (name, command line, text to wait for).
const SHELL_COMMANDS: &[(&str, &str, &str)] = &[
    ("prompt", "", "$"),
    ("ls", "ls -ln --time-style=+%F", "notes.md"),
    ("git-log", "git log --format='%h %an %s' -5", "third commit"),
    ("git-status", "git status", "branch"),
    ("git-diff", "echo change >> notes.md; git diff", "+change"),
    ("printf-numbered", "printf '1. Yes\\n2. No\\n3. Cancel\\n'", "3. Cancel"),
    ("printf-select-menu", "printf '1) Yes\\n2) No\\n#? \\n'", "#?"),
    ("printf-proceed", "echo 'Do you want to proceed? [Y/n] (printed, nothing waits)'", "nothing waits"),
    ("cat-markdown", "cat notes.md", "2. No"),
    ("rustc-error", "rustc --edition 2021 bad.rs", "aborting due to"),
    ("box-menu", "sh menu.sh", "3. Later"),
    ("seq", "seq 1 80", "80"),
    ("progress", "for i in 1 2 3 4 5; do printf '\\r[%-20s] %d%%' $(printf '#%.0s' $(seq 1 $((i*4)))) $((i*20)); sleep 0.2; done; echo", "100%"),
    ("help-select", "help select", "select NAME"),
    ("ls-help", "ls --help | head -45", "--block-size"),
    ("git-help", "git --help", "git help -a"),
    ("npm-offline", "npm install --offline --no-audit --no-fund left-pad; echo npm-exit=$?", "npm-exit="),
    ("python-table", "python3 -c \"print('\\n'.join(f'{i}. {w:<6}| {len(w)}' for i, w in enumerate(['Yes', 'No', 'Cancel'], 1)))\"", "3. Cancel"),
];

/// Records the plain-shell screens: bash in tmux running listings, logs, compiler errors,
/// printed menus and help text (nothing that waits for a key).
#[test]
#[ignore = "records the negative screen corpus from a plain shell"]
fn shell_negative_screens() {
    let dir = tempfile::Builder::new()
        .prefix("attend-shell-")
        .tempdir()
        .unwrap();
    let work = dir.path().join("proj");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.name=Dev", "-c", "user.email=dev@example.com"])
            .args(args)
            .current_dir(&work)
            .env("HOME", &home)
            .env("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
            .env("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    for (name, text) in SHELL_FILES {
        std::fs::write(work.join(name), text).unwrap();
    }
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "first commit: the notes"]);
    git(&[
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "second commit: 1. Yes 2. No",
    ]);
    git(&[
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "third commit: Do you want to proceed?",
    ]);
    // rustc through rustup needs rustup's own home, not the shell's.
    let real_home = PathBuf::from(std::env::var_os("HOME").unwrap_or_default());
    let rustup_home = std::env::var("RUSTUP_HOME")
        .unwrap_or_else(|_| real_home.join(".rustup").display().to_string());
    let toolchain = std::env::var("RUSTUP_TOOLCHAIN").unwrap_or_else(|_| "stable".into());
    let launch = Launch {
        program: PathBuf::from("bash"),
        args: vec!["--norc".into(), "--noprofile".into(), "-i".into()],
        env: vec![
            ("RUSTUP_HOME".into(), rustup_home),
            ("RUSTUP_TOOLCHAIN".into(), toolchain),
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".into(), home.display().to_string()),
            ("LANG".into(), "C.UTF-8".into()),
            ("PS1".into(), "dev@box:~/proj$ ".into()),
            ("GIT_PAGER".into(), "cat".into()),
            ("PAGER".into(), "cat".into()),
        ],
        cwd: work.clone(),
    };
    let term = Tmux::start(&launch, COLS, ROWS).expect("tmux starts");
    term.wait_for_text("$", STEP).unwrap();
    let scrub = |screen: &str| {
        let mut text = screen.to_string();
        for (from, to) in [
            (work.display().to_string(), "/tmp/proj"),
            (home.display().to_string(), "/tmp/home"),
            (dir.path().display().to_string(), "/tmp/shell"),
        ] {
            text = text.replace(
                &from,
                &format!("{to:<width$}", width = from.chars().count()),
            );
        }
        text
    };
    let out = fixtures().join("screens/negative/shell");
    for (name, command, marker) in SHELL_COMMANDS {
        if !command.is_empty() {
            term.keys(&["C-l"]);
            std::thread::sleep(Duration::from_millis(300));
            term.type_text(command);
            term.keys(&["Enter"]);
        }
        term.wait_for_text(marker, STEP).unwrap();
        let screen = settle(&term, Duration::from_millis(1000));
        write_fixture(&out.join(format!("{name}.txt")), &scrub(&screen));
        println!("shell title: {:?}", term.title());
    }
}

// ---------------------------------------------------------------- Stop with background tasks

/// Claude Code's `Stop` while a background `Bash` (`run_in_background`) still runs: the
/// payload's `background_tasks`, recorded as `observed/Stop-background.json`.
#[test]
#[ignore = "records a fixture from the real Claude Code"]
fn claude_stop_with_a_background_task() {
    const TEXT: &str = "Started a background sleep; it is still running.";
    let script = vec![
        Reply::Tool {
            name: "Bash".into(),
            input_json:
                json!({"command": "sleep 30", "description": "bg", "run_in_background": true})
                    .to_string(),
        },
        Reply::text(TEXT),
    ];
    let Some(agent) = Agent::start(Cli::Claude, script, |home| {
        merge_json(
            &home.config_dir().join("settings.json"),
            json!({"permissions": {"defaultMode": "default", "allow": ["Bash(sleep:*)"]}}),
        );
    }) else {
        return;
    };
    agent.prompt("start a background sleep");
    let stop = agent.check(agent.hooks.wait_for("Stop", 0, STEP));
    println!(
        "Stop payload:\n{}",
        serde_json::to_string_pretty(&stop).unwrap()
    );
    println!("hook events: {:?}", agent.hooks.events());
    println!("screen:\n{}", agent.term.screen());
    let tasks = stop["background_tasks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        !tasks.is_empty(),
        "no background task in the Stop payload: {stop:#}"
    );
    let text = agent
        .home
        .scrub(&serde_json::to_string_pretty(&stop).unwrap())
        + "\n";
    let path = fixtures()
        .join("claude")
        .join(Cli::Claude.version())
        .join("observed/Stop-background.json");
    write_fixture(&path, &text);
}
