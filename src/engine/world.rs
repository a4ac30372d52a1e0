//! The whole state: every pane, the id counters and the event sequence. Still pure: the
//! service persists what this returns.

use super::machine::{Input, PaneMachine, StepError, Stepped};
use super::transition::Emitted;
use crate::model::{
    Action, AgentKind, Decision, Event, EventKind, Hold, Lifecycle, Pane, PaneId, Signal, Source,
    Task, TaskId, TaskState, Timestamp,
};
use std::collections::BTreeMap;

/// Errors of the engine's entry points; the D-Bus layer maps each to a named error.
/// The outcome of [`World::hook_agent`].
#[derive(Debug, Clone, PartialEq)]
pub enum HookAgent {
    /// The pane's own agent: apply the hook.
    Same,
    /// A shell pane's first agent: `pane.changed`, then apply the hook.
    Adopted(Event),
    /// A new agent after the previous one in the same shell pane: `pane.changed`, then
    /// apply the hook (its new session id hands over).
    Switched(Event),
    /// Another agent's hook that must not move this pane: drop it.
    Foreign,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    #[error("no such pane: {0}")]
    NoSuchPane(PaneId),
    #[error("pane {0} has no open decision")]
    NoDecision(PaneId),
    #[error("no such task: {0}")]
    NoSuchTask(TaskId),
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// What a new pane is created with.
#[derive(Debug, Clone, Default)]
pub struct NewPane {
    pub workspace: String,
    pub tab: String,
    pub name: String,
    pub agent: AgentKind,
    pub cwd: Option<String>,
    pub oneshot: bool,
    pub session_id: Option<String>,
    /// The argv Attend spawns (empty for an external pane).
    pub command: Vec<String>,
    /// Attend owns the PTY.
    pub owned: bool,
    /// The git worktree Attend made for the pane (`docs/worktrees.md`).
    pub worktree: Option<String>,
}

/// Every pane plus the store-wide counters. Pane ids, decision ids, task ids and event seqs
/// are monotonic and never reused (`docs/lifecycle-attention.md#names-and-ordering`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct World {
    /// Every pane's machine: read through [`World::panes`]; only the engine writes it
    /// ([`World::step`] and the world's own entry points), which this field's visibility
    /// enforces (`docs/architecture.md#the-per-pane-machine`).
    pub(super) panes: BTreeMap<PaneId, PaneMachine>,
    /// Last pane number handed out.
    pub last_pane: u64,
    /// Last decision id handed out.
    pub last_decision: u64,
    /// Last task id handed out.
    pub last_task: u64,
    /// Last event seq handed out.
    pub seq: u64,
}

impl World {
    /// An empty world.
    pub fn new() -> World {
        World::default()
    }

    /// Every pane's machine by id, read-only (a machine reads as its pane through
    /// `Deref`).
    pub fn panes(&self) -> &BTreeMap<PaneId, PaneMachine> {
        &self.panes
    }

    /// The pane `id`, or `NoSuchPane`.
    pub fn pane(&self, id: PaneId) -> Result<&Pane, EngineError> {
        self.panes
            .get(&id)
            .map(|m| &**m)
            .ok_or(EngineError::NoSuchPane(id))
    }

    /// The machine of pane `id`, or `NoSuchPane`.
    pub fn machine(&self, id: PaneId) -> Result<&PaneMachine, EngineError> {
        self.panes.get(&id).ok_or(EngineError::NoSuchPane(id))
    }

    fn machine_mut(&mut self, id: PaneId) -> Result<&mut PaneMachine, EngineError> {
        self.panes.get_mut(&id).ok_or(EngineError::NoSuchPane(id))
    }

    /// Every pane, in id order.
    pub fn pane_values(&self) -> impl Iterator<Item = &Pane> + Clone {
        self.panes.values().map(|m| &**m)
    }

    /// A copy of every pane's state, for the surfaces' snapshots.
    pub fn snapshot(&self) -> BTreeMap<PaneId, Pane> {
        self.panes
            .iter()
            .map(|(id, m)| (*id, (**m).clone()))
            .collect()
    }

    /// Puts `pane` back as it was stored (the restore from SQLite): a machine through
    /// [`PaneMachine::restore`]. The id counters are the caller's.
    pub fn restore_pane(&mut self, pane: Pane) {
        self.panes.insert(pane.id, PaneMachine::restore(pane));
    }

    /// The one entry of pane `id`'s machine ([`PaneMachine::step`]) at `now`: the events
    /// it emitted, stamped (rung-health changes as `rung.health` events), and what else
    /// it did. Errors: `NoSuchPane`; `NoDecision` for an `Answer` with no open decision.
    pub fn step(
        &mut self,
        id: PaneId,
        input: Input,
        now: Timestamp,
    ) -> Result<(Vec<Event>, Stepped), EngineError> {
        let mut next = self.last_decision;
        let machine = self.machine_mut(id)?;
        let mut stepped = machine.step(input, now, &mut next).map_err(|e| match e {
            StepError::NoDecision => EngineError::NoDecision(id),
        })?;
        self.last_decision = next;
        let events = self.stamp_stepped(id, now, &mut stepped);
        Ok((events, stepped))
    }

    /// The events of a step, stamped: its rung-health changes as `rung.health` events
    /// first, then what it emitted at `now` (the changes stay in `stepped.health`).
    fn stamp_stepped(&mut self, id: PaneId, now: Timestamp, stepped: &mut Stepped) -> Vec<Event> {
        let mut events = Vec::new();
        for h in std::mem::take(&mut stepped.health) {
            let kind = EventKind::RungHealth {
                rung: h.rung,
                from: h.from.as_str().to_string(),
                to: h.to.as_str().to_string(),
                reason: h.reason.clone(),
            };
            events.push(self.stamp(id, kind, Source::new(h.rung, "ladder"), h.at));
            stepped.health.push(h);
        }
        let emitted = std::mem::take(&mut stepped.events);
        events.extend(self.stamp_all(id, now, emitted));
        events
    }

    fn stamp_all(&mut self, pane: PaneId, at: Timestamp, emitted: Emitted) -> Vec<Event> {
        emitted
            .into_iter()
            .map(|(kind, source)| self.stamp(pane, kind, source, at))
            .collect()
    }

    /// Stamps one event of `pane` with the next seq (monotonic, never reused:
    /// `docs/lifecycle-attention.md#event-seqs`): for the events the engine has no entry
    /// point for (restart, resume, git facts, rung health, a changed chrome match), at `at`.
    pub fn stamp(&mut self, pane: PaneId, kind: EventKind, source: Source, at: Timestamp) -> Event {
        self.seq += 1;
        Event {
            seq: self.seq,
            pane,
            kind,
            source,
            at,
        }
    }

    /// What a hook of `agent` (carrying `session`) means for pane `id`
    /// (`docs/lifecycle-attention.md#two-agents-in-one-pane`):
    /// - the pane's own agent, or the shell → [`HookAgent::Same`];
    /// - a shell pane's first agent → [`HookAgent::Adopted`] (as [`World::adopt_agent`]);
    /// - in a pane started as an interactive shell whose agent is not working or blocked,
    ///   another agent's session start (`starts_session`) with a new session id →
    ///   [`HookAgent::Switched`]: the pane becomes
    ///   that agent's (`pane.changed`); the new session id then hands over as usual, and the
    ///   ladder starts from the new agent's inventory;
    /// - else → [`HookAgent::Foreign`]: another agent's hook (an agent run as a tool of the
    ///   pane's agent, the previous agent's late hook) that must not move the lifecycle.
    pub fn hook_agent(
        &mut self,
        id: PaneId,
        agent: AgentKind,
        session: Option<&str>,
        starts_session: bool,
        source: Source,
        at: Timestamp,
    ) -> HookAgent {
        let Some(machine) = self.panes.get_mut(&id) else {
            return HookAgent::Same;
        };
        if agent == AgentKind::Shell || machine.agent == agent {
            return HookAgent::Same;
        }
        if machine.agent == AgentKind::Shell {
            machine.edit(|p| p.agent = agent);
            return HookAgent::Adopted(self.stamp(id, EventKind::PaneChanged, source, at));
        }
        let new_session = session.is_some_and(|s| machine.session_id.as_deref() != Some(s));
        let previous_at_rest =
            !matches!(machine.lifecycle, Lifecycle::Working | Lifecycle::Blocked);
        if starts_session
            && new_session
            && previous_at_rest
            && super::quiet::is_interactive_shell(&machine.command)
        {
            machine.edit(|p| p.agent = agent);
            return HookAgent::Switched(self.stamp(id, EventKind::PaneChanged, source, at));
        }
        HookAgent::Foreign
    }

    /// An agent started inside shell pane `id` (a hook or a self-report of `agent` came
    /// from it): from now on it is that agent's pane, and `pane.changed` is emitted with
    /// `source` at `at`. `None` (nothing changes) when the pane is not a shell pane, when
    /// `agent` is the shell itself, or when there is no such pane.
    pub fn adopt_agent(
        &mut self,
        id: PaneId,
        agent: AgentKind,
        source: Source,
        at: Timestamp,
    ) -> Option<Event> {
        let machine = self.panes.get_mut(&id)?;
        if machine.agent != AgentKind::Shell || agent == AgentKind::Shell {
            return None;
        }
        machine.edit(|p| p.agent = agent);
        Some(self.stamp(id, EventKind::PaneChanged, source, at))
    }

    /// Creates a pane with the next id; emits `pane.added`.
    pub fn add_pane(&mut self, spec: NewPane, now: Timestamp) -> (PaneId, Vec<Event>) {
        self.last_pane += 1;
        let id = PaneId(self.last_pane);
        let tab = if spec.tab.is_empty() {
            "main"
        } else {
            &spec.tab
        };
        let name = if spec.name.is_empty() {
            id.to_string()
        } else {
            spec.name.clone()
        };
        let mut pane = Pane::new(id, &spec.workspace, tab, &name, spec.agent, now);
        pane.start_quiet = super::quiet::start_quiet(spec.agent, spec.owned, &spec.command, now);
        pane.cwd = spec.cwd;
        pane.oneshot = spec.oneshot;
        pane.session_id = spec.session_id;
        pane.command = spec.command;
        pane.owned = spec.owned;
        pane.worktree = spec.worktree;
        self.panes.insert(id, PaneMachine::new(pane));
        let ev = self.stamp_all(
            id,
            now,
            vec![(EventKind::PaneAdded, Source::process("spawn"))],
        );
        (id, ev)
    }

    /// Adds a pane followed in the user's tmux at `location` (`docs/tmux.md`): as
    /// [`World::add_pane`] (not owned), with its location set.
    pub fn add_tmux_pane(
        &mut self,
        spec: NewPane,
        location: crate::model::TmuxLocation,
        now: Timestamp,
    ) -> (PaneId, Vec<Event>) {
        let (id, events) = self.add_pane(spec, now);
        if let Some(m) = self.panes.get_mut(&id) {
            m.edit(|p| p.tmux = Some(location));
        }
        (id, events)
    }

    /// Binds an existing pane (one its hooks made before its tmux pane was found) to the
    /// tmux pane at `location`. Errors: `NoSuchPane`.
    pub fn set_tmux(
        &mut self,
        id: PaneId,
        location: crate::model::TmuxLocation,
    ) -> Result<(), EngineError> {
        let m = self.panes.get_mut(&id).ok_or(EngineError::NoSuchPane(id))?;
        m.edit(|p| p.tmux = Some(location));
        Ok(())
    }

    /// Forgets pane `id` at `now`, on behalf of `source` (the user, or the automatic
    /// removal): emits `pane.removed`; the pane's earlier events stay in the log, and its
    /// id is never handed out again (`last_pane` does not go back:
    /// `docs/lifecycle-attention.md#removing-panes`). Whether it may go is
    /// [`super::removal::removal`]'s question, asked by the caller. Errors: `NoSuchPane`.
    pub fn remove_pane(
        &mut self,
        id: PaneId,
        source: Source,
        now: Timestamp,
    ) -> Result<Vec<Event>, EngineError> {
        self.panes.remove(&id).ok_or(EngineError::NoSuchPane(id))?;
        Ok(self.stamp_all(id, now, vec![(EventKind::PaneRemoved, source)]))
    }

    /// Applies a signal to pane `id` at `signal.at` (a [`World::step`] of
    /// [`Input::Signal`]).
    pub fn apply_signal(&mut self, id: PaneId, signal: &Signal) -> Result<Vec<Event>, EngineError> {
        let mut next = self.last_decision;
        let mut stepped = self.machine_mut(id)?.step_signal(signal, &mut next);
        self.last_decision = next;
        Ok(self.stamp_stepped(id, signal.at, &mut stepped))
    }

    /// Applies a user action at `now` (a [`World::step`] of [`Input::Action`]). For
    /// `Answer`, also returns the resolved decision (the caller types its answer keys
    /// into the PTY).
    pub fn apply_action(
        &mut self,
        id: PaneId,
        action: &Action,
        now: Timestamp,
    ) -> Result<(Vec<Event>, Option<Decision>), EngineError> {
        let (events, stepped) = self.step(id, Input::Action(action.clone()), now)?;
        Ok((events, stepped.answered))
    }

    /// Adds an open task (obligation) to pane `id`; emits `task.open`.
    pub fn add_task(
        &mut self,
        id: PaneId,
        text: &str,
        now: Timestamp,
    ) -> Result<(TaskId, Vec<Event>), EngineError> {
        if text.trim().is_empty() {
            return Err(EngineError::InvalidArgument("task text is empty".into()));
        }
        self.last_task += 1;
        let tid = self.last_task;
        let machine = self.machine_mut(id)?;
        machine.edit(|pane| {
            pane.tasks.push(Task {
                id: tid,
                pane: id,
                text: text.to_string(),
                state: TaskState::Open,
                message: None,
                created_at: now,
                updated_at: now,
            })
        });
        let ev = vec![(
            EventKind::Task {
                id: tid,
                state: TaskState::Open,
            },
            Source::user(),
        )];
        Ok((tid, self.stamp_all(id, now, ev)))
    }

    /// Moves task `tid` to `state` (start → working, report → reported) with an optional
    /// message. Settling a task does not change the pane's attention
    /// (`docs/lifecycle-attention.md#tasks-and-holds`).
    pub fn set_task_state(
        &mut self,
        tid: TaskId,
        state: TaskState,
        message: Option<&str>,
        source: Source,
        now: Timestamp,
    ) -> Result<Vec<Event>, EngineError> {
        let pane_id = self
            .panes
            .values()
            .find(|p| p.tasks.iter().any(|t| t.id == tid))
            .map(|p| p.id)
            .ok_or(EngineError::NoSuchTask(tid))?;
        self.machine_mut(pane_id)?.edit(|p| {
            if let Some(task) = p.tasks.iter_mut().find(|t| t.id == tid) {
                task.state = state;
                task.updated_at = now;
                if let Some(m) = message {
                    task.message = Some(m.to_string());
                }
            }
        });
        Ok(self.stamp_all(
            pane_id,
            now,
            vec![(EventKind::Task { id: tid, state }, source)],
        ))
    }

    /// Sets or clears (`None`) the hold on pane `id`; emits `pane.changed`.
    pub fn set_hold(
        &mut self,
        id: PaneId,
        hold: Option<Hold>,
        now: Timestamp,
    ) -> Result<Vec<Event>, EngineError> {
        if let Some(h) = &hold {
            if h.owner.trim().is_empty() {
                return Err(EngineError::InvalidArgument("a hold needs an owner".into()));
            }
        }
        self.machine_mut(id)?.edit(|p| p.hold = hold);
        Ok(self.stamp_all(id, now, vec![(EventKind::PaneChanged, Source::user())]))
    }

    /// The pane to jump to next (`docs/lifecycle-attention.md#next-unread`), skipping
    /// focused panes.
    pub fn next_unread(&self) -> Option<PaneId> {
        super::order::next_unread_order(self.pane_values())
            .into_iter()
            .next()
    }
}
