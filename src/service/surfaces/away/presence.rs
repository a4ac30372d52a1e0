//! Whether the user is at the desk (`docs/away.md#idle-sources`), from two sources,
//! watched through their signals (no polling):
//!
//! - `org.freedesktop.ScreenSaver` on the session bus: `GetActive`, then `ActiveChanged`;
//!   a service that appears later is asked when it appears (`NameOwnerChanged`).
//! - logind on the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket): the
//!   `LockedHint` and `IdleHint` properties of the user's session, then their
//!   `PropertiesChanged`. The session: `XDG_SESSION_ID` (`GetSession`), else the
//!   daemon's own (`GetSessionByPID`), else the user's display session (`GetUser`,
//!   `Display`).
//!
//! The user is away when any source says so (screensaver active, session locked or
//! idle); at the desk when a source answers and none does; the presence is unknown when
//! neither source answers, and then nothing is ever pushed.

use std::future::Future;
use std::time::Duration;
use tokio::sync::watch;
use zbus::export::futures_core::Stream;
use zbus::zvariant::OwnedObjectPath;

/// How long a call to a source may take.
const CALL_LIMIT: Duration = Duration::from_secs(5);

#[zbus::proxy(
    interface = "org.freedesktop.ScreenSaver",
    default_service = "org.freedesktop.ScreenSaver",
    default_path = "/org/freedesktop/ScreenSaver",
    gen_blocking = false
)]
trait ScreenSaver {
    fn get_active(&self) -> zbus::Result<bool>;

    #[zbus(signal)]
    fn active_changed(&self, active: bool) -> zbus::Result<()>;
}

#[zbus::proxy(
    interface = "org.freedesktop.login1.Manager",
    default_service = "org.freedesktop.login1",
    default_path = "/org/freedesktop/login1",
    gen_blocking = false
)]
trait Login1Manager {
    fn get_session(&self, session_id: &str) -> zbus::Result<OwnedObjectPath>;

    #[zbus(name = "GetSessionByPID")]
    fn get_session_by_pid(&self, pid: u32) -> zbus::Result<OwnedObjectPath>;

    fn get_user(&self, uid: u32) -> zbus::Result<OwnedObjectPath>;
}

#[zbus::proxy(
    interface = "org.freedesktop.login1.User",
    default_service = "org.freedesktop.login1",
    gen_blocking = false
)]
trait Login1User {
    #[zbus(property)]
    fn display(&self) -> zbus::Result<(String, OwnedObjectPath)>;
}

#[zbus::proxy(
    interface = "org.freedesktop.login1.Session",
    default_service = "org.freedesktop.login1",
    gen_blocking = false
)]
trait Login1Session {
    #[zbus(property)]
    fn locked_hint(&self) -> zbus::Result<bool>;

    #[zbus(property)]
    fn idle_hint(&self) -> zbus::Result<bool>;
}

/// What the sources say; `None`: that source does not answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sources {
    /// The screensaver is active.
    pub screensaver: Option<bool>,
    /// logind's `LockedHint` of the session.
    pub locked: Option<bool>,
    /// logind's `IdleHint` of the session.
    pub idle: Option<bool>,
    /// Both sources were asked once (so "unknown" is final until one appears).
    pub probed: bool,
}

impl Sources {
    /// `Some(true)` away, `Some(false)` at the desk, `None` unknown (no source answers).
    pub fn away(&self) -> Option<bool> {
        let all = [self.screensaver, self.locked, self.idle];
        if all.iter().all(Option::is_none) {
            return None;
        }
        Some(all.contains(&Some(true)))
    }

    /// Why away, for the log: `screensaver`, `locked`, `idle`, joined by `+`.
    pub fn reasons(&self) -> String {
        [
            (self.screensaver, "screensaver"),
            (self.locked, "locked"),
            (self.idle, "idle"),
        ]
        .iter()
        .filter(|(v, _)| *v == Some(true))
        .map(|(_, n)| *n)
        .collect::<Vec<_>>()
        .join("+")
    }
}

fn next<S: Stream + Unpin>(s: &mut S) -> impl Future<Output = Option<S::Item>> + '_ {
    std::future::poll_fn(move |cx| std::pin::Pin::new(&mut *s).poll_next(cx))
}

async fn limited<T>(f: impl Future<Output = zbus::Result<T>>) -> Option<T> {
    tokio::time::timeout(CALL_LIMIT, f).await.ok()?.ok()
}

/// Watches both sources on `session` (the daemon's session-bus connection) and the
/// system bus, publishing what they say on `tx` until the daemon stops.
pub async fn watch(session: zbus::Connection, tx: watch::Sender<Sources>) {
    let (probed_tx, probed_rx) = tokio::sync::oneshot::channel();
    let logind_tx = tx.clone();
    tokio::spawn(async move { logind(logind_tx, probed_tx).await });
    screensaver(session, tx, probed_rx).await;
}

async fn screensaver(
    conn: zbus::Connection,
    tx: watch::Sender<Sources>,
    logind_probed: tokio::sync::oneshot::Receiver<()>,
) {
    let subscribed = async {
        let proxy = ScreenSaverProxy::builder(&conn)
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await?;
        let changes = proxy.receive_active_changed().await?;
        let dbus = zbus::fdo::DBusProxy::new(&conn).await?;
        let owners = dbus
            .receive_name_owner_changed_with_args(&[(0, "org.freedesktop.ScreenSaver")])
            .await?;
        Ok::<_, zbus::Error>((proxy, changes, owners))
    };
    let (proxy, mut changes, mut owners) = match subscribed.await {
        Ok(x) => x,
        Err(e) => {
            tracing::info!("away: cannot watch org.freedesktop.ScreenSaver: {e}");
            let _ = logind_probed.await;
            tx.send_modify(|s| s.probed = true);
            return;
        }
    };
    let active = limited(proxy.get_active()).await;
    match active {
        Some(a) => tracing::info!(active = a, "away: org.freedesktop.ScreenSaver answers"),
        None => tracing::info!("away: no org.freedesktop.ScreenSaver on the session bus"),
    }
    tx.send_modify(|s| s.screensaver = active);
    let _ = logind_probed.await;
    tx.send_modify(|s| s.probed = true);
    loop {
        tokio::select! {
            Some(sig) = next(&mut changes) => {
                if let Ok(a) = sig.args() {
                    let active = *a.active();
                    tracing::debug!(active, "away: ActiveChanged");
                    tx.send_modify(|s| s.screensaver = Some(active));
                }
            }
            Some(sig) = next(&mut owners) => {
                let Ok(a) = sig.args() else { continue };
                let active = match a.new_owner.as_ref() {
                    Some(_) => limited(proxy.get_active()).await,
                    None => None,
                };
                tracing::info!(?active, "away: org.freedesktop.ScreenSaver changed owner");
                tx.send_modify(|s| s.screensaver = active);
            }
            else => return,
        }
    }
}

/// The object path of the user's logind session (see the module doc).
async fn session_path(conn: &zbus::Connection) -> Option<OwnedObjectPath> {
    let manager = Login1ManagerProxy::new(conn).await.ok()?;
    if let Some(id) = std::env::var("XDG_SESSION_ID")
        .ok()
        .filter(|s| !s.is_empty())
    {
        if let Some(p) = limited(manager.get_session(&id)).await {
            return Some(p);
        }
    }
    if let Some(p) = limited(manager.get_session_by_pid(std::process::id())).await {
        return Some(p);
    }
    let user = limited(manager.get_user(nix::unistd::getuid().as_raw())).await?;
    let user = Login1UserProxy::builder(conn)
        .path(user)
        .ok()?
        .build()
        .await
        .ok()?;
    let (_, path) = limited(user.display()).await?;
    (path.as_str() != "/").then_some(path)
}

async fn logind(tx: watch::Sender<Sources>, probed: tokio::sync::oneshot::Sender<()>) {
    let found = async {
        let conn = limited(zbus::Connection::system()).await?;
        let path = session_path(&conn).await?;
        let session = Login1SessionProxy::builder(&conn)
            .path(path.clone())
            .ok()?
            .build()
            .await
            .ok()?;
        Some((conn, path, session))
    };
    let Some((_conn, path, session)) = found.await else {
        tracing::info!("away: no logind session on the system bus");
        let _ = probed.send(());
        return;
    };
    let mut locked = session.receive_locked_hint_changed().await;
    let mut idle = session.receive_idle_hint_changed().await;
    let mut owner = session.inner().receive_owner_changed().await.ok();
    let read = |session: &Login1SessionProxy<'static>| {
        let session = session.clone();
        async move {
            (
                limited(session.locked_hint()).await,
                limited(session.idle_hint()).await,
            )
        }
    };
    let (l, i) = read(&session).await;
    tracing::info!(session = %path.as_str(), locked = ?l, idle = ?i, "away: logind session");
    tx.send_modify(|s| {
        s.locked = l;
        s.idle = i;
    });
    let _ = probed.send(());
    loop {
        tokio::select! {
            Some(c) = next(&mut locked) => {
                if let Ok(v) = c.get().await {
                    tracing::debug!(locked = v, "away: LockedHint changed");
                    tx.send_modify(|s| s.locked = Some(v));
                }
            }
            Some(c) = next(&mut idle) => {
                if let Ok(v) = c.get().await {
                    tracing::debug!(idle = v, "away: IdleHint changed");
                    tx.send_modify(|s| s.idle = Some(v));
                }
            }
            Some(o) = async { match owner.as_mut() { Some(o) => next(o).await, None => None } } => {
                let (l, i) = if o.is_some() { read(&session).await } else { (None, None) };
                tracing::info!(locked = ?l, idle = ?i, "away: logind changed owner");
                tx.send_modify(|s| {
                    s.locked = l;
                    s.idle = i;
                });
            }
            else => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_source_saying_away_is_away_none_answering_is_unknown() {
        let mut s = Sources::default();
        assert_eq!(s.away(), None);
        s.idle = Some(false);
        assert_eq!(s.away(), Some(false));
        s.screensaver = Some(true);
        assert_eq!(s.away(), Some(true));
        assert_eq!(s.reasons(), "screensaver");
        s.locked = Some(true);
        assert_eq!(s.reasons(), "screensaver+locked");
    }
}
