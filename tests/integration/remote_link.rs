//! The link to another machine's Attend (docs/decisions/0014-remote-link.md,
//! docs/remote.md): two daemons on two private buses, the "remote" with its own state
//! directory, linked by `attend remote add … --via` (a plain local command, no ssh)
//! through `attend bridge --stdio`; the link's states in `attend remote ls`, its loss and
//! its reconnection by itself, and bad remotes that get a clear one-line state while the
//! rest goes on. Then through a real sshd on 127.0.0.1 to a daemon of a second user
//! (tests/support/sshd.rs) with the default ssh carrier: abrupt and silent link loss,
//! docs/remote.md's three-command set-up on a login without a session bus, and a wrong
//! key and a host without attend.

use crate::support;

use serde_json::Value;
use std::time::Duration;
use support::remote::{
    add, error_of, hook, local_env, local_env_over_ssh, remote_env, remote_of, via_args,
    wait_listed, wait_state,
};
use support::Bus;

#[test]
fn a_link_comes_up_goes_offline_with_the_error_and_reconnects_by_itself() {
    let (mut remote, socket) = remote_env();
    let local = local_env();
    add(&local, "r1", "box", &via_args(&remote, &socket));
    let r = wait_state(&local, "r1", "connected", |r| r["state"] == "connected");
    assert_eq!(r["remote_version"], env!("CARGO_PKG_VERSION"));
    assert!(r.get("last_error").is_none(), "{r}");
    let table = local.ok(&["remote", "ls"]);
    assert!(table.starts_with("NAME "), "{table}");
    assert!(
        table.contains("r1") && table.contains("connected"),
        "{table}"
    );

    // The remote's bus goes away (and its daemon with it).
    remote.bus.kill();
    let r = wait_state(&local, "r1", "offline", |r| r["state"] == "offline");
    let e = error_of(&r);
    assert!(e.contains("session bus"), "{r}");
    assert!(!e.contains('\n'), "{r}");
    assert!(r["since_at"].is_string(), "{r}");
    // The local daemon goes on.
    local.ok(&["ls"]);

    // Fixed: the bus and the daemon start again there; the link comes back by itself.
    remote.bus = Bus::at(&socket);
    remote.start_daemon();
    wait_state(&local, "r1", "connected again", |r| {
        r["state"] == "connected"
    });

    // The remote daemon alone stops: offline, saying so.
    remote.stop_daemon();
    let r = wait_state(&local, "r1", "offline", |r| r["state"] == "offline");
    assert!(error_of(&r).contains("attend daemon"), "{r}");

    local.ok(&["remote", "rm", "r1"]);
    assert_eq!(remote_of(&local, "r1"), None);
}

#[test]
fn a_remotes_panes_are_listed_here_kept_current_and_greyed_while_offline() {
    let (mut remote, socket) = remote_env();
    let local = local_env();
    add(&local, "r1", "box", &via_args(&remote, &socket));
    wait_state(&local, "r1", "connected", |r| r["state"] == "connected");

    hook(&remote, "s1", "UserPromptSubmit");
    let there: Value = serde_json::from_str(&remote.ok(&["show", "p1", "--json"])).unwrap();
    let here = wait_listed(&local, "r1:p1", "mirrored", |p| {
        p["lifecycle"] == there["lifecycle"] && p["attention"] == there["attention"]
    });
    assert_eq!(here["host"], "r1", "{here}");
    assert_eq!(here["offline"], false, "{here}");
    assert_eq!(here["agent"], "claude", "{here}");
    // The table: a HOST column, local panes `-`; `--host` keeps one host's panes.
    let table = local.ok(&["ls"]);
    assert!(table.starts_with("HOST "), "{table}");
    assert!(table.contains("r1:p1"), "{table}");
    assert!(local
        .ok(&["ls", "--host", "-"])
        .trim_end()
        .ends_with("MESSAGE"));
    assert!(local.ok(&["ls", "--host", "r1"]).contains("r1:p1"));
    // A host that is not configured: exit 2, as for `seen nohost:p1`.
    let out = local.attend(&["ls", "--host", "nohost"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no remote host named nohost"),
        "{out:?}"
    );
    let shown: Value = serde_json::from_str(&local.ok(&["show", "r1:p1", "--json"])).unwrap();
    assert_eq!(shown["id"], "r1:p1", "{shown}");
    // Only this machine's panes resume (actions: tests/integration/remote_actions.rs).
    let out = local.attend(&["resume", "r1:p1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not for remote panes"),
        "{out:?}"
    );

    // A later change there shows up here over the same link (no reconnect).
    let since = remote_of(&local, "r1").unwrap()["since_at"].clone();
    hook(&remote, "s1", "Stop");
    let there: Value = serde_json::from_str(&remote.ok(&["show", "p1", "--json"])).unwrap();
    assert_ne!(there["lifecycle"], here["lifecycle"], "{there}");
    wait_listed(&local, "r1:p1", "changed", |p| {
        p["lifecycle"] == there["lifecycle"] && p["attention"] == there["attention"]
    });
    assert_eq!(remote_of(&local, "r1").unwrap()["since_at"], since);

    // The link lost: still listed, offline; back: live again.
    remote.bus.kill();
    wait_listed(&local, "r1:p1", "offline", |p| p["offline"] == true);
    assert!(local.ok(&["ls"]).contains("offline"));
    remote.bus = Bus::at(&socket);
    remote.start_daemon();
    wait_listed(&local, "r1:p1", "live again", |p| p["offline"] == false);
}

#[test]
fn bad_remotes_get_a_clear_one_line_state_and_nothing_else_is_affected() {
    let (remote, socket) = remote_env();
    let local = local_env();
    add(&local, "good", "box", &via_args(&remote, &socket));
    // A port nobody listens on, on this machine only (never another address).
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    add(&local, "closed", &format!("127.0.0.1:{port}"), &[]);
    // Not attend: `cat bridge --stdio` fails; `yes` answers the handshake with garbage
    // without end.
    add(&local, "cat", "x", &["--via".into(), "cat".into()]);
    // A carrier that fails without a word: how it ended.
    add(&local, "mute", "x", &["--via".into(), "false".into()]);
    let garbage = ["--via", "env", "--command", "yes"].map(String::from);
    add(&local, "garbage", "x", &garbage);
    // systemd-stdio-bridge as the remote command (Debian 12's ignores --user: -p).
    let sd = format!("systemd-stdio-bridge -p unix:path={}", socket.display());
    add(
        &local,
        "sd",
        "x",
        &["--via".into(), "env".into(), "--command".into(), sd],
    );

    let offline = |r: &Value| r["state"] == "offline" && !error_of(r).is_empty();
    let r = wait_state(&local, "closed", "offline", offline);
    assert!(error_of(&r).contains("refused"), "{r}");
    let down = r["since_at"].clone();
    assert!(down.is_string(), "{r}");
    let r = wait_state(&local, "cat", "offline", offline);
    assert!(error_of(&r).contains("cat:"), "{r}");
    let r = wait_state(&local, "mute", "offline", offline);
    assert!(
        error_of(&r).contains("`false` ended (exit status: 1)"),
        "{r}"
    );
    let r = wait_state(&local, "garbage", "offline", offline);
    assert!(error_of(&r).contains("does not speak D-Bus"), "{r}");
    for name in ["closed", "cat", "mute", "garbage"] {
        let r = remote_of(&local, name).unwrap();
        assert!(!error_of(&r).contains('\n'), "{r}");
    }
    wait_state(&local, "good", "connected", |r| r["state"] == "connected");
    wait_state(&local, "sd", "connected", |r| r["state"] == "connected");
    // Offline since it went down, across the attempts that failed since (1 s, then 2 s
    // apart): not since the last one.
    std::thread::sleep(Duration::from_millis(3500));
    let r = wait_state(&local, "closed", "offline again", offline);
    assert_eq!(r["since_at"], down, "{r}");

    // Bad input to the CLI: exit 2, one clear line, the file unchanged.
    let config = local.path("config/attend/config.toml");
    let before = std::fs::read_to_string(&config).unwrap();
    for (args, says) in [
        (vec!["remote", "add", "Bad", "x"], "bad host name"),
        (vec!["remote", "add", "good", "x"], "exists already"),
        (
            vec!["remote", "add", "opt", "--", "-oProxyCommand=x"],
            "starting with '-'",
        ),
        (vec!["remote", "rm", "nope"], "no remote named nope"),
    ] {
        let out = local.attend(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(says) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);
    assert_eq!(
        remote_of(&local, "good").unwrap()["state"],
        "connected",
        "the good link stays up"
    );
    local.ok(&["remote", "rm", "garbage"]);
    assert_eq!(remote_of(&local, "garbage"), None);
}

/// The link through a real sshd on 127.0.0.1 to a daemon of another user, on that user's
/// own private bus (tests/support/sshd.rs; D-Bus authentication across uids: the bridge
/// authenticates as the remote user, the local side anonymously to the bridge), with the
/// default carrier — the real `ssh` with Attend's options, which the harness's client
/// config (`-F`, through a two-line `ssh` on the local daemon's PATH) only adds the host,
/// key and known host to. The connection killed (abrupt loss) and stopped (silent loss:
/// only ssh's keep-alives notice it): offline within 5 s each time, connected again by
/// itself afterwards. During each outage a hook fires there; once the link is back its
/// events are in the local log, each remote seq exactly once.
#[test]
fn an_ssh_link_to_another_user_notices_abrupt_and_silent_loss_within_5_s() {
    use nix::sys::signal::Signal;
    use std::time::Instant;
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
    let r = wait_state(&local, "buildbox", "connected", |r| {
        r["state"] == "connected"
    });
    assert_eq!(r["remote_version"], env!("CARGO_PKG_VERSION"), "{r}");

    // A Claude hook there, as a hook on that host runs (its user, its bus; no ssh).
    let hook = |event: &str| {
        let payload = serde_json::json!({"session_id": "s1", "cwd": "/tmp/mirror",
            "hook_event_name": event, "prompt": "go", "stop_hook_active": false,
            "last_assistant_message": "done"});
        let out = remote.run("attend-hook", &["claude"], &payload.to_string());
        assert!(out.status.success(), "attend-hook: {out:?}");
    };
    // The seqs of the remote's own log, and the remote seqs of its events here.
    let there = || -> Vec<u64> {
        let out = remote.run("attend", &["events", "--json"], "");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["seq"]
                    .as_u64()
                    .unwrap()
            })
            .collect()
    };
    let here = || -> Vec<u64> {
        let all = local.events().into_iter();
        all.filter(|e| e["host"] == "buildbox")
            .map(|e| e["remote_seq"].as_u64().unwrap())
            .collect()
    };
    // While the key is away, sshd refuses new logins (the open one stays): the link
    // cannot come back before the test lets it.
    let keys = sshd.dir().join("authorized_keys");
    let away = sshd.dir().join("authorized_keys.away");

    for (loss, signal) in [("abrupt", Signal::SIGKILL), ("silent", Signal::SIGSTOP)] {
        let connections = sshd.wait_connections(1);
        std::fs::rename(&keys, &away).unwrap();
        let start = Instant::now();
        let hit = sshd.signal_connections(signal);
        assert!(!hit.is_empty(), "{loss}: {connections:?}");
        let r = wait_state(&local, "buildbox", "offline", |r| r["state"] == "offline");
        let took = start.elapsed();
        println!("{loss} link loss: offline after {took:?}: {}", error_of(&r));
        assert!(took <= Duration::from_secs(5), "{loss}: {took:?} {r}");
        // A hook during the outage.
        hook(if signal == Signal::SIGKILL {
            "UserPromptSubmit"
        } else {
            "Stop"
        });
        let made = there();
        let r = remote_of(&local, "buildbox").unwrap();
        assert_ne!(
            r["state"], "connected",
            "{loss}: the link is still down: {r}"
        );
        std::fs::rename(&away, &keys).unwrap();
        if signal == Signal::SIGSTOP {
            // The stopped session ends (its client is gone).
            for pid in hit {
                let _ =
                    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), Signal::SIGKILL);
            }
        }
        wait_state(&local, "buildbox", "connected again", |r| {
            r["state"] == "connected"
        });
        // Its events arrive here, once each: nothing missed, nothing doubled.
        let last = made.last().copied();
        local.wait_until("the outage's events here", || {
            here().last().copied() == last
        });
        assert_eq!(here(), made, "{loss}: the remote events here");
    }
}

/// docs/remote.md's set-up in three commands, on a remote login that has no session bus
/// (no `DBUS_SESSION_BUS_ADDRESS`, nothing at `$XDG_RUNTIME_DIR/bus`): `ssh HOST attend up`
/// starts a private bus and the daemon there and returns (nothing it leaves running holds
/// ssh's output open); `attend remote add` with the default remote command's bridge, which
/// finds that private bus by itself; `attend remote ls` says connected with the remote's
/// version.
#[test]
fn the_three_command_set_up_works_on_a_remote_without_a_session_bus() {
    use support::sshd::{RemoteUser, Sshd, HOST_ALIAS};
    let Some(user) = support::sshd::require() else {
        return;
    };
    let sshd = Sshd::start(&user);
    let remote = RemoteUser::start(&user);
    // A login of that user without a bus: its own runtime and state directories.
    let home = remote.home();
    let (run, state) = (home.join("run-bare"), home.join("state-bare"));
    for d in [&run, &state] {
        std::fs::create_dir(d).unwrap();
        std::fs::set_permissions(
            d,
            <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o700),
        )
        .unwrap();
        std::os::unix::fs::chown(d, Some(user.uid), Some(user.gid)).unwrap();
    }
    let bare = |args: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = vec!["env".into(), "-u".into(), "DBUS_SESSION_BUS_ADDRESS".into()];
        v.push(format!("HOME={}", home.display()));
        v.push(format!("XDG_RUNTIME_DIR={}", run.display()));
        v.push(format!("ATTEND_STATE_DIR={}", state.display()));
        v.push(remote.bin("attend").display().to_string());
        v.extend(args.iter().map(|a| a.to_string()));
        v
    };
    // Whatever `attend up` leaves running there is ended with the test.
    struct Reap(u32, std::path::PathBuf);
    impl Drop for Reap {
        fn drop(&mut self) {
            for pid in support::sshd::processes_of(self.0, &self.1) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid as i32),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
    }
    let _reap = Reap(user.uid, run.clone());

    // 1. On the remote.
    let up = sshd
        .ssh(&bare(&["up"]))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&up.stdout);
    assert!(
        up.status.success() && said.starts_with("DBUS_SESSION_BUS_ADDRESS="),
        "{up:?}"
    );
    // No display there: no notification server is activated for a daemon nobody sees.
    let notes = String::from_utf8_lossy(&up.stderr);
    assert!(
        notes.contains("started without desktop notifications"),
        "{notes}"
    );
    let log = || std::fs::read_to_string(state.join("daemon.log")).unwrap_or_default();
    assert!(
        support::poll(Duration::from_secs(20), || log()
            .contains("desktop notifications off")),
        "{}",
        log()
    );
    // 2. Here.
    let local = local_env_over_ssh(&sshd);
    let command = shlex::try_join(bare(&["bridge", "--stdio"]).iter().map(String::as_str)).unwrap();
    add(
        &local,
        "buildbox",
        HOST_ALIAS,
        &["--command".into(), command],
    );
    // 3.
    let r = wait_state(&local, "buildbox", "connected", |r| {
        r["state"] == "connected"
    });
    assert_eq!(r["remote_version"], env!("CARGO_PKG_VERSION"), "{r}");
}

/// Bad remotes through the real sshd (tests/support/sshd.rs): a key the server does not
/// take, and a login where the remote command is not installed. Each gets a clear
/// one-line state in `attend remote ls`, and the good link beside them stays up.
#[test]
fn a_wrong_key_and_a_host_without_attend_over_ssh_get_a_clear_one_line_state() {
    use support::sshd::{RemoteUser, Sshd, HOST_ALIAS};
    let Some(user) = support::sshd::require() else {
        return;
    };
    let sshd = Sshd::start(&user);
    let remote = RemoteUser::start(&user);
    // A second host alias of the same server whose key is not in authorized_keys.
    let wrong = sshd.dir().join("wrong_key");
    let made = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(&wrong)
        .status()
        .unwrap();
    assert!(made.success());
    let config = std::fs::read_to_string(sshd.client_config()).unwrap();
    let good_key = sshd.dir().join("id_ed25519").display().to_string();
    let wrong_alias = config
        .replacen(
            &format!("Host {HOST_ALIAS}"),
            "Host attend-test-wrong-key",
            1,
        )
        .replace(&good_key, &wrong.display().to_string());
    assert_ne!(wrong_alias, config);
    std::fs::write(sshd.client_config(), format!("{config}\n{wrong_alias}")).unwrap();

    let local = local_env_over_ssh(&sshd);
    let bridge = remote.bridge_command();
    add(
        &local,
        "good",
        HOST_ALIAS,
        &["--command".into(), bridge.clone()],
    );
    add(
        &local,
        "nokey",
        "attend-test-wrong-key",
        &["--command".into(), bridge],
    );
    add(
        &local,
        "noattend",
        HOST_ALIAS,
        &[
            "--command".into(),
            "attend-not-installed bridge --stdio".into(),
        ],
    );
    let offline = |r: &Value| r["state"] == "offline" && !error_of(r).is_empty();
    let r = wait_state(&local, "nokey", "offline", offline);
    assert!(error_of(&r).contains("Permission denied"), "{r}");
    let r = wait_state(&local, "noattend", "offline", offline);
    assert!(error_of(&r).contains("not found"), "{r}");
    for name in ["nokey", "noattend"] {
        let r = remote_of(&local, name).unwrap();
        assert!(!error_of(&r).contains('\n'), "{r}");
    }
    wait_state(&local, "good", "connected", |r| r["state"] == "connected");
    let ls = local.ok(&["remote", "ls"]);
    eprintln!("{ls}");
    assert!(
        ls.lines()
            .any(|l| l.starts_with("nokey") && l.contains("offline")),
        "{ls}"
    );
}
