//! `attend attach` through a real PTY pair (the test is the outer terminal): the screen is
//! redrawn, input reaches the program, the pane counts as focused while attached, and the
//! detach key leaves the program running (docs/lifecycle-attention.md#focus).

use crate::support;

use std::io::Write;
use support::attach::{attach, detach};
use support::Env;

#[test]
fn attach_redraws_forwards_input_focuses_and_detaches_leaving_the_program_running() {
    let env = Env::with_daemon();
    let p = env.run(&[
        "--",
        "sh",
        "-c",
        "echo ready-marker; read x; echo \"got-$x\"; sleep 100",
    ]);
    env.wait_pane(&p, "output", |v| v["attention"] == "unread");

    let (mut child, mut master, mut screen) = attach(&env, &p);

    // The redraw shows what the program printed before we attached.
    screen.until("ready-marker");
    // Attached counts as focused (docs/lifecycle-attention.md#focus), which also marks the pane seen.
    let v = env.wait_pane(&p, "focused", |v| v["focused"] == true);
    assert_eq!(v["attention"], "none");

    master.write_all(b"hello\r").unwrap();
    screen.until("got-hello");

    // Ctrl-\ detaches; the program keeps running and the pane is no longer focused.
    let (status, err) = detach(&mut child, &mut master);
    assert_eq!(status.code(), Some(0), "{err}");
    let v = env.wait_pane(&p, "unfocused", |v| v["focused"] == false);
    assert_eq!(v["live"]["state"], "running");
}

#[test]
fn attach_to_an_unknown_or_exited_pane_is_bad_input() {
    let env = Env::with_daemon();
    let out = env.attend(&["attach", "p7"]);
    assert_eq!(out.status.code(), Some(2));
    let p = env.run(&["--", "true"]);
    env.wait_pane(&p, "exit", |v| v["live"]["state"] == "exited");
    let out = env.attend(&["attach", &p]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not running"));
}

#[test]
fn two_daemons_on_two_buses_keep_their_own_attach_sockets() {
    // A desktop-session daemon and a private-bus one (SSH, quickstart) sharing one
    // XDG_RUNTIME_DIR must not take over each other's socket.
    let env = Env::with_daemon();
    let sockets = || -> Vec<std::path::PathBuf> {
        let mut v: Vec<_> = std::fs::read_dir(env.dir.path().join("run").join("attend"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().ends_with(".sock"))
            .collect();
        v.sort();
        v
    };
    assert_eq!(sockets().len(), 1);
    let first = sockets()[0].clone();
    let other_bus = support::Bus::start();
    let mut second = env
        .cmd()
        .env("DBUS_SESSION_BUS_ADDRESS", &other_bus.address)
        .env("ATTEND_STATE_DIR", env.dir.path().join("state2"))
        .args(["daemon", "--no-tray", "--no-notifications"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    env.wait_until("the second daemon binds its own socket", || {
        sockets().len() == 2
    });
    second.kill().unwrap();
    second.wait().unwrap();
    assert!(
        first.exists(),
        "the first daemon's socket survives the second"
    );
}

#[test]
fn an_attached_client_reattaches_by_itself_after_the_daemon_is_killed() {
    let mut env = Env::with_daemon();
    let p = env.run(&[
        "--",
        "sh",
        "-c",
        "echo ready-marker; while read x; do echo \"got-$x\"; done",
    ]);
    env.wait_pane(&p, "output", |v| v["attention"] == "unread");
    let (mut child, mut master, mut screen) = attach(&env, &p);
    screen.until("ready-marker");
    master.write_all(b"one\r").unwrap();
    screen.until("got-one");

    env.kill_daemon();
    env.start_daemon();
    // The same client, without a new `attend attach`: input and output flow again.
    env.wait_pane(&p, "attached again", |v| v["focused"] == true);
    master.write_all(b"two\r").unwrap();
    screen.until("got-two");
    let (status, err) = detach(&mut child, &mut master);
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(err.contains("reattaching"), "{err}");
}
