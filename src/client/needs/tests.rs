//! The queue of open decisions: worst first, then the one that waited longest, local and
//! mirrored panes in one order (examples and a property over random panes), and which
//! questions take a free-text reply.

use super::*;
use crate::client::wire::{mirrored, remote_pane};
use crate::model::{AgentKind, AnswerKey, AttentionItem, Decision, HostName, Pane, Source};
use proptest::prelude::*;

/// Pane `id` of workspace `ws` with an open decision of `kind` opened at `opened` (ms),
/// its attention raised by the decision and `extra` (an error on top, say).
fn open(id: u64, ws: &str, kind: DecisionKind, opened: i64, extra: Option<Attention>) -> Pane {
    let mut p = Pane::new(
        PaneId(id),
        ws,
        "main",
        &format!("agent{id}"),
        AgentKind::Claude,
        Timestamp(0),
    );
    let (options, keys) = match kind {
        DecisionKind::Permission => (vec!["Yes", "No"], vec!["allow", "deny"]),
        DecisionKind::Question => (vec!["Postgres", "SQLite", "Type something."], vec![]),
    };
    p.pending_decision = Some(Decision {
        id,
        kind,
        prompt: format!("prompt {id}"),
        options: options.into_iter().map(String::from).collect(),
        answer_keys: keys
            .into_iter()
            .map(|c| AnswerKey {
                choice: c.into(),
                keys: String::new(),
            })
            .collect(),
        tool_use_id: None,
        source: Source::user(),
        opened_at: Timestamp(opened),
    });
    for level in std::iter::once(kind.attention()).chain(extra) {
        p.items.push(AttentionItem {
            level,
            source: Source::user(),
            at: Timestamp(opened),
            decision: level.is_required().then_some(id),
        });
    }
    p
}

/// Pane `p` of host `host` as the mirror serves it (`ListRemotePanes`), its attention
/// changed at `changed` (the time a mirrored decision is said to have opened).
fn remote(host: &str, p: &Pane, changed: Option<i64>, offline: bool) -> WirePane {
    let mut w = WirePane::of(p);
    w.attention_changed_at = changed;
    let mut m = mirrored(&HostName::parse(host).unwrap(), &w).unwrap();
    m.offline = offline;
    remote_pane(&m)
}

fn ids(v: &[Need]) -> Vec<&str> {
    v.iter().map(|n| n.pane.as_str()).collect()
}

#[test]
fn worst_first_then_the_one_that_waited_longest_local_and_remote_in_one_queue() {
    let q_old = open(1, "/src/api", DecisionKind::Question, 1_000, None);
    let gate_new = open(2, "/src/api", DecisionKind::Permission, 9_000, None);
    let gate_old = open(3, "/src/web", DecisionKind::Permission, 2_000, None);
    let failing_q = open(
        4,
        "/src/web",
        DecisionKind::Question,
        8_000,
        Some(Attention::Error),
    );
    let idle = Pane::new(
        PaneId(5),
        "/src/web",
        "main",
        "idle",
        AgentKind::Claude,
        Timestamp(0),
    );
    let far_gate = open(2, "/srv/app", DecisionKind::Permission, 0, None);
    let panes = vec![
        WirePane::of(&q_old),
        WirePane::of(&gate_new),
        WirePane::of(&gate_old),
        WirePane::of(&failing_q),
        WirePane::of(&idle),
        remote("box", &far_gate, Some(5_000), false),
        remote("gone", &far_gate, Some(100), true),
    ];
    let now = Timestamp(10_000);
    let q = needs(&panes, now);
    assert_eq!(
        ids(&q),
        ["p4", "p3", "box:p2", "p2", "p1"],
        "the error first; gates oldest first (the remote one between); then the question; \
         no idle pane, no pane of an offline host"
    );
    assert_eq!(q[0].severity, Attention::Error);
    assert_eq!(q[1].waited_ms, Some(8_000));
    assert_eq!(q[2].host.as_deref(), Some("box"));
    assert_eq!(q[2].place, "box › app › agent2");
    assert_eq!(q[2].decision.choices, ["allow", "deny"]);
    assert_eq!(q[4].place, "api › agent1");
    assert_eq!(
        q[4].reply,
        Some(ReplyMode::PickThenType {
            label: "Type something.".into()
        })
    );
    assert_eq!(q[1].reply, None, "a gate takes no text");
    assert!(
        needs(&[WirePane::of(&idle)], now).is_empty(),
        "nothing waits"
    );
}

#[test]
fn a_decision_whose_opening_is_unknown_waits_behind_the_known_ones_and_says_so() {
    let far = open(1, "/srv/app", DecisionKind::Permission, 0, None);
    let near = open(9, "/src/api", DecisionKind::Permission, 9_999, None);
    let panes = [remote("box", &far, None, false), WirePane::of(&near)];
    let q = needs(&panes, Timestamp(10_000));
    assert_eq!(ids(&q), ["p9", "box:p1"]);
    assert_eq!(q[1].opened_at, None);
    assert_eq!(waited_text(q[1].waited_ms), "?");
    assert_eq!(waited_text(q[0].waited_ms), "0s");
}

#[test]
fn a_reply_is_typed_into_a_plain_question_and_picks_the_free_text_option_of_a_dialog() {
    let d = |kind: &str, options: &[&str]| WireDecision {
        id: 1,
        kind: kind.into(),
        prompt: "Which database?".into(),
        options: options.iter().map(|s| s.to_string()).collect(),
        choices: Vec::new(),
        source: "user:user".into(),
        opened_at: 1,
        tool_use_id: None,
        gate: None,
    };
    assert_eq!(reply_mode(&d("question", &[])), Some(ReplyMode::Type));
    for label in ["Type something.", "Other", "3. Other", "type something…"] {
        assert_eq!(
            reply_mode(&d("question", &["Postgres", label])),
            Some(ReplyMode::PickThenType {
                label: label.into()
            }),
            "{label}"
        );
    }
    assert_eq!(
        reply_mode(&d("question", &["Postgres", "SQLite"])),
        None,
        "a dialog without a free-text option takes no field: digits would pick options"
    );
    assert_eq!(reply_mode(&d("permission", &[])), None);
    assert!(!is_free_text_label("Others are fine"));
}

#[test]
fn waited_text_is_short() {
    let s = |secs: i64| waited_text(Some(secs * 1000));
    assert_eq!(
        [s(5), s(61), s(3600), s(3600 + 300), s(3 * 86_400)],
        ["5s", "1m", "1h", "1h 5m", "3d"]
    );
}

proptest! {
    /// Any panes, in any order: the queue holds exactly the open decisions of the panes
    /// whose host is online, each once, sorted by severity then opening time, and does
    /// not depend on the order the panes came in.
    #[test]
    fn the_queue_is_every_open_decision_once_in_rank_order(
        spec in prop::collection::vec(
            (any::<bool>(), any::<bool>(), 0i64..50, any::<bool>(), 0u8..4),
            0..12,
        ),
        rotate in 0usize..12,
    ) {
        let mut panes = Vec::new();
        for (i, (gate, error, opened, has, where_)) in spec.iter().enumerate() {
            let id = i as u64 + 1;
            let kind = if *gate { DecisionKind::Permission } else { DecisionKind::Question };
            let mut p = open(id, "/src/ws", kind, 1 + opened * 1000, error.then_some(Attention::Error));
            if !has {
                p.pending_decision = None;
                p.items.clear();
            }
            panes.push(match where_ {
                0 | 1 => WirePane::of(&p),
                2 => remote("box", &p, Some(1 + opened * 1000), false),
                _ => remote("gone", &p, Some(1 + opened * 1000), true),
            });
        }
        let now = Timestamp(100_000);
        let q = needs(&panes, now);
        let expected = panes
            .iter()
            .filter(|p| p.pending_decision.is_some() && !p.is_offline())
            .count();
        prop_assert_eq!(q.len(), expected);
        for w in q.windows(2) {
            prop_assert!(w[0].severity >= w[1].severity);
            if w[0].severity == w[1].severity {
                prop_assert!(w[0].opened_at <= w[1].opened_at);
            }
        }
        let mut rotated = panes.clone();
        let n = rotated.len().max(1);
        rotated.rotate_left(rotate % n);
        prop_assert_eq!(needs(&rotated, now), q);
    }
}
