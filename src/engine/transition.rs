//! Per-pane transitions: one function for signals, one for user actions.
//!
//! The rules are stated in `docs/lifecycle-attention.md` (values, signals, clearing rules,
//! session end and exit) and spec 024 (reviewed terminal attention stays reviewed). Each
//! rule has a test named after it in `tests/integration/engine_rules.rs`.

use crate::model::{
    Action, Attention, AttentionItem, Decision, DecisionKind, EventKind, GateRef, Lifecycle, Live,
    Pane, PromptMark, Resolution, Signal, SignalKind, Source, TaskState, Timestamp,
};

/// Message recorded by a first completion at session end (spec 024 US3.1).
pub const SESSION_ENDED_MESSAGE: &str = "session ended";

/// Session-end reasons that hand the pane over to a new session instead of ending it
/// (`docs/lifecycle-attention.md#session-ended`).
const HANDOVER_REASONS: [&str; 3] = ["clear", "resume", "compact"];

/// Session-start sources that begin a fresh conversation at the prompt: the pane is
/// `idle` unless a gate is open. A `compact` start is the same conversation continuing
/// (manual `/compact` at the prompt, or an automatic compaction in the middle of a turn):
/// it keeps the lifecycle (`docs/lifecycle-attention.md#compaction`).
const FRESH_START_SOURCES: [&str; 2] = ["clear", "resume"];

/// Terminal notifications (OSC 9/99/777) re-raise attention at most once per this many
/// milliseconds on a pane; a flood inside the interval only updates the message.
pub const TERMINAL_NOTIFICATION_INTERVAL_MS: i64 = 1_000;

/// The needs-input reason left by a usage or rate limit failure
/// (`docs/taxonomy.md#needs-input-is-a-count-and-a-reason`).
pub const USAGE_LIMIT_REASON: &str = "usage limit";

/// The message of a pane whose program the user killed through Attend
/// (`docs/lifecycle-attention.md#process-exited`).
pub const KILLED_BY_YOU: &str = "killed by you";

/// How long (milliseconds) after the user's `attend kill` (or the panel's Kill) an exit
/// still counts as that kill's outcome (`docs/lifecycle-attention.md#process-exited`); a
/// later exit is an ordinary one.
pub const KILL_INTENT_MS: i64 = 10_000;

/// Events emitted by one transition, each with its source, before the store gives them a
/// sequence number.
pub type Emitted = Vec<(EventKind, Source)>;

struct Ctx<'a> {
    pane: &'a mut Pane,
    next_decision: &'a mut u64,
    source: Source,
    at: Timestamp,
    out: Emitted,
}

impl Ctx<'_> {
    fn emit(&mut self, kind: EventKind) {
        self.out.push((kind, self.source.clone()));
    }

    fn set_lifecycle(&mut self, value: Lifecycle) {
        let previous = self.pane.lifecycle;
        if previous != value {
            self.pane.lifecycle = value;
            if value == Lifecycle::Done {
                self.pane.done_at = Some(self.at);
            }
            self.emit(EventKind::Agent { previous, value });
        }
    }

    fn set_message(&mut self, text: &str) {
        self.pane.last_message = Some(text.to_string());
        self.pane.last_message_at = Some(self.at);
    }

    /// Raises an ordinary item (unread, warning, error). On a focused pane it counts as
    /// seen at once: no item, no event (`docs/lifecycle-attention.md#focus`). One item per
    /// level: a repeat refreshes it and still re-raises (`attention.created`).
    fn add_ordinary(&mut self, level: Attention) {
        debug_assert!(!level.is_required() && level != Attention::None);
        if self.pane.focused {
            self.pane.last_seen_at = Some(self.at);
            return;
        }
        let item = AttentionItem {
            level,
            source: self.source.clone(),
            at: self.at,
            decision: None,
        };
        match self
            .pane
            .items
            .iter_mut()
            .find(|i| i.level == level && i.decision.is_none())
        {
            Some(existing) => *existing = item,
            None => self.pane.items.push(item),
        }
        self.pane.attention_changed_at = Some(self.at);
        let shown = self.pane.attention();
        self.emit(EventKind::AttentionCreated { level, shown });
    }

    /// Adds unread unless one is already outstanding (BEL, plain output: at most one per
    /// unseen period).
    fn add_unread_once(&mut self) {
        if self.pane.focused {
            self.pane.last_seen_at = Some(self.at);
            return;
        }
        if !self.pane.items.iter().any(|i| i.level == Attention::Unread) {
            self.add_ordinary(Attention::Unread);
        }
    }

    fn open_decision(
        &mut self,
        kind: DecisionKind,
        prompt: &str,
        options: &[String],
        answer_keys: &[crate::model::AnswerKey],
        tool_use_id: Option<&str>,
    ) {
        if let Some(open) = &self.pane.pending_decision {
            // One dialog seen by several rungs is one decision: a rung other than the
            // one that opened it enriches it; the same rung again is a newer gate
            // (`docs/lifecycle-attention.md#one-verdict`).
            if open.source.rung != self.source.rung {
                self.enrich_decision(kind, prompt, options, answer_keys, tool_use_id);
                return;
            }
            self.resolve_decision(Resolution::Superseded);
        }
        *self.next_decision += 1;
        let decision = Decision {
            id: *self.next_decision,
            kind,
            prompt: prompt.to_string(),
            options: options.to_vec(),
            answer_keys: answer_keys.to_vec(),
            tool_use_id: tool_use_id.map(str::to_string),
            source: self.source.clone(),
            opened_at: self.at,
        };
        let level = kind.attention();
        self.pane.items.push(AttentionItem {
            level,
            source: self.source.clone(),
            at: self.at,
            decision: Some(decision.id),
        });
        self.pane.pending_decision = Some(decision.clone());
        self.pane.attention_changed_at = Some(self.at);
        self.set_lifecycle(Lifecycle::Blocked);
        self.set_message(prompt);
        self.emit(EventKind::DecisionOpened { decision });
        let shown = self.pane.attention();
        self.emit(EventKind::AttentionCreated { level, shown });
    }

    /// Another rung reports the open decision's dialog
    /// (`docs/lifecycle-attention.md#one-verdict`): a hook, or the chrome on a decision
    /// the self-report opened, names its kind and prompt; what it reads of the options
    /// and a tool id replace what was known. The chrome sets only the options of a hook's
    /// decision (the options it draws are the ones answered by number), except to a
    /// hook's permission gate without options when it reads a question: then it names it. The decision keeps its id (no `decision.opened`, no
    /// second notification); its required item follows the kind; `pane.changed` tells
    /// followers.
    fn enrich_decision(
        &mut self,
        kind: DecisionKind,
        prompt: &str,
        options: &[String],
        answer_keys: &[crate::model::AnswerKey],
        tool_use_id: Option<&str>,
    ) {
        use crate::model::Rung;
        let Some(d) = self.pane.pending_decision.as_mut() else {
            return;
        };
        let names_it =
            self.source.rung == Rung::LifecycleHooks || d.source.rung == Rung::SelfReport;
        if !names_it && (options.is_empty() || d.options == options) {
            return;
        }
        // A hook's permission gate that named nothing (Letta's "Approval needed", sent for
        // its question tool too) is the question the chrome reads: the chrome names it.
        let reads_question = !names_it
            && d.options.is_empty()
            && d.kind == DecisionKind::Permission
            && kind == DecisionKind::Question;
        if !answer_keys.is_empty() {
            d.answer_keys = answer_keys.to_vec();
        }
        let id = d.id;
        let before = d.kind;
        if names_it || reads_question {
            d.kind = kind;
            if !prompt.is_empty() {
                d.prompt = prompt.to_string();
            }
            d.source = self.source.clone();
        }
        if !options.is_empty() {
            d.options = options.to_vec();
        }
        if let Some(t) = tool_use_id {
            d.tool_use_id = Some(t.to_string());
        }
        let prompt = d.prompt.clone();
        let after = d.kind;
        if after != before {
            let level = after.attention();
            for item in self
                .pane
                .items
                .iter_mut()
                .filter(|i| i.decision == Some(id))
            {
                item.level = level;
            }
            self.pane.attention_changed_at = Some(self.at);
        }
        self.set_message(&prompt);
        self.set_lifecycle(Lifecycle::Blocked);
        self.emit(EventKind::PaneChanged);
    }

    /// Resolves the open decision (if any) and removes its required item.
    fn resolve_decision(&mut self, resolution: Resolution) -> Option<Decision> {
        let decision = self.pane.pending_decision.take()?;
        let before = self.pane.items.len();
        let mut levels = Vec::new();
        self.pane.items.retain(|i| {
            let bound = i.decision == Some(decision.id);
            if bound {
                levels.push(i.level);
            }
            !bound
        });
        self.emit(EventKind::DecisionResolved {
            id: decision.id,
            resolution,
        });
        if self.pane.items.len() != before {
            self.pane.attention_changed_at = Some(self.at);
            let shown = self.pane.attention();
            self.emit(EventKind::AttentionCleared { levels, shown });
        }
        Some(decision)
    }

    /// mark_seen (`docs/lifecycle-attention.md#clearing-rules`): last_seen_at = now,
    /// ordinary items removed, required items and the decision kept, lifecycle untouched.
    fn mark_seen(&mut self) {
        self.pane.last_seen_at = Some(self.at);
        let mut levels = Vec::new();
        self.pane.items.retain(|i| {
            let ordinary = i.decision.is_none();
            if ordinary {
                levels.push(i.level);
            }
            !ordinary
        });
        if !levels.is_empty() {
            self.pane.attention_changed_at = Some(self.at);
            let shown = self.pane.attention();
            self.emit(EventKind::AttentionCleared { levels, shown });
        }
    }

    fn settle_tasks(&mut self, from: TaskState, to: TaskState) {
        let at = self.at;
        let mut changed = Vec::new();
        for t in self.pane.tasks.iter_mut().filter(|t| t.state == from) {
            t.state = to;
            t.updated_at = at;
            changed.push(t.id);
        }
        for id in changed {
            self.emit(EventKind::Task { id, state: to });
        }
    }

    fn handover(&mut self, new_session: Option<String>) {
        let previous_session = self.pane.session_id.clone();
        if new_session.is_some() {
            self.pane.session_id = new_session.clone();
        }
        self.pane.hooks_seen = false;
        self.pane.limit_reason = None;
        self.emit(EventKind::PaneHandover {
            previous_session,
            session_id: new_session,
        });
        self.set_lifecycle(Lifecycle::Unknown);
    }

    /// Applies identity fields first (spec 024 FR-001). A different session id than the one
    /// on record is a handover (`docs/taxonomy.md#handover`), never an activity transition.
    fn apply_identity(&mut self, signal: &Signal) {
        let id = &signal.identity;
        let mut changed = false;
        if let Some(session) = &id.session_id {
            match &self.pane.session_id {
                Some(old) if old != session => self.handover(Some(session.clone())),
                Some(_) => {}
                None => {
                    self.pane.session_id = Some(session.clone());
                    changed = true;
                }
            }
        }
        if id.resume_argv.is_some() && id.resume_argv != self.pane.resume_argv {
            self.pane.resume_argv = id.resume_argv.clone();
            changed = true;
        }
        if id.cwd.is_some() && id.cwd != self.pane.cwd {
            self.pane.cwd = id.cwd.clone();
            changed = true;
        }
        if id.title.is_some() {
            // Titles change with every spinner frame: state, not an event.
            self.pane.title = id.title.clone();
        }
        if changed {
            self.emit(EventKind::PaneChanged);
        }
    }

    /// A decision open ⇒ the pane is blocked
    /// (`docs/lifecycle-attention.md#an-open-decision-means-blocked`).
    fn keep_gate_invariant(&mut self) {
        if self.pane.pending_decision.is_some() {
            self.set_lifecycle(Lifecycle::Blocked);
        }
    }
}

/// True when printable PTY output is a signal for a pane running `agent` (the `Output`
/// arm of [`apply_signal`]): a shell's output is its activity and ends its quiet start;
/// an agent's output changes nothing there, it is evidence of the sampling rung only
/// (`docs/taxonomy.md#rungs`), so the daemon does not step an agent's machine per chunk.
pub fn output_is_signal(agent: crate::model::AgentKind) -> bool {
    agent == crate::model::AgentKind::Shell
}

/// Applies one signal to `pane`. `next_decision` is the store-wide decision id counter.
/// Returns the emitted events (without seq). Never fails: unknown combinations change
/// nothing.
pub fn apply_signal(pane: &mut Pane, signal: &Signal, next_decision: &mut u64) -> Emitted {
    let mut cx = Ctx {
        pane,
        next_decision,
        source: signal.source.clone(),
        at: signal.at,
        out: Vec::new(),
    };
    cx.apply_identity(signal);
    if signal.source.rung == crate::model::Rung::LifecycleHooks {
        cx.pane.hooks_seen = true;
    }
    let shell = cx.pane.agent == crate::model::AgentKind::Shell;
    match &signal.kind {
        SignalKind::SessionStarted { source } => {
            let fresh = source
                .as_deref()
                .is_some_and(|s| FRESH_START_SOURCES.contains(&s));
            if cx.pane.lifecycle == Lifecycle::Unknown
                || (fresh && cx.pane.pending_decision.is_none())
            {
                cx.set_lifecycle(Lifecycle::Idle);
            }
        }
        SignalKind::TurnStarted => {
            if cx
                .pane
                .pending_decision
                .as_ref()
                .is_some_and(|d| d.kind == DecisionKind::Question)
            {
                cx.resolve_decision(Resolution::AgentTransition);
            }
            cx.pane.limit_reason = None;
            cx.set_lifecycle(Lifecycle::Working);
            cx.settle_tasks(TaskState::Open, TaskState::Working);
        }
        SignalKind::ToolStarted { .. } => cx.set_lifecycle(Lifecycle::Working),
        SignalKind::ToolFinished { tool_use_id, .. } => {
            // A gate without an id is the main agent's: any tool of the main agent
            // approves it, a subagent's does not
            // (`docs/lifecycle-attention.md#subagent-gates`).
            let matches = cx.pane.pending_decision.as_ref().is_some_and(|d| {
                d.kind == DecisionKind::Permission
                    && match (&d.tool_use_id, tool_use_id) {
                        (None, Some(b)) => !crate::model::is_subagent_scope(b),
                        (None, None) => true,
                        (Some(a), Some(b)) => a == b,
                        (Some(_), None) => false,
                    }
            });
            if matches {
                cx.resolve_decision(Resolution::Approved);
            }
            cx.set_lifecycle(Lifecycle::Working);
        }
        SignalKind::ToolError { error } => {
            cx.set_lifecycle(Lifecycle::Working);
            cx.set_message(error);
            cx.add_ordinary(Attention::Warning);
        }
        // A problem the agent works around: attention only, never a lifecycle change (its
        // evidence may be a screen line, which never decides the lifecycle).
        SignalKind::Warning { text } => {
            cx.set_message(text);
            cx.add_ordinary(Attention::Warning);
        }
        SignalKind::PermissionRequested {
            prompt,
            options,
            answer_keys,
            tool_use_id,
        } => cx.open_decision(
            DecisionKind::Permission,
            prompt,
            options,
            answer_keys,
            tool_use_id.as_deref(),
        ),
        SignalKind::QuestionAsked {
            prompt,
            options,
            answer_keys,
        } => cx.open_decision(DecisionKind::Question, prompt, options, answer_keys, None),
        SignalKind::AgentNotification { text, gate } => match gate {
            GateRef::Names(_) if cx.pane.pending_decision.is_some() => {
                // It only restates the open gate: adds nothing.
            }
            GateRef::Names(kind) => cx.open_decision(*kind, text, &[], &[], None),
            GateRef::None
                if cx
                    .pane
                    .pending_decision
                    .as_ref()
                    .is_some_and(|d| d.source.rung == crate::model::Rung::NeedsInputChrome) =>
            {
                // A dialog no hook names is on screen and already asks for the user
                // (`docs/lifecycle-attention.md#dialogs-no-hook-names`): a notification of a
                // kind Attend does not know adds no unread beside it.
            }
            GateRef::None => {
                cx.set_message(text);
                cx.add_ordinary(Attention::Unread);
            }
        },
        SignalKind::TerminalNotification { text } => {
            // A flood (a program printing notifications in a loop) is one attention per
            // TERMINAL_NOTIFICATION_INTERVAL_MS: inside it only the message follows.
            let recent = cx.pane.items.iter().any(|i| {
                i.level == Attention::Unread
                    && i.source.rung == crate::model::Rung::Terminal
                    && cx.at.millis_since(i.at) < TERMINAL_NOTIFICATION_INTERVAL_MS
            });
            if recent {
                cx.set_message(text);
                cx.keep_gate_invariant();
                return cx.out;
            }
            cx.set_message(text);
            if !shell && !cx.pane.hooks_seen && cx.pane.lifecycle == Lifecycle::Working {
                cx.set_lifecycle(Lifecycle::Blocked);
            }
            cx.add_ordinary(Attention::Unread);
        }
        SignalKind::Bell => cx.add_unread_once(),
        SignalKind::Output => {
            if shell {
                if cx.pane.lifecycle == Lifecycle::Unknown {
                    cx.set_lifecycle(Lifecycle::Idle);
                }
                // A fresh interactive shell's own start is not news
                // (`docs/lifecycle-attention.md#quiet-shell-start`).
                if super::quiet::is_quiet(cx.pane.start_quiet, cx.at) {
                    return cx.out;
                }
                cx.pane.start_quiet = None;
                cx.add_unread_once();
            }
        }
        SignalKind::Prompt(mark) => {
            if shell {
                // Where the shell sends prompt marks, they end the quiet start: at its
                // first command (`docs/lifecycle-attention.md#quiet-shell-start`).
                if cx.pane.start_quiet.is_some() {
                    cx.pane.start_quiet = (*mark != PromptMark::CommandExecuted)
                        .then_some(crate::model::StartQuiet::FirstCommand);
                }
                match mark {
                    PromptMark::CommandExecuted => cx.set_lifecycle(Lifecycle::Working),
                    PromptMark::PromptStart => cx.set_lifecycle(Lifecycle::Idle),
                    PromptMark::CommandFinished { code } => {
                        cx.set_lifecycle(Lifecycle::Idle);
                        if code.is_some_and(|c| c != 0) {
                            cx.add_ordinary(Attention::Unread);
                        }
                    }
                    PromptMark::CommandStart => {}
                }
            }
        }
        SignalKind::TurnStopped { summary } => {
            // The same completion reported twice (Codex sends both its Stop hook and its
            // `notify`): the second report is not a new signal.
            let duplicate = cx.pane.lifecycle == Lifecycle::Done
                && cx.pane.pending_decision.is_none()
                && (summary.is_none() || summary.as_deref() == cx.pane.last_message.as_deref());
            // A turn ends once: a stop that says nothing on a pane whose turn failed
            // (Gemini fires `AfterAgent` with no response after the API error it drew,
            // which failed the turn) is that turn's end, not a completion
            // (`docs/lifecycle-attention.md#signals`, "turn stopped").
            let failed_turns_end = cx.pane.lifecycle == Lifecycle::Failed && summary.is_none();
            if duplicate || failed_turns_end {
                cx.keep_gate_invariant();
                return cx.out;
            }
            // A subagent's gate outlives the main agent's turn: the subagent still waits
            // on the human (`docs/lifecycle-attention.md#subagent-gates`).
            let subagents_gate = cx.pane.pending_decision.as_ref().is_some_and(|d| {
                d.tool_use_id
                    .as_deref()
                    .is_some_and(crate::model::is_subagent_scope)
            });
            if subagents_gate {
                if let Some(s) = summary {
                    cx.set_message(s);
                }
                cx.add_ordinary(Attention::Unread);
                cx.keep_gate_invariant();
                return cx.out;
            }
            cx.resolve_decision(Resolution::AgentTransition);
            cx.set_lifecycle(Lifecycle::Done);
            if let Some(s) = summary {
                cx.set_message(s);
            }
            cx.add_ordinary(Attention::Unread);
        }
        SignalKind::TurnFailed { error, usage_limit } => {
            cx.resolve_decision(Resolution::AgentTransition);
            cx.set_lifecycle(Lifecycle::Failed);
            cx.set_message(error);
            if *usage_limit {
                cx.pane.limit_reason = Some(USAGE_LIMIT_REASON.to_string());
            }
            cx.add_ordinary(Attention::Error);
        }
        SignalKind::GateDismissed => {
            cx.resolve_decision(Resolution::Dismissed);
            if matches!(cx.pane.lifecycle, Lifecycle::Blocked | Lifecycle::Working) {
                cx.set_lifecycle(Lifecycle::Idle);
            }
        }
        SignalKind::GateDenied => {
            cx.resolve_decision(Resolution::Dismissed);
            if cx.pane.lifecycle == Lifecycle::Blocked {
                cx.set_lifecycle(Lifecycle::Working);
            }
        }
        SignalKind::SessionEnded { reason } => session_ended(&mut cx, reason.as_deref()),
        SignalKind::ProcessExited { code, signal } => process_exited(&mut cx, *code, *signal),
        SignalKind::Handover => {
            let new = signal.identity.session_id.clone();
            // apply_identity already handed over when the id changed.
            if !cx
                .out
                .iter()
                .any(|(k, _)| matches!(k, EventKind::PaneHandover { .. }))
            {
                cx.handover(new);
            }
        }
        SignalKind::IdentityOnly | SignalKind::ModelRequest { .. } => {}
    }
    cx.keep_gate_invariant();
    cx.out
}

/// Session ended (`docs/lifecycle-attention.md#session-ended`; spec 024 FR-001, FR-003,
/// FR-005, US2, US3).
fn session_ended(cx: &mut Ctx<'_>, reason: Option<&str>) {
    if reason.is_some_and(|r| HANDOVER_REASONS.contains(&r)) {
        // A handover, not an end: the new session id (when it arrives) hands over.
        return;
    }
    // FR-005: an unreported working task settles as input_required.
    cx.settle_tasks(TaskState::Working, TaskState::InputRequired);
    if cx.pane.lifecycle.is_terminal() {
        // Reviewed terminal (FR-001) or not yet reviewed (US2): outcome never rewritten.
        return;
    }
    if cx.pane.pending_decision.is_some() {
        // Gates keep their behaviour at session end (US3.4).
        return;
    }
    // First completion (US3.1, US3.2).
    cx.set_lifecycle(Lifecycle::Done);
    cx.set_message(SESSION_ENDED_MESSAGE);
    cx.add_ordinary(Attention::Unread);
}

/// Process exited (`docs/lifecycle-attention.md#process-exited`; spec 024 FR-002).
fn process_exited(cx: &mut Ctx<'_>, code: Option<i32>, signal: Option<i32>) {
    let reviewed = cx.pane.is_reviewed_terminal();
    // The user's own kill: asked for through Attend shortly before this exit.
    let killed_by_user = cx
        .pane
        .kill_requested_at
        .take()
        .is_some_and(|k| (0..=KILL_INTENT_MS).contains(&cx.at.millis_since(k)));
    cx.pane.start_quiet = None;
    cx.pane.last_lifecycle = Some(cx.pane.lifecycle);
    cx.pane.live = Live::Exited { code, signal };
    cx.pane.exited_at = Some(cx.at);
    cx.emit(EventKind::PaneExited { code, signal });
    cx.settle_tasks(TaskState::Working, TaskState::Failed);
    if killed_by_user && !reviewed && !cx.pane.lifecycle.is_terminal() {
        // The user's act: failed "killed by you", the decision dropped, nothing raised.
        // Killing is explicit interaction, so earlier ordinary attention is seen too.
        cx.resolve_decision(Resolution::Abandoned);
        cx.set_lifecycle(Lifecycle::Failed);
        cx.set_message(KILLED_BY_YOU);
        cx.mark_seen();
        cx.pane.focused = false;
        return;
    }
    let had_decision = cx.resolve_decision(Resolution::Abandoned).is_some();
    if had_decision {
        // The required item is demoted to unread.
        cx.add_ordinary(Attention::Unread);
    }
    if reviewed {
        return; // FR-002: no attention raised.
    }
    let failure = signal.is_some() || code.is_some_and(|c| c != 0);
    match cx.pane.lifecycle {
        Lifecycle::Working | Lifecycle::Blocked | Lifecycle::Idle | Lifecycle::Unknown => {
            if failure {
                cx.set_lifecycle(Lifecycle::Failed);
                cx.add_ordinary(Attention::Error);
            } else if cx.pane.oneshot {
                cx.set_lifecycle(Lifecycle::Done);
                cx.add_ordinary(Attention::Unread);
            } else if cx.pane.lifecycle == Lifecycle::Blocked {
                // Blocked means waiting on the human, and nothing waits once the process
                // is gone (its gate answered, or dropped above): the exit ends its session,
                // as a session end would have (`docs/lifecycle-attention.md#process-exited`).
                cx.set_lifecycle(Lifecycle::Done);
                cx.set_message(SESSION_ENDED_MESSAGE);
                if !had_decision {
                    cx.add_ordinary(Attention::Unread);
                }
            } else if !had_decision {
                cx.add_ordinary(Attention::Unread);
            }
        }
        Lifecycle::Done | Lifecycle::Failed => {
            if !had_decision {
                cx.add_ordinary(Attention::Unread);
            }
        }
    }
    cx.pane.focused = false;
}

/// Errors of [`apply_action`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionError {
    /// `answer` on a pane with no open decision.
    NoDecision,
}

/// Applies a user action at `now` (`docs/lifecycle-attention.md#clearing-rules`). On
/// `Answer` the resolved decision is returned so the caller can type its answer keys.
pub fn apply_action(
    pane: &mut Pane,
    action: &Action,
    now: Timestamp,
) -> Result<(Emitted, Option<Decision>), ActionError> {
    let mut unused = 0;
    let mut cx = Ctx {
        pane,
        next_decision: &mut unused,
        source: Source::user(),
        at: now,
        out: Vec::new(),
    };
    let mut answered = None;
    match action {
        Action::MarkSeen | Action::NotificationClicked => cx.mark_seen(),
        Action::Focus | Action::Attach => {
            cx.mark_seen();
            cx.pane.focused = true;
        }
        Action::Unfocus | Action::Detach => cx.pane.focused = false,
        Action::Kill => cx.pane.kill_requested_at = Some(now),
        Action::Answer { choice } => {
            if cx.pane.pending_decision.is_none() {
                return Err(ActionError::NoDecision);
            }
            answered = cx.resolve_decision(Resolution::Answered {
                choice: choice.clone(),
            });
            // Replying is explicit interaction: it clears ordinary attention too.
            cx.mark_seen();
        }
    }
    Ok((cx.out, answered))
}
