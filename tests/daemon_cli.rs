//! The daemon and the CLI on a private bus: start-up rules, bad input and exit codes,
//! and the checked-in introspection (issue 3 "D-Bus interface", "Bad input", "CLI").

mod support;

use support::Env;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_second_daemon_on_the_same_bus_refuses_to_start() {
    let env = Env::with_daemon();
    let out = env.attend(&["daemon", "--no-tray", "--no-notifications"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("another attend daemon is already running on this bus"),
        "{}",
        stderr(&out)
    );
    // The first one still answers.
    env.ok(&["version"]);
}

#[test]
fn unknown_panes_are_bad_input_with_exit_2() {
    let env = Env::with_daemon();
    for args in [
        vec!["show", "p9"],
        vec!["seen", "p9"],
        vec!["kill", "p9"],
        vec!["send", "p9", "x"],
        vec!["answer", "p9", "yes"],
        vec!["show", "nonsense"],
    ] {
        let out = env.attend(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "attend {args:?}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).starts_with("attend: no such pane: "),
            "attend {args:?}: {}",
            stderr(&out)
        );
    }
    let out = env.attend(&["show", "p9"]);
    assert_eq!(stderr(&out), "attend: no such pane: p9\n");
}

#[test]
fn a_program_that_cannot_be_spawned_names_program_and_errno_and_leaves_no_pane() {
    let env = Env::with_daemon();
    let out = env.attend(&["run", "--", "/nonexistent/attend-test-program", "x"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("/nonexistent/attend-test-program"), "{err}");
    assert!(err.contains("No such file or directory"), "{err}");
    assert!(out.stdout.is_empty());
    assert_eq!(env.ok(&["ls", "--json"]).trim(), "[]");
    assert!(
        env.events().is_empty(),
        "no event for a pane that never existed"
    );
    // The next pane still gets p1: nothing was half-created.
    assert_eq!(env.run(&["--", "sleep", "100"]), "p1");
}

#[test]
fn next_exits_1_when_nothing_is_unread() {
    let env = Env::with_daemon();
    let out = env.attend(&["next"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let p = env.run(&["--", "sh", "-c", "printf '\\a'; sleep 100"]);
    env.wait_pane(&p, "unread", |v| v["attention"] == "unread");
    assert_eq!(env.ok(&["next"]).trim(), p);
    let json: serde_json::Value = serde_json::from_str(&env.ok(&["next", "--json"])).unwrap();
    assert_eq!(json["id"], p.as_str());
}

#[test]
fn without_a_daemon_the_cli_exits_3_naming_the_bus_variable() {
    let env = Env::new();
    let out = env.attend(&["ls"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("DBUS_SESSION_BUS_ADDRESS"),
        "{}",
        stderr(&out)
    );
    // The hook client never fails the agent.
    let out = env.attend_with(&["hook", "claude"], b"{}", &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr(&out).starts_with("attend: hook not delivered"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn completions_and_man_page_come_from_clap() {
    let env = Env::new();
    let bash = env.ok(&["completions", "bash"]);
    assert!(bash.contains("attend") && bash.contains("workspaces"));
    let man = env.ok(&["man"]);
    assert!(man.contains(".TH attend"), "{man}");
}

/// The `<interface name="io.github.attend.Attend1">` element, one trimmed line each.
fn attend1_interface(xml: &str) -> Vec<String> {
    let start = xml
        .find("<interface name=\"io.github.attend.Attend1\">")
        .expect("the Attend1 interface is present");
    let end = start + xml[start..].find("</interface>").unwrap();
    xml[start..end]
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn the_live_introspection_matches_the_checked_in_xml() {
    let env = Env::with_daemon();
    let reply = env
        .busctl_on("org.freedesktop.DBus.Introspectable", "Introspect", "", &[])
        .unwrap();
    let live = reply["data"][0].as_str().unwrap().to_string();
    let file = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/io.github.attend.Attend1.xml"
    ))
    .unwrap();
    assert_eq!(
        attend1_interface(&live),
        attend1_interface(&file),
        "data/io.github.attend.Attend1.xml differs from the live interface; live:\n{live}"
    );
}

#[test]
fn events_follow_catches_up_then_streams_new_events() {
    use std::io::{BufRead, BufReader};
    let env = Env::with_daemon();
    let first = env.run(&["--", "sleep", "100"]);
    let mut child = env
        .cmd()
        .args(["events", "--follow", "--json"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let next = || -> serde_json::Value {
        let line = rx
            .recv_timeout(support::TIMEOUT)
            .expect("events --follow printed nothing in time");
        serde_json::from_str(&line).unwrap()
    };
    let e = next();
    assert_eq!(
        (e["seq"].as_u64(), e["kind"].as_str()),
        (Some(1), Some("pane.added"))
    );
    assert_eq!(e["pane"], first.as_str());
    let second = env.run(&["--", "sleep", "100"]);
    let e = next();
    assert_eq!(
        (e["seq"].as_u64(), e["kind"].as_str()),
        (Some(2), Some("pane.added"))
    );
    assert_eq!(e["pane"], second.as_str());
    assert_eq!(e["source"], "process:process.spawn");
    let _ = child.kill();
    let _ = child.wait();
}
