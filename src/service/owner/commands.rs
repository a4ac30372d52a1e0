//! The owner's answer to each request ([`Command`]): queries, user actions, input,
//! signals, tasks and holds, and typing the answer to a decision.

use super::remote::entry_tuple;
use super::{Batch, Owner, MAX_EVENTS};
use crate::client::wire::{workspace_dict, WirePane};
use crate::engine::summarize_workspaces;
use crate::model::{Action, PaneId, Source};
use crate::service::bus::error::Attend1Error;
use crate::service::command::{Command, LadderCommand};
use crate::service::pty::PtyHandle;
use crate::system::clock::now;

impl Owner {
    pub(super) fn command(&mut self, cmd: Command, batch: &mut Batch) {
        match cmd {
            Command::Run(spec, reply) => {
                let r = self.run_pane(spec, batch);
                batch.respond(reply, r);
            }
            Command::ListPanes(reply) => {
                let panes = self
                    .world
                    .panes()
                    .values()
                    .map(|m| self.pane_info(m))
                    .collect();
                batch.respond(reply, Ok(panes));
            }
            Command::GetPane(id, reply) => {
                let r = self
                    .world
                    .machine(id)
                    .map(|m| self.pane_info(m))
                    .map_err(Into::into);
                batch.respond(reply, r);
            }
            Command::ListWorkspaces(reply) => {
                let ws = summarize_workspaces(self.world.pane_values(), now())
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
                // A followed tmux pane is shown in the user's tmux (docs/tmux.md#focus).
                let r = r.map(|()| self.tmux_select(id));
                batch.respond(reply, r);
            }
            Command::Answer(id, choice, reply) => {
                let r = self.answer(id, &choice, batch);
                batch.respond(reply, r);
            }
            Command::AwaitGate(delivery, reply) => self.await_gate(&delivery, reply, batch),
            Command::NextUnread(reply) => {
                // Local and mirrored panes in one order (offline hosts left out).
                let mirrored = self.remotes.panes(None);
                let order =
                    crate::adapters::mirror::next_order(self.world.pane_values(), &mirrored);
                let next = order.first().map(|p| p.to_string());
                batch.respond(reply, Ok(next.unwrap_or_default()));
            }
            Command::Overview(reply) => {
                let mirrored = self.remotes.panes(None);
                let o = crate::client::overview::Overview::of(&self.world.snapshot(), &mirrored);
                batch.respond(reply, Ok(o.dict()));
            }
            Command::SendInput(id, data, reply) => {
                if crate::adapters::keys::is_interrupt(&data) {
                    let out = self.ladder.note_interrupt(&mut self.world, id, now());
                    self.ladder_outcome(out, batch);
                }
                // A followed tmux pane in a mode types nothing: `PaneInMode`.
                let r = self.handle(id).and_then(|h| {
                    h.write(&data)
                        .map_err(|e| super::tmux::typing_error(id, &e))
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
                // The exit that follows is the user's own act
                // (`docs/lifecycle-attention.md#process-exited`); signal 0 only probes.
                let r = match r {
                    Ok(()) if signal != 0 => self.act(id, &Action::Kill, batch),
                    r => r,
                };
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
                    .log_after(
                        after,
                        if limit == 0 {
                            MAX_EVENTS
                        } else {
                            limit.min(MAX_EVENTS)
                        },
                    )
                    .map(|entries| entries.iter().map(entry_tuple).collect())
                    .map_err(|e| Attend1Error::Internal(format!("cannot read events: {e}")));
                batch.respond(reply, r);
            }
            Command::Hook(req, reply) => self.hook_command(*req, reply, batch),
            Command::Explain(id, reply) => {
                let r = self.explain(id, batch);
                batch.respond(reply, r);
            }
            Command::GetScreen(id, reply) => {
                let r = self.handle(id).map(|h| h.screen_text());
                batch.respond(reply, r);
            }
            Command::Git(id, cwd, info) => self.git_facts(id, &cwd, &info, batch),
            Command::TmuxFound(found) => self.tmux_found(*found, batch),
            Command::TmuxGone(location) => self.tmux_gone(&location, batch),
            Command::TmuxFocus(focus) => self.tmux_focus(&focus, batch),
            Command::TmuxResized(location, rows, cols) => self.tmux_resized(&location, rows, cols),
            Command::FirstSight(agent, session, workspace, info) => {
                self.first_sight((agent, session), workspace, info, batch)
            }
            Command::Ladder(cmd) => self.ladder_command(cmd, batch),
            Command::Remove(req, reply) => {
                let r = self.remove_step(req, batch);
                batch.respond(reply, r);
            }
            Command::RemoveExited(older_than, dry_run, reply) => {
                let r = self.remove_exited(older_than, dry_run, batch);
                batch.respond(reply, Ok(r));
            }
            Command::AutoRemove => self.auto_remove(batch),
            Command::StampRemote(reqs, reply) => {
                let mut seq = self.world.seq;
                for req in reqs {
                    seq = self.stamp_remote(req, batch);
                }
                batch.respond(reply, Ok(seq));
            }
            Command::ForgetRemote(host) => batch.remote.forget.push(host),
        }
    }

    pub(super) fn act(
        &mut self,
        id: PaneId,
        action: &Action,
        batch: &mut Batch,
    ) -> Result<(), Attend1Error> {
        let before = self.world.pane(id)?.clone();
        let (events, _) = self.world.apply_action(id, action, now())?;
        if !events.is_empty() || self.world.pane(id).ok() != Some(&before) {
            batch.record(id, events);
        }
        Ok(())
    }

    /// The live PTY of an owned pane: `NoSuchPane`, `NotOwned` for an external pane,
    /// `InvalidArgument` when its process has exited.
    pub(super) fn handle(&self, id: PaneId) -> Result<PtyHandle, Attend1Error> {
        let pane = self.world.pane(id)?;
        if !pane.has_terminal() {
            return Err(Attend1Error::NotOwned(format!(
                "pane {id} runs outside Attend (known through hooks only)"
            )));
        }
        self.ptys.lock().get(&id).cloned().ok_or_else(|| {
            Attend1Error::InvalidArgument(format!("pane {id} is not running (resume it first)"))
        })
    }

    /// Tasks and holds (`docs/lifecycle-attention.md#tasks-and-holds`) and the ladder's
    /// watcher and timer inputs.
    pub(super) fn ladder_command(&mut self, cmd: LadderCommand, batch: &mut Batch) {
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

    /// A pane's wire shape ([`WirePane::of`]) with the ladder's read-time parts
    /// (taxonomy, diagnoses, tasks, hold), and `gate` on the decision of an external pane
    /// whose gate Attend answers (src/service/owner/gates.rs).
    pub(super) fn pane_info(&self, m: &crate::engine::machine::PaneMachine) -> WirePane {
        let p: &crate::model::Pane = m;
        let mut w = WirePane::of(p);
        self.ladder.read_time_parts(m, now(), &mut w);
        if let Some(d) = w.pending_decision.as_mut().filter(|_| self.gated(p)) {
            d.gate = Some(true);
        }
        w
    }

    pub(super) fn answer(
        &mut self,
        id: PaneId,
        choice: &str,
        batch: &mut Batch,
    ) -> Result<(), Attend1Error> {
        let pane = self.world.pane(id)?;
        if pane.pending_decision.is_none() {
            return Err(Attend1Error::NoDecision(format!(
                "pane {id} has no open decision"
            )));
        }
        // An external pane's gate whose hook run waits takes the choice
        // (src/service/owner/gates.rs).
        if !pane.owned {
            if let Some(r) = self.answer_gate(id, choice, batch) {
                return r;
            }
        }
        // NotOwned first: an external pane has no screen to read and no keys to take.
        self.handle(id)?;
        // A followed tmux pane in copy-mode (any tmux mode) takes no keys: refused before
        // the decision resolves (`docs/tmux.md#answers`).
        self.refuse_in_mode(id)?;
        let pane = self.world.pane(id)?;
        // The keys come from the dialog on screen now, never from a fixed position
        // (`docs/lifecycle-attention.md#answer`, ADR 0007); a refusal types nothing and
        // leaves the decision open.
        let answer = self.ladder.dialog_answer(pane, choice)?;
        // The event names a choice of the decision as the decision spells it (`ALLOW` →
        // `allow`); anything else (a number, a label) as typed.
        let named = pane
            .pending_decision
            .as_ref()
            .and_then(|d| {
                d.choices()
                    .into_iter()
                    .find(|c| c.eq_ignore_ascii_case(choice.trim()))
            })
            .unwrap_or_else(|| choice.to_string());
        tracing::info!(pane = %id, choice, rule = ?answer.rule, picked = ?answer.picked, "answer");
        let step = self.ladder.note_answer(&mut self.world, id, &answer, now());
        self.ladder_outcome(step, batch);
        let keys = answer.keys;
        let (events, _) = self
            .world
            .apply_action(id, &Action::Answer { choice: named }, now())?;
        batch.record(id, events);
        batch.effects.push(Box::new(move |owner: &mut Owner| {
            if let Some(h) = owner.ptys.lock().get(&id) {
                if let Err(e) = h.write(keys.as_bytes()) {
                    tracing::warn!(pane = %id, "cannot type the answer: {e}");
                }
            }
        }));
        Ok(())
    }
}
