//! The daemon's desktop surfaces (issue 6): desktop notifications and the tray icon,
//! fed by the owner task after every commit.
//!
//! The owner publishes each committed batch — its events and a snapshot of every pane —
//! to each running surface ([`Surfaces::publish`]); surfaces never touch the world
//! themselves. What a click does goes back to the owner as the same [`crate::service::command::Command`]s the
//! D-Bus methods send ([`Actions`]).

mod actions;
pub mod launch;
pub mod overview;
pub mod settings;
pub mod terminal;

pub use actions::{Actions, PANEL_NAME, PANEL_PATH};
pub use terminal::{TerminalLocation, TerminalRegistry, TERMINAL_ENV};

use crate::engine::{next_unread_order, summarize_workspaces, PaneView, WorkspaceSummary};
use crate::model::{Event, Pane, PaneId, Timestamp};
use crate::service::command::Command;
use crate::service::dbus::now;
use overview::Overview;
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::{mpsc, Notify};

/// Every pane after a commit.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub panes: BTreeMap<PaneId, Pane>,
    /// When the snapshot was taken.
    pub at: Timestamp,
}

impl Snapshot {
    /// The engine's next-unread order (CONTRACT §8; focused panes skipped).
    pub fn next_unread(&self) -> Vec<PaneId> {
        next_unread_order(self.panes.values())
    }

    /// The engine's workspace summaries, by key.
    pub fn workspaces(&self) -> Vec<WorkspaceSummary> {
        summarize_workspaces(self.panes.values(), self.at)
    }

    /// Counts and the most urgent pane ([`Overview`]).
    pub fn overview(&self) -> Overview {
        let views: Vec<PaneView> = self.panes.values().map(PaneView::of).collect();
        let next = self.next_unread().first().map(|p| p.to_string());
        Overview::new(&views, next.as_deref())
    }
}

/// One committed batch: its events (ascending seq) and the panes after it. The first
/// update a surface receives has no events: the state at start-up.
#[derive(Debug, Clone)]
pub struct Update {
    pub events: Vec<Event>,
    pub snapshot: Arc<Snapshot>,
}

/// Which surfaces to run (`attend daemon --no-tray --no-notifications`).
#[derive(Debug, Clone, Copy)]
pub struct SurfaceOptions {
    pub tray: bool,
    pub notifications: bool,
}

/// The owner's handle on the running surfaces. The default has none (publishing is
/// then free).
#[derive(Clone, Default)]
pub struct Surfaces {
    subscribers: Vec<mpsc::UnboundedSender<Arc<Update>>>,
    terminals: TerminalRegistry,
    quit: Arc<Notify>,
}

impl Surfaces {
    /// Sends the batch to every surface; skipped when none runs.
    pub fn publish(&self, events: &[Event], panes: &BTreeMap<PaneId, Pane>) {
        if self.subscribers.is_empty() {
            return;
        }
        let update = Arc::new(Update {
            events: events.to_vec(),
            snapshot: Arc::new(Snapshot {
                panes: panes.clone(),
                at: now(),
            }),
        });
        for s in &self.subscribers {
            let _ = s.send(update.clone());
        }
    }

    /// Records where an external pane runs (from its latest hook's terminal context).
    pub fn note_terminal(&self, pane: PaneId, location: Option<TerminalLocation>) {
        self.terminals.note(pane, location);
    }

    /// Resolves when a surface asked the daemon to stop (the tray's "Quit").
    pub async fn quit_requested(&self) {
        self.quit.notified().await;
    }
}

/// Starts the surfaces `opts` asks for on the daemon's connection (notifications) and
/// the session bus (the tray's own connection), logging which run. Must run inside the
/// daemon's tokio runtime; never fails: a missing notification server or tray watcher
/// is logged once and the daemon goes on without it.
pub async fn start(
    conn: &zbus::Connection,
    cmd_tx: mpsc::Sender<Command>,
    opts: SurfaceOptions,
) -> Surfaces {
    let mut surfaces = Surfaces::default();
    let actions = Actions::new(
        conn.clone(),
        cmd_tx,
        surfaces.terminals.clone(),
        surfaces.quit.clone(),
    );
    if opts.notifications {
        let settings = settings::Settings::load();
        let (tx, rx) = mpsc::unbounded_channel();
        surfaces.subscribers.push(tx);
        tokio::spawn(super::notify::run(
            conn.clone(),
            rx,
            actions.clone(),
            settings,
        ));
    } else {
        tracing::info!("desktop notifications off (--no-notifications)");
    }
    if opts.tray {
        let (tx, rx) = mpsc::unbounded_channel();
        surfaces.subscribers.push(tx);
        tokio::spawn(super::tray::run(rx, actions));
    } else {
        tracing::info!("tray icon off (--no-tray)");
    }
    surfaces
}
