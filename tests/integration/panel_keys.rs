//! The panel from the keyboard and at every width (docs/desktop-surfaces.md#keyboard,
//! #layout): the real `attend daemon` on a private bus, the real `attend-panel` on Xvfb,
//! keys typed and windows resized through `xdotool` (XTEST, as a keyboard and a window
//! manager do), widget state read back from the panel's `ATTEND_PANEL_DUMP` hook. Each
//! shortcut is pressed and its effect on the daemon checked; the layout is checked by the
//! allocation of the Resume and Kill buttons after a sequence of resizes. Screenshots go to
//! `target/screenshots/` (`ATTEND_UPDATE_SCREENSHOTS=1`: `docs/screenshots/`; panel-520.png, panel-900.png, panel-1400.png,
//! panel-shortcuts.png).

use crate::panel;
use crate::support;

use panel::*;
use serde_json::Value;
use support::Env;

/// `pane`'s last `decision.resolved` event (its `how` and `choice`).
fn resolution(env: &Env, pane: &str) -> Option<Value> {
    env.events()
        .into_iter()
        .rev()
        .find(|e| e["pane"] == pane && e["kind"] == "decision.resolved")
}

/// Waits until the detail shows `pane`.
fn shown(panel: &mut Panel, pane: &str) -> Value {
    panel.wait(&format!("{pane} in the detail"), |d| {
        check_eq("detail", text(&d["detail"]["pane"]), pane)
    })
}

/// Waits until the newest toast is `want`-like (contains it).
fn toast(panel: &mut Panel, want: &str) -> Value {
    panel.wait(&format!("a toast {want:?}"), |d| {
        let last = d["toasts"].as_array().and_then(|t| t.last()).map(text);
        match last {
            Some(t) if t.contains(want) => Ok(()),
            other => Err(format!("last toast {other:?}")),
        }
    })
}

#[test]
fn every_shortcut_acts_on_the_selected_pane() {
    let env = Env::with_daemon();
    let gate = |name: &str| {
        run_agent(
            &env,
            &["-w", "keys", "-n", name, "--agent", "claude"],
            agent(
                "Claude wants to run: ls",
                &["UserPromptSubmit.json", "PermissionRequest.json"],
            ),
        )
    };
    let done = |name: &str| {
        run_agent(
            &env,
            &["-w", "keys", "-n", name, "--agent", "claude"],
            agent("claude", &["UserPromptSubmit.json", "Stop.json"]),
        )
    };
    let (g1, g2) = (gate("gate-1"), gate("gate-2"));
    let (u1, u2, u3) = (done("done-1"), done("done-2"), done("done-3"));
    for g in [&g1, &g2] {
        env.wait_pane(g, "the gate", |v| v["attention"] == "permission_required");
    }
    for u in [&u1, &u2, &u3] {
        env.wait_pane(u, "the completion", |v| v["attention"] == "unread");
    }
    // A stand-in terminal: the only program on the panel's PATH.
    let bin = env.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let term = bin.join("xdg-terminal-exec");
    let argv_file = env.dir.path().join("terminal-argv");
    std::fs::write(
        &term,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > {}\n",
            argv_file.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&term, std::fs::Permissions::from_mode(0o755)).unwrap();

    let x = Xvfb::start();
    let mut panel = Panel::start(&env, &x, &[("PATH", bin.to_str().unwrap())]);
    panel.wait("five panes", |d| match d["panes"].as_array() {
        Some(rows) if rows.len() == 5 => Ok(()),
        _ => Err("not yet".into()),
    });

    // Ctrl+N: the engine's next unread, focused.
    let next = env.ok(&["next"]).trim().to_string();
    panel.keys(&["ctrl+n"]);
    shown(&mut panel, &next);
    env.wait_pane(&next, "focused by Ctrl+N", |v| v["focused"] == true);

    // Ctrl+Y allows the selected pane's gate, Ctrl+D denies the other's.
    panel.activate(&env, "show-pane", &["s", &g1]);
    shown(&mut panel, &g1);
    panel.keys(&["ctrl+y"]);
    env.wait_pane(&g1, "allowed", |v| v["pending_decision"].is_null());
    let r = resolution(&env, &g1).expect("a resolution");
    assert_eq!(
        (r["how"].as_str(), r["choice"].as_str()),
        (Some("answered"), Some("allow")),
        "{r}"
    );
    panel.activate(&env, "show-pane", &["s", &g2]);
    shown(&mut panel, &g2);
    panel.keys(&["ctrl+d"]);
    env.wait_pane(&g2, "denied", |v| v["pending_decision"].is_null());
    let r = resolution(&env, &g2).expect("a resolution");
    assert_eq!(
        (r["how"].as_str(), r["choice"].as_str()),
        (Some("answered"), Some("deny")),
        "{r}"
    );
    // Without an open gate the shortcut says so.
    panel.wait("the answered gate", |d| match d["detail"]["decision"] {
        Value::Null => Ok(()),
        _ => Err("decision still shown".into()),
    });
    panel.keys(&["ctrl+y"]);
    toast(
        &mut panel,
        "gate-2 has no open permission request or question",
    );

    // Moving the selection with the keyboard passes over panes without focusing them:
    // only the pane it stays on is focused, after the dwell.
    panel.activate(&env, "show-pane", &["s", &u1]);
    shown(&mut panel, &u1);
    env.wait_pane(&u1, "focused when shown", |v| v["focused"] == true);
    panel.keys(&["Down", "Down"]);
    shown(&mut panel, &u3);
    env.wait_pane(&u3, "focused after the dwell", |v| {
        v["focused"] == true && v["attention"] == "none"
    });
    let v = pane(&env, &u2);
    assert_eq!(
        (v["attention"].as_str(), v["focused"].as_bool()),
        (Some("unread"), Some(false)),
        "passed over: still unread"
    );

    // Ctrl+M marks the selected pane seen, without focusing it (the selection moves on
    // at once).
    panel.keys(&["Up", "ctrl+m", "Down"]);
    env.wait_pane(&u2, "marked seen", |v| v["attention"] == "none");
    assert_eq!(pane(&env, &u2)["focused"], false, "seen, never focused");
    shown(&mut panel, &u3);

    // Ctrl+T attaches in the terminal found first: here xdg-terminal-exec.
    panel.keys(&["ctrl+t"]);
    env.wait_until("the terminal ran", || {
        std::fs::read_to_string(&argv_file).is_ok_and(|t| t.lines().count() == 3)
    });
    let argv: Vec<String> = std::fs::read_to_string(&argv_file)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert!(argv[0].ends_with("/attend"), "{argv:?}");
    assert_eq!(argv[1..], ["attach".to_string(), u3.clone()]);
    // No terminal at all: the toast names what was tried.
    std::fs::remove_file(&term).unwrap();
    panel.keys(&["ctrl+t"]);
    toast(
        &mut panel,
        "Cannot open a terminal: no terminal found (tried xdg-terminal-exec, kgx, ptyxis, \
         gnome-terminal, konsole, kitty, wezterm, alacritty, foot, xterm, x-terminal-emulator)",
    );

    // Ctrl+? opens the shortcuts window, which lists the keys the panel binds.
    panel.keys(&["ctrl+question"]);
    let dump = panel.wait("the shortcuts window", |d| {
        match d["shortcuts"]["visible"] {
            Value::Bool(true) => Ok(()),
            _ => Err("not shown".into()),
        }
    });
    let accel = |title: &str| -> String {
        dump["shortcuts"]["shortcuts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["title"] == title)
            .map(|s| text(&s["accelerator"]).to_string())
            .unwrap_or_else(|| panic!("no shortcut {title:?}: {:#}", dump["shortcuts"]))
    };
    for (title, key) in [
        ("Allow its open permission request", "<Control>y"),
        ("Deny its open permission request", "<Control>d"),
        ("Mark it seen", "<Control>m"),
        ("Attach to it in a terminal", "<Control>t"),
        ("Kill its program (asks first)", "<Control>k"),
        ("Go to the next pane that needs you", "<Control>n"),
        (
            "Show or leave every open decision in one list",
            "<Shift><Control>a",
        ),
        ("Keyboard shortcuts", "<Control>question"),
    ] {
        assert_eq!(accel(title), key, "{title}");
    }
    screenshot(&x, &shot_path("panel-shortcuts.png"));
    panel.keys_to_focus(&["Escape"]);
    panel.wait("the shortcuts window closed", |d| {
        match d["shortcuts"]["visible"] {
            Value::Bool(false) => Ok(()),
            _ => Err("still shown".into()),
        }
    });

    // Ctrl+K asks first: Escape keeps the program, the Kill answer kills it.
    let asked = |d: &Value| match d["dialog"]["heading"].as_str() {
        Some(h) if h == format!("Kill the program in {u3}?") => Ok(()),
        other => Err(format!("dialog {other:?}")),
    };
    panel.keys(&["ctrl+k"]);
    panel.wait("the kill confirmation", asked);
    panel.keys_to_focus(&["Escape"]);
    panel.wait("the dialog closed", |d| match d["dialog"] {
        Value::Null => Ok(()),
        _ => Err("still open".into()),
    });
    assert_eq!(pane(&env, &u3)["live"]["state"], "running", "cancelled");
    panel.keys(&["ctrl+k"]);
    panel.wait("the kill confirmation again", asked);
    panel.keys_to_focus(&["alt+k"]);
    let v = env.wait_pane(&u3, "killed", |v| v["live"]["state"] == "exited");
    assert_eq!(v["live"]["signal"], 15, "SIGTERM: {v}");
}

/// The layout's checks at `width` × `height`: the window is that size, the columns
/// expected at that width are on screen, and the Resume and Kill buttons lie inside it.
fn layout_fits(d: &Value, width: i64, height: i64) -> Result<(), String> {
    let l = &d["layout"];
    if l["surface"] != serde_json::json!([width, height]) {
        return Err(format!("window {} not yet {width}x{height}", l["surface"]));
    }
    let (w, h) = (l["width"].as_i64().unwrap(), l["height"].as_i64().unwrap());
    if w > width || h > height {
        return Err(format!("content {w}x{h} larger than the window"));
    }
    let columns: Vec<&str> = l["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| text(&c["name"]))
        .collect();
    let want: &[&str] = match width {
        ..=700 => &["detail"],
        701..=1100 => &["workspaces", "detail"],
        _ => &["workspaces", "panes", "detail"],
    };
    if columns != want {
        return Err(format!("columns {columns:?}, want {want:?}"));
    }
    // The lists keep their own widths (never a remembered share of an older window),
    // side by side from the left edge (no move still running); the detail takes the
    // rest, to the right edge.
    let mut left = 0;
    for c in l["columns"].as_array().unwrap() {
        let b: Vec<i64> = c["bounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        let (cx, cw) = (b[0], b[2]);
        let fits = match text(&c["name"]) {
            "workspaces" => (260..=300).contains(&cw),
            "panes" => (280..=320).contains(&cw),
            _ => (cx + cw - w).abs() <= 1,
        };
        if !fits || !(left..=left + 2).contains(&cx) {
            return Err(format!(
                "{} at x {cx}, {cw} wide in a {w} px window",
                c["name"]
            ));
        }
        left = cx + cw;
    }
    for name in ["resume", "kill"] {
        let b = &l["buttons"][name];
        if b["mapped"] != true {
            return Err(format!("{name} is not on screen"));
        }
        let r: Vec<i64> = b["bounds"]
            .as_array()
            .ok_or(format!("{name} has no allocation"))?
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        if r[0] < 0 || r[1] < 0 || r[0] + r[2] > w || r[1] + r[3] > h || r[2] == 0 {
            return Err(format!("{name} at {r:?} outside the {w}x{h} window"));
        }
    }
    Ok(())
}

#[test]
fn after_narrow_and_wide_resizes_resume_and_kill_lie_inside_the_window() {
    let env = Env::with_daemon();
    let p = run_agent(
        &env,
        &["-w", "layout", "-n", "claude-layout", "--agent", "claude"],
        agent(
            "Claude wants to run: ls",
            &["UserPromptSubmit.json", "PermissionRequest.json"],
        ),
    );
    env.run(&["-w", "layout", "-n", "tests", "--", "sleep", "1000"]);
    env.wait_pane(&p, "the gate", |v| v["attention"] == "permission_required");
    let x = Xvfb::sized(WIDE_SCREEN);
    let mut panel = Panel::start(&env, &x, &[]);
    panel.wait("online", |d| check_eq("state", text(&d["state"]), "online"));
    panel.activate(&env, "show-pane", &["s", &p]);
    shown(&mut panel, &p);
    const HEIGHT: u32 = 720;
    let mut shot = std::collections::BTreeSet::new();
    for width in [520u32, 1400, 900, 520, 900, 1400, 520, 1400] {
        panel.resize(width, HEIGHT);
        let d = panel.wait(&format!("the layout at {width} px"), |d| {
            layout_fits(d, i64::from(width), i64::from(HEIGHT))
        });
        assert_eq!(
            d["detail"]["pane"],
            p.as_str(),
            "the selection survives resizes\n--- panel log ---\n{}",
            panel.log_text()
        );
        assert_eq!(
            d["layout"]["back_visible"],
            width < 1100,
            "a back button exactly when a column is hidden"
        );
        if shot.insert(width) {
            panel.window_shot(&shot_path(&format!("panel-{width}.png")), (width, HEIGHT));
        }
    }
    // In one column, Escape goes back to the panes, then to the workspaces (each wait
    // ends when the move is over: one column on screen).
    let only = |d: &Value, column: &str, back: bool| -> Result<(), String> {
        let l = &d["layout"];
        let names: Vec<&str> = l["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| text(&c["name"]))
            .collect();
        if names != [column] || l["back_visible"] != back {
            return Err(format!("columns {names:?}, back {}", l["back_visible"]));
        }
        Ok(())
    };
    panel.resize(520, HEIGHT);
    panel.wait("one column", |d| only(d, "detail", true));
    panel.keys(&["Escape"]);
    panel.wait("the panes column", |d| only(d, "panes", true));
    panel.keys(&["Escape"]);
    let d = panel.wait("the workspaces column", |d| only(d, "workspaces", false));
    assert_eq!(
        d["detail"]["pane"],
        p.as_str(),
        "going back keeps the selection"
    );
}

#[test]
fn attend_focus_scrolls_to_the_pane_and_the_sidebar_sorts_by_attention_or_name() {
    let env = Env::with_daemon();
    for i in 0..12 {
        env.run(&["-w", &format!("w{i:02}"), "--", "sleep", "1000"]);
    }
    let mut last = String::new();
    for j in 0..16 {
        last = env.run(&[
            "-w",
            "w12",
            "-n",
            &format!("s{j:02}"),
            "--",
            "sleep",
            "1000",
        ]);
    }
    let unread = run_agent(
        &env,
        &["-w", "w05", "-n", "claude", "--agent", "claude"],
        agent("claude", &["UserPromptSubmit.json", "Stop.json"]),
    );
    env.wait_pane(&unread, "the completion", |v| v["attention"] == "unread");
    let x = Xvfb::start();
    let mut panel = Panel::start(&env, &x, &[]);
    let workspaces = json(&env, &["workspaces", "--json"]);
    let d = panel.wait("the sidebar", |d| sidebar_matches(d, &workspaces));
    assert_eq!(
        d["workspaces"][0]["name"], "w05",
        "the unread workspace first"
    );
    let w12 = d["workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "w12")
        .unwrap();
    assert_eq!(w12["in_view"], false, "w12 is below the fold");

    // `attend focus` (a notification click): the workspace and the pane selected and
    // scrolled into view in their lists.
    env.ok(&["focus", &last]);
    let d = panel.wait("the pane scrolled to", |d| {
        check_eq("detail", text(&d["detail"]["pane"]), &last)?;
        let row = |list: &str, key: &str, id: &str| -> Result<(), String> {
            let rows = d[list].as_array().unwrap();
            let r = rows
                .iter()
                .find(|r| r[key] == id)
                .ok_or(format!("no {id} in {list}"))?;
            match (&r["selected"], &r["in_view"]) {
                (Value::Bool(true), Value::Bool(true)) => Ok(()),
                (s, v) => Err(format!("{id}: selected {s}, in view {v}")),
            }
        };
        row("workspaces", "name", "w12")?;
        row("panes", "pane", &last)
    });
    assert_eq!(
        d["panes"][0]["in_view"], false,
        "the list scrolled down to it"
    );

    // The sort toggle: by name, then back to attention.
    panel.activate(&env, "sort-by-name", &[]);
    let mut by_name = workspaces.as_array().unwrap().clone();
    by_name.sort_by_key(|w| text(&w["name"]).to_string());
    let d = panel.wait("sorted by name", |d| sidebar_in_order(d, &by_name));
    assert_eq!(d["sort"], "name");
    assert_eq!(d["workspaces"][0]["name"], "w00");
    panel.activate(&env, "sort-by-name", &[]);
    let workspaces = json(&env, &["workspaces", "--json"]);
    let d = panel.wait("sorted by attention", |d| sidebar_matches(d, &workspaces));
    assert_eq!(d["sort"], "attention");
}
