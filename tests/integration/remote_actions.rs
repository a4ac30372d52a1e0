//! Actions on remote panes (docs/remote.md#how-remote-panes-are-mirrored, "Actions on
//! remote panes"): `seen`, `answer`, `send` and `kill` on `NAME:pN` here are carried out
//! by the host's own daemon over the link, checked with that daemon's own `attend show`;
//! an offline host refuses at once (exit 3, nothing sent), an unknown one is bad input
//! (exit 2). A focus held by a bus client ends when the client leaves the bus, here and
//! over a link when it drops. A remote whose interface version differs is refused. Two
//! daemons linked with `--via` (a plain local command), and once through a real sshd
//! (tests/support/sshd.rs).

use crate::support;

use serde_json::Value;
use support::remote::{
    add, error_of, hook, local_env, remote_env, via_args, wait_listed, wait_state,
};
use support::{Bus, Env};

/// A linked pair: the remote (and its bus socket) and the local daemon, with the remote
/// as `r1`, connected.
fn linked() -> (Env, std::path::PathBuf, Env) {
    let (remote, socket) = remote_env();
    let local = local_env();
    add(&local, "r1", "box", &via_args(&remote, &socket));
    wait_state(&local, "r1", "connected", |r| r["state"] == "connected");
    (remote, socket, local)
}

fn show(env: &Env, pane: &str) -> Value {
    serde_json::from_str(&env.ok(&["show", pane, "--json"])).unwrap()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A remote pane Attend runs that reads one line (cooked mode) and writes it to `out`,
/// then waits.
fn reader_pane(env: &Env, out: &std::path::Path) -> String {
    let script = format!(
        "IFS= read -r k; printf '%s' \"$k\" > '{}'; exec sleep 100",
        out.display()
    );
    env.run(&["--", "sh", "-c", &script])
}

#[test]
fn seen_send_and_kill_on_a_remote_pane_are_carried_out_by_its_host() {
    let (mut remote, socket, local) = linked();

    // Attention raised there by a hook, mirrored here.
    hook(&remote, "s1", "UserPromptSubmit");
    hook(&remote, "s1", "Stop");
    let there = show(&remote, "p1");
    assert_ne!(there["attention"], "none", "{there}");
    wait_listed(&local, "r1:p1", "mirrored", |p| {
        p["attention"] == there["attention"]
    });
    // GetPane answers the mirrored pane too.
    let got = show(&local, "r1:p1");
    assert_eq!(got["host"], "r1", "{got}");

    // seen here clears it there.
    local.ok(&["seen", "r1:p1"]);
    remote.wait_pane("p1", "seen there", |p| p["attention"] == "none");
    wait_listed(&local, "r1:p1", "seen mirrored", |p| {
        p["attention"] == "none"
    });

    // send types into the pane there; kill signals it there.
    let out = remote.work_dir().join("typed.txt");
    let p2 = reader_pane(&remote, &out);
    let id = format!("r1:{p2}");
    wait_listed(&local, &id, "mirrored", |_| true);
    local.ok(&["send", &id, "hello there", "--enter"]);
    remote.wait_until("the text typed there", || {
        std::fs::read_to_string(&out).is_ok_and(|s| s == "hello there")
    });
    local.ok(&["kill", &id, "-s", "KILL"]);
    let v = remote.wait_pane(&p2, "killed there", |p| p["live"]["state"] == "exited");
    assert_eq!(v["live"]["signal"], 9, "{v}");

    // Errors of the remote daemon keep their meaning: an unknown pane there is exit 2.
    let out = local.attend(&["seen", "r1:p99"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr(&out).contains("r1"), "{out:?}");
    // Only this machine's panes resume, hold, explain (a clear message, exit 2).
    let out = local.attend(&["explain", "r1:p1"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr(&out).contains("not for remote panes"), "{out:?}");
    // An unknown host: exit 2, naming it (reading its pane too).
    for verb in ["seen", "show"] {
        let out = local.attend(&[verb, "nohost:p1"]);
        assert_eq!(out.status.code(), Some(2), "{verb}: {out:?}");
        assert!(
            stderr(&out).contains("no remote host named nohost"),
            "{verb}: {out:?}"
        );
    }

    // Attention again there; then the host goes offline: refused at once, exit 3, naming
    // the host, since when and the last error; nothing was sent.
    hook(&remote, "s1", "UserPromptSubmit");
    hook(&remote, "s1", "Stop");
    let raised = remote.wait_pane("p1", "raised again", |p| p["attention"] != "none");
    wait_listed(&local, "r1:p1", "raised mirrored", |p| {
        p["attention"] == raised["attention"]
    });
    remote.bus.kill();
    let r = wait_state(&local, "r1", "offline", |r| r["state"] == "offline");
    let out = local.attend(&["seen", "r1:p1"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let said = stderr(&out);
    assert!(said.contains("r1 is offline since 2"), "{said} / {r}");
    assert!(said.contains(&error_of(&r)), "{said} / {r}");
    assert!(said.contains("was not sent"), "{said}");
    // The remote, started again (once the old daemon is gone), still has its attention:
    // the seen never reached it.
    remote.stop_daemon();
    remote.bus = Bus::at(&socket);
    remote.start_daemon();
    assert_eq!(show(&remote, "p1")["attention"], raised["attention"]);
}

/// A pane of `agent` (40×120 like the recording) on `env` that draws the recorded
/// `fixture` dialog, reads one line, writes it to `out` and waits (as
/// tests/integration/daemon_dialogs.rs).
fn dialog_pane(env: &Env, agent: &str, fixture: &str, out: &std::path::Path) -> String {
    let go = out.with_extension("go");
    let screen = format!(
        "{}/tests/fixtures/screens/{fixture}",
        env!("CARGO_MANIFEST_DIR")
    );
    let script = format!(
        "while [ ! -e '{}' ]; do sleep 0.05; done; cat '{screen}'; IFS= read -r k; printf '%s' \"$k\" > '{}'; exec sleep 100",
        go.display(),
        out.display()
    );
    let p = env.run(&["--agent", agent, "--", "sh", "-c", &script]);
    env.attend1().resize(&p, 40, 120).unwrap();
    std::fs::write(&go, "").unwrap();
    p
}

#[test]
fn answer_on_a_remote_pane_types_the_key_there_and_resolves_its_decision() {
    let (remote, _socket, local) = linked();
    let out = remote.work_dir().join("answer.txt");
    let p = dialog_pane(&remote, "claude", "claude/2.1.332/folder-trust.txt", &out);
    remote.wait_pane(&p, "the dialog's question", |v| {
        v["pending_decision"]["kind"] == "question"
    });
    let id = format!("r1:{p}");
    wait_listed(&local, &id, "the decision mirrored", |v| {
        v["pending_decision"]["kind"] == "question"
    });

    // allow = "Yes, I trust this folder": the remote matches its own dialog, one Down.
    local.ok(&["answer", &id, "allow"]);
    remote.wait_until("the key typed there", || {
        std::fs::read_to_string(&out).is_ok_and(|s| s == "\u{1b}[B")
    });
    remote.wait_pane(&p, "answered there", |v| v["pending_decision"].is_null());
    wait_listed(&local, &id, "answered mirrored", |v| {
        v["pending_decision"].is_null()
    });
    // No decision any more: the remote's NoDecision, exit 2.
    let out = local.attend(&["answer", &id, "allow"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// A second connection to `env`'s bus, a client of its own.
fn client_of(env: &Env) -> zbus::blocking::Connection {
    zbus::blocking::connection::Builder::address(env.bus.address.as_str())
        .unwrap()
        .build()
        .unwrap()
}

fn set_focused(conn: &zbus::blocking::Connection, pane: &str, focused: bool) {
    attend::client::Attend1ProxyBlocking::builder(conn)
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .unwrap()
        .set_focused(pane, focused)
        .unwrap();
}

#[test]
fn a_focus_held_by_a_client_ends_when_it_leaves_and_over_a_link_when_it_drops() {
    let (remote, _socket, mut local) = linked();
    // Here: a client that holds a local pane's focus and goes away.
    let mine = local.run(&["--", "sleep", "100"]);
    let client = client_of(&local);
    set_focused(&client, &mine, true);
    assert_eq!(show(&local, &mine)["focused"], true);
    drop(client);
    local.wait_pane(&mine, "unfocused when its client left", |p| {
        p["focused"] == false
    });

    // Over the link: the focus set here holds there, and ends there when the client
    // here leaves.
    let p = remote.run(&["--", "sleep", "100"]);
    let id = format!("r1:{p}");
    wait_listed(&local, &id, "mirrored", |_| true);
    let client = client_of(&local);
    set_focused(&client, &id, true);
    remote.wait_pane(&p, "focused there", |v| v["focused"] == true);
    drop(client);
    remote.wait_pane(&p, "unfocused there when the client left", |v| {
        v["focused"] == false
    });

    // Held again, and the link drops (the local daemon stops: its carrier ends): the
    // remote ends the focus the link held.
    let client = client_of(&local);
    set_focused(&client, &id, true);
    remote.wait_pane(&p, "focused there again", |v| v["focused"] == true);
    local.stop_daemon();
    remote.wait_pane(&p, "unfocused there when the link dropped", |v| {
        v["focused"] == false
    });
    drop(client);
}

/// A stand-in for another Attend's daemon: `Version` and, when `interface` is set,
/// `InterfaceVersion` answering it.
struct StandIn {
    interface: Option<u32>,
}

#[zbus::interface(name = "io.github.attend.Attend1")]
impl StandIn {
    fn version(&self) -> String {
        "9.0.0".into()
    }

    fn interface_version(&self) -> zbus::fdo::Result<u32> {
        self.interface.ok_or_else(|| {
            zbus::fdo::Error::UnknownMethod("no InterfaceVersion in this attend".into())
        })
    }
}

/// A bus with a stand-in daemon on it; the `--via` and `--command` that reach it.
fn stand_in(
    interface: Option<u32>,
    dir: &std::path::Path,
) -> (Bus, zbus::blocking::Connection, Vec<String>) {
    let socket = dir.join("bus.sock");
    let bus = Bus::at(&socket);
    let conn = zbus::blocking::connection::Builder::address(bus.address.as_str())
        .unwrap()
        .name(attend::config::BUS_NAME)
        .unwrap()
        .serve_at(attend::config::OBJECT_PATH, StandIn { interface })
        .unwrap()
        .build()
        .unwrap();
    let via = shlex::try_join([
        "env",
        &format!("DBUS_SESSION_BUS_ADDRESS=unix:path={}", socket.display()),
        &format!("XDG_RUNTIME_DIR={}", dir.display()),
    ])
    .unwrap();
    let command = support::remote::bridge_command();
    (
        bus,
        conn,
        vec!["--via".into(), via, "--command".into(), command],
    )
}

#[test]
fn a_remote_of_another_interface_version_is_refused_with_a_clear_state() {
    let local = local_env();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (_bus2, _two, via2) = stand_in(Some(2), a.path());
    let (_bus0, _none, via0) = stand_in(None, b.path());
    add(&local, "two", "x", &via2);
    add(&local, "old", "x", &via0);
    let offline = |r: &Value| r["state"] == "offline" && !error_of(r).is_empty();
    let r = wait_state(&local, "two", "refused", offline);
    let e = error_of(&r);
    assert!(
        e.contains("incompatible: remote interface version 2") && e.contains("speaks 1"),
        "{r}"
    );
    let r = wait_state(&local, "old", "refused", offline);
    let e = error_of(&r);
    assert!(
        e.contains("incompatible") && e.contains("no interface version"),
        "{r}"
    );
    // Its panes are never mirrored; acting on one is refused as offline.
    let out = local.attend(&["seen", "two:p1"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(stderr(&out).contains("incompatible"), "{out:?}");
}

/// Through a real sshd to a daemon of another user (tests/support/sshd.rs): `seen` here
/// clears the attention there.
#[test]
fn seen_over_a_real_ssh_link_clears_the_attention_there() {
    use support::remote::local_env_over_ssh;
    use support::sshd::{RemoteUser, Sshd, HOST_ALIAS};
    let Some(user) = support::sshd::require() else {
        return;
    };
    let sshd = Sshd::start(&user);
    let remote = RemoteUser::start(&user);
    let local = local_env_over_ssh(&sshd);
    let command = remote.bridge_command();
    add(
        &local,
        "buildbox",
        HOST_ALIAS,
        &["--command".into(), command],
    );
    wait_state(&local, "buildbox", "connected", |r| {
        r["state"] == "connected"
    });

    let run = |args: &[&str], stdin: &str| {
        let out = remote.run("attend", args, stdin);
        assert!(out.status.success(), "attend {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    for event in ["UserPromptSubmit", "Stop"] {
        let payload = serde_json::json!({"session_id": "s1", "cwd": "/tmp/mirror",
            "hook_event_name": event, "prompt": "go", "stop_hook_active": false,
            "last_assistant_message": "done"});
        run(&["hook", "claude"], &payload.to_string());
    }
    let there: Value = serde_json::from_str(&run(&["show", "p1", "--json"], "")).unwrap();
    assert_ne!(there["attention"], "none", "{there}");
    wait_listed(&local, "buildbox:p1", "mirrored", |p| {
        p["attention"] == there["attention"]
    });

    local.ok(&["seen", "buildbox:p1"]);
    local.wait_until("seen there", || {
        let v: Value = serde_json::from_str(&run(&["show", "p1", "--json"], "")).unwrap();
        v["attention"] == "none"
    });
}

/// `attend attach NAME:pN` runs the link's carrier with `attend attach pN` on the remote,
/// on this terminal: the remote pane's screen, input typed there, the detach key.
#[test]
fn attach_to_a_remote_pane_runs_the_remote_attend_attach_on_this_terminal() {
    use std::io::Write;
    use support::attach::{attach, detach};
    let (remote, _socket, local) = linked();
    let p = remote.run(&[
        "--",
        "sh",
        "-c",
        "echo ready-marker; read x; echo \"got-$x\"; sleep 100",
    ]);
    remote.wait_pane(&p, "output", |v| v["attention"] == "unread");

    let (mut child, mut master, mut screen) = attach(&local, &format!("r1:{p}"));
    screen.until("ready-marker");
    remote.wait_pane(&p, "focused there", |v| v["focused"] == true);
    master.write_all(b"hello\r").unwrap();
    screen.until("got-hello");
    let (status, err) = detach(&mut child, &mut master);
    assert_eq!(status.code(), Some(0), "{err}");
    remote.wait_pane(&p, "unfocused there", |v| v["focused"] == false);

    // Without a terminal: exit 2, as for a local pane; nothing is run.
    let out = local.attend(&["attach", &format!("r1:{p}")]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr(&out).contains("not a terminal"), "{out:?}");
    // An unknown host: exit 2, naming it; nothing is run.
    let out = local.attend(&["attach", "nohost:p1"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        stderr(&out).contains("no remote host named nohost"),
        "{out:?}"
    );
}
