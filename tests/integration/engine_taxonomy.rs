//! The taxonomy projection and diagnoses (docs/taxonomy.md).

use attend::engine::ladder::Activity;
use attend::engine::taxonomy::*;
use attend::engine::{NewPane, World};
use attend::model::*;

fn world_pane(agent: AgentKind) -> (World, PaneId) {
    let mut w = World::new();
    let (p, _) = w.add_pane(
        NewPane {
            workspace: "/w".into(),
            agent,
            owned: true,
            ..Default::default()
        },
        Timestamp(0),
    );
    (w, p)
}

fn sig(w: &mut World, p: PaneId, kind: SignalKind, at: i64) {
    w.apply_signal(
        p,
        &Signal::new(kind, Source::hook("claude", "t"), Timestamp(at)),
    )
    .unwrap();
}

fn proj(w: &World, p: PaneId) -> Taxonomy {
    project(w.pane(p).unwrap(), RuntimeFacts::default(), None)
}

#[test]
fn taxonomy_activity_follows_lifecycle() {
    let (mut w, p) = world_pane(AgentKind::Claude);
    assert_eq!(proj(&w, p).activity, Activity::Unknown);
    sig(&mut w, p, SignalKind::TurnStarted, 1);
    assert_eq!(proj(&w, p).display, "working");
    sig(&mut w, p, SignalKind::TurnStopped { summary: None }, 2);
    assert_eq!(proj(&w, p).display, "idle-at-prompt");
}

#[test]
fn taxonomy_blocked_is_idle_at_prompt_with_needs_input_count_and_reason() {
    let (mut w, p) = world_pane(AgentKind::Claude);
    sig(
        &mut w,
        p,
        SignalKind::PermissionRequested {
            prompt: "Bash: ls".into(),
            options: vec![],
            answer_keys: vec![],
            tool_use_id: None,
        },
        1,
    );
    let t = proj(&w, p);
    assert_eq!(t.activity, Activity::IdleAtPrompt);
    assert_eq!(t.needs_input.count, 1);
    assert_eq!(t.needs_input.reason.as_deref(), Some("permission prompt"));
    assert_eq!(t.display, "needs-input");
    let with_chrome = project(
        w.pane(p).unwrap(),
        RuntimeFacts {
            chrome_gates: 1,
            ..Default::default()
        },
        None,
    );
    assert_eq!(with_chrome.needs_input.count, 2);
}

#[test]
fn taxonomy_usage_limit_gives_needs_input_reason() {
    let (mut w, p) = world_pane(AgentKind::Claude);
    sig(
        &mut w,
        p,
        SignalKind::TurnFailed {
            error: "rate_limit".into(),
            usage_limit: true,
        },
        1,
    );
    let t = proj(&w, p);
    assert_eq!(t.needs_input.count, 1);
    assert_eq!(t.needs_input.reason.as_deref(), Some("usage limit"));
}

#[test]
fn taxonomy_display_values_stay_in_vocabulary() {
    let allowed = ["working", "idle-at-prompt", "unknown", "needs-input"];
    for l in Lifecycle::ALL {
        for decision in [false, true] {
            let mut pane = Pane::new(
                PaneId(1),
                "/w",
                "main",
                "p",
                AgentKind::Claude,
                Timestamp(0),
            );
            pane.lifecycle = l;
            if decision {
                pane.pending_decision = Some(Decision {
                    id: 1,
                    kind: DecisionKind::Question,
                    prompt: "?".into(),
                    options: vec![],
                    answer_keys: vec![],
                    tool_use_id: None,
                    source: Source::user(),
                    opened_at: Timestamp(0),
                });
            }
            let t = project(&pane, RuntimeFacts::default(), None);
            assert!(
                allowed.contains(&t.display.as_str()),
                "{l:?}: {}",
                t.display
            );
        }
    }
}

#[test]
fn taxonomy_session_presence_and_resumability() {
    let (mut w, p) = world_pane(AgentKind::Claude);
    let pane = w.pane(p).unwrap().clone();
    assert_eq!(
        project(&pane, RuntimeFacts::default(), None).session,
        Presence::Detached
    );
    let attached = RuntimeFacts {
        attached: true,
        ..Default::default()
    };
    assert_eq!(project(&pane, attached, None).session, Presence::Present);
    assert_eq!(
        project(&pane, attached, None).resumability,
        Resumability::Live
    );
    let mut external = pane.clone();
    external.owned = false;
    assert_eq!(
        project(&external, RuntimeFacts::default(), None).session,
        Presence::Absent
    );
    // The agent names how to resume it (through a signal's identity, as hooks do).
    let resume = attend::model::Identity {
        resume_argv: Some(vec!["claude".into(), "--resume".into(), "x".into()]),
        ..Default::default()
    };
    let named = Signal::new(SignalKind::Output, Source::process("test"), Timestamp(4));
    w.apply_signal(p, &named.with_identity(resume)).unwrap();
    w.apply_signal(
        p,
        &Signal::new(
            SignalKind::ProcessExited {
                code: Some(0),
                signal: None,
            },
            Source::process("exit"),
            Timestamp(5),
        ),
    )
    .unwrap();
    let t = proj(&w, p);
    assert_eq!(t.session, Presence::Exited);
    assert_eq!(t.resumability, Resumability::Resumable);
}

#[test]
fn diagnoses_parked_held_done_unseen() {
    let (mut w, p) = world_pane(AgentKind::Claude);
    w.add_task(p, "write tests", Timestamp(1)).unwrap();
    sig(&mut w, p, SignalKind::TurnStarted, 2);
    let d = diagnose(w.pane(p).unwrap(), &proj(&w, p), Timestamp(3));
    assert!(!d.parked, "working is not parked");
    sig(&mut w, p, SignalKind::TurnStopped { summary: None }, 4);
    let d = diagnose(w.pane(p).unwrap(), &proj(&w, p), Timestamp(5));
    assert!(d.parked && d.done_unseen && !d.held);
    w.set_hold(
        p,
        Some(Hold {
            owner: "alice".into(),
            wake: Timestamp(100),
            reason: None,
        }),
        Timestamp(6),
    )
    .unwrap();
    let d = diagnose(w.pane(p).unwrap(), &proj(&w, p), Timestamp(7));
    assert!(d.held && !d.parked, "a HELD row is not parked");
    let d = diagnose(w.pane(p).unwrap(), &proj(&w, p), Timestamp(100));
    assert!(!d.held && d.parked, "the hold's wake passed");
    w.apply_action(p, &Action::MarkSeen, Timestamp(101))
        .unwrap();
    let d = diagnose(w.pane(p).unwrap(), &proj(&w, p), Timestamp(102));
    assert!(!d.done_unseen);
}

#[test]
fn taxonomy_ladder_reason_names_the_needs_input() {
    // The evidence ladder's reason (self-report `waitingFor`, a chrome rule) names the
    // needs-input; without it the decision kind does.
    let (mut w, p) = world_pane(AgentKind::Claude);
    sig(
        &mut w,
        p,
        SignalKind::PermissionRequested {
            prompt: "Bash: ls".into(),
            options: vec![],
            answer_keys: vec![],
            tool_use_id: None,
        },
        1,
    );
    let pane = w.pane(p).unwrap();
    let t = project(pane, RuntimeFacts::default(), Some("sandbox request"));
    assert_eq!(t.needs_input.reason.as_deref(), Some("sandbox request"));
    assert_eq!(t.needs_input.count, 1);
    // A dialog only the ladder sees (no decision): counted, named.
    let (w2, p2) = world_pane(AgentKind::Claude);
    let t = project(
        w2.pane(p2).unwrap(),
        RuntimeFacts {
            chrome_gates: 1,
            ..Default::default()
        },
        Some("permission prompt"),
    );
    assert_eq!(t.needs_input.count, 1);
    assert_eq!(t.display, "needs-input");
    assert_eq!(Presence::Detached.as_str(), "detached");
    assert_eq!(Resumability::Resumable.as_str(), "resumable");
}
