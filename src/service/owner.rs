//! The owner task: the one task that owns the [`World`], the [`Db`] and every
//! [`PtyHandle`], and applies everything (the Pika Backup pattern: the D-Bus methods only
//! send a [`Command`] with a oneshot reply).
//!
//! Each turn of the loop takes whatever is queued (commands and PTY events), applies it
//! all, commits the batch with one [`Db::commit`], and only then sends the replies, runs
//! the deferred effects (typing an answer) and emits the D-Bus signals (never acknowledge
//! before commit:
//! `docs/decisions/0005-one-service-thin-clients.md#acknowledged-means-committed`).

mod commands;
mod explain;
mod gates;
mod hooks;
mod panes;
mod remote;
mod remove;
mod tmux;
mod tmux_acts;
mod tmux_seats;

use crate::adapters::terminal_signals::to_signal;
use crate::engine::machine::Input;
use crate::engine::World;
use crate::model::{AgentKind, Event, PaneId, Signal, SignalKind, Source, Timestamp};
use crate::service::bus::error::Attend1Error;
use crate::service::bus::interface::{emit_event, Attend1, OBJECT_PATH};
use crate::service::command::{Command, HookRequest, Reply};
use crate::service::evidence::ladder_host::{LadderHost, Outcome};
use crate::service::processes::procwatch::ProcWatch;
use crate::service::pty::{EventTx, PtyEvent, PtyRegistry};
use crate::service::remotes::Remotes;
use crate::service::store::db::{Db, RemoteWrites};
use crate::service::surfaces::Surfaces;
use crate::system::clock::now;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::Future;
use std::path::PathBuf;
use tokio::sync::mpsc;
use zbus::object_server::SignalEmitter;

/// Most commands or PTY events applied in one batch (one commit).
const MAX_BATCH: usize = 256;
/// Most PTY events one batch takes once it owes a reply (a hook, a user command): the
/// reply waits for the batch's commit, so screen updates get only this bounded share of
/// it, and still get it every turn (a stream of hooks never starves the panes).
const PTY_EVENTS_BESIDE_REPLIES: usize = 8;
/// Most events one `Events` call returns (also what a limit of 0 asks for).
const MAX_EVENTS: u32 = 10_000;

/// A hook held back while its session's workspace is looked up, with its reply.
type HeldHook = (HookRequest, Reply<u64>);

type Respond = Box<dyn FnOnce(Option<Attend1Error>) + Send>;
type Effect = Box<dyn FnOnce(&mut Owner) + Send>;

/// The open gate of one external pane whose `PermissionRequest` hook run may wait for a
/// choice made in Attend (src/service/owner/gates.rs).
#[derive(Debug)]
struct Gate {
    /// The delivery id of the `PermissionRequest` hook that opened it.
    delivery: String,
    /// The decision it opened.
    decision: u64,
    /// The waiting hook run (its `AwaitGate` reply), once it asked.
    waiter: Option<Reply<String>>,
}

/// What one batch changed and owes.
#[derive(Default)]
struct Batch {
    touched: BTreeSet<PaneId>,
    events: Vec<Event>,
    deliveries: Vec<(String, u64, Timestamp)>,
    replies: Vec<Respond>,
    effects: Vec<Effect>,
    focus_requests: Vec<PaneId>,
    /// Remote events stamped and remotes forgotten (src/service/owner/remote.rs).
    remote: RemoteWrites,
}

impl Batch {
    fn respond<T: Send + 'static>(&mut self, reply: Reply<T>, result: Result<T, Attend1Error>) {
        self.replies.push(Box::new(move |failed| {
            // A failed commit turns a success into `Internal`; an error stays what it was.
            let _ = reply.send(match failed {
                Some(e) if result.is_ok() => Err(e),
                _ => result,
            });
        }));
    }

    fn record(&mut self, pane: PaneId, events: Vec<Event>) {
        self.touched.insert(pane);
        self.events.extend(events);
    }

    fn is_empty(&self) -> bool {
        self.is_local_empty() && self.remote.is_empty()
    }

    /// True when no local pane or event changed (the surfaces have nothing new).
    fn is_local_empty(&self) -> bool {
        self.touched.is_empty() && self.events.is_empty() && self.deliveries.is_empty()
    }
}

/// Settings the owner needs besides its state.
pub struct OwnerConfig {
    /// The attach socket `Attach` hands out.
    pub attach_socket: PathBuf,
    /// Scrollback lines per pane.
    pub scrollback: usize,
    /// Remove exited, reviewed panes this long after their exit (`[panes]
    /// remove_exited_after` in config.toml; `None`, the default: never;
    /// `docs/lifecycle-attention.md#removing-panes`).
    pub remove_exited_after: Option<std::time::Duration>,
    /// The pane holders that keep the programs this daemon starts (they outlive it).
    pub holders: crate::service::pty::holders::Holders,
}

/// The owner task's state.
pub struct Owner {
    world: World,
    db: Db,
    ptys: PtyRegistry,
    /// The environment each owned pane was last spawned with (for `Resume`).
    envs: HashMap<PaneId, BTreeMap<String, String>>,
    /// Panes whose holder listens but could not be taken over at start-up
    /// (src/service/pty/holders.rs `scan`): their programs run on, so they stay `running`
    /// and `Resume` refuses them.
    unadopted: std::collections::HashSet<PaneId>,
    /// Panes whose holder was told that their program's exit is collected: it is ending,
    /// and its socket may still answer for a moment, which is no program running.
    collected: std::collections::HashSet<PaneId>,
    /// The PTYs' bounded event queue (src/service/pty.rs [`crate::service::pty::event_channel`]).
    pty_tx: EventTx,
    cmd_tx: mpsc::Sender<Command>,
    conn: zbus::Connection,
    config: OwnerConfig,
    /// The agent processes of external panes (src/service/processes/procwatch.rs).
    procs: ProcWatch,
    /// The evidence ladder of every pane (src/service/evidence/ladder_host.rs).
    ladder: LadderHost,
    /// The desktop surfaces, fed after each commit (src/service/surfaces).
    surfaces: Surfaces,
    /// The link supervisor: the mirrored panes `NextUnread` merges (src/service/remotes).
    remotes: Remotes,
    /// Hooks that are the first sight of an external session (agent, session id), held
    /// in arrival order while its workspace is looked up off this task
    /// ([`Command::FirstSight`]).
    first_sight: HashMap<(AgentKind, String), Vec<HeldHook>>,
    /// Removals waiting for the exit of a pane they killed (src/service/bus/removal.rs).
    exit_waiters: HashMap<PaneId, Vec<tokio::sync::oneshot::Sender<()>>>,
    /// The automatic removal's one timer, armed only while a candidate exists.
    auto_timer: Option<(Timestamp, tokio::task::JoinHandle<()>)>,
    /// The answerable gates of external panes (src/service/owner/gates.rs).
    gates: HashMap<PaneId, Gate>,
    /// The follower of the user's tmux (src/service/tmux/); `None` when off.
    tmux: Option<crate::service::tmux::Follower>,
    /// Panes tmux focused, and resumes waiting for their tmux pane (src/service/owner/tmux_seats.rs).
    seats: tmux_seats::Seats,
}

impl Owner {
    /// An owner of `world` (already loaded from and consistent with `db`).
    pub fn new(
        world: World,
        db: Db,
        pty_tx: EventTx,
        cmd_tx: mpsc::Sender<Command>,
        conn: zbus::Connection,
        config: OwnerConfig,
    ) -> Owner {
        let ptys = PtyRegistry::default();
        Owner {
            world,
            db,
            ladder: LadderHost::start(cmd_tx.clone(), ptys.clone()),
            ptys,
            envs: HashMap::new(),
            unadopted: Default::default(),
            collected: Default::default(),
            pty_tx,
            cmd_tx,
            conn,
            config,
            procs: ProcWatch::default(),
            surfaces: Surfaces::default(),
            remotes: Remotes::default(),
            first_sight: HashMap::new(),
            exit_waiters: HashMap::new(),
            auto_timer: None,
            gates: HashMap::new(),
            tmux: None,
            seats: Default::default(),
        }
    }

    /// Follows the user's tmux through `follower` from now on (hooks name servers to it).
    pub fn set_tmux(&mut self, follower: crate::service::tmux::Follower) {
        self.tmux = Some(follower);
    }

    /// Feeds `surfaces` from now on, starting with the current state.
    pub fn set_surfaces(&mut self, surfaces: Surfaces) {
        surfaces.publish(&[], &self.world, self.gates.keys().copied());
        self.surfaces = surfaces;
    }

    /// Reads the mirrored panes of `remotes` from now on (`NextUnread`).
    pub fn set_remotes(&mut self, remotes: Remotes) {
        self.remotes = remotes;
    }

    /// The PTY registry (for the attach server's lookups).
    pub fn ptys(&self) -> PtyRegistry {
        self.ptys.clone()
    }

    /// Start-up (`docs/dbus-api.md#start-up-and-files`): every pane whose process ran under
    /// the previous daemon is gone now. It becomes exited with its last lifecycle and
    /// attention intact (no failure is invented: code and signal unknown), emits
    /// `pane.exited`, and the batch is committed. Returns the number of panes marked.
    pub fn mark_gone_after_restart(&mut self) -> Result<usize, crate::service::store::db::DbError> {
        let at = now();
        let gone: Vec<PaneId> = self
            .world
            .panes()
            .values()
            .filter(|p| p.owned && p.live.is_running())
            .map(|p| p.id)
            .filter(|id| !self.ptys.lock().contains_key(id) && !self.unadopted.contains(id))
            .collect();
        let mut events = Vec::new();
        for id in &gone {
            if let Ok((evs, _)) = self.world.step(*id, Input::Vanished, at) {
                events.extend(evs);
            }
        }
        let ids: Vec<PaneId> = self.world.panes().keys().copied().collect();
        for id in ids {
            let unfocus = Input::Action(crate::model::Action::Unfocus);
            if let Ok((evs, _)) = self.world.step(id, unfocus, at) {
                events.extend(evs);
            }
        }
        let touched: Vec<PaneId> = self.world.panes().keys().copied().collect();
        if !touched.is_empty() {
            self.db.commit(&self.world, &touched, &events, &[])?;
        }
        Ok(gone.len())
    }

    /// Runs until `shutdown` resolves or every sender is gone.
    pub async fn run(
        mut self,
        mut cmd_rx: mpsc::Receiver<Command>,
        mut pty_rx: mpsc::Receiver<PtyEvent>,
        shutdown: impl Future<Output = ()>,
    ) {
        tokio::pin!(shutdown);
        // The automatic removal applies at start too: panes that fell due while the
        // daemon was away go in the first turn.
        self.arm_auto_removal();
        loop {
            let mut batch = Batch::default();
            // Hooks and user commands before screen updates (`biased`: in this order).
            tokio::select! {
                biased;
                _ = &mut shutdown => break,
                cmd = cmd_rx.recv() => match cmd {
                    Some(cmd) => self.command(cmd, &mut batch),
                    None => break,
                },
                Some(ev) = pty_rx.recv() => self.pty_event(ev, &mut batch),
            }
            self.fill(&mut batch, &mut cmd_rx, &mut pty_rx);
            self.finish(batch).await;
        }
        tracing::info!("owner loop stopped");
    }

    /// Fills `batch` after its first item: every queued command first, then PTY events,
    /// up to [`MAX_BATCH`] while the batch owes no reply and [`PTY_EVENTS_BESIDE_REPLIES`]
    /// once it does; a command that arrives meanwhile joins the batch at once. So a hook
    /// waits behind a bounded amount of screen work, never behind a full queue of it.
    fn fill(
        &mut self,
        batch: &mut Batch,
        cmd_rx: &mut mpsc::Receiver<Command>,
        pty_rx: &mut mpsc::Receiver<PtyEvent>,
    ) {
        let (mut commands, mut events) = (0, 0);
        while events < MAX_BATCH && (batch.replies.is_empty() || events < PTY_EVENTS_BESIDE_REPLIES)
        {
            if commands < MAX_BATCH {
                if let Ok(cmd) = cmd_rx.try_recv() {
                    self.command(cmd, batch);
                    commands += 1;
                    continue;
                }
            }
            let Ok(ev) = pty_rx.try_recv() else {
                break;
            };
            self.pty_event(ev, batch);
            events += 1;
        }
    }

    /// Commits the batch, then replies, runs effects and emits signals.
    async fn finish(&mut self, mut batch: Batch) {
        self.settle_gates(&mut batch);
        let store = !batch.is_empty();
        let local = !batch.is_local_empty();
        let Batch {
            touched,
            events,
            deliveries,
            replies,
            effects,
            focus_requests,
            remote,
        } = batch;
        if store {
            let touched: Vec<PaneId> = touched.into_iter().collect();
            let committed =
                self.db
                    .commit_batch(&self.world, &touched, &events, &deliveries, &remote);
            if let Err(e) = committed {
                tracing::error!("commit failed, the batch is rolled back: {e}");
                let err = Attend1Error::Internal(format!("cannot store the change: {e}"));
                for r in replies {
                    r(Some(err.clone()));
                }
                self.reload();
                return;
            }
        }
        let replied = !replies.is_empty();
        for r in replies {
            r(None);
        }
        // Let the woken D-Bus method tasks send their replies before the effects and
        // signals go out (an agent's hook waits for its reply:
        // `docs/adapters.md#never-block-never-fail-never-lose`).
        if replied {
            tokio::task::yield_now().await;
        }
        for effect in effects {
            effect(self);
        }
        // Remote events are never the surfaces' (the mirror raises their own
        // notifications): only a local change is published.
        if local {
            self.surfaces
                .publish(&events, &self.world, self.gates.keys().copied());
            self.arm_auto_removal();
        }
        // Most batches of a working agent's screen (its spinner) have nothing to say.
        if events.is_empty() && remote.stamps.is_empty() && focus_requests.is_empty() {
            return;
        }
        let emitter = match SignalEmitter::new(&self.conn, OBJECT_PATH) {
            Ok(e) => e,
            Err(e) => {
                tracing::error!("cannot emit signals: {e}");
                return;
            }
        };
        // In seq order, local and remote events interleaved as stamped.
        let mut stamps = remote.stamps.iter().peekable();
        for e in &events {
            while let Some(r) = stamps.next_if(|r| r.seq < e.seq) {
                Self::emit_remote(&emitter, r).await;
            }
            if let Err(err) = emit_event(&emitter, e).await {
                tracing::warn!(seq = e.seq, "cannot emit signal: {err}");
            }
        }
        for r in stamps {
            Self::emit_remote(&emitter, r).await;
        }
        for p in focus_requests {
            if let Err(err) = Attend1::focus_requested(&emitter, &p.to_string()).await {
                tracing::warn!("cannot emit FocusRequested: {err}");
            }
        }
    }

    /// After a failed commit: the stored world is the truth again. PTYs of panes that
    /// exist only in the rolled-back batch are killed.
    fn reload(&mut self) {
        match self.db.load() {
            Ok(world) => {
                self.world = world;
                let mut ptys = self.ptys.lock();
                let orphans: Vec<PaneId> = ptys
                    .keys()
                    .filter(|id| !self.world.panes().contains_key(id))
                    .copied()
                    .collect();
                for id in orphans {
                    if let Some(h) = ptys.remove(&id) {
                        let _ = h.kill(libc::SIGKILL);
                    }
                }
            }
            Err(e) => tracing::error!("cannot reload the stored state: {e}"),
        }
    }

    fn apply(&mut self, pane: PaneId, signal: &Signal, batch: &mut Batch) {
        let before = self.world.panes().get(&pane).cloned();
        let Ok(events) = self.world.apply_signal(pane, signal) else {
            return;
        };
        let ladder = self
            .ladder
            .after_signal(&mut self.world, pane, signal, &events, now());
        let after = self.world.panes().get(&pane);
        let old_cwd = before.as_ref().and_then(|p| p.cwd.clone());
        // A title that changed alone (an agent's spinner animates it) is stored with the
        // pane's next other change: no commit and no surface update per frame.
        let changed = match (before, after) {
            (Some(b), Some(a)) => b != *a && !b.differs_in_title_only(a),
            (b, a) => b.as_ref() != a,
        };
        if !events.is_empty() || changed {
            batch.record(pane, events);
        }
        if let Some(new_cwd) = after.and_then(|p| p.cwd.clone()) {
            if Some(&new_cwd) != old_cwd.as_ref() {
                self.lookup_git(pane, new_cwd);
            }
        }
        self.ladder_outcome(ladder, batch);
    }

    /// Records the ladder's events, applies its correction signals and types its keys.
    fn ladder_outcome(&mut self, out: Outcome, batch: &mut Batch) {
        for e in out.events {
            batch.record(e.pane, vec![e]);
        }
        for (pane, signal) in out.signals {
            self.apply(pane, &signal, batch);
        }
        for (pane, keys) in out.keys {
            if let Some(h) = self.ptys.lock().get(&pane) {
                if let Err(e) = h.write(keys.as_bytes()) {
                    tracing::warn!(%pane, "cannot type the answer's Enter: {e}");
                }
            }
        }
    }

    fn pty_event(&mut self, ev: PtyEvent, batch: &mut Batch) {
        match ev {
            PtyEvent::Output {
                pane,
                events,
                printable,
            } => {
                if !self.world.panes().contains_key(&pane) {
                    return;
                }
                let at = now();
                for te in &events {
                    if let Some(signal) = to_signal(te, at) {
                        self.apply(pane, &signal, batch);
                    }
                }
                let agent = self.world.pane(pane).map(|p| p.agent).unwrap_or_default();
                if printable && crate::engine::output_is_signal(agent) {
                    let signal = Signal::new(SignalKind::Output, Source::terminal("output"), at);
                    self.apply(pane, &signal, batch);
                }
                let ladder = self
                    .ladder
                    .on_output(&mut self.world, pane, &events, printable, at);
                self.ladder_outcome(ladder, batch);
            }
            PtyEvent::Exited { pane, code, signal } => {
                if self
                    .world
                    .panes()
                    .get(&pane)
                    .is_some_and(|p| self.procs.stale_exit(p))
                {
                    return;
                }
                let pty = self.ptys.lock().remove(&pane);
                // Its holder may end now.
                for p in pty.iter() {
                    p.collected();
                    self.collected.insert(pane);
                }
                // An exit a holder recorded during an outage keeps its time.
                let at = now();
                let at = pty
                    .and_then(|p| p.exit_at())
                    .map(|ms| crate::model::Timestamp(ms as i64))
                    .filter(|t| *t <= at)
                    .unwrap_or(at);
                let s = Signal::new(
                    SignalKind::ProcessExited { code, signal },
                    Source::process("exit"),
                    at,
                );
                self.apply(pane, &s, batch);
                self.exited_for_removal(pane, batch);
            }
        }
    }
}
