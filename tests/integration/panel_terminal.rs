//! The panel's live terminal (`docs/desktop-surfaces.md#the-live-terminal`) on Xvfb with
//! real key events (XTEST): a scripted program in a pane, shown in the panel's VTE
//! terminal through the daemon's attach socket. Text typed into the widget reaches the
//! program (which echoes it back), the program's colours are drawn (a pixel check of its
//! red background in a screenshot, `target/screenshots/panel-terminal.png`;
//! `ATTEND_UPDATE_SCREENSHOTS=1` renews `docs/screenshots/panel-terminal.png`), the pane
//! takes the widget's size (`stty size` in the pane, before and after the window is
//! resized, and in the one-column layout), focus follows the terminal's keyboard focus, and leaving the pane detaches
//! while the program runs on. A followed tmux pane (a real tmux server) is shown through a
//! tmux client of the panel's own (`attend attach --watch`): its colours, typed text
//! reaching it, leaving detaching that client while the pane runs on; a remote pane
//! through the `--via` link likewise. A pane Attend follows only through its hooks shows
//! why it has no screen.

use crate::panel;
use crate::support;
use crate::tmux_support::{blocked_in, fake_claude_with, need_tmux, server_with_a_shell, tmux};

use panel::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use support::Env;

/// The program in the pane: echoes each line it reads, answers `size` with the pane's
/// `stty size` and `red` with a red background run (Tango's red, palette colour 1).
const PROGRAM: &str = r#"printf 'ready\n'
while IFS= read -r l; do
  case "$l" in
    size) printf 'size:%s\n' "$(stty size)" ;;
    red) printf '\033[41m%40s\033[0m red-done\n' '' ;;
    *) printf 'echo:%s\n' "$l" ;;
  esac
done"#;

/// The terminal part of the dump.
fn term(d: &Value) -> &Value {
    &d["detail"]["terminal"]
}

/// The terminal's text contains `what`.
fn shows(d: &Value, what: &str) -> Result<(), String> {
    let t = text(&term(d)["text"]);
    if t.contains(what) {
        Ok(())
    } else {
        Err(format!("no {what:?} in the terminal: {t:?}"))
    }
}

/// Types `line` and Return into the focused terminal.
fn type_line(panel: &Panel, line: &str) {
    let keys: Vec<String> = line.chars().map(|c| c.to_string()).collect();
    let mut all: Vec<&str> = keys.iter().map(String::as_str).collect();
    all.push("Return");
    panel.keys_to_focus(&all);
}

/// The last `size:R C` line the program printed.
fn last_size(d: &Value) -> Option<(u64, u64)> {
    let t = text(&term(d)["text"]);
    let line = t.lines().rev().find_map(|l| l.strip_prefix("size:"))?;
    let mut n = line.split_whitespace().map(|w| w.parse::<u64>().ok());
    Some((n.next()??, n.next()??))
}

/// The terminal's grid (rows, columns) once `want` holds for it and it has not changed
/// for a second.
fn settled_grid(panel: &Panel, want: impl Fn((u64, u64)) -> bool) -> (u64, u64) {
    let start = std::time::Instant::now();
    let mut last: Option<((u64, u64), std::time::Instant)> = None;
    loop {
        let grid = panel
            .read()
            .and_then(|d| Some((term(&d)["rows"].as_u64()?, term(&d)["cols"].as_u64()?)));
        if let Some(g) = grid.filter(|g| want(*g)) {
            match last {
                Some((prev, since)) if prev == g => {
                    if since.elapsed() >= std::time::Duration::from_secs(1) {
                        return g;
                    }
                }
                _ => last = Some((g, std::time::Instant::now())),
            }
        } else {
            last = None;
        }
        assert!(
            start.elapsed() < UI_TIMEOUT,
            "the grid never settled: {grid:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Pixels of `png` within a few steps of Tango's red `#cc0000` (ImageMagick's histogram).
fn red_pixels(png: &Path) -> u64 {
    let out = Command::new("convert")
        .arg(png)
        .args(["-format", "%c", "histogram:info:-"])
        .output()
        .expect("imagemagick's convert must be installed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Lines look like `   4711: (204,0,0) #CC0000 srgb(204,0,0)`.
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (count, rest) = l.trim().split_once(':')?;
            let rgb = rest.trim().strip_prefix('(')?.split(')').next()?;
            let c: Vec<u64> = rgb
                .split(',')
                .filter_map(|v| v.trim().parse().ok())
                .collect();
            let red = c.len() >= 3 && (196..=212).contains(&c[0]) && c[1] <= 10 && c[2] <= 10;
            red.then(|| count.trim().parse::<u64>().ok()).flatten()
        })
        .sum()
}

#[test]
fn the_panel_terminal_types_into_the_pane_draws_its_colours_and_sizes_it() {
    let env = Env::with_daemon();
    let p = env.run(&["-w", "term", "-n", "echo", "--", "sh", "-c", PROGRAM]);
    env.wait_pane(&p, "running", |v| v["live"]["state"] == "running");
    let x = Xvfb::start();
    let mut panel = Panel::start(&env, &x, &[]);
    panel.wait("online", |d| check_eq("state", text(&d["state"]), "online"));

    // Showing the pane attaches its terminal: the redraw shows what it printed.
    panel.activate(&env, "show-pane", &["s", &p]);
    let d = panel.wait("the pane's screen in the terminal", |d| {
        check_eq("mode", text(&term(d)["mode"]), "live")?;
        check_eq("connection", text(&term(d)["connection"]), "attached")?;
        shows(d, "ready")
    });
    assert_eq!(d["detail"]["screen"], term(&d)["text"]);

    // Ctrl+Shift+T puts the keyboard into the terminal; typed keys reach the program.
    panel.keys(&["ctrl+shift+t"]);
    panel.wait("the terminal has the keyboard", |d| {
        if term(d)["focused"] == true {
            Ok(())
        } else {
            Err(format!("terminal {}", term(d)))
        }
    });
    type_line(&panel, "hello");
    panel.wait("the program's echo", |d| shows(d, "echo:hello"));
    // Typing is interaction: the pane is focused (and so seen) while the terminal has
    // the keyboard in the active window.
    let v = env.wait_pane(&p, "focused", |v| v["focused"] == true);
    assert_eq!(v["attention"], "none");
    // Keys the panel binds elsewhere go to the program here: Ctrl+K is not "kill" (no
    // confirmation opens) but a character of the line the program reads.
    panel.keys_to_focus(&["x", "ctrl+k", "Return"]);
    let d = panel.wait("the line with Ctrl+K", |d| shows(d, "echo:x"));
    assert_eq!(d["dialog"], Value::Null, "no kill confirmation");

    // Colours: the program's red background is drawn in the widget.
    type_line(&panel, "red");
    panel.wait("the red run", |d| shows(d, "red-done"));
    std::thread::sleep(std::time::Duration::from_millis(500));
    let shot = shot_path("panel-terminal.png");
    panel.window_shot(&shot, x.size);
    let red = red_pixels(&shot);
    assert!(red > 2000, "{red} red pixels in {}", shot.display());

    // Size: the pane has the widget's grid, and follows it when the window is resized.
    type_line(&panel, "size");
    let d = panel.wait("the pane's size", |d| match last_size(d) {
        Some(s)
            if s == (
                term(d)["rows"].as_u64().unwrap(),
                term(d)["cols"].as_u64().unwrap(),
            ) =>
        {
            Ok(())
        }
        other => Err(format!(
            "stty size {other:?}, grid {}x{}",
            term(d)["rows"],
            term(d)["cols"]
        )),
    });
    let before = last_size(&d).unwrap();
    panel.resize(900, 560);
    // The layout settles through a fold of the columns: wait until the grid has fewer
    // rows (the window is lower) and stayed the same for a second.
    let grid = settled_grid(&panel, |g| g.0 < before.0);
    type_line(&panel, "size");
    panel.wait("the pane's new size", |d| match last_size(d) {
        Some(s) if s == grid && s != before => Ok(()),
        other => Err(format!("stty size {other:?}, grid {grid:?}")),
    });

    // One column (a narrow window): Ctrl+Shift+T goes back to the pane list, the pane
    // stays selected and focused; Ctrl+Shift+T again shows the terminal and types there.
    panel.resize(520, 560);
    let narrow = settled_grid(&panel, |g| g.1 < before.1);
    panel.keys_to_focus(&["ctrl+shift+t"]);
    panel.wait("the list has the keyboard", |d| {
        if term(d)["focused"] == false {
            Ok(())
        } else {
            Err("the terminal still has the keyboard".into())
        }
    });
    assert_eq!(env.show(&p)["focused"], true);
    panel.keys_to_focus(&["ctrl+shift+t"]);
    panel.wait("the terminal has the keyboard again", |d| {
        if term(d)["focused"] == true {
            Ok(())
        } else {
            Err(format!("terminal {}", term(d)))
        }
    });
    type_line(&panel, "size");
    panel.wait("the narrow size", |d| match last_size(d) {
        Some(s) if s == narrow => Ok(()),
        other => Err(format!("stty size {other:?}, grid {narrow:?}")),
    });

    // Leaving the pane detaches: the program runs on, and a new attach sees its screen.
    // (Wide again: in one column the deselect action goes back a column instead.)
    panel.resize(x.size.0, x.size.1);
    settled_grid(&panel, |g| g.1 > narrow.1);
    panel.activate(&env, "deselect", &[]);
    panel.wait("no pane shown", |d| {
        check_eq("connection", text(&term(d)["connection"]), "idle")
    });
    let v = env.wait_pane(&p, "unfocused", |v| v["focused"] == false);
    assert_eq!(v["live"]["state"], "running");
    panel.activate(&env, "show-pane", &["s", &p]);
    panel.wait("attached again", |d| {
        check_eq("connection", text(&term(d)["connection"]), "attached")?;
        shows(d, "echo:hello")
    });
}

#[test]
fn a_pane_followed_through_hooks_says_why_it_has_no_screen() {
    let env = Env::with_daemon();
    let payload = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/claude/2.1.197/UserPromptSubmit.json"
    ))
    .unwrap();
    // A hook without a pane of Attend's: an external pane, followed through its hooks.
    let out = env.attend_with(&["hook", "claude"], payload.as_bytes(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ls = json(&env, &["ls", "--json"]);
    let external = ls.as_array().unwrap()[0].clone();
    assert_eq!(external["owned"], false);
    let id = text(&external["id"]).to_string();
    let x = Xvfb::start();
    let mut panel = Panel::start(&env, &x, &[]);
    panel.wait("online", |d| check_eq("state", text(&d["state"]), "online"));
    panel.activate(&env, "show-pane", &["s", &id]);
    let d = panel.wait("the reason", |d| {
        check_eq("detail pane", text(&d["detail"]["pane"]), &id)?;
        check_eq("mode", text(&term(d)["mode"]), "none")
    });
    assert!(
        text(&term(&d)["reason"]).contains("through its hooks"),
        "{}",
        term(&d)
    );
    assert_eq!(term(&d)["connection"], "idle");
    // The keyboard cannot go into a terminal that is not there: a toast says why.
    panel.keys(&["ctrl+shift+t"]);
    panel.wait("the toast", |d| {
        let toasts = d["toasts"].as_array().cloned().unwrap_or_default();
        if toasts.iter().any(|t| text(t).contains("through its hooks")) {
            Ok(())
        } else {
            Err(format!("toasts {toasts:?}"))
        }
    });

    // Ctrl+? lists the terminal's keys.
    panel.keys(&["ctrl+question"]);
    let d = panel.wait("the shortcuts window", |d| {
        match d["shortcuts"]["visible"] {
            Value::Bool(true) => Ok(()),
            _ => Err("not shown".into()),
        }
    });
    let listed: Vec<(String, String)> = d["shortcuts"]["shortcuts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                text(&s["title"]).to_string(),
                text(&s["accelerator"]).to_string(),
            )
        })
        .collect();
    for (title, key) in [
        (
            "Type into the pane's terminal, or back to the pane list",
            "t",
        ),
        ("Copy the terminal's selection", "c"),
        ("Paste into the terminal", "v"),
    ] {
        let shown = listed.iter().find(|(t, _)| t == title);
        let (_, accel) = shown.unwrap_or_else(|| panic!("no shortcut {title:?} in {listed:?}"));
        // Control and Shift with the key, in whichever order GTK writes the modifiers.
        let ok = accel.contains("<Control>")
            && accel.contains("<Shift>")
            && accel.to_lowercase().ends_with(&format!(">{key}"));
        assert!(ok, "{title}: {accel}");
    }
}

/// The clients of the test's tmux server that are no control client: `flags pane` each.
fn tmux_viewers(env: &Env) -> Vec<String> {
    tmux(
        env,
        &[
            "list-clients",
            "-F",
            "#{client_control_mode} #{client_flags} #{pane_id}",
        ],
    )
    .lines()
    .filter_map(|l| l.strip_prefix("0 "))
    .map(str::to_string)
    .collect()
}

/// Waits for the terminal to show `what` live through a relayed `attend attach --watch`.
fn relayed(panel: &mut Panel, what: &str) -> Value {
    panel.wait("the pane's screen through the relay", |d| {
        check_eq("mode", text(&term(d)["mode"]), "live")?;
        check_eq("connection", text(&term(d)["connection"]), "attached")?;
        check_eq("link", text(&term(d)["link"]), "relay")?;
        shows(d, what)
    })
}

/// Ctrl+Shift+T, and waits until the terminal has the keyboard.
fn keyboard_into_terminal(panel: &mut Panel) {
    panel.keys(&["ctrl+shift+t"]);
    panel.wait("the terminal has the keyboard", |d| {
        if term(d)["focused"] == true {
            Ok(())
        } else {
            Err(format!("terminal {}", term(d)))
        }
    });
}

#[test]
fn a_followed_tmux_pane_is_shown_through_a_tmux_client_of_the_panels_own() {
    need_tmux();
    let mut env = Env::new();
    env.start_daemon();
    // The guard ends the tmux server when the test ends, also when it fails.
    let (_server, shell) = server_with_a_shell(&env);
    // An agent in the tmux pane: its dialog, one line read into `typed`, then a red run
    // and an echo of each line.
    let typed = env.work_dir().join("typed.txt");
    let after = "printf '\\033[41m%40s\\033[0m red-done\\n' ''\n\
                 while IFS= read -r l; do printf 'echo:%s\\n' \"$l\"; done\n";
    let id = blocked_in(
        &env,
        &shell,
        &fake_claude_with(&env, "red", &typed, "", after),
    );
    let x = Xvfb::start();
    let mut panel = Panel::start(&env, &x, &[]);
    panel.wait("online", |d| check_eq("state", text(&d["state"]), "online"));

    // Showing the pane attaches a tmux client of the panel's, flagged ignore-size, on it.
    panel.activate(&env, "show-pane", &["s", &id]);
    relayed(&mut panel, "Accessing workspace");
    let viewers = tmux_viewers(&env);
    assert!(
        viewers.len() == 1 && viewers[0].contains("ignore-size") && viewers[0].ends_with(&shell),
        "{viewers:?}"
    );

    // Typed text reaches the tmux pane: the agent reads its line, then draws red.
    keyboard_into_terminal(&mut panel);
    type_line(&panel, "hello");
    env.wait_until("the line read in the tmux pane", || {
        std::fs::read_to_string(&typed).is_ok_and(|t| t == "hello")
    });
    panel.wait("the red run", |d| shows(d, "red-done"));
    // Typing is interaction: the pane is focused while the terminal has the keyboard.
    env.wait_pane(&id, "focused", |v| v["focused"] == true);
    type_line(&panel, "again");
    panel.wait("the agent's echo", |d| shows(d, "echo:again"));
    std::thread::sleep(std::time::Duration::from_millis(500));
    let shot = shot_path("panel-terminal-tmux.png");
    panel.window_shot(&shot, x.size);
    let red = red_pixels(&shot);
    assert!(red > 2000, "{red} red pixels in {}", shot.display());

    // Leaving the pane ends the panel's client; the tmux pane and its agent run on.
    panel.activate(&env, "deselect", &[]);
    panel.wait("no pane shown", |d| {
        check_eq("connection", text(&term(d)["connection"]), "idle")
    });
    env.wait_until("the panel's tmux client gone", || {
        tmux_viewers(&env).is_empty()
    });
    assert_eq!(env.show(&id)["live"]["state"], "running");
    let command = tmux(
        &env,
        &[
            "display-message",
            "-p",
            "-t",
            &shell,
            "#{pane_current_command}",
        ],
    );
    assert_eq!(command.trim(), "claude");
    // Shown again: a new client, and the screen as the agent left it.
    panel.activate(&env, "show-pane", &["s", &id]);
    relayed(&mut panel, "echo:again");
    panel.activate(&env, "deselect", &[]);
    env.wait_until("the second client gone", || tmux_viewers(&env).is_empty());
}

#[test]
fn a_remote_pane_is_shown_through_the_link() {
    use support::remote::{add, local_env, remote_env, via_args, wait_listed, wait_state};
    let (remote, socket) = remote_env();
    let local = local_env();
    add(&local, "r1", "box", &via_args(&remote, &socket));
    wait_state(&local, "r1", "connected", |r| r["state"] == "connected");
    let p = remote.run(&["-w", "term", "-n", "echo", "--", "sh", "-c", PROGRAM]);
    remote.wait_pane(&p, "running", |v| v["live"]["state"] == "running");
    let id = format!("r1:{p}");
    wait_listed(&local, &id, "mirrored, running", |v| {
        v["live"]["state"] == "running" && v["owned"] == true
    });
    let x = Xvfb::start();
    // The panel's `attend attach` reads the remotes of this machine's config.toml.
    let config = local.path("config");
    let config = config.to_str().unwrap();
    let mut panel = Panel::start(&local, &x, &[("XDG_CONFIG_HOME", config)]);
    panel.wait("online", |d| check_eq("state", text(&d["state"]), "online"));

    panel.activate(&local, "show-pane", &["s", &id]);
    relayed(&mut panel, "ready");
    keyboard_into_terminal(&mut panel);
    type_line(&panel, "hello");
    panel.wait("the remote program's echo", |d| shows(d, "echo:hello"));
    // Leaving detaches; the remote program runs on.
    panel.activate(&local, "deselect", &[]);
    panel.wait("no pane shown", |d| {
        check_eq("connection", text(&term(d)["connection"]), "idle")
    });
    assert_eq!(remote.show(&p)["live"]["state"], "running");
}
