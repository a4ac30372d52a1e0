//! Hook intake on the owner task: exactly-once delivery, the pane a hook is about (a
//! checked `ATTEND_PANE` claim, else the external pane of its agent and session, created
//! on first sight once its workspace was looked up off this task), then the signal.

use super::{Batch, Owner};
use crate::engine::machine::Input;
use crate::engine::{HookAgent, NewPane};
use crate::model::{AgentKind, EventKind, PaneId};
use crate::service::bus::error::Attend1Error;
use crate::service::command::{Command, HookRequest, Reply};
use crate::service::evidence::git::{self, GitInfo};
use crate::service::processes::procwatch::{self, Armed};
use crate::service::store::replay::ApplyHooks;

/// How far the owner got with a hook.
pub(super) enum Hooked {
    /// Applied (or found already applied): the seq to answer.
    Applied(u64),
    /// The first sight of an external session: its workspace (the git top level of this
    /// cwd) must be looked up first, off the owner task.
    NeedsWorkspace(Option<String>),
}

/// The pane a hook is about.
enum Target {
    Pane(PaneId),
    /// Dropped (a notify from another thread).
    Dropped,
    /// First sight of an external session without its workspace yet (the cwd to look
    /// it up for).
    NeedsWorkspace(Option<String>),
}

/// The external session a hook names: (agent, session id), the key of an external pane.
fn session_key(req: &HookRequest) -> Option<(AgentKind, String)> {
    let m = &req.mapping;
    let session = m.require_session.as_ref().or(m.session_id.as_ref())?;
    Some((m.agent, session.clone()))
}

impl Owner {
    /// `Hook`: applies the hook and answers its seq, or holds it (and every later hook of
    /// the same session, in order) while the workspace of a new external session is
    /// looked up off this task; [`Command::FirstSight`] brings the answer back.
    pub(super) fn hook_command(&mut self, req: HookRequest, reply: Reply<u64>, batch: &mut Batch) {
        let key = session_key(&req);
        if let Some(waiting) = key.as_ref().and_then(|k| self.first_sight.get_mut(k)) {
            waiting.push((req, reply));
            return;
        }
        match self.hook(&req, batch) {
            Ok(Hooked::Applied(seq)) => batch.respond(reply, Ok(seq)),
            Err(e) => batch.respond(reply, Err(e)),
            Ok(Hooked::NeedsWorkspace(cwd)) => {
                let Some(key) = key else {
                    batch.respond(reply, Err(no_session()));
                    return;
                };
                self.first_sight.insert(key.clone(), vec![(req, reply)]);
                let tx = self.cmd_tx.clone();
                tokio::spawn(async move {
                    let (workspace, info) = git::workspace(cwd).await;
                    let (agent, session) = key;
                    let done = Command::FirstSight(agent, session, workspace, info);
                    let _ = tx.send(done).await;
                });
            }
        }
    }

    /// The workspace of a new external session is known: applies the hooks held for it,
    /// in arrival order (the first creates the pane).
    pub(super) fn first_sight(
        &mut self,
        key: (AgentKind, String),
        workspace: String,
        info: GitInfo,
        batch: &mut Batch,
    ) {
        let Some(waiting) = self.first_sight.remove(&key) else {
            return;
        };
        for (mut req, reply) in waiting {
            req.workspace = Some((workspace.clone(), info.clone()));
            let r = match self.hook(&req, batch) {
                Ok(Hooked::Applied(seq)) => Ok(seq),
                Ok(Hooked::NeedsWorkspace(_)) => Err(Attend1Error::Internal(
                    "the workspace of a new session was not applied".into(),
                )),
                Err(e) => Err(e),
            };
            batch.respond(reply, r);
        }
    }

    pub(super) fn hook(
        &mut self,
        req: &HookRequest,
        batch: &mut Batch,
    ) -> Result<Hooked, Attend1Error> {
        if let Some(d) = &req.delivery_id {
            if let Some((_, seq, _)) = batch.deliveries.iter().find(|(x, _, _)| x == d) {
                return Ok(Hooked::Applied(*seq));
            }
            let seen = self
                .db
                .delivery_seen(d)
                .map_err(|e| Attend1Error::Internal(format!("cannot check the delivery: {e}")))?;
            if let Some(seq) = seen {
                return Ok(Hooked::Applied(seq));
            }
        }
        let at = req.mapping.signal.at;
        let pane = match self.hook_pane(req, batch)? {
            Target::Pane(id) => Some(id),
            Target::Dropped => None,
            Target::NeedsWorkspace(cwd) => return Ok(Hooked::NeedsWorkspace(cwd)),
        };
        if let Some(id) = pane {
            if req.terminal.is_some() && !self.world.pane(id)?.owned {
                self.surfaces.note_terminal(id, req.terminal.clone());
            }
            self.world.pane(id)?;
            // An agent started inside a shell pane: from now on it is that agent's; a new
            // agent after it takes the pane over; another agent's hook moves nothing
            // (`docs/lifecycle-attention.md#two-agents-in-one-pane`).
            let source = req.mapping.signal.source.clone();
            let session = req.mapping.signal.identity.session_id.clone();
            match self.world.hook_agent(
                id,
                req.mapping.agent,
                session.as_deref(),
                matches!(
                    req.mapping.signal.kind,
                    crate::model::SignalKind::SessionStarted { .. }
                ),
                source,
                at,
            ) {
                HookAgent::Same => self.apply(id, &req.mapping.signal, batch),
                HookAgent::Adopted(ev) | HookAgent::Switched(ev) => {
                    batch.record(id, vec![ev]);
                    self.apply(id, &req.mapping.signal, batch);
                }
                HookAgent::Foreign => {
                    tracing::debug!(pane = %id, agent = %req.mapping.agent, "a hook of another agent: not applied");
                }
            }
            let ladder =
                self.ladder
                    .hook_process(&mut self.world, id, req.mapping.agent, &req.pids, at);
            self.ladder_outcome(ladder, batch);
            self.note_gate(id, req);
        }
        let seq = self.world.seq;
        if let Some(d) = &req.delivery_id {
            batch.deliveries.push((d.clone(), seq, at));
        }
        // One line per applied delivery (a repeated delivery id returned above): what the
        // real-agent tests count to show each event is applied once.
        tracing::debug!(
            pane = ?pane.map(|p| p.to_string()),
            agent = %req.mapping.agent,
            event = %req.mapping.event,
            delivery = ?req.delivery_id,
            "hook applied"
        );
        Ok(Hooked::Applied(seq))
    }

    /// The pane a hook is about: the context's pane (its session must match a Codex
    /// notify's thread), else the external pane keyed by (agent, session id), created on
    /// first sight. `Dropped`: the hook is dropped (a notify from another thread).
    fn hook_pane(&mut self, req: &HookRequest, batch: &mut Batch) -> Result<Target, Attend1Error> {
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
                    return Ok(Target::Dropped);
                }
            }
            return Ok(Target::Pane(id));
        }
        // The hooks of an agent whose followed tmux pane the user removed are dropped
        // until another agent starts there (`docs/tmux.md#removing`).
        if self.forgotten_in_tmux(req) {
            return Ok(Target::Dropped);
        }
        // A followed tmux pane: its agent's hooks join it (`docs/tmux.md#identity`).
        if let Some(id) = self.tmux_pane_of_hook(req, batch) {
            return Ok(Target::Pane(id));
        }
        let key = m.require_session.as_ref().or(m.session_id.as_ref());
        let Some(session) = key else {
            return Err(no_session());
        };
        let existing = self
            .world
            .panes()
            .values()
            .find(|p| !p.owned && p.agent == m.agent && p.session_id.as_ref() == Some(session));
        if let Some(p) = existing {
            let id = p.id;
            self.watch_external(id, req, batch);
            return Ok(Target::Pane(id));
        }
        if m.require_session.is_some() {
            return Ok(Target::Dropped);
        }
        // First sight of this session: its workspace is the git top level of its cwd
        // (one `git` run, here and only here; not on every hook), looked up off the owner.
        let Some((workspace, git)) = req.workspace.clone() else {
            return Ok(Target::NeedsWorkspace(
                m.cwd.clone().or_else(|| req.cwd.clone()),
            ));
        };
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
                worktree: None,
            },
            m.signal.at,
        );
        super::panes::set_git(&mut self.world, id, &git);
        batch.record(id, events);
        self.watch_external(id, req, batch);
        Ok(Target::Pane(id))
    }

    /// Tracks the `live` of external pane `id` by its agent's process, picked from the
    /// hook's ancestors (src/service/processes/procwatch.rs): a pane that had exited runs again
    /// when a hook comes from a living agent process (`pane.changed`).
    pub(super) fn watch_external(&mut self, id: PaneId, req: &HookRequest, batch: &mut Batch) {
        let armed = self
            .procs
            .arm(id, req.mapping.agent, &req.pids, &self.pty_tx);
        let exited = self
            .world
            .panes()
            .get(&id)
            .is_some_and(|p| !p.live.is_running());
        if matches!(armed, Armed::Watching(_)) && exited {
            let at = req.mapping.signal.at;
            let mut events = self
                .world
                .step(id, Input::Revived, at)
                .map(|(evs, _)| evs)
                .unwrap_or_default();
            let source = req.mapping.signal.source.clone();
            events.push(self.world.stamp(id, EventKind::PaneChanged, source, at));
            batch.record(id, events);
        }
    }
}

/// Why a hook from outside an Attend pane without a session id is refused.
fn no_session() -> Attend1Error {
    Attend1Error::InvalidArgument(
        "a hook from outside an Attend pane (no ATTEND_PANE) must carry a session id (a \
         non-empty string `session_id`)"
            .into(),
    )
}

impl ApplyHooks for Owner {
    /// Applies spooled hook requests in order as one batch and commits it: the spool
    /// replay at start-up, before [`Owner::run`] serves any live `Hook` call
    /// (src/service/store/replay.rs). Returns each request's seq or why it was refused; when
    /// the commit fails every request fails with `Internal` (nothing was applied). The
    /// workspace of a new external session is looked up off this task and awaited here
    /// (nothing else is served yet).
    async fn apply_hooks(&mut self, reqs: Vec<HookRequest>) -> Vec<Result<u64, Attend1Error>> {
        let mut batch = Batch::default();
        let mut replies = Vec::new();
        for mut req in reqs {
            let (tx, rx) = tokio::sync::oneshot::channel();
            let r = loop {
                match self.hook(&req, &mut batch) {
                    Ok(Hooked::Applied(seq)) => break Ok(seq),
                    Ok(Hooked::NeedsWorkspace(cwd)) if req.workspace.is_none() => {
                        req.workspace = Some(git::workspace(cwd).await);
                    }
                    Ok(Hooked::NeedsWorkspace(_)) => {
                        break Err(Attend1Error::Internal(
                            "the workspace of a new session was not applied".into(),
                        ))
                    }
                    Err(e) => break Err(e),
                }
            };
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
}
