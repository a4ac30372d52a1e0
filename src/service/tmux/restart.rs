//! After a daemon restart (`docs/tmux.md#exit`): the panes the previous daemon followed
//! in tmux that are still running in the store are looked at once. One whose tmux pane
//! is still there with its agent is followed again by its server's control client (the
//! same Attend pane, its state and open decision kept: `Owner::tmux_found`); one whose
//! server ended (or is another server on the same socket), whose tmux pane is gone, or
//! whose tmux pane runs no known agent any more (the agent ended while no daemon ran)
//! ends as a tmux pane that goes ends ([`Command::TmuxGone`]): exited, its open decision
//! dropped.

use super::run::tmux;
use super::server::agent_in;
use crate::model::TmuxLocation;
use crate::service::command::Command;
use crate::settings::TmuxPanes;
use tokio::sync::mpsc;

/// Why a pane followed before the restart ended, for the log; `None` while its agent
/// still runs in its tmux pane.
fn ended(location: &TmuxLocation, panes: TmuxPanes) -> Option<&'static str> {
    let facts = tmux(
        &location.socket,
        &[
            "display-message",
            "-p",
            "-t",
            &location.pane,
            "#{pid} #{pane_pid}",
        ],
    );
    let Some(facts) = facts else {
        return Some("its tmux pane or server is gone");
    };
    let facts = String::from_utf8_lossy(&facts);
    let mut words = facts.split_whitespace().map(|w| w.parse::<u32>().ok());
    let (server, shell) = (words.next().flatten(), words.next().flatten());
    if server != Some(location.server_pid) {
        return Some("its tmux server ended");
    }
    match shell.and_then(|s| agent_in(s, panes)) {
        Some(_) => None,
        None => Some("its agent ended"),
    }
}

/// Looks at `locations` (the running followed panes of the store) in a thread of its
/// own and sends [`Command::TmuxGone`] for each one that ended while no daemon ran.
pub(super) fn recheck(locations: Vec<TmuxLocation>, panes: TmuxPanes, tx: mpsc::Sender<Command>) {
    if locations.is_empty() {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("tmux-recheck".into())
        .spawn(move || {
            for location in locations {
                let Some(why) = ended(&location, panes) else {
                    continue;
                };
                tracing::info!(socket = %location.socket, pane = %location.pane, "a tmux pane followed before the restart ended: {why}");
                if tx.blocking_send(Command::TmuxGone(location)).is_err() {
                    return; // The daemon is stopping.
                }
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("cannot look at the tmux panes followed before the restart: {e}");
    }
}
