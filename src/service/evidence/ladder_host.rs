//! The evidence sources of the per-pane machines in the daemon
//! (`docs/taxonomy.md#the-evidence-ladder`, ADR 0003 `docs/decisions/0003-ladder-in-the-daemon.md`):
//! the thin I/O shell around [`crate::engine::machine::PaneMachine`]. It reads what only
//! the daemon can read — files, screens, processes, the clock's timers — and hands each
//! reading to the pane's machine as one [`Input`] through [`World::step`]; the machine
//! decides (its ladder, its verdict, its corrections), this module never writes a pane.
//!
//! Sources, each turned into [`Evidence`] with a per-source monotonic seq:
//! - lifecycle hooks: the machine takes them from the signals themselves;
//! - self-report: Claude's `sessions/<pid>.json` ([`crate::service::evidence::selfreport`], inotify) for the
//!   pane whose PTY child (or a descendant) has that pid, or whose hook came from it, or
//!   whose session id it names; Codex's `OSC 7501` ([`codex_state_claim`]);
//! - needs-input chrome: the agent's screen manifest on the live screen
//!   ([`crate::service::evidence::chrome`]), only when the screen changed ([`Input::Chrome`]);
//! - window sampling: PTY output activity ([`crate::service::evidence::sampling`]);
//! - window titles, as low-trust evidence only ([`title_claim`]).
//!
//! Time: one tokio timer per pane, armed for the earliest of the sampler's deadline (only
//! while the pane produces output), an unconfirmed answer's check and the time the
//! machine asks to be woken ([`crate::engine::machine::PaneMachine::wake`]: a pending
//! correction, a dialog dismissal); never periodic. A quiet pane has no timer.
//!
//! Outputs ([`Outcome`]): the events the machines emitted (stamped), `pane.changed` when
//! the matched chrome changes (the taxonomy is read-time, so followers need a nudge),
//! signals read off the screen (a retry notice, a turn error) for the owner to apply
//! like any signal, and keys to type (an answer's confirming Enter). Handover
//! (`pane.handover`) and exit reset the pane's sources with its machine's evidence.
//!
//! Read side: [`LadderHost::read_time_parts`] (the `taxonomy`, `diagnoses`, `tasks` and `hold`
//! keys of a pane dictionary) and [`LadderHost::explain`] (`attend explain`).

mod binding;
mod dialogs;
mod explain;
mod pane_timer;
mod screen;
mod timers;

use crate::adapters::terminal_signals::TerminalEvent;
use crate::engine::ladder::{codex_state_claim, title_claim, Evidence};
use crate::engine::machine::{Input, Stepped};
use crate::engine::World;
use crate::model::{AgentKind, Event, EventKind, PaneId, Rung, Signal, SignalKind, Timestamp};
use crate::service::command::{Command, LadderCommand, LadderInput};
use crate::service::evidence::chrome::{ChromeState, Manifests};
use crate::service::evidence::sampling::Sampler;
use crate::service::evidence::selfreport::{self, WatchEvent, Watcher};
use crate::service::processes::procfs::Proc;
use crate::service::processes::procwatch;
use crate::service::pty::PtyRegistry;
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

/// One pane's evidence sources: what the daemon reads for its machine.
struct PaneSources {
    /// The agent the sources read for (another agent in the pane starts them afresh).
    agent: AgentKind,
    sampler: Sampler,
    chrome: ChromeState,
    self_report: Option<Binding>,
    /// Seq of the next evidence of the host-numbered sources (sampling, titles, OSC 7501).
    seq: u64,
    /// The pane's timer, once it was first armed.
    timer: Option<pane_timer::PaneTimer>,
    /// Process ids whose environment was read for Claude's sessions directory.
    scanned: HashSet<u32>,
    /// The agent process a hook of the pane ran under (pid, start time): what makes an
    /// external pane's process known.
    agent_proc: Option<Proc>,
    /// The answer Attend typed whose dialog has not yet been seen to go
    /// ([`Unconfirmed`]).
    unconfirmed: Option<Unconfirmed>,
    /// The screen notice (an API retry line) drawn at the last chrome evaluation: a
    /// warning is raised when one appears, not again while it stays.
    notice: Option<String>,
    /// The turn error drawn as the last history cell at the last chrome evaluation
    /// (`crate::adapters::turn_errors`): one that appears may end the turn.
    turn_error: Option<crate::adapters::turn_errors::TurnError>,
}

impl PaneSources {
    fn new(agent: AgentKind) -> PaneSources {
        PaneSources {
            agent,
            sampler: Sampler::new(),
            chrome: ChromeState::default(),
            self_report: None,
            seq: 0,
            timer: None,
            scanned: HashSet::new(),
            agent_proc: None,
            unconfirmed: None,
            notice: None,
            turn_error: None,
        }
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Handover or exit: the chrome looked at afresh, the self-report text forgotten
    /// (the same process may report the successor session); the machine resets its own
    /// evidence.
    fn reset(&mut self, agent: AgentKind) {
        self.agent = agent;
        self.chrome.reset();
        self.unconfirmed = None;
        self.notice = None;
        self.turn_error = None;
        self.sampler = Sampler::new();
        self.seq = 0;
        if let Some(b) = &mut self.self_report {
            b.text.clear();
        }
    }
}

/// The daemon's evidence sources and timers, one set per pane. Lives in the owner task.
pub struct LadderHost {
    panes: HashMap<PaneId, PaneSources>,
    manifests: Manifests,
    watcher: Option<Watcher>,
    tx: mpsc::Sender<Command>,
    ptys: PtyRegistry,
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

    /// Forgets `pane` (removed): its sources and bindings go, its timer is disarmed.
    pub fn forget(&mut self, pane: PaneId) {
        // Its timer's task ends with it.
        self.panes.remove(&pane);
    }

    /// `attend resume` started the pane's program again: its sources start afresh.
    pub fn reset_sources(&mut self, pane: PaneId) {
        if let Some(st) = self.panes.get_mut(&pane) {
            let agent = st.agent;
            st.reset(agent);
        }
    }

    fn entry(&mut self, pane: PaneId, agent: AgentKind) -> &mut PaneSources {
        let st = self
            .panes
            .entry(pane)
            .or_insert_with(|| PaneSources::new(agent));
        if st.agent != agent {
            // The pane's agent became known (an agent started in a shell pane): its
            // sources start afresh; it inherits nothing.
            st.reset(agent);
        }
        st
    }

    /// Steps `pane`'s machine with `input` at `now`; its events go to `out`, and a reset
    /// of its evidence resets the pane's sources too.
    fn step(
        &mut self,
        world: &mut World,
        pane: PaneId,
        input: Input,
        now: Timestamp,
        out: &mut Outcome,
    ) -> Option<Stepped> {
        let (events, stepped) = world.step(pane, input, now).ok()?;
        for h in &stepped.health {
            tracing::info!(
                %pane,
                rung = h.rung.as_str(),
                from = h.from.as_str(),
                to = h.to.as_str(),
                "rung health: {}",
                h.reason
            );
        }
        out.events.extend(events);
        if stepped.reset {
            let agent = world.pane(pane).map_or(AgentKind::Shell, |p| p.agent);
            self.entry(pane, agent).reset(agent);
        }
        Some(stepped)
    }

    /// Hands a piece of evidence read by the daemon to `pane`'s machine.
    fn observe(
        &mut self,
        world: &mut World,
        pane: PaneId,
        ev: Evidence,
        now: Timestamp,
        out: &mut Outcome,
    ) {
        self.step(world, pane, Input::Evidence(ev), now, out);
    }

    /// After the owner applied `signal` to `pane` (its machine took it, emitting
    /// `events`): the sources' side of a handover or an exit, the look for Claude's
    /// self-report when an agent announces itself, then the timer.
    pub fn after_signal(
        &mut self,
        world: &mut World,
        pane: PaneId,
        signal: &Signal,
        events: &[Event],
        now: Timestamp,
    ) -> Outcome {
        let mut out = Outcome::default();
        let Ok(p) = world.pane(pane) else {
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
        if let SignalKind::ProcessExited { .. } = &signal.kind {
            st.reset(agent);
            st.self_report = None;
            st.agent_proc = None;
            st.timer = None;
            return out;
        }
        if signal.source.rung == Rung::LifecycleHooks {
            // The agent went on: an answer typed before it was taken.
            st.unconfirmed = None;
            if matches!(signal.kind, SignalKind::SessionStarted { .. }) {
                // An agent announced itself: look for where its Claude writes.
                let root = self.ptys.lock().get(&pane).and_then(|h| h.pid());
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

    /// The pane whose agent process (made known by a hook, or by following its tmux
    /// pane) is `pid`, if any.
    pub fn pane_of_process(&self, pid: u32) -> Option<PaneId> {
        self.panes
            .iter()
            .find(|(_, st)| st.agent_proc.is_some_and(|p| p.0 == pid))
            .map(|(id, _)| *id)
    }

    /// The user's interrupt key (a lone Esc, Ctrl-C) is being written into `pane` at
    /// `now`: the self-report going idle after it corrects at once
    /// (`crate::engine::ladder::INTERRUPT_WINDOW_MS`).
    pub fn note_interrupt(&mut self, world: &mut World, pane: PaneId, now: Timestamp) -> Outcome {
        let mut out = Outcome::default();
        self.step(world, pane, Input::Interrupt, now, &mut out);
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
        let Ok(m) = world.machine(pane) else {
            return out;
        };
        let agent = m.agent;
        let last_title = m
            .ladder()
            .rungs
            .get(&Rung::Terminal)
            .and_then(|r| r.last.as_ref())
            .map(|l| l.claim.clone());
        let root = self.ptys.lock().get(&pane).and_then(|h| h.pid());
        let st = self.entry(pane, agent);
        let first_output = root.is_some_and(|r| !st.scanned.contains(&r));
        let mut evidence = Vec::new();
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
                    if last_title.as_ref() == Some(&claim) {
                        continue; // A spinner frame: nothing new.
                    }
                    let title = crate::adapters::terminal_signals::sanitize_text(title, 80);
                    (
                        Rung::Terminal,
                        "terminal.title",
                        claim,
                        format!("title {title:?}"),
                    )
                }
                _ => continue,
            };
            evidence.push(Evidence {
                rung,
                source_id: source_id.to_string(),
                seq: st.next_seq(),
                observed_at: now,
                claim,
                note,
            });
        }
        let step = st.sampler.output(now, printable);
        for ev in evidence {
            self.observe(world, pane, ev, now, &mut out);
        }
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
            LadderInput::Interrupt(pane) => {
                self.step(world, pane, Input::Interrupt, now, &mut out);
            }
            LadderInput::Due(pane) => {
                let Some(st) = self.panes.get_mut(&pane) else {
                    return out;
                };
                let step = st.sampler.tick(now);
                self.sampling_step(world, pane, step, now, &mut out);
                self.step(world, pane, Input::Due, now, &mut out);
                self.schedule(world, pane, now, &mut out);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NewPane;
    use crate::model::Lifecycle;
    use crate::service::processes::procfs;
    use crate::system::clock::now;
    use std::path::Path;

    fn report(pid: u32, start: u64, status: &str, updated: i64) -> String {
        format!(
            r#"{{"pid":{pid},"sessionId":"s1","procStart":"{start}","status":"{status}","waitingFor":"permission prompt","updatedAt":{updated}}}"#
        )
    }

    fn dismissed(out: &Outcome) -> bool {
        out.events.iter().any(|e| {
            matches!(
                &e.kind,
                EventKind::DecisionResolved { resolution, .. } if resolution.as_str() == "dismissed"
            )
        })
    }

    /// Esc on a dialog, end to end inside the host: the self-report goes waiting → idle,
    /// no hook comes, and the one-shot timer wakes the pane's machine, which corrects the
    /// lifecycle after the grace.
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
            crate::model::Source::hook("claude", "PermissionRequest"),
            Timestamp(now().0 - 1000),
        );
        let events = world.apply_signal(p, &gate).unwrap();
        let out = host.after_signal(&mut world, p, &gate, &events, gate.at);
        assert!(out.signals.is_empty() && out.events.is_empty());
        assert_eq!(world.pane(p).unwrap().lifecycle, Lifecycle::Blocked);

        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("sessions");
        std::fs::create_dir_all(&sessions).unwrap();
        let me = std::process::id();
        let start = procfs::start_time(me).unwrap();
        let path = sessions.join(format!("{me}.json"));
        let watch = |path: &Path| LadderInput::Watch(WatchEvent::File(path.to_path_buf()));

        std::fs::write(&path, report(me, start, "waiting", 1)).unwrap();
        let out = host.input(&mut world, watch(&path), now());
        assert!(!dismissed(&out), "still waiting");
        let x = host.explain(world.machine(p).unwrap(), now());
        assert!(x.contains_key("self_report"), "bound by session id");
        let (t, _) = host.taxonomy(world.machine(p).unwrap(), now());
        assert_eq!(t.needs_input.reason.as_deref(), Some("permission prompt"));

        // A partial write is not evidence (the binding stays, nothing is decided).
        std::fs::write(&path, "{\"pid\":").unwrap();
        assert!(host
            .input(&mut world, watch(&path), now())
            .events
            .is_empty());

        // Esc: waiting → idle. Nothing yet (a Stop hook may still come) …
        std::fs::write(&path, report(me, start, "idle", 2)).unwrap();
        let seen = std::time::Instant::now();
        let out = host.input(&mut world, watch(&path), now());
        assert!(!dismissed(&out), "the grace first");
        assert_eq!(world.pane(p).unwrap().lifecycle, Lifecycle::Blocked);
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
        assert!(dismissed(&out), "{:?}", out.events);
        let resolved = out
            .events
            .iter()
            .find(|e| matches!(e.kind, EventKind::DecisionResolved { .. }))
            .unwrap();
        assert_eq!(resolved.source.rung, Rung::SelfReport);
        assert_eq!(world.pane(p).unwrap().lifecycle, Lifecycle::Idle);
        // Corrected once: waking the machine again changes nothing.
        let again = host.input(&mut world, LadderInput::Due(p), now());
        assert!(
            again.events.is_empty(),
            "corrected once: {:?}",
            again.events
        );
        assert!(
            rx.try_recv().is_err(),
            "no timer left armed: nothing is due"
        );

        // A stale report (the pid's start time differs) falls down the ladder.
        std::fs::write(&path, report(me, start + 1, "busy", 3)).unwrap();
        host.input(&mut world, watch(&path), now());
        let m = world.machine(p).unwrap();
        assert!(!host.explain(m, now()).contains_key("self_report"));
        let v = m.verdict(now());
        assert_ne!(
            v.activity_by.map(|e| e.rung),
            Some(Rung::SelfReport),
            "stale evidence never decides"
        );
        // No PTY here: an answer cannot be derived (the owner refuses NotOwned first).
        assert!(matches!(
            host.dialog_answer(m, "allow"),
            Err(crate::service::bus::error::Attend1Error::NotOwned(_))
        ));
    }
}
