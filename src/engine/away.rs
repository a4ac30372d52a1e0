//! Away from the desk: which gates and questions to push to the user's phone, and when
//! to follow one up (`docs/away.md`; the rule: `docs/decisions/0012-away-push-rule.md`).
//! Pure: the presence, the open items and the time are passed in; the service sends.
//!
//! - Nothing is pushed while the user is at the desk, nor while the presence is
//!   [`Presence::Unknown`] (no idle source on either bus).
//! - A gate (`permission_required`) or question (`input_required`) is pushed once it has
//!   been open for the delay *while the user was away*: it is due at
//!   `max(opened, away since) + delay`. So one opened at the desk and still open when the
//!   user leaves is pushed a delay after they left; one opened while away, a delay after
//!   it opened.
//! - One push per attention item; when a pushed item is no longer open (answered,
//!   resolved, its pane removed), one follow-up — whatever the presence then.

use crate::model::{Attention, Pane, PaneId, Timestamp};
use std::collections::BTreeSet;

/// Whether the user is at the desk, as the idle sources say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// A source answers and none says locked, idle or screensaver active.
    AtDesk,
    /// A source says locked, idle or screensaver active, since `since`.
    Away { since: Timestamp },
    /// No idle source answers: never push.
    Unknown,
}

/// One attention item that can be pushed: a gate or a question of a pane.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AwayItem {
    pub pane: PaneId,
    /// `permission_required` (a gate) or `input_required` (a question).
    pub level: Attention,
    /// The decision the item belongs to, when it has one.
    pub decision: Option<u64>,
    /// When the item opened.
    pub opened_at: Timestamp,
}

/// What to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Push {
    /// The item has been open for the delay while the user is away.
    Open(AwayItem),
    /// A pushed item is no longer open.
    Resolved(AwayItem),
}

/// The gates and questions open on `panes`, each once.
pub fn open_items<'a>(panes: impl IntoIterator<Item = &'a Pane>) -> Vec<AwayItem> {
    let mut out = BTreeSet::new();
    for p in panes {
        for i in &p.items {
            if i.level.is_required() {
                out.insert(AwayItem {
                    pane: p.id,
                    level: i.level,
                    decision: i.decision,
                    opened_at: i.at,
                });
            }
        }
    }
    out.into_iter().collect()
}

/// The items pushed so far (whose follow-up is still to come).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pushed {
    items: BTreeSet<AwayItem>,
}

impl Pushed {
    /// When `item` is due under `presence` with `delay_ms`: `None` unless away.
    fn due(item: &AwayItem, presence: Presence, delay_ms: i64) -> Option<Timestamp> {
        match presence {
            Presence::Away { since } => Some(Timestamp(item.opened_at.max(since).0 + delay_ms)),
            Presence::AtDesk | Presence::Unknown => None,
        }
    }

    /// The pushes to send at `now`: a follow-up for each pushed item no longer in `open`,
    /// then a push for each open item due and not pushed yet. Records both.
    pub fn step(
        &mut self,
        presence: Presence,
        open: &[AwayItem],
        delay_ms: i64,
        now: Timestamp,
    ) -> Vec<Push> {
        let open_set: BTreeSet<&AwayItem> = open.iter().collect();
        let gone: Vec<AwayItem> = self
            .items
            .iter()
            .filter(|i| !open_set.contains(i))
            .cloned()
            .collect();
        let mut out = Vec::new();
        for i in gone {
            self.items.remove(&i);
            out.push(Push::Resolved(i));
        }
        for i in open {
            if self.items.contains(i) {
                continue;
            }
            if Self::due(i, presence, delay_ms).is_some_and(|d| d <= now) {
                self.items.insert(i.clone());
                out.push(Push::Open(i.clone()));
            }
        }
        out
    }

    /// The earliest time an open item not pushed yet becomes due; `None` while at the
    /// desk, unknown, or with nothing waiting (the caller sleeps until then, no polling).
    pub fn next_due(
        &self,
        presence: Presence,
        open: &[AwayItem],
        delay_ms: i64,
    ) -> Option<Timestamp> {
        open.iter()
            .filter(|i| !self.items.contains(i))
            .filter_map(|i| Self::due(i, presence, delay_ms))
            .min()
    }

    /// How many pushed items wait for their follow-up.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether no pushed item waits for its follow-up.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DELAY: i64 = 60_000;

    fn gate(at: i64) -> AwayItem {
        AwayItem {
            pane: PaneId(1),
            level: Attention::PermissionRequired,
            decision: Some(7),
            opened_at: Timestamp(at),
        }
    }

    fn away(since: i64) -> Presence {
        Presence::Away {
            since: Timestamp(since),
        }
    }

    #[test]
    fn nothing_at_the_desk_or_without_a_source() {
        let mut p = Pushed::default();
        let open = [gate(0)];
        for presence in [Presence::AtDesk, Presence::Unknown] {
            assert_eq!(p.step(presence, &open, DELAY, Timestamp(10 * DELAY)), []);
            assert_eq!(p.next_due(presence, &open, DELAY), None);
        }
    }

    #[test]
    fn one_push_after_the_delay_then_one_follow_up() {
        let mut p = Pushed::default();
        let open = [gate(1_000)];
        assert_eq!(p.step(away(0), &open, DELAY, Timestamp(60_999)), []);
        assert_eq!(p.next_due(away(0), &open, DELAY), Some(Timestamp(61_000)));
        assert_eq!(
            p.step(away(0), &open, DELAY, Timestamp(61_000)),
            [Push::Open(gate(1_000))]
        );
        assert_eq!(p.step(away(0), &open, DELAY, Timestamp(90_000)), []);
        assert_eq!(p.next_due(away(0), &open, DELAY), None);
        // Back at the desk: nothing new, the item stays pushed.
        assert_eq!(
            p.step(Presence::AtDesk, &open, DELAY, Timestamp(95_000)),
            []
        );
        // Resolved: one follow-up, whatever the presence.
        assert_eq!(
            p.step(Presence::AtDesk, &[], DELAY, Timestamp(99_000)),
            [Push::Resolved(gate(1_000))]
        );
        assert_eq!(p.step(Presence::AtDesk, &[], DELAY, Timestamp(99_500)), []);
        assert!(p.is_empty());
    }

    #[test]
    fn an_item_opened_at_the_desk_is_due_a_delay_after_the_user_left() {
        let mut p = Pushed::default();
        let open = [gate(0)];
        assert_eq!(
            p.next_due(away(500_000), &open, DELAY),
            Some(Timestamp(560_000))
        );
        assert_eq!(p.step(away(500_000), &open, DELAY, Timestamp(559_999)), []);
        assert_eq!(
            p.step(away(500_000), &open, DELAY, Timestamp(560_000))
                .len(),
            1
        );
    }

    #[test]
    fn resolved_before_the_delay_is_never_pushed_nor_followed_up() {
        let mut p = Pushed::default();
        assert_eq!(p.step(away(0), &[gate(0)], DELAY, Timestamp(30_000)), []);
        assert_eq!(p.step(away(0), &[], DELAY, Timestamp(90_000)), []);
    }

    #[test]
    fn only_gates_and_questions_each_once() {
        use crate::model::{AgentKind, AttentionItem, Source};
        let mut pane = Pane::new(PaneId(3), "/w", "t", "api", AgentKind::Claude, Timestamp(0));
        let item = |level, decision, at| AttentionItem {
            level,
            source: Source::user(),
            at: Timestamp(at),
            decision,
        };
        pane.items = vec![
            item(Attention::PermissionRequired, Some(1), 5),
            item(Attention::InputRequired, None, 6),
            item(Attention::Error, None, 7),
            item(Attention::Unread, None, 8),
        ];
        let open = open_items([&pane]);
        let levels: Vec<Attention> = open.iter().map(|i| i.level).collect();
        assert_eq!(
            levels,
            [Attention::InputRequired, Attention::PermissionRequired]
        );
    }
}
