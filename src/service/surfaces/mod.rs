//! The daemon's desktop surfaces (`docs/desktop-surfaces.md`): desktop notifications and
//! the tray icon, fed by the owner task after every commit.
//!
//! The owner publishes each committed batch — its events and a snapshot of every pane —
//! to each running surface ([`Surfaces::publish`]); surfaces never touch the world
//! themselves. What a click does goes back to the owner as the same [`crate::service::command::Command`]s the
//! D-Bus methods send ([`Actions`]). The away pushes ([`away`]) are a surface too, run
//! when `[away]` in `config.toml` turns them on.
//!
//! Remote panes (`docs/remote.md`) reach the notifications and the tray as a second kind
//! of update: each subscribes to the link supervisor ([`Remotes::subscribe`]), which
//! pushes every change of the mirrors; actions on a remote pane go to its host
//! ([`Remotes::act`]).

mod actions;
pub mod away;
pub mod notice;
pub mod notifications;
pub mod replies;

pub mod snapshot;
pub mod sound;
pub mod terminal_location;
pub mod tray;

pub use actions::Actions;
pub use snapshot::{Snapshot, Update};
pub use terminal_location::{TerminalLocation, TerminalRegistry, TERMINAL_ENV};

use crate::model::{Event, PaneId};
use crate::service::command::Command;
use crate::service::remotes::Remotes;
use crate::settings::Settings;
use crate::system::clock::now;
use std::sync::Arc;
use tokio::sync::{mpsc, Notify};

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
    /// Sends the batch to every surface, with the external panes whose gate Attend can
    /// answer (`gates`); skipped when none runs.
    pub fn publish(
        &self,
        events: &[Event],
        world: &crate::engine::World,
        gates: impl Iterator<Item = PaneId>,
    ) {
        if self.subscribers.is_empty() {
            return;
        }
        let update = Arc::new(Update {
            events: events.to_vec(),
            snapshot: Arc::new(Snapshot {
                panes: world.snapshot(),
                gates: gates.collect(),
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

/// Starts the surfaces `opts` asks for, with the user's `settings` and the link
/// supervisor `remotes` (remote panes), on the daemon's connection (notifications) and
/// the session bus (the tray's own connection), logging which run. Must run inside the
/// daemon's tokio runtime; never fails: a missing notification server or tray watcher
/// is logged once and the daemon goes on without it.
pub async fn start(
    conn: &zbus::Connection,
    cmd_tx: mpsc::Sender<Command>,
    opts: SurfaceOptions,
    settings: Settings,
    remotes: &Remotes,
) -> Surfaces {
    let mut surfaces = Surfaces::default();
    let actions = Actions::new(
        conn.clone(),
        cmd_tx,
        surfaces.terminals.clone(),
        surfaces.quit.clone(),
        remotes.clone(),
    );
    if opts.notifications {
        let (tx, rx) = mpsc::unbounded_channel();
        surfaces.subscribers.push(tx);
        tokio::spawn(notifications::run(
            conn.clone(),
            rx,
            remotes.subscribe(),
            actions.clone(),
            settings.clone(),
        ));
    } else {
        tracing::info!("desktop notifications off (--no-notifications)");
    }
    if settings.away.active() {
        let (tx, rx) = mpsc::unbounded_channel();
        surfaces.subscribers.push(tx);
        tokio::spawn(away::run(conn.clone(), rx, settings.away.clone()));
    }
    if opts.tray {
        let (tx, rx) = mpsc::unbounded_channel();
        surfaces.subscribers.push(tx);
        tokio::spawn(tray::run(rx, remotes.subscribe(), actions));
    } else {
        tracing::info!("tray icon off (--no-tray)");
    }
    surfaces
}
