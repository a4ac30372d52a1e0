//! The evidence ladder in the daemon (seed 004): one [`Ladder`] per pane, owned by the
//! owner task, fed by every evidence source, and the one place that turns its verdict into
//! corrections of the lifecycle.
//!
//! Sources, each turned into [`Evidence`] with a per-source monotonic seq:
//! - lifecycle hooks: every signal whose source rung is `lifecycle-hooks`, through
//!   [`claim_of`] (subagent events claim nothing, so they never revive a pane);
//! - self-report: Claude's `sessions/<pid>.json` ([`super::selfreport`], inotify) for the
//!   pane whose PTY child (or a descendant) has that pid, or whose hook came from it, or
//!   whose session id it names; Codex's `OSC 7501` ([`codex_state_claim`]);
//! - needs-input chrome: the agent's screen manifest on the live screen
//!   ([`super::chrome`]), only when the screen changed;
//! - window sampling: PTY output activity ([`super::sampling`]);
//! - window titles, as low-trust evidence only ([`title_claim`]).
//!
//! Time: one tokio timer per pane, armed for the earliest of the sampler's deadline (only
//! while the pane produces output) and a pending correction's due time
//! ([`crate::engine::ladder::CORRECTION_GRACE_MS`] after the self-report that asks for
//! it); never periodic. A quiet pane has no timer.
//!
//! Outputs ([`Outcome`]): `rung.health` events (trust changes), `pane.changed` when the
//! matched chrome changes (the taxonomy is read-time, so followers need a nudge), and
//! correction signals (`GateDismissed` from self-report: Esc or deny on a dialog, Esc
//! mid-turn — the documented no-hook paths) for the owner to apply like any signal.
//! Handover (`pane.handover`) and exit reset the pane's ladder: the successor inherits no
//! authority.
//!
//! Read side: [`LadderHost::pane_extras`] (the `taxonomy`, `diagnoses`, `tasks` and `hold`
//! keys of a pane dictionary) and [`LadderHost::explain`] (`attend explain`).

use super::chrome::{ChromeState, Manifests};
use super::command::{Command, Reply};
use super::dbus::Attend1Error;
use super::owner::{lock, PtyRegistry};
use super::procwatch::{self, Proc};
use super::sampling::{Sampler, Step};
use super::selfreport::{self, ReportError, WatchEvent, Watcher};
use super::wire::{Dict, DictBuilder};
use crate::adapters::manifest::Screen;
use crate::adapters::terminal::TerminalEvent;
use crate::engine::ladder::{
    claim_of, codex_state_claim, inventory, title_claim, Claim, Evidence, HealthChange, Ladder,
    Trust,
};
use crate::engine::taxonomy::{diagnose, project, Diagnoses, RuntimeFacts, Taxonomy};
use crate::engine::World;
use crate::model::{
    AgentKind, AnswerKey, Event, EventKind, Hold, Pane, PaneId, Rung, Signal, SignalKind, Source,
    TaskId, TaskState, Timestamp,
};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use tokio::sync::mpsc;

/// Something for the ladder host from outside the owner loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LadderInput {
    /// The self-report watcher saw a change.
    Watch(WatchEvent),
    /// A pane's timer fired (sampling or chrome pacing, or a correction falling due).
    Due(PaneId),
}

/// A task state from its wire name (`open`, `working`, `reported`, `failed`,
/// `input_required`); `InvalidArgument` otherwise.
pub fn parse_task_state(s: &str) -> Result<TaskState, Attend1Error> {
    use TaskState::*;
    [Open, Working, Reported, Failed, InputRequired]
        .into_iter()
        .find(|t| t.as_str() == s)
        .ok_or_else(|| {
            Attend1Error::InvalidArgument(format!(
                "unknown task state {s:?} (open, working, reported, failed, input_required)"
            ))
        })
}

/// A hold from `SetHold`'s arguments: a named owner, a wake in ms since the epoch (after
/// 1970), a reason (`""`: none). `InvalidArgument` otherwise.
pub fn hold_of(owner: &str, wake: i64, reason: &str) -> Result<Hold, Attend1Error> {
    if owner.trim().is_empty() {
        return Err(Attend1Error::InvalidArgument(
            "a hold needs an owner".into(),
        ));
    }
    if wake <= 0 {
        return Err(Attend1Error::InvalidArgument(format!(
            "wake must be a time in ms since the epoch, not {wake}"
        )));
    }
    Ok(Hold {
        owner: owner.trim().to_string(),
        wake: Timestamp(wake),
        reason: (!reason.trim().is_empty()).then(|| reason.trim().to_string()),
    })
}

/// Requests of the obligations surface (tasks and holds, CONTRACT §5) and the ladder's
/// own inputs; the owner applies them (`Command::Ladder`).
#[derive(Debug)]
pub enum LadderCommand {
    /// `AddTask`: a new open task on a pane → its id.
    AddTask(PaneId, String, Reply<TaskId>),
    /// `SetTaskState`: start (working), report (reported) … with an optional message.
    SetTaskState(TaskId, TaskState, Option<String>, Reply<()>),
    /// `SetHold` (`Some`) or `ClearHold` (`None`).
    SetHold(PaneId, Option<Hold>, Reply<()>),
    Input(LadderInput),
}

/// What the owner must do after a ladder step: record `events` and apply `signals`
/// (through its usual path, so that they reach the ladder again).
#[derive(Debug, Default)]
pub struct Outcome {
    pub events: Vec<Event>,
    pub signals: Vec<(PaneId, Signal)>,
}

/// The self-report file bound to a pane.
#[derive(Debug, Clone)]
struct Binding {
    pid: u32,
    path: PathBuf,
    /// The text last observed (a rewrite with the same text is no new evidence).
    text: String,
}

/// One pane's ladder and its sources' state.
struct PaneLadder {
    ladder: Ladder,
    sampler: Sampler,
    chrome: ChromeState,
    self_report: Option<Binding>,
    /// Seq of the next evidence of the host-numbered sources (hooks, sampling, chrome,
    /// titles, OSC 7501).
    seq: u64,
    /// The self-report evidence (source, seq) that already produced a correction.
    corrected: Option<(String, u64)>,
    /// The armed timer: its deadline and task.
    timer: Option<(Timestamp, tokio::task::JoinHandle<()>)>,
    /// Process ids whose environment was read for Claude's sessions directory.
    scanned: HashSet<u32>,
    /// The agent process a hook of the pane ran under (pid, start time): what makes an
    /// external pane's process known.
    agent_proc: Option<Proc>,
}

impl PaneLadder {
    fn new(agent: AgentKind) -> PaneLadder {
        PaneLadder {
            ladder: Ladder::new(agent),
            sampler: Sampler::new(),
            chrome: ChromeState::default(),
            self_report: None,
            seq: 0,
            corrected: None,
            timer: None,
            scanned: HashSet::new(),
            agent_proc: None,
        }
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Handover or exit: evidence and trust back to `agent`'s inventory (health history
    /// kept), the chrome looked at afresh, the self-report text forgotten (the same
    /// process may report the successor session).
    fn reset(&mut self, agent: AgentKind) {
        self.ladder.handover(agent);
        self.chrome.reset();
        self.sampler = Sampler::new();
        self.corrected = None;
        self.seq = 0;
        if let Some(b) = &mut self.self_report {
            b.text.clear();
        }
    }
}

/// The daemon's ladders, evidence sources and timers. Lives in the owner task.
pub struct LadderHost {
    panes: HashMap<PaneId, PaneLadder>,
    manifests: Manifests,
    watcher: Option<Watcher>,
    tx: mpsc::Sender<Command>,
    ptys: PtyRegistry,
}

/// Milliseconds from `now` until `t` (0 when past).
fn until(t: Timestamp, now: Timestamp) -> std::time::Duration {
    std::time::Duration::from_millis(t.millis_since(now).max(0) as u64)
}

impl LadderHost {
    /// Starts the self-report watcher (on the daemon's own Claude sessions directory;
    /// panes add theirs) and loads the screen manifests. Must run inside the tokio
    /// runtime. Without inotify the daemon runs without the self-report rung (logged).
    pub fn start(tx: mpsc::Sender<Command>, ptys: PtyRegistry) -> LadderHost {
        let watch_tx = tx.clone();
        let watcher = Watcher::start(move |e| {
            let cmd = Command::Ladder(LadderCommand::Input(LadderInput::Watch(e)));
            // On the watcher's own thread: waiting for room in the queue is fine.
            let _ = watch_tx.blocking_send(cmd);
        })
        .inspect_err(|e| tracing::warn!("no self-report rung (cannot start inotify): {e}"))
        .ok();
        let mut host = LadderHost {
            panes: HashMap::new(),
            manifests: Manifests::load(),
            watcher,
            tx,
            ptys,
        };
        if let Some(dir) = selfreport::sessions_dir(|k| std::env::var(k).ok()) {
            // Reports already there belong to no pane yet: nothing to read now.
            host.want_dir(dir);
        }
        host
    }

    fn entry(&mut self, pane: PaneId, agent: AgentKind) -> &mut PaneLadder {
        let st = self
            .panes
            .entry(pane)
            .or_insert_with(|| PaneLadder::new(agent));
        if st.ladder.agent != agent {
            // The pane's agent became known (an agent started in a shell pane): its rung
            // inventory is declared again; it inherits nothing.
            st.reset(agent);
        }
        st
    }

    /// After the owner applied `signal` to `pane` (which emitted `events`): hook evidence,
    /// turn counting, handover and exit resets, then corrections and timers.
    pub fn after_signal(
        &mut self,
        world: &mut World,
        pane: PaneId,
        signal: &Signal,
        events: &[Event],
        now: Timestamp,
    ) -> Outcome {
        let mut out = Outcome::default();
        let Some(p) = world.panes.get(&pane) else {
            return out;
        };
        let agent = p.agent;
        let st = self.entry(pane, agent);
        let handover = events
            .iter()
            .any(|e| matches!(e.kind, EventKind::PaneHandover { .. }));
        if handover {
            st.reset(agent);
        }
        match &signal.kind {
            SignalKind::TurnStarted => st.ladder.note_turn(),
            SignalKind::ProcessExited { .. } => {
                st.reset(agent);
                st.self_report = None;
                st.agent_proc = None;
                if let Some((_, h)) = st.timer.take() {
                    h.abort();
                }
                return out;
            }
            _ => {}
        }
        if signal.source.rung == Rung::LifecycleHooks {
            if let Some((claim, what)) = claim_of(&signal.kind) {
                let seq = st.next_seq();
                let ev = Evidence {
                    rung: Rung::LifecycleHooks,
                    source_id: format!("{agent}.hooks"),
                    seq,
                    observed_at: now,
                    claim,
                    note: format!("{what} ({})", signal.source.origin),
                };
                let health = st.ladder.observe(ev, now).health;
                stamp_health(world, pane, health, &mut out);
            }
            if matches!(signal.kind, SignalKind::SessionStarted { .. }) {
                // An agent announced itself: look for where its Claude writes.
                let root = lock(&self.ptys).get(&pane).and_then(|h| h.pid());
                if let Some(root) = root {
                    self.scan_tree(world, pane, root, now, &mut out);
                }
            }
        }
        self.schedule(world, pane, now, &mut out);
        out
    }

    /// A hook of `pane` ran under `pids` (its ancestors, nearest first): the agent's
    /// process among them makes an external pane's process known (session presence) and,
    /// for Claude, tells where its self-report is written.
    pub fn hook_process(
        &mut self,
        world: &mut World,
        pane: PaneId,
        agent: AgentKind,
        pids: &[Proc],
        now: Timestamp,
    ) -> Outcome {
        let mut out = Outcome::default();
        let Some(proc) = procwatch::pick_agent(agent, pids) else {
            return out;
        };
        let st = self.entry(pane, agent);
        st.agent_proc = Some(proc);
        if agent == AgentKind::Claude && !st.scanned.contains(&proc.0) {
            self.scan_pid(world, pane, proc.0, now, &mut out);
        }
        out
    }

    /// PTY output of an owned pane (after its terminal signals were applied): Codex's
    /// OSC 7501 self-report, titles, sampling and chrome pacing.
    pub fn on_output(
        &mut self,
        world: &mut World,
        pane: PaneId,
        events: &[TerminalEvent],
        printable: bool,
        now: Timestamp,
    ) -> Outcome {
        let mut out = Outcome::default();
        let Some(p) = world.panes.get(&pane) else {
            return out;
        };
        let agent = p.agent;
        let root = lock(&self.ptys).get(&pane).and_then(|h| h.pid());
        let st = self.entry(pane, agent);
        let first_output = root.is_some_and(|r| !st.scanned.contains(&r));
        let mut health = Vec::new();
        for te in events {
            let (rung, source_id, claim, note) = match te {
                TerminalEvent::CodexState { state, kind } if agent == AgentKind::Codex => {
                    let Some(claim) = codex_state_claim(state, kind.as_deref()) else {
                        continue;
                    };
                    let note = match kind {
                        Some(k) => format!("OSC 7501 state={state} kind={k}"),
                        None => format!("OSC 7501 state={state}"),
                    };
                    (Rung::SelfReport, "codex.osc7501", claim, note)
                }
                TerminalEvent::Title(title) => {
                    let Some(claim) = title_claim(agent, title) else {
                        continue;
                    };
                    let same = st
                        .ladder
                        .rungs
                        .get(&Rung::Terminal)
                        .is_some_and(|r| r.last.as_ref().is_some_and(|l| l.claim == claim));
                    if same {
                        continue; // A spinner frame: nothing new.
                    }
                    let title = crate::adapters::terminal::sanitize_text(title, 80);
                    (
                        Rung::Terminal,
                        "terminal.title",
                        claim,
                        format!("title {title:?}"),
                    )
                }
                _ => continue,
            };
            let seq = st.next_seq();
            let ev = Evidence {
                rung,
                source_id: source_id.to_string(),
                seq,
                observed_at: now,
                claim,
                note,
            };
            health.extend(st.ladder.observe(ev, now).health);
        }
        let step = st.sampler.output(now, printable);
        stamp_health(world, pane, health, &mut out);
        self.sampling_step(world, pane, step, now, &mut out);
        if first_output {
            if let Some(root) = root {
                self.scan_tree(world, pane, root, now, &mut out);
            }
        }
        self.schedule(world, pane, now, &mut out);
        out
    }

    /// An input from the watcher or a timer.
    pub fn input(&mut self, world: &mut World, input: LadderInput, now: Timestamp) -> Outcome {
        let mut out = Outcome::default();
        match input {
            LadderInput::Watch(WatchEvent::File(path)) => {
                self.self_report(world, &path, now, &mut out);
            }
            LadderInput::Watch(WatchEvent::Dir(_)) => {
                let files = self
                    .watcher
                    .as_mut()
                    .map(Watcher::refresh)
                    .unwrap_or_default();
                for f in files {
                    self.self_report(world, &f, now, &mut out);
                }
            }
            LadderInput::Due(pane) => {
                let Some(st) = self.panes.get_mut(&pane) else {
                    return out;
                };
                st.timer = None;
                let step = st.sampler.tick(now);
                self.sampling_step(world, pane, step, now, &mut out);
                self.schedule(world, pane, now, &mut out);
            }
        }
        out
    }

    /// Records a sampling claim and evaluates the chrome when the step asks.
    fn sampling_step(
        &mut self,
        world: &mut World,
        pane: PaneId,
        step: Step,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        let Some(st) = self.panes.get_mut(&pane) else {
            return;
        };
        if let Some(activity) = step.claim {
            let seq = st.next_seq();
            let ev = Evidence {
                rung: Rung::WindowSampling,
                source_id: "pty.output".into(),
                seq,
                observed_at: now,
                claim: Claim {
                    activity: Some(activity),
                    needs_input: None,
                },
                note: match activity {
                    crate::engine::ladder::Activity::Working => "output after a quiet spell".into(),
                    _ => "quiet past the silence window and idle debounce".into(),
                },
            };
            let health = st.ladder.observe(ev, now).health;
            stamp_health(world, pane, health, out);
        }
        if step.evaluate_chrome {
            self.evaluate_chrome(world, pane, now, out);
        }
    }

    /// Evaluates the pane's manifest on its live screen; a change of the matched rule is
    /// chrome evidence and a `pane.changed`.
    fn evaluate_chrome(
        &mut self,
        world: &mut World,
        pane: PaneId,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        let Some(p) = world.panes.get(&pane) else {
            return;
        };
        let Some(manifest) = self.manifests.get(p.agent) else {
            return;
        };
        let Some(handle) = lock(&self.ptys).get(&pane).cloned() else {
            return;
        };
        let Some(st) = self.panes.get_mut(&pane) else {
            return;
        };
        // The owner never waits for a parser feeding a fast pane's screen (issue 7,
        // "Load"): the evaluation stays pending and the pane's timer retries it.
        let Some(text) = handle.try_screen_text() else {
            st.sampler.chrome_deferred();
            return;
        };
        let screen = Screen::new(&text, p.title.as_deref().unwrap_or(""));
        if !st.chrome.evaluate(manifest, screen, now) {
            return;
        }
        let (claim, note) = match &st.chrome.result.matched {
            Some(m) => (
                Claim {
                    activity: None,
                    needs_input: Some(crate::engine::ladder::NeedsInput {
                        count: 1,
                        reason: Some(m.reason.clone()),
                    }),
                },
                format!("rule {:?} matched", m.rule),
            ),
            // No dialog visible: chrome says nothing (another rung may know of a dialog
            // no rule describes).
            None => (Claim::default(), "no rule matched".to_string()),
        };
        let seq = st.next_seq();
        let ev = Evidence {
            rung: Rung::NeedsInputChrome,
            source_id: "screen.chrome".into(),
            seq,
            observed_at: now,
            claim,
            note: note.clone(),
        };
        let health = st.ladder.observe(ev, now).health;
        stamp_health(world, pane, health, out);
        out.events.push(stamp(
            world,
            pane,
            EventKind::PaneChanged,
            Source::new(Rung::NeedsInputChrome, "screen.chrome"),
            now,
        ));
    }

    /// A self-report file changed or vanished.
    fn self_report(&mut self, world: &mut World, path: &Path, now: Timestamp, out: &mut Outcome) {
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
        if let Some(why) = selfreport::stale(&report, procwatch::start_time(pid)) {
            tracing::debug!(path = %path.display(), "stale self-report: {why}");
            if let Some(id) = bound {
                self.unbind(world, id, now, out);
            }
            return;
        }
        let Some(pane) = bound.or_else(|| self.match_pane(world, &report)) else {
            return;
        };
        let Some(p) = world.panes.get_mut(&pane) else {
            return;
        };
        if p.agent == AgentKind::Shell {
            // Claude runs in this shell pane: from now on it is a Claude pane (as a hook
            // would make it).
            p.agent = AgentKind::Claude;
            let ev = stamp(
                world,
                pane,
                EventKind::PaneChanged,
                Source::new(Rung::SelfReport, "claude.sessions"),
                now,
            );
            out.events.push(ev);
        }
        let agent = world.panes[&pane].agent;
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
        let source_id = format!("claude.sessions/{pid}.json");
        let seq = match report.updated_at {
            Some(t) if t > 0 => t as u64,
            _ => st.ladder.last_seq.get(&source_id).map_or(1, |s| s + 1),
        };
        let ev = Evidence {
            rung: Rung::SelfReport,
            source_id,
            seq,
            observed_at: now,
            claim: selfreport::claim(&report),
            note: selfreport::note(&report),
        };
        let health = st.ladder.observe(ev, now).health;
        stamp_health(world, pane, health, out);
        self.schedule(world, pane, now, out);
    }

    /// The pane a newly seen report belongs to: the owned pane whose PTY child is the
    /// report's process or one of its ancestors, else the running pane whose session id
    /// the report names.
    fn match_pane(&self, world: &World, report: &selfreport::Report) -> Option<PaneId> {
        let mut chain = vec![report.pid];
        let mut p = report.pid;
        while let Some((parent, _)) = procwatch::stat(p) {
            if parent <= 1 || parent == p || chain.len() > 64 {
                break;
            }
            chain.push(parent);
            p = parent;
        }
        let by_pid = lock(&self.ptys)
            .iter()
            .find(|(_, h)| h.pid().is_some_and(|root| chain.contains(&root)))
            .map(|(id, _)| *id);
        by_pid.or_else(|| {
            let sid = report.session_id.as_ref()?;
            world
                .panes
                .values()
                .filter(|p| p.live.is_running() && p.session_id.as_ref() == Some(sid))
                .min_by_key(|p| p.owned)
                .map(|p| p.id)
        })
    }

    /// The pane's self-report became unreadable, stale or missing: fall down the ladder.
    fn unbind(&mut self, world: &mut World, pane: PaneId, now: Timestamp, out: &mut Outcome) {
        if let Some(st) = self.panes.get_mut(&pane) {
            st.self_report = None;
            st.ladder.withdraw(Rung::SelfReport);
        }
        self.schedule(world, pane, now, out);
    }

    /// Reads the environment of `root` and its descendants for Claude's sessions
    /// directory (once per process), watches those directories and reads the reports
    /// already there.
    fn scan_tree(
        &mut self,
        world: &mut World,
        pane: PaneId,
        root: u32,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        for pid in selfreport::tree(root) {
            self.scan_pid(world, pane, pid, now, out);
        }
    }

    fn scan_pid(
        &mut self,
        world: &mut World,
        pane: PaneId,
        pid: u32,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        let agent = world.panes.get(&pane).map_or(AgentKind::Shell, |p| p.agent);
        if !self.entry(pane, agent).scanned.insert(pid) {
            return;
        }
        let env = selfreport::environ(pid);
        if let Some(dir) = selfreport::sessions_dir(|k| env.get(k).cloned()) {
            for f in self.want_dir(dir) {
                self.self_report(world, &f, now, out);
            }
        }
    }

    fn want_dir(&mut self, dir: PathBuf) -> Vec<PathBuf> {
        self.watcher
            .as_mut()
            .map(|w| w.want(dir))
            .unwrap_or_default()
    }

    /// Applies a correction that is due, and arms the pane's timer for the earliest of
    /// the sampler's deadline and a pending correction.
    fn schedule(&mut self, world: &World, pane: PaneId, now: Timestamp, out: &mut Outcome) {
        let Some(p) = world.panes.get(&pane) else {
            return;
        };
        let Some(st) = self.panes.get_mut(&pane) else {
            return;
        };
        let mut deadline = st.sampler.deadline();
        if p.live.is_running() {
            if let Some((kind, due)) = st.ladder.correction(p, now) {
                let by = st
                    .ladder
                    .rungs
                    .get(&Rung::SelfReport)
                    .and_then(|r| r.last.as_ref())
                    .map(|e| (e.source_id.clone(), e.seq));
                if by.is_some() && by != st.corrected {
                    if due <= now {
                        let source = by.as_ref().map_or("self-report", |b| b.0.as_str());
                        let signal = Signal::new(kind, Source::new(Rung::SelfReport, source), now);
                        st.corrected = by;
                        out.signals.push((pane, signal));
                    } else {
                        deadline = Some(deadline.map_or(due, |d| d.min(due)));
                    }
                }
            }
        }
        match deadline {
            None => {
                if let Some((_, h)) = st.timer.take() {
                    h.abort();
                }
            }
            Some(d) => {
                // An armed timer that fires no later is kept: its tick re-arms.
                if st.timer.as_ref().is_some_and(|(t, _)| *t <= d) {
                    return;
                }
                if let Some((_, h)) = st.timer.take() {
                    h.abort();
                }
                let tx = self.tx.clone();
                let wait = until(d, now);
                let task = tokio::spawn(async move {
                    tokio::time::sleep(wait).await;
                    let cmd = Command::Ladder(LadderCommand::Input(LadderInput::Due(pane)));
                    let _ = tx.send(cmd).await;
                });
                st.timer = Some((d, task));
            }
        }
    }

    /// Keys to add to the manifest's answer keys when a decision has none (CONTRACT §3:
    /// "answer keys (when known)"): the matched chrome rule's, else those of the agent's
    /// first manifest rule of the same kind.
    pub fn answer_keys(&self, p: &Pane, kind: crate::model::DecisionKind) -> Vec<AnswerKey> {
        if let Some(m) = self
            .panes
            .get(&p.id)
            .and_then(|st| st.chrome.result.matched.as_ref())
        {
            if !m.answers.is_empty() {
                return m.answers.clone();
            }
        }
        self.manifests
            .get(p.agent)
            .and_then(|m| {
                m.rules
                    .iter()
                    .find(|r| r.kind == kind && !r.answers.is_empty())
            })
            .map(|r| r.answers.clone())
            .unwrap_or_default()
    }

    /// Seed 004's projection and diagnoses of `p` now (read time, never stored).
    pub fn taxonomy(&self, p: &Pane, now: Timestamp) -> (Taxonomy, Diagnoses) {
        let st = self.panes.get(&p.id);
        let verdict = st.map(|s| s.ladder.decide(now));
        // Hooks' gates are the engine's decisions already; chrome and self-report may see
        // a dialog no decision stands for.
        let seen = verdict
            .as_ref()
            .filter(|v| {
                v.needs_input_by
                    .as_ref()
                    .is_some_and(|e| e.rung != Rung::LifecycleHooks)
            })
            .map_or(0, |v| v.needs_input.count);
        let facts = RuntimeFacts {
            attached: false,
            process_known: p.owned
                || st.is_some_and(|s| {
                    s.self_report.is_some() || s.agent_proc.is_some_and(procwatch::alive)
                }),
            // A dialog the ladder sees (chrome, self-report) and no decision stands for.
            chrome_gates: if p.pending_decision.is_none() {
                seen
            } else {
                0
            },
        };
        let reason = verdict
            .as_ref()
            .filter(|v| v.needs_input.count > 0)
            .and_then(|v| v.needs_input.reason.clone());
        let t = project(p, facts, reason.as_deref());
        let d = diagnose(p, &t, now);
        (t, d)
    }

    /// The keys the ladder adds to a pane dictionary: `taxonomy` (session, activity,
    /// needs_input {count, reason?}, display, resumability), `diagnoses` (parked, held,
    /// done_unseen), `tasks` (id, text, state, message?, created_at, updated_at) and
    /// `hold?` (owner, wake_at, reason?, armed).
    pub fn pane_extras(&self, p: &Pane, now: Timestamp) -> Dict {
        let (t, d) = self.taxonomy(p, now);
        let needs = DictBuilder::new()
            .put("count", t.needs_input.count)
            .opt_str("reason", t.needs_input.reason.as_deref())
            .build();
        let taxonomy = DictBuilder::new()
            .str("session", t.session.as_str())
            .str("activity", t.activity.as_str())
            .dict("needs_input", needs)
            .str("display", &t.display)
            .str("resumability", t.resumability.as_str())
            .build();
        let diagnoses = DictBuilder::new()
            .put("parked", d.parked)
            .put("held", d.held)
            .put("done_unseen", d.done_unseen)
            .build();
        let tasks: Vec<Dict> = p
            .tasks
            .iter()
            .map(|task| {
                DictBuilder::new()
                    .put("id", task.id)
                    .str("pane", &task.pane.to_string())
                    .str("text", &task.text)
                    .str("state", task.state.as_str())
                    .opt_str("message", task.message.as_deref())
                    .time("created_at", Some(task.created_at))
                    .time("updated_at", Some(task.updated_at))
                    .build()
            })
            .collect();
        let mut b = DictBuilder::new()
            .dict("taxonomy", taxonomy)
            .dict("diagnoses", diagnoses)
            .put("tasks", tasks);
        if let Some(h) = &p.hold {
            let hold = DictBuilder::new()
                .str("owner", &h.owner)
                .time("wake_at", Some(h.wake))
                .opt_str("reason", h.reason.as_deref())
                .put("armed", h.is_armed(now))
                .build();
            b = b.dict("hold", hold);
        }
        b.build()
    }

    /// `Explain`'s ladder part (docs/taxonomy.md "explain"): `agent`, `activity`,
    /// `display`, `needs_input_count`, `needs_input_reason?`, `activity_evidence?` and
    /// `needs_input_evidence?` (the evidence that decided each: rung, source, note,
    /// observed_at, age_ms, trust, claim), `rungs` (every rung: coverage, trust, latest
    /// evidence), `chrome` (manifest, matched rule, nearest rule with its satisfied and
    /// total gates, evaluated_at), `self_report?` (pid, path), `health` (rung-health
    /// history: rung, from, to, reason, at), `taxonomy`, `diagnoses`.
    pub fn explain(&self, p: &Pane, now: Timestamp) -> Dict {
        let fresh;
        let st = match self.panes.get(&p.id) {
            Some(st) => st,
            None => {
                fresh = PaneLadder::new(p.agent);
                &fresh
            }
        };
        let verdict = st.ladder.decide(now);
        let (t, _) = self.taxonomy(p, now);
        let mut b = DictBuilder::new()
            .str("agent", p.agent.as_str())
            .str("activity", verdict.activity.as_str())
            .str("display", &t.display)
            .put("needs_input_count", t.needs_input.count)
            .opt_str("needs_input_reason", t.needs_input.reason.as_deref());
        if let Some(ev) = &verdict.activity_by {
            b = b.dict(
                "activity_evidence",
                evidence_dict(ev, st.ladder.trust(ev.rung), now),
            );
        }
        if let Some(ev) = &verdict.needs_input_by {
            b = b.dict(
                "needs_input_evidence",
                evidence_dict(ev, st.ladder.trust(ev.rung), now),
            );
        }
        let coverage: HashMap<Rung, _> = inventory(p.agent)
            .into_iter()
            .map(|(r, c, _)| (r, c))
            .collect();
        let rungs: Vec<Dict> = st
            .ladder
            .rungs
            .iter()
            .map(|(rung, rs)| {
                let mut d = DictBuilder::new()
                    .str("rung", rung.as_str())
                    .str(
                        "coverage",
                        coverage.get(rung).unwrap_or(&rs.coverage).as_str(),
                    )
                    .str("trust", rs.trust.as_str())
                    .build();
                if let Some(ev) = &rs.last {
                    d.extend(evidence_dict(ev, rs.trust, now));
                }
                d
            })
            .collect();
        let r = &st.chrome.result;
        let mut chrome = DictBuilder::new()
            .opt_str("manifest", self.manifests.origin(p.agent))
            .time("evaluated_at", st.chrome.evaluated_at);
        if let Some(m) = &r.matched {
            chrome = chrome
                .str("matched_rule", &m.rule)
                .str("matched_reason", &m.reason);
        }
        if let Some(n) = &r.nearest {
            chrome = chrome
                .str("nearest_rule", &n.rule)
                .put("nearest_satisfied", n.satisfied as u32)
                .put("nearest_total", n.total as u32);
        }
        let health: Vec<Dict> = st.ladder.health.iter().map(health_dict).collect();
        b = b
            .put("rungs", rungs)
            .dict("chrome", chrome.build())
            .put("health", health);
        if let Some(binding) = &st.self_report {
            b = b.dict(
                "self_report",
                DictBuilder::new()
                    .put("pid", binding.pid)
                    .str("path", &binding.path.display().to_string())
                    .build(),
            );
        }
        let mut d = b.build();
        d.extend(
            self.pane_extras(p, now)
                .into_iter()
                .filter(|(k, _)| k != "tasks"),
        );
        d
    }
}

fn evidence_dict(ev: &Evidence, trust: Trust, now: Timestamp) -> Dict {
    let mut b = DictBuilder::new()
        .str("rung", ev.rung.as_str())
        .str("source", &ev.source_id)
        .put("seq", ev.seq)
        .str("note", &ev.note)
        .time("observed_at", Some(ev.observed_at))
        .put("age_ms", now.millis_since(ev.observed_at))
        .str("trust", trust.as_str());
    if let Some(a) = ev.claim.activity {
        b = b.str("claims_activity", a.as_str());
    }
    if let Some(n) = &ev.claim.needs_input {
        b = b
            .put("claims_needs_input", n.count)
            .opt_str("claims_reason", n.reason.as_deref());
    }
    b.build()
}

fn health_dict(h: &HealthChange) -> Dict {
    DictBuilder::new()
        .str("rung", h.rung.as_str())
        .str("from", h.from.as_str())
        .str("to", h.to.as_str())
        .str("reason", &h.reason)
        .time("at", Some(h.at))
        .build()
}

/// Stamps an event the engine has no entry point for with the world's next seq.
fn stamp(world: &mut World, pane: PaneId, kind: EventKind, source: Source, at: Timestamp) -> Event {
    world.seq += 1;
    Event {
        seq: world.seq,
        pane,
        kind,
        source,
        at,
    }
}

/// One `rung.health` event per trust change.
fn stamp_health(world: &mut World, pane: PaneId, health: Vec<HealthChange>, out: &mut Outcome) {
    for h in health {
        tracing::info!(
            %pane,
            rung = h.rung.as_str(),
            from = h.from.as_str(),
            to = h.to.as_str(),
            "rung health: {}",
            h.reason
        );
        let kind = EventKind::RungHealth {
            rung: h.rung,
            from: h.from.as_str().to_string(),
            to: h.to.as_str().to_string(),
            reason: h.reason,
        };
        out.events.push(stamp(
            world,
            pane,
            kind,
            Source::new(h.rung, "ladder"),
            h.at,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NewPane;
    use crate::model::{DecisionKind, Lifecycle};
    use crate::service::dbus::now;

    #[test]
    fn task_states_and_holds_are_validated() {
        assert_eq!(parse_task_state("reported").unwrap(), TaskState::Reported);
        assert!(matches!(
            parse_task_state("done"),
            Err(Attend1Error::InvalidArgument(_))
        ));
        let h = hold_of(" alice ", 5, " review ").unwrap();
        assert_eq!(
            (h.owner.as_str(), h.wake, h.reason.as_deref()),
            ("alice", Timestamp(5), Some("review"))
        );
        assert_eq!(hold_of("bob", 5, "").unwrap().reason, None);
        assert!(hold_of("", 5, "").is_err());
        assert!(hold_of("bob", 0, "").is_err());
    }

    fn report(pid: u32, start: u64, status: &str, updated: i64) -> String {
        format!(
            r#"{{"pid":{pid},"sessionId":"s1","procStart":"{start}","status":"{status}","waitingFor":"permission prompt","updatedAt":{updated}}}"#
        )
    }

    /// Esc on a dialog, end to end inside the host: the self-report goes waiting → idle,
    /// no hook comes, and the one-shot timer brings the correction after the grace.
    #[tokio::test]
    async fn a_self_report_going_idle_dismisses_the_gate_after_the_grace() {
        let (tx, mut rx) = mpsc::channel(64);
        let mut host = LadderHost::start(tx, PtyRegistry::default());
        let mut world = World::new();
        let (p, _) = world.add_pane(
            NewPane {
                agent: AgentKind::Claude,
                session_id: Some("s1".into()),
                ..Default::default()
            },
            now(),
        );
        let gate = Signal::new(
            SignalKind::PermissionRequested {
                prompt: "Bash: ls".into(),
                options: vec![],
                answer_keys: vec![],
                tool_use_id: None,
            },
            Source::hook("claude", "PermissionRequest"),
            Timestamp(now().0 - 1000),
        );
        let events = world.apply_signal(p, &gate).unwrap();
        let out = host.after_signal(&mut world, p, &gate, &events, gate.at);
        assert!(out.signals.is_empty());
        assert_eq!(world.panes[&p].lifecycle, Lifecycle::Blocked);

        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("sessions");
        std::fs::create_dir_all(&sessions).unwrap();
        let me = std::process::id();
        let start = procwatch::start_time(me).unwrap();
        let path = sessions.join(format!("{me}.json"));
        let watch = |path: &Path| LadderInput::Watch(WatchEvent::File(path.to_path_buf()));

        std::fs::write(&path, report(me, start, "waiting", 1)).unwrap();
        let out = host.input(&mut world, watch(&path), now());
        assert!(out.signals.is_empty(), "still waiting");
        let pane = world.panes[&p].clone();
        let x = host.explain(&pane, now());
        assert!(x.contains_key("self_report"), "bound by session id");
        let (t, _) = host.taxonomy(&pane, now());
        assert_eq!(t.needs_input.reason.as_deref(), Some("permission prompt"));

        // A partial write is not evidence (the binding stays, nothing is decided).
        std::fs::write(&path, "{\"pid\":").unwrap();
        assert!(host
            .input(&mut world, watch(&path), now())
            .signals
            .is_empty());

        // Esc: waiting → idle. Nothing yet (a Stop hook may still come) …
        std::fs::write(&path, report(me, start, "idle", 2)).unwrap();
        let seen = std::time::Instant::now();
        let out = host.input(&mut world, watch(&path), now());
        assert!(out.signals.is_empty(), "the grace first");
        // … then the timer fires once, after the grace.
        let cmd = tokio::time::timeout(std::time::Duration::from_secs(5), rx.recv())
            .await
            .expect("the timer fires")
            .unwrap();
        let waited = seen.elapsed().as_millis() as i64;
        assert!(
            waited >= crate::engine::ladder::CORRECTION_GRACE_MS - 50,
            "{waited} ms"
        );
        let Command::Ladder(LadderCommand::Input(input)) = cmd else {
            panic!("not a ladder input: {cmd:?}");
        };
        assert_eq!(input, LadderInput::Due(p));
        let out = host.input(&mut world, input, now());
        assert_eq!(out.signals.len(), 1);
        let (pane_id, signal) = &out.signals[0];
        assert_eq!(*pane_id, p);
        assert_eq!(signal.kind, SignalKind::GateDismissed);
        assert_eq!(signal.source.rung, Rung::SelfReport);
        let events = world.apply_signal(p, signal).unwrap();
        assert!(events.iter().any(|e| matches!(
            &e.kind,
            EventKind::DecisionResolved { resolution, .. } if resolution.as_str() == "dismissed"
        )));
        let out = host.after_signal(&mut world, p, signal, &events, now());
        assert!(out.signals.is_empty(), "corrected once");
        assert_eq!(world.panes[&p].lifecycle, Lifecycle::Idle);
        assert!(
            rx.try_recv().is_err(),
            "no timer left armed: nothing is due"
        );

        // A stale report (the pid's start time differs) falls down the ladder.
        std::fs::write(&path, report(me, start + 1, "busy", 3)).unwrap();
        host.input(&mut world, watch(&path), now());
        let pane = world.panes[&p].clone();
        assert!(!host.explain(&pane, now()).contains_key("self_report"));
        let v = host.panes[&p].ladder.decide(now());
        assert_ne!(
            v.activity_by.map(|e| e.rung),
            Some(Rung::SelfReport),
            "stale evidence never decides"
        );
        // Manifest keys for a decision without its own.
        let keys = host.answer_keys(&pane, DecisionKind::Permission);
        assert!(keys.iter().any(|k| k.choice == "allow" && k.keys == "1"));
    }
}
