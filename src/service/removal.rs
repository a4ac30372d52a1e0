//! Removing panes (`docs/lifecycle-attention.md#removing-panes`), the one path of the
//! D-Bus `Remove` method, the panel's Remove button and the tray: the owner checks every
//! pane and removes them all in one batch, or refuses them all. With `kill`, the running
//! panes Attend runs get SIGTERM first; this waits a bounded time for their exits
//! ([`TERM_GRACE`], then SIGKILL and [`KILL_GRACE`]) off the owner task, then asks the
//! owner again.

use super::command::{ask, Command, RemoveRequest, RemoveStep};
use super::error::Attend1Error;
use crate::model::PaneId;
use std::collections::BTreeSet;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// How long a pane killed for removal has to exit after SIGTERM.
pub const TERM_GRACE: Duration = Duration::from_secs(5);
/// How long it then has after SIGKILL; after that the removal fails and removes nothing.
pub const KILL_GRACE: Duration = Duration::from_secs(2);

/// Removes `panes` (each once, in id order) through the owner behind `tx`; with `kill`,
/// the running panes Attend runs are ended first (SIGTERM; SIGKILL after
/// [`TERM_GRACE`]). Returns the removed ids. All or nothing. Errors: `NoSuchPane`,
/// `InvalidArgument` (no pane given; a pane still running without `kill`, or one that did
/// not exit within [`TERM_GRACE`] + [`KILL_GRACE`]), `NotOwned` (`kill` of a running
/// external pane), `Internal`.
pub async fn remove(
    tx: &mpsc::Sender<Command>,
    panes: impl IntoIterator<Item = PaneId>,
    kill: bool,
) -> Result<Vec<PaneId>, Attend1Error> {
    let panes: Vec<PaneId> = panes
        .into_iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if panes.is_empty() {
        return Err(Attend1Error::InvalidArgument("no pane to remove".into()));
    }
    let request = |kill| RemoveRequest {
        panes: panes.clone(),
        kill,
    };
    let waits = match ask(tx, |r| Command::Remove(request(kill), r)).await? {
        RemoveStep::Removed(ids) => return Ok(ids),
        RemoveStep::Killing(waits) => waits,
    };
    let left = exits(waits, TERM_GRACE).await;
    if !left.is_empty() {
        for (pane, _) in &left {
            // A pane that exits between the two is no longer running: nothing to signal.
            let _ = ask(tx, |r| Command::Kill(*pane, libc::SIGKILL, r)).await;
        }
        let still = exits(left, KILL_GRACE).await;
        if !still.is_empty() {
            let names: Vec<String> = still.iter().map(|(p, _)| p.to_string()).collect();
            return Err(Attend1Error::InvalidArgument(format!(
                "{} did not exit within {} s of SIGTERM and {} s of SIGKILL; nothing was removed",
                names.join(", "),
                TERM_GRACE.as_secs(),
                KILL_GRACE.as_secs()
            )));
        }
    }
    match ask(tx, |r| Command::Remove(request(false), r)).await? {
        RemoveStep::Removed(ids) => Ok(ids),
        RemoveStep::Killing(_) => Err(Attend1Error::Internal(
            "the owner asked to kill again without kill".into(),
        )),
    }
}

/// Waits up to `limit` in all for the exits; returns the panes that did not exit.
async fn exits(
    waits: Vec<(PaneId, oneshot::Receiver<()>)>,
    limit: Duration,
) -> Vec<(PaneId, oneshot::Receiver<()>)> {
    let deadline = tokio::time::Instant::now() + limit;
    let mut left = Vec::new();
    for (pane, mut rx) in waits {
        // A dropped sender means the pane is gone: nothing left to wait for.
        if tokio::time::timeout_at(deadline, &mut rx).await.is_err() {
            left.push((pane, rx));
        }
    }
    left
}
