//! The methods of the D-Bus interface that name a pane of this machine (`pN`) or of a
//! remote host (`NAME:pN`, ADR 0013): `MarkSeen`, `Focus`, `SetFocused`, `Answer`,
//! `SendInput`, `Kill` and `GetPane` (`docs/remote.md#how-remote-panes-are-mirrored`,
//! "Actions on remote panes"). A local pane goes to the owner task; a remote one to its
//! host's daemon over the link ([`Remotes::act`]).
//!
//! A focus held with `SetFocused(pane, true)` belongs to the bus client that set it: when
//! that client leaves the bus (its unique name's `NameOwnerChanged`) before it set the
//! focus back, the focus ends as if it had (`docs/dbus-api.md#methods`). A link is such a
//! client on the remote's bus, so a focus held over a link ends there when the link drops.

use crate::adapters::mirror::Refusal;
use crate::client::wire::WirePane;
use crate::model::{Action, PaneRef};
use crate::service::bus::error::Attend1Error;
use crate::service::command::{ask, Command};
use crate::service::remotes::act::RemoteCall;
use crate::service::remotes::Remotes;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::mpsc;

/// Where the pane actions go: the owner task for local panes, the links for remote ones;
/// and which bus client holds which pane's focus (cheap to clone).
#[derive(Clone)]
pub struct Router {
    tx: mpsc::Sender<Command>,
    remotes: Remotes,
    /// Pane → the unique bus name of the client whose `SetFocused(pane, true)` holds it.
    holders: Arc<Mutex<BTreeMap<PaneRef, String>>>,
    /// Unique bus name → one sender per call of that client waiting on it
    /// ([`Router::until_gone`]): each is sent to when the client leaves the bus.
    waiting: Arc<Mutex<BTreeMap<String, Vec<tokio::sync::oneshot::Sender<()>>>>>,
}

impl Router {
    /// A router sending local actions to `tx` and remote ones through `remotes`.
    pub fn new(tx: mpsc::Sender<Command>, remotes: Remotes) -> Router {
        Router {
            tx,
            remotes,
            holders: Arc::default(),
            waiting: Arc::default(),
        }
    }

    /// Carries out `call` on `target`; answers once it is committed (here, or by the
    /// remote daemon). Errors: the owner task's (`NoSuchPane`, `NoDecision`, …) for a
    /// local pane; [`Remotes::act`]'s (`NoSuchHost`, `HostOffline`, the remote's own)
    /// for a remote one.
    pub async fn act(&self, target: &PaneRef, call: RemoteCall) -> Result<(), Attend1Error> {
        if target.host.is_some() {
            return self.remotes.act(target, call).await;
        }
        let id = target.pane;
        match call {
            RemoteCall::MarkSeen => ask(&self.tx, |r| Command::Act(id, Action::MarkSeen, r)).await,
            RemoteCall::Focus => ask(&self.tx, |r| Command::Focus(id, r)).await.map(|_| ()),
            RemoteCall::SetFocused(focused) => {
                let action = if focused {
                    Action::Focus
                } else {
                    Action::Unfocus
                };
                ask(&self.tx, |r| Command::Act(id, action, r)).await
            }
            RemoteCall::Answer(choice) => ask(&self.tx, |r| Command::Answer(id, choice, r)).await,
            RemoteCall::SendInput(data) => ask(&self.tx, |r| Command::SendInput(id, data, r)).await,
            RemoteCall::Kill(signal) => ask(&self.tx, |r| Command::Kill(id, signal, r)).await,
        }
    }

    /// `SetFocused(target, focused)` from the bus client `client` (its unique name; `None`
    /// for a peer connection): with `focused`, the focus is that client's until it sets
    /// it back or leaves the bus; `conn` is asked whether it is still there once the focus
    /// is set (it may have left meanwhile).
    pub async fn set_focused(
        &self,
        conn: &zbus::Connection,
        client: Option<String>,
        target: &PaneRef,
        focused: bool,
    ) -> Result<(), Attend1Error> {
        {
            let mut holders = self.lock();
            match (&client, focused) {
                (Some(c), true) => holders.insert(target.clone(), c.clone()),
                _ => holders.remove(target),
            };
        }
        self.act(target, RemoteCall::SetFocused(focused)).await?;
        if let (Some(c), true) = (client, focused) {
            if !still_on_bus(conn, &c).await {
                self.left(&c).await;
            }
        }
        Ok(())
    }

    /// The dictionary of `target`: `GetPane` for a local pane, the mirrored pane's
    /// (`docs/dbus-api.md#remote-pane`) for a remote one. Errors: `NoSuchPane`,
    /// `NoSuchHost` (a host that is not configured, as for actions).
    pub async fn get_pane(&self, target: &PaneRef) -> Result<WirePane, Attend1Error> {
        let Some(host) = &target.host else {
            let id = target.pane;
            return ask(&self.tx, |r| Command::GetPane(id, r)).await;
        };
        if !self.remotes.configured(host) {
            return Err(Refusal::UnknownHost { host: host.clone() }.into());
        }
        self.remotes
            .panes(Some(host))
            .iter()
            .find(|p| p.id == *target)
            .map(crate::client::wire::remote_pane)
            .ok_or_else(|| Attend1Error::no_such_pane(&target.to_string()))
    }

    /// Returns once the bus client `client` (a unique name) has left the bus of `conn`:
    /// a call that holds its caller (`AwaitGate`) stops waiting for a caller that is gone
    /// (its process ended, or its agent killed the hook run). Never returns for `None` or
    /// while the client stays.
    pub async fn until_gone(&self, conn: &zbus::Connection, client: Option<String>) {
        let Some(client) = client else {
            return std::future::pending().await;
        };
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(client.clone())
            .or_default()
            .push(tx);
        // It may have left before the entry was made.
        if !still_on_bus(conn, &client).await {
            return;
        }
        if rx.await.is_err() {
            std::future::pending::<()>().await;
        }
    }

    /// The bus client `client` left: every focus it held ends (errors logged: a pane
    /// removed meanwhile, a link down), and every call waiting on it is told.
    async fn left(&self, client: &str) {
        let waiting = self
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(client);
        for tx in waiting.into_iter().flatten() {
            let _ = tx.send(());
        }
        let panes: Vec<PaneRef> = {
            let mut holders = self.lock();
            let panes = holders
                .iter()
                .filter(|(_, c)| *c == client)
                .map(|(p, _)| p.clone())
                .collect::<Vec<_>>();
            for p in &panes {
                holders.remove(p);
            }
            panes
        };
        for pane in panes {
            tracing::info!(%pane, client, "the client holding the focus left: unfocused");
            if let Err(e) = self.act(&pane, RemoteCall::SetFocused(false)).await {
                tracing::warn!(%pane, error = %e, "cannot end the focus of a client that left");
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<PaneRef, String>> {
        self.holders.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Whether the unique name `client` is still on the bus of `conn` (an error counts as
/// still there: nothing is undone on a doubt).
async fn still_on_bus(conn: &zbus::Connection, client: &str) -> bool {
    let Ok(name) = zbus::names::BusName::try_from(client) else {
        return true;
    };
    match zbus::fdo::DBusProxy::new(conn).await {
        Ok(bus) => bus.name_has_owner(name).await.unwrap_or(true),
        Err(_) => true,
    }
}

/// Ends the focus held by each bus client that leaves the bus of `conn`, until the
/// connection closes: one subscription to the bus's `NameOwnerChanged` of names that lose
/// their owner (no timer; a client's leaving is the only wake-up).
pub async fn watch_clients(conn: zbus::Connection, router: Router) {
    use zbus::export::futures_core::Stream;
    let rule = zbus::MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .sender("org.freedesktop.DBus")
        .and_then(|b| b.interface("org.freedesktop.DBus"))
        .and_then(|b| b.member("NameOwnerChanged"))
        .and_then(|b| b.arg(2, ""))
        .map(|b| b.build());
    let stream = match rule {
        Ok(rule) => zbus::MessageStream::for_match_rule(rule, &conn, Some(64)).await,
        Err(e) => Err(e),
    };
    let mut stream = match stream {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "cannot watch bus clients: a held focus stays when its client leaves");
            return;
        }
    };
    loop {
        let next = std::future::poll_fn(|cx| std::pin::Pin::new(&mut stream).poll_next(cx));
        let msg = match next.await {
            None => return,
            Some(Err(_)) => continue,
            Some(Ok(msg)) => msg,
        };
        let Ok((name, _, new)) = msg.body().deserialize::<(String, String, String)>() else {
            continue;
        };
        if new.is_empty() && name.starts_with(':') {
            router.left(&name).await;
        }
    }
}
