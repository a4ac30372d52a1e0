//! The per-pane state machine (`docs/architecture.md#the-per-pane-machine`): one
//! [`PaneMachine`] per pane owns the pane's state and its evidence ladder, and one entry,
//! [`PaneMachine::step`], takes every input — a signal (hooks, terminal signals, process
//! exit), a user action, a piece of evidence (self-report, sampling, titles), the chrome's
//! reading of the live screen, an answer Attend delivered, a timer — and returns what
//! happened ([`Stepped`]: the events, the rung-health changes, when to wake it next).
//! Lifecycle, attention, the open decision and the taxonomy's needs-input come out of the
//! same step, so they cannot disagree (`docs/lifecycle-attention.md#one-verdict`).
//!
//! Pure: no I/O, no clock (`now` is an argument). The daemon's sources turn what they
//! read into inputs; nothing else writes a pane's state: the pane is reachable only
//! through `Deref` (read) and the constructors ([`PaneMachine::new`],
//! [`PaneMachine::restore`]).

use super::dialogs::{
    answered_leave_due, closed_gate_step, dismissal_due, ClosedScreen, ShownDialog,
};
use super::ladder::{claim_of, Evidence, HealthChange, Ladder, Verdict};
use super::quiet::start_quiet;
use super::retries::ModelRetries;
use super::taxonomy::{diagnose, project, Diagnoses, RuntimeFacts, Taxonomy};
use super::transition::{apply_action, apply_signal, ActionError, Emitted};
use super::verdict::{opens_decisions, step_rung, verdict_step, Seen};
use crate::model::{
    Action, AgentKind, Decision, EventKind, Lifecycle, Live, Pane, Rung, Signal, SignalKind,
    Source, Timestamp,
};
use std::ops::Deref;

/// The source origin of the chrome's signals (rung `needs-input-chrome`).
pub use super::dialogs::CHROME_ORIGIN;

/// How many signals one step may apply after its input (the verdict's open, then an
/// enrichment or a correction): a bound, never reached by the rules.
const FOLLOW_UPS: usize = 4;

/// One input of [`PaneMachine::step`].
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A normalised signal (a hook, a terminal signal, the process's exit, a handover).
    Signal(Signal),
    /// A user action (seen, focus, answer, attach, kill, …).
    Action(Action),
    /// Evidence of a rung the daemon reads itself (self-report, sampling, titles,
    /// Codex's OSC 7501).
    Evidence(Evidence),
    /// A rung's source became unreadable, stale or missing (`Ladder::withdraw`).
    Withdraw(Rung),
    /// The chrome evaluated the live screen: the dialog its rules match, the closed
    /// screen it shows, and whether the matched rule changed (a change is chrome
    /// evidence).
    Chrome {
        shown: Option<ShownDialog>,
        closed: Option<ClosedScreen>,
        changed: bool,
    },
    /// Attend delivered an answer (keys typed, or a hook's waiting gate answered): the
    /// dialog still drawn a moment is the answered one.
    Answered,
    /// The user's interrupt key (a lone Esc, Ctrl-C) is written into the pane.
    Interrupt,
    /// The time [`PaneMachine::wake`] asked for has come (or any later time).
    Due,
    /// `attend resume` started `command` again in the exited pane: running, its
    /// lifecycle its own again (unknown until it signals), unfocused, a fresh quiet
    /// start for a shell (`docs/lifecycle-attention.md#quiet-shell-start`); emits
    /// `pane.changed`.
    Resumed { command: Vec<String> },
    /// The pane's process is known to run again without having been started anew: the
    /// holder of an owned pane re-adopted after a daemon restart, or an external pane's
    /// agent watched again after a hook. Emits nothing (the caller says why).
    Revived,
    /// A new program took the seat of the exited pane: `agent` started later in the same
    /// tmux pane (`docs/tmux.md#exit`). A handover of the seat
    /// (`docs/taxonomy.md#handover`): running again, the lifecycle unknown until the new
    /// agent's evidence, no session (the new agent's first hook names its own without a
    /// second handover), the evidence and rung trust reset, attention items kept; emits
    /// `pane.changed` then `pane.handover` (previous session → none).
    Reoccupied { agent: AgentKind },
    /// The pane's holder vanished without recording the exit (found at a daemon
    /// restart): exited with the status unknown (`docs/lifecycle-attention.md#process-exited`);
    /// emits `pane.exited` with no code.
    Vanished,
    /// The repository and branch of the pane's cwd (identity; emits nothing).
    Git {
        repo: Option<String>,
        branch: Option<String>,
    },
}

/// What one step did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stepped {
    /// The events, in order, each with its source (the world stamps their seqs).
    pub events: Emitted,
    /// Trust changes of the ladder's rungs (`rung.health` events).
    pub health: Vec<HealthChange>,
    /// The decision an `Answer` resolved (the caller types its keys).
    pub answered: Option<Decision>,
    /// The pane's evidence was reset (a handover, an exit, another agent in the pane):
    /// the daemon's sources forget what they read for the previous occupant.
    pub reset: bool,
}

/// Errors of [`PaneMachine::step`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepError {
    /// `Answer` with no open decision.
    NoDecision,
}

/// After a hook resolved a pane's decision whose dialog the chrome had not read, the
/// chrome's first reading of a dialog within this long (ms) is that dialog still drawn
/// on its way out, and counts no needs-input. Measured: OpenCode 1.18.33's
/// `permission.replied` came 91 ms after its dialog was drawn and the chrome's first
/// reading 30 ms after the hook, the dialog gone 190 ms after it.
pub const HOOK_CLOSE_LAG_MS: i64 = 500;

/// One pane's state, evidence and dialog memory (module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct PaneMachine {
    pane: Pane,
    ladder: Ladder,
    /// The chrome's last reading of the live screen.
    shown: Option<ShownDialog>,
    closed: Option<ClosedScreen>,
    /// When the chrome last saw a dialog.
    dialog_seen_at: Option<Timestamp>,
    /// When Attend last delivered an answer.
    answered_at: Option<Timestamp>,
    /// When an answer Attend typed resolved the pane's decision and left it `blocked`
    /// ([`answered_leave_due`]); forgotten once the pane is anything but `blocked`.
    answered_blocked_at: Option<Timestamp>,
    /// When the pane's last decision resolved by a signal (`Seen::closed_at`).
    closed_at: Option<Timestamp>,
    /// When a hook last resolved the pane's decision while the chrome read no dialog (the
    /// agent said its dialog was answered before the screen was read): a first reading
    /// of that dialog within [`HOOK_CLOSE_LAG_MS`] is the dialog on its way out.
    hook_closed_unread_at: Option<Timestamp>,
    /// The self-report evidence (source, seq) that already produced a correction.
    corrected: Option<(String, u64)>,
    /// Seq of the last evidence the machine numbers itself (hooks, chrome).
    seq: u64,
    /// The pane's model requests, for retries only its hooks show.
    retries: ModelRetries,
}

impl Deref for PaneMachine {
    type Target = Pane;

    fn deref(&self) -> &Pane {
        &self.pane
    }
}

impl PaneMachine {
    /// A machine for a new pane (its agent's rung inventory, nothing seen yet).
    pub fn new(pane: Pane) -> PaneMachine {
        PaneMachine {
            ladder: Ladder::new(pane.agent),
            pane,
            shown: None,
            closed: None,
            dialog_seen_at: None,
            answered_at: None,
            answered_blocked_at: None,
            closed_at: None,
            hook_closed_unread_at: None,
            corrected: None,
            seq: 0,
            retries: ModelRetries::default(),
        }
    }

    /// A machine for a pane read back from the store or mirrored from a linked host:
    /// its stored state as it was, its evidence from nothing (a restart inherits no rung
    /// authority: `docs/taxonomy.md#handover`).
    pub fn restore(pane: Pane) -> PaneMachine {
        PaneMachine::new(pane)
    }

    /// True when `self` and `other` differ in the pane's window title and nothing else:
    /// a title that animates with an agent's spinner, state the daemon stores with the
    /// pane's next other change rather than once per frame. Takes `self` (a copy taken
    /// before a step) to compare without another copy of the machine.
    pub fn differs_in_title_only(mut self, other: &PaneMachine) -> bool {
        if self.pane.title == other.pane.title {
            return false;
        }
        self.pane.title.clone_from(&other.pane.title);
        self == *other
    }

    /// The pane's evidence ladder (read only).
    pub fn ladder(&self) -> &Ladder {
        &self.ladder
    }

    /// The ladder's verdict now, as the pane's decision reads it: a needs-input whose
    /// evidence was observed before the pane's last decision closed (or, but for the
    /// chrome's, before Attend's last answer) is spent — that dialog was answered or
    /// is on its way out — so it counts none and the next deciding rung decides
    /// (`docs/lifecycle-attention.md#one-verdict`).
    /// A dialog the chrome still reads after an answer is not spent: once the answer
    /// settled, a dialog still drawn is open again (its keys were not taken). Lifecycle,
    /// attention, the decision and the taxonomy all read this one verdict.
    pub fn verdict(&self, now: Timestamp) -> Verdict {
        self.ladder.decide_unspent(now, |e| {
            let spent = match e.rung {
                Rung::NeedsInputChrome => self.closed_at,
                _ => [self.closed_at, self.answered_at]
                    .into_iter()
                    .flatten()
                    .max(),
            };
            // The chrome's first reading of a dialog a hook closed a moment before
            // (`docs/lifecycle-attention.md#one-verdict`, "Closed is closed").
            let on_its_way_out = e.rung == Rung::NeedsInputChrome
                && self.hook_closed_unread_at.is_some_and(|t| {
                    e.observed_at > t && e.observed_at.millis_since(t) <= HOOK_CLOSE_LAG_MS
                });
            spent.is_some_and(|t| e.observed_at <= t) || on_its_way_out
        })
    }

    /// When the chrome last saw a dialog on the screen.
    pub fn dialog_seen_at(&self) -> Option<Timestamp> {
        self.dialog_seen_at
    }

    /// The dialog the chrome matches now.
    pub fn shown(&self) -> Option<&ShownDialog> {
        self.shown.as_ref()
    }

    /// The pane with `f` applied: for the world's own bookkeeping that is no state
    /// transition (the agent of a shell pane adopting an agent, a hold, a task, the
    /// workspace's git facts). Its ladder follows a change of agent.
    pub(super) fn edit<T>(&mut self, f: impl FnOnce(&mut Pane) -> T) -> T {
        let out = f(&mut self.pane);
        if self.ladder.agent != self.pane.agent {
            self.reset();
        }
        out
    }

    fn reset(&mut self) {
        self.ladder.handover(self.pane.agent);
        self.corrected = None;
        self.seq = 0;
        self.retries = ModelRetries::default();
        self.shown = None;
        self.closed = None;
    }

    /// The one entry (module doc). `next_decision` is the store-wide decision id counter.
    /// Errors: `NoDecision` for an `Answer` on a pane with no open decision (nothing
    /// changes).
    pub fn step(
        &mut self,
        input: Input,
        now: Timestamp,
        next_decision: &mut u64,
    ) -> Result<Stepped, StepError> {
        let mut out = Stepped::default();
        match input {
            Input::Signal(signal) => self.signal(&signal, next_decision, &mut out),
            Input::Action(action) => {
                let (emitted, answered) =
                    apply_action(&mut self.pane, &action, now).map_err(|e| match e {
                        ActionError::NoDecision => StepError::NoDecision,
                    })?;
                if answered.is_some() {
                    self.answered_at = Some(now);
                    self.answered_blocked_at = Some(now);
                }
                out.events.extend(emitted);
                out.answered = answered;
            }
            Input::Evidence(ev) => {
                let health = self.ladder.observe(ev, now).health;
                out.health.extend(health);
            }
            Input::Withdraw(rung) => {
                self.ladder.withdraw(rung);
            }
            Input::Chrome {
                shown,
                closed,
                changed,
            } => {
                // The chrome's first reading of a decision it opened before this machine
                // was built (a daemon restart restores the decision, not the evidence) is
                // word on it even when nothing changed: a dialog answered while no daemon
                // ran is gone, and its absence starts the `DIALOG_GONE_MS` wait.
                let first_word = self.unheard_chrome_decision();
                if changed || first_word {
                    let ev = chrome_evidence(shown.as_ref(), &mut self.seq, now);
                    out.health.extend(self.ladder.observe(ev, now).health);
                }
                if first_word && shown.is_none() {
                    self.dialog_seen_at = self.dialog_seen_at.or(Some(now));
                }
                self.shown = shown;
                self.closed = closed;
            }
            Input::Answered => self.answered_at = Some(now),
            Input::Interrupt => self.ladder.note_interrupt(now),
            Input::Due => {}
            Input::Resumed { command } => {
                let p = &mut self.pane;
                p.live = Live::Running;
                p.exited_at = None;
                p.lifecycle = Lifecycle::Unknown;
                p.last_lifecycle = None;
                p.focused = false;
                p.kill_requested_at = None;
                p.start_quiet = start_quiet(p.agent, p.owned, &command, now);
                self.reset();
                out.reset = true;
                out.events
                    .push((EventKind::PaneChanged, Source::process("resume")));
            }
            Input::Revived => {
                let p = &mut self.pane;
                p.live = Live::Running;
                p.exited_at = None;
                p.last_lifecycle = None;
            }
            Input::Reoccupied { agent } => {
                let p = &mut self.pane;
                let previous_session = p.session_id.take();
                p.agent = agent;
                p.live = Live::Running;
                p.exited_at = None;
                p.lifecycle = Lifecycle::Unknown;
                p.last_lifecycle = None;
                p.focused = false;
                p.kill_requested_at = None;
                p.resume_argv = None;
                p.hooks_seen = false;
                p.limit_reason = None;
                p.last_message = None;
                p.start_quiet = None;
                self.reset();
                out.reset = true;
                let source = Source::process("tmux");
                out.events.push((EventKind::PaneChanged, source.clone()));
                out.events.push((
                    EventKind::PaneHandover {
                        previous_session,
                        session_id: None,
                    },
                    source,
                ));
            }
            Input::Vanished => {
                let p = &mut self.pane;
                p.last_lifecycle = Some(p.lifecycle);
                p.live = Live::Exited {
                    code: None,
                    signal: None,
                };
                p.exited_at = Some(now);
                out.events.push((
                    EventKind::PaneExited {
                        code: None,
                        signal: None,
                    },
                    Source::process("daemon-restart"),
                ));
            }
            Input::Git { repo, branch } => {
                self.pane.repo = repo;
                self.pane.branch = branch;
            }
        }
        self.follow(now, next_decision, &mut out);
        Ok(out)
    }

    /// [`PaneMachine::step`] of [`Input::Signal`] for a borrowed signal (the world's
    /// `apply_signal`, the hot path: no copy of the signal).
    pub fn step_signal(&mut self, signal: &Signal, next_decision: &mut u64) -> Stepped {
        let mut out = Stepped::default();
        self.signal(signal, next_decision, &mut out);
        self.follow(signal.at, next_decision, &mut out);
        out
    }

    /// Applies `signal`, then its hook evidence; resets the evidence on a handover or an
    /// exit.
    fn signal(&mut self, signal: &Signal, next_decision: &mut u64, out: &mut Stepped) {
        let agent_before = self.pane.agent;
        let emitted = apply_signal(&mut self.pane, signal, next_decision);
        self.note_closes(&emitted, signal.at);
        // The end of a turn or a session is the end of every dialog drawn before it.
        let ends = matches!(
            signal.kind,
            SignalKind::TurnStopped { .. }
                | SignalKind::TurnFailed { .. }
                | SignalKind::SessionEnded { .. }
                | SignalKind::SessionStarted { .. }
        );
        if ends && signal.source.rung == Rung::LifecycleHooks {
            self.closed_at = self.closed_at.max(Some(signal.at));
        }
        out.events.extend(emitted);
        let handover = out
            .events
            .iter()
            .any(|(k, _)| matches!(k, EventKind::PaneHandover { .. }));
        if handover || self.pane.agent != agent_before || self.ladder.agent != self.pane.agent {
            self.reset();
            out.reset = true;
        }
        match &signal.kind {
            SignalKind::TurnStarted => self.ladder.note_turn(),
            SignalKind::ProcessExited { .. } => {
                self.reset();
                self.dialog_seen_at = None;
                out.reset = true;
                return;
            }
            _ => {}
        }
        if signal.source.rung != Rung::LifecycleHooks {
            return;
        }
        // A model request sent again with nothing between: a retry no screen shows
        // (`docs/lifecycle-attention.md#api-failures-and-policy-denials`).
        if let Some(text) = self.retries.observe(&signal.kind) {
            let warning = Signal::new(
                SignalKind::Warning { text },
                signal.source.clone(),
                signal.at,
            );
            out.events
                .extend(apply_signal(&mut self.pane, &warning, next_decision));
        }
        if let Some((claim, what)) = claim_of(&signal.kind) {
            self.seq += 1;
            let ev = Evidence {
                rung: Rung::LifecycleHooks,
                source_id: format!("{}.hooks", self.pane.agent),
                seq: self.seq,
                observed_at: signal.at,
                claim,
                note: format!("{what} ({})", signal.source.origin),
            };
            out.health.extend(self.ladder.observe(ev, signal.at).health);
        }
    }

    /// After any input: the signals the verdict and the corrections ask for, applied in
    /// the same step.
    fn follow(&mut self, now: Timestamp, next_decision: &mut u64, out: &mut Stepped) {
        if self.shown.is_some() {
            self.dialog_seen_at = Some(now);
        }
        for _ in 0..FOLLOW_UPS {
            let Some(signal) = self.due_signal(now) else {
                break;
            };
            let emitted = apply_signal(&mut self.pane, &signal, next_decision);
            self.note_closes(&emitted, now);
            out.events.extend(emitted);
        }
        if self.pane.lifecycle != Lifecycle::Blocked {
            self.answered_blocked_at = None;
        }
    }

    /// True when the open decision was opened by the chrome and the chrome has not read
    /// the screen since this machine was built.
    fn unheard_chrome_decision(&self) -> bool {
        self.pane
            .pending_decision
            .as_ref()
            .is_some_and(|d| d.source.rung == Rung::NeedsInputChrome)
            && self
                .ladder
                .rungs
                .get(&Rung::NeedsInputChrome)
                .is_some_and(|st| st.last.is_none())
    }

    /// When the pane an answer left `blocked` may leave it ([`answered_leave_due`]).
    fn answered_leave(&self) -> Option<Timestamp> {
        answered_leave_due(
            &self.pane,
            self.answered_blocked_at,
            self.shown.is_some(),
            self.dialog_seen_at,
        )
    }

    /// Whether [`verdict_step`] could do anything: a rung that opens decisions (the
    /// chrome, the self-report) claims a needs-input, or the open decision is one of
    /// theirs. A pane known only through hooks skips the verdict (the engine's hot path).
    fn verdict_matters(&self) -> bool {
        let opened_by_them = self
            .pane
            .pending_decision
            .as_ref()
            .is_some_and(|d| opens_decisions(d.source.rung));
        opened_by_them
            || self.shown.is_some()
            || [Rung::NeedsInputChrome, Rung::SelfReport].iter().any(|r| {
                self.ladder
                    .rungs
                    .get(r)
                    .and_then(|st| st.last.as_ref())
                    .and_then(|e| e.claim.needs_input.as_ref())
                    .is_some_and(|n| n.count > 0)
            })
    }

    /// Remembers when a signal resolved the pane's decision: evidence observed before it
    /// opens nothing again (one dialog, one decision).
    fn note_closes(&mut self, emitted: &Emitted, at: Timestamp) {
        // A newer gate superseding an older one leaves a decision open: no close.
        let closed = emitted
            .iter()
            .any(|(k, _)| matches!(k, EventKind::DecisionResolved { .. }));
        if closed && self.pane.pending_decision.is_none() {
            self.closed_at = Some(at);
            let by_hook = emitted.iter().any(|(k, src)| {
                matches!(k, EventKind::DecisionResolved { .. }) && src.rung == Rung::LifecycleHooks
            });
            if by_hook && self.shown.is_none() {
                self.hook_closed_unread_at = Some(at);
            }
        }
    }

    /// The signal the pane's evidence asks for now, if any: the verdict's
    /// ([`verdict_step`]), a gate the agent closed on screen ([`closed_gate_step`]),
    /// or the self-report's correction (`Ladder::correction`) once it is due.
    fn due_signal(&mut self, now: Timestamp) -> Option<Signal> {
        if self.answered_leave().is_some_and(|due| due <= now) {
            let verdict = self.verdict(now);
            if verdict.needs_input.count == 0 {
                self.answered_blocked_at = None;
                // Working on the self-report's word (the agent took the answer and goes
                // on), else idle, as for a dialog answered in the pane.
                let working = verdict.activity == super::ladder::Activity::Working
                    && verdict
                        .activity_by
                        .as_ref()
                        .is_some_and(|e| e.rung == Rung::SelfReport);
                let kind = if working {
                    SignalKind::GateDenied
                } else {
                    SignalKind::GateDismissed
                };
                return Some(Signal::new(
                    kind,
                    Source::new(Rung::NeedsInputChrome, CHROME_ORIGIN),
                    now,
                ));
            }
        }
        if !self.verdict_matters() {
            // Nothing the verdict could open, enrich or close: only a closed screen or
            // the self-report's correction may be due.
            let closed = self
                .shown
                .is_none()
                .then(|| closed_gate_step(&self.pane, self.closed, self.dialog_seen_at))
                .flatten();
            if let Some(kind) = closed {
                return Some(Signal::new(
                    kind,
                    Source::new(Rung::NeedsInputChrome, CHROME_ORIGIN),
                    now,
                ));
            }
            return self.correction(now);
        }
        let verdict = self.verdict(now);
        let seen = Seen {
            shown: self.shown.as_ref(),
            answered_at: self.answered_at,
        };
        let step = verdict_step(&self.pane, &verdict, seen, now)
            .map(|kind| (step_rung(&verdict, seen, &kind), kind))
            .or_else(|| {
                self.shown
                    .is_none()
                    .then(|| closed_gate_step(&self.pane, self.closed, self.dialog_seen_at))
                    .flatten()
                    .map(|kind| (Rung::NeedsInputChrome, kind))
            });
        if let Some((rung, kind)) = step {
            let closes = matches!(kind, SignalKind::GateDismissed | SignalKind::GateDenied);
            let by_chrome = self
                .pane
                .pending_decision
                .as_ref()
                .map_or(true, |d| d.source.rung == Rung::NeedsInputChrome);
            // A frame without the dialog is not its end yet ([`PaneMachine::wake`]); and
            // a decision whose rung has not reported since this machine was built (a
            // daemon restart restores the decision, not the evidence) stays until that
            // rung reads the pane again.
            let unheard = self.pane.pending_decision.as_ref().is_some_and(|d| {
                opens_decisions(d.source.rung)
                    && self
                        .ladder
                        .rungs
                        .get(&d.source.rung)
                        .map_or(true, |st| st.last.is_none())
            });
            let waiting = closes
                && (unheard || (by_chrome && dismissal_due(self.dialog_seen_at, now).is_some()));
            if !waiting {
                let origin = match rung {
                    Rung::NeedsInputChrome => CHROME_ORIGIN.to_string(),
                    _ => verdict
                        .needs_input_by
                        .as_ref()
                        .map_or_else(|| "self-report".to_string(), |e| e.source_id.clone()),
                };
                return Some(Signal::new(kind, Source::new(rung, &origin), now));
            }
        }
        self.correction(now)
    }

    /// The self-report's correction of the lifecycle, once per piece of evidence, when due.
    fn correction(&mut self, now: Timestamp) -> Option<Signal> {
        if !self.pane.live.is_running() {
            return None;
        }
        let (kind, due) = self.correction_due(now)?;
        let by = self.self_report_evidence()?;
        if Some(&by) == self.corrected.as_ref() || due > now {
            return None;
        }
        let source = Source::new(Rung::SelfReport, &by.0);
        self.corrected = Some(by);
        Some(Signal::new(kind, source, now))
    }

    /// The ladder's correction, unless it would dismiss an open decision without word
    /// on it: a self-report observed before the decision opened says nothing of its
    /// dialog, and while a deciding rung reports needs-input the dialog is not gone
    /// (`docs/lifecycle-attention.md#one-verdict`, "Dismissed only on newer word").
    fn correction_due(&self, now: Timestamp) -> Option<(SignalKind, Timestamp)> {
        let (kind, due) = self.ladder.correction(&self.pane, now)?;
        if let Some(d) = &self.pane.pending_decision {
            let observed = self
                .ladder
                .rungs
                .get(&Rung::SelfReport)
                .and_then(|r| r.last.as_ref())
                .map(|e| e.observed_at)?;
            if observed < d.opened_at || self.verdict(now).needs_input.count > 0 {
                return None;
            }
        }
        Some((kind, due))
    }

    fn self_report_evidence(&self) -> Option<(String, u64)> {
        self.ladder
            .rungs
            .get(&Rung::SelfReport)
            .and_then(|r| r.last.as_ref())
            .map(|e| (e.source_id.clone(), e.seq))
    }

    /// When the machine wants a [`Input::Due`]: the earliest of a pending correction and
    /// a dialog dismissal that waits for the dialog to be gone long enough; `None` when
    /// nothing is pending (a quiet pane has no timer).
    pub fn wake(&self, now: Timestamp) -> Option<Timestamp> {
        let correction = self
            .pane
            .live
            .is_running()
            .then(|| self.correction_due(now))
            .flatten()
            .filter(|_| self.self_report_evidence() != self.corrected)
            .map(|(_, due)| due);
        let by_chrome = self
            .pane
            .pending_decision
            .as_ref()
            .is_some_and(|d| d.source.rung == Rung::NeedsInputChrome);
        let dismissal = if self.shown.is_none()
            && (by_chrome
                || closed_gate_step(&self.pane, self.closed, self.dialog_seen_at).is_some())
        {
            dismissal_due(self.dialog_seen_at, now)
        } else {
            None
        };
        let answered = self.answered_leave().filter(|due| *due > now);
        [correction, dismissal, answered]
            .into_iter()
            .flatten()
            .min()
    }

    /// The taxonomy projection and diagnoses of the pane now
    /// (`docs/taxonomy.md#axes`, `docs/taxonomy.md#diagnoses`), from the same verdict
    /// that decides its lifecycle, attention and decision: they cannot disagree.
    /// `process_known`: for a pane Attend does not own, whether its agent's process is
    /// watched (a self-report bound, a hook's process alive). Read time, never stored.
    pub fn taxonomy(&self, process_known: bool, now: Timestamp) -> (Taxonomy, Diagnoses) {
        let verdict = self.verdict(now);
        // Hooks' gates are the pane's decisions already; the chrome and the self-report
        // may see a dialog no decision stands for (yet).
        let seen = verdict
            .needs_input_by
            .as_ref()
            .filter(|e| e.rung != Rung::LifecycleHooks)
            .map_or(0, |_| verdict.needs_input.count);
        let facts = RuntimeFacts {
            attached: false,
            process_known: self.pane.owned || process_known,
            chrome_gates: if self.pane.pending_decision.is_none() {
                seen
            } else {
                0
            },
        };
        let reason = (verdict.needs_input.count > 0)
            .then(|| verdict.needs_input.reason.clone())
            .flatten();
        let t = project(&self.pane, facts, reason.as_deref());
        let d = diagnose(&self.pane, &t, now);
        (t, d)
    }

    /// The agent this pane's ladder is declared for.
    pub fn agent(&self) -> AgentKind {
        self.pane.agent
    }
}

/// The chrome evidence of a change of the matched rule: a dialog in view claims one
/// needs-input of its rule's reason; none says nothing (another rung may know of a dialog
/// no rule describes).
fn chrome_evidence(shown: Option<&ShownDialog>, seq: &mut u64, now: Timestamp) -> Evidence {
    use super::ladder::{Claim, NeedsInput};
    *seq += 1;
    let (claim, note) = match shown {
        Some(d) => (
            Claim {
                activity: None,
                needs_input: Some(NeedsInput {
                    count: 1,
                    reason: Some(d.reason.clone()),
                }),
            },
            format!("rule {:?} matched", d.rule),
        ),
        None => (Claim::default(), "no rule matched".to_string()),
    };
    Evidence {
        rung: Rung::NeedsInputChrome,
        source_id: CHROME_ORIGIN.into(),
        seq: *seq,
        observed_at: now,
        claim,
        note,
    }
}

#[cfg(test)]
#[path = "machine_tests.rs"]
mod tests;
