//! The test side of a tray host (tests/integration/tray.rs, tests/integration/remote_surfaces.rs): no tray host
//! runs headless, so the test serves a small `org.kde.StatusNotifierWatcher` itself, lets
//! the real `attend daemon` register its StatusNotifierItem there, reads the item's
//! properties and its `com.canonical.dbusmenu` layout over D-Bus, and clicks menu entries
//! with dbusmenu `Event` calls.

use super::{Desk, Side};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use zbus::zvariant::{OwnedValue, Value};

/// A minimal StatusNotifierWatcher: records who registered which item.
pub struct Watcher(Arc<Mutex<Vec<(String, String)>>>);

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
pub struct Item {
    pub id: i32,
    pub label: String,
    pub enabled: bool,
    pub children: Vec<Item>,
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

pub fn find<'a>(items: &'a [Item], label: &str) -> Option<&'a Item> {
    items.iter().find_map(|i| {
        if i.label.starts_with(label) {
            Some(i)
        } else {
            find(&i.children, label)
        }
    })
}

/// The test side: a connection, the watcher, the item's bus name once registered.
pub struct Host {
    pub side: Side,
    pub registered: Arc<Mutex<Vec<(String, String)>>>,
}

impl Host {
    pub fn start(desk: &Desk) -> Host {
        Host::on(&desk.bus.address)
    }

    /// The watcher on the bus at `address` (a test without a desktop: no display, no
    /// notification server).
    pub fn on(address: &str) -> Host {
        let side = Side::on(address);
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

    /// From now on, every `org.kde.StatusNotifierItem` signal on the bus (`NewToolTip`,
    /// `NewStatus`, …) as (member, when it reached this side).
    pub fn item_signals(&self) -> std::sync::mpsc::Receiver<(String, std::time::Instant)> {
        let (tx, rx) = std::sync::mpsc::channel();
        let conn = self.side.conn.clone();
        let mut stream = self.side.rt.block_on(async move {
            let rule = zbus::MatchRule::builder()
                .msg_type(zbus::message::Type::Signal)
                .interface("org.kde.StatusNotifierItem")
                .unwrap()
                .build();
            zbus::MessageStream::for_match_rule(rule, &conn, None)
                .await
                .unwrap()
        });
        self.side.rt.spawn(async move {
            use zbus::export::futures_core::Stream;
            while let Some(Ok(m)) =
                std::future::poll_fn(|cx| std::pin::Pin::new(&mut stream).poll_next(cx)).await
            {
                let member = m
                    .header()
                    .member()
                    .map(|m| m.to_string())
                    .unwrap_or_default();
                if tx.send((member, std::time::Instant::now())).is_err() {
                    break;
                }
            }
        });
        rx
    }

    pub fn item_name(&self) -> Option<String> {
        self.registered
            .lock()
            .unwrap()
            .last()
            .map(|(_, s)| s.clone())
    }

    pub fn call(
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

    pub fn property(&self, name: &str) -> OwnedValue {
        let reply = self.call(
            "/StatusNotifierItem",
            "org.freedesktop.DBus.Properties",
            "Get",
            ("org.kde.StatusNotifierItem", name),
        );
        let v: OwnedValue = reply.body().deserialize().unwrap();
        v
    }

    pub fn text(&self, name: &str) -> String {
        String::try_from(self.property(name)).unwrap()
    }

    /// (title, description) of the ToolTip property `(sa(iiay)ss)`.
    pub fn tooltip(&self) -> (String, String) {
        let v = self.property("ToolTip");
        let (_icon, _pixmaps, title, description): ToolTipValue = v.try_into().unwrap();
        (title, description)
    }

    pub fn menu(&self) -> Vec<Item> {
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

    pub fn click(&self, label: &str) {
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
