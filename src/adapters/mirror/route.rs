//! Where an action on a pane goes, and which mirrored panes the tray, `next` and
//! notifications count (`docs/remote.md#how-remote-panes-are-mirrored`, "Offline hosts"
//! and "Actions on remote panes").

use super::host::Link;
use super::pane::MirroredPane;
use crate::engine::{next_rank, NextRank};
use crate::model::{Attention, HostName, Pane, PaneId, PaneRef, Timestamp};
use std::fmt;

/// An action a person takes on a pane from any surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaneAction {
    Seen,
    Focus,
    Answer,
    Send,
    Kill,
}

impl PaneAction {
    /// The CLI verb (`seen`, `focus`, `answer`, `send`, `kill`).
    pub fn as_str(self) -> &'static str {
        match self {
            PaneAction::Seen => "seen",
            PaneAction::Focus => "focus",
            PaneAction::Answer => "answer",
            PaneAction::Send => "send",
            PaneAction::Kill => "kill",
        }
    }
}

/// Which daemon carries out an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// This machine's daemon, for its pane.
    Local(PaneId),
    /// The host's daemon, for its pane `pane` (its own id, without the host).
    Remote { host: HostName, pane: PaneId },
}

/// An action refused at once, never queued: a queued `seen` would clear attention raised
/// after it, a queued answer could hit a later dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No remote of that name is configured.
    UnknownHost { host: HostName },
    /// The host is offline.
    Offline {
        host: HostName,
        action: PaneAction,
        since: Timestamp,
        error: Option<String>,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::UnknownHost { host } => {
                write!(f, "no remote host named {host} (see `attend remote ls`)")
            }
            Refusal::Offline {
                host,
                action,
                since,
                error,
            } => {
                write!(
                    f,
                    "{host} is offline since {}{}: `{}` was not sent (actions on a remote \
                     pane are never queued); try again when it is connected",
                    since.to_rfc3339(),
                    error
                        .as_deref()
                        .map(|e| format!(" ({e})"))
                        .unwrap_or_default(),
                    action.as_str()
                )
            }
        }
    }
}

/// Routes `action` on `target`: a local pane to the local daemon; a remote pane to its
/// host's daemon while `link` (the host's link, `None` when no such remote is
/// configured) is up, else refused.
pub fn route(target: &PaneRef, action: PaneAction, link: Option<&Link>) -> Result<Route, Refusal> {
    let Some(host) = &target.host else {
        return Ok(Route::Local(target.pane));
    };
    match link {
        None => Err(Refusal::UnknownHost { host: host.clone() }),
        Some(Link::Offline { since, error }) => Err(Refusal::Offline {
            host: host.clone(),
            action,
            since: *since,
            error: error.clone(),
        }),
        Some(Link::Connected { .. }) => Ok(Route::Remote {
            host: host.clone(),
            pane: target.pane,
        }),
    }
}

/// The attention a mirrored pane adds to the tray's status and counts: its known level
/// while its host is online; `None` offline, at `none`, or for a level the local side
/// does not know (it cannot be ranked).
pub fn tray_attention(p: &MirroredPane) -> Option<Attention> {
    p.known_attention()
        .filter(|a| !p.offline && *a > Attention::None)
}

/// The order key of `next` ([`crate::engine::next_rank`], then the id), shared by local
/// and mirrored panes so one sort merges them; ties between equal ranks put local panes
/// (no host) first.
pub type NextKey = (NextRank, PaneRef);

/// A mirrored pane's `next` key; `None` when it is no candidate (host offline, focused,
/// attention `none` or unknown).
pub fn next_key(p: &MirroredPane) -> Option<NextKey> {
    let rank = next_rank(tray_attention(p)?, p.attention_changed_at, p.focused)?;
    Some((rank, p.id.clone()))
}

/// A local pane's `next` key: [`crate::engine::next_rank`]'s rule, as
/// [`crate::engine::next_unread_order`] orders local panes.
pub fn local_next_key(p: &Pane) -> Option<NextKey> {
    let rank = next_rank(p.attention(), p.attention_changed_at, p.focused)?;
    Some((
        rank,
        PaneRef {
            host: None,
            pane: p.id,
        },
    ))
}

/// The panes `next` visits, in order, local and mirrored together.
pub fn next_order<'a>(
    local: impl IntoIterator<Item = &'a Pane>,
    mirrored: impl IntoIterator<Item = &'a MirroredPane>,
) -> Vec<PaneRef> {
    let mut keys: Vec<NextKey> = local
        .into_iter()
        .filter_map(local_next_key)
        .chain(mirrored.into_iter().filter_map(next_key))
        .collect();
    keys.sort();
    keys.into_iter().map(|k| k.1).collect()
}

#[cfg(test)]
mod tests {
    use super::super::pane::tests::view;
    use super::*;
    use crate::model::AgentKind;

    fn host() -> HostName {
        HostName::parse("buildbox").unwrap()
    }

    fn mirrored(id: &str, attention: &str, at: i64) -> MirroredPane {
        let mut v = view(id, attention, "working");
        v.attention_changed_at = Some(at);
        crate::client::wire::mirrored(&host(), &v).unwrap()
    }

    #[test]
    fn local_panes_go_local_remote_ones_to_their_host_while_it_is_up() {
        let up = Link::Connected {
            since: Timestamp(0),
        };
        let down = Link::Offline {
            since: Timestamp(0),
            error: Some("connection refused".into()),
        };
        let local = PaneRef::parse("p3").unwrap();
        let remote = PaneRef::parse("buildbox:p3").unwrap();
        for action in [
            PaneAction::Seen,
            PaneAction::Focus,
            PaneAction::Answer,
            PaneAction::Send,
            PaneAction::Kill,
        ] {
            assert_eq!(
                route(&local, action, Some(&down)),
                Ok(Route::Local(PaneId(3)))
            );
            assert_eq!(
                route(&remote, action, Some(&up)),
                Ok(Route::Remote {
                    host: host(),
                    pane: PaneId(3)
                })
            );
            let refused = route(&remote, action, Some(&down)).unwrap_err();
            let msg = refused.to_string();
            assert!(
                msg.starts_with("buildbox is offline since 1970-01-01T00:00:00.000Z")
                    && msg.contains("(connection refused)")
                    && msg.contains(&format!("`{}` was not sent", action.as_str()))
                    && msg.contains("never queued"),
                "{msg}"
            );
            assert_eq!(
                route(&remote, action, None),
                Err(Refusal::UnknownHost { host: host() })
            );
        }
    }

    #[test]
    fn offline_focused_quiet_and_unknown_panes_are_left_out() {
        let p = mirrored("p1", "error", 1);
        assert_eq!(tray_attention(&p), Some(Attention::Error));
        assert!(next_key(&p).is_some());
        let mut off = p.clone();
        off.offline = true;
        assert_eq!(tray_attention(&off), None);
        assert_eq!(next_key(&off), None);
        let mut focused = p.clone();
        focused.focused = true;
        assert_eq!(tray_attention(&focused), Some(Attention::Error));
        assert_eq!(next_key(&focused), None);
        assert_eq!(tray_attention(&mirrored("p2", "none", 1)), None);
        assert_eq!(tray_attention(&mirrored("p2", "alarm", 1)), None);
    }

    #[test]
    fn next_merges_local_and_remote_by_severity_recency_and_id() {
        let mut local = Pane::new(
            PaneId(1),
            "/w",
            "main",
            "n",
            AgentKind::Claude,
            Timestamp(0),
        );
        local.items.push(crate::model::AttentionItem {
            level: Attention::Warning,
            source: crate::model::Source::user(),
            at: Timestamp(5),
            decision: None,
        });
        local.attention_changed_at = Some(Timestamp(5));
        let a = mirrored("p1", "warning", 9);
        let b = mirrored("p2", "error", 1);
        let c = mirrored("p3", "warning", 5);
        let mut off = mirrored("p4", "error", 99);
        off.offline = true;
        let order: Vec<String> = next_order([&local], [&a, &b, &c, &off])
            .iter()
            .map(|r| r.to_string())
            .collect();
        assert_eq!(order, ["buildbox:p2", "buildbox:p1", "p1", "buildbox:p3"]);
    }
}
