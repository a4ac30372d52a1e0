//! A desktop notification server inside a test: `org.freedesktop.Notifications` on the
//! test's private bus, recording what the daemon shows, for the "one notification in
//! total" checks of the real-agent scenarios.
#![allow(dead_code)]

use super::scenario::{Scenario, STEP};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A notification server in the test (`org.freedesktop.Notifications` on the test's
/// bus): the summary of every `Notify`, in order, and the id of every
/// `CloseNotification`.
pub struct Notes {
    shown: Arc<Mutex<Vec<String>>>,
    closed: Arc<Mutex<Vec<u32>>>,
    next: std::sync::atomic::AtomicU32,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl Notes {
    #[allow(clippy::too_many_arguments)]
    fn notify(
        &self,
        _app_name: String,
        replaces_id: u32,
        _app_icon: String,
        summary: String,
        body: String,
        _actions: Vec<String>,
        _hints: std::collections::HashMap<String, zbus::zvariant::OwnedValue>,
        _expire_timeout: i32,
    ) -> u32 {
        self.shown
            .lock()
            .unwrap()
            .push(format!("{summary} — {body}"));
        if replaces_id != 0 {
            replaces_id
        } else {
            self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
        }
    }

    fn close_notification(&self, id: u32) {
        self.closed.lock().unwrap().push(id);
    }

    fn get_capabilities(&self) -> Vec<String> {
        vec!["actions".into(), "body".into()]
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        (
            "notes".into(),
            "attend tests".into(),
            "1".into(),
            "1.2".into(),
        )
    }
}

/// The notifications shown (summary — body), in order.
pub type Shown = Arc<Mutex<Vec<String>>>;

/// The ids of the notifications closed, in order.
pub type Closed = Arc<Mutex<Vec<u32>>>;

/// Serves [`Notes`] on `bus` until the connection is dropped; the notifications shown.
pub fn notification_server(bus: &str) -> (zbus::blocking::Connection, Arc<Mutex<Vec<String>>>) {
    let (conn, shown, _) = notification_server_with_closes(bus);
    (conn, shown)
}

/// [`notification_server`] that also gives the ids the daemon closed
/// (`CloseNotification`, in order); the first notification's id is 1.
pub fn notification_server_with_closes(bus: &str) -> (zbus::blocking::Connection, Shown, Closed) {
    let shown = Arc::new(Mutex::new(Vec::new()));
    let closed = Arc::new(Mutex::new(Vec::new()));
    let notes = Notes {
        shown: shown.clone(),
        closed: closed.clone(),
        next: std::sync::atomic::AtomicU32::new(0),
    };
    let conn = zbus::blocking::connection::Builder::address(bus)
        .unwrap()
        .serve_at("/org/freedesktop/Notifications", notes)
        .unwrap()
        .name("org.freedesktop.Notifications")
        .unwrap()
        .build()
        .expect("the test's notification server");
    (conn, shown, closed)
}

/// Waits (within [`STEP`]) until `shown` holds `n` notifications.
pub fn wait_notes(s: &Scenario, shown: &Mutex<Vec<String>>, n: usize) {
    let deadline = Instant::now() + STEP;
    while shown.lock().unwrap().len() < n {
        if Instant::now() >= deadline {
            s.fail(&format!(
                "expected {n} notification(s), got {:?}",
                shown.lock().unwrap()
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
