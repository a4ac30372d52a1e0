//! Property tests over random signal/action sequences (issue: foundation). The case count
//! comes from `PROPTEST_CASES` (CI sets 10 000); the default here is 10 000 too.

use attend::engine::{NewPane, World};
use attend::model::*;
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000)
}

#[derive(Debug, Clone)]
enum Step {
    Sig(SignalKind, Rung),
    Act(Action),
}

fn signal_kind() -> impl Strategy<Value = SignalKind> {
    let tool_id = prop::option::of(prop_oneof![Just("t1".to_string()), Just("t2".to_string())]);
    prop_oneof![
        prop::option::of(prop_oneof![
            Just("startup".to_string()),
            Just("clear".to_string()),
            Just("compact".to_string())
        ])
        .prop_map(|source| SignalKind::SessionStarted { source }),
        Just(SignalKind::TurnStarted),
        tool_id
            .clone()
            .prop_map(|tool_use_id| SignalKind::ToolStarted {
                tool: "Bash".into(),
                tool_use_id
            }),
        tool_id
            .clone()
            .prop_map(|tool_use_id| SignalKind::ToolFinished {
                tool: None,
                tool_use_id
            }),
        Just(SignalKind::ToolError { error: "e".into() }),
        Just(SignalKind::Warning { text: "w".into() }),
        tool_id.prop_map(|tool_use_id| SignalKind::PermissionRequested {
            prompt: "Bash: ls".into(),
            options: vec![],
            answer_keys: vec![],
            tool_use_id
        }),
        Just(SignalKind::QuestionAsked {
            prompt: "?".into(),
            options: vec![],
            answer_keys: vec![]
        }),
        prop_oneof![
            Just(GateRef::None),
            Just(GateRef::Names(DecisionKind::Permission)),
            Just(GateRef::Names(DecisionKind::Question))
        ]
        .prop_map(|gate| SignalKind::AgentNotification {
            text: "n".into(),
            gate
        }),
        Just(SignalKind::TerminalNotification { text: "t".into() }),
        Just(SignalKind::Bell),
        Just(SignalKind::Output),
        prop_oneof![
            Just(PromptMark::PromptStart),
            Just(PromptMark::CommandExecuted),
            prop::option::of(-1i32..3).prop_map(|code| PromptMark::CommandFinished { code })
        ]
        .prop_map(SignalKind::Prompt),
        prop::option::of(Just("summary".to_string()))
            .prop_map(|summary| SignalKind::TurnStopped { summary }),
        any::<bool>().prop_map(|usage_limit| SignalKind::TurnFailed {
            error: "boom".into(),
            usage_limit
        }),
        Just(SignalKind::GateDismissed),
        prop::option::of(prop_oneof![
            Just("prompt_input_exit".to_string()),
            Just("clear".to_string()),
            Just("other".to_string())
        ])
        .prop_map(|reason| SignalKind::SessionEnded { reason }),
        (prop::option::of(0i32..3), prop::option::of(Just(9i32)))
            .prop_map(|(code, signal)| SignalKind::ProcessExited { code, signal }),
        Just(SignalKind::Handover),
        Just(SignalKind::IdentityOnly),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    let rung = prop_oneof![
        Just(Rung::LifecycleHooks),
        Just(Rung::Terminal),
        Just(Rung::Process),
        Just(Rung::SelfReport)
    ];
    prop_oneof![
        4 => (signal_kind(), rung).prop_map(|(k, r)| Step::Sig(k, r)),
        1 => prop_oneof![
            Just(Action::MarkSeen),
            Just(Action::Focus),
            Just(Action::Unfocus),
            Just(Action::Answer { choice: "allow".into() }),
            Just(Action::NotificationClicked),
            Just(Action::Attach),
            Just(Action::Detach),
            Just(Action::Kill),
        ]
        .prop_map(Step::Act),
    ]
}

fn agent() -> impl Strategy<Value = AgentKind> {
    prop::sample::select(AgentKind::ALL.to_vec())
}

/// Runs `steps` on a fresh pane; calls `check(before, step, after, events)` after each.
fn run(
    agent: AgentKind,
    oneshot: bool,
    steps: &[Step],
    mut check: impl FnMut(&Pane, &Step, &Pane, &[Event]),
) {
    let mut w = World::new();
    let (p, _) = w.add_pane(
        NewPane {
            workspace: "/w".into(),
            agent,
            oneshot,
            ..Default::default()
        },
        Timestamp(0),
    );
    let mut t = 0;
    for s in steps {
        t += 10;
        let before = w.pane(p).unwrap().clone();
        let events = match s {
            Step::Sig(kind, rung) => w
                .apply_signal(
                    p,
                    &Signal::new(kind.clone(), Source::new(*rung, "prop"), Timestamp(t)),
                )
                .unwrap(),
            Step::Act(a) => match w.apply_action(p, a, Timestamp(t)) {
                Ok((ev, _)) => ev,
                Err(_) => Vec::new(),
            },
        };
        check(&before, s, w.pane(p).unwrap(), &events);
    }
}

proptest! {
    #![proptest_config(crate::proptest_config(cases()))]

    /// While a decision is open, attention is never below its required level, and the
    /// pane is blocked; required items exist only bound to the open decision.
    #[test]
    fn prop_attention_never_below_open_decision(agent in agent(), oneshot in any::<bool>(), steps in prop::collection::vec(step(), 0..40)) {
        run(agent, oneshot, &steps, |_, _, after, _| {
            if let Some(d) = &after.pending_decision {
                assert!(after.attention() >= d.kind.attention());
                assert_eq!(after.lifecycle, Lifecycle::Blocked);
            }
            for item in &after.items {
                assert_eq!(item.level.is_required(), item.decision.is_some());
                if let Some(id) = item.decision {
                    assert_eq!(after.pending_decision.as_ref().map(|d| d.id), Some(id));
                }
            }
        });
    }

    /// A reviewed terminal pane is never re-raised by a trailing session end or exit
    /// (spec 024 FR-001, FR-002).
    #[test]
    fn prop_reviewed_terminal_not_reraised_by_trailing_signals(agent in agent(), oneshot in any::<bool>(), steps in prop::collection::vec(step(), 0..40)) {
        run(agent, oneshot, &steps, |before, step, after, _| {
            if !before.is_reviewed_terminal() { return; }
            if let Step::Sig(kind, _) = step {
                if matches!(kind, SignalKind::SessionEnded { .. } | SignalKind::ProcessExited { .. }) {
                    assert_eq!(after.attention(), Attention::None);
                    assert_eq!(after.lifecycle, before.lifecycle);
                    assert_eq!(after.last_message, before.last_message);
                }
            }
        });
    }

    /// Printable output changes an agent's pane in no way (`output_is_signal` is false for
    /// every agent but the shell, so the daemon does not step an agent's machine per PTY
    /// chunk): whatever came before, the transition leaves the pane as it was and emits
    /// nothing.
    #[test]
    fn prop_output_is_inert_where_it_is_no_signal(agent in agent(), oneshot in any::<bool>(), steps in prop::collection::vec(step(), 0..40)) {
        run(agent, oneshot, &steps, |_, _, after, _| {
            if attend::engine::output_is_signal(after.agent) { return; }
            let mut pane = after.clone();
            let mut next = 1_000;
            let out = Signal::new(SignalKind::Output, Source::terminal("output"), Timestamp(1_000_000));
            let emitted = attend::engine::apply_signal(&mut pane, &out, &mut next);
            assert!(emitted.is_empty(), "{emitted:?}");
            assert_eq!(&pane, after);
        });
    }

    /// mark_seen twice equals mark_seen once (except the recorded time) and emits nothing
    /// the second time.
    #[test]
    fn prop_mark_seen_idempotent(agent in agent(), steps in prop::collection::vec(step(), 0..40)) {
        let mut w = World::new();
        let (p, _) = w.add_pane(NewPane { workspace: "/w".into(), agent, ..Default::default() }, Timestamp(0));
        let mut t = 0;
        for s in &steps {
            t += 10;
            match s {
                Step::Sig(k, r) => { w.apply_signal(p, &Signal::new(k.clone(), Source::new(*r, "prop"), Timestamp(t))).unwrap(); }
                Step::Act(a) => { let _ = w.apply_action(p, a, Timestamp(t)); }
            }
        }
        w.apply_action(p, &Action::MarkSeen, Timestamp(t + 1)).unwrap();
        let once = w.pane(p).unwrap().clone();
        let (ev, _) = w.apply_action(p, &Action::MarkSeen, Timestamp(t + 1)).unwrap();
        prop_assert!(ev.is_empty());
        prop_assert_eq!(&once, w.pane(p).unwrap());
        prop_assert!(once.items.iter().all(|i| i.level.is_required()));
    }

    /// Every lifecycle change emits exactly one `agent.<state>` event with the right
    /// previous value, and no lifecycle event is emitted without a change.
    #[test]
    fn prop_lifecycle_change_emits_exactly_one_agent_event(agent in agent(), oneshot in any::<bool>(), steps in prop::collection::vec(step(), 0..40)) {
        run(agent, oneshot, &steps, |before, _, after, events| {
            let agent_events: Vec<(Lifecycle, Lifecycle)> = events.iter().filter_map(|e| match e.kind {
                EventKind::Agent { previous, value } => Some((previous, value)),
                _ => None,
            }).collect();
            // Chained: each event starts where the previous ended, first at `before`.
            let mut cur = before.lifecycle;
            for (prev, val) in &agent_events {
                assert_eq!(*prev, cur);
                assert_ne!(prev, val);
                cur = *val;
            }
            assert_eq!(cur, after.lifecycle);
            if before.lifecycle != after.lifecycle {
                assert!(!agent_events.is_empty());
            }
            for e in events { assert_eq!(e.kind.name().starts_with("agent."), matches!(e.kind, EventKind::Agent{..})); }
        });
    }

    /// Event seqs are strictly increasing across the whole run.
    #[test]
    fn prop_event_seq_strictly_increasing(agent in agent(), steps in prop::collection::vec(step(), 0..40)) {
        let mut last = 1; // pane.added took seq 1
        run(agent, false, &steps, |_, _, _, events| {
            for e in events { assert!(e.seq > last); last = e.seq; }
        });
    }
}
