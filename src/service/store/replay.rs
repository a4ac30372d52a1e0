//! The daemon's side of the hook spool
//! (`docs/adapters.md#never-block-never-fail-never-lose`: never lose an event): replay at
//! start-up and drain while running.
//!
//! - [`replay_at_start`]: before the owner loop serves any live `Hook` call (those wait in
//!   its channel), what is pending at start (batches left by an interrupted replay first,
//!   then one take of the live spool; src/service/store/spool.rs) is applied through
//!   [`ApplyHooks::apply_hooks`], in arrival order, each record at its arrival time. Records
//!   spooled meanwhile are left to [`watch`]: hooks keep spooling while records are
//!   pending (src/cli/hook.rs), so a start that chased them could last as long as a
//!   storm of hooks.
//! - [`watch`]: while the daemon runs, an inotify watch on the spool directory (the
//!   `notify` crate; no polling) drains a spool that grows (a hook that timed out while
//!   the daemon was busy), sending each record to the owner as a `Hook` command; a drain
//!   that stops with records left (a commit failed: a full disk) is tried again after a
//!   growing wait (1 s doubling to 16 s), since no new write may come to kick it.
//!
//! Exactly once: every record carries the client's `delivery_id`, and the owner skips ids
//! already committed (`Db::delivery_seen`), so a batch replayed twice (a crash between the
//! commit and the batch file's removal) or a hook both delivered late and spooled is
//! applied once. A torn record is reported in the log and skipped; a record the daemon
//! refuses (e.g. an external hook without a session id) is logged and dropped; a failed
//! commit keeps the batch for the next attempt.

use crate::model::Timestamp;
use crate::service::bus::error::Attend1Error;
use crate::service::bus::intake::{hook_request, pids_from_json, HookContext};
use crate::service::command::{Command, HookRequest};
use crate::service::store::spool::{Replay, Spool, SpoolRecord, SPOOL_FILE};
use crate::service::surfaces::TerminalLocation;
use crate::system::clock::now;
use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use std::collections::BTreeMap;
use std::future::Future;
use std::io;
use std::os::unix::fs::DirBuilderExt;
use tokio::sync::{mpsc, oneshot};

/// Most records applied in one commit during the start-up replay.
const CHUNK: usize = 256;

/// Where the start-up replay applies its requests: the owner task's state, before it
/// serves anything (src/service/owner/hooks.rs).
pub trait ApplyHooks {
    /// Applies `reqs` in order as one batch and commits it. Returns each request's seq or
    /// why it was refused; when the commit fails every request fails with `Internal`.
    fn apply_hooks(
        &mut self,
        reqs: Vec<HookRequest>,
    ) -> impl Future<Output = Vec<Result<u64, Attend1Error>>>;
}

/// What a drain did, for the log.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ReplayReport {
    /// Batch files replayed and removed.
    pub batches: usize,
    /// Records applied (or found already applied: same delivery id).
    pub applied: usize,
    /// Records the daemon refused (logged).
    pub refused: usize,
    /// Torn lines skipped (logged).
    pub torn: usize,
}

/// The `Hook` call a spool record stands for.
fn context_of(rec: &SpoolRecord) -> HookContext {
    let text = |key: &str| {
        rec.context
            .get(key)
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    HookContext {
        pane: text("pane"),
        delivery_id: Some(rec.delivery_id.clone()),
        cwd: text("cwd"),
        pids: pids_from_json(rec.context.get("pids")),
    }
}

/// When a spooled record is applied: its arrival time (ms since the epoch), but never
/// after `now` nor before the epoch. A record cannot have arrived in the future (a clock
/// set back since, a record written by hand or torn): its events take the replay's time,
/// so they neither sort after everything that comes next nor date a pane's state ahead of
/// its clock.
pub fn arrival(arrived_at: i64, now: Timestamp) -> Timestamp {
    Timestamp(arrived_at.clamp(0, now.0.max(0)))
}

/// The owner's request for one spooled hook, mapped at its arrival time (replayed events
/// keep their original times; [`arrival`]).
pub fn request_of(rec: &SpoolRecord) -> Result<HookRequest, Attend1Error> {
    let mut req = hook_request(
        &rec.agent,
        &rec.event,
        &rec.payload,
        context_of(rec),
        arrival(rec.arrived_at, now()),
    )?;
    let terminal: BTreeMap<String, String> = rec
        .context
        .get("terminal")
        .and_then(|t| serde_json::from_value(t.clone()).ok())
        .unwrap_or_default();
    req.terminal = TerminalLocation::from_env(&terminal);
    Ok(req)
}

/// Logs the torn lines of a batch and maps its records; refused ones are logged and
/// counted.
fn prepare(batch: &Replay, report: &mut ReplayReport) -> Vec<(String, HookRequest)> {
    for t in &batch.torn {
        tracing::warn!(
            file = %batch.path.display(),
            offset = t.offset,
            bytes = t.bytes.len(),
            "torn spool record skipped: {}",
            t.reason
        );
    }
    report.torn += batch.torn.len();
    let mut reqs = Vec::with_capacity(batch.records.len());
    for rec in &batch.records {
        match request_of(rec) {
            Ok(req) => reqs.push((rec.delivery_id.clone(), req)),
            Err(e) => {
                report.refused += 1;
                tracing::warn!(delivery = %rec.delivery_id, "spooled hook dropped: {e}");
            }
        }
    }
    reqs
}

/// Counts the owner's answers; false when a commit failed (the batch must stay).
fn settle(
    ids: &[String],
    results: Vec<Result<u64, Attend1Error>>,
    report: &mut ReplayReport,
) -> bool {
    let mut ok = true;
    for (id, r) in ids.iter().zip(results) {
        match r {
            Ok(_) => report.applied += 1,
            Err(Attend1Error::Internal(e)) => {
                tracing::error!(delivery = %id, "spooled hook not stored, kept for later: {e}");
                ok = false;
            }
            Err(e) => {
                report.refused += 1;
                tracing::warn!(delivery = %id, "spooled hook dropped: {e}");
            }
        }
    }
    ok
}

/// Takes the next batch off the async threads (the spool lock may be held by a writer).
async fn take(spool: &Spool) -> io::Result<Option<Replay>> {
    let spool = spool.clone();
    tokio::task::spawn_blocking(move || spool.take_batch())
        .await
        .map_err(io::Error::other)?
}

/// Removes a replayed batch file off the async threads.
async fn finish(spool: &Spool, batch: Replay) -> io::Result<()> {
    let spool = spool.clone();
    tokio::task::spawn_blocking(move || spool.finish(batch))
        .await
        .map_err(io::Error::other)?
}

/// Applies what `spool` holds at start (batches left by an interrupted replay first, then
/// one take of the live spool) to `owner` before it runs: each batch's records in arrival
/// order, at most [`CHUNK`] per commit. Records spooled after that take are drained by
/// [`watch`]. Stops at the first failed commit or I/O error (logged; the batch stays for
/// the next attempt). Never fails the start-up.
pub async fn replay_at_start(owner: &mut impl ApplyHooks, spool: &Spool) -> ReplayReport {
    let mut report = ReplayReport::default();
    loop {
        let batch = match take(spool).await {
            Ok(Some(batch)) => batch,
            Ok(None) => break,
            Err(e) => {
                tracing::error!(dir = %spool.dir().display(), "cannot read the hook spool: {e}");
                break;
            }
        };
        let from_live_spool = !batch.leftover;
        let mut reqs = prepare(&batch, &mut report);
        let mut ok = true;
        while ok && !reqs.is_empty() {
            let rest = reqs.split_off(reqs.len().min(CHUNK));
            let (ids, chunk): (Vec<String>, Vec<HookRequest>) = reqs.into_iter().unzip();
            let results = owner.apply_hooks(chunk).await;
            ok = settle(&ids, results, &mut report);
            reqs = rest;
        }
        if !ok {
            break;
        }
        if let Err(e) = finish(spool, batch).await {
            tracing::error!("cannot remove a replayed spool batch: {e}");
            break;
        }
        report.batches += 1;
        if from_live_spool {
            break;
        }
    }
    report
}

/// Drains `spool` through the owner's command channel while the daemon runs: the records
/// of a batch are queued in order, then their answers awaited. Stops like
/// [`replay_at_start`]; the flag is true when it stopped with records left behind (a
/// failed commit, e.g. a full disk, or an I/O error), so the caller tries again later.
async fn drain_running(spool: &Spool, cmd_tx: &mpsc::Sender<Command>) -> (ReplayReport, bool) {
    let mut report = ReplayReport::default();
    loop {
        let batch = match take(spool).await {
            Ok(Some(batch)) => batch,
            Ok(None) => break,
            Err(e) => {
                tracing::error!(dir = %spool.dir().display(), "cannot read the hook spool: {e}");
                return (report, true);
            }
        };
        let reqs = prepare(&batch, &mut report);
        let mut ids = Vec::with_capacity(reqs.len());
        let mut answers = Vec::with_capacity(reqs.len());
        for (id, req) in reqs {
            let (tx, rx) = oneshot::channel();
            if cmd_tx.send(Command::Hook(Box::new(req), tx)).await.is_err() {
                return (report, false); // The owner stopped: the batch waits for the next start.
            }
            ids.push(id);
            answers.push(rx);
        }
        let mut results = Vec::with_capacity(answers.len());
        for rx in answers {
            results.push(rx.await.unwrap_or_else(|_| {
                Err(Attend1Error::Internal(
                    "the daemon dropped the request".into(),
                ))
            }));
        }
        if !settle(&ids, results, &mut report) {
            return (report, true);
        }
        if let Err(e) = finish(spool, batch).await {
            tracing::error!("cannot remove a replayed spool batch: {e}");
            return (report, true);
        }
        report.batches += 1;
    }
    (report, false)
}

/// The first wait before a drain that stopped with records left is tried again; it
/// doubles on every failure up to [`RETRY_MAX`] (a full disk gets no busy loop), and a
/// drain that empties the spool resets it.
const RETRY_FIRST: std::time::Duration = std::time::Duration::from_secs(1);
/// The longest wait between two attempts: how long the spool may wait after the cause
/// (a full disk) went away.
const RETRY_MAX: std::time::Duration = std::time::Duration::from_secs(16);

/// True for an inotify event that may mean new records in the live spool file: data
/// written to it, or it was created or closed after writing.
fn spool_grew(ev: &notify::Event) -> bool {
    let kind = matches!(
        ev.kind,
        EventKind::Create(_)
            | EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Any)
            | EventKind::Access(AccessKind::Close(AccessMode::Write))
    );
    kind && ev
        .paths
        .iter()
        .any(|p| p.file_name().is_some_and(|n| n == SPOOL_FILE))
}

/// The running drain: dropping it stops the watch and the task.
pub struct SpoolWatch {
    _watcher: RecommendedWatcher,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for SpoolWatch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Watches the spool directory (created with mode 0700 when missing) with inotify and
/// drains the spool into the owner (through `cmd_tx`) whenever it grows, once at once
/// (records spooled between the start-up replay and this call). Must run inside a tokio
/// runtime.
///
/// Errors: the directory cannot be created, or the inotify watch cannot be set up.
pub fn watch(spool: Spool, cmd_tx: mpsc::Sender<Command>) -> Result<SpoolWatch, notify::Error> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(spool.dir())?;
    // Capacity one: kicks that arrive during a drain fold into one more pass.
    let (kick_tx, mut kick_rx) = mpsc::channel::<()>(1);
    let mut watcher =
        notify::recommended_watcher(move |res: notify::Result<notify::Event>| match res {
            Ok(ev) if spool_grew(&ev) => {
                let _ = kick_tx.try_send(());
            }
            Ok(_) => {}
            Err(e) => tracing::warn!("spool watch: {e}"),
        })?;
    watcher.watch(spool.dir(), RecursiveMode::NonRecursive)?;
    let task = tokio::spawn(async move {
        let mut retry = RETRY_FIRST;
        loop {
            let (report, stalled) = drain_running(&spool, &cmd_tx).await;
            if report != ReplayReport::default() {
                tracing::info!(
                    batches = report.batches,
                    applied = report.applied,
                    refused = report.refused,
                    torn = report.torn,
                    "drained the hook spool"
                );
            }
            if stalled {
                // Records are left (e.g. the disk is full): no new write may come to kick
                // the next pass, so try again after a growing wait. Kicks meanwhile fold
                // into that pass.
                tracing::warn!(
                    retry_ms = retry.as_millis() as u64,
                    "hook spool records are waiting; trying again"
                );
                tokio::time::sleep(retry).await;
                retry = (retry * 2).min(RETRY_MAX);
                let _ = kick_rx.try_recv();
                continue;
            }
            retry = RETRY_FIRST;
            if kick_rx.recv().await.is_none() {
                break;
            }
        }
    });
    Ok(SpoolWatch {
        _watcher: watcher,
        task,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn a_record_becomes_its_hook_call_with_its_own_time() {
        let mut context = BTreeMap::new();
        context.insert("pane".to_string(), serde_json::json!("p2"));
        context.insert("cwd".to_string(), serde_json::json!("/srv/x"));
        context.insert("pids".to_string(), serde_json::json!([[40, 7], [1, 1]]));
        let rec = SpoolRecord {
            delivery_id: "d1".into(),
            agent: "claude".into(),
            event: String::new(),
            payload: r#"{"session_id":"s","hook_event_name":"Stop"}"#.into(),
            context,
            arrived_at: 1234,
        };
        let ctx = context_of(&rec);
        assert_eq!(ctx.pane.as_deref(), Some("p2"));
        assert_eq!(ctx.delivery_id.as_deref(), Some("d1"));
        assert_eq!(ctx.pids, vec![(40, 7), (1, 1)]);
        let req = request_of(&rec).unwrap();
        assert_eq!(req.mapping.signal.at, Timestamp(1234));
        assert_eq!(req.delivery_id.as_deref(), Some("d1"));
    }

    #[test]
    fn a_record_from_the_future_or_before_the_epoch_is_applied_within_them() {
        let now = Timestamp(1_800_000_000_000);
        assert_eq!(
            arrival(1_700_000_000_000, now),
            Timestamp(1_700_000_000_000)
        );
        assert_eq!(arrival(4_000_000_000_000, now), now);
        assert_eq!(arrival(i64::MAX, now), now);
        assert_eq!(arrival(-5, now), Timestamp(0));
    }

    #[test]
    fn only_writes_to_the_live_spool_file_kick_a_drain() {
        let ev = |kind, name: &str| notify::Event {
            kind,
            paths: vec![PathBuf::from("/run/attend").join(name)],
            attrs: Default::default(),
        };
        let written = EventKind::Access(AccessKind::Close(AccessMode::Write));
        assert!(spool_grew(&ev(written, SPOOL_FILE)));
        assert!(spool_grew(&ev(
            EventKind::Modify(ModifyKind::Data(notify::event::DataChange::Any)),
            SPOOL_FILE
        )));
        assert!(!spool_grew(&ev(written, "hooks.spool.lock")));
        assert!(!spool_grew(&ev(
            EventKind::Remove(notify::event::RemoveKind::File),
            SPOOL_FILE
        )));
    }
}
