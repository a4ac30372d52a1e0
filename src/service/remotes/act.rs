//! Actions on remote panes (`docs/remote.md#how-remote-panes-are-mirrored`, "Actions on
//! remote panes"): `seen`, `focus`, `answer`, `send` and `kill` on `NAME:pN` are carried
//! out by the host's own daemon, over the link's connection, on its pane `pN`. The remote
//! daemon stays the owner of its panes' state. While the host is offline the action is
//! refused at once (never queued); where it goes is the pure rule
//! [`crate::adapters::mirror::route`].

use super::Remotes;
use crate::adapters::mirror::{route, PaneAction, Refusal, Route};
use crate::client::Attend1Proxy;
use crate::model::PaneRef;
use crate::service::bus::error::Attend1Error;

/// One action on a remote pane, as the remote daemon's method takes it
/// (`docs/dbus-api.md#methods`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteCall {
    /// `MarkSeen(pane)`.
    MarkSeen,
    /// `Focus(pane)`.
    Focus,
    /// `SetFocused(pane, focused)`.
    SetFocused(bool),
    /// `Answer(pane, choice)`.
    Answer(String),
    /// `SendInput(pane, data)`: bytes typed into the pane.
    SendInput(Vec<u8>),
    /// `Kill(pane, signal)`: a signal number.
    Kill(i32),
}

impl RemoteCall {
    /// The action as the routing rule names it.
    pub fn action(&self) -> PaneAction {
        match self {
            RemoteCall::MarkSeen => PaneAction::Seen,
            RemoteCall::Focus | RemoteCall::SetFocused(_) => PaneAction::Focus,
            RemoteCall::Answer(_) => PaneAction::Answer,
            RemoteCall::SendInput(_) => PaneAction::Send,
            RemoteCall::Kill(_) => PaneAction::Kill,
        }
    }
}

impl From<Refusal> for Attend1Error {
    fn from(r: Refusal) -> Attend1Error {
        match r {
            Refusal::UnknownHost { .. } => Attend1Error::NoSuchHost(r.to_string()),
            Refusal::Offline { .. } => Attend1Error::HostOffline(r.to_string()),
        }
    }
}

/// The remote daemon's error as this interface's: the same name when this side knows it
/// (`NoSuchPane`, `NoDecision`, `DialogUnreadable`, …; the message says which host),
/// else `Internal`; a failed connection is `HostOffline`.
pub fn remote_error(target: &PaneRef, e: zbus::Error) -> Attend1Error {
    let host = target.host.as_ref().map(|h| h.as_str()).unwrap_or("-");
    match &e {
        zbus::Error::MethodError(name, msg, _) => {
            let msg = format!("{host}: {}", msg.as_deref().unwrap_or(name.as_str()));
            let msg = crate::adapters::mirror::vocab::line(&msg, 512);
            match name.as_str().rsplit('.').next().unwrap_or("") {
                "NoSuchPane" => Attend1Error::NoSuchPane(msg),
                "NoDecision" => Attend1Error::NoDecision(msg),
                "NotOwned" => Attend1Error::NotOwned(msg),
                "InvalidArgument" => Attend1Error::InvalidArgument(msg),
                "DialogUnreadable" => Attend1Error::DialogUnreadable(msg),
                "PaneInMode" => Attend1Error::PaneInMode(msg),
                _ => Attend1Error::Internal(msg),
            }
        }
        _ => Attend1Error::HostOffline(format!("{host}: the link failed: {e}")),
    }
}

impl Remotes {
    /// Carries out `call` on the remote pane `target` (`NAME:pN`) through its host's
    /// link; answers when the remote daemon answered.
    ///
    /// Errors: `NoSuchHost` (no remote of that name), `HostOffline` (the link is down;
    /// nothing was sent), the remote daemon's own error ([`remote_error`]). A local
    /// `target` (no host) is `InvalidArgument`: local panes go to the owner task.
    pub async fn act(&self, target: &PaneRef, call: RemoteCall) -> Result<(), Attend1Error> {
        let (pane, conn) = {
            let table = self.lock();
            let entry = target.host.as_ref().and_then(|h| table.entries.get(h));
            let routed = route(target, call.action(), entry.map(|e| e.mirror.link()))?;
            let Route::Remote { pane, .. } = routed else {
                return Err(Attend1Error::InvalidArgument(format!(
                    "{target} is not a remote pane"
                )));
            };
            // The mirror says connected only while its task holds the connection.
            match entry.and_then(|e| e.conn.clone()) {
                Some(conn) => (pane, conn),
                None => {
                    return Err(Attend1Error::HostOffline(format!(
                        "{target}: the link is not up: `{}` was not sent",
                        call.action().as_str()
                    )))
                }
            }
        };
        let proxy = Attend1Proxy::builder(&conn)
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await
            .map_err(|e| remote_error(target, e))?;
        let pane = pane.to_string();
        let done = match call {
            RemoteCall::MarkSeen => proxy.mark_seen(&pane).await,
            RemoteCall::Focus => proxy.focus(&pane).await,
            RemoteCall::SetFocused(focused) => proxy.set_focused(&pane, focused).await,
            RemoteCall::Answer(choice) => proxy.answer(&pane, &choice).await,
            RemoteCall::SendInput(data) => proxy.send_input(&pane, &data).await,
            RemoteCall::Kill(signal) => proxy.kill(&pane, signal).await,
        };
        done.map_err(|e| remote_error(target, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_call_is_routed_as_its_action() {
        assert_eq!(RemoteCall::MarkSeen.action(), PaneAction::Seen);
        assert_eq!(RemoteCall::SetFocused(false).action(), PaneAction::Focus);
        assert_eq!(RemoteCall::Answer("y".into()).action(), PaneAction::Answer);
        assert_eq!(RemoteCall::SendInput(vec![1]).action(), PaneAction::Send);
        assert_eq!(RemoteCall::Kill(15).action(), PaneAction::Kill);
    }

    #[tokio::test]
    async fn an_unknown_host_is_refused_without_a_link() {
        let remotes = Remotes::new();
        let target = PaneRef::parse("nohost:p3").expect("a remote pane id");
        let e = remotes
            .act(&target, RemoteCall::MarkSeen)
            .await
            .unwrap_err();
        assert!(
            matches!(&e, Attend1Error::NoSuchHost(m) if m.contains("nohost")),
            "{e:?}"
        );
    }

    #[test]
    fn the_remote_daemons_errors_keep_their_names_and_say_which_host() {
        let target = PaneRef::parse("buildbox:p3").expect("a remote pane id");
        let e = zbus::Error::MethodError(
            zbus::names::OwnedErrorName::try_from("io.github.attend.Attend1.Error.NoDecision")
                .expect("an error name"),
            Some("p3 has no open decision\x1b[31m".into()),
            zbus::message::Message::method_call("/", "x")
                .expect("a builder")
                .build(&())
                .expect("a message"),
        );
        match remote_error(&target, e) {
            Attend1Error::NoDecision(m) => {
                assert!(m.starts_with("buildbox: p3 has no open decision"), "{m}");
                assert!(!m.contains('\x1b'), "{m:?}");
            }
            other => panic!("{other:?}"),
        }
    }
}
