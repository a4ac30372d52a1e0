//! "Needs you": every open decision (gate or question) of this machine's panes and of
//! the panes mirrored from other hosts, in one queue (`docs/desktop-surfaces.md#needs-you`).
//!
//! Pure: it reads [`WirePane`]s (the one wire shape of a pane, as `ListPanes` and
//! `ListRemotePanes` send it) and the time now, so `attend needs`, the panel's Needs you
//! view and the tray's menu list the same decisions in the same order.
//!
//! The order ([`need_rank`]): worst first, by the severity the engine ranks attention
//! with (the pane's shown attention, at least the level its decision raises: a gate's
//! `permission_required` above a question's `input_required`, an `error` above both),
//! then the decision that has waited longest (its `opened_at`, oldest first; one whose
//! opening time is unknown after those whose time is known), then the host (this machine
//! first) and the pane number. A queue of waiting decisions, unlike `attend next`, which
//! goes to the newest change first. Panes of a host whose link is down are left out (their
//! decisions cannot be answered from here), as the tray and `next` leave them out.

use crate::client::wire::{WireDecision, WirePane};
use crate::model::{Attention, DecisionKind, PaneId, Timestamp};
use std::cmp::Reverse;

/// Labels of the option of a question dialog that takes free text, compared without case
/// and trailing punctuation: Claude Code draws "Type something.", other dialogs "Other".
pub const FREE_TEXT_LABELS: [&str; 3] = ["type something", "other", "type your own answer"];

/// How a reply of free text reaches a question (`docs/desktop-surfaces.md#replies`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplyMode {
    /// A question without options: the text is typed into the pane, then Enter.
    Type,
    /// A dialog with options, one of which takes free text: that option is picked first
    /// (by its label, the answer's choice), then the text is typed, then Enter. Typed
    /// digits would pick options instead, so the text is never typed into the dialog as
    /// it is.
    PickThenType {
        /// The option's label as the agent draws it (`Type something.`).
        label: String,
    },
}

/// The reply a decision takes, or `None` when it takes no free text: a gate, or a dialog
/// whose options have none of [`FREE_TEXT_LABELS`].
pub fn reply_mode(d: &WireDecision) -> Option<ReplyMode> {
    if DecisionKind::parse(&d.kind) != Some(DecisionKind::Question) {
        return None;
    }
    if d.options.is_empty() {
        return Some(ReplyMode::Type);
    }
    d.options
        .iter()
        .find(|o| is_free_text_label(o))
        .map(|label| ReplyMode::PickThenType {
            label: label.clone(),
        })
}

/// True when option label `label` is one of [`FREE_TEXT_LABELS`] (case and trailing
/// `.`, `…`, `:` ignored; a leading number as the agent draws it, `3. Other`, too).
pub fn is_free_text_label(label: &str) -> bool {
    let t = label.trim();
    let t = match t.split_once(['.', ')']) {
        Some((n, rest)) if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => rest,
        _ => t,
    };
    let t = t
        .trim()
        .trim_end_matches(['.', '…', ':', ' '])
        .to_lowercase();
    FREE_TEXT_LABELS.contains(&t.as_str())
}

/// One open decision in the queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Need {
    /// The pane's id (`p3`, or `NAME:p3` for a mirrored pane).
    pub pane: String,
    /// The remote host of a mirrored pane; `None` on this machine.
    pub host: Option<String>,
    /// The pane's workspace key, as the pane carries it.
    pub workspace: String,
    /// The pane's name.
    pub name: String,
    /// The pane's agent (wire name).
    pub agent: String,
    /// Where it is, for people: `host › workspace › pane`
    /// ([`crate::client::overview::pane_title`], the host only on a mirrored pane).
    pub place: String,
    /// The severity the queue ranks by (see the module's order).
    pub severity: Attention,
    /// The decision as the daemon sent it.
    pub decision: WireDecision,
    /// When it opened (ms since the epoch); `None` when unknown (a mirrored pane's
    /// decision whose host sent no attention time).
    pub opened_at: Option<Timestamp>,
    /// How long it has waited at `now` (ms, never negative); `None` when `opened_at` is.
    pub waited_ms: Option<i64>,
    /// The reply of free text it takes ([`reply_mode`]).
    pub reply: Option<ReplyMode>,
}

/// The queue's sort key of a decision: severity (worst first), opening time (oldest
/// first, unknown last), host (this machine first, then by name), pane number, pane id.
pub type NeedRank = (
    Reverse<Attention>,
    Reverse<Option<Reverse<Timestamp>>>,
    Option<String>,
    u64,
    String,
);

/// The [`NeedRank`] of `need`.
pub fn need_rank(need: &Need) -> NeedRank {
    let local = need.pane.rsplit(':').next().unwrap_or(&need.pane);
    let number = PaneId::parse(local).map_or(u64::MAX, |p| p.0);
    (
        Reverse(need.severity),
        Reverse(need.opened_at.map(Reverse)),
        need.host.clone(),
        number,
        need.pane.clone(),
    )
}

/// The severity of pane `p` with decision `d`: its shown attention, at least the level
/// the decision's kind raises (`input_required` for a kind this side does not know).
fn severity(p: &WirePane, d: &WireDecision) -> Attention {
    let raised =
        DecisionKind::parse(&d.kind).map_or(Attention::InputRequired, DecisionKind::attention);
    Attention::parse(&p.attention)
        .unwrap_or_default()
        .max(raised)
}

/// The open decision of `p` as a [`Need`] at `now`; `None` without one, or when `p` is a
/// mirrored pane whose host is offline.
pub fn need_of(p: &WirePane, now: Timestamp) -> Option<Need> {
    if p.is_offline() {
        return None;
    }
    let d = p.pending_decision.as_ref()?;
    let opened_at = (d.opened_at > 0).then_some(Timestamp(d.opened_at));
    Some(Need {
        pane: p.id.clone(),
        host: p.host.clone().filter(|h| !h.is_empty()),
        workspace: p.workspace.clone(),
        name: p.name.clone(),
        agent: p.agent.clone(),
        place: crate::client::overview::pane_title(p),
        severity: severity(p, d),
        decision: d.clone(),
        opened_at,
        waited_ms: opened_at.map(|t| (now.0 - t.0).max(0)),
        reply: reply_mode(d),
    })
}

/// Every open decision of `panes` (local and mirrored) at `now`, in the queue's order
/// ([`need_rank`]). Empty when nothing waits.
pub fn needs<'a>(panes: impl IntoIterator<Item = &'a WirePane>, now: Timestamp) -> Vec<Need> {
    let mut v: Vec<Need> = panes.into_iter().filter_map(|p| need_of(p, now)).collect();
    v.sort_by_cached_key(need_rank);
    v
}

/// How long a decision has waited, in a few characters: `12s`, `4m`, `2h 5m`, `3d`;
/// `?` when unknown.
pub fn waited_text(waited_ms: Option<i64>) -> String {
    let Some(ms) = waited_ms else {
        return "?".into();
    };
    let s = ms.max(0) / 1000;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m", s / 60),
        3600..=86_399 if (s % 3600) / 60 == 0 => format!("{}h", s / 3600),
        3600..=86_399 => format!("{}h {}m", s / 3600, (s % 3600) / 60),
        _ => format!("{}d", s / 86_400),
    }
}

#[cfg(test)]
mod tests;
