//! The GTK panel end to end (docs/desktop-surfaces.md): the real `attend daemon` on a
//! private bus, real panes driven through `attend hook claude` with recorded Claude Code
//! 2.1.197 payloads, and the real `attend-panel` on an Xvfb display. The panel's
//! `ATTEND_PANEL_DUMP` hook reports what its widgets display; the tests compare that with
//! `attend workspaces --json` / `attend ls --json`, act through the window's exported
//! actions (`org.gtk.Actions`, the same actions its buttons use), and regenerate
//! `docs/screenshots/panel.png`.

mod support;

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::Env;

/// GTK start-up under Xvfb in a debug build on a loaded 2-core machine can be slow.
const UI_TIMEOUT: Duration = Duration::from_secs(45);
/// The screen: the window's default size, so the screenshot is the window.
const SCREEN: (u32, u32) = (1180, 720);
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/claude/2.1.197");

/// An Xvfb server on a free display (`-displayfd`), killed on drop.
struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    fn start() -> Xvfb {
        let (read, write) = nix::unistd::pipe().expect("a pipe");
        let fd = std::os::fd::AsRawFd::as_raw_fd(&write);
        let child = Command::new("Xvfb")
            .args([
                "-displayfd",
                &fd.to_string(),
                "-nolisten",
                "tcp",
                "-screen",
                "0",
            ])
            .arg(format!("{}x{}x24", SCREEN.0, SCREEN.1))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb must be installed (build-aux/deps.sh test)");
        drop(write);
        let mut line = String::new();
        BufReader::new(std::fs::File::from(read))
            .read_line(&mut line)
            .expect("Xvfb prints its display number");
        let n = line.trim();
        assert!(n.parse::<u32>().is_ok(), "Xvfb display {line:?}");
        Xvfb {
            child,
            display: format!(":{n}"),
        }
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A running `attend-panel`, stopped on drop.
struct Panel {
    child: Child,
    dump: PathBuf,
    log: PathBuf,
}

impl Panel {
    /// Starts the panel on `x` against `env`'s bus; `vars` are extra environment.
    fn start(env: &Env, x: &Xvfb, vars: &[(&str, &str)]) -> Panel {
        let dump = env.dir.path().join("panel-dump.json");
        let log = env.dir.path().join("panel.log");
        let mut c = Command::new(env!("CARGO_BIN_EXE_attend-panel"));
        c.env("DISPLAY", &x.display)
            .env("DBUS_SESSION_BUS_ADDRESS", &env.bus.address)
            .env("ATTEND_STATE_DIR", env.state_dir())
            .env("XDG_RUNTIME_DIR", env.dir.path().join("run"))
            .env("HOME", env.dir.path())
            .env("ATTEND_PANEL_DUMP", &dump)
            .env("GDK_BACKEND", "x11")
            .env("GSK_RENDERER", "cairo")
            .env("GTK_A11Y", "none")
            .env("NO_AT_BRIDGE", "1")
            .env("LANG", "C.UTF-8")
            .env_remove("LANGUAGE")
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("TERMINAL")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap());
        for (k, v) in vars {
            c.env(k, v);
        }
        std::fs::create_dir_all(env.dir.path().join("run")).unwrap();
        Panel {
            child: c.spawn().unwrap(),
            dump,
            log,
        }
    }

    fn read(&self) -> Option<Value> {
        let text = std::fs::read_to_string(&self.dump).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Waits until the dump satisfies `check` (which returns why not); returns it.
    fn wait(&mut self, what: &str, check: impl Fn(&Value) -> Result<(), String>) -> Value {
        let start = Instant::now();
        let mut why = "no dump yet".to_string();
        while start.elapsed() < UI_TIMEOUT {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("the panel exited ({status}): {}", self.log_text());
            }
            if let Some(v) = self.read() {
                match check(&v) {
                    Ok(()) => return v,
                    Err(e) => why = e,
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!(
            "timed out waiting for the panel: {what}\nlast mismatch: {why}\nlast dump: {:#}\n\
             --- panel log ---\n{}",
            self.read().unwrap_or(Value::Null),
            self.log_text()
        );
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Activates a window action the way a button does, over the panel's D-Bus export.
    fn activate(&self, env: &Env, action: &str, typed_arg: &[&str]) {
        let mut c = Command::new("busctl");
        c.arg(format!("--address={}", env.bus.address))
            .args([
                "call",
                "io.github.attend.Attend",
                "/io/github/attend/Attend/window/1",
            ])
            .args(["org.gtk.Actions", "Activate", "sava{sv}", action]);
        if typed_arg.is_empty() {
            c.arg("0");
        } else {
            c.arg("1").args(typed_arg);
        }
        let out = c.arg("0").output().expect("busctl must be installed");
        assert!(
            out.status.success(),
            "activating {action}: {}\n--- panel log ---\n{}",
            String::from_utf8_lossy(&out.stderr),
            self.log_text()
        );
    }
}

impl Drop for Panel {
    fn drop(&mut self) {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(3) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `attend run` arguments for an agent stand-in: a shell in the pane that prints
/// `banner`, delivers the recorded Claude hooks `fixtures` in order the way Claude Code
/// does (`attend hook claude < payload`, run under the pane, with the `ATTEND_PANE` the
/// daemon set), then stays alive.
fn agent(banner: &str, fixtures: &[&str]) -> Vec<String> {
    let quote = |s: &str| shlex::try_quote(s).unwrap().into_owned();
    let mut script = format!("echo {}; ", quote(banner));
    for f in fixtures {
        if *f == "PermissionRequest.json" {
            // The dialog the gate stands for, as Claude Code 2.1.197 draws it (an answer's
            // keys come from the dialog on screen).
            let dialog = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/screens/claude/2.1.197/permission-dialog.txt"
            );
            script.push_str(&format!("tail -n 14 {}; ", quote(dialog)));
        }
        let payload = Path::new(FIXTURES).join(f);
        script.push_str(&format!(
            "{} hook claude < {}; ",
            quote(support::attend_bin()),
            quote(payload.to_str().unwrap())
        ));
    }
    script.push_str("exec sleep 1000");
    ["--", "sh", "-c", &script].map(String::from).to_vec()
}

/// `attend run ARGS AGENT…` → the pane id.
fn run_agent(env: &Env, args: &[&str], agent: Vec<String>) -> String {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(agent.iter().map(String::as_str));
    env.run(&all)
}

fn json(env: &Env, args: &[&str]) -> Value {
    serde_json::from_str(&env.ok(args)).unwrap()
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// The English label of a vocabulary value: the wire name read aloud.
fn label(wire: &str) -> String {
    wire.replace('_', " ")
}

fn has_class(classes: &Value, class: &str) -> bool {
    classes
        .as_array()
        .is_some_and(|a| a.iter().any(|c| c == class))
}

fn check_eq(what: &str, shown: &str, want: &str) -> Result<(), String> {
    if shown == want {
        Ok(())
    } else {
        Err(format!("{what}: shown {shown:?}, daemon says {want:?}"))
    }
}

/// The sidebar shows exactly the daemon's workspace summaries, in its order.
fn sidebar_matches(dump: &Value, workspaces: &Value) -> Result<(), String> {
    check_eq("state", text(&dump["state"]), "online")?;
    let rows = dump["workspaces"].as_array().ok_or("no sidebar")?;
    let ws = workspaces.as_array().unwrap();
    if rows.len() != ws.len() {
        return Err(format!("{} rows for {} workspaces", rows.len(), ws.len()));
    }
    for (row, w) in rows.iter().zip(ws) {
        let key = text(&w["key"]);
        check_eq("workspace key", text(&row["key"]), key)?;
        check_eq(&format!("{key} name"), text(&row["name"]), text(&w["name"]))?;
        let (lc, at) = (text(&w["worst_lifecycle"]), text(&w["worst_attention"]));
        check_eq(&format!("{key} lifecycle"), text(&row["lifecycle"]), lc)?;
        check_eq(
            &format!("{key} attention"),
            text(&row["attention"]),
            &label(at),
        )?;
        if !has_class(&row["indicator_classes"], &format!("attention-{at}")) {
            return Err(format!("{key} indicator {}", row["indicator_classes"]));
        }
        if !has_class(&row["lifecycle_classes"], &format!("lifecycle-{lc}")) {
            return Err(format!(
                "{key} lifecycle classes {}",
                row["lifecycle_classes"]
            ));
        }
        check_eq(
            &format!("{key} message"),
            text(&row["message"]),
            text(&w["latest_message"]),
        )?;
        let agents: Vec<&str> = w["agents"].as_array().unwrap().iter().map(text).collect();
        check_eq(
            &format!("{key} agents"),
            text(&row["agents"]),
            &agents.join(", "),
        )?;
        let tabs: Vec<&str> = w["tabs"].as_array().unwrap().iter().map(text).collect();
        check_eq(
            &format!("{key} tabs"),
            text(&row["tabs"]),
            &format!("Tabs: {}", tabs.join(", ")),
        )?;
        let repo = match (w["repo"].as_str(), w["branch"].as_str()) {
            (Some(r), Some(b)) => format!("{r} · {b}"),
            (Some(r), None) => r.to_string(),
            (None, Some(b)) => b.to_string(),
            (None, None) => String::new(),
        };
        check_eq(&format!("{key} repo"), text(&row["repo_branch"]), &repo)?;
        let age = text(&row["age"]);
        if w["attention_changed_at"].is_string() != (age == "just now" || age.ends_with(" ago")) {
            return Err(format!(
                "{key} age {age:?} for {}",
                w["attention_changed_at"]
            ));
        }
    }
    Ok(())
}

/// The pane list shows exactly the daemon's panes of `workspace`, in its order.
fn panes_match(dump: &Value, panes: &Value, workspace: &str) -> Result<(), String> {
    let rows = dump["panes"].as_array().ok_or("no pane list")?;
    let want: Vec<&Value> = panes
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["workspace"] == workspace)
        .collect();
    if rows.len() != want.len() {
        return Err(format!("{} pane rows for {} panes", rows.len(), want.len()));
    }
    for (row, p) in rows.iter().zip(want) {
        let id = text(&p["id"]);
        check_eq("pane id", text(&row["pane"]), id)?;
        check_eq(&format!("{id} tab"), text(&row["tab"]), text(&p["tab"]))?;
        let (lc, at) = (text(&p["lifecycle"]), text(&p["attention"]));
        check_eq(&format!("{id} lifecycle"), text(&row["lifecycle"]), lc)?;
        check_eq(
            &format!("{id} attention"),
            text(&row["attention"]),
            &label(at),
        )?;
        if !has_class(&row["indicator_classes"], &format!("attention-{at}")) {
            return Err(format!("{id} indicator {}", row["indicator_classes"]));
        }
        let msg = match p["pending_decision"].as_object() {
            Some(d) => format!("Permission requested: {}", text(&d["prompt"])),
            None => text(&p["last_message"]).to_string(),
        };
        check_eq(&format!("{id} message"), text(&row["message"]), &msg)?;
        let live = &p["live"];
        let live = match (
            text(&live["state"]),
            live["code"].as_i64(),
            live["signal"].as_i64(),
        ) {
            ("running", _, _) => "running".to_string(),
            (_, _, Some(sig)) => format!("killed by signal {sig}"),
            (_, Some(code), None) => format!("exited {code}"),
            _ => "exited".to_string(),
        };
        let facts = format!("{} · {live}", text(&p["agent"]));
        check_eq(&format!("{id} facts"), text(&row["facts"]), &facts)?;
    }
    Ok(())
}

/// The detail shows `pane` as the daemon has it, with one answer button per choice.
fn detail_matches(dump: &Value, p: &Value) -> Result<(), String> {
    let d = &dump["detail"];
    let id = text(&p["id"]);
    check_eq("detail pane", text(&d["pane"]), id)?;
    check_eq(
        "detail lifecycle",
        text(&d["lifecycle"]),
        text(&p["lifecycle"]),
    )?;
    check_eq(
        "detail attention",
        text(&d["attention"]),
        &label(text(&p["attention"])),
    )?;
    match (p["pending_decision"].as_object(), d["decision"].as_object()) {
        (None, None) => Ok(()),
        (Some(want), Some(shown)) => {
            check_eq(
                "decision prompt",
                text(&shown["prompt"]),
                text(&want["prompt"]),
            )?;
            let labels: Vec<&str> = shown["buttons"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| text(&b["label"]))
                .collect();
            let choices: Vec<&str> = want["choices"]
                .as_array()
                .unwrap()
                .iter()
                .map(text)
                .collect();
            if labels != choices {
                return Err(format!("answer buttons {labels:?}, choices {choices:?}"));
            }
            for (b, c) in shown["buttons"].as_array().unwrap().iter().zip(&choices) {
                check_eq("answer action", text(&b["action"]), "win.answer")?;
                check_eq(
                    "answer target",
                    text(&b["target"]),
                    &format!("('{id}', '{c}')"),
                )?;
            }
            Ok(())
        }
        (want, shown) => Err(format!("decision: daemon {want:?}, shown {shown:?}")),
    }
}

/// Three workspaces: `api` (a permission gate on p1, a shell on tab `review` in a git
/// repository), `infra` (a failed turn: StopFailure), `web` (an unread completion).
fn realistic_state(env: &Env) -> [String; 4] {
    let repo = env.work_dir().join("attend-demo");
    std::fs::create_dir_all(&repo).unwrap();
    let git = Command::new("git")
        .args(["init", "-q", "-b", "feature/panel"])
        .current_dir(&repo)
        .status()
        .expect("git");
    assert!(git.success());
    let repo = repo.to_str().unwrap();
    let p1 = run_agent(
        env,
        &["-w", "api", "-n", "claude-api", "--agent", "claude"],
        agent(
            "Claude wants to run: echo hi > /tmp/x",
            &["UserPromptSubmit.json", "PermissionRequest.json"],
        ),
    );
    let p2 = run_agent(
        env,
        &[
            "-w", "api", "-t", "review", "-n", "tests", "--agent", "shell", "--cwd", repo,
        ],
        agent("watching tests", &[]),
    );
    let p3 = run_agent(
        env,
        &["-w", "web", "-n", "claude-web", "--agent", "claude"],
        agent("claude", &["UserPromptSubmit.json", "Stop.json"]),
    );
    let p4 = run_agent(
        env,
        &["-w", "infra", "-n", "claude-infra", "--agent", "claude"],
        agent("claude", &["UserPromptSubmit.json", "StopFailure.json"]),
    );
    env.wait_pane(&p1, "the gate", |v| v["attention"] == "permission_required");
    env.wait_pane(&p3, "the completion", |v| v["lifecycle"] == "done");
    env.wait_pane(&p4, "the failure", |v| v["lifecycle"] == "failed");
    env.wait_pane(&p2, "git facts", |v| v["branch"] == "feature/panel");
    let ls = json(env, &["ls", "--json"]);
    let by_id = |id: &str| {
        ls.as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(by_id(&p1)["attention"], "permission_required");
    assert_eq!(by_id(&p3)["attention"], "unread");
    assert_eq!(
        (
            by_id(&p4)["lifecycle"].as_str(),
            by_id(&p4)["attention"].as_str()
        ),
        (Some("failed"), Some("error"))
    );
    [p1, p2, p3, p4]
}

fn pane(env: &Env, id: &str) -> Value {
    env.show(id)
}

/// Takes the screenshot and checks it shows a rendered window, not a blank screen.
fn screenshot(x: &Xvfb, path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let out = Command::new("import")
        .args(["-display", &x.display, "-window", "root"])
        .arg(path)
        .output()
        .expect("imagemagick's import must be installed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id = Command::new("identify")
        .args(["-format", "%w %h %k"])
        .arg(path)
        .output()
        .unwrap();
    let info = String::from_utf8_lossy(&id.stdout).to_string();
    let f: Vec<u64> = info.split(' ').map(|n| n.trim().parse().unwrap()).collect();
    assert_eq!(
        (f[0], f[1]),
        (u64::from(SCREEN.0), u64::from(SCREEN.1)),
        "{info}"
    );
    assert!(f[2] > 100, "a rendered window has many colours: {info}");
}

#[test]
fn the_panel_shows_the_engine_values_answers_and_walks_next_unread() {
    let env = Env::with_daemon();
    let [p1, p2, p3, p4] = realistic_state(&env);
    let x = Xvfb::start();
    let mut panel = Panel::start(&env, &x, &[]);

    // The sidebar: every summary as the daemon computed it.
    let workspaces = json(&env, &["workspaces", "--json"]);
    assert_eq!(workspaces.as_array().unwrap().len(), 3);
    let dump = panel.wait("the three workspaces", |d| sidebar_matches(d, &workspaces));
    assert_eq!(dump["state"], "online");
    assert_eq!(
        dump["workspaces"][0]["selected"], true,
        "the first is shown"
    );
    assert_eq!(dump["detail"]["pane"], Value::Null, "no pane selected yet");
    assert_eq!(
        dump["focus_reported"],
        Value::Null,
        "showing a workspace is not focus"
    );
    assert_eq!(
        dump["workspaces"][0]["repo_branch"],
        "attend-demo · feature/panel"
    );
    let ls = json(&env, &["ls", "--json"]);
    panes_match(&dump, &ls, "api").unwrap();
    assert_eq!(
        pane(&env, &p3)["attention"],
        "unread",
        "showing is not seeing"
    );

    // A notification click (`attend focus`) raises the panel on the gate.
    env.ok(&["focus", &p1]);
    let shown = pane(&env, &p1);
    let dump = panel.wait("the gate in the detail", |d| detail_matches(d, &shown));
    assert_eq!(
        dump["window"]["active"], true,
        "the window is active on Xvfb"
    );
    env.wait_pane(&p1, "the panel's focus", |v| v["focused"] == true);
    let v = pane(&env, &p1);
    assert_eq!(
        (v["attention"].as_str(), v["lifecycle"].as_str()),
        (Some("permission_required"), Some("blocked")),
        "required attention survives focus"
    );
    let ls = json(&env, &["ls", "--json"]);
    panes_match(&dump, &ls, "api").unwrap();
    let actions: Vec<(&str, bool)> = dump["detail"]["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (text(&a["label"]), a["sensitive"] == true))
        .collect();
    assert_eq!(
        actions,
        [
            ("Mark Seen", true),
            ("Attach in Terminal", true),
            ("Resume", false),
            ("Kill", true),
            ("Remove", true)
        ]
    );
    // The live preview: the pane's screen, or the notice of a daemon without GetScreen.
    let dump = panel.wait("the screen preview", |d| {
        match text(&d["detail"]["screen"]) {
            "" => Err("no preview yet".into()),
            _ => Ok(()),
        }
    });
    let screen = text(&dump["detail"]["screen"]);
    assert!(
        screen == "This daemon offers no screen preview."
            || screen.contains("Claude wants to run: echo hi > /tmp/x"),
        "{screen:?}"
    );
    let shot = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/screenshots/panel.png");
    screenshot(&x, &shot);

    // Next unread: the engine's order skips the focused gate: the error, then the
    // unread completion; selecting a pane focuses it and unfocuses the one before.
    let next = env.ok(&["next"]).trim().to_string();
    assert_eq!(next, p4, "error before unread");
    panel.activate(&env, "next-unread", &[]);
    panel.wait("the failed pane selected", |d| {
        check_eq("detail", text(&d["detail"]["pane"]), &p4)
    });
    let v = env.wait_pane(&p4, "focused", |v| v["focused"] == true);
    assert_eq!(
        v["attention"], "none",
        "explicit focus clears ordinary attention"
    );
    assert_eq!(v["lifecycle"], "failed");
    env.wait_pane(&p1, "unfocused", |v| v["focused"] == false);
    let workspaces = json(&env, &["workspaces", "--json"]);
    panel.wait("the reviewed failure in the sidebar", |d| {
        sidebar_matches(d, &workspaces)
    });

    // Answering the gate from its button's action resolves it.
    panel.activate(&env, "show-pane", &["s", &p1]);
    panel.wait("the gate again", |d| {
        check_eq("detail", text(&d["detail"]["pane"]), &p1)
    });
    panel.activate(&env, "answer", &["(ss)", &p1, "allow"]);
    let v = env.wait_pane(&p1, "answered", |v| v["pending_decision"].is_null());
    assert_ne!(v["attention"], "permission_required");
    panel.wait("the answered gate", |d| detail_matches(d, &pane(&env, &p1)));

    // Mark seen on the completion, then nothing is left but nothing breaks.
    panel.activate(&env, "mark-seen", &["s", &p3]);
    env.wait_pane(&p3, "seen", |v| v["attention"] == "none");
    let ls = json(&env, &["ls", "--json"]);
    let workspaces = json(&env, &["workspaces", "--json"]);
    let dump = panel.wait("the final state", |d| {
        sidebar_matches(d, &workspaces)?;
        panes_match(d, &ls, "api")
    });
    assert_eq!(dump["panes"].as_array().unwrap().len(), 2);
    assert_eq!(pane(&env, &p2)["focused"], false, "never selected");
}

#[test]
fn without_the_daemon_the_panel_shows_how_to_start_it_and_follows_restarts() {
    let mut env = Env::new();
    let x = Xvfb::start();
    let mut panel = Panel::start(&env, &x, &[]);
    let dump = panel.wait("the empty state", |d| {
        check_eq("state", text(&d["state"]), "offline")
    });
    assert_eq!(dump["offline"]["title"], "Attend is not running");
    assert!(text(&dump["offline"]["description"]).contains("attend daemon"));
    assert_eq!(dump["next_unread"]["sensitive"], false);

    // "Start Attend": D-Bus activation is not set up on this bus, so the panel starts
    // `attend daemon` from beside itself (with its own environment).
    panel.activate(&env, "start-daemon", &[]);
    panel.wait("the started daemon", |d| {
        sidebar_matches(d, &serde_json::json!([]))
    });
    let p = run_agent(
        &env,
        &["-w", "solo", "--agent", "claude"],
        agent("claude", &["Stop.json"]),
    );
    env.wait_pane(&p, "the completion", |v| v["lifecycle"] == "done");
    let workspaces = json(&env, &["workspaces", "--json"]);
    panel.wait("the daemon's state", |d| sidebar_matches(d, &workspaces));
    let bus = zbus::blocking::fdo::DBusProxy::new(env.connection()).unwrap();
    let pid = bus
        .get_connection_unix_process_id(attend::config::BUS_NAME.try_into().unwrap())
        .expect("the daemon's pid") as i32;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    panel.wait("offline after SIGTERM", |d| {
        check_eq("state", text(&d["state"]), "offline")
    });

    // Another daemon takes the name: the panel connects by itself.
    env.start_daemon();
    let workspaces = json(&env, &["workspaces", "--json"]);
    panel.wait("the second daemon's state", |d| {
        sidebar_matches(d, &workspaces)
    });

    // The daemon dies: the empty state again; a new daemon: caught up and rendered.
    env.kill_daemon();
    panel.wait("offline again", |d| {
        check_eq("state", text(&d["state"]), "offline")
    });
    env.start_daemon();
    // The pane's program outlived both daemons (its holder keeps it): re-adopted.
    let v = env.wait_pane(&p, "re-adopted", |v| v["live"]["state"] == "running");
    let workspaces = json(&env, &["workspaces", "--json"]);
    let ls = json(&env, &["ls", "--json"]);
    let dump = panel.wait("the restarted daemon's state", |d| {
        sidebar_matches(d, &workspaces)?;
        panes_match(d, &ls, "solo")
    });
    assert_eq!(v["live"]["state"], "running");
    assert!(
        !text(&dump["panes"][0]["facts"]).contains("exited"),
        "{dump}"
    );
    assert!(dump["seq"].as_u64().unwrap() > 0, "events were followed");
}

#[test]
fn a_removed_pane_leaves_the_sidebar_and_the_remove_button_removes() {
    let env = Env::with_daemon();
    let p1 = env.run(&["-w", "first", "--", "true"]);
    let p2 = env.run(&["-w", "second", "--", "true"]);
    for p in [&p1, &p2] {
        env.wait_pane(p, "exited", |v| v["live"]["state"] == "exited");
    }
    let x = Xvfb::start();
    let mut panel = Panel::start(&env, &x, &[]);
    let workspaces = json(&env, &["workspaces", "--json"]);
    assert_eq!(workspaces.as_array().unwrap().len(), 2);
    panel.wait("two workspaces", |d| sidebar_matches(d, &workspaces));

    // Removed elsewhere (`attend rm`): its workspace leaves the sidebar.
    env.ok(&["rm", &p1]);
    let workspaces = json(&env, &["workspaces", "--json"]);
    assert_eq!(workspaces.as_array().unwrap().len(), 1);
    panel.wait("one workspace", |d| sidebar_matches(d, &workspaces));

    // The Remove button of an exited pane removes it at once.
    panel.activate(&env, "show-pane", &["s", &p2]);
    let dump = panel.wait("the exited pane", |d| {
        check_eq("detail", text(&d["detail"]["pane"]), &p2)
    });
    let remove = &dump["detail"]["actions"][4];
    assert_eq!(
        (remove["label"].as_str(), remove["sensitive"].as_bool()),
        (Some("Remove"), Some(true))
    );
    assert_eq!(remove["action"], "win.remove");
    env.wait_pane(&p2, "focused by the panel", |v| v["focused"] == true);
    panel.activate(&env, "remove", &["s", &p2]);
    env.wait_until("p2 removed", || {
        env.attend(&["show", &p2]).status.code() == Some(2)
    });
    let dump = panel.wait("the empty sidebar", |d| {
        sidebar_matches(d, &serde_json::json!([]))
    });
    assert_eq!(
        dump["detail"]["pane"],
        Value::Null,
        "no detail of a removed pane"
    );
    assert_eq!(dump["panes"].as_array().unwrap().len(), 0);
    assert_eq!(dump["focus_reported"], Value::Null);
    // The panel's requests go out in order: once "next unread" has answered, a failed
    // withdrawal of the removed pane's focus would have toasted before it.
    panel.activate(&env, "next-unread", &[]);
    let dump = panel.wait("the answer to next unread", |d| {
        match d["toasts"].as_array() {
            Some(t) if !t.is_empty() => Ok(()),
            _ => Err("no toast yet".into()),
        }
    });
    assert_eq!(
        dump["toasts"],
        serde_json::json!(["Nothing needs you right now"]),
        "no error about the removed pane"
    );
}

#[test]
fn the_panel_speaks_german_from_po() {
    let env = Env::with_daemon();
    let p = run_agent(
        &env,
        &["-w", "web", "--agent", "claude"],
        agent("claude", &["UserPromptSubmit.json", "Stop.json"]),
    );
    env.wait_pane(&p, "the completion", |v| v["attention"] == "unread");
    let locale = env.dir.path().join("locale/de/LC_MESSAGES");
    std::fs::create_dir_all(&locale).unwrap();
    let po = Path::new(env!("CARGO_MANIFEST_DIR")).join("po/de.po");
    let out = Command::new("msgfmt")
        .arg("-o")
        .arg(locale.join("attend.mo"))
        .arg(&po)
        .output()
        .expect("msgfmt (gettext) must be installed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let x = Xvfb::start();
    let localedir = env.dir.path().join("locale");
    let mut panel = Panel::start(
        &env,
        &x,
        &[
            ("LANGUAGE", "de"),
            ("ATTEND_LOCALEDIR", localedir.to_str().unwrap()),
        ],
    );
    let dump = panel.wait("German labels", |d| {
        let row = &d["workspaces"][0];
        check_eq("lifecycle", text(&row["lifecycle"]), "fertig")?;
        check_eq("attention", text(&row["attention"]), "ungelesen")
    });
    let row = &dump["workspaces"][0];
    assert_eq!(row["tabs"], "Reiter: main");
    assert!(has_class(&row["indicator_classes"], "attention-unread"));
    assert_eq!(
        dump["next_unread"]["tooltip"], "Zum nächsten Bereich gehen, der Sie braucht (Strg+N)",
        "strings of the .ui templates are translated too"
    );
    assert_eq!(dump["detail"]["empty_title"], "Kein Bereich ausgewählt");
}
