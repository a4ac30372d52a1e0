//! The tray icon on a private bus (docs/desktop-surfaces.md): no tray host runs headless, so
//! the test serves a small `org.kde.StatusNotifierWatcher` itself, lets the real `attend
//! daemon` register its StatusNotifierItem there (after starting without one), reads the
//! item's properties and its `com.canonical.dbusmenu` layout over D-Bus, and clicks
//! menu entries with dbusmenu `Event` calls.

mod desktop;
mod support;

use desktop::{claude_payload, Desk, PanelLog, Side};
use serde_json::json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use zbus::zvariant::{OwnedValue, Value};

/// A minimal StatusNotifierWatcher: records who registered which item.
struct Watcher(Arc<Mutex<Vec<(String, String)>>>);

#[zbus::interface(name = "org.kde.StatusNotifierWatcher")]
impl Watcher {
    fn register_status_notifier_item(
        &self,
        service: String,
        #[zbus(header)] header: zbus::message::Header<'_>,
    ) {
        let sender = header.sender().map(|s| s.to_string()).unwrap_or_default();
        self.0.lock().unwrap().push((sender, service));
    }

    fn register_status_notifier_host(&self, _service: String) {}

    #[zbus(property)]
    fn registered_status_notifier_items(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .map(|(_, s)| s.clone())
            .collect()
    }

    #[zbus(property)]
    fn is_status_notifier_host_registered(&self) -> bool {
        true
    }

    #[zbus(property)]
    fn protocol_version(&self) -> i32 {
        0
    }
}

/// The `ToolTip` property: `(icon name, pixmaps a(iiay), title, description)`.
type ToolTipValue = (String, Vec<(i32, i32, Vec<u8>)>, String, String);
/// A dbusmenu layout node `(ia{sv}av)`.
type Layout = (i32, HashMap<String, OwnedValue>, Vec<OwnedValue>);

/// One dbusmenu item: id, label, enabled, children.
#[derive(Debug, Clone)]
struct Item {
    id: i32,
    label: String,
    enabled: bool,
    children: Vec<Item>,
}

fn unwrap_variant<'a>(v: &'a Value<'a>) -> &'a Value<'a> {
    match v {
        Value::Value(inner) => unwrap_variant(inner),
        other => other,
    }
}

/// One `(ia{sv}av)` layout node.
fn item(v: &Value<'_>) -> Item {
    let Value::Structure(s) = unwrap_variant(v) else {
        panic!("a dbusmenu layout is a structure: {v:?}");
    };
    let fields = s.fields();
    let Value::I32(id) = fields[0] else {
        panic!("the id is i32")
    };
    let mut label = String::new();
    let mut enabled = true;
    if let Value::Dict(props) = &fields[1] {
        for (k, v) in props.iter() {
            match (k, unwrap_variant(v)) {
                (Value::Str(k), Value::Str(l)) if k.as_str() == "label" => label = l.to_string(),
                (Value::Str(k), Value::Bool(e)) if k.as_str() == "enabled" => enabled = *e,
                _ => {}
            }
        }
    }
    let children = match &fields[2] {
        Value::Array(a) => a.inner().iter().map(item).collect(),
        _ => Vec::new(),
    };
    Item {
        id,
        label,
        enabled,
        children,
    }
}

fn find<'a>(items: &'a [Item], label: &str) -> Option<&'a Item> {
    items.iter().find_map(|i| {
        if i.label.starts_with(label) {
            Some(i)
        } else {
            find(&i.children, label)
        }
    })
}

/// The test side: a connection, the watcher, the item's bus name once registered.
struct Host {
    side: Side,
    registered: Arc<Mutex<Vec<(String, String)>>>,
}

impl Host {
    fn start(desk: &Desk) -> Host {
        let side = Side::connect(desk);
        let registered = Arc::new(Mutex::new(Vec::new()));
        let conn = side.conn.clone();
        let r = registered.clone();
        side.rt.block_on(async move {
            conn.object_server()
                .at("/StatusNotifierWatcher", Watcher(r))
                .await
                .unwrap();
            conn.request_name("org.kde.StatusNotifierWatcher")
                .await
                .unwrap();
        });
        Host { side, registered }
    }

    fn item_name(&self) -> Option<String> {
        self.registered
            .lock()
            .unwrap()
            .last()
            .map(|(_, s)| s.clone())
    }

    fn call(
        &self,
        path: &str,
        iface: &str,
        method: &str,
        body: impl serde::Serialize + zbus::zvariant::DynamicType,
    ) -> zbus::message::Message {
        let name = self.item_name().expect("the item registered");
        let conn = self.side.conn.clone();
        let (path, iface, method) = (path.to_string(), iface.to_string(), method.to_string());
        self.side.rt.block_on(async move {
            conn.call_method(
                Some(name.as_str()),
                path.as_str(),
                Some(iface.as_str()),
                method.as_str(),
                &body,
            )
            .await
            .unwrap()
        })
    }

    fn property(&self, name: &str) -> OwnedValue {
        let reply = self.call(
            "/StatusNotifierItem",
            "org.freedesktop.DBus.Properties",
            "Get",
            ("org.kde.StatusNotifierItem", name),
        );
        let v: OwnedValue = reply.body().deserialize().unwrap();
        v
    }

    fn text(&self, name: &str) -> String {
        String::try_from(self.property(name)).unwrap()
    }

    /// (title, description) of the ToolTip property `(sa(iiay)ss)`.
    fn tooltip(&self) -> (String, String) {
        let v = self.property("ToolTip");
        let (_icon, _pixmaps, title, description): ToolTipValue = v.try_into().unwrap();
        (title, description)
    }

    fn menu(&self) -> Vec<Item> {
        let reply = self.call(
            "/MenuBar",
            "com.canonical.dbusmenu",
            "GetLayout",
            (0i32, -1i32, Vec::<String>::new()),
        );
        let body = reply.body();
        let (_revision, (id, props, children)): (u32, Layout) = body.deserialize().unwrap();
        let _ = (id, props);
        children.iter().map(|c| item(c)).collect()
    }

    fn click(&self, label: &str) {
        let menu = self.menu();
        let entry =
            find(&menu, label).unwrap_or_else(|| panic!("no menu entry {label:?} in {menu:#?}"));
        self.call(
            "/MenuBar",
            "com.canonical.dbusmenu",
            "Event",
            (entry.id, "clicked", Value::I32(0), 0u32),
        );
    }
}

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
