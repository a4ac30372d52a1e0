//! Owned panes' processes: spawning a `Run` in a new PTY, resuming an exited pane in a
//! new one, and the repository facts of a pane's cwd (looked up off the owner task).

use super::{Batch, Owner};
use crate::config::{PANE_ENV, PANE_HOOKS_ENV};
use crate::engine::machine::Input;
use crate::engine::{NewPane, World};
use crate::model::{AgentKind, EventKind, PaneId, Source};
use crate::service::bus::error::Attend1Error;
use crate::service::command::{Command, RunSpec};
use crate::service::evidence::git::{self, GitInfo};
use crate::service::pty::pane_hooks;
use crate::service::pty::{PtyHandle, SpawnSpec};
use crate::system::clock::now;
use std::collections::BTreeMap;
use std::path::PathBuf;

impl Owner {
    /// Starts `argv` for pane `id` in a new PTY: `ATTEND_PANE` set, and for an `agent`
    /// Attend can give hooks of its own, the argv and environment of
    /// [`pane_hooks::launch`]. The environment kept for a resume is the one given
    /// (plus `ATTEND_PANE`), so a resume re-derives the hooks.
    pub(super) fn spawn(
        &mut self,
        id: PaneId,
        agent: AgentKind,
        argv: &[String],
        cwd: Option<&str>,
        env: BTreeMap<String, String>,
        size: (u16, u16),
    ) -> Result<(), Attend1Error> {
        let mut env = env;
        env.remove(PANE_HOOKS_ENV);
        env.insert(PANE_ENV.into(), id.to_string());
        let cwd = cwd
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("/"));
        let launch = pane_hooks::launch(id, agent, argv, &cwd, &env);
        let spec = SpawnSpec {
            argv: launch.argv,
            cwd,
            env: launch.env.into_iter().collect(),
            rows: size.0,
            cols: size.1,
            scrollback: self.config.scrollback,
        };
        // The error names the program and the OS error (errno).
        let handle = self
            .config
            .holders
            .spawn(id, &spec, self.pty_tx.clone())
            .map_err(|e| Attend1Error::SpawnFailed(e.to_string()))?;
        self.ptys.lock().insert(id, handle);
        self.envs.insert(id, env);
        Ok(())
    }

    /// Start-up: takes over the PTY of every live holder of this state directory whose
    /// pane is an owned pane of the store (`docs/decisions/0009-pane-holders.md#re-adoption`):
    /// same pane id and process, live state `running`; an exit the holder recorded while
    /// no daemon ran arrives as the pane's exit after the hooks spooled meanwhile.
    /// Returns the number of panes adopted.
    pub fn adopt_holders(&mut self) -> usize {
        let holders = self.config.holders.clone();
        let mut adopted = 0;
        let (found, unreachable) = holders.scan();
        // Their programs run on: never marked exited, never resumed twice.
        self.unadopted.extend(unreachable);
        for found in found {
            let id = found.pane;
            let known = self.world.panes().get(&id).is_some_and(|p| p.owned);
            if !known {
                tracing::warn!(pane = %id, "a holder for a pane the store does not have: left alone");
                continue;
            }
            let log = Some((holders.screen_log(id), true));
            match PtyHandle::adopt(
                id,
                found.attached,
                self.config.scrollback,
                log,
                self.pty_tx.clone(),
            ) {
                Ok(handle) => {
                    self.ptys.lock().insert(id, handle);
                    let _ = self.world.step(id, Input::Revived, now());
                    adopted += 1;
                }
                Err(e) => tracing::error!(pane = %id, "cannot adopt the pane's holder: {e}"),
            }
        }
        adopted
    }

    /// `Run`: spawn first, create the pane only when that worked (no half-created pane).
    pub(super) fn run_pane(
        &mut self,
        spec: RunSpec,
        batch: &mut Batch,
    ) -> Result<String, Attend1Error> {
        let id = PaneId(self.world.last_pane + 1);
        self.spawn(
            id,
            spec.agent,
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
                worktree: spec.worktree,
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
    pub(super) fn resume(&mut self, id: PaneId, batch: &mut Batch) -> Result<(), Attend1Error> {
        let pane = self.world.pane(id)?;
        if !pane.owned && pane.tmux.is_some() {
            return self.tmux_resume(id, batch);
        }
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
        let held = self.unadopted.contains(&id)
            || (!self.collected.contains(&id) && self.config.holders.is_alive(id));
        if held {
            return Err(Attend1Error::InvalidArgument(format!(
                "pane {id}'s program still runs in its holder, which this daemon could not \
                 take over; restart the daemon to try again"
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
        // A worktree pane starts in its worktree again (docs/worktrees.md#resume).
        let cwd = crate::system::worktree::plan::resume_dir(
            pane.cwd.as_deref(),
            pane.worktree.as_deref(),
        )
        .map(String::from);
        let agent = pane.agent;
        let env = self.envs.get(&id).cloned().unwrap_or_default();
        self.spawn(id, agent, &argv, cwd.as_deref(), env, (24, 80))?;
        self.collected.remove(&id);
        // A fresh program: its lifecycle is its own again, unknown until it signals
        // (the exit that ended the last run decided `failed` or `done`).
        let (events, _) = self
            .world
            .step(id, Input::Resumed { command: argv }, now())?;
        self.ladder.reset_sources(id);
        batch.record(id, events);
        Ok(())
    }

    /// Reads repo and branch for `cwd` off the owner task; the answer comes back as
    /// [`Command::Git`].
    pub(super) fn lookup_git(&self, pane: PaneId, cwd: String) {
        let tx = self.cmd_tx.clone();
        tokio::spawn(async move {
            let info = git::lookup(Some(cwd.clone())).await;
            let _ = tx.send(Command::Git(pane, cwd, info)).await;
        });
    }

    pub(super) fn git_facts(&mut self, id: PaneId, cwd: &str, info: &GitInfo, batch: &mut Batch) {
        let Some(p) = self.world.panes().get(&id) else {
            return;
        };
        if p.cwd.as_deref() != Some(cwd) {
            return; // The cwd moved on again; a newer lookup is on its way.
        }
        let before = (p.repo.clone(), p.branch.clone());
        set_git(&mut self.world, id, info);
        let p = &self.world.panes()[&id];
        if (p.repo.clone(), p.branch.clone()) != before {
            let ev = self
                .world
                .stamp(id, EventKind::PaneChanged, Source::terminal("cwd"), now());
            batch.record(id, vec![ev]);
        }
    }
}

/// Sets repo (the directory name of the top level, or of the main worktree when the top
/// level is a linked worktree: `docs/worktrees.md#repo-and-branch`) and branch from `info`.
pub(super) fn set_git(world: &mut World, id: PaneId, info: &GitInfo) {
    let git = Input::Git {
        repo: info
            .main
            .as_deref()
            .or(info.toplevel.as_deref())
            .map(git::repo_name),
        branch: info.branch.clone(),
    };
    let _ = world.step(id, git, now());
}
