//! Test support for the GTK panel tests (`tests/integration/panel_*.rs`, and
//! `tests/real_agents/real_claude_panel_reply.rs` with a real agent): an Xvfb display, the real
//! `attend-panel` on it with its `ATTEND_PANEL_DUMP` hook (what its widgets display, read
//! back from GTK), keys and window sizes through `xdotool` (XTEST, as a keyboard does),
//! stand-in agents delivering recorded Claude Code hooks, and the checks that compare the
//! dump with the daemon (`attend workspaces --json`, `attend ls --json`). It needs `support`
//! beside it at the test binary's root (`tests/integration/main.rs` and
//! `tests/real_agents/main.rs` declare both).
#![allow(dead_code)]

use crate::support::{self, Env};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// GTK start-up under Xvfb in a debug build on a loaded 2-core machine can be slow.
pub const UI_TIMEOUT: Duration = Duration::from_secs(45);
/// The default screen: the window's default size, so a screenshot of it is the window.
pub const SCREEN: (u32, u32) = (1180, 720);
/// A screen wider than any window size the layout tests try.
pub const WIDE_SCREEN: (u32, u32) = (1440, 900);
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/claude/2.1.197");

/// An Xvfb server on a free display (`-displayfd`), killed on drop.
pub struct Xvfb {
    child: Child,
    pub display: String,
    pub size: (u32, u32),
}

impl Xvfb {
    /// A display of [`SCREEN`].
    pub fn start() -> Xvfb {
        Xvfb::sized(SCREEN)
    }

    /// A display of `size` (width, height).
    pub fn sized(size: (u32, u32)) -> Xvfb {
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
            .arg(format!("{}x{}x24", size.0, size.1))
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
            size,
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
pub struct Panel {
    child: Child,
    pub dump: PathBuf,
    log: PathBuf,
    display: String,
}

impl Panel {
    /// Starts the panel on `x` against `env`'s bus; `vars` are extra environment.
    pub fn start(env: &Env, x: &Xvfb, vars: &[(&str, &str)]) -> Panel {
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
            // GTK's test accessibility backend: it keeps what the panel tells screen
            // readers, so the dump can read it back (no AT-SPI bus needed).
            .env("GTK_A11Y", "test")
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
            display: x.display.clone(),
        }
    }

    /// The panel's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn read(&self) -> Option<Value> {
        let text = std::fs::read_to_string(&self.dump).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Waits until the dump satisfies `check` (which returns why not); returns it.
    pub fn wait(&mut self, what: &str, check: impl Fn(&Value) -> Result<(), String>) -> Value {
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

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Activates a window action the way a button does, over the panel's D-Bus export.
    pub fn activate(&self, env: &Env, action: &str, typed_arg: &[&str]) {
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

/// `xdotool ARGS` on the panel's display; panics with its error output when it fails.
fn xdotool(display: &str, args: &[&str]) -> String {
    let out = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .output()
        .expect("xdotool must be installed (build-aux/deps.sh test)");
    assert!(
        out.status.success(),
        "xdotool {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

impl Panel {
    /// The X window id of the panel's window (once it is mapped).
    pub fn window_id(&self) -> String {
        let start = Instant::now();
        loop {
            let out = Command::new("xdotool")
                .args(["search", "--onlyvisible", "--name", "^Attend$"])
                .env("DISPLAY", &self.display)
                .output()
                .expect("xdotool must be installed (build-aux/deps.sh test)");
            let text = String::from_utf8_lossy(&out.stdout);
            if let Some(id) = text.lines().next().filter(|l| !l.is_empty()) {
                return id.to_string();
            }
            assert!(
                start.elapsed() < UI_TIMEOUT,
                "no panel window on the display"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Types `keys` (xdotool key names, `ctrl+y`) into the panel's main window as a
    /// keyboard does (XTEST), after giving it the input focus.
    pub fn keys(&self, keys: &[&str]) {
        let id = self.window_id();
        xdotool(&self.display, &["windowfocus", "--sync", &id]);
        self.keys_to_focus(keys);
    }

    /// Types `keys` into whichever window has the input focus (a dialog the panel just
    /// presented takes it).
    pub fn keys_to_focus(&self, keys: &[&str]) {
        let mut args = vec!["key", "--delay", "30"];
        args.extend_from_slice(keys);
        xdotool(&self.display, &args);
    }

    /// Types `text` into whichever window has the input focus, character by character
    /// as a keyboard does (XTEST).
    pub fn type_text(&self, text: &str) {
        xdotool(&self.display, &["type", "--delay", "20", text]);
    }

    /// Resizes the panel's window to `width` × `height` (as a window manager would).
    pub fn resize(&self, width: u32, height: u32) {
        let id = self.window_id();
        xdotool(
            &self.display,
            &["windowsize", &id, &width.to_string(), &height.to_string()],
        );
    }

    /// Saves a screenshot of the panel's window alone to `path`; checks it is `size`
    /// and shows a rendered window.
    pub fn window_shot(&self, path: &Path, size: (u32, u32)) {
        let id = self.window_id();
        capture(&self.display, &["-window", &id], path, size);
    }
}

/// `attend run` arguments for an agent stand-in: a shell in the pane that prints
/// `banner`, delivers the recorded Claude hooks `fixtures` in order the way Claude Code
/// does (`attend hook claude < payload`, run under the pane, with the `ATTEND_PANE` the
/// daemon set), then stays alive.
pub fn agent(banner: &str, fixtures: &[&str]) -> Vec<String> {
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
pub fn run_agent(env: &Env, args: &[&str], agent: Vec<String>) -> String {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(agent.iter().map(String::as_str));
    env.run(&all)
}

pub fn json(env: &Env, args: &[&str]) -> Value {
    serde_json::from_str(&env.ok(args)).unwrap()
}

pub fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// The English label of a vocabulary value: the wire name read aloud.
pub fn label(wire: &str) -> String {
    wire.replace('_', " ")
}

pub fn has_class(classes: &Value, class: &str) -> bool {
    classes
        .as_array()
        .is_some_and(|a| a.iter().any(|c| c == class))
}

pub fn check_eq(what: &str, shown: &str, want: &str) -> Result<(), String> {
    if shown == want {
        Ok(())
    } else {
        Err(format!("{what}: shown {shown:?}, daemon says {want:?}"))
    }
}

/// The attention values, least severe first (`docs/lifecycle-attention.md#attention`).
pub const SEVERITY: [&str; 6] = [
    "none",
    "unread",
    "warning",
    "input_required",
    "permission_required",
    "error",
];

/// `workspaces` (`attend workspaces --json`) in the sidebar's default order: worst
/// attention first, then the most recent attention change (none last), then name.
pub fn by_attention(workspaces: &Value) -> Vec<Value> {
    let mut ws = workspaces.as_array().unwrap().clone();
    let severity = |w: &Value| {
        SEVERITY
            .iter()
            .position(|s| *s == text(&w["worst_attention"]))
            .unwrap()
    };
    ws.sort_by(|a, b| {
        let changed = |w: &Value| w["attention_changed_at"].as_str().map(String::from);
        severity(b)
            .cmp(&severity(a))
            .then_with(|| match (changed(a), changed(b)) {
                (Some(x), Some(y)) => y.cmp(&x),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            })
            .then_with(|| {
                text(&a["name"])
                    .to_lowercase()
                    .cmp(&text(&b["name"]).to_lowercase())
            })
    });
    ws
}

/// The sidebar shows exactly the daemon's workspace summaries, worst attention first
/// ([`by_attention`]).
pub fn sidebar_matches(dump: &Value, workspaces: &Value) -> Result<(), String> {
    sidebar_in_order(dump, &by_attention(workspaces))
}

/// The sidebar shows exactly `ws` (workspace summaries), in this order.
pub fn sidebar_in_order(dump: &Value, ws: &[Value]) -> Result<(), String> {
    check_eq("state", text(&dump["state"]), "online")?;
    let rows = dump["workspaces"].as_array().ok_or("no sidebar")?;
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
pub fn panes_match(dump: &Value, panes: &Value, workspace: &str) -> Result<(), String> {
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
pub fn detail_matches(dump: &Value, p: &Value) -> Result<(), String> {
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
pub fn realistic_state(env: &Env) -> [String; 4] {
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

pub fn pane(env: &Env, id: &str) -> Value {
    env.show(id)
}

/// Takes a screenshot of the whole screen and checks it shows a rendered window.
pub fn screenshot(x: &Xvfb, path: &Path) {
    capture(&x.display, &["-window", "root"], path, x.size);
}

/// `import -display D WHICH PATH`; checks the image is `size` with many colours (a
/// rendered window, not a blank screen).
fn capture(display: &str, which: &[&str], path: &Path, size: (u32, u32)) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let out = Command::new("import")
        .args(["-display", display])
        .args(which)
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
        (u64::from(size.0), u64::from(size.1)),
        "{info}"
    );
    assert!(f[2] > 100, "a rendered window has many colours: {info}");
}

/// Where a test writes its screenshot NAME: `target/screenshots/NAME`, so a test run
/// leaves the checked-in pictures alone; with `ATTEND_UPDATE_SCREENSHOTS=1` the checked-in
/// `docs/screenshots/NAME` itself (how the pictures in the docs are renewed).
pub fn shot_path(name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = if std::env::var_os("ATTEND_UPDATE_SCREENSHOTS").is_some_and(|v| v == "1") {
        root.join("docs/screenshots")
    } else {
        root.join("target/screenshots")
    };
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}
