//! The evidence ladder in the daemon (`docs/taxonomy.md#the-evidence-ladder`, ADR 0003
//! `docs/decisions/0003-ladder-in-the-daemon.md`): one [`Ladder`] per pane, owned by the
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

mod binding;
mod dialogs;
mod explain;
mod screen;
mod timers;

use super::chrome::{ChromeState, Manifests};
use super::command::{Command, LadderCommand, LadderInput};
use super::procfs::Proc;
use super::procwatch;
use super::pty::PtyRegistry;
use super::sampling::Sampler;
use super::selfreport::{self, WatchEvent, Watcher};
use crate::adapters::terminal::TerminalEvent;
use crate::engine::ladder::{
    claim_of, codex_state_claim, title_claim, Evidence, HealthChange, Ladder,
};
use crate::engine::World;
use crate::model::{
    AgentKind, Event, EventKind, PaneId, Rung, Signal, SignalKind, Source, Timestamp,
};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use tokio::sync::mpsc;

/// What the owner must do after a ladder step: record `events` and apply `signals`
/// (through its usual path, so that they reach the ladder again).
#[derive(Debug, Default)]
pub struct Outcome {
    pub events: Vec<Event>,
    pub signals: Vec<(PaneId, Signal)>,
    /// Keys to type into a pane: the Enter that confirms an answer the agent did not
    /// take (`docs/lifecycle-attention.md#answer`).
    pub keys: Vec<(PaneId, String)>,
}

/// The self-report file bound to a pane.
#[derive(Debug, Clone)]
struct Binding {
    pid: u32,
    path: PathBuf,
    /// The text last observed (a rewrite with the same text is no new evidence).
    text: String,
}

/// An answer Attend typed that picked an option of a dialog, until the dialog is seen to
/// go or a hook shows the agent went on: at `due` ([`crate::engine::ANSWER_CONFIRM_MS`] after the keys),
/// a dialog of the same rule still drawn with its cursor on the picked option gets one
/// Enter ([`crate::adapters::answer::confirm_keys`]; `docs/lifecycle-attention.md#answer`).
#[derive(Debug, Clone)]
struct Unconfirmed {
    due: Timestamp,
    rule: String,
    picked: String,
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
    /// When Attend last typed an answer into the pane (its dialog may stay drawn a moment).
    answered_at: Option<Timestamp>,
    /// When the pane's last decision resolved (`crate::engine::verdict::Seen::closed_at`).
    closed_at: Option<Timestamp>,
    /// The answer Attend typed whose dialog has not yet been seen to go
    /// ([`Unconfirmed`]).
    unconfirmed: Option<Unconfirmed>,
    /// When the chrome last saw a dialog on the screen (`engine::dialogs::DIALOG_GONE_MS`).
    dialog_seen_at: Option<Timestamp>,
    /// The screen notice (an API retry line) drawn at the last chrome evaluation: a
    /// warning is raised when one appears, not again while it stays.
    notice: Option<String>,
    /// The turn error drawn as the last history cell at the last chrome evaluation
    /// (`crate::adapters::turn_errors`): one that appears may end the turn.
    turn_error: Option<crate::adapters::turn_errors::TurnError>,
    /// The pane's model requests, for retries only its hooks show.
    retries: crate::engine::ModelRetries,
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
            answered_at: None,
            closed_at: None,
            unconfirmed: None,
            dialog_seen_at: None,
            notice: None,
            turn_error: None,
            retries: crate::engine::ModelRetries::default(),
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
        self.unconfirmed = None;
        self.notice = None;
        self.turn_error = None;
        self.retries = crate::engine::ModelRetries::default();
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

    /// Forgets `pane` (removed): its ladder, evidence and bindings go, its timer is
    /// disarmed.
    pub fn forget(&mut self, pane: PaneId) {
        if let Some(st) = self.panes.remove(&pane) {
            if let Some((_, timer)) = st.timer {
                timer.abort();
            }
        }
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
        if events
            .iter()
            .any(|e| matches!(e.kind, EventKind::DecisionResolved { .. }))
        {
            st.closed_at = Some(now);
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
            // The agent went on: an answer typed before it was taken.
            st.unconfirmed = None;
            // A model request sent again with nothing between: a retry no screen shows
            // (`docs/lifecycle-attention.md#api-failures-and-policy-denials`).
            if let Some(text) = st.retries.observe(&signal.kind) {
                let kind = SignalKind::Warning { text };
                out.signals
                    .push((pane, Signal::new(kind, signal.source.clone(), now)));
            }
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
                let root = self.ptys.lock().get(&pane).and_then(|h| h.pid());
                if let Some(root) = root {
                    self.scan_tree(world, pane, root, now, &mut out);
                }
            }
        }
        self.sync_dialog(world, pane, now, &mut out);
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

    /// The user's interrupt key (a lone Esc, Ctrl-C) is being written into `pane` at
    /// `now`: the self-report going idle after it corrects at once
    /// (`crate::engine::ladder::INTERRUPT_WINDOW_MS`).
    pub fn note_interrupt(&mut self, pane: PaneId, now: Timestamp) {
        if let Some(st) = self.panes.get_mut(&pane) {
            st.ladder.note_interrupt(now);
        }
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
        let root = self.ptys.lock().get(&pane).and_then(|h| h.pid());
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
            LadderInput::Interrupt(pane) => self.note_interrupt(pane, now),
            LadderInput::Due(pane) => {
                let Some(st) = self.panes.get_mut(&pane) else {
                    return out;
                };
                st.timer = None;
                let step = st.sampler.tick(now);
                self.sampling_step(world, pane, step, now, &mut out);
                self.sync_dialog(world, pane, now, &mut out);
                self.schedule(world, pane, now, &mut out);
            }
        }
        out
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
        out.events
            .push(world.stamp(pane, kind, Source::new(h.rung, "ladder"), h.at));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NewPane;
    use crate::model::Lifecycle;
    use crate::service::clock::now;
    use crate::service::procfs;
    use std::path::Path;

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
        let start = procfs::start_time(me).unwrap();
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
        // No PTY here: an answer cannot be derived (the owner refuses NotOwned first).
        assert!(matches!(
            host.dialog_answer(&pane, "allow"),
            Err(crate::service::error::Attend1Error::NotOwned(_))
        ));
    }
}
