//! Smoke tests of the real agent CLIs (pinned by `build-aux/agents.sh`) against the scripted
//! model server, each in a private tmux server, with a hook command that records every
//! payload (docs/real-agents.md). They prove the offline harness before anything of Attend
//! is involved: hooks fire with the scripted text, the approval dialogs appear and can be
//! answered.
//!
//! A missing CLI prints `SKIPPED: <reason>` and passes, unless `ATTEND_REQUIRE_REAL_AGENTS=1`.
//! With `ATTEND_RECORD_FIXTURES=1` the dialog screens and the first payload of every hook
//! event are written under `tests/fixtures/` (paths scrubbed to `/tmp/proj`-like values).

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::agents::{event_name, require, AgentHome, Cli, HookRecorder, Tmux};
use support::model_server::{ModelServer, Reply, Served};

/// Generous bound for one step (start-up of a CLI on a loaded 2-core machine included).
const STEP: Duration = Duration::from_secs(60);

/// One CLI under test: server, home, hook recorder, terminal, and a stopwatch.
struct Smoke {
    name: &'static str,
    server: ModelServer,
    home: AgentHome,
    hooks: HookRecorder,
    term: Tmux,
    started: Instant,
    last: Instant,
}

impl Smoke {
    /// Starts the scripted server, prepares the home with recording hooks (and, for Codex,
    /// a recording `notify`), and launches the interactive CLI in a 120×40 tmux window.
    fn start(cli: Cli, binary: PathBuf, script: Vec<Reply>) -> Smoke {
        let started = Instant::now();
        let server = ModelServer::start(script);
        let mut home = AgentHome::new(cli, binary, &server);
        let hooks = HookRecorder::new(home.dir.path().join("hooks"));
        home.install_hooks(&hooks.command());
        if cli == Cli::Codex {
            home.set_codex_notify(&hooks.notify_argv());
        }
        let term = Tmux::start(&home.launch(), 120, 40).expect("tmux starts");
        Smoke {
            name: cli.name(),
            server,
            home,
            hooks,
            term,
            started,
            last: started,
        }
    }

    /// Prints how long the step took (for docs/real-agents.md).
    fn lap(&mut self, step: &str) {
        let now = Instant::now();
        println!(
            "{}: {step}: {:.1} s (total {:.1} s)",
            self.name,
            (now - self.last).as_secs_f64(),
            (now - self.started).as_secs_f64()
        );
        self.last = now;
    }

    /// Panics with `err` plus the screen, the hook events and the server log.
    fn fail(&self, err: String) -> ! {
        panic!(
            "{}: {err}\n--- screen ---\n{}--- hook events ---\n{:?}\n--- model server ---\n{}",
            self.name,
            self.term.screen(),
            self.hooks.events(),
            self.server.summary()
        )
    }

    fn check<T>(&self, result: Result<T, String>) -> T {
        result.unwrap_or_else(|e| self.fail(e))
    }

    /// Waits for the hook `event` after the first `skip` payloads.
    fn hook(&self, event: &str, skip: usize) -> Value {
        self.check(self.hooks.wait_for(event, skip, STEP))
    }

    fn screen_with(&self, needle: &str) -> String {
        self.check(self.term.wait_for_text(needle, STEP))
    }

    /// Types a prompt and presses Enter (separately, once the text is drawn: a single
    /// read of both can be taken as a paste).
    fn prompt(&self, text: &str) {
        self.term.submit(text);
    }

    /// With `ATTEND_RECORD_FIXTURES=1`: the screen as
    /// `tests/fixtures/screens/<agent>/<version>/<name>.txt` and the first payload of each
    /// hook event as `tests/fixtures/<agent>/<version>/observed/<Event>.json`, scrubbed.
    fn record(&self, screens: &[(&str, &str)]) {
        println!(
            "{}: model server log:\n{}",
            self.name,
            self.server.summary()
        );
        println!("{}: hook events: {:?}", self.name, self.hooks.events());
        if std::env::var("ATTEND_RECORD_FIXTURES").as_deref() != Ok("1") {
            return;
        }
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let version = self.home.cli.version();
        let screen_dir = fixtures.join("screens").join(self.name).join(version);
        std::fs::create_dir_all(&screen_dir).unwrap();
        for (name, screen) in screens {
            std::fs::write(
                screen_dir.join(format!("{name}.txt")),
                self.home.scrub_screen(screen),
            )
            .unwrap();
        }
        let observed = fixtures.join(self.name).join(version).join("observed");
        std::fs::create_dir_all(&observed).unwrap();
        let payloads = self.hooks.payloads();
        let sessions: Vec<&Value> = payloads.iter().map(|p| &p["session_id"]).collect();
        let mut seen = std::collections::HashSet::new();
        for payload in &payloads {
            let event = match event_name(payload) {
                // Codex also notifies for its title side thread (docs/adapters.md).
                "agent-turn-complete" if sessions.contains(&&payload["thread-id"]) => {
                    "notify".to_string()
                }
                "agent-turn-complete" => "notify-side-thread".to_string(),
                // Qwen's notifications differ by type (the dialog's, the idle prompt's).
                "Notification" if self.home.cli == Cli::Qwen => format!(
                    "Notification-{}",
                    payload["notification_type"].as_str().unwrap_or("")
                ),
                name => name.to_string(),
            };
            if !event.is_empty() && seen.insert(event.clone()) {
                let text = self
                    .home
                    .scrub(&serde_json::to_string_pretty(&payload).unwrap());
                std::fs::write(observed.join(format!("{event}.json")), text + "\n").unwrap();
            }
        }
        println!("{}: fixtures recorded", self.name);
    }
}

fn text(s: &str) -> Reply {
    Reply::text(s)
}

/// The body of the last turn request: after an approved tool call it carries the tool's
/// result back to the model.
fn last_turn_body(server: &ModelServer) -> String {
    server
        .turns()
        .last()
        .map(|r| r.body.clone())
        .unwrap_or_default()
}

#[test]
fn claude_interactive_turn_permission_and_hooks() {
    let Some(binary) = require(Cli::Claude) else {
        return;
    };
    const FIRST: &str = "Hello from the scripted model.";
    const DONE: &str = "Done: the work is finished.";
    let mut s = Smoke::start(
        Cli::Claude,
        binary,
        vec![
            text(FIRST),
            Reply::claude_bash("echo attend-smoke > out.txt", "Write a file"),
            text(DONE),
        ],
    );
    let start = s.hook("SessionStart", 0);
    assert_eq!(start["source"], "startup");
    s.screen_with("for shortcuts");
    s.lap("started");

    s.prompt("say hello");
    let submit = s.hook("UserPromptSubmit", 0);
    assert_eq!(submit["prompt"], "say hello");
    let stop = s.hook("Stop", 0);
    assert_eq!(
        stop["last_assistant_message"], FIRST,
        "Stop carries the scripted text"
    );
    s.screen_with(FIRST);
    s.lap("text turn");

    let before = s.hooks.payloads().len();
    s.prompt("write the file");
    let dialog = s.screen_with("Do you want to proceed?");
    let permission = s.hook("PermissionRequest", before);
    assert_eq!(permission["tool_name"], "Bash");
    assert_eq!(
        permission["tool_input"]["command"],
        "echo attend-smoke > out.txt"
    );
    s.lap("permission dialog");

    s.check(s.term.answer_dialog("Do you want to proceed?", "1"));
    let post = s.hook("PostToolUse", before);
    assert_eq!(post["tool_name"], "Bash");
    let stop = s.hook("Stop", before);
    assert_eq!(stop["last_assistant_message"], DONE);
    assert_eq!(
        std::fs::read_to_string(s.home.project.join("out.txt")).unwrap_or_default(),
        "attend-smoke\n",
        "the approved command ran in the project"
    );
    assert!(
        last_turn_body(&s.server).contains("tool_result"),
        "the tool result went back to the model"
    );
    s.lap("approved, tool ran, turn ended");

    let order: Vec<String> = s.hooks.events().into_iter().skip(before).collect();
    let pos = |e: &str| order.iter().position(|x| x == e).unwrap_or(usize::MAX);
    assert!(
        pos("UserPromptSubmit") < pos("PermissionRequest")
            && pos("PermissionRequest") < pos("PostToolUse")
            && pos("PostToolUse") < pos("Stop"),
        "hook order: {order:?}"
    );

    s.prompt("/exit");
    let end = s.hook("SessionEnd", before);
    assert_eq!(end["reason"], "prompt_input_exit");
    s.lap("exit");
    s.record(&[("permission-dialog", &dialog)]);
}

#[test]
fn codex_interactive_turn_escalation_and_hooks() {
    let Some(binary) = require(Cli::Codex) else {
        return;
    };
    const FIRST: &str = "Hello from the scripted model.";
    const DONE: &str = "Done: the file is written.";
    let mut s = Smoke::start(
        Cli::Codex,
        binary,
        vec![
            text(FIRST),
            Reply::codex_escalated(
                "echo attend-smoke > out.txt",
                "Write a file for the smoke test",
            ),
            text(DONE),
        ],
    );
    s.screen_with("OpenAI Codex");
    s.lap("started");

    s.prompt("say hello");
    let submit = s.hook("UserPromptSubmit", 0);
    assert_eq!(submit["prompt"], "say hello");
    let stop = s.hook("Stop", 0);
    assert_eq!(stop["last_assistant_message"], FIRST);
    let session = stop["session_id"].as_str().unwrap_or_default().to_string();
    let main_notify = |text: &'static str| {
        let session = session.clone();
        move |p: &Value| p["thread-id"] == session.as_str() && p["last-assistant-message"] == text
    };
    s.check(
        s.hooks
            .wait_matching("agent-turn-complete", 0, STEP, main_notify(FIRST)),
    );
    s.screen_with(FIRST);
    s.lap("text turn");
    s.check(
        s.server
            .wait_until("Codex's title side request", STEP, |log| {
                log.iter()
                    .any(|r| matches!(&r.served, Served::Side(t) if t.contains("\"title\"")))
            }),
    );

    let before = s.hooks.payloads().len();
    s.prompt("write the file");
    let dialog = s.screen_with("Would you like to run the following command?");
    let permission = s.hook("PermissionRequest", before);
    assert_eq!(
        permission["tool_input"]["description"],
        "Write a file for the smoke test"
    );
    s.lap("approval dialog");

    s.term.keys(&["y"]);
    s.hook("PostToolUse", before);
    let stop = s.hook("Stop", before);
    assert_eq!(stop["last_assistant_message"], DONE);
    assert_eq!(
        std::fs::read_to_string(s.home.project.join("out.txt")).unwrap_or_default(),
        "attend-smoke\n"
    );
    assert!(last_turn_body(&s.server).contains("function_call_output"));
    s.check(
        s.hooks
            .wait_matching("agent-turn-complete", before, STEP, main_notify(DONE)),
    );
    s.lap("approved, tool ran, turn ended");

    s.prompt("/quit");
    let end = s.hook("SessionEnd", before);
    assert_eq!(end["session_id"], session.as_str());
    s.lap("exit");
    s.record(&[("approval-dialog", &dialog)]);
}

#[test]
fn gemini_interactive_turn_shell_permission_and_hooks() {
    let Some(binary) = require(Cli::Gemini) else {
        return;
    };
    const FIRST: &str = "Hello from the scripted model.";
    const DONE: &str = "Done: the file is written.";
    let mut s = Smoke::start(
        Cli::Gemini,
        binary,
        vec![
            text(FIRST),
            Reply::gemini_shell("echo attend-smoke > out.txt", "Write a file"),
            text(DONE),
        ],
    );
    s.hook("SessionStart", 0);
    s.screen_with("Type your message");
    s.lap("started");

    s.prompt("say hello");
    let before_agent = s.hook("BeforeAgent", 0);
    assert_eq!(before_agent["prompt"], "say hello");
    let after = s.hook("AfterAgent", 0);
    assert_eq!(after["prompt_response"], FIRST);
    s.screen_with(FIRST);
    s.lap("text turn");

    let before = s.hooks.payloads().len();
    s.prompt("write the file");
    let dialog = s.screen_with("Allow execution");
    let notification = s.hook("Notification", before);
    assert_eq!(notification["notification_type"], "ToolPermission");
    s.lap("permission dialog");

    s.term.keys(&["1"]);
    s.hook("AfterTool", before);
    let after = s.hook("AfterAgent", before);
    assert_eq!(after["prompt_response"], DONE);
    assert_eq!(
        std::fs::read_to_string(s.home.project.join("out.txt")).unwrap_or_default(),
        "attend-smoke\n"
    );
    assert!(last_turn_body(&s.server).contains("functionResponse"));
    s.lap("approved, tool ran, turn ended");

    s.prompt("/quit");
    s.hook("SessionEnd", before);
    s.lap("exit");
    s.record(&[("permission-dialog", &dialog)]);
}

/// Qwen Code against the OpenAI Chat Completions API: a text turn, a shell tool call with
/// its approval dialog (answered `1`), `/quit`; every hook event recorded.
#[test]
fn qwen_interactive_turn_shell_permission_and_hooks() {
    let Some(binary) = require(Cli::Qwen) else {
        return;
    };
    const FIRST: &str = "Hello from the scripted model.";
    const DONE: &str = "Done: the file is written.";
    let mut s = Smoke::start(
        Cli::Qwen,
        binary,
        vec![
            text(FIRST),
            Reply::qwen_shell("echo attend-smoke > out.txt", "Write a file"),
            text(DONE),
        ],
    );
    let start = s.hook("SessionStart", 0);
    assert_eq!(start["source"], "startup");
    s.screen_with("Type your message");
    s.lap("started");

    s.prompt("say hello");
    let submit = s.hook("UserPromptSubmit", 0);
    assert_eq!(submit["prompt"], "say hello");
    let stop = s.hook("Stop", 0);
    assert_eq!(stop["last_assistant_message"], FIRST);
    s.screen_with(FIRST);
    assert!(
        s.server
            .requests()
            .iter()
            .any(|r| r.path == "/v1/chat/completions" && r.is_turn()),
        "Qwen speaks Chat Completions: {}",
        s.server.summary()
    );
    s.lap("text turn");

    let before = s.hooks.payloads().len();
    s.prompt("write the file");
    let dialog = s.screen_with("Allow execution");
    let request = s.hook("PermissionRequest", before);
    assert_eq!(
        request["tool_input"]["command"],
        "echo attend-smoke > out.txt"
    );
    // (The idle prompt's notification of the turn before can arrive after `before`.)
    s.check(s.hooks.wait_matching("Notification", before, STEP, |p| {
        p["notification_type"] == "permission_prompt"
    }));
    let title = s.term.title();
    assert!(title.starts_with('✳'), "the dialog's title: {title:?}");
    s.lap("permission dialog");

    s.term.keys(&["1"]);
    s.hook("PostToolUse", before);
    let stop = s.hook("Stop", before);
    assert_eq!(stop["last_assistant_message"], DONE);
    assert_eq!(
        std::fs::read_to_string(s.home.project.join("out.txt")).unwrap_or_default(),
        "attend-smoke\n"
    );
    assert!(last_turn_body(&s.server).contains("\"role\":\"tool\""));
    s.lap("approved, tool ran, turn ended");

    s.prompt("/quit");
    s.hook("SessionEnd", before);
    s.lap("exit");
    s.record(&[("permission-dialog", &dialog)]);
}

/// The recorded fixtures hold no personal data: no home directories, no temp-dir names of
/// this machine, no key other than the fake one.
#[test]
fn recorded_fixtures_are_scrubbed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files = Vec::new();
    for cli in Cli::ALL {
        for dir in [
            root.join("screens").join(cli.name()).join(cli.version()),
            root.join(cli.name()).join(cli.version()).join("observed"),
        ] {
            // One level of size folders (`80x24/`) below a version's screens.
            let mut dirs = vec![dir];
            while let Some(d) = dirs.pop() {
                for path in std::fs::read_dir(&d)
                    .into_iter()
                    .flatten()
                    .filter_map(|e| e.ok().map(|e| e.path()))
                {
                    if path.is_dir() {
                        dirs.push(path);
                    } else {
                        files.push(path);
                    }
                }
            }
        }
    }
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for bad in ["/root", "/home/", "attend-agent-", "attend-tmux-"] {
            assert!(!text.contains(bad), "{} contains {bad:?}", file.display());
        }
    }
}

/// The harness ends what an agent leaves behind: a process with the home's `HOME` that
/// detached from the test (Cline's session hub did) is killed when the home goes, while
/// one the test still parents is left to the test.
#[test]
fn a_detached_process_of_an_agent_home_is_ended_with_it() {
    let home = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("sh")
        .args(["-c", "sleep 300 >/dev/null 2>&1 & echo $!"])
        .env("HOME", home.path())
        .output()
        .unwrap();
    let stray: u32 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    let mut child = std::process::Command::new("sleep")
        .arg("300")
        .env("HOME", home.path())
        .spawn()
        .unwrap();
    let alive = |pid: u32| Path::new(&format!("/proc/{pid}")).exists();
    assert!(alive(stray), "the detached sleep runs");
    support::agents::end_strays_of_home(home.path());
    let deadline = Instant::now() + Duration::from_secs(5);
    // Killed, it is a zombie until its new parent reaps it: gone or state Z.
    let ended = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                s.rsplit_once(')')
                    .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
            })
            .unwrap_or(true)
    };
    while !ended(stray) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(ended(stray), "the stray was ended");
    assert!(
        child.try_wait().unwrap().is_none(),
        "the test's own child runs on"
    );
    child.kill().unwrap();
    child.wait().unwrap();
}
