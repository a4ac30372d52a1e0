//! The tray icon on a private bus (docs/desktop-surfaces.md): no tray host runs headless, so
//! the test serves a small `org.kde.StatusNotifierWatcher` itself
//! (tests/desktop/tray_host.rs), lets the real `attend daemon` register its
//! StatusNotifierItem there (after starting without one), reads the item's properties and
//! its `com.canonical.dbusmenu` layout over D-Bus, and clicks menu entries with dbusmenu
//! `Event` calls.

use crate::desktop;

use desktop::tray_host::{find, Host};
use desktop::{claude_payload, Desk, PanelLog};
use serde_json::json;
use std::sync::{Arc, Mutex};

fn gate(session: &str, command: &str) -> String {
    claude_payload(
        "PermissionRequest.json",
        session,
        &[("tool_input.command", json!(command))],
    )
}

fn stop(session: &str, message: &str) -> String {
    claude_payload(
        "Stop.json",
        session,
        &[("last_assistant_message", json!(message))],
    )
}

fn wait_prop(d: &Desk, host: &Host, prop: &str, want: &str) {
    d.wait_until(&format!("{prop} = {want}"), || host.text(prop) == want);
}

fn panel_saw(panel: &Arc<Mutex<PanelLog>>, f: impl Fn(&PanelLog) -> bool) -> bool {
    f(&panel.lock().unwrap())
}

#[test]
fn the_tray_follows_a_gate_and_its_answer_and_its_menu_acts() {
    let mut d = Desk::new();
    d.start_daemon(&["--no-notifications"]);
    d.wait_until("the daemon says it runs without a tray", || {
        d.daemon_log()
            .contains("no StatusNotifierWatcher on the bus")
    });
    let p1 = d.claude_pane("api");
    let p2 = d.claude_pane("tests");

    // A watcher appears later: the item registers.
    let host = Host::start(&d);
    let panel = host.side.fake_panel();
    d.wait_until("the item registered", || host.item_name().is_some());
    assert_eq!(
        d.daemon_log()
            .matches("no StatusNotifierWatcher on the bus")
            .count(),
        1,
        "logged once"
    );
    assert!(host
        .item_name()
        .unwrap()
        .starts_with("org.kde.StatusNotifierItem-"));
    assert_eq!(host.text("Id"), "io.github.attend.Attend");
    wait_prop(&d, &host, "Status", "Passive");
    assert_eq!(host.text("IconName"), "attend-none-symbolic");
    assert!(
        host.text("IconThemePath").ends_with("data/icons"),
        "the shipped icons: {}",
        host.text("IconThemePath")
    );

    // A gate opens on p1.
    d.hook(Some(&p1), &gate("s1", "npm test"), &[]);
    wait_prop(&d, &host, "Status", "NeedsAttention");
    assert_eq!(host.text("IconName"), "attend-permission-required-symbolic");
    assert_eq!(
        host.text("AttentionIconName"),
        "attend-permission-required-symbolic"
    );
    let (title, description) = host.tooltip();
    assert_eq!(title, "Attend — 1 permission");
    assert_eq!(
        description,
        format!("permission_required: 1\nnext: {p1} work › api — permission: Bash `npm test`")
    );
    let menu = host.menu();
    let labels: Vec<&str> = menu.iter().map(|i| i.label.as_str()).collect();
    assert_eq!(
        labels[0],
        "work — blocked · permission__required: Bash: npm test"
    );
    assert!(find(&menu, "Jump to next unread").unwrap().enabled);
    assert!(
        labels.contains(&"Needs you (1)"),
        "the Needs you section lists the open gate: {labels:?}"
    );

    // p2 completes; p1's gate is answered: unread is what is left.
    d.hook(Some(&p2), &stop("s2", "Added 3 tests"), &[]);
    d.wait_until("p2 done", || d.show(&p2)["attention"] == "unread");
    d.ok(&["answer", &p1, "allow"]);
    wait_prop(&d, &host, "Status", "Active");
    assert_eq!(host.text("IconName"), "attend-unread-symbolic");
    let (title, description) = host.tooltip();
    assert_eq!(title, "Attend — 1 unread");
    assert!(
        description.ends_with(&format!("next: {p2} work › tests — done: Added 3 tests")),
        "{description}"
    );

    // "Jump to next unread" focuses p2: seen, the panel raised on it.
    host.click("Jump to next unread");
    d.wait_until("p2 seen", || d.show(&p2)["attention"] == "none");
    wait_prop(&d, &host, "Status", "Passive");
    d.wait_until("the panel shows p2", || {
        panel_saw(&panel, |l| {
            l.focus_requested == vec![p2.clone()]
                && l.actions
                    .iter()
                    .any(|(a, p, _)| a == "show-pane" && p.as_slice() == std::slice::from_ref(&p2))
        })
    });

    // "Mark all seen…" asks first; its one entry does it.
    d.hook(Some(&p1), &stop("s1", "All 42 tests pass"), &[]);
    d.hook(Some(&p2), &stop("s2", "Added 4 tests"), &[]);
    d.wait_until("two unread", || {
        d.show(&p1)["attention"] == "unread" && d.show(&p2)["attention"] == "unread"
    });
    d.wait_until("the menu offers to mark 2 panes", || {
        find(&host.menu(), "Yes, mark 2 panes seen").is_some()
    });
    host.click("Yes, mark 2 panes seen");
    d.wait_until("both seen", || {
        d.show(&p1)["attention"] == "none" && d.show(&p2)["attention"] == "none"
    });
    assert!(!find(&host.menu(), "Mark all seen").unwrap().enabled);

    // Left click and "Open panel" raise the panel.
    host.call(
        "/StatusNotifierItem",
        "org.kde.StatusNotifierItem",
        "Activate",
        (0i32, 0i32),
    );
    host.click("Open panel");
    d.wait_until("two activations", || {
        panel_saw(&panel, |l| l.activations == 2)
    });

    // "Quit Attend" stops the daemon.
    host.click("Quit Attend");
    let daemon = d.daemon.as_mut().unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = daemon.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < desktop::TIMEOUT,
            "the daemon did not quit"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    assert!(d.daemon_log().contains("quit from the tray"));
}

#[test]
fn remove_exited_panes_asks_first_and_removes_every_exited_pane() {
    let mut d = Desk::new();
    // The watcher is there before the daemon: the item registers at start.
    let host = Host::start(&d);
    d.start_daemon(&["--no-notifications"]);
    d.wait_until("the item registered", || host.item_name().is_some());
    let running = d.run(&["--", "sleep", "1000"]);
    d.wait_until("the menu shows the workspace", || host.menu().len() > 1);
    assert!(
        !find(&host.menu(), "Remove exited panes").unwrap().enabled,
        "nothing exited yet"
    );
    let exited: Vec<String> = (0..2).map(|_| d.run(&["--", "true"])).collect();
    for p in &exited {
        d.wait_until("exited", || d.show(p)["live"]["state"] == "exited");
    }
    d.wait_until("the menu offers to remove 2 panes", || {
        find(&host.menu(), "Yes, remove 2 panes that exited").is_some()
    });
    assert!(find(&host.menu(), "Remove exited panes").unwrap().enabled);
    host.click("Yes, remove 2 panes that exited");
    d.wait_until("both removed", || {
        exited
            .iter()
            .all(|p| d.attend(&["show", p]).status.code() == Some(2))
    });
    assert_eq!(d.show(&running)["live"]["state"], "running", "kept");
    d.wait_until("nothing left to remove", || {
        !find(&host.menu(), "Remove exited panes").unwrap().enabled
    });
}
