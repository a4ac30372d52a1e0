//! The typed client of the daemon's D-Bus interface `io.github.attend.Attend1`: one
//! `#[zbus::proxy]` ([`Attend1Proxy`], and [`Attend1ProxyBlocking`]) used by the `attend`
//! CLI, the panel, the benches and the tests. Every member is documented in
//! `docs/dbus-api.md`; the introspection is `data/io.github.attend.Attend1.xml`.
//!
//! This module is the stable path `attend::client`; it depends on zbus and
//! [`crate::config`] only (no daemon code, no GTK), so it is built with and without the
//! `gui` feature.
//!
//! ```no_run
//! # async fn f() -> zbus::Result<()> {
//! let conn = zbus::Connection::session().await?;
//! let attend = attend::client::Attend1Proxy::new(&conn).await?;
//! let panes = attend.list_panes().await?; // Vec<attend::client::wire::WirePane>
//! # Ok(()) }
//! ```
//!
//! Which runtime: [`Attend1Proxy`] runs on the caller's tokio runtime (the CLI's and the
//! panel's current-thread runtimes). [`Attend1ProxyBlocking`] runs on zbus's own runtime
//! (a tokio runtime zbus starts once per process): for blocking programs and tests only,
//! never from inside a tokio runtime, where it panics.

pub mod attach;
pub mod json;
pub mod needs;
pub mod overview;
mod proxy;
mod types;
pub mod wire;

pub use proxy::*;
pub use types::{Dict, EventTuple};

/// The short name of a named error of the daemon: `Some("NoSuchPane")` for
/// `io.github.attend.Attend1.Error.NoSuchPane` (the names are listed on
/// [`Attend1Proxy`]); `None` for every other failure (`org.freedesktop.DBus.Error.*`,
/// I/O, a reply of the wrong shape).
pub fn error_name(e: &zbus::Error) -> Option<&str> {
    match e {
        zbus::Error::MethodError(name, _, _) => name
            .as_str()
            .strip_prefix(crate::config::INTERFACE)
            .and_then(|rest| rest.strip_prefix(".Error.")),
        _ => None,
    }
}
