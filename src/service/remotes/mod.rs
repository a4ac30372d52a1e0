//! The link supervisor (`docs/decisions/0014-remote-link.md`): one tokio task per remote
//! of `config.toml` (`[remote.NAME]`) that connects ([`link::connect`]), reports
//! `connected` with the remote's version, and when the carrier exits or the connection
//! closes reports `offline` since then with the last error, then reconnects with a
//! backoff of 1 s doubling to 60 s.
//!
//! No timer runs while a link is up: the task waits on the carrier's exit and the
//! connection's messages only (liveness is ssh's `ServerAliveInterval`), so an idle
//! daemon stays without wake-ups. The table of states is read by `Remotes()`;
//! `ReloadRemotes()` applies a changed `config.toml` (src/service/bus/interface.rs). While a link
//! is up its task also mirrors the remote's panes ([`follow`]); each remote's
//! [`HostMirror`] is kept in the table beside its link state and read by
//! `ListRemotePanes()` ([`Remotes::panes`]) and `NextUnread()`. Every change of a mirror
//! is pushed to the desktop surfaces that subscribed ([`Remotes::subscribe`],
//! [`RemoteUpdate`]): the panes after it and the notifications it raises or withdraws
//! ([`Effect::Notify`], [`Effect::Withdraw`]).
//!
//! Every change of the table (a link's state, a mirror's panes, the set of remotes) wakes
//! [`Remotes::changed`], on which the daemon's signalling task emits `RemotesChanged()`
//! (`crate::service::bus::interface::signal_remote_changes`, `docs/dbus-api.md#signals`); changes
//! made while it emits are signalled once more after, so a burst costs a signal or two
//! and an idle table none.

pub mod act;
pub mod bridge;
pub mod follow;
pub mod link;
pub mod panes;

use crate::adapters::mirror::{Effect, HostMirror, MirroredPane, NotifyRules};
use crate::config::BUS_NAME;
use crate::model::{Attention, HostName, PaneRef, Timestamp};
use crate::service::command::Command;
use crate::settings::Remote;
use crate::system::clock::now;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::mpsc;

/// The first wait before reconnecting.
pub const BACKOFF_MIN: Duration = Duration::from_secs(1);
/// The longest wait before reconnecting.
pub const BACKOFF_MAX: Duration = Duration::from_secs(60);

/// How long a link whose mirroring failed waits for the link's own end (and its reason)
/// before it is dropped with the mirroring's reason.
pub const FOLLOW_END_GRACE: Duration = Duration::from_secs(5);

/// A link's state, as `Remotes()` and `attend remote ls` name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkState {
    Connecting,
    Connected,
    Offline,
}

impl LinkState {
    /// The wire name: `connecting`, `connected`, `offline`.
    pub fn as_str(self) -> &'static str {
        match self {
            LinkState::Connecting => "connecting",
            LinkState::Connected => "connected",
            LinkState::Offline => "offline",
        }
    }
}

/// One remote's link as reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub state: LinkState,
    /// When the link entered `state`; for `offline`, when it went down (kept across the
    /// failed attempts to reconnect).
    pub since: Timestamp,
    /// Why the link last failed (cleaned, one line); kept while reconnecting.
    pub last_error: Option<String>,
    /// The remote daemon's version, once it answered.
    pub remote_version: Option<String>,
}

struct Entry {
    remote: Remote,
    status: Status,
    /// Which task may write `status` (a reload replaces the task).
    generation: u64,
    task: tokio::task::AbortHandle,
    /// The remote's panes as mirrored (offline while the link is down).
    mirror: HostMirror,
    /// The link's connection to the remote's bus while it is up ([`act`]).
    conn: Option<zbus::Connection>,
}

#[derive(Default)]
struct Table {
    entries: BTreeMap<HostName, Entry>,
    generation: u64,
    /// The owner task, which stamps remote events into the local log
    /// ([`Command::StampRemote`]); `None` until [`Remotes::store_in`].
    owner: Option<mpsc::Sender<Command>>,
    /// The last remote seq stored of each host: where a new mirror of it continues.
    seqs: BTreeMap<HostName, u64>,
    /// The levels a new mirror announces (`[notifications] levels` of `config.toml`).
    levels: Vec<Attention>,
    /// The surfaces' receivers of [`RemoteUpdate`]s ([`Remotes::subscribe`]).
    subscribers: Vec<mpsc::UnboundedSender<Arc<RemoteUpdate>>>,
}

/// What a mirror asks of the desktop surfaces (`docs/desktop-surfaces.md`, "Remote
/// panes"): a notification raised or withdrawn.
#[derive(Debug, Clone, PartialEq)]
pub enum RemoteNotice {
    /// Raise (or replace) the notification of `pane` at `level`; `pane` is the mirrored
    /// pane as it is now (its words), `decision` the remote decision a required level
    /// announces.
    Notify {
        pane: Box<MirroredPane>,
        level: Attention,
        decision: Option<u64>,
    },
    /// Close the notification of `pane` (`NAME:pN`).
    Withdraw { pane: PaneRef },
}

/// One change of the mirrors, pushed to every subscribed surface: every mirrored pane of
/// every host after it (by host, then pane id) and the notices it raised, in order.
#[derive(Debug, Clone)]
pub struct RemoteUpdate {
    pub panes: Arc<Vec<MirroredPane>>,
    pub notices: Vec<RemoteNotice>,
}

/// The supervisor: a handle to the table of links (cheap to clone).
#[derive(Clone, Default)]
pub struct Remotes {
    table: Arc<Mutex<Table>>,
    /// Woken on every change of the table; the signalling task waits on it.
    changed: Arc<tokio::sync::Notify>,
}

impl Remotes {
    /// A supervisor with no remote.
    pub fn new() -> Remotes {
        Remotes::default()
    }

    /// Stamps remote events through the owner task `owner` from now on; `seqs` is the last
    /// remote seq stored of each host (`Db::remote_seqs`, read at start), where each
    /// host's mirror continues. Call before [`Remotes::set`].
    pub fn store_in(&self, owner: mpsc::Sender<Command>, seqs: BTreeMap<HostName, u64>) {
        let mut table = self.lock();
        table.owner = Some(owner);
        table.seqs = seqs;
    }

    /// Makes the links those of `remotes`: a removed or changed remote's task ends (its
    /// carrier is killed) and its notifications are withdrawn, a new or changed one starts
    /// connecting (its mirror continues after the host's last stored remote seq);
    /// unchanged ones keep their link. A remote that is no longer configured has its last
    /// remote seq forgotten (a name added again may be another machine:
    /// `docs/remote.md#how-remote-panes-are-mirrored`). Must be called on a tokio runtime.
    pub fn set(&self, remotes: Vec<Remote>) {
        let mut table = self.lock();
        let wanted: BTreeMap<HostName, Remote> =
            remotes.into_iter().map(|r| (r.name.clone(), r)).collect();
        let mut withdrawn = Vec::new();
        let before = table.entries.len();
        table.entries.retain(|name, entry| {
            let keep = wanted.get(name) == Some(&entry.remote);
            if !keep {
                entry.task.abort();
                // Its notifications go with it.
                withdrawn.extend(entry.mirror.link_down(now(), "removed"));
            }
            keep
        });
        let gone: Vec<HostName> = table
            .seqs
            .keys()
            .filter(|h| !wanted.contains_key(*h))
            .cloned()
            .collect();
        for host in gone {
            table.seqs.remove(&host);
            if let Some(owner) = table.owner.clone() {
                tokio::spawn(async move { owner.send(Command::ForgetRemote(host)).await });
            }
        }
        // The surfaces forget a removed host's panes and close its notifications.
        if table.entries.len() < before {
            publish(&mut table, &withdrawn);
        }
        for (name, remote) in wanted {
            if table.entries.contains_key(&name) {
                continue;
            }
            table.generation += 1;
            let generation = table.generation;
            let task = tokio::spawn(supervise(remote.clone(), generation, self.clone()));
            let last_seq = table.seqs.get(&name).copied().unwrap_or(0);
            let levels = table.levels.clone();
            table.entries.insert(
                name.clone(),
                Entry {
                    remote,
                    status: Status {
                        state: LinkState::Connecting,
                        since: now(),
                        last_error: None,
                        remote_version: None,
                    },
                    generation,
                    task: task.abort_handle(),
                    mirror: HostMirror::new(
                        name.clone(),
                        last_seq,
                        NotifyRules {
                            levels: levels.clone(),
                        },
                        now(),
                    ),
                    conn: None,
                },
            );
        }
        self.changed.notify_one();
    }

    /// Waits for the next change of the table (a link's state, a mirror's panes, the set
    /// of remotes); the changes made since the last wait ended count as one, so a caller
    /// that signals after each wait signals a burst once or twice.
    pub async fn changed(&self) {
        self.changed.notified().await
    }

    /// Ends every link (the daemon stops); the stored remote seqs are kept.
    pub fn stop(&self) {
        let mut table = self.lock();
        for entry in table.entries.values() {
            entry.task.abort();
        }
        table.entries.clear();
    }

    /// The attention levels that raise a notification for a remote pane (the settings'
    /// `[notifications] levels`); applies to the mirrors made after it, so it is set
    /// before the first [`Remotes::set`].
    pub fn set_notify_levels(&self, levels: Vec<Attention>) {
        self.lock().levels = levels;
    }

    /// A receiver of every change of the mirrors from now on ([`RemoteUpdate`]); the
    /// first update it receives is the state now. Dropping it unsubscribes.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<Arc<RemoteUpdate>> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut table = self.lock();
        let _ = tx.send(Arc::new(RemoteUpdate {
            panes: Arc::new(all_panes(&table)),
            notices: Vec::new(),
        }));
        table.subscribers.push(tx);
        rx
    }

    /// Every remote with its link's status, by name.
    pub fn list(&self) -> Vec<(Remote, Status)> {
        self.lock()
            .entries
            .values()
            .map(|e| (e.remote.clone(), e.status.clone()))
            .collect()
    }

    /// True when a remote named `host` is configured (whatever its link's status).
    pub fn configured(&self, host: &HostName) -> bool {
        self.lock().entries.contains_key(host)
    }

    /// Every mirrored pane of every remote (or only of `host`), by host then pane id.
    pub fn panes(&self, host: Option<&HostName>) -> Vec<MirroredPane> {
        self.lock()
            .entries
            .iter()
            .filter(|(name, _)| host.map_or(true, |h| h == *name))
            .flat_map(|(_, e)| e.mirror.panes().cloned())
            .collect()
    }

    /// Runs `f` on the mirror of `name` if `generation` is still its task's; the effects
    /// it returns (none for a stale task).
    fn mirror(
        &self,
        name: &HostName,
        generation: u64,
        f: &mut dyn FnMut(&mut HostMirror) -> Vec<Effect>,
    ) -> Vec<Effect> {
        let mut table = self.lock();
        let effects = match table.entries.get_mut(name) {
            Some(e) if e.generation == generation => {
                self.changed.notify_one();
                f(&mut e.mirror)
            }
            _ => return Vec::new(),
        };
        publish(&mut table, &effects);
        effects
    }

    /// The owner task's channel, if `generation` is still the task of `name` and the
    /// supervisor stamps remote events.
    fn owner(&self, name: &HostName, generation: u64) -> Option<mpsc::Sender<Command>> {
        let table = self.lock();
        match table.entries.get(name) {
            Some(e) if e.generation == generation => table.owner.clone(),
            _ => None,
        }
    }

    /// Records `remote_seq` as stored for `name` if `generation` is still its task's.
    fn stored(&self, name: &HostName, generation: u64, remote_seq: u64) {
        let mut table = self.lock();
        if table
            .entries
            .get(name)
            .is_some_and(|e| e.generation == generation)
        {
            table.seqs.insert(name.clone(), remote_seq);
        }
    }

    /// After a remote event could not be stored: `name`'s mirror starts again from the
    /// last stored remote seq (its panes come back with the next link's snapshot), if
    /// `generation` is still its task's.
    fn restart_mirror(&self, name: &HostName, generation: u64) {
        let mut table = self.lock();
        let last = table.seqs.get(name).copied().unwrap_or(0);
        let levels = table.levels.clone();
        if let Some(e) = table.entries.get_mut(name) {
            if e.generation == generation {
                let rules = NotifyRules { levels };
                e.mirror = HostMirror::new(name.clone(), last, rules, now());
            }
        }
    }

    /// Sets (or clears) the connection of `name`'s link if `generation` is still its
    /// task's.
    fn set_conn(&self, name: &HostName, generation: u64, conn: Option<zbus::Connection>) {
        let mut table = self.lock();
        if let Some(e) = table.entries.get_mut(name) {
            if e.generation == generation {
                e.conn = conn;
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records a new status for `name` if `generation` is still its task's.
    fn report(&self, name: &HostName, generation: u64, change: impl FnOnce(&mut Status)) {
        let mut table = self.lock();
        if let Some(e) = table.entries.get_mut(name) {
            if e.generation == generation {
                let before = e.status.clone();
                change(&mut e.status);
                if e.status != before {
                    self.changed.notify_one();
                }
            }
        }
    }
}

/// Every mirrored pane of `table`, by host then pane id.
fn all_panes(table: &Table) -> Vec<MirroredPane> {
    table
        .entries
        .values()
        .flat_map(|e| e.mirror.panes().cloned())
        .collect()
}

/// Pushes the mirrors after a change, with the notices among its `effects`
/// ([`Effect::Notify`], [`Effect::Withdraw`]), to every subscriber; a subscriber gone is
/// forgotten. Nothing is made when no surface subscribed.
fn publish(table: &mut Table, effects: &[Effect]) {
    table.subscribers.retain(|s| !s.is_closed());
    if table.subscribers.is_empty() {
        return;
    }
    let notices: Vec<RemoteNotice> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Notify {
                pane,
                level,
                decision,
            } => {
                let entry = pane.host.as_ref().and_then(|h| table.entries.get(h));
                let p = entry.and_then(|e| e.mirror.pane(pane.pane)).cloned()?;
                Some(RemoteNotice::Notify {
                    pane: Box::new(p),
                    level: *level,
                    decision: *decision,
                })
            }
            Effect::Withdraw { pane } => Some(RemoteNotice::Withdraw { pane: pane.clone() }),
            _ => None,
        })
        .collect();
    let update = Arc::new(RemoteUpdate {
        panes: Arc::new(all_panes(table)),
        notices,
    });
    for s in &table.subscribers {
        let _ = s.send(update.clone());
    }
}

/// The `Remotes()` dictionary of one remote (`docs/dbus-api.md#remote`): `name` s,
/// `target` s, `via` s and `command` s (when set), `state` s, `since_at` x (ms since the
/// epoch), `last_error` s and `remote_version` s (when known).
pub fn remote_dict(remote: &Remote, status: &Status) -> crate::client::wire::Dict {
    crate::client::wire::DictBuilder::new()
        .str("name", remote.name.as_str())
        .str("target", &remote.target)
        .opt_str("via", remote.via.as_deref())
        .opt_str("command", remote.command.as_deref())
        .str("state", status.state.as_str())
        .time("since_at", Some(status.since))
        .opt_str("last_error", status.last_error.as_deref())
        .opt_str("remote_version", status.remote_version.as_deref())
        .build()
}

/// The next wait after `wait`: doubled, at most [`BACKOFF_MAX`].
pub fn next_backoff(wait: Duration) -> Duration {
    (wait * 2).min(BACKOFF_MAX)
}

/// One remote's task: connect, watch, report, back off, again; until aborted.
async fn supervise(remote: Remote, generation: u64, remotes: Remotes) {
    let name = remote.name.clone();
    let mut wait = BACKOFF_MIN;
    // When the link last went down: `offline` is reported since then across the failed
    // attempts that follow (as the mirror says it, `HostOffline`'s "offline since").
    let mut down_since: Option<Timestamp> = None;
    loop {
        remotes.report(&name, generation, |s| {
            if s.state != LinkState::Connecting {
                s.state = LinkState::Connecting;
                s.since = now();
            }
        });
        let error = match link::connect(&remote).await {
            Ok(link) => {
                tracing::info!(remote = %name, version = %link.version, "remote linked");
                down_since = None;
                remotes.report(&name, generation, |s| {
                    s.state = LinkState::Connected;
                    s.since = now();
                    s.remote_version = Some(link.version.clone());
                });
                wait = BACKOFF_MIN;
                let conn = link.conn.clone();
                remotes.set_conn(&name, generation, Some(conn.clone()));
                let watching = watch(link);
                tokio::pin!(watching);
                tokio::select! {
                    why = &mut watching => why,
                    why = follow::follow(&conn, &name, generation, &remotes) => {
                        // The link's own end says why better (the carrier's words): a
                        // moment for it; a failure of the remote's answers alone ends
                        // the link with its own reason.
                        match tokio::time::timeout(FOLLOW_END_GRACE, &mut watching).await {
                            Ok(why) => why,
                            Err(_) => link::clean(&why),
                        }
                    }
                }
            }
            Err(e) => e,
        };
        tracing::warn!(remote = %name, error = %error, "remote offline");
        remotes.set_conn(&name, generation, None);
        let since = *down_since.get_or_insert_with(now);
        remotes.report(&name, generation, |s| {
            s.state = LinkState::Offline;
            s.since = since;
            s.last_error = Some(error.clone());
        });
        // The panes stay listed, offline; their notifications are withdrawn (published
        // to the surfaces by `Remotes::mirror`).
        let _ = remotes.mirror(&name, generation, &mut |m| m.link_down(now(), &error));
        tokio::time::sleep(wait).await;
        wait = next_backoff(wait);
    }
}

/// Waits, without a timer, until the link ends: the carrier exits, the connection
/// closes, or the remote daemon gives up its name. Why it ended (cleaned).
async fn watch(mut link: link::Link) -> String {
    use zbus::export::futures_core::Stream;
    let rule = zbus::MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .sender("org.freedesktop.DBus")
        .and_then(|b| b.member("NameOwnerChanged"))
        .and_then(|b| b.arg(0, BUS_NAME))
        .map(|b| b.build());
    let stream = match rule {
        Ok(rule) => zbus::MessageStream::for_match_rule(rule, &link.conn, Some(8)).await,
        Err(e) => Err(e),
    };
    let mut stream = match stream {
        Ok(s) => s,
        Err(e) => return link::clean(&format!("cannot watch the remote daemon: {e}")),
    };
    let daemon_gone = async {
        loop {
            let next = std::future::poll_fn(|cx| std::pin::Pin::new(&mut stream).poll_next(cx));
            match next.await {
                None => return "the connection closed".to_string(),
                Some(Err(e)) => return format!("the connection failed: {e}"),
                Some(Ok(msg)) => {
                    let owner = msg
                        .body()
                        .deserialize::<(String, String, String)>()
                        .map(|(_, _, new)| new);
                    if owner.is_ok_and(|new| new.is_empty()) {
                        return "the remote attend daemon stopped".to_string();
                    }
                }
            }
        }
    };
    enum End {
        Carrier(String),
        Connection(String),
    }
    let end = tokio::select! {
        status = link.child.wait() => {
            End::Carrier(status.map_or_else(|e| e.to_string(), |s| s.to_string()))
        }
        why = daemon_gone => End::Connection(why),
    };
    let why = match end {
        End::Carrier(status) => {
            let said = link.last_stderr().await;
            if said.is_empty() {
                format!("the link ended ({status})")
            } else {
                said
            }
        }
        // The carrier usually says why (the bridge's "the session bus closed the
        // connection", ssh's "Broken pipe"): a moment for it to exit and say so.
        End::Connection(why) => {
            let exited = tokio::time::timeout(Duration::from_secs(2), link.child.wait()).await;
            let said = match exited {
                Ok(_) => link.last_stderr().await,
                Err(_) => String::new(),
            };
            if said.is_empty() || why.contains("daemon stopped") {
                why
            } else {
                said
            }
        }
    };
    link::clean(&why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_from_one_second_to_a_minute() {
        let mut w = BACKOFF_MIN;
        let mut seen = vec![w.as_secs()];
        for _ in 0..8 {
            w = next_backoff(w);
            seen.push(w.as_secs());
        }
        assert_eq!(seen, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
        assert_eq!(LinkState::Offline.as_str(), "offline");
    }
}
