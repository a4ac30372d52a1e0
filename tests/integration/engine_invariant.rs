//! The per-pane machine's invariant (`docs/lifecycle-attention.md#one-verdict`), checked
//! after every step of random input sequences (proptest): hooks, the self-report, the
//! chrome's readings, sampling, terminal signals, the user's acts, timers, exits.
//!
//! After each step of a running pane:
//! (a) the verdict's needs-input > 0 ⇒ `blocked` with an open decision and its required
//!     attention item (except while an answer settles: `ANSWER_SETTLE_MS`);
//! (b) `blocked` ⇒ the taxonomy's needs-input ≥ 1;
//! (c) the display value is `needs-input` exactly when needs-input > 0;
//! (d) required items exist only bound to the open decision, and the decision's kind is
//!     the level of its item (permission ⇒ `permission_required`, question ⇒
//!     `input_required`);
//! (e) no ordinary item (unread, warning, error) goes without a user act;
//! (f) spec 024: a reviewed done/failed pane stays attention none through session end
//!     and exit;
//! (g) one step opens at most one decision, and one dialog never opens two;
//! (h) one step never opens and dismisses the same decision (a self-report read before
//!     the dialog, saying idle, is no word on it).
//!
//! Also: every recorded dialog screen under `tests/fixtures/screens/` is read by the
//! agent's manifest and replayed through the machine: `blocked` with one decision of the
//! kind the dialog stands for, at every recorded size.

use attend::adapters::dialog::read_options;
use attend::adapters::manifest::{evaluate, parse, shipped, Screen};
use attend::adapters::permission::{choices, kind_of};
use attend::engine::ladder::{Activity, Claim, Evidence, NeedsInput};
use attend::engine::machine::Input;
use attend::engine::{NewPane, ShownDialog, World, ANSWER_SETTLE_MS};
use attend::model::*;
use proptest::prelude::*;
use std::path::Path;

/// One input of a generated sequence.
#[derive(Debug, Clone)]
enum Step {
    Hook(u8),
    Term(u8),
    SelfReport(u8),
    Chrome(u8),
    Sampling(bool),
    Act(u8),
    Due,
    Interrupt,
    Exit(bool),
    SessionEnded,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0u8..9).prop_map(Step::Hook),
        (0u8..3).prop_map(Step::Term),
        (0u8..4).prop_map(Step::SelfReport),
        (0u8..4).prop_map(Step::Chrome),
        any::<bool>().prop_map(Step::Sampling),
        (0u8..5).prop_map(Step::Act),
        Just(Step::Due),
        Just(Step::Interrupt),
        any::<bool>().prop_map(Step::Exit),
        Just(Step::SessionEnded),
    ]
}

fn dialog(n: u8) -> Option<ShownDialog> {
    let (rule, kind, prompt, options): (&str, DecisionKind, &str, &[&str]) = match n {
        1 => (
            "permission-dialog",
            DecisionKind::Permission,
            "Do you want to proceed?",
            &["Yes", "Yes, and always allow", "No"],
        ),
        2 => (
            "folder-trust",
            DecisionKind::Question,
            "Do you trust the files in this folder?",
            &["No, exit", "Yes, I trust this folder"],
        ),
        3 => (
            "auto-mode-check-unavailable",
            DecisionKind::Question,
            "Auto mode can't check actions in this session",
            &[],
        ),
        _ => return None,
    };
    Some(ShownDialog {
        rule: rule.into(),
        reason: if kind == DecisionKind::Permission {
            "permission prompt".into()
        } else {
            rule.into()
        },
        kind,
        prompt: prompt.into(),
        options: options.iter().map(|s| s.to_string()).collect(),
        choices: vec!["allow".into(), "deny".into()],
    })
}

/// The input of `s` at `at` (`seq` numbers the self-report's writes).
fn input(s: &Step, at: Timestamp, seq: &mut u64) -> Input {
    let hook = |name: &str, kind: SignalKind| {
        Input::Signal(Signal::new(kind, Source::hook("claude", name), at))
    };
    match s {
        Step::Hook(n) => match n {
            0 => hook("SessionStart", SignalKind::SessionStarted { source: None }),
            1 => hook("UserPromptSubmit", SignalKind::TurnStarted),
            2 => hook(
                "PreToolUse",
                SignalKind::ToolStarted {
                    tool: "Bash".into(),
                    tool_use_id: Some("t1".into()),
                },
            ),
            3 => hook(
                "PermissionRequest",
                SignalKind::PermissionRequested {
                    prompt: "Bash: ls".into(),
                    options: vec![],
                    answer_keys: vec![],
                    tool_use_id: Some("t1".into()),
                },
            ),
            4 => hook(
                "PostToolUse",
                SignalKind::ToolFinished {
                    tool: Some("Bash".into()),
                    tool_use_id: Some("t1".into()),
                },
            ),
            5 => hook(
                "Stop",
                SignalKind::TurnStopped {
                    summary: Some("done".into()),
                },
            ),
            6 => hook(
                "StopFailure",
                SignalKind::TurnFailed {
                    error: "overloaded".into(),
                    usage_limit: false,
                },
            ),
            7 => hook(
                "Notification",
                SignalKind::AgentNotification {
                    text: "Claude needs your permission".into(),
                    gate: GateRef::Names(DecisionKind::Permission),
                },
            ),
            _ => hook(
                "Notification",
                SignalKind::AgentNotification {
                    text: "Claude is waiting".into(),
                    gate: GateRef::None,
                },
            ),
        },
        Step::Term(n) => {
            let kind = match n {
                0 => SignalKind::Bell,
                1 => SignalKind::TerminalNotification {
                    text: "build done".into(),
                },
                _ => SignalKind::Output,
            };
            Input::Signal(Signal::new(kind, Source::terminal("test"), at))
        }
        Step::SelfReport(n) => {
            *seq += 1;
            let (activity, needs) = match n {
                0 => (Activity::Working, None),
                1 => (Activity::IdleAtPrompt, None),
                2 => (Activity::IdleAtPrompt, Some("permission prompt")),
                _ => (Activity::IdleAtPrompt, Some("dialog open")),
            };
            Input::Evidence(Evidence {
                rung: Rung::SelfReport,
                source_id: "claude.sessions/7.json".into(),
                seq: *seq,
                observed_at: at,
                claim: Claim {
                    activity: Some(activity),
                    needs_input: Some(NeedsInput {
                        count: u32::from(needs.is_some()),
                        reason: needs.map(String::from),
                    }),
                },
                note: format!("status {n}"),
            })
        }
        Step::Chrome(n) => Input::Chrome {
            shown: dialog(*n),
            closed: None,
            changed: true,
        },
        Step::Sampling(working) => {
            *seq += 1;
            Input::Evidence(Evidence {
                rung: Rung::WindowSampling,
                source_id: "pty.output".into(),
                seq: *seq,
                observed_at: at,
                claim: Claim {
                    activity: Some(if *working {
                        Activity::Working
                    } else {
                        Activity::IdleAtPrompt
                    }),
                    needs_input: None,
                },
                note: "sampling".into(),
            })
        }
        Step::Act(n) => Input::Action(match n {
            0 => Action::MarkSeen,
            1 => Action::Focus,
            2 => Action::Unfocus,
            3 => Action::Answer {
                choice: "allow".into(),
            },
            _ => Action::Answer {
                choice: "deny".into(),
            },
        }),
        Step::Due => Input::Due,
        Step::Interrupt => Input::Interrupt,
        Step::Exit(ok) => Input::Signal(Signal::new(
            SignalKind::ProcessExited {
                code: Some(if *ok { 0 } else { 1 }),
                signal: None,
            },
            Source::process("exit"),
            at,
        )),
        Step::SessionEnded => hook(
            "SessionEnd",
            SignalKind::SessionEnded {
                reason: Some("prompt_input_exit".into()),
            },
        ),
    }
}

/// True for the inputs that are the user's own acts (they may clear ordinary items).
fn user_act(s: &Step) -> bool {
    matches!(s, Step::Act(_))
}

fn ordinary(p: &Pane) -> Vec<Attention> {
    let mut v: Vec<Attention> = p
        .items
        .iter()
        .map(|i| i.level)
        .filter(|l| !l.is_required())
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Runs `steps` (each with the milliseconds since the last) and checks the invariant
/// after each; the first broken rule, with the steps so far.
fn run(steps: &[(Step, u16)]) -> Result<(), String> {
    let mut w = World::new();
    let spec = NewPane {
        agent: AgentKind::Claude,
        owned: true,
        ..Default::default()
    };
    let mut now = Timestamp(1_000_000);
    let (p, _) = w.add_pane(spec, now);
    let mut seq = 0;
    let mut answered_at: Option<Timestamp> = None;
    let mut exited = false;
    for (i, (s, dt)) in steps.iter().enumerate() {
        if exited {
            break;
        }
        now = Timestamp(now.0 + i64::from(*dt));
        let before = w.pane(p).unwrap().clone();
        let fail = |rule: &str, w: &World| {
            Err(format!(
                "rule {rule} broken at step {i} ({s:?}) of {:?}\npane: {:#?}\nverdict: {:?}",
                &steps[..=i],
                w.pane(p).unwrap(),
                w.machine(p).unwrap().verdict(now)
            ))
        };
        let events = match w.step(p, input(s, now, &mut seq), now) {
            Ok((events, _)) => events,
            // An answer with no open decision is refused and changes nothing.
            Err(attend::engine::EngineError::NoDecision(_)) => continue,
            Err(e) => return Err(format!("step {i}: {e:?}")),
        };
        if matches!(s, Step::Act(3) | Step::Act(4)) {
            answered_at = Some(now);
        }
        let m = w.machine(p).unwrap();
        let pane: &Pane = m;
        exited = !pane.live.is_running();
        let v = m.verdict(now);
        let (t, _) = m.taxonomy(true, now);
        let settling = answered_at.is_some_and(|a| now.millis_since(a) < ANSWER_SETTLE_MS);
        // (a)
        if !exited && v.needs_input.count > 0 && !settling {
            let Some(d) = &pane.pending_decision else {
                return fail("(a) needs-input ⇒ an open decision", &w);
            };
            if pane.lifecycle != Lifecycle::Blocked {
                return fail("(a) needs-input ⇒ blocked", &w);
            }
            let want = match d.kind {
                DecisionKind::Permission => Attention::PermissionRequired,
                DecisionKind::Question => Attention::InputRequired,
            };
            if !pane.items.iter().any(|i| i.level == want) {
                return fail("(a) needs-input ⇒ the required item", &w);
            }
        }
        // (b)
        if pane.lifecycle == Lifecycle::Blocked && t.needs_input.count == 0 {
            return fail("(b) blocked ⇒ needs-input ≥ 1", &w);
        }
        // (c)
        if (t.display == "needs-input") != (t.needs_input.count > 0) {
            return fail("(c) display needs-input ⇔ count > 0", &w);
        }
        // (d)
        for item in pane.items.iter().filter(|i| i.level.is_required()) {
            let Some(d) = &pane.pending_decision else {
                return fail("(d) a required item without a decision", &w);
            };
            if item.decision != Some(d.id) {
                return fail("(d) a required item bound to another decision", &w);
            }
        }
        // (e)
        if !user_act(s) {
            let after = ordinary(pane);
            if ordinary(&before).iter().any(|l| !after.contains(l)) {
                return fail("(e) an ordinary item cleared without a user act", &w);
            }
        }
        // (f)
        let ending = matches!(s, Step::SessionEnded | Step::Exit(_));
        if before.is_reviewed_terminal() && ending && pane.attention() != Attention::None {
            return fail("(f) a reviewed pane stays quiet through its end", &w);
        }
        // (g)
        let opened = events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::DecisionOpened { .. }))
            .count();
        if opened > 1 {
            return fail("(g) one step opens at most one decision", &w);
        }
        // (h) a decision is never opened and dismissed in one step: the word that
        // dismisses it must be newer than the word that opened it.
        let flapped = events.iter().any(|e| match &e.kind {
            EventKind::DecisionOpened { decision } => events.iter().any(|r| {
                matches!(&r.kind, EventKind::DecisionResolved { id, resolution }
                    if *id == decision.id && resolution.as_str() == "dismissed")
            }),
            _ => false,
        });
        if flapped {
            return fail("(h) one step never opens and dismisses a decision", &w);
        }
        let superseded = events.iter().any(|e| {
            matches!(&e.kind, EventKind::DecisionResolved { resolution, .. }
                if resolution.as_str() == "superseded")
        });
        let same_dialog = matches!(s, Step::SelfReport(_) | Step::Due | Step::Sampling(_));
        if superseded && same_dialog {
            return fail(
                "(g) a dialog's own evidence never supersedes its decision",
                &w,
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(crate::proptest_config(
        std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(512)
    ))]

    #[test]
    fn the_invariant_holds_after_every_step(
        steps in proptest::collection::vec((step(), 0u16..4_000), 1..40)
    ) {
        if let Err(e) = run(&steps) {
            return Err(TestCaseError::fail(e));
        }
    }
}

/// The sequence seen with Claude Code 2.1.332 followed in tmux: its self-report last read
/// `idle`, the chrome reads the permission dialog, then the self-report says `waiting`.
/// The decision stays open through every step (rules (a) and (h)).
#[test]
fn an_idle_self_report_older_than_the_dialog_keeps_the_decision_open() {
    let steps = [
        (Step::SelfReport(1), 0),
        (Step::Chrome(1), 4_000),
        (Step::SelfReport(2), 200),
        (Step::Due, 1_000),
    ];
    run(&steps).unwrap();
}

/// Every recorded dialog screen, read by its agent's manifest as the chrome reads it and
/// handed to a running pane's machine: `blocked` with one decision of the dialog's kind
/// and its required attention.
#[test]
fn every_recorded_dialog_screen_replays_through_the_machine() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/screens");
    let mut replayed = 0;
    for agent in AgentKind::ALL {
        let Some(text) = shipped(agent) else {
            continue;
        };
        let manifest = parse(text).unwrap();
        let mut stack = vec![root.join(agent.as_str())];
        while let Some(dir) = stack.pop() {
            for path in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = path.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if !name.ends_with(".txt") || name.starts_with("prose-") {
                    continue;
                }
                let screen = Screen::new(&std::fs::read_to_string(&path).unwrap(), "");
                let rule = evaluate(&manifest, &screen)
                    .matched
                    .unwrap_or_else(|| panic!("{}: no rule", path.display()));
                let region = screen.region(&rule.region);
                let options = read_options(&region)
                    .map(|o| o.labels())
                    .unwrap_or_default();
                let kind = kind_of(rule.kind, &region, &options);
                let named: Vec<String> = rule.answers.iter().map(|a| a.choice.clone()).collect();
                let shown = ShownDialog {
                    rule: rule.name.clone(),
                    reason: rule.reason.clone(),
                    kind,
                    prompt: rule.reason.clone(),
                    options,
                    choices: choices(kind, &named),
                };
                let mut w = World::new();
                let spec = NewPane {
                    agent,
                    owned: true,
                    ..Default::default()
                };
                let (p, _) = w.add_pane(spec, Timestamp(1));
                let chrome = Input::Chrome {
                    shown: Some(shown),
                    closed: None,
                    changed: true,
                };
                let (events, _) = w.step(p, chrome, Timestamp(2)).unwrap();
                let opened = events
                    .iter()
                    .filter(|e| matches!(e.kind, EventKind::DecisionOpened { .. }))
                    .count();
                let pane = w.pane(p).unwrap();
                let want = match kind {
                    DecisionKind::Permission => Attention::PermissionRequired,
                    DecisionKind::Question => Attention::InputRequired,
                };
                assert_eq!(opened, 1, "{}: {events:?}", path.display());
                assert_eq!(pane.lifecycle, Lifecycle::Blocked, "{}", path.display());
                assert_eq!(pane.attention(), want, "{}", path.display());
                // The same reading again (the next frame) opens nothing more.
                let again = Input::Chrome {
                    shown: w.machine(p).unwrap().shown().cloned(),
                    closed: None,
                    changed: false,
                };
                let (events, _) = w.step(p, again, Timestamp(3)).unwrap();
                assert!(
                    !events
                        .iter()
                        .any(|e| matches!(e.kind, EventKind::DecisionOpened { .. })),
                    "{}: {events:?}",
                    path.display()
                );
                replayed += 1;
            }
        }
    }
    println!("{replayed} recorded dialog screens replayed");
    assert!(replayed >= 25, "only {replayed} dialog screens");
}

/// A daemon restart restores a pane's decision, not its evidence: a decision the chrome
/// opened stays open through the restart's first steps (unfocus, re-adoption) until the
/// chrome reads the screen again; a screen without the dialog then ends it as usual.
#[test]
fn a_restored_decision_waits_for_its_rung_to_read_the_pane_again() {
    let mut w = World::new();
    let spec = NewPane {
        agent: AgentKind::Claude,
        owned: true,
        ..Default::default()
    };
    let (p, _) = w.add_pane(spec, Timestamp(1));
    let open = Input::Chrome {
        shown: dialog(1),
        closed: None,
        changed: true,
    };
    w.step(p, open, Timestamp(2)).unwrap();
    assert_eq!(w.pane(p).unwrap().lifecycle, Lifecycle::Blocked);

    // The restart: the stored pane, a machine with no evidence.
    let mut after = World::new();
    after.restore_pane(w.pane(p).unwrap().clone());
    for input in [Input::Action(Action::Unfocus), Input::Revived, Input::Due] {
        let (events, _) = after.step(p, input, Timestamp(10_000)).unwrap();
        assert!(
            !events
                .iter()
                .any(|e| matches!(e.kind, EventKind::DecisionResolved { .. })),
            "{events:?}"
        );
    }
    let pane = after.pane(p).unwrap();
    assert_eq!(pane.lifecycle, Lifecycle::Blocked);
    assert!(pane.pending_decision.is_some());

    // The chrome reads the screen again: the dialog is gone; once gone long enough
    // (`DIALOG_GONE_MS`), the decision is dismissed.
    let gone = Input::Chrome {
        shown: None,
        closed: None,
        changed: true,
    };
    after.step(p, gone, Timestamp(10_100)).unwrap();
    let later = Timestamp(10_100 + attend::engine::DIALOG_GONE_MS + 1);
    after.step(p, Input::Due, later).unwrap();
    let pane = after.pane(p).unwrap();
    assert!(pane.pending_decision.is_none(), "{pane:?}");
    assert_ne!(pane.lifecycle, Lifecycle::Blocked);
}

/// One dialog, one decision: evidence observed before the pane's last decision closed is
/// spent. The chrome's reading of a dialog on its way out (it dates from when the rule
/// first matched) opens nothing after the close; a new reading does.
#[test]
fn evidence_from_before_a_close_does_not_reopen_the_dialog() {
    let mut w = World::new();
    let spec = NewPane {
        agent: AgentKind::Claude,
        owned: true,
        ..Default::default()
    };
    let (p, _) = w.add_pane(spec, Timestamp(1));
    let read = |changed| Input::Chrome {
        shown: dialog(1),
        closed: None,
        changed,
    };
    w.step(p, read(true), Timestamp(400)).unwrap();
    assert!(w.pane(p).unwrap().pending_decision.is_some());
    let stop = Signal::new(
        SignalKind::TurnStopped { summary: None },
        Source::hook("claude", "Stop"),
        Timestamp(500),
    );
    w.apply_signal(p, &stop).unwrap();
    assert!(w.pane(p).unwrap().pending_decision.is_none());
    w.step(p, read(false), Timestamp(510)).unwrap();
    assert!(
        w.pane(p).unwrap().pending_decision.is_none(),
        "spent evidence"
    );
    w.step(p, read(true), Timestamp(520)).unwrap();
    assert!(
        w.pane(p).unwrap().pending_decision.is_some(),
        "a new reading"
    );
}
