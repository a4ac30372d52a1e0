use super::decision::{AnswerKey, DecisionKind};
use super::pane::Identity;
use super::source::Source;
use super::time::Timestamp;
use serde::{Deserialize, Serialize};

/// Which gate an agent notification names, when it does
/// (`docs/lifecycle-attention.md#signals`, "agent notification": unchanged, or blocked if
/// it names a gate/question).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateRef {
    /// A plain notification: raises unread.
    None,
    /// It names a gate of this kind (e.g. Claude `permission_prompt`,
    /// `elicitation_dialog`): restates the open gate, or opens one when none is open.
    Names(DecisionKind),
}

/// OSC 133 prompt marks (shell integration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mark", rename_all = "snake_case")]
pub enum PromptMark {
    /// A: prompt start.
    PromptStart,
    /// B: command input start.
    CommandStart,
    /// C: command running.
    CommandExecuted,
    /// D: command finished, with its exit code when given.
    CommandFinished { code: Option<i32> },
}

/// A normalised, agent-independent signal (`docs/lifecycle-attention.md#signals`). Adapters
/// map hooks and terminal bytes onto these.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SignalKind {
    /// A session started before any prompt; `source` as the agent gives it
    /// (startup, resume, clear, compact). `compact` (the same session after a compaction)
    /// keeps the lifecycle.
    SessionStarted { source: Option<String> },
    /// The user submitted a prompt.
    TurnStarted,
    /// A tool call is starting.
    ToolStarted {
        tool: String,
        tool_use_id: Option<String>,
    },
    /// A tool call finished successfully.
    ToolFinished {
        tool: Option<String>,
        tool_use_id: Option<String>,
    },
    /// A tool failed and the agent goes on (warning).
    ToolError { error: String },
    /// A non-fatal problem the agent reports or shows while it goes on — an API error it
    /// retries (its screen's retry line), a tool call its permission rules denied, a
    /// subagent's or the compaction's failed model request: + warning with `text` as the
    /// message; the lifecycle is left as it is (`docs/lifecycle-attention.md#signals`,
    /// "warning").
    Warning { text: String },
    /// An approval gate opened.
    PermissionRequested {
        prompt: String,
        options: Vec<String>,
        answer_keys: Vec<AnswerKey>,
        tool_use_id: Option<String>,
    },
    /// The agent asked the human a question.
    QuestionAsked {
        prompt: String,
        options: Vec<String>,
        answer_keys: Vec<AnswerKey>,
    },
    /// A notification from the agent's hooks.
    AgentNotification { text: String, gate: GateRef },
    /// OSC 9 / 99 / 777 notification from the terminal stream.
    TerminalNotification { text: String },
    /// BEL outside an OSC sequence.
    Bell,
    /// Plain output on a shell pane.
    Output,
    /// OSC 133 prompt mark.
    Prompt(PromptMark),
    /// The turn ended; `summary` is the agent's last message.
    TurnStopped { summary: Option<String> },
    /// The turn failed; `usage_limit` for rate/usage limits (needs-input "usage limit").
    TurnFailed { error: String, usage_limit: bool },
    /// The user dismissed the gate (or interrupted) at the terminal, seen only through
    /// self-report or chrome.
    GateDismissed,
    /// The open gate closed without Attend and the agent goes on: the agent's own reviewer
    /// denied its call (Codex's auto-review: no hook says so, seen only through chrome),
    /// or an agent's question tool ended (Kimi Code, oh-my-pi: a hook that may come after
    /// the turn's end). An open decision resolves `dismissed`; a `blocked` pane is back to
    /// `working`, any other keeps its lifecycle
    /// (`docs/lifecycle-attention.md#gates-the-screen-closes`).
    GateDenied,
    /// The agent session ended; reasons clear/resume/compact are handovers.
    SessionEnded { reason: Option<String> },
    /// The pane's process exited.
    ProcessExited {
        code: Option<i32>,
        signal: Option<i32>,
    },
    /// A new session occupies the pane (new session id, /clear, resume, compact).
    Handover,
    /// The agent sends a request to its model (Gemini's `BeforeModel`): the `model` and
    /// how many `messages` it carries. The same request again with no other hook between
    /// is a retry of a failed one (`docs/lifecycle-attention.md#api-failures-and-policy-denials`);
    /// the lifecycle is not changed.
    ModelRequest {
        model: Option<String>,
        messages: Option<u64>,
    },
    /// Identity only (unknown events, compaction, titles, cwd changes).
    IdentityOnly,
}

impl SignalKind {
    /// Short name for logs and `explain` (`"turn_stopped"`).
    pub fn name(&self) -> &'static str {
        match self {
            SignalKind::SessionStarted { .. } => "session_started",
            SignalKind::TurnStarted => "turn_started",
            SignalKind::ToolStarted { .. } => "tool_started",
            SignalKind::ToolFinished { .. } => "tool_finished",
            SignalKind::ToolError { .. } => "tool_error",
            SignalKind::Warning { .. } => "warning",
            SignalKind::PermissionRequested { .. } => "permission_requested",
            SignalKind::QuestionAsked { .. } => "question_asked",
            SignalKind::AgentNotification { .. } => "agent_notification",
            SignalKind::TerminalNotification { .. } => "terminal_notification",
            SignalKind::Bell => "bell",
            SignalKind::Output => "output",
            SignalKind::Prompt(_) => "prompt",
            SignalKind::TurnStopped { .. } => "turn_stopped",
            SignalKind::TurnFailed { .. } => "turn_failed",
            SignalKind::GateDismissed => "gate_dismissed",
            SignalKind::GateDenied => "gate_denied",
            SignalKind::SessionEnded { .. } => "session_ended",
            SignalKind::ProcessExited { .. } => "process_exited",
            SignalKind::Handover => "handover",
            SignalKind::ModelRequest { .. } => "model_request",
            SignalKind::IdentityOnly => "identity_only",
        }
    }
}

/// A signal with its identity payload, source and time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signal {
    pub kind: SignalKind,
    #[serde(default)]
    pub identity: Identity,
    pub source: Source,
    pub at: Timestamp,
}

impl Signal {
    /// A signal without identity fields.
    pub fn new(kind: SignalKind, source: Source, at: Timestamp) -> Signal {
        Signal {
            kind,
            identity: Identity::default(),
            source,
            at,
        }
    }

    /// Same signal carrying `identity`.
    pub fn with_identity(mut self, identity: Identity) -> Signal {
        self.identity = identity;
        self
    }
}

/// An explicit user action on a pane (`docs/lifecycle-attention.md#clearing-rules`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// Record last_seen_at and clear ordinary attention.
    MarkSeen,
    /// Mark seen, and count new ordinary items as seen while focused.
    Focus,
    /// Focus left the pane (focus-out, detach, panel deselect).
    Unfocus,
    /// Answer the open decision with `choice`.
    Answer { choice: String },
    /// The user clicked the pane's desktop notification: focus.
    NotificationClicked,
    /// A client attached (default attach counts as focus until a focus report).
    Attach,
    /// The last client detached.
    Detach,
    /// The user had Attend signal the pane's program (`attend kill`, the panel's Kill):
    /// records the intent and its time; the exit that follows is the user's own act
    /// (`docs/lifecycle-attention.md#process-exited`). Emits nothing.
    Kill,
}
