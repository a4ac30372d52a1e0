//! A linked host's tmux (docs/tmux.md#remote-hosts): the host's own daemon follows the
//! agent in its tmux pane, and this machine mirrors that pane like the host's others —
//! listed as `NAME:pN`, `blocked` on its dialog — and an answer given here is typed into
//! the host's tmux pane. Twice: linked `--via` a plain local command to the host's bus
//! (tests/support/remote.rs), and through a real sshd on 127.0.0.1 to the daemon of
//! another user, whose tmux server that user started in an ssh login
//! (tests/support/sshd.rs).

use crate::support;
use crate::tmux_support::{
    blocked_in, fake_claude, fake_claude_in, need_tmux, server_with_a_shell, tmux_pid, Server,
    WORK_SESSION,
};

use serde_json::Value;
use std::process::Stdio;
use support::remote::{add, local_env, local_env_over_ssh, remote_env, via_args, wait_listed};
use support::remote::{wait_state, LINK_TIMEOUT};
use support::sshd::{processes_of, require, RemoteUser, Sshd, HOST_ALIAS};

#[test]
fn a_remote_hosts_tmux_pane_is_mirrored_here_and_answered_from_here() {
    need_tmux();
    let (remote, socket) = remote_env();
    let (_server, shell) = server_with_a_shell(&remote);
    let out = remote.work_dir().join("typed.txt");
    let id = blocked_in(&remote, &shell, &fake_claude(&remote, &out));

    let local = local_env();
    add(&local, "r1", "box", &via_args(&remote, &socket));
    let mirrored = format!("r1:{id}");
    let v = wait_listed(
        &local,
        &mirrored,
        "the host's tmux pane mirrored, blocked",
        |v| v["lifecycle"] == "blocked" && v["attention"] == "input_required",
    );
    assert_eq!(v["agent"], "claude", "{v:#}");

    local.ok(&["answer", &mirrored, "allow"]);
    remote.wait_until("the keys typed through the host's tmux", || {
        std::fs::read_to_string(&out).is_ok_and(|s| s == "\u{1b}[B")
    });
    wait_listed(&local, &mirrored, "exited there, mirrored here", |v| {
        v["live"]["state"] == "exited"
    });
}

/// `tmux -f /dev/null ARGS` run by the remote user in an ssh login of their own: the
/// login's environment (no bus, no `TERM`, no locale) and only their `TMUX_TMPDIR`, as
/// a user who exports it in their profile. Its stdout; panics when it fails.
fn tmux_over_ssh(sshd: &Sshd, remote: &RemoteUser, args: &[&str]) -> String {
    let mut argv = vec![
        "env".to_string(),
        format!("TMUX_TMPDIR={}", remote.tmux_dir().display()),
        "tmux".into(),
        "-f".into(),
        "/dev/null".into(),
    ];
    argv.extend(args.iter().map(|a| a.to_string()));
    let out = sshd.ssh(&argv).stdin(Stdio::null()).output().unwrap();
    assert!(
        out.status.success(),
        "ssh … tmux {args:?}: {}\n--- sshd log ---\n{}",
        String::from_utf8_lossy(&out.stderr),
        sshd.log()
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `tmux ARGS` run as the remote user on this machine (checks, without ssh); its stdout.
fn tmux_as(remote: &RemoteUser, args: &[&str]) -> String {
    let mut all = vec!["-f", "/dev/null"];
    all.extend_from_slice(args);
    String::from_utf8_lossy(&remote.run("tmux", &all, "").stdout).into_owned()
}

/// The remote daemon's `attend ls --json` (run as its user, on its bus).
fn panes_there(remote: &RemoteUser) -> Vec<Value> {
    let out = remote.run("attend", &["ls", "--json"], "");
    assert!(out.status.success(), "attend ls there: {out:?}");
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Through a real sshd on 127.0.0.1 to the daemon of another user (tests/support/sshd.rs):
/// that user starts tmux in an ssh login and runs a Claude (the fake, at its folder-trust
/// dialog) in it; their daemon follows the pane; this machine, linked with the default
/// ssh carrier, mirrors it `blocked / input_required`; `attend answer NAME:pN allow` here
/// is typed into their tmux pane; the agent's exit there is mirrored here. Afterwards
/// (the guards dropped) no process of that user's test directory is left: no tmux
/// server, pane, bus or daemon.
#[test]
fn over_ssh_a_linked_users_tmux_pane_is_mirrored_answered_and_its_exit_seen() {
    let Some(user) = require() else { return };
    need_tmux();
    let sshd = Sshd::start(&user);
    let remote = RemoteUser::start(&user);
    let home = remote.home();

    let shell = tmux_over_ssh(&sshd, &remote, &WORK_SESSION)
        .trim()
        .to_string();
    let mut kill = remote.command("tmux");
    kill.args(["-f", "/dev/null", "kill-server"]);
    let server = Server::with(kill, tmux_pid(&mut remote.command("tmux")));
    // The login's environment: their bus is nowhere in it.
    let global = tmux_as(&remote, &["show-environment", "-g"]);
    assert!(
        !global.lines().any(
            |l| l.starts_with("DBUS_SESSION_BUS_ADDRESS=") || l.starts_with("XDG_RUNTIME_DIR=")
        ),
        "{global}"
    );
    let attached = support::poll(LINK_TIMEOUT, || {
        tmux_as(&remote, &["list-clients", "-F", "#{client_control_mode}"]).contains('1')
    });
    assert!(
        attached,
        "their daemon's control client attached\n--- daemon log ---\n{}",
        remote.daemon_log()
    );

    // Their Claude, in files they can read; the line it reads goes to `out`.
    let out = home.join("typed.txt");
    let claude = fake_claude_in(&home.join("bin"), "dialog", &out, "", "");
    tmux_over_ssh(&sshd, &remote, &["send-keys", "-t", &shell, "-l", &claude]);
    tmux_over_ssh(&sshd, &remote, &["send-keys", "-t", &shell, "Enter"]);
    let mut there = Value::Null;
    let blocked = support::poll(LINK_TIMEOUT, || {
        there = panes_there(&remote)
            .into_iter()
            .find(|p| p["location"]["pane"] == shell.as_str() && p["live"]["state"] == "running")
            .unwrap_or(Value::Null);
        there["lifecycle"] == "blocked"
    });
    assert!(
        blocked,
        "followed there, blocked: {there:#}\n--- daemon log ---\n{}",
        remote.daemon_log()
    );
    let id = there["id"].as_str().unwrap().to_string();

    let local = local_env_over_ssh(&sshd);
    add(
        &local,
        "buildbox",
        HOST_ALIAS,
        &["--command".into(), remote.bridge_command()],
    );
    wait_state(&local, "buildbox", "connected", |r| {
        r["state"] == "connected"
    });
    let mirrored = format!("buildbox:{id}");
    let v = wait_listed(
        &local,
        &mirrored,
        "their tmux pane mirrored, blocked",
        |v| v["lifecycle"] == "blocked" && v["attention"] == "input_required",
    );
    assert_eq!(v["agent"], "claude", "{v:#}");
    assert_eq!(v["host"], "buildbox", "{v:#}");

    // allow = "Yes, I trust this folder": one Down, typed into their tmux pane.
    local.ok(&["answer", &mirrored, "allow"]);
    local.wait_until("the keys typed into their tmux pane", || {
        std::fs::read_to_string(&out).is_ok_and(|s| s == "\u{1b}[B")
    });
    let v = wait_listed(&local, &mirrored, "exited there, mirrored here", |v| {
        v["live"]["state"] == "exited"
    });
    assert!(v["pending_decision"].is_null(), "{v:#}");

    // Everything of the test goes with its guards.
    drop(local);
    drop(server);
    drop(remote);
    drop(sshd);
    let mut left = Vec::new();
    let gone = support::poll(LINK_TIMEOUT, || {
        left = processes_of(user.uid, &home);
        left.is_empty()
    });
    assert!(gone, "left running as {}: {left:?}", user.name);
}
