//! The GTK panel end to end (docs/desktop-surfaces.md#panel): the real `attend daemon` on
//! a private bus, real panes driven through `attend hook claude` with recorded Claude Code
//! 2.1.197 payloads, and the real `attend-panel` on an Xvfb display. The panel's
//! `ATTEND_PANEL_DUMP` hook reports what its widgets display; the tests compare that with
//! `attend workspaces --json` / `attend ls --json`, act through the window's exported
//! actions (`org.gtk.Actions`, the same actions its buttons use), and take a
//! screenshot (`target/screenshots/panel.png`; `ATTEND_UPDATE_SCREENSHOTS=1` renews
//! `docs/screenshots/panel.png`). Keys, sizes and scrolling: `tests/integration/panel_keys.rs`. Remote
//! panes: a second daemon linked with `--via` a local command (tests/support/remotes.rs),
//! its workspaces under its host's header (`docs/screenshots/panel-hosts.png`).

use crate::panel;
use crate::support;

use panel::*;
use serde_json::Value;
use std::process::Command;
use support::Env;

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
    // Worst attention first: the failure, the gate, the unread completion.
    let names: Vec<&str> = dump["workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| text(&w["name"]))
        .collect();
    assert_eq!(names, ["infra", "api", "web"]);
    assert_eq!(dump["sort"], "attention");
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
        dump["workspaces"][1]["repo_branch"],
        "attend-demo · feature/panel"
    );
    let ls = json(&env, &["ls", "--json"]);
    panes_match(&dump, &ls, text(&dump["workspaces"][0]["key"])).unwrap();
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
    screenshot(&x, &shot_path("panel.png"));

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
    assert!(text(&dump["offline"]["description"]).contains("attend up"));
    assert_eq!(dump["next_unread"]["sensitive"], false);

    // "Start Attend" starts the service as `attend up` does: D-Bus activation is not set
    // up on this bus, so `attend daemon` in a session of its own, its log in the state
    // directory; never the panel's child.
    panel.activate(&env, "start-daemon", &[]);
    let dump = panel.wait("the started daemon", |d| {
        sidebar_matches(d, &serde_json::json!([]))
    });
    let bus = zbus::blocking::fdo::DBusProxy::new(env.connection()).unwrap();
    let pid = bus
        .get_connection_unix_process_id(attend::config::BUS_NAME.try_into().unwrap())
        .expect("the daemon's pid");
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let (ppid, sid): (u32, u32) = (fields[1].parse().unwrap(), fields[3].parse().unwrap());
    assert_ne!(ppid, panel.pid(), "the daemon is not the panel's child");
    assert_eq!(sid, pid, "the daemon leads a session of its own");
    let log = env.state_dir().join("daemon.log");
    env.wait_until("the daemon's log in the state directory", || {
        std::fs::metadata(&log).is_ok_and(|m| m.len() > 0)
    });

    // No panes: the empty state says what to do.
    assert_eq!(dump["empty"]["visible"], true, "{dump:#}");
    assert_eq!(dump["empty"]["title"], "No panes yet");
    let what = text(&dump["empty"]["description"]);
    assert!(
        what.contains("attend run -- claude") && what.contains("attend install-hooks claude"),
        "{what}"
    );
    let p = run_agent(
        &env,
        &["-w", "solo", "--agent", "claude"],
        agent("claude", &["Stop.json"]),
    );
    env.wait_pane(&p, "the completion", |v| v["lifecycle"] == "done");
    let workspaces = json(&env, &["workspaces", "--json"]);
    let dump = panel.wait("the daemon's state", |d| sidebar_matches(d, &workspaces));
    assert_eq!(dump["empty"]["visible"], false, "a pane: no empty state");
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
        dump["empty"]["visible"], true,
        "the last pane gone: the empty state"
    );
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
    let po = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("po/de.po");
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

/// The sidebar rows of the dump as (host, name, header, greyed).
fn sidebar_rows(d: &Value) -> Vec<(String, String, String, bool)> {
    d["workspaces"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|w| {
                    (
                        text(&w["host"]).to_string(),
                        text(&w["name"]).to_string(),
                        text(&w["header"]).to_string(),
                        w["greyed"] == true,
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The pane row `id` of the dump agrees with `attend ls --json`'s entry `p`, in the
/// words of a local row.
fn pane_row_matches(d: &Value, p: &Value) -> Result<(), String> {
    let id = text(&p["id"]);
    let rows = d["panes"].as_array().cloned().unwrap_or_default();
    let Some(row) = rows.iter().find(|r| r["pane"] == id) else {
        return Err(format!("no row of {id}"));
    };
    check_eq(
        "lifecycle",
        text(&row["lifecycle"]),
        &label(text(&p["lifecycle"])),
    )?;
    check_eq(
        "attention",
        text(&row["attention"]),
        &label(text(&p["attention"])),
    )?;
    let offline = p["offline"] == true;
    if (row["greyed"] == true) != offline {
        return Err(format!(
            "{id}: greyed {} but offline {offline}",
            row["greyed"]
        ));
    }
    let facts = text(&row["facts"]);
    if !facts.contains(text(&p["host"])) || facts.ends_with("offline") != offline {
        return Err(format!("{id}: facts {facts:?}"));
    }
    Ok(())
}

#[test]
fn remote_panes_are_grouped_per_host_kept_current_and_greyed_while_offline() {
    use support::remote::{add, hook_in as hook, local_env, remote_env, via_args};
    let (mut remote, socket) = remote_env();
    for ws in ["api", "web"] {
        std::fs::create_dir_all(remote.path(ws)).unwrap();
    }
    let api = remote.path("api").display().to_string();
    let web = remote.path("web").display().to_string();
    hook(&remote, "s1", &api, "UserPromptSubmit");
    hook(&remote, "s2", &web, "Stop");
    let local = local_env();
    let here = local.run(&["-w", "here", "--", "true"]);
    local.wait_pane(&here, "exited", |v| v["live"]["state"] == "exited");
    add(&local, "r1", "box", &via_args(&remote, &socket));
    let listed = |id: &str, cond: &dyn Fn(&Value) -> bool| {
        let mut last = Value::Null;
        local.wait_until(&format!("{id} listed"), || {
            let all = json(&local, &["ls", "--json"]);
            last = all
                .as_array()
                .and_then(|a| a.iter().find(|p| p["id"] == id).cloned())
                .unwrap_or(Value::Null);
            !last.is_null() && cond(&last)
        });
        last
    };
    let p1 = listed("r1:p1", &|p| p["offline"] == false);
    listed("r1:p2", &|p| p["offline"] == false);

    let x = Xvfb::start();
    let mut panel = Panel::start(&local, &x, &[]);
    // This machine first, then the remote by name, each under its host's header.
    let dump = panel.wait("the sidebar grouped per host", |d| {
        let rows = sidebar_rows(d);
        // Within a host, the usual order: the unread finished session before the working.
        let want = [
            ("", "here", "This computer"),
            ("r1", "web", "r1 · connected"),
            ("r1", "api", ""),
        ];
        let shown: Vec<(&str, &str, &str)> = rows
            .iter()
            .map(|(h, n, hd, _)| (h.as_str(), n.as_str(), hd.as_str()))
            .collect();
        if shown == want {
            Ok(())
        } else {
            Err(format!("sidebar {shown:?}"))
        }
    });
    assert!(
        sidebar_rows(&dump).iter().all(|r| !r.3),
        "nothing greyed while connected"
    );
    // A remote pane's row and detail: the words of a local one.
    panel.activate(&local, "show-pane", &["s", "r1:p1"]);
    let dump = panel.wait("the remote pane shown", |d| {
        check_eq("detail", text(&d["detail"]["pane"]), "r1:p1")?;
        pane_row_matches(d, &p1)
    });
    let attach = dump["detail"]["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["label"] == "Attach in Terminal")
        .cloned()
        .unwrap();
    assert_eq!(attach["sensitive"], false, "no terminal over the link");
    // The panel reports the pane focused after the dwell; a daemon that does not route
    // focus to a remote yet answers with an error toast: let it go by before the picture.
    panel.wait("the remote pane focused", |d| {
        check_eq("focus", text(&d["focus_reported"]), "r1:p1")
    });
    let toasted = support::poll(std::time::Duration::from_secs(3), || {
        panel
            .read()
            .is_some_and(|d| d["toasts"].as_array().is_some_and(|t| !t.is_empty()))
    });
    if toasted {
        std::thread::sleep(std::time::Duration::from_secs(7));
    }
    screenshot(&x, &shot_path("panel-hosts.png"));

    // A change there reaches the panel with nothing happening here (`RemotesChanged`;
    // the remote's events stamped into this log are not this machine's).
    let local_events = || {
        local
            .events()
            .into_iter()
            .filter(|e| e["pane"].as_str().map_or(true, |p| !p.contains(':')))
            .count()
    };
    let seq = local_events();
    hook(&remote, "s1", &api, "Stop");
    let p1 = listed("r1:p1", &|p| p["lifecycle"] != p1["lifecycle"]);
    panel.wait("the remote change", |d| pane_row_matches(d, &p1));
    assert_eq!(local_events(), seq, "no local event carried it");

    // The link lost: the remote's rows greyed, its header offline since when, and why.
    remote.bus.kill();
    let p1 = listed("r1:p1", &|p| p["offline"] == true);
    let dump = panel.wait("the remote greyed", |d| {
        pane_row_matches(d, &p1)?;
        let rows = sidebar_rows(d);
        match rows.as_slice() {
            [(_, _, local, false), (_, _, r1, true), (_, _, _, true)]
                if local == "This computer" && r1.starts_with("r1 · offline since ") =>
            {
                Ok(())
            }
            _ => Err(format!("sidebar {rows:?}")),
        }
    });
    let header = sidebar_rows(&dump)[1].2.clone();
    assert!(
        header.contains('\n'),
        "the last error under the header: {header:?}"
    );
    assert!(
        text(&dump["workspaces"][1]["agents"]).ends_with("offline"),
        "{}",
        dump["workspaces"][1]
    );
}
