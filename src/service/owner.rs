//! The owner task: the one task that owns the [`World`], the [`Db`] and every
//! [`PtyHandle`], and applies everything (the Pika Backup pattern: the D-Bus methods only
//! send a [`Command`] with a oneshot reply).
//!
//! Each turn of the loop takes whatever is queued (commands and PTY events), applies it
//! all, commits the batch with one [`Db::commit`], and only then sends the replies, runs
//! the deferred effects (typing an answer) and emits the D-Bus signals (issue 3: "never
//! acknowledge before commit").

use super::command::{Command, GitInfo, HookRequest, Reply, RunSpec};
use super::db::Db;
use super::dbus::{emit_event, event_tuple, now, Attend1, Attend1Error, OBJECT_PATH};
use super::git;
use super::intake::workspace_blocking;
use super::ladder_host::{LadderCommand, LadderHost, Outcome};
use super::procwatch::{self, Armed, ProcWatch};
use super::pty::{EventTx, PtyEvent, PtyHandle, SpawnSpec};
use super::surfaces::Surfaces;
use super::wire::{pane_dict, workspace_dict, Dict, DictBuilder};
use crate::adapters::terminal::to_signal;
use crate::engine::{summarize_workspaces, NewPane, World};
use crate::model::{
    Action, AgentKind, Decision, Event, EventKind, Live, PaneId, Signal, SignalKind, Source,
    Timestamp,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::mpsc;
use zbus::object_server::SignalEmitter;

/// Most commands or PTY events applied in one batch (one commit).
const MAX_BATCH: usize = 256;
/// Most events one `Events` call returns (also what a limit of 0 asks for).
const MAX_EVENTS: u32 = 10_000;

type Respond = Box<dyn FnOnce(Option<Attend1Error>) + Send>;
type Effect = Box<dyn FnOnce(&mut Owner) + Send>;

/// What one batch changed and owes.
#[derive(Default)]
struct Batch {
    touched: BTreeSet<PaneId>,
    events: Vec<Event>,
    deliveries: Vec<(String, u64, Timestamp)>,
    replies: Vec<Respond>,
    effects: Vec<Effect>,
    focus_requests: Vec<PaneId>,
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
        self.touched.is_empty() && self.events.is_empty() && self.deliveries.is_empty()
    }
}

/// The live PTYs by pane, shared with the attach server (which only looks them up).
pub type PtyRegistry = Arc<Mutex<HashMap<PaneId, PtyHandle>>>;

/// Locks the registry (a panic elsewhere does not make it unusable).
pub fn lock(r: &PtyRegistry) -> MutexGuard<'_, HashMap<PaneId, PtyHandle>> {
    r.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Settings the owner needs besides its state.
pub struct OwnerConfig {
    /// The attach socket `Attach` hands out.
    pub attach_socket: PathBuf,
    /// Scrollback lines per pane.
    pub scrollback: usize,
}

/// The owner task's state.
pub struct Owner {
    world: World,
    db: Db,
    ptys: PtyRegistry,
    /// The environment each owned pane was last spawned with (for `Resume`).
    envs: HashMap<PaneId, BTreeMap<String, String>>,
    /// The PTYs' bounded event queue (src/service/pty.rs [`super::pty::event_channel`]).
    pty_tx: EventTx,
    cmd_tx: mpsc::Sender<Command>,
    conn: zbus::Connection,
    config: OwnerConfig,
    /// The agent processes of external panes (src/service/procwatch.rs).
    procs: ProcWatch,
    /// The evidence ladder of every pane (src/service/ladder_host.rs).
    ladder: LadderHost,
    /// The desktop surfaces, fed after each commit (src/service/surfaces).
    surfaces: Surfaces,
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
            pty_tx,
            cmd_tx,
            conn,
            config,
            procs: ProcWatch::default(),
            surfaces: Surfaces::default(),
        }
    }

    /// Feeds `surfaces` from now on, starting with the current state.
    pub fn set_surfaces(&mut self, surfaces: Surfaces) {
        surfaces.publish(&[], &self.world.panes);
        self.surfaces = surfaces;
    }

    /// The PTY registry (for the attach server's lookups).
    pub fn ptys(&self) -> PtyRegistry {
        self.ptys.clone()
    }

    /// Appends an event the engine has no entry point for (restart, resume, git facts),
    /// with the next seq.
    fn stamp(&mut self, pane: PaneId, kind: EventKind, source: Source, at: Timestamp) -> Event {
        self.world.seq += 1;
        Event {
            seq: self.world.seq,
            pane,
            kind,
            source,
            at,
        }
    }

    /// Start-up (issue 3 "On start"): every pane whose process ran under the previous
    /// daemon is gone now. It becomes exited with its last lifecycle and attention intact
    /// (no failure is invented: code and signal unknown), emits `pane.exited`, and the
    /// batch is committed. Returns the number of panes marked.
    pub fn mark_gone_after_restart(&mut self) -> Result<usize, super::db::DbError> {
        let at = now();
        let gone: Vec<PaneId> = self
            .world
            .panes
            .values()
            .filter(|p| p.owned && p.live.is_running())
            .map(|p| p.id)
            .collect();
        let mut events = Vec::new();
        for id in &gone {
            if let Some(p) = self.world.panes.get_mut(id) {
                p.last_lifecycle = Some(p.lifecycle);
                p.live = Live::Exited {
                    code: None,
                    signal: None,
                };
            }
            let ev = self.stamp(
                *id,
                EventKind::PaneExited {
                    code: None,
                    signal: None,
                },
                Source::process("daemon-restart"),
                at,
            );
            events.push(ev);
        }
        for p in self.world.panes.values_mut() {
            p.focused = false;
        }
        let touched: Vec<PaneId> = self.world.panes.keys().copied().collect();
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
        loop {
            let mut batch = Batch::default();
            tokio::select! {
                _ = &mut shutdown => break,
                cmd = cmd_rx.recv() => match cmd {
                    Some(cmd) => self.command(cmd, &mut batch),
                    None => break,
                },
                Some(ev) = pty_rx.recv() => self.pty_event(ev, &mut batch),
            }
            for _ in 0..MAX_BATCH {
                let mut took = false;
                if let Ok(cmd) = cmd_rx.try_recv() {
                    self.command(cmd, &mut batch);
                    took = true;
                }
                if let Ok(ev) = pty_rx.try_recv() {
                    self.pty_event(ev, &mut batch);
                    took = true;
                }
                if !took {
                    break;
                }
            }
            self.finish(batch).await;
        }
        tracing::info!("owner loop stopped");
    }

    /// Commits the batch, then replies, runs effects and emits signals.
    async fn finish(&mut self, batch: Batch) {
        let store = !batch.is_empty();
        let Batch {
            touched,
            events,
            deliveries,
            replies,
            effects,
            focus_requests,
        } = batch;
        if store {
            let touched: Vec<PaneId> = touched.into_iter().collect();
            if let Err(e) = self.db.commit(&self.world, &touched, &events, &deliveries) {
                tracing::error!("commit failed, the batch is rolled back: {e}");
                let err = Attend1Error::Internal(format!("cannot store the change: {e}"));
                for r in replies {
                    r(Some(err.clone()));
                }
                self.reload();
                return;
            }
        }
        for r in replies {
            r(None);
        }
        // Let the woken D-Bus method tasks send their replies before the effects and
        // signals go out (an agent's hook waits for its reply; issue 4 "Performance").
        tokio::task::yield_now().await;
        for effect in effects {
            effect(self);
        }
        if store {
            self.surfaces.publish(&events, &self.world.panes);
        }
        let emitter = match SignalEmitter::new(&self.conn, OBJECT_PATH) {
            Ok(e) => e,
            Err(e) => {
                tracing::error!("cannot emit signals: {e}");
                return;
            }
        };
        for e in &events {
            if let Err(err) = emit_event(&emitter, e).await {
                tracing::warn!(seq = e.seq, "cannot emit signal: {err}");
            }
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
                let mut ptys = lock(&self.ptys);
                let orphans: Vec<PaneId> = ptys
                    .keys()
                    .filter(|id| !self.world.panes.contains_key(id))
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
        let before = self.world.panes.get(&pane).cloned();
        let Ok(events) = self.world.apply_signal(pane, signal) else {
            return;
        };
        let ladder = self
            .ladder
            .after_signal(&mut self.world, pane, signal, &events, now());
        let after = self.world.panes.get(&pane);
        if !events.is_empty() || before.as_ref() != after {
            batch.record(pane, events);
        }
        let old_cwd = before.and_then(|p| p.cwd);
        if let Some(new_cwd) = after.and_then(|p| p.cwd.clone()) {
            if Some(&new_cwd) != old_cwd.as_ref() {
                self.lookup_git(pane, new_cwd);
            }
        }
        self.ladder_outcome(ladder, batch);
    }

    /// Records the ladder's events and applies its correction signals.
    fn ladder_outcome(&mut self, out: Outcome, batch: &mut Batch) {
        for e in out.events {
            batch.record(e.pane, vec![e]);
        }
        for (pane, signal) in out.signals {
            self.apply(pane, &signal, batch);
        }
    }

    /// Tasks and holds (CONTRACT §5) and the ladder's watcher and timer inputs.
    fn ladder_command(&mut self, cmd: LadderCommand, batch: &mut Batch) {
        let at = now();
        match cmd {
            LadderCommand::AddTask(id, text, reply) => {
                let r = self.world.add_task(id, &text, at).map(|(task, events)| {
                    batch.record(id, events);
                    task
                });
                batch.respond(reply, r.map_err(Into::into));
            }
            LadderCommand::SetTaskState(task, state, message, reply) => {
                let r = self
                    .world
                    .set_task_state(task, state, message.as_deref(), Source::user(), at)
                    .map(|events| {
                        if let Some(e) = events.first() {
                            batch.record(e.pane, events);
                        }
                    });
                batch.respond(reply, r.map_err(Into::into));
            }
            LadderCommand::SetHold(id, hold, reply) => {
                let r = self
                    .world
                    .set_hold(id, hold, at)
                    .map(|events| batch.record(id, events));
                batch.respond(reply, r.map_err(Into::into));
            }
            LadderCommand::Input(input) => {
                let out = self.ladder.input(&mut self.world, input, at);
                self.ladder_outcome(out, batch);
            }
        }
    }

    /// A pane dictionary with the ladder's read-time keys (taxonomy, diagnoses, tasks,
    /// hold).
    fn pane_info(&self, p: &crate::model::Pane) -> Dict {
        let mut d = pane_dict(p);
        d.extend(self.ladder.pane_extras(p, now()));
        d
    }

    /// Reads repo and branch for `cwd` off the owner task; the answer comes back as
    /// [`Command::Git`].
    fn lookup_git(&self, pane: PaneId, cwd: String) {
        let tx = self.cmd_tx.clone();
        tokio::task::spawn_blocking(move || {
            let info = git::info(&cwd);
            let _ = tx.blocking_send(Command::Git(pane, cwd, info));
        });
    }

    fn pty_event(&mut self, ev: PtyEvent, batch: &mut Batch) {
        match ev {
            PtyEvent::Output {
                pane,
                events,
                printable,
            } => {
                if !self.world.panes.contains_key(&pane) {
                    return;
                }
                let at = now();
                for te in &events {
                    if let Some(signal) = to_signal(te, at) {
                        self.apply(pane, &signal, batch);
                    }
                }
                if printable {
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
                    .panes
                    .get(&pane)
                    .is_some_and(|p| self.procs.stale_exit(p))
                {
                    return;
                }
                lock(&self.ptys).remove(&pane);
                let s = Signal::new(
                    SignalKind::ProcessExited { code, signal },
                    Source::process("exit"),
                    now(),
                );
                self.apply(pane, &s, batch);
            }
        }
    }

    fn command(&mut self, cmd: Command, batch: &mut Batch) {
        match cmd {
            Command::Run(spec, reply) => {
                let r = self.run_pane(spec, batch);
                batch.respond(reply, r);
            }
            Command::ListPanes(reply) => {
                let panes = self
                    .world
                    .panes
                    .values()
                    .map(|p| self.pane_info(p))
                    .collect();
                batch.respond(reply, Ok(panes));
            }
            Command::GetPane(id, reply) => {
                let r = self
                    .world
                    .pane(id)
                    .map(|p| self.pane_info(p))
                    .map_err(Into::into);
                batch.respond(reply, r);
            }
            Command::ListWorkspaces(reply) => {
                let ws = summarize_workspaces(self.world.panes.values(), now())
                    .iter()
                    .map(workspace_dict)
                    .collect();
                batch.respond(reply, Ok(ws));
            }
            Command::Act(id, action, reply) => {
                let r = self.act(id, &action, batch);
                batch.respond(reply, r);
            }
            Command::Focus(id, reply) => {
                let r = self.act(id, &Action::NotificationClicked, batch);
                if r.is_ok() {
                    batch.focus_requests.push(id);
                }
                batch.respond(reply, r);
            }
            Command::Answer(id, choice, reply) => {
                let r = self.answer(id, &choice, batch);
                batch.respond(reply, r);
            }
            Command::NextUnread(reply) => {
                let next = self.world.next_unread().map(|p| p.to_string());
                batch.respond(reply, Ok(next.unwrap_or_default()));
            }
            Command::SendInput(id, data, reply) => {
                let r = self.handle(id).and_then(|h| {
                    h.write(&data)
                        .map_err(|e| Attend1Error::Internal(format!("cannot write to {id}: {e}")))
                });
                batch.respond(reply, r);
            }
            Command::Resize(id, rows, cols, reply) => {
                let r = self.handle(id).and_then(|h| {
                    h.resize(rows, cols)
                        .map_err(|e| Attend1Error::Internal(format!("cannot resize {id}: {e}")))
                });
                batch.respond(reply, r);
            }
            Command::Kill(id, signal, reply) => {
                let r = self.handle(id).and_then(|h| {
                    h.kill(signal)
                        .map_err(|e| Attend1Error::Internal(format!("cannot signal {id}: {e}")))
                });
                batch.respond(reply, r);
            }
            Command::Resume(id, reply) => {
                let r = self.resume(id, batch);
                batch.respond(reply, r);
            }
            Command::Attach(id, reply) => {
                let r = self
                    .handle(id)
                    .map(|_| self.config.attach_socket.to_string_lossy().into_owned());
                batch.respond(reply, r);
            }
            Command::Events(after, limit, reply) => {
                let r = self
                    .db
                    .events_after(
                        after,
                        if limit == 0 {
                            MAX_EVENTS
                        } else {
                            limit.min(MAX_EVENTS)
                        },
                    )
                    .map(|evs| evs.iter().map(event_tuple).collect())
                    .map_err(|e| Attend1Error::Internal(format!("cannot read events: {e}")));
                batch.respond(reply, r);
            }
            Command::Hook(req, reply) => {
                let r = self.hook(*req, batch);
                batch.respond(reply, r);
            }
            Command::Explain(id, reply) => {
                let r = self.explain(id, batch);
                batch.respond(reply, r);
            }
            Command::GetScreen(id, reply) => {
                let r = self.handle(id).map(|h| h.screen_text());
                batch.respond(reply, r);
            }
            Command::Git(id, cwd, info) => self.git_facts(id, &cwd, &info, batch),
            Command::Ladder(cmd) => self.ladder_command(cmd, batch),
        }
    }

    fn act(&mut self, id: PaneId, action: &Action, batch: &mut Batch) -> Result<(), Attend1Error> {
        let before = self.world.pane(id)?.clone();
        let (events, _) = self.world.apply_action(id, action, now())?;
        if !events.is_empty() || self.world.panes.get(&id) != Some(&before) {
            batch.record(id, events);
        }
        Ok(())
    }

    /// The live PTY of an owned pane: `NoSuchPane`, `NotOwned` for an external pane,
    /// `InvalidArgument` when its process has exited.
    fn handle(&self, id: PaneId) -> Result<PtyHandle, Attend1Error> {
        let pane = self.world.pane(id)?;
        if !pane.owned {
            return Err(Attend1Error::NotOwned(format!(
                "pane {id} runs outside Attend (known through hooks only)"
            )));
        }
        lock(&self.ptys).get(&id).cloned().ok_or_else(|| {
            Attend1Error::InvalidArgument(format!("pane {id} is not running (resume it first)"))
        })
    }

    fn spawn(
        &mut self,
        id: PaneId,
        argv: &[String],
        cwd: Option<&str>,
        env: BTreeMap<String, String>,
        size: (u16, u16),
    ) -> Result<(), Attend1Error> {
        let mut env = env;
        env.insert(crate::config::PANE_ENV.into(), id.to_string());
        let cwd = cwd
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("/"));
        let spec = SpawnSpec {
            argv: argv.to_vec(),
            cwd,
            env: env.clone().into_iter().collect(),
            rows: size.0,
            cols: size.1,
            scrollback: self.config.scrollback,
        };
        // The error names the program and the OS error (errno).
        let handle = PtyHandle::spawn(id, &spec, self.pty_tx.clone())
            .map_err(|e| Attend1Error::SpawnFailed(e.to_string()))?;
        lock(&self.ptys).insert(id, handle);
        self.envs.insert(id, env);
        Ok(())
    }

    /// `Run`: spawn first, create the pane only when that worked (no half-created pane).
    fn run_pane(&mut self, spec: RunSpec, batch: &mut Batch) -> Result<String, Attend1Error> {
        let id = PaneId(self.world.last_pane + 1);
        self.spawn(
            id,
            &spec.argv,
            spec.cwd.as_deref(),
            spec.env,
            (spec.rows, spec.cols),
        )?;
        let (added, events) = self.world.add_pane(
            NewPane {
                workspace: spec.workspace,
                tab: spec.tab,
                name: spec.name,
                agent: spec.agent,
                cwd: spec.cwd,
                oneshot: spec.oneshot,
                session_id: None,
                command: spec.argv,
                owned: true,
            },
            now(),
        );
        debug_assert_eq!(added, id, "pane ids are handed out by this task only");
        set_git(&mut self.world, id, &spec.git);
        batch.record(id, events);
        Ok(id.to_string())
    }

    /// `Resume`: re-spawn an exited owned pane with its resume argv, else its command;
    /// same pane id; `pane.changed`.
    fn resume(&mut self, id: PaneId, batch: &mut Batch) -> Result<(), Attend1Error> {
        let pane = self.world.pane(id)?;
        if !pane.owned {
            return Err(Attend1Error::NotOwned(format!(
                "pane {id} runs outside Attend; resume it where it runs"
            )));
        }
        if pane.live.is_running() {
            return Err(Attend1Error::InvalidArgument(format!(
                "pane {id} is still running"
            )));
        }
        let argv = pane
            .resume_argv
            .clone()
            .filter(|a| !a.is_empty())
            .unwrap_or_else(|| pane.command.clone());
        if argv.is_empty() {
            return Err(Attend1Error::InvalidArgument(format!(
                "pane {id} has no command to resume"
            )));
        }
        let cwd = pane.cwd.clone();
        let env = self.envs.get(&id).cloned().unwrap_or_default();
        self.spawn(id, &argv, cwd.as_deref(), env, (24, 80))?;
        let at = now();
        if let Some(p) = self.world.panes.get_mut(&id) {
            p.live = Live::Running;
            p.last_lifecycle = None;
            p.focused = false;
        }
        let ev = self.stamp(id, EventKind::PaneChanged, Source::process("resume"), at);
        batch.record(id, vec![ev]);
        Ok(())
    }

    fn answer(&mut self, id: PaneId, choice: &str, batch: &mut Batch) -> Result<(), Attend1Error> {
        let pane = self.world.pane(id)?;
        let decision = pane
            .pending_decision
            .as_ref()
            .ok_or_else(|| Attend1Error::NoDecision(format!("pane {id} has no open decision")))?;
        let mut decision = decision.clone();
        if decision.answer_keys.is_empty() {
            // The screen manifest knows the dialog's keys (issue 5).
            decision.answer_keys = self.ladder.answer_keys(pane, decision.kind);
        }
        let keys = answer_keys(&decision, choice)?;
        self.handle(id)?;
        let (events, _) = self.world.apply_action(
            id,
            &Action::Answer {
                choice: choice.to_string(),
            },
            now(),
        )?;
        batch.record(id, events);
        batch.effects.push(Box::new(move |owner: &mut Owner| {
            if let Some(h) = lock(&owner.ptys).get(&id) {
                if let Err(e) = h.write(keys.as_bytes()) {
                    tracing::warn!(pane = %id, "cannot type the answer: {e}");
                }
            }
        }));
        Ok(())
    }

    fn hook(&mut self, req: HookRequest, batch: &mut Batch) -> Result<u64, Attend1Error> {
        if let Some(d) = &req.delivery_id {
            if let Some((_, seq, _)) = batch.deliveries.iter().find(|(x, _, _)| x == d) {
                return Ok(*seq);
            }
            let seen = self
                .db
                .delivery_seen(d)
                .map_err(|e| Attend1Error::Internal(format!("cannot check the delivery: {e}")))?;
            if let Some(seq) = seen {
                return Ok(seq);
            }
        }
        let at = req.mapping.signal.at;
        let pane = self.hook_pane(&req, batch)?;
        if let Some(id) = pane {
            if req.terminal.is_some() && !self.world.pane(id)?.owned {
                self.surfaces.note_terminal(id, req.terminal.clone());
            }
            let p = self.world.pane(id)?;
            if p.agent == AgentKind::Shell && req.mapping.agent != AgentKind::Shell {
                // An agent started inside a shell pane: from now on it is that agent's.
                if let Some(p) = self.world.panes.get_mut(&id) {
                    p.agent = req.mapping.agent;
                }
                let ev = self.stamp(
                    id,
                    EventKind::PaneChanged,
                    req.mapping.signal.source.clone(),
                    at,
                );
                batch.record(id, vec![ev]);
            }
            self.apply(id, &req.mapping.signal, batch);
            let ladder =
                self.ladder
                    .hook_process(&mut self.world, id, req.mapping.agent, &req.pids, at);
            self.ladder_outcome(ladder, batch);
        }
        let seq = self.world.seq;
        if let Some(d) = req.delivery_id {
            batch.deliveries.push((d, seq, at));
        }
        Ok(seq)
    }

    /// The pane a hook is about: the context's pane (its session must match a Codex
    /// notify's thread), else the external pane keyed by (agent, session id), created on
    /// first sight. `None`: the hook is dropped (a notify from another thread).
    fn hook_pane(
        &mut self,
        req: &HookRequest,
        batch: &mut Batch,
    ) -> Result<Option<PaneId>, Attend1Error> {
        let m = &req.mapping;
        let claim = req.pane.filter(|&id| {
            procwatch::claim_holds(
                &self.world,
                &self.ptys,
                id,
                &req.pids,
                m.session_id.as_ref(),
            )
        });
        if let Some(id) = claim {
            let p = self.world.pane(id)?;
            if let Some(thread) = &m.require_session {
                if p.session_id.as_ref() != Some(thread) {
                    return Ok(None);
                }
            }
            return Ok(Some(id));
        }
        let key = m.require_session.as_ref().or(m.session_id.as_ref());
        let Some(session) = key else {
            return Err(Attend1Error::InvalidArgument(
                "a hook from outside an Attend pane (no ATTEND_PANE) must carry a session id"
                    .into(),
            ));
        };
        let existing = self
            .world
            .panes
            .values()
            .find(|p| !p.owned && p.agent == m.agent && p.session_id.as_ref() == Some(session));
        if let Some(p) = existing {
            let id = p.id;
            self.watch_external(id, req, batch);
            return Ok(Some(id));
        }
        if m.require_session.is_some() {
            return Ok(None);
        }
        // First sight of this session: its workspace is the git top level of its cwd
        // (one `git` run, here and only here; not on every hook).
        let (workspace, git) = workspace_blocking(m.cwd.clone().or_else(|| req.cwd.clone()));
        let (id, events) = self.world.add_pane(
            NewPane {
                workspace,
                tab: String::new(),
                name: String::new(),
                agent: m.agent,
                cwd: m.cwd.clone(),
                oneshot: false,
                session_id: Some(session.clone()),
                command: Vec::new(),
                owned: false,
            },
            m.signal.at,
        );
        set_git(&mut self.world, id, &git);
        batch.record(id, events);
        self.watch_external(id, req, batch);
        Ok(Some(id))
    }

    /// Tracks the `live` of external pane `id` by its agent's process, picked from the
    /// hook's ancestors (src/service/procwatch.rs): a pane that had exited runs again
    /// when a hook comes from a living agent process (`pane.changed`).
    fn watch_external(&mut self, id: PaneId, req: &HookRequest, batch: &mut Batch) {
        let armed = self
            .procs
            .arm(id, req.mapping.agent, &req.pids, &self.pty_tx);
        let exited = self
            .world
            .panes
            .get(&id)
            .is_some_and(|p| !p.live.is_running());
        if matches!(armed, Armed::Watching(_)) && exited {
            if let Some(p) = self.world.panes.get_mut(&id) {
                p.live = Live::Running;
                p.last_lifecycle = None;
            }
            let source = req.mapping.signal.source.clone();
            let ev = self.stamp(id, EventKind::PaneChanged, source, req.mapping.signal.at);
            batch.record(id, vec![ev]);
        }
    }

    /// Applies spooled hook requests in order as one batch and commits it: the spool
    /// replay at start-up, before [`Owner::run`] serves any live `Hook` call
    /// (src/service/replay.rs). Returns each request's seq or why it was refused; when
    /// the commit fails every request fails with `Internal` (nothing was applied).
    pub async fn apply_hooks(&mut self, reqs: Vec<HookRequest>) -> Vec<Result<u64, Attend1Error>> {
        let mut batch = Batch::default();
        let mut replies = Vec::new();
        for req in reqs {
            let (tx, rx) = tokio::sync::oneshot::channel();
            let r = self.hook(req, &mut batch);
            batch.respond(tx, r);
            replies.push(rx);
        }
        self.finish(batch).await;
        replies
            .into_iter()
            .map(|mut rx| {
                rx.try_recv().unwrap_or_else(|_| {
                    Err(Attend1Error::Internal(
                        "the replayed hook got no answer".into(),
                    ))
                })
            })
            .collect()
    }

    /// `Explain` (for now): lifecycle and attention, each with the source and time of
    /// what set it.
    fn explain(&mut self, id: PaneId, batch: &Batch) -> Result<Dict, Attend1Error> {
        let pane = self.world.pane(id)?.clone();
        let is_lifecycle = |e: &Event| e.pane == id && matches!(e.kind, EventKind::Agent { .. });
        let mut last = batch.events.iter().rev().find(|e| is_lifecycle(e)).cloned();
        if last.is_none() {
            let mut after = 0;
            loop {
                let page = self
                    .db
                    .events_after(after, 1000)
                    .map_err(|e| Attend1Error::Internal(format!("cannot read events: {e}")))?;
                if let Some(e) = page.iter().rev().find(|e| is_lifecycle(e)) {
                    last = Some(e.clone());
                }
                match page.last() {
                    Some(e) if page.len() == 1000 => after = e.seq,
                    _ => break,
                }
            }
        }
        let shown = pane.attention();
        let item = pane
            .items
            .iter()
            .filter(|i| i.level == shown)
            .max_by_key(|i| i.at);
        let mut b = DictBuilder::new()
            .str("pane", &id.to_string())
            .str("lifecycle", pane.lifecycle.as_str())
            .str("attention", shown.as_str())
            .str("live", pane.live.as_str());
        if let Some(e) = last {
            b = b
                .str("lifecycle_source", &e.source.to_string())
                .time("lifecycle_at", Some(e.at))
                .put("lifecycle_seq", e.seq);
        }
        if let Some(i) = item {
            b = b
                .str("attention_source", &i.source.to_string())
                .time("attention_at", Some(i.at));
        }
        if let Some(d) = &pane.pending_decision {
            b = b.str("decision_source", &d.source.to_string());
        }
        let mut d = b.build();
        d.extend(self.ladder.explain(&pane, now()));
        Ok(d)
    }

    fn git_facts(&mut self, id: PaneId, cwd: &str, info: &GitInfo, batch: &mut Batch) {
        let Some(p) = self.world.panes.get(&id) else {
            return;
        };
        if p.cwd.as_deref() != Some(cwd) {
            return; // The cwd moved on again; a newer lookup is on its way.
        }
        let before = (p.repo.clone(), p.branch.clone());
        set_git(&mut self.world, id, info);
        let p = &self.world.panes[&id];
        if (p.repo.clone(), p.branch.clone()) != before {
            let ev = self.stamp(id, EventKind::PaneChanged, Source::terminal("cwd"), now());
            batch.record(id, vec![ev]);
        }
    }
}

/// Sets repo (the top level's directory name) and branch from `info`.
fn set_git(world: &mut World, id: PaneId, info: &GitInfo) {
    if let Some(p) = world.panes.get_mut(&id) {
        p.repo = info.toplevel.as_deref().map(git::repo_name);
        p.branch = info.branch.clone();
    }
}

/// The keys to type for `choice` (CONTRACT §3): the decision's answer key whose choice
/// matches (case-insensitive); else a number or a single character as typed; else
/// `InvalidArgument` listing the known choices.
pub fn answer_keys(decision: &Decision, choice: &str) -> Result<String, Attend1Error> {
    if let Some(k) = decision
        .answer_keys
        .iter()
        .find(|k| k.choice.eq_ignore_ascii_case(choice))
    {
        return Ok(k.keys.clone());
    }
    let raw = choice.chars().count() == 1 || choice.chars().all(|c| c.is_ascii_digit());
    if raw {
        return Ok(choice.to_string());
    }
    let known: Vec<&str> = decision
        .answer_keys
        .iter()
        .map(|k| k.choice.as_str())
        .collect();
    let known = if known.is_empty() {
        "none known; answer with the option's number or key".to_string()
    } else {
        known.join(", ")
    };
    Err(Attend1Error::InvalidArgument(format!(
        "unknown choice {choice:?} (choices: {known})"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AnswerKey, DecisionKind};

    fn decision(keys: &[(&str, &str)]) -> Decision {
        Decision {
            id: 1,
            kind: DecisionKind::Permission,
            prompt: "Bash: ls".into(),
            options: vec!["Yes".into(), "No".into()],
            answer_keys: keys
                .iter()
                .map(|(c, k)| AnswerKey {
                    choice: c.to_string(),
                    keys: k.to_string(),
                })
                .collect(),
            tool_use_id: None,
            source: Source::user(),
            opened_at: Timestamp(0),
        }
    }

    #[test]
    fn answer_keys_match_choices_case_insensitively_then_raw_keys() {
        let d = decision(&[("allow", "1"), ("deny", "3")]);
        assert_eq!(answer_keys(&d, "Allow").unwrap(), "1");
        assert_eq!(answer_keys(&d, "2").unwrap(), "2");
        assert_eq!(answer_keys(&d, "y").unwrap(), "y");
        let err = answer_keys(&d, "maybe").unwrap_err();
        assert_eq!(
            err,
            Attend1Error::InvalidArgument("unknown choice \"maybe\" (choices: allow, deny)".into())
        );
    }
}
