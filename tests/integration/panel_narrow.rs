//! The panel's Needs you view, its reply field and the New agent dialog in a narrow
//! window, one column at a time (docs/desktop-surfaces.md#layout, #needs-you, #new-agent):
//! the real `attend daemon` on a private bus, the real `attend-panel` on Xvfb resized to
//! 520 px (as `docs/screenshots/panel-520.png`), keys through `xdotool` (XTEST), widget
//! state and allocations read back from `ATTEND_PANEL_DUMP`. Every control of the view
//! and the dialog lies inside the window and has a name for screen readers; the keys
//! that reach them are listed in the shortcuts window (Ctrl+?); Open shows the pane in
//! the one column; the reply typed into the field reaches the agent; the dialog starts a
//! shell, shown in the one column.

use crate::panel::{self, agent, check_eq, run_agent, shot_path, text, Panel, Xvfb};
use crate::panel_needs::free_text_pane;
use crate::support::Env;
use serde_json::Value;

/// A window narrow enough for one column (`docs/desktop-surfaces.md#layout`).
const NARROW: u32 = 520;
const HEIGHT: u32 = 720;

/// The names of the columns on screen.
fn columns(d: &Value) -> Vec<String> {
    d["layout"]["columns"]
        .as_array()
        .map(|c| c.iter().map(|c| text(&c["name"]).to_string()).collect())
        .unwrap_or_default()
}

/// `bounds` (`[x, y, width, height]`) lie across `width` px, left edge to right edge.
fn across(what: &str, bounds: &Value, width: i64) -> Result<(), String> {
    let b: Vec<i64> = bounds
        .as_array()
        .ok_or(format!("{what} has no allocation"))?
        .iter()
        .filter_map(Value::as_i64)
        .collect();
    match b[..] {
        [x, _, w, h] if x >= 0 && w > 0 && h > 0 && x + w <= width => Ok(()),
        _ => Err(format!("{what} at {b:?}, outside {width} px")),
    }
}

/// The Needs you view is shown with rows for `panes` in this order, each row and each of
/// its controls on screen inside the window's width and named for screen readers, the
/// reply field exactly on `reply`'s row.
fn needs_fit(d: &Value, panes: &[&str], reply: &str) -> Result<(), String> {
    let v = &d["needs_you"];
    if v["visible"] != true {
        return Err(format!("Needs you is not shown: {v}"));
    }
    let width = d["layout"]["width"].as_i64().ok_or("no window width")?;
    check_eq("window", &d["layout"]["surface"].to_string(), "[520,720]")?;
    let rows = v["rows"].as_array().ok_or("no rows")?;
    let shown: Vec<&str> = rows.iter().map(|r| text(&r["pane"])).collect();
    if shown != panes {
        return Err(format!("rows {shown:?}, want {panes:?}"));
    }
    for r in rows {
        let pane = text(&r["pane"]);
        across(&format!("{pane}'s row"), &r["bounds"], width)?;
        if text(&r["accessible_label"]).is_empty() {
            return Err(format!("{pane}'s row has no accessible label"));
        }
        let controls = r["controls"].as_array().ok_or("no controls")?;
        let kinds: Vec<&str> = controls.iter().map(|c| text(&c["kind"])).collect();
        let want_reply = pane == reply;
        if kinds.contains(&"reply") != want_reply || !kinds.contains(&"open") {
            return Err(format!("{pane}'s controls {kinds:?}"));
        }
        for c in controls {
            let what = format!("{pane}'s {} {:?}", text(&c["kind"]), c["text"]);
            if c["mapped"] != true {
                return Err(format!("{what} is not on screen"));
            }
            across(&what, &c["bounds"], width)?;
            if text(&c["accessible_label"]).is_empty() {
                return Err(format!("{what} has no accessible label"));
            }
        }
    }
    if text(&v["accessible_label"]).is_empty() || v["button"]["named"] != true {
        return Err(format!("the list or its header button is unnamed: {v}"));
    }
    across(
        "the header's Needs you button",
        &v["button"]["bounds"],
        width,
    )
}

/// The New agent dialog is open, no wider than the narrow window, every control on
/// screen inside it and named for screen readers.
fn dialog_fits(d: &Value) -> Result<(), String> {
    let dialog = &d["new_agent"];
    if dialog["visible"] != true {
        return Err(format!("no dialog: {dialog}"));
    }
    let width = dialog["size"][0].as_i64().ok_or("no dialog size")?;
    if width > i64::from(NARROW) {
        return Err(format!("the dialog is {width} px wide"));
    }
    for c in dialog["controls"].as_array().ok_or("no controls")? {
        let name = text(&c["name"]);
        if name == "branch" {
            // Off until the worktree box is ticked, but laid out and named.
            across(name, &c["bounds"], width)?;
        } else if c["mapped"] != true {
            return Err(format!("{name} is not on screen"));
        } else {
            across(name, &c["bounds"], width)?;
        }
        if c["named"] != true {
            return Err(format!("{name} has no name for screen readers"));
        }
    }
    Ok(())
}

/// The shortcuts window's accelerator of the shortcut titled `title`.
fn accel<'d>(dump: &'d Value, title: &str) -> &'d str {
    dump["shortcuts"]["shortcuts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["title"] == title)
        .map(|s| text(&s["accelerator"]))
        .unwrap_or_else(|| panic!("no shortcut {title:?}: {:#}", dump["shortcuts"]))
}

#[test]
fn needs_you_its_reply_field_and_new_agent_work_in_one_column() {
    let env = Env::with_daemon();
    let out = env.path("reply.txt");
    let question = free_text_pane(&env, &out);
    let gate = run_agent(
        &env,
        &["-w", "narrow", "-n", "gate", "--agent", "claude"],
        agent(
            "Claude wants to run: ls",
            &["UserPromptSubmit.json", "PermissionRequest.json"],
        ),
    );
    env.wait_pane(&gate, "the gate", |v| {
        v["attention"] == "permission_required"
    });
    env.wait_pane(&question, "the question", |v| {
        v["pending_decision"]["kind"] == "question"
    });
    let order = [gate.as_str(), question.as_str()];

    let x = Xvfb::start();
    // No agent CLI on the panel's PATH: the dialog offers the shell alone.
    let mut panel = Panel::start(&env, &x, &[("PATH", "/usr/bin:/bin")]);
    panel.wait("online", |d| check_eq("state", text(&d["state"]), "online"));
    panel.resize(NARROW, HEIGHT);
    panel.wait("one column", |d| {
        check_eq("window", &d["layout"]["surface"].to_string(), "[520,720]")?;
        (columns(d).len() == 1)
            .then_some(())
            .ok_or(format!("columns {:?}", columns(d)))
    });

    // Ctrl+Shift+A: the view in the one column, the keyboard on its first row.
    panel.keys(&["ctrl+shift+a"]);
    let d = panel.wait("Needs you fits the narrow window", |d| {
        needs_fit(d, &order, &question)
    });
    assert_eq!(d["needs_you"]["rows"][0]["focused"], true, "{d:#}");
    panel.window_shot(&shot_path("panel-520-needs-you.png"), (NARROW, HEIGHT));

    // `o` opens the gate's pane: the view closes and the one column is its detail.
    panel.keys_to_focus(&["o"]);
    panel.wait("the gate's pane in the one column", |d| {
        check_eq("detail", text(&d["detail"]["pane"]), &gate)?;
        (columns(d) == ["detail"])
            .then_some(())
            .ok_or(format!("columns {:?}", columns(d)))
    });

    // Back to the view; `r` on the question's row, a sentence and Enter reach the agent.
    panel.keys(&["ctrl+shift+a"]);
    panel.wait("Needs you again", |d| needs_fit(d, &order, &question));
    panel.keys_to_focus(&["Down", "r"]);
    panel.wait("the reply field focused", |d| {
        match d["needs_you"]["rows"][1]["reply_focused"] {
            Value::Bool(true) => Ok(()),
            _ => Err(format!("{}", d["needs_you"])),
        }
    });
    panel.type_text("narrow but fine");
    panel.keys_to_focus(&["Return"]);
    env.wait_until("the reply typed into the pane", || {
        std::fs::read_to_string(&out).is_ok_and(|s| s == "narrow but fine")
    });

    // Ctrl+? lists the view's keys and the dialog's.
    panel.keys(&["ctrl+question"]);
    let dump = panel.wait("the shortcuts window", |d| {
        match d["shortcuts"]["visible"] {
            Value::Bool(true) => Ok(()),
            _ => Err("not shown".into()),
        }
    });
    for (title, key) in [
        (
            "Show or leave every open decision in one list",
            "<Shift><Control>a",
        ),
        ("Allow the decision of the row", "a"),
        ("Deny the decision of the row", "d"),
        ("Pick the option of that number", "1 2 3"),
        ("Open the row’s pane", "o Return"),
        ("Go to the row’s reply field (Enter sends)", "r"),
        (
            "Start a new agent (in a git worktree if you like)",
            "<Shift><Control>n",
        ),
    ] {
        assert_eq!(accel(&dump, title), key, "{title}");
    }
    panel.keys_to_focus(&["Escape"]);
    panel.wait("the shortcuts window closed", |d| {
        match d["shortcuts"]["visible"] {
            Value::Bool(false) => Ok(()),
            _ => Err("still shown".into()),
        }
    });

    // Ctrl+Shift+N in the narrow window: the dialog fits; the folder and Enter start a
    // shell, which the one column then shows.
    panel.keys(&["ctrl+shift+n"]);
    let d = panel.wait("the New agent dialog fits", dialog_fits);
    assert_eq!(d["new_agent"]["agent"], "Shell", "{:#}", d["new_agent"]);
    let folder = env.work_dir();
    panel.keys_to_focus(&["ctrl+a"]);
    panel.type_text(folder.to_str().unwrap());
    panel.keys_to_focus(&["Return"]);
    let mut pane = String::new();
    env.wait_until("the new pane", || {
        let v: Value = serde_json::from_str(&env.ok(&["ls", "--json"])).unwrap();
        match v.as_array().unwrap().iter().find(|p| p["agent"] == "shell") {
            Some(p) => {
                pane = text(&p["id"]).to_string();
                true
            }
            None => false,
        }
    });
    let d = panel.wait("the new pane in the one column", |d| {
        check_eq("detail", text(&d["detail"]["pane"]), &pane)?;
        (columns(d) == ["detail"])
            .then_some(())
            .ok_or(format!("columns {:?}", columns(d)))
    });
    assert_eq!(d["new_agent"], Value::Null, "the dialog closed");
    assert_eq!(
        panel::pane(&env, &pane)["cwd"],
        folder.to_str().unwrap(),
        "started in the folder typed"
    );
}
