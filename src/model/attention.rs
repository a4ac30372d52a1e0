use super::source::Source;
use super::time::Timestamp;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Whether the human must look at a pane (`docs/lifecycle-attention.md#attention`).
///
/// The derived `Ord` **is** the severity order and the only one in the program:
/// `error > permission_required > input_required > warning > unread > none`.
/// Declaration order below is ascending severity; do not reorder.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "snake_case")]
pub enum Attention {
    /// Nothing to see.
    #[default]
    None,
    /// Output or activity since last seen (subtle dot).
    Unread,
    /// Non-fatal problem (amber).
    Warning,
    /// The agent asked a question (attention ring). Only while a decision is open.
    InputRequired,
    /// An approval gate is open (strong ring). Only while a decision is open.
    PermissionRequired,
    /// Failure needs triage (red).
    Error,
}

impl Attention {
    /// Every value, ascending severity.
    pub const ALL: [Attention; 6] = [
        Attention::None,
        Attention::Unread,
        Attention::Warning,
        Attention::InputRequired,
        Attention::PermissionRequired,
        Attention::Error,
    ];

    /// Lower-case wire name (`"permission_required"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Attention::None => "none",
            Attention::Unread => "unread",
            Attention::Warning => "warning",
            Attention::InputRequired => "input_required",
            Attention::PermissionRequired => "permission_required",
            Attention::Error => "error",
        }
    }

    /// Parses a wire name; `None` outside the vocabulary.
    pub fn parse(s: &str) -> Option<Attention> {
        Attention::ALL.into_iter().find(|a| a.as_str() == s)
    }

    /// Required levels exist only while bound to an open decision
    /// (`docs/lifecycle-attention.md#attention`).
    pub fn is_required(self) -> bool {
        matches!(
            self,
            Attention::InputRequired | Attention::PermissionRequired
        )
    }
}

impl fmt::Display for Attention {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One outstanding attention item of a pane (`docs/lifecycle-attention.md#attention`):
/// `{level, source, at, decision?}`. Required items carry the id of the decision they are
/// bound to; ordinary items (unread, warning, error) carry none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttentionItem {
    pub level: Attention,
    pub source: Source,
    pub at: Timestamp,
    pub decision: Option<u64>,
}
