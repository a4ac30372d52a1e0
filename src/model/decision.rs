use super::source::Source;
use super::time::Timestamp;
use serde::{Deserialize, Serialize};

/// What kind of answer a decision waits for (`docs/lifecycle-attention.md#decisions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    /// An approval gate (tool permission). Raises `permission_required`.
    Permission,
    /// A question to the human. Raises `input_required`.
    Question,
}

impl DecisionKind {
    /// Every kind.
    pub const ALL: [DecisionKind; 2] = [DecisionKind::Permission, DecisionKind::Question];

    /// Parses a wire name; `None` outside the vocabulary.
    pub fn parse(s: &str) -> Option<DecisionKind> {
        DecisionKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// `"permission"` or `"question"`.
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionKind::Permission => "permission",
            DecisionKind::Question => "question",
        }
    }

    /// The required attention level this kind raises.
    pub fn attention(self) -> super::attention::Attention {
        match self {
            DecisionKind::Permission => super::attention::Attention::PermissionRequired,
            DecisionKind::Question => super::attention::Attention::InputRequired,
        }
    }
}

/// One answer choice of a decision (`allow`, `deny`, …). `keys` is empty for choices whose
/// keys are derived from the dialog on screen when answering (every agent gate;
/// `docs/lifecycle-attention.md#answer`); it holds fixed keys only where no screen exists
/// (the demo).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerKey {
    pub choice: String,
    pub keys: String,
}

/// What marks a tool id as a subagent's scope (`agent:<agent id>`).
const SUBAGENT_SCOPE: &str = "agent:";

/// The `tool_use_id` that scopes a gate, and the tools that finish it, to one of the
/// agent's subagents: `agent:<agent_id>` (Claude's payloads from inside a subagent carry
/// `agent_id`, its `PermissionRequest` no tool id). Such a gate is not the main agent's:
/// only a finished tool of the same subagent approves it, and the main agent's tools and
/// the end of its turn leave it open (`docs/lifecycle-attention.md#subagent-gates`).
pub fn subagent_scope(agent_id: &str) -> String {
    format!("{SUBAGENT_SCOPE}{agent_id}")
}

/// True when `tool_use_id` is a [`subagent_scope`].
pub fn is_subagent_scope(tool_use_id: &str) -> bool {
    tool_use_id.starts_with(SUBAGENT_SCOPE)
}

/// An open question or approval gate on a pane (`docs/lifecycle-attention.md#decisions`).
/// At most one per pane.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// Unique across the store; assigned by [`crate::engine::World`].
    pub id: u64,
    pub kind: DecisionKind,
    /// What is asked: tool + command for a permission, the question text otherwise.
    pub prompt: String,
    /// Human labels of the choices, when known.
    pub options: Vec<String>,
    /// The answer choices, when known (from the adapter or the screen manifest).
    pub answer_keys: Vec<AnswerKey>,
    /// The tool call this gate guards, when the agent names it (Claude `tool_use_id`);
    /// a finished tool resolves the gate only when the ids match. A gate of one of the
    /// agent's subagents holds that subagent's scope instead ([`subagent_scope`]).
    pub tool_use_id: Option<String>,
    pub source: Source,
    pub opened_at: Timestamp,
}

impl Decision {
    /// The decision's choices, the one list every surface shows (`attend show`, the
    /// panel's buttons, the notification's buttons, D-Bus `choices`) and `attend answer`
    /// takes by name (`docs/lifecycle-attention.md#answer`): the names of its answer keys
    /// in order, each once (case-insensitively), none empty.
    pub fn choices(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for k in &self.answer_keys {
            let name = k.choice.trim();
            if !name.is_empty() && !out.iter().any(|c| c.eq_ignore_ascii_case(name)) {
                out.push(name.to_string());
            }
        }
        out
    }
}

/// How a decision ended (`decision.resolved`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "how", rename_all = "snake_case")]
pub enum Resolution {
    /// The user answered through Attend (`answer`).
    Answered { choice: String },
    /// The guarded tool ran: it was approved at the terminal.
    Approved,
    /// The user dismissed it at the terminal (Esc, deny) — seen via self-report/chrome.
    Dismissed,
    /// A newer gate replaced it.
    Superseded,
    /// The process exited with the decision open.
    Abandoned,
    /// The agent moved on: a new turn or the end of the turn.
    AgentTransition,
}

impl Resolution {
    /// Short wire name (`"answered"`, `"approved"` …).
    pub fn as_str(&self) -> &'static str {
        match self {
            Resolution::Answered { .. } => "answered",
            Resolution::Approved => "approved",
            Resolution::Dismissed => "dismissed",
            Resolution::Superseded => "superseded",
            Resolution::Abandoned => "abandoned",
            Resolution::AgentTransition => "agent_transition",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_are_the_answer_keys_names_in_order_each_once() {
        let key = |c: &str| AnswerKey {
            choice: c.into(),
            keys: String::new(),
        };
        let d = Decision {
            id: 1,
            kind: DecisionKind::Permission,
            prompt: "Bash: ls".into(),
            options: vec![],
            answer_keys: vec![key("allow"), key(" "), key("deny"), key("Allow")],
            tool_use_id: None,
            source: Source::user(),
            opened_at: Timestamp(0),
        };
        assert_eq!(d.choices(), ["allow", "deny"]);
    }

    #[test]
    fn decision_kinds_parse_their_wire_names_only() {
        for k in DecisionKind::ALL {
            assert_eq!(DecisionKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(DecisionKind::parse("Permission"), None);
        assert_eq!(DecisionKind::parse("approval"), None);
    }
}
