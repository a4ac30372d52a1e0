//! Removing panes (`docs/lifecycle-attention.md#removing-panes`), the one path of the
//! D-Bus `Remove` method, the panel's Remove button and the tray: the owner checks every
//! pane and removes them all in one batch, or refuses them all. With `kill`, the running
//! panes Attend runs are ended as [`ENDING`] says (the owner sends its first signal);
//! this waits a bounded time for their exits after each signal off the owner task, then
//! asks the owner again.

use crate::model::PaneId;
use crate::service::bus::error::Attend1Error;
use crate::service::command::{ask, Command, RemoveRequest, RemoveStep};
use crate::system::ending::ENDING;
use std::collections::BTreeSet;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// Removes `panes` (each once, in id order) through the owner behind `tx`; with `kill`,
/// the running panes Attend runs are ended first ([`ENDING`]: SIGHUP, SIGTERM after
/// [`crate::system::ending::HUP_GRACE`], SIGKILL after [`crate::system::ending::TERM_GRACE`] more). Returns the removed ids. All or
/// nothing. Errors: `NoSuchPane`, `InvalidArgument` (no pane given; a pane still running
/// without `kill`, or one that did not exit within the graces of [`ENDING`]), `NotOwned`
/// (`kill` of a running external pane), `Internal`.
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
    // The owner sent the first signal; each later one goes to what still runs.
    let (_, grace) = ENDING[0];
    let mut left = exits(waits, grace).await;
    for (signal, grace) in &ENDING[1..] {
        if left.is_empty() {
            break;
        }
        for (pane, _) in &left {
            // A pane that exits between the two is no longer running: nothing to signal.
            let _ = ask(tx, |r| Command::Kill(*pane, *signal as i32, r)).await;
        }
        left = exits(left, *grace).await;
    }
    if !left.is_empty() {
        let names: Vec<String> = left.iter().map(|(p, _)| p.to_string()).collect();
        let steps: Vec<String> = ENDING
            .iter()
            .map(|(signal, grace)| format!("{} s of {}", grace.as_secs(), signal.as_str()))
            .collect();
        return Err(Attend1Error::InvalidArgument(format!(
            "{} did not exit within {}; nothing was removed",
            names.join(", "),
            steps.join(", ")
        )));
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
