//! The pane id (`p1`, `p2`, …), a leaf every other part of the model may name.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A pane id: `p1`, `p2`, … never reused (`docs/lifecycle-attention.md#pane-ids`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct PaneId(pub u64);

impl PaneId {
    /// Parses `p<N>` with N ≥ 1; `None` otherwise.
    pub fn parse(s: &str) -> Option<PaneId> {
        let n: u64 = s.strip_prefix('p')?.parse().ok()?;
        (n > 0 && !s[1..].starts_with('0')).then_some(PaneId(n))
    }
}

impl fmt::Display for PaneId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "p{}", self.0)
    }
}

impl From<PaneId> for String {
    fn from(p: PaneId) -> String {
        p.to_string()
    }
}

impl TryFrom<String> for PaneId {
    type Error = String;
    fn try_from(s: String) -> Result<PaneId, String> {
        PaneId::parse(&s).ok_or_else(|| format!("not a pane id: {s:?}"))
    }
}
