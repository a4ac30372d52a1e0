//! Seed 004's evidence ladder, one test per rule (issue "evidence ladder").

use attend::engine::ladder::*;
use attend::model::*;

fn ev(
    rung: Rung,
    source: &str,
    seq: u64,
    at: i64,
    activity: Option<Activity>,
    needs: Option<u32>,
) -> Evidence {
    Evidence {
        rung,
        source_id: source.into(),
        seq,
        observed_at: Timestamp(at),
        claim: Claim {
            activity,
            needs_input: needs.map(|count| NeedsInput {
                count,
                reason: (count > 0).then(|| "permission prompt".to_string()),
            }),
        },
        note: String::new(),
    }
}

use Activity::{IdleAtPrompt as Idle, Unknown, Working};

#[test]
fn ladder_stale_or_reordered_seq_is_dropped() {
    let mut l = Ladder::new(AgentKind::Claude);
    assert!(
        l.observe(
            ev(Rung::LifecycleHooks, "hooks", 2, 100, Some(Working), None),
            Timestamp(100)
        )
        .accepted
    );
    let stale = l.observe(
        ev(Rung::LifecycleHooks, "hooks", 1, 200, Some(Idle), None),
        Timestamp(200),
    );
    assert!(!stale.accepted);
    let dup = l.observe(
        ev(Rung::LifecycleHooks, "hooks", 2, 200, Some(Idle), None),
        Timestamp(200),
    );
    assert!(!dup.accepted);
    assert_eq!(l.decide(Timestamp(300)).activity, Working);
    // Another source has its own sequence.
    assert!(
        l.observe(
            ev(
                Rung::SelfReport,
                "sessions/1.json",
                1,
                300,
                Some(Idle),
                None
            ),
            Timestamp(300)
        )
        .accepted
    );
}

#[test]
fn ladder_highest_authoritative_rung_decides() {
    let mut l = Ladder::new(AgentKind::Claude);
    l.observe(
        ev(Rung::WindowSampling, "pty", 1, 0, Some(Working), None),
        Timestamp(0),
    );
    l.observe(
        ev(Rung::LifecycleHooks, "hooks", 1, 10, Some(Idle), None),
        Timestamp(10),
    );
    assert_eq!(l.decide(Timestamp(20)).activity, Idle);
    l.observe(
        ev(Rung::SelfReport, "sr", 1, 30, Some(Working), None),
        Timestamp(30),
    );
    let v = l.decide(Timestamp(40));
    assert_eq!(v.activity, Working);
    assert_eq!(v.activity_by.unwrap().rung, Rung::SelfReport);
}

#[test]
fn ladder_hook_authority_expires_without_changing_stored_values() {
    let mut l = Ladder::new(AgentKind::Claude);
    l.observe(
        ev(Rung::LifecycleHooks, "hooks", 1, 0, Some(Working), None),
        Timestamp(0),
    );
    l.observe(
        ev(Rung::WindowSampling, "pty", 1, 5, Some(Idle), None),
        Timestamp(5),
    );
    assert_eq!(l.decide(Timestamp(HOOK_AUTHORITY_MS)).activity, Working);
    let before = l.clone();
    let later = l.decide(Timestamp(HOOK_AUTHORITY_MS + 1));
    assert_eq!(
        later.activity, Idle,
        "expired hook claim falls to the next rung"
    );
    assert_eq!(
        l, before,
        "expiry is computed at read time: nothing stored changes"
    );
}

#[test]
fn ladder_unknown_beats_a_confident_wrong_answer() {
    let mut l = Ladder::new(AgentKind::Claude);
    assert_eq!(l.decide(Timestamp(0)).activity, Unknown);
    // An expired hook claim with nothing fresher is not reported as truth.
    l.observe(
        ev(Rung::LifecycleHooks, "hooks", 1, 0, Some(Working), None),
        Timestamp(0),
    );
    assert_eq!(l.decide(Timestamp(HOOK_AUTHORITY_MS + 1)).activity, Unknown);
}

#[test]
fn ladder_trial_rung_does_not_decide() {
    let mut l = Ladder::new(AgentKind::Codex);
    assert_eq!(l.trust(Rung::LifecycleHooks), Trust::Trial);
    l.observe(
        ev(Rung::LifecycleHooks, "hooks", 1, 0, Some(Working), None),
        Timestamp(0),
    );
    assert_eq!(l.decide(Timestamp(1)).activity, Unknown);
}

#[test]
fn ladder_trial_promoted_after_agreement_window() {
    let mut l = Ladder::new(AgentKind::Codex);
    let mut promoted = None;
    for i in 0..AGREEMENT_COUNT as i64 {
        let t = i * (AGREEMENT_MIN_MS / (AGREEMENT_COUNT as i64 - 1) + 1);
        let a = if i % 2 == 0 { Working } else { Idle };
        l.observe(
            ev(Rung::WindowSampling, "pty", i as u64 + 1, t, Some(a), None),
            Timestamp(t),
        );
        let o = l.observe(
            ev(
                Rung::LifecycleHooks,
                "hooks",
                i as u64 + 1,
                t,
                Some(a),
                None,
            ),
            Timestamp(t),
        );
        if !o.health.is_empty() {
            promoted = Some((i, o.health[0].clone()));
        }
    }
    let (i, h) = promoted.expect("promoted");
    assert_eq!(
        i,
        AGREEMENT_COUNT as i64 - 1,
        "not before the count and duration are met"
    );
    assert_eq!((h.from, h.to), (Trust::Trial, Trust::Authoritative));
    assert_eq!(l.trust(Rung::LifecycleHooks), Trust::Authoritative);
}

#[test]
fn ladder_agreement_needs_minimum_duration() {
    let mut l = Ladder::new(AgentKind::Codex);
    for i in 0..(AGREEMENT_COUNT as u64 * 3) {
        l.observe(
            ev(
                Rung::WindowSampling,
                "pty",
                i + 1,
                i as i64,
                Some(Working),
                None,
            ),
            Timestamp(i as i64),
        );
        l.observe(
            ev(
                Rung::LifecycleHooks,
                "hooks",
                i + 1,
                i as i64,
                Some(Working),
                None,
            ),
            Timestamp(i as i64),
        );
    }
    assert_eq!(l.trust(Rung::LifecycleHooks), Trust::Trial);
}

#[test]
fn ladder_disagreement_resets_agreement_window() {
    let mut l = Ladder::new(AgentKind::Codex);
    l.observe(
        ev(Rung::WindowSampling, "pty", 1, 0, Some(Working), None),
        Timestamp(0),
    );
    l.observe(
        ev(Rung::LifecycleHooks, "hooks", 1, 0, Some(Working), None),
        Timestamp(0),
    );
    assert_eq!(l.rungs[&Rung::LifecycleHooks].agreements, 1);
    l.observe(
        ev(Rung::LifecycleHooks, "hooks", 2, 1, Some(Idle), None),
        Timestamp(1),
    );
    assert_eq!(l.rungs[&Rung::LifecycleHooks].agreements, 0);
}

#[test]
fn ladder_persistent_contradiction_degrades_hooks_with_health_event() {
    let mut l = Ladder::new(AgentKind::Claude);
    let mut seq = 0;
    let mut health = Vec::new();
    for turn in 0..CONTRADICTION_TURNS as i64 {
        l.note_turn();
        let t0 = turn * 100_000;
        seq += 1;
        // The hook says idle while self-report keeps saying working, past the window.
        for (rung, source, s, t, a) in [
            (Rung::SelfReport, "sr", seq, t0, Working),
            (Rung::LifecycleHooks, "hooks", seq, t0, Idle),
            (
                Rung::SelfReport,
                "sr",
                seq + 1000,
                t0 + CONTRADICTION_WINDOW_MS,
                Working,
            ),
        ] {
            health.extend(
                l.observe(ev(rung, source, s, t, Some(a), None), Timestamp(t))
                    .health,
            );
        }
    }
    assert_eq!(health.len(), 1);
    assert_eq!(health[0].rung, Rung::LifecycleHooks);
    assert_eq!(health[0].to, Trust::IdentityOnly);
    assert_eq!(l.trust(Rung::LifecycleHooks), Trust::IdentityOnly);
    assert_eq!(l.health.len(), 1, "kept for explain");
}

#[test]
fn ladder_contradiction_within_one_turn_does_not_degrade() {
    let mut l = Ladder::new(AgentKind::Claude);
    l.note_turn();
    for i in 0..10 {
        let t = i * CONTRADICTION_WINDOW_MS;
        l.observe(
            ev(Rung::SelfReport, "sr", i as u64 + 1, t, Some(Working), None),
            Timestamp(t),
        );
        l.observe(
            ev(
                Rung::LifecycleHooks,
                "hooks",
                i as u64 + 1,
                t,
                Some(Idle),
                None,
            ),
            Timestamp(t),
        );
    }
    assert_eq!(l.trust(Rung::LifecycleHooks), Trust::Authoritative);
}

#[test]
fn ladder_documented_no_hook_paths_are_not_contradictions() {
    // Esc or deny: hooks last said working, self-report says idle. Many turns, long time.
    let mut l = Ladder::new(AgentKind::Claude);
    for turn in 0..10i64 {
        l.note_turn();
        let t = turn * 100_000;
        l.observe(
            ev(
                Rung::LifecycleHooks,
                "hooks",
                turn as u64 + 1,
                t,
                Some(Working),
                None,
            ),
            Timestamp(t),
        );
        l.observe(
            ev(
                Rung::SelfReport,
                "sr",
                turn as u64 + 1,
                t + 1,
                Some(Idle),
                None,
            ),
            Timestamp(t + 1),
        );
        l.observe(
            ev(
                Rung::SelfReport,
                "sr",
                turn as u64 + 500,
                t + 2 * CONTRADICTION_WINDOW_MS,
                Some(Idle),
                None,
            ),
            Timestamp(t + 2 * CONTRADICTION_WINDOW_MS),
        );
    }
    assert_eq!(l.trust(Rung::LifecycleHooks), Trust::Authoritative);
    assert!(l.health.is_empty());
}

#[test]
fn ladder_handover_resets_trust_and_evidence() {
    let mut l = Ladder::new(AgentKind::Codex);
    l.rungs.get_mut(&Rung::LifecycleHooks).unwrap().trust = Trust::Authoritative;
    l.observe(
        ev(Rung::LifecycleHooks, "hooks", 5, 0, Some(Working), None),
        Timestamp(0),
    );
    l.handover(AgentKind::Codex);
    assert_eq!(
        l.trust(Rung::LifecycleHooks),
        Trust::Trial,
        "successor inherits no authority"
    );
    assert!(l.rungs.values().all(|r| r.last.is_none()));
    assert!(
        l.observe(
            ev(Rung::LifecycleHooks, "hooks", 1, 1, Some(Working), None),
            Timestamp(1)
        )
        .accepted
    );
}

#[test]
fn ladder_subagent_stop_carries_no_activity_claim() {
    // Adapters map SubagentStart/SubagentStop to IdentityOnly.
    assert!(claim_of(&SignalKind::IdentityOnly).is_none());
    assert!(claim_of(&SignalKind::TurnStopped { summary: None }).is_some());
}

#[test]
fn ladder_chrome_outranks_hook_for_needs_input_only() {
    let mut l = Ladder::new(AgentKind::Claude);
    l.observe(
        ev(Rung::LifecycleHooks, "hooks", 1, 0, Some(Working), Some(0)),
        Timestamp(0),
    );
    l.observe(
        ev(Rung::NeedsInputChrome, "screen", 1, 5, None, Some(1)),
        Timestamp(5),
    );
    let v = l.decide(Timestamp(10));
    assert_eq!(v.needs_input.count, 1);
    assert_eq!(v.needs_input_by.unwrap().rung, Rung::NeedsInputChrome);
    assert_eq!(v.activity, Working, "chrome never decides activity");
}

#[test]
fn ladder_inventory_matches_contract_7() {
    let t = |a, r| Ladder::new(a).trust(r);
    use AgentKind::*;
    assert_eq!(t(Claude, Rung::SelfReport), Trust::Authoritative);
    assert_eq!(t(Claude, Rung::LifecycleHooks), Trust::Authoritative);
    assert_eq!(t(Codex, Rung::LifecycleHooks), Trust::Trial);
    assert_eq!(t(Codex, Rung::SelfReport), Trust::Trial);
    assert_eq!(t(Gemini, Rung::LifecycleHooks), Trust::Trial);
    assert_eq!(t(Cursor, Rung::LifecycleHooks), Trust::Trial);
    assert_eq!(t(Qwen, Rung::LifecycleHooks), Trust::Trial);
    assert_eq!(t(Qwen, Rung::SelfReport), Trust::Absent);
    assert_eq!(t(OpenCode, Rung::LifecycleHooks), Trust::Trial);
    assert_eq!(t(OpenCode, Rung::SelfReport), Trust::Absent);
    assert_eq!(t(Copilot, Rung::LifecycleHooks), Trust::Trial);
    assert_eq!(t(Copilot, Rung::SelfReport), Trust::Absent);
    // Droid's hooks stay on trial: its interactive events are documented, not recorded.
    assert_eq!(t(Droid, Rung::LifecycleHooks), Trust::Trial);
    assert_eq!(t(Droid, Rung::SelfReport), Trust::Absent);
    // Kilo runs OpenCode's plugin: its hooks on trial until measured.
    assert_eq!(t(Kilo, Rung::LifecycleHooks), Trust::Trial);
    assert_eq!(t(Kilo, Rung::SelfReport), Trust::Absent);
    // oh-my-pi runs pi's extension, Continue's hooks never fire yet: both on trial.
    assert_eq!(t(Omp, Rung::LifecycleHooks), Trust::Trial);
    assert_eq!(t(Continue, Rung::LifecycleHooks), Trust::Trial);
    // Grok has no hooks: its screen only.
    assert_eq!(t(Grok, Rung::LifecycleHooks), Trust::Absent);
    assert_eq!(t(Grok, Rung::SelfReport), Trust::Absent);
    for a in [
        Claude, Codex, Gemini, Cursor, Qwen, OpenCode, Copilot, Droid, Kilo, Omp, Continue, Grok,
    ] {
        assert_eq!(t(a, Rung::NeedsInputChrome), Trust::Authoritative);
        assert_eq!(t(a, Rung::WindowSampling), Trust::Authoritative);
    }
    assert_eq!(t(Shell, Rung::LifecycleHooks), Trust::Absent);
    assert_eq!(t(Shell, Rung::WindowSampling), Trust::Authoritative);
}

fn blocked_pane() -> Pane {
    let mut p = Pane::new(
        PaneId(1),
        "/w",
        "main",
        "p1",
        AgentKind::Claude,
        Timestamp(0),
    );
    p.lifecycle = Lifecycle::Blocked;
    p
}

#[test]
fn ladder_self_report_idle_after_gate_corrects_to_dismissed() {
    // Esc on a permission dialog: no hook; self-report waiting → idle.
    let mut l = Ladder::new(AgentKind::Claude);
    l.observe(
        ev(Rung::LifecycleHooks, "hooks", 1, 0, Some(Idle), Some(1)),
        Timestamp(0),
    );
    l.observe(
        ev(Rung::SelfReport, "sr", 1, 10, Some(Idle), Some(1)),
        Timestamp(10),
    );
    assert_eq!(
        l.correction(&blocked_pane(), Timestamp(20)),
        None,
        "still waiting"
    );
    l.observe(
        ev(Rung::SelfReport, "sr", 2, 1000, Some(Idle), Some(0)),
        Timestamp(1000),
    );
    let (sig, due) = l.correction(&blocked_pane(), Timestamp(1000)).unwrap();
    assert_eq!(sig, SignalKind::GateDismissed);
    assert_eq!(due, Timestamp(1000 + CORRECTION_GRACE_MS));
}

#[test]
fn ladder_self_report_idle_after_an_interrupt_key_corrects_at_once() {
    // Esc typed through Attend at 1000 while the pane works; the self-report goes idle.
    let mut p = blocked_pane();
    p.lifecycle = Lifecycle::Working;
    let idle_at = |l: &mut Ladder, at: i64, seq: u64| {
        l.observe(
            ev(Rung::SelfReport, "sr", seq, at, Some(Idle), Some(0)),
            Timestamp(at),
        );
    };
    let mut l = Ladder::new(AgentKind::Claude);
    l.note_interrupt(Timestamp(1000));
    idle_at(&mut l, 1150, 1);
    let (sig, due) = l.correction(&p, Timestamp(1150)).unwrap();
    assert_eq!((sig, due), (SignalKind::GateDismissed, Timestamp(1150)));
    // Idle long after the key, or before it: the grace as ever.
    let mut l = Ladder::new(AgentKind::Claude);
    l.note_interrupt(Timestamp(1000));
    idle_at(&mut l, 1000 + INTERRUPT_WINDOW_MS + 1, 1);
    let (_, due) = l.correction(&p, Timestamp(5000)).unwrap();
    assert_eq!(due.0, 1000 + INTERRUPT_WINDOW_MS + 1 + CORRECTION_GRACE_MS);
    let mut l = Ladder::new(AgentKind::Claude);
    idle_at(&mut l, 900, 1);
    l.note_interrupt(Timestamp(1000));
    let (_, due) = l.correction(&p, Timestamp(1000)).unwrap();
    assert_eq!(due.0, 900 + CORRECTION_GRACE_MS);
    // A handover forgets the key.
    let mut l = Ladder::new(AgentKind::Claude);
    l.note_interrupt(Timestamp(1000));
    l.handover(AgentKind::Claude);
    idle_at(&mut l, 1100, 1);
    let (_, due) = l.correction(&p, Timestamp(1100)).unwrap();
    assert_eq!(due.0, 1100 + CORRECTION_GRACE_MS);
}

#[test]
fn ladder_newer_hook_cancels_correction() {
    let mut l = Ladder::new(AgentKind::Claude);
    let mut p = blocked_pane();
    p.lifecycle = Lifecycle::Working;
    l.observe(
        ev(Rung::SelfReport, "sr", 1, 100, Some(Idle), Some(0)),
        Timestamp(100),
    );
    assert!(l.correction(&p, Timestamp(100)).is_some());
    // The Stop hook arrives within the grace period.
    l.observe(
        ev(Rung::LifecycleHooks, "hooks", 1, 150, Some(Idle), Some(0)),
        Timestamp(150),
    );
    assert!(l.correction(&p, Timestamp(150)).is_none());
}

#[test]
fn ladder_only_authoritative_self_report_corrects() {
    let mut l = Ladder::new(AgentKind::Codex); // self-report on trial
    let mut p = blocked_pane();
    p.agent = AgentKind::Codex;
    l.observe(
        ev(Rung::SelfReport, "osc7501", 1, 100, Some(Idle), Some(0)),
        Timestamp(100),
    );
    assert!(l.correction(&p, Timestamp(100)).is_none());
}

#[test]
fn ladder_withdrawn_self_report_falls_down_the_ladder() {
    // A self-report file deleted or stale: the next rung decides, silently.
    let mut l = Ladder::new(AgentKind::Claude);
    l.observe(
        ev(Rung::LifecycleHooks, "hooks", 1, 0, Some(Working), None),
        Timestamp(0),
    );
    l.observe(
        ev(Rung::SelfReport, "sr", 5, 10, Some(Idle), Some(0)),
        Timestamp(10),
    );
    assert_eq!(l.decide(Timestamp(20)).activity, Idle);
    assert!(l.withdraw(Rung::SelfReport));
    assert!(!l.withdraw(Rung::SelfReport), "nothing left to drop");
    let v = l.decide(Timestamp(20));
    assert_eq!(v.activity, Working);
    assert_eq!(v.activity_by.unwrap().rung, Rung::LifecycleHooks);
    assert_eq!(l.correction(&blocked_pane(), Timestamp(1000)), None);
    // Older evidence of the withdrawn source stays rejected.
    assert!(
        !l.observe(
            ev(Rung::SelfReport, "sr", 4, 30, Some(Idle), Some(0)),
            Timestamp(30)
        )
        .accepted
    );
}

#[test]
fn ladder_titles_are_low_trust_never_deciding_never_promoted() {
    let mut l = Ladder::new(AgentKind::Claude);
    assert_eq!(l.trust(Rung::Terminal), Trust::Trial);
    assert_eq!(
        Ladder::new(AgentKind::Shell).trust(Rung::Terminal),
        Trust::Absent
    );
    // Claude's idle glyph while the permission dialog waits: a confident wrong answer.
    let idle = title_claim(AgentKind::Claude, "✳ Claude Code").unwrap();
    assert_eq!(idle.activity, Some(Idle));
    for i in 0..(AGREEMENT_COUNT as i64 + 5) {
        let at = i * AGREEMENT_MIN_MS;
        l.observe(
            ev(
                Rung::WindowSampling,
                "pty",
                i as u64 + 1,
                at,
                Some(Idle),
                None,
            ),
            Timestamp(at),
        );
        l.observe(
            Evidence {
                rung: Rung::Terminal,
                source_id: "terminal.title".into(),
                seq: i as u64 + 1,
                observed_at: Timestamp(at + 1),
                claim: idle.clone(),
                note: "title".into(),
            },
            Timestamp(at + 1),
        );
    }
    assert_eq!(
        l.trust(Rung::Terminal),
        Trust::Trial,
        "agreement never promotes titles"
    );
    assert!(l.health.is_empty());
    let mut only_title = Ladder::new(AgentKind::Claude);
    only_title.observe(
        Evidence {
            rung: Rung::Terminal,
            source_id: "terminal.title".into(),
            seq: 1,
            observed_at: Timestamp(0),
            claim: idle,
            note: "title".into(),
        },
        Timestamp(0),
    );
    assert_eq!(only_title.decide(Timestamp(1)).activity, Unknown);
}

#[test]
fn ladder_title_claims_follow_each_agents_conventions() {
    use AgentKind::*;
    let act = |a, t: &str| title_claim(a, t).and_then(|c| c.activity);
    assert_eq!(act(Claude, "⠂ Claude Code"), Some(Working));
    assert_eq!(act(Claude, "✳ Claude Code"), Some(Idle));
    assert_eq!(act(Codex, "⠋ fix bug | proj"), Some(Working));
    let codex_prompt = title_claim(Codex, "[ ! ] Action Required | proj").unwrap();
    assert_eq!(codex_prompt.needs_input.unwrap().count, 1);
    assert_eq!(act(Gemini, "✦  Working… (proj)"), Some(Working));
    assert_eq!(act(Gemini, "◇  Ready (proj)"), Some(Idle));
    assert_eq!(
        title_claim(Gemini, "✋  Action Required (proj)")
            .unwrap()
            .needs_input
            .unwrap()
            .reason
            .as_deref(),
        Some("permission prompt")
    );
    // Qwen Code 0.24.4 (tests/real_agents/real_agents.rs saw `✳︎ Qwen - proj` at its dialog).
    assert_eq!(act(Qwen, "◐\u{fe0e} Qwen - proj"), Some(Working));
    assert_eq!(act(Qwen, "Qwen - proj"), Some(Idle));
    let qwen_prompt = title_claim(Qwen, "✳\u{fe0e} Qwen - proj").unwrap();
    assert_eq!(qwen_prompt.needs_input.unwrap().count, 1);
    assert_eq!(title_claim(Qwen, "vim README"), None);
    // OpenCode 1.18.33 titles its window `OpenCode`, then `OC | <session title>`, the
    // same while it works, waits or asks: no claim.
    for title in ["OpenCode", "OC | Scripted side answer"] {
        assert_eq!(title_claim(OpenCode, title), None);
    }
    // GitHub Copilot CLI 1.0.102 titles its window with the first prompt, no state.
    assert_eq!(title_claim(Copilot, "say hello - GitHub Copilot"), None);
    assert_eq!(title_claim(Claude, ""), None);
    assert_eq!(title_claim(Shell, "⠋ spinner"), None);
    assert_eq!(title_claim(Claude, "vim README"), None);
}

#[test]
fn ladder_codex_osc_7501_states_are_self_report_claims() {
    let w = codex_state_claim("working", None).unwrap();
    assert_eq!(w.activity, Some(Working));
    let idle = codex_state_claim("idle", Some("done")).unwrap();
    assert_eq!(idle.activity, Some(Idle));
    assert_eq!(idle.needs_input.unwrap().count, 0);
    let b = codex_state_claim("blocked", Some("permission")).unwrap();
    assert_eq!(
        b.needs_input,
        Some(NeedsInput {
            count: 1,
            reason: Some("permission prompt".into())
        })
    );
    assert_eq!(
        codex_state_claim("blocked", None)
            .unwrap()
            .needs_input
            .unwrap()
            .reason
            .as_deref(),
        Some("input needed")
    );
    assert_eq!(codex_state_claim("sleepy", None), None);
    // On trial: recorded, not deciding.
    let mut l = Ladder::new(AgentKind::Codex);
    l.observe(
        Evidence {
            rung: Rung::SelfReport,
            source_id: "codex.osc7501".into(),
            seq: 1,
            observed_at: Timestamp(0),
            claim: w,
            note: String::new(),
        },
        Timestamp(0),
    );
    assert_eq!(l.decide(Timestamp(1)).activity, Unknown);
}

#[test]
fn ladder_subagent_stop_after_the_turn_never_revives_the_pane() {
    // Claude's SubagentStop can fire after Stop (docs/adapters.md): through the real
    // adapter it claims nothing on the ladder and leaves the lifecycle alone.
    use attend::adapters::hooks::map_hook;
    use attend::engine::{NewPane, World};
    let mut w = World::new();
    let (p, _) = w.add_pane(
        NewPane {
            agent: AgentKind::Claude,
            ..Default::default()
        },
        Timestamp(0),
    );
    let mut l = Ladder::new(AgentKind::Claude);
    let mut seq = 0;
    let mut feed = |w: &mut World, l: &mut Ladder, payload: &str, at: i64| {
        let m = map_hook(AgentKind::Claude, None, payload, Timestamp(at)).unwrap();
        w.apply_signal(p, &m.signal).unwrap();
        if let Some((claim, note)) = claim_of(&m.signal.kind) {
            seq += 1;
            l.observe(
                Evidence {
                    rung: Rung::LifecycleHooks,
                    source_id: "claude.hooks".into(),
                    seq,
                    observed_at: Timestamp(at),
                    claim,
                    note: note.into(),
                },
                Timestamp(at),
            );
        }
    };
    feed(
        &mut w,
        &mut l,
        r#"{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"go"}"#,
        1,
    );
    feed(
        &mut w,
        &mut l,
        r#"{"session_id":"s","hook_event_name":"Stop","last_assistant_message":"done"}"#,
        2,
    );
    feed(
        &mut w,
        &mut l,
        r#"{"session_id":"s","hook_event_name":"SubagentStop","agent_id":"a","agent_type":"x","last_assistant_message":"late"}"#,
        3,
    );
    assert_eq!(w.pane(p).unwrap().lifecycle, Lifecycle::Done);
    let v = l.decide(Timestamp(4));
    assert_eq!(v.activity, Idle);
    assert_eq!(v.activity_by.unwrap().note, "turn stopped");
}
