//! Remote panes in this machine's desktop surfaces and `next`/`status` (docs/remote.md,
//! docs/desktop-surfaces.md): two real daemons on two private buses, the local one linked
//! to the remote one with `attend remote add … --via` (a plain local command, no ssh:
//! tests/support/remote.rs) through a small carrier script the test can cut; Debian's
//! real `dunst` under Xvfb as the local notification server, the test's own
//! StatusNotifierWatcher as the tray host (tests/desktop/tray_host.rs). The remote pane is
//! an owned pane standing in for Claude Code that draws the recorded permission dialog
//! ([`Desk::claude_pane`]), so an answer from here is typed into it there.

use crate::desktop;
use crate::support;

use desktop::tray_host::{find, Host};
use desktop::{claude_payload, Desk, NotifyCalls};
use serde_json::{json, Value};
use std::time::Duration;
use support::remote::{add, bridge_command, status_follower, wait_state, LINK_TIMEOUT};

fn gate(session: &str, command: &str, id: &str) -> String {
    claude_payload(
        "PermissionRequest.json",
        session,
        &[
            ("tool_input.command", json!(command)),
            ("tool_use_id", json!(id)),
        ],
    )
}

/// The `Notify` calls so far about the remote host `r1`'s panes.
fn remote_calls(calls: &NotifyCalls) -> Vec<(String, String)> {
    calls
        .calls()
        .into_iter()
        .filter(|c| c.summary.starts_with("r1 › "))
        .map(|c| (c.summary, c.body))
        .collect()
}

/// `attend status --format json` of `d`.
fn status(d: &Desk) -> Value {
    serde_json::from_str(&d.ok(&["status", "--format", "json"])).unwrap()
}

/// Stays at `n` notifications shown and `calls` Notify calls for r1 for a while (nothing
/// else arrives).
fn stays(d: &Desk, calls: &NotifyCalls, n: usize, sent: usize, what: &str) {
    for _ in 0..20 {
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(d.displayed(), n, "{what}\n{}", d.daemon_log());
        assert_eq!(
            remote_calls(calls).len(),
            sent,
            "{what}: {:?}",
            remote_calls(calls)
        );
    }
}

#[test]
fn a_remote_gate_is_notified_once_answered_from_here_withdrawn_offline_and_counted() {
    // The remote machine: its own bus and daemon, no surfaces.
    let mut remote = Desk::new();
    remote.start_daemon(&["--no-tray", "--no-notifications"]);

    // This machine: dunst, a tray host, the daemon with both surfaces.
    let mut d = Desk::with_display();
    d.start_dunst();
    let host = Host::start(&d);
    let calls = NotifyCalls::start(&d);
    d.start_daemon(&[]);
    d.wait_until("the tray item registered", || host.item_name().is_some());

    // The carrier: refuses while the file `block` exists, else records its pid and
    // becomes the plain local command that reaches the remote's bus.
    let carrier = d.path("carrier.sh");
    let (block, pidfile) = (d.path("block"), d.path("carrier.pid"));
    std::fs::write(
        &carrier,
        format!(
            "#!/bin/sh\nif [ -e '{}' ]; then echo 'the test cut the link' >&2; exit 1; fi\n\
             echo $$ > '{}'\nexec \"$@\"\n",
            block.display(),
            pidfile.display()
        ),
    )
    .unwrap();
    let via = shlex::try_join([
        "sh",
        carrier.to_str().unwrap(),
        "env",
        &format!("DBUS_SESSION_BUS_ADDRESS={}", remote.bus.address),
        &format!("XDG_RUNTIME_DIR={}", remote.path("run").display()),
    ])
    .unwrap();
    add(
        &d,
        "r1",
        "box",
        &["--via".into(), via, "--command".into(), bridge_command()],
    );
    wait_state(&d, "r1", "connected", |r| r["state"] == "connected");

    // A gate there: ONE notification here, the local words prefixed with the host.
    let p1 = remote.claude_pane("api");
    remote.hook(Some(&p1), &gate("s1", "make deploy", "toolu_1"), &[]);
    d.wait_until("the remote gate is notified here", || d.displayed() == 1);
    stays(&d, &calls, 1, 1, "one notification for one remote gate");
    assert_eq!(
        remote_calls(&calls),
        [(
            "r1 › work › api — permission: Bash".to_string(),
            "make deploy".to_string()
        )]
    );
    let id = format!("r1:{p1}");
    // `next`, `status` and the tray count the remote pane.
    assert_eq!(d.ok(&["next"]).trim(), id);
    let s = status(&d);
    assert_eq!(s["counts"]["permission_required"], 1, "{s}");
    assert_eq!(s["next"]["pane"], id.as_str(), "{s}");
    assert!(
        s["next"]["title"].as_str().unwrap().starts_with("r1 › "),
        "{s}"
    );
    d.wait_until("the tray needs attention", || {
        host.text("Status") == "NeedsAttention"
    });
    assert!(find(&host.menu(), &id).is_some(), "{:#?}", host.menu());

    // Its Allow button answers the decision on the remote daemon.
    std::fs::write(d.path("choice"), "allow]").unwrap();
    assert!(d.dunstctl(&["context"]).status.success());
    remote.wait_until("Allow answered the gate there", || {
        remote.show(&p1)["pending_decision"].is_null()
    });
    let events = remote.ok(&["events", "--json"]);
    let answered = events
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .any(|e| {
            e["kind"] == "decision.resolved" && e["how"] == "answered" && e["choice"] == "allow"
        });
    assert!(answered, "{events}");
    d.wait_until("the answered gate's notification closed", || {
        d.displayed() == 0
    });
    d.wait_until("the tray calms down", || {
        host.text("Status") != "NeedsAttention"
    });

    // A second gate, then the link is cut: its notification is withdrawn, and the
    // offline host's pane counts nowhere.
    remote.hook(Some(&p1), &gate("s1", "make release", "toolu_2"), &[]);
    d.wait_until("the second gate is notified", || d.displayed() == 1);
    assert_eq!(remote_calls(&calls).len(), 2);
    // A status bar follows it (`attend status --follow`): no event marks a host going
    // offline, its `RemotesChanged()` signal does.
    let lines = status_follower(&d);
    let counted = |line: &str| {
        let v: Value = serde_json::from_str(line).unwrap();
        v["counts"]["permission_required"].as_u64()
    };
    let (first, _) = lines.recv_timeout(LINK_TIMEOUT).unwrap();
    assert_eq!(counted(&first), Some(1), "{first}");
    std::fs::write(&block, "").unwrap();
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-KILL", pid.trim()])
        .status()
        .unwrap();
    assert!(killed.success());
    wait_state(&d, "r1", "offline", |r| r["state"] == "offline");
    d.wait_until("the offline host's notification is withdrawn", || {
        d.displayed() == 0
    });
    d.wait_until("the tray stops counting it", || {
        host.text("Status") == "Passive" && find(&host.menu(), &id).is_none()
    });
    let (line, _) = lines
        .recv_timeout(LINK_TIMEOUT)
        .expect("status --follow prints the host's going offline");
    assert_eq!(counted(&line), Some(0), "{line}");
    let s = status(&d);
    assert_eq!(s["counts"]["permission_required"], 0, "{s}");
    assert!(s["next"].is_null(), "{s}");
    let next = d.attend(&["next"]);
    assert!(!next.status.success(), "{next:?}");
    assert!(next.stdout.is_empty(), "{next:?}");

    // Back, with the gate still open: announced once again, no storm.
    std::fs::remove_file(&block).unwrap();
    wait_state(&d, "r1", "connected again", |r| r["state"] == "connected");
    d.wait_until("the open gate is announced again", || d.displayed() == 1);
    stays(&d, &calls, 1, 3, "announced once after the reconnection");
    assert_eq!(
        remote_calls(&calls)[2],
        (
            "r1 › work › api — permission: Bash".to_string(),
            "make release".to_string()
        )
    );
    assert_eq!(d.ok(&["next"]).trim(), id);
    d.wait_until("the tray counts it again", || {
        host.text("Status") == "NeedsAttention"
    });
}
