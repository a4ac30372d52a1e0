//! A transient systemd scope per pane holder (`docs/decisions/0009-pane-holders.md`):
//! where a systemd user manager runs, each holder leaves the daemon's cgroup for a scope
//! of its own (`StartTransientUnit` on `org.freedesktop.systemd1`), so stopping or
//! restarting the service's unit — whatever its `KillMode` — never reaches an agent.
//! Without a user manager (a container, an SSH login, CI) holders stay where they were
//! started: detached by `setsid` and a double fork, in the daemon's cgroup.

use crate::model::PaneId;
use zbus::zvariant::Value;

const SYSTEMD: &str = "org.freedesktop.systemd1";

/// The user manager, when one answers on the session bus.
#[derive(Debug, Clone)]
pub struct Scopes {
    conn: zbus::Connection,
}

impl Scopes {
    /// `Some` when `org.freedesktop.systemd1` has an owner on `conn`'s bus.
    pub async fn detect(conn: &zbus::Connection) -> Option<Scopes> {
        let dbus = zbus::fdo::DBusProxy::new(conn).await.ok()?;
        let name = zbus::names::BusName::try_from(SYSTEMD).ok()?;
        dbus.name_has_owner(name)
            .await
            .ok()?
            .then(|| Scopes { conn: conn.clone() })
    }

    /// Moves `pid` (a holder that has not started its program yet, so the program is
    /// born in the scope) into `attend-<pane>-<pid>.scope`. Blocks the calling thread
    /// (tokio's `block_in_place`; on a current-thread runtime it does nothing). Failures
    /// are logged: the holder then stays in the daemon's cgroup.
    pub fn adopt(&self, pid: u32, pane: PaneId) {
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if handle.runtime_flavor() != tokio::runtime::RuntimeFlavor::MultiThread {
            return;
        }
        let unit = format!("attend-{pane}-{pid}.scope");
        let call = async {
            let props: Vec<(&str, Value<'_>)> = vec![
                ("Description", Value::from(format!("Attend pane {pane}"))),
                ("PIDs", Value::from(vec![pid])),
                ("CollectMode", Value::from("inactive-or-failed")),
            ];
            let aux: Vec<(&str, Vec<(&str, Value<'_>)>)> = Vec::new();
            self.conn
                .call_method(
                    Some(SYSTEMD),
                    "/org/freedesktop/systemd1",
                    Some("org.freedesktop.systemd1.Manager"),
                    "StartTransientUnit",
                    &(unit.as_str(), "fail", props, aux),
                )
                .await
        };
        let limit = std::time::Duration::from_secs(2);
        let result = tokio::task::block_in_place(|| {
            handle.block_on(async { tokio::time::timeout(limit, call).await })
        });
        match result {
            Ok(Ok(_)) => tracing::debug!(%pane, pid, unit, "holder moved into its own scope"),
            Ok(Err(e)) => tracing::warn!(%pane, pid, "cannot give the holder a scope: {e}"),
            Err(_) => tracing::warn!(%pane, pid, "the user manager did not answer in time"),
        }
    }
}
