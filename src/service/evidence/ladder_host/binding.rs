//! The self-report rung of the ladder: binding Claude's `sessions/<pid>.json` to a pane
//! (by the pane's process tree, a hook's process, or the session id it names), reading
//! it on every change, and unbinding it when it turns stale, unreadable or missing.
use super::{Binding, LadderHost, Outcome};
use crate::engine::ladder::Evidence;
use crate::engine::machine::Input;
use crate::engine::World;
use crate::model::{AgentKind, PaneId, Rung, Source, Timestamp};
use crate::service::evidence::selfreport::{self, ReportError};
use crate::service::processes::procfs;
use std::path::{Path, PathBuf};

impl LadderHost {
    /// A self-report file changed or vanished.
    pub(super) fn self_report(
        &mut self,
        world: &mut World,
        path: &Path,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        let Some(pid) = selfreport::pid_of_path(path) else {
            return;
        };
        let bound = self
            .panes
            .iter()
            .find(|(_, st)| st.self_report.as_ref().is_some_and(|b| b.path == path))
            .map(|(id, _)| *id);
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // Deleted (a clean exit): fall down the ladder.
                if let Some(id) = bound {
                    self.unbind(world, id, now, out);
                }
                return;
            }
            Err(_) => return,
        };
        let report = match selfreport::parse(&text) {
            Ok(r) if r.pid == pid => r,
            // A partial write: the next write brings the rest.
            Err(ReportError::Unreadable(_)) => return,
            Ok(_) | Err(ReportError::UnknownStatus(_)) => {
                if let Some(id) = bound {
                    self.unbind(world, id, now, out);
                }
                return;
            }
        };
        if let Some(why) = selfreport::stale(&report, procfs::start_time(pid)) {
            tracing::debug!(path = %path.display(), "stale self-report: {why}");
            if let Some(id) = bound {
                self.unbind(world, id, now, out);
            }
            return;
        }
        let Some(pane) = bound.or_else(|| self.match_pane(world, &report)) else {
            return;
        };
        if !world.panes().contains_key(&pane) {
            return;
        }
        // Claude runs in this shell pane: from now on it is a Claude pane (as a hook
        // would make it).
        let source = Source::new(Rung::SelfReport, "claude.sessions");
        if let Some(ev) = world.adopt_agent(pane, AgentKind::Claude, source, now) {
            out.events.push(ev);
        }
        let Ok(m) = world.machine(pane) else {
            return;
        };
        let agent = m.agent;
        let source_id = format!("claude.sessions/{pid}.json");
        let last_seq = m.ladder().last_seq.get(&source_id).copied();
        let st = self.entry(pane, agent);
        if st
            .self_report
            .as_ref()
            .is_some_and(|b| b.path == path && b.text == text)
        {
            return;
        }
        st.self_report = Some(Binding {
            pid,
            path: path.to_path_buf(),
            text,
        });
        let seq = match report.updated_at {
            Some(t) if t > 0 => t as u64,
            _ => last_seq.map_or(1, |s| s + 1),
        };
        let ev = Evidence {
            rung: Rung::SelfReport,
            source_id,
            seq,
            observed_at: now,
            claim: selfreport::claim(&report),
            note: selfreport::note(&report),
        };
        // A self-report waiting opens the decision at once; one going busy or idle
        // closes a decision it opened (`docs/lifecycle-attention.md#one-verdict`).
        self.observe(world, pane, ev, now, out);
        self.schedule(world, pane, now, out);
    }

    /// The pane a newly seen report belongs to: the owned pane whose PTY child is the
    /// report's process or one of its ancestors, else the running pane whose session id
    /// the report names.
    pub(super) fn match_pane(&self, world: &World, report: &selfreport::Report) -> Option<PaneId> {
        let mut chain = vec![report.pid];
        let mut p = report.pid;
        while let Some((parent, _)) = procfs::stat(p) {
            if parent <= 1 || parent == p || chain.len() > 64 {
                break;
            }
            chain.push(parent);
            p = parent;
        }
        let by_pid = self
            .ptys
            .lock()
            .iter()
            .find(|(_, h)| h.pid().is_some_and(|root| chain.contains(&root)))
            .map(|(id, _)| *id);
        by_pid.or_else(|| {
            let sid = report.session_id.as_ref()?;
            world
                .panes()
                .values()
                .filter(|p| p.live.is_running() && p.session_id.as_ref() == Some(sid))
                .min_by_key(|p| p.owned)
                .map(|p| p.id)
        })
    }

    /// The pane's self-report became unreadable, stale or missing: fall down the ladder.
    pub(super) fn unbind(
        &mut self,
        world: &mut World,
        pane: PaneId,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        if let Some(st) = self.panes.get_mut(&pane) {
            st.self_report = None;
        }
        self.step(world, pane, Input::Withdraw(Rung::SelfReport), now, out);
        self.schedule(world, pane, now, out);
    }

    /// Reads the environment of `root` and its descendants for Claude's sessions
    /// directory (once per process), watches those directories and reads the reports
    /// already there.
    pub(super) fn scan_tree(
        &mut self,
        world: &mut World,
        pane: PaneId,
        root: u32,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        for pid in procfs::tree(root) {
            self.scan_pid(world, pane, pid, now, out);
        }
    }

    pub(super) fn scan_pid(
        &mut self,
        world: &mut World,
        pane: PaneId,
        pid: u32,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        let agent = world.pane(pane).map_or(AgentKind::Shell, |p| p.agent);
        if !self.entry(pane, agent).scanned.insert(pid) {
            return;
        }
        let env = procfs::environ(pid);
        if let Some(dir) = selfreport::sessions_dir(|k| env.get(k).cloned()) {
            for f in self.want_dir(dir) {
                self.self_report(world, &f, now, out);
            }
        }
    }

    pub(super) fn want_dir(&mut self, dir: PathBuf) -> Vec<PathBuf> {
        self.watcher
            .as_mut()
            .map(|w| w.want(dir))
            .unwrap_or_default()
    }
}
