//! Away from the desk (`docs/away.md`): a gate or question left open while the user is
//! away is pushed to their phone through ntfy or a generic webhook, once, with a
//! follow-up when it is resolved. One-way: a push says where to look, it answers
//! nothing.
//!
//! This task joins the three parts: [`presence`] (the idle sources, by their signals),
//! the pure rule [`crate::engine::away`] (what is due, when), and [`send`] (the HTTP
//! requests). It wakes on a committed batch, on a presence change, and at the next
//! due time the rule names — never on a polling timer. Runs only when `[away]` is
//! enabled with a transport ([`crate::settings::Away::active`]).

pub mod message;
pub mod presence;
pub mod send;

use super::snapshot::{Snapshot, Update};
use crate::engine::away::{open_items, AwayItem, Presence, Push, Pushed};
use crate::settings::Away;
use crate::system::clock::now;
use message::Message;
use presence::Sources;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// The machine's host name (`/proc/sys/kernel/hostname`), else `localhost`.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
}

/// The presence after `sources` changed, from `before` (an away stretch keeps its
/// start while it lasts).
fn presence_of(before: Presence, sources: &Sources) -> Presence {
    match (sources.away(), before) {
        (None, _) => Presence::Unknown,
        (Some(false), _) => Presence::AtDesk,
        (Some(true), Presence::Away { since }) => Presence::Away { since },
        (Some(true), _) => Presence::Away { since: now() },
    }
}

/// Runs the away pushes until `updates` closes (the daemon stops).
pub async fn run(
    session: zbus::Connection,
    mut updates: mpsc::UnboundedReceiver<Arc<Update>>,
    away: Away,
) {
    let delay_ms = away.delay.as_millis() as i64;
    tracing::info!(
        delay = %humantime::format_duration(away.delay),
        ntfy = away.ntfy.is_some(),
        webhook = away.webhook.is_some(),
        include_text = away.include_text,
        "away pushes on"
    );
    let host = host_name();
    let (sources_tx, mut sources) = watch::channel(Sources::default());
    tokio::spawn(presence::watch(session, sources_tx));
    let (send_tx, send_rx) = mpsc::unbounded_channel();
    tokio::spawn(send::run(send_rx, send::Targets::of(&away)));

    let mut snapshot = Arc::new(Snapshot::default());
    let mut presence = Presence::Unknown;
    let mut watching = true;
    let mut said_unknown = false;
    let mut pushed = Pushed::default();
    let mut messages: BTreeMap<AwayItem, Message> = BTreeMap::new();
    loop {
        let open = open_items(snapshot.panes.values());
        let due = pushed.next_due(presence, &open, delay_ms);
        let wait = due.map(|t| Duration::from_millis(t.millis_since(now()).max(0) as u64));
        tokio::select! {
            u = updates.recv() => match u {
                Some(u) => snapshot = u.snapshot.clone(),
                None => break,
            },
            r = sources.changed(), if watching => {
                if r.is_err() {
                    watching = false;
                    continue;
                }
                let s = *sources.borrow_and_update();
                let next = presence_of(presence, &s);
                match next {
                    Presence::Away { .. } if !matches!(presence, Presence::Away { .. }) => {
                        tracing::info!(reason = %s.reasons(), "away: the user is away")
                    }
                    Presence::AtDesk if presence != Presence::AtDesk => {
                        tracing::info!("away: the user is at the desk")
                    }
                    Presence::Unknown if s.probed && !said_unknown => {
                        said_unknown = true;
                        tracing::info!(
                            "away: no idle source (no org.freedesktop.ScreenSaver on the \
                             session bus, no logind session on the system bus); nothing is pushed"
                        );
                    }
                    _ => {}
                }
                if next != Presence::Unknown {
                    said_unknown = false;
                }
                presence = next;
            }
            _ = async { tokio::time::sleep(wait.unwrap_or_default()).await }, if wait.is_some() => {}
        }
        let open = open_items(snapshot.panes.values());
        for push in pushed.step(presence, &open, delay_ms, now()) {
            match push {
                Push::Open(item) => {
                    let Some(p) = snapshot.panes.get(&item.pane) else {
                        continue;
                    };
                    let m = Message::open(&item, p, &host, away.include_text);
                    tracing::debug!(pane = %m.pane, kind = m.kind, "away: pushing");
                    messages.insert(item, m.clone());
                    let _ = send_tx.send(m);
                }
                Push::Resolved(item) => {
                    if let Some(m) = messages.remove(&item) {
                        tracing::debug!(pane = %m.pane, kind = m.kind, "away: following up");
                        let _ = send_tx.send(m.resolved());
                    }
                }
            }
        }
    }
}
