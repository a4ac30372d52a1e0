//! The mirror of one remote host: its panes, the last remote seq applied, its link, and
//! the effects the daemon's shell carries out (`docs/remote.md#how-remote-panes-are-mirrored`).
//!
//! Pure: the shell owns the connection and the clock. It feeds
//! [`HostMirror::link_up`] (after it subscribed to the remote's `Event`),
//! [`HostMirror::snapshot`] (`ListPanes`), [`HostMirror::event`] (a signal or a catch-up
//! entry), [`HostMirror::page_done`] (after each `Events` page), [`HostMirror::refreshed`]
//! (`GetPane`) and [`HostMirror::link_down`], and carries out the [`Effect`]s each returns,
//! in order.

use super::pane::{MirroredPane, Touch};
use super::vocab::{self, MAX_ERROR, MAX_PANES_PER_HOST};
use crate::model::{Attention, HostName, PaneId, PaneRef, Timestamp};
use std::collections::BTreeMap;

/// Longest event kind kept, in bytes (the local kinds are under 24).
pub const MAX_KIND: usize = 64;

/// The state of the link to a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    /// Connected and subscribed since `since`.
    Connected { since: Timestamp },
    /// Not connected since `since` (never connected yet: since the mirror was made);
    /// `error` is the last failure, cleaned to one line of at most [`MAX_ERROR`] bytes.
    Offline {
        since: Timestamp,
        error: Option<String>,
    },
}

impl Link {
    /// True while connected.
    pub fn is_up(&self) -> bool {
        matches!(self, Link::Connected { .. })
    }
}

/// Where a remote event came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The remote's `Event` signal.
    Signal,
    /// An entry of an `Events(after_seq, limit)` page.
    CatchUp,
}

/// One remote event as the shell received it; `data` is the event data dictionary as
/// JSON ([`crate::client::json::dict_json`]).
#[derive(Debug, Clone, Copy)]
pub struct RemoteEvent<'a> {
    pub seq: u64,
    pub kind: &'a str,
    /// The remote's pane id (`pN`).
    pub pane: &'a str,
    pub data: &'a serde_json::Value,
    pub origin: Origin,
}

/// What to do with a remote event's seq, given the last one applied
/// ("Following the log" of `docs/dbus-api.md`, per host).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeqStep {
    /// At or below the last seq: already applied, dropped.
    Duplicate,
    /// The next event: applied.
    Apply,
    /// A signal further ahead: events were missed; not applied, a catch-up from the last
    /// seq reads it.
    Gap,
}

/// The seq rule: a catch-up entry is applied when above `last` (the log may skip
/// numbers); a signal only when it is `last + 1`.
pub fn seq_step(last: u64, seq: u64, origin: Origin) -> SeqStep {
    if seq <= last {
        SeqStep::Duplicate
    } else if origin == Origin::CatchUp || seq == last + 1 {
        SeqStep::Apply
    } else {
        SeqStep::Gap
    }
}

/// What the shell does, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Call `ListPanes` and pass the panes to [`HostMirror::snapshot`].
    Snapshot,
    /// Call `Events(after, PAGE)`, feed each entry ([`Origin::CatchUp`]), then call
    /// [`HostMirror::page_done`].
    CatchUp { after: u64 },
    /// Call `GetPane(pane)` and pass it to [`HostMirror::refreshed`] (a pane the mirror
    /// does not hold, or an event that carries no state).
    Refresh { pane: PaneId },
    /// Write the remote event into the local event log with its host and remote seq,
    /// and persist `remote_seq` as the host's last seq in the same transaction.
    Stamp {
        remote_seq: u64,
        /// Cleaned, at most [`MAX_KIND`] bytes.
        kind: String,
        /// `NAME:pN`; `None` when the remote sent no valid pane id.
        pane: Option<PaneRef>,
        /// Cleaned and bounded ([`vocab::event_data`]).
        data: serde_json::Value,
    },
    /// Raise a notification for the pane at `level` (bound to the remote decision `decision`
    /// for a required level). The text is the mirrored pane's.
    Notify {
        pane: PaneRef,
        level: Attention,
        decision: Option<u64>,
    },
    /// Close the pane's notification.
    Withdraw { pane: PaneRef },
    /// Remote input was dropped (over a bound, malformed); one line for the log and
    /// `attend remote ls`.
    Dropped { reason: String },
}

/// Which attention levels raise a notification (the settings' levels).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotifyRules {
    pub levels: Vec<Attention>,
}

/// Attention to announce once the host is live: the highest level raised, and whether a
/// completion came with it (an `unread` is announced only with one, as locally).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Owed {
    level: Attention,
    done: bool,
}

/// A notification shown for a pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Announced {
    level: Attention,
    decision: Option<u64>,
}

/// The mirror of one remote host.
#[derive(Debug, Clone)]
pub struct HostMirror {
    host: HostName,
    last_seq: u64,
    link: Link,
    rules: NotifyRules,
    panes: BTreeMap<PaneId, MirroredPane>,
    /// A catch-up is under way: notifications wait for its end.
    catching_up: bool,
    /// A signal showed a gap during the catch-up: read once more at its end.
    gap_pending: bool,
    owed: BTreeMap<PaneId, Owed>,
    announced: BTreeMap<PaneId, Announced>,
}

impl HostMirror {
    /// A mirror of `host`, offline since `now`, that continues after the persisted
    /// `last_seq` (0: from the start of the remote's log).
    pub fn new(host: HostName, last_seq: u64, rules: NotifyRules, now: Timestamp) -> HostMirror {
        HostMirror {
            host,
            last_seq,
            link: Link::Offline {
                since: now,
                error: None,
            },
            rules,
            panes: BTreeMap::new(),
            catching_up: false,
            gap_pending: false,
            owed: BTreeMap::new(),
            announced: BTreeMap::new(),
        }
    }

    /// The host's name.
    pub fn host(&self) -> &HostName {
        &self.host
    }

    /// The last remote seq applied (what the shell persists).
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// The link state.
    pub fn link(&self) -> &Link {
        &self.link
    }

    /// The mirrored panes, by remote pane id.
    pub fn panes(&self) -> impl Iterator<Item = &MirroredPane> {
        self.panes.values()
    }

    /// One mirrored pane.
    pub fn pane(&self, pane: PaneId) -> Option<&MirroredPane> {
        self.panes.get(&pane)
    }

    /// The link came up (the shell is subscribed to the remote's `Event`): read the panes
    /// and catch up from the last seq; notifications wait for the catch-up's end.
    pub fn link_up(&mut self, now: Timestamp) -> Vec<Effect> {
        self.link = Link::Connected { since: now };
        self.catching_up = true;
        self.gap_pending = false;
        for p in self.panes.values_mut() {
            p.offline = false;
        }
        vec![
            Effect::Snapshot,
            Effect::CatchUp {
                after: self.last_seq,
            },
        ]
    }

    /// The link dropped: every pane goes offline and every notification of the host is
    /// withdrawn (its buttons could not reach the host); what they announced is owed
    /// again, shown once after the catch-up if still outstanding.
    pub fn link_down(&mut self, now: Timestamp, error: &str) -> Vec<Effect> {
        let error = Some(vocab::line(error, MAX_ERROR)).filter(|e| !e.is_empty());
        if !self.link.is_up() {
            if let Link::Offline { error: e, .. } = &mut self.link {
                *e = error;
            }
            return Vec::new();
        }
        self.link = Link::Offline { since: now, error };
        self.catching_up = false;
        self.gap_pending = false;
        for p in self.panes.values_mut() {
            p.offline = true;
        }
        let mut out = Vec::new();
        for (id, a) in std::mem::take(&mut self.announced) {
            self.owe(id, a.level, a.level == Attention::Unread);
            out.push(Effect::Withdraw {
                pane: self.pane_ref(id),
            });
        }
        out
    }

    /// The remote's `ListPanes`, each pane read by `crate::client::wire::mirrored`
    /// (`None`: no valid pane id): replaces the mirrored panes (at most
    /// [`MAX_PANES_PER_HOST`], lowest ids first). A pane no longer listed is forgotten and
    /// its notification withdrawn.
    pub fn snapshot(
        &mut self,
        panes: impl IntoIterator<Item = Option<MirroredPane>>,
    ) -> Vec<Effect> {
        let mut out = Vec::new();
        let mut fresh: BTreeMap<PaneId, MirroredPane> = BTreeMap::new();
        let mut bad = 0;
        for v in panes {
            match v {
                Some(mut p) => {
                    p.offline = !self.link.is_up();
                    fresh.insert(p.pane(), p);
                }
                None => bad += 1,
            }
        }
        if bad > 0 {
            out.push(Effect::Dropped {
                reason: format!("{bad} pane(s) without a valid pane id"),
            });
        }
        if fresh.len() > MAX_PANES_PER_HOST {
            let over = fresh.len() - MAX_PANES_PER_HOST;
            while fresh.len() > MAX_PANES_PER_HOST {
                fresh.pop_last();
            }
            out.push(Effect::Dropped {
                reason: format!("{over} pane(s) over the limit of {MAX_PANES_PER_HOST}"),
            });
        }
        let gone: Vec<PaneId> = self
            .panes
            .keys()
            .filter(|id| !fresh.contains_key(id))
            .copied()
            .collect();
        self.panes = fresh;
        for id in gone {
            self.owed.remove(&id);
            out.extend(self.settle(id));
        }
        if !self.catching_up {
            out.extend(self.settle_all());
        }
        out
    }

    /// The remote's `GetPane` for a pane an [`Effect::Refresh`] asked for, read as for
    /// [`Self::snapshot`].
    pub fn refreshed(&mut self, pane: Option<MirroredPane>) -> Vec<Effect> {
        let Some(mut p) = pane else {
            return vec![Effect::Dropped {
                reason: "a pane without a valid pane id".into(),
            }];
        };
        let id = p.pane();
        if !self.panes.contains_key(&id) && self.panes.len() >= MAX_PANES_PER_HOST {
            return vec![Effect::Dropped {
                reason: format!("pane {id} over the limit of {MAX_PANES_PER_HOST}"),
            }];
        }
        p.offline = !self.link.is_up();
        self.panes.insert(id, p);
        if self.catching_up {
            Vec::new()
        } else {
            self.settle(id)
        }
    }

    /// One remote event: dropped at or below the last seq, a catch-up on a gap, else
    /// stamped into the local log and applied to its pane.
    pub fn event(&mut self, e: RemoteEvent<'_>) -> Vec<Effect> {
        match seq_step(self.last_seq, e.seq, e.origin) {
            SeqStep::Duplicate => return Vec::new(),
            SeqStep::Gap if self.catching_up => {
                self.gap_pending = true;
                return Vec::new();
            }
            SeqStep::Gap => {
                self.catching_up = true;
                return vec![Effect::CatchUp {
                    after: self.last_seq,
                }];
            }
            SeqStep::Apply => {}
        }
        self.last_seq = e.seq;
        let kind = vocab::line(e.kind, MAX_KIND);
        let id = PaneId::parse(e.pane);
        let at = e
            .data
            .get("at")
            .and_then(|v| v.as_str())
            .and_then(Timestamp::parse_rfc3339);
        let mut out = vec![Effect::Stamp {
            remote_seq: e.seq,
            kind: kind.clone(),
            pane: id.map(|pane| self.pane_ref(pane)),
            data: vocab::event_data(e.data),
        }];
        let Some(id) = id else {
            return out;
        };
        if kind == "pane.removed" {
            self.panes.remove(&id);
            self.owed.remove(&id);
            out.extend(self.settle(id));
            return out;
        }
        if !self.panes.contains_key(&id) && self.panes.len() >= MAX_PANES_PER_HOST {
            out.push(Effect::Dropped {
                reason: format!("pane {id} over the limit of {MAX_PANES_PER_HOST}"),
            });
            return out;
        }
        let Some(p) = self.panes.get_mut(&id) else {
            // Not mirrored yet: read it; what the event raised is owed to it (at most one
            // entry per pane the limit leaves room for).
            let level = e.data.get("level").and_then(|v| v.as_str());
            if let Some(level) = level.filter(|_| kind == "attention.created") {
                let room = self.owed.len() < MAX_PANES_PER_HOST;
                if let Some(level) = Attention::parse(level).filter(|_| room) {
                    self.owe(id, level, false);
                }
            }
            out.push(Effect::Refresh { pane: id });
            return out;
        };
        let touch = p.apply(&kind, e.data, at);
        // An external pane's new decision: only `GetPane` says whether its host answers
        // it through a waiting hook run (`gate`); read before the next event, so the
        // `attention.created` that follows announces it with its buttons.
        let gate_unknown = kind == "decision.opened" && !p.owned;
        if gate_unknown
            || matches!(
                kind.as_str(),
                "pane.added" | "pane.changed" | "pane.handover"
            )
        {
            out.push(Effect::Refresh { pane: id });
        }
        if let Touch {
            created: Some(level),
            done,
        } = touch
        {
            self.owe(id, level, done);
        } else if touch.done {
            if let Some(o) = self.owed.get_mut(&id) {
                o.done = true;
            }
        }
        if !self.catching_up {
            out.extend(self.settle(id));
        }
        out
    }

    /// An `Events` page was read: `short` when it held fewer entries than asked (the log
    /// is read to its end). A full page, or a gap seen meanwhile, reads on; at the end
    /// the host is live and the notification rule runs once over every pane.
    pub fn page_done(&mut self, short: bool) -> Vec<Effect> {
        if !self.catching_up {
            return Vec::new();
        }
        if !short || self.gap_pending {
            self.gap_pending = false;
            return vec![Effect::CatchUp {
                after: self.last_seq,
            }];
        }
        self.catching_up = false;
        self.settle_all()
    }

    fn pane_ref(&self, pane: PaneId) -> PaneRef {
        PaneRef {
            host: Some(self.host.clone()),
            pane,
        }
    }

    fn owe(&mut self, id: PaneId, level: Attention, done: bool) {
        let o = self.owed.entry(id).or_insert(Owed { level, done });
        o.level = o.level.max(level);
        o.done |= done;
    }

    fn settle_all(&mut self) -> Vec<Effect> {
        let ids: Vec<PaneId> = self
            .panes
            .keys()
            .chain(self.owed.keys())
            .chain(self.announced.keys())
            .copied()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        ids.into_iter().flat_map(|id| self.settle(id)).collect()
    }

    /// The notification rule for one pane (`docs/remote.md`, "Notifications"): withdraw
    /// what is no longer outstanding; announce what is owed, once, at the lower of the
    /// level raised and the pane's attention now, when that level is configured, the
    /// host online and the pane not focused on its host.
    fn settle(&mut self, id: PaneId) -> Vec<Effect> {
        let mut out = Vec::new();
        let pane = self.panes.get(&id);
        let now = pane.and_then(|p| p.known_attention());
        let decision = pane.and_then(|p| p.decision.as_ref().map(|d| d.id));
        if let Some(a) = self.announced.get(&id) {
            let still = now.is_some_and(|c| c >= a.level)
                && (a.decision.is_none() || a.decision == decision);
            if !still {
                self.announced.remove(&id);
                out.push(Effect::Withdraw {
                    pane: self.pane_ref(id),
                });
            }
        }
        let Some(pane) = pane else {
            self.owed.remove(&id);
            return out;
        };
        if pane.offline {
            return out;
        }
        let Some(owed) = self.owed.remove(&id) else {
            return out;
        };
        let Some(now) = now else {
            return out;
        };
        let level = owed.level.min(now);
        let wanted = level > Attention::None
            && self.rules.levels.contains(&level)
            && (level != Attention::Unread || owed.done)
            && !pane.focused;
        if !wanted {
            return out;
        }
        let decision = if level.is_required() { decision } else { None };
        let shown = self
            .announced
            .get(&id)
            .is_some_and(|a| a.level >= level && a.decision == decision);
        if !shown {
            self.announced.insert(id, Announced { level, decision });
            out.push(Effect::Notify {
                pane: self.pane_ref(id),
                level,
                decision,
            });
        }
        out
    }
}
