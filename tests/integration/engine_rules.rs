//! One test per engine rule: the canonical examples and clearing rules, every row
//! of docs/lifecycle-attention.md's signal and exit tables, and every spec-024 scenario (FR-001…FR-005, user stories 1–3,
//! edge cases). Test names are the rule names; `docs/lifecycle-attention.md` links them.

use attend::engine::{NewPane, World};
use attend::model::*;

const T0: i64 = 1_800_000_000_000;

/// A world with one pane (`p1`) of `agent`, plus helpers to drive it.
struct Harness {
    w: World,
    p: PaneId,
    t: i64,
    log: Vec<Event>,
}

impl Harness {
    fn new(agent: AgentKind) -> Harness {
        let mut w = World::new();
        let (p, log) = w.add_pane(
            NewPane {
                workspace: "/src/demo".into(),
                agent,
                owned: true,
                ..Default::default()
            },
            Timestamp(T0),
        );
        Harness { w, p, t: T0, log }
    }
    fn claude() -> Harness {
        Harness::new(AgentKind::Claude)
    }
    fn shell() -> Harness {
        Harness::new(AgentKind::Shell)
    }
    fn tick(&mut self) -> Timestamp {
        self.t += 1000;
        Timestamp(self.t)
    }
    fn hook(&mut self, kind: SignalKind) -> Vec<Event> {
        let at = self.tick();
        self.sig(Signal::new(kind, Source::hook("claude", "test"), at))
    }
    fn term(&mut self, kind: SignalKind) -> Vec<Event> {
        let at = self.tick();
        self.sig(Signal::new(kind, Source::terminal("test"), at))
    }
    fn sig(&mut self, s: Signal) -> Vec<Event> {
        let ev = self.w.apply_signal(self.p, &s).unwrap();
        self.log.extend(ev.clone());
        ev
    }
    fn act(&mut self, a: Action) -> Vec<Event> {
        let at = self.tick();
        let (ev, _) = self.w.apply_action(self.p, &a, at).unwrap();
        self.log.extend(ev.clone());
        ev
    }
    fn pane(&self) -> &Pane {
        self.w.pane(self.p).unwrap()
    }
    fn state(&self) -> (Lifecycle, Attention) {
        (self.pane().lifecycle, self.pane().attention())
    }
    fn msg(&self) -> Option<&str> {
        self.pane().last_message.as_deref()
    }
    // Common sequences.
    fn turn(&mut self) {
        self.hook(SignalKind::TurnStarted);
    }
    fn stop(&mut self, summary: &str) -> Vec<Event> {
        self.hook(SignalKind::TurnStopped {
            summary: Some(summary.into()),
        })
    }
    fn permission(&mut self, prompt: &str) -> Vec<Event> {
        self.hook(SignalKind::PermissionRequested {
            prompt: prompt.into(),
            options: vec!["Yes".into(), "No".into()],
            answer_keys: vec![
                AnswerKey {
                    choice: "allow".into(),
                    keys: "1".into(),
                },
                AnswerKey {
                    choice: "deny".into(),
                    keys: "3".into(),
                },
            ],
            tool_use_id: Some("toolu_01".into()),
        })
    }
    fn question(&mut self, prompt: &str) -> Vec<Event> {
        self.hook(SignalKind::QuestionAsked {
            prompt: prompt.into(),
            options: vec![],
            answer_keys: vec![],
        })
    }
    fn fail(&mut self, error: &str) -> Vec<Event> {
        self.hook(SignalKind::TurnFailed {
            error: error.into(),
            usage_limit: false,
        })
    }
    fn session_end(&mut self) -> Vec<Event> {
        self.hook(SignalKind::SessionEnded {
            reason: Some("prompt_input_exit".into()),
        })
    }
    fn exit(&mut self, code: i32) -> Vec<Event> {
        let at = self.tick();
        self.sig(Signal::new(
            SignalKind::ProcessExited {
                code: Some(code),
                signal: None,
            },
            Source::process("exit"),
            at,
        ))
    }
    fn seen(&mut self) -> Vec<Event> {
        self.act(Action::MarkSeen)
    }
}

fn names(ev: &[Event]) -> Vec<String> {
    ev.iter().map(|e| e.kind.name()).collect()
}

fn has(ev: &[Event], name: &str) -> bool {
    names(ev).iter().any(|n| n == name)
}

use Attention as A;
use Lifecycle as L;

// ---------------------------------------------------------------------------------------
// Seed 000, "Canonical examples" (8 rows), each driven by the signal that produces it.

#[test]
fn canonical_agent_mid_turn_is_working_none() {
    let mut h = Harness::claude();
    h.turn();
    h.hook(SignalKind::ToolStarted {
        tool: "Bash".into(),
        tool_use_id: None,
    });
    assert_eq!(h.state(), (L::Working, A::None));
}

#[test]
fn canonical_agent_asks_question_is_blocked_input_required() {
    let mut h = Harness::claude();
    h.turn();
    h.question("Which file?");
    assert_eq!(h.state(), (L::Blocked, A::InputRequired));
}

#[test]
fn canonical_approval_dialog_open_is_blocked_permission_required() {
    let mut h = Harness::claude();
    h.turn();
    h.permission("Bash: npm test");
    assert_eq!(h.state(), (L::Blocked, A::PermissionRequired));
}

#[test]
fn canonical_turn_finished_not_seen_is_done_unread() {
    let mut h = Harness::claude();
    h.turn();
    h.stop("All done");
    assert_eq!(h.state(), (L::Done, A::Unread));
}

#[test]
fn canonical_turn_finished_reviewed_is_done_none() {
    let mut h = Harness::claude();
    h.turn();
    h.stop("All done");
    h.seen();
    assert_eq!(h.state(), (L::Done, A::None));
}

#[test]
fn canonical_tool_error_agent_retrying_is_working_warning() {
    let mut h = Harness::claude();
    h.turn();
    h.hook(SignalKind::ToolError {
        error: "exit status 1".into(),
    });
    assert_eq!(h.state(), (L::Working, A::Warning));
    assert_eq!(h.msg(), Some("exit status 1"));
}

#[test]
fn canonical_agent_crashed_is_failed_error() {
    let mut h = Harness::claude();
    h.turn();
    h.exit(139);
    assert_eq!(h.state(), (L::Failed, A::Error));
}

#[test]
fn canonical_plain_shell_new_output_is_idle_unread() {
    let mut h = Harness::shell();
    h.term(SignalKind::Output);
    assert_eq!(h.state(), (L::Idle, A::Unread));
}

// ---------------------------------------------------------------------------------------
// Seed 000, clearing rules.

#[test]
fn clearing_mark_seen_records_last_seen_keeps_lifecycle_clears_ordinary() {
    let mut h = Harness::claude();
    h.turn();
    h.stop("ok");
    let ev = h.seen();
    assert_eq!(h.pane().last_seen_at, Some(Timestamp(h.t)));
    assert_eq!(h.state(), (L::Done, A::None));
    assert_eq!(names(&ev), vec!["attention.cleared"]);
}

#[test]
fn clearing_focus_clears_ordinary_attention() {
    let mut h = Harness::claude();
    h.turn();
    h.stop("ok");
    h.act(Action::Focus);
    assert_eq!(h.state(), (L::Done, A::None));
}

#[test]
fn clearing_reply_clears_ordinary_attention() {
    let mut h = Harness::claude();
    h.turn();
    h.hook(SignalKind::ToolError { error: "e".into() });
    h.permission("Bash: ls");
    h.act(Action::Answer {
        choice: "allow".into(),
    });
    assert_eq!(h.pane().attention(), A::None);
    assert!(h.pane().pending_decision.is_none());
}

#[test]
fn clearing_workspace_visibility_is_not_interaction() {
    // Showing a workspace or tab is not an action the engine knows: the only inputs that
    // clear are MarkSeen, Focus, Answer, NotificationClicked and Attach. Unfocus/Detach
    // (what a surface sends when something else is shown) clears nothing.
    let mut h = Harness::claude();
    h.turn();
    h.stop("ok");
    h.act(Action::Unfocus);
    h.act(Action::Detach);
    assert_eq!(h.state(), (L::Done, A::Unread));
}

#[test]
fn clearing_decision_survives_mark_seen() {
    let mut h = Harness::claude();
    h.permission("Bash: rm -rf build");
    h.seen();
    assert_eq!(h.state(), (L::Blocked, A::PermissionRequired));
    assert!(h.pane().pending_decision.is_some());
}

#[test]
fn clearing_decision_survives_focus() {
    let mut h = Harness::claude();
    h.question("Which branch?");
    h.act(Action::Focus);
    assert_eq!(h.state(), (L::Blocked, A::InputRequired));
    assert!(h.pane().pending_decision.is_some());
}

#[test]
fn clearing_decision_survives_notification_click() {
    let mut h = Harness::claude();
    h.permission("Bash: make");
    h.act(Action::NotificationClicked);
    assert_eq!(h.state(), (L::Blocked, A::PermissionRequired));
    assert!(h.pane().last_seen_at.is_some());
}

#[test]
fn clearing_decision_survives_default_attach() {
    let mut h = Harness::claude();
    h.permission("Bash: make");
    h.act(Action::Attach);
    assert_eq!(h.state(), (L::Blocked, A::PermissionRequired));
    assert!(h.pane().pending_decision.is_some());
}

#[test]
fn clearing_answer_resolves_decision() {
    let mut h = Harness::claude();
    h.permission("Bash: make");
    let ev = h.act(Action::Answer {
        choice: "allow".into(),
    });
    assert!(h.pane().pending_decision.is_none());
    assert!(ev.iter().any(|e| matches!(&e.kind,
        EventKind::DecisionResolved { resolution: Resolution::Answered { choice }, .. } if choice == "allow")));
}

#[test]
fn clearing_answer_without_decision_is_no_decision_error() {
    let mut h = Harness::claude();
    let err =
        h.w.apply_action(h.p, &Action::Answer { choice: "1".into() }, Timestamp(T0))
            .unwrap_err();
    assert_eq!(err, attend::engine::EngineError::NoDecision(h.p));
}

#[test]
fn clearing_agent_transition_resolves_decision() {
    let mut h = Harness::claude();
    h.permission("Bash: make");
    let ev = h.stop("finished");
    assert!(h.pane().pending_decision.is_none());
    assert!(ev.iter().any(|e| matches!(
        &e.kind,
        EventKind::DecisionResolved {
            resolution: Resolution::AgentTransition,
            ..
        }
    )));
    assert_eq!(h.state(), (L::Done, A::Unread));
}

#[test]
fn clearing_new_signal_reraises_attention() {
    let mut h = Harness::claude();
    h.turn();
    h.stop("one");
    h.seen();
    h.turn();
    let ev = h.stop("two");
    assert!(has(&ev, "attention.created"));
    assert_eq!(h.state(), (L::Done, A::Unread));
}

#[test]
fn clearing_mark_seen_is_idempotent() {
    let mut h = Harness::claude();
    h.stop("x");
    h.seen();
    let before = h.pane().clone();
    let ev = h.seen();
    assert!(ev.is_empty());
    let mut after = h.pane().clone();
    after.last_seen_at = before.last_seen_at;
    assert_eq!(before, after);
}

#[test]
fn clearing_focused_pane_counts_ordinary_items_seen_at_once() {
    let mut h = Harness::claude();
    h.act(Action::Focus);
    let ev = h.stop("done while looking");
    assert_eq!(h.state(), (L::Done, A::None));
    assert!(!has(&ev, "attention.created"));
    assert_eq!(h.pane().last_seen_at, Some(Timestamp(h.t)));
}

#[test]
fn clearing_focused_pane_still_raises_required_items() {
    let mut h = Harness::claude();
    h.act(Action::Focus);
    let ev = h.permission("Bash: ls");
    assert_eq!(h.state(), (L::Blocked, A::PermissionRequired));
    assert!(has(&ev, "attention.created"));
}

#[test]
fn clearing_unfocused_pane_raises_again() {
    let mut h = Harness::claude();
    h.act(Action::Focus);
    h.act(Action::Unfocus);
    h.stop("x");
    assert_eq!(h.state(), (L::Done, A::Unread));
}

// ---------------------------------------------------------------------------------------
// docs/lifecycle-attention.md#signals, one test per row.

#[test]
fn contract2_session_started_unknown_to_idle() {
    let mut h = Harness::claude();
    let ev = h.hook(SignalKind::SessionStarted {
        source: Some("startup".into()),
    });
    assert_eq!(h.state(), (L::Idle, A::None));
    assert!(!has(&ev, "attention.created"));
}

#[test]
fn contract2_session_started_keeps_known_lifecycle() {
    let mut h = Harness::claude();
    h.turn();
    h.hook(SignalKind::SessionStarted {
        source: Some("startup".into()),
    });
    assert_eq!(h.pane().lifecycle, L::Working);
}

#[test]
fn contract2_session_started_compact_keeps_lifecycle() {
    // An automatic compaction in the middle of a turn: still working.
    let mut h = Harness::claude();
    h.turn();
    let compact = || SignalKind::SessionStarted {
        source: Some("compact".into()),
    };
    let ev = h.hook(compact());
    assert_eq!(h.state(), (L::Working, A::None));
    assert!(ev.is_empty(), "{:?}", names(&ev));
    // `/compact` typed at the prompt of a finished turn: done, its unread kept.
    h.stop("Answer.");
    let ev = h.hook(compact());
    assert_eq!(h.state(), (L::Done, A::Unread));
    assert_eq!(h.msg(), Some("Answer."));
    assert!(ev.is_empty(), "{:?}", names(&ev));
    // A fresh pane still learns it is at the prompt.
    let mut fresh = Harness::claude();
    fresh.hook(compact());
    assert_eq!(fresh.state(), (L::Idle, A::None));
    // `/clear` starts afresh: idle.
    h.hook(SignalKind::SessionStarted {
        source: Some("clear".into()),
    });
    assert_eq!(h.pane().lifecycle, L::Idle);
}

#[test]
fn contract2_warning_of_a_subagent_or_compaction_keeps_lifecycle() {
    let mut h = Harness::claude();
    h.turn();
    h.stop("Answer.");
    let ev = h.hook(SignalKind::Warning {
        text: "compaction failed: API server error".into(),
    });
    assert_eq!(h.state(), (L::Done, A::Warning));
    assert_eq!(h.msg(), Some("compaction failed: API server error"));
    assert!(!names(&ev).iter().any(|n| n.starts_with("agent.")));
    assert!(has(&ev, "attention.created"));
    h.turn();
    h.hook(SignalKind::Warning {
        text: "subagent Explore failed: overloaded".into(),
    });
    assert_eq!(h.state(), (L::Working, A::Warning));
}

/// A gate opened inside a subagent (`tool_use_id` = its scope).
fn subagent_gate(h: &mut Harness, agent: &str) {
    h.hook(SignalKind::PermissionRequested {
        prompt: "Bash: echo hi > out.txt".into(),
        options: vec![],
        answer_keys: vec![],
        tool_use_id: Some(subagent_scope(agent)),
    });
}

#[test]
fn subagent_gate_survives_the_main_agents_tools_and_stop() {
    let mut h = Harness::claude();
    h.turn();
    subagent_gate(&mut h, "a1");
    let id = h.pane().pending_decision.as_ref().unwrap().id;
    // The main agent's own tool finishes meanwhile: not the gated call.
    h.hook(SignalKind::ToolFinished {
        tool: Some("Bash".into()),
        tool_use_id: Some("toolu_04".into()),
    });
    assert_eq!(h.state(), (L::Blocked, A::PermissionRequired));
    // The main agent ends its turn: the subagent still waits on the human.
    let ev = h.stop("(1 background task still running) Parent done.");
    assert_eq!(h.state(), (L::Blocked, A::PermissionRequired));
    assert_eq!(h.pane().pending_decision.as_ref().map(|d| d.id), Some(id));
    assert_eq!(
        h.msg(),
        Some("(1 background task still running) Parent done.")
    );
    assert!(!has(&ev, "decision.resolved"), "{:?}", names(&ev));
    assert!(h.pane().items.iter().any(|i| i.level == A::Unread));
    // Another subagent's tool does not approve it either; its own does.
    h.hook(SignalKind::ToolFinished {
        tool: Some("Bash".into()),
        tool_use_id: Some(subagent_scope("a2")),
    });
    assert_eq!(h.pane().lifecycle, L::Blocked);
    let ev = h.hook(SignalKind::ToolFinished {
        tool: Some("Bash".into()),
        tool_use_id: Some(subagent_scope("a1")),
    });
    assert!(h.pane().pending_decision.is_none());
    assert_eq!(h.state(), (L::Working, A::Unread));
    assert!(ev.iter().any(|e| e.kind
        == EventKind::DecisionResolved {
            id,
            resolution: Resolution::Approved,
        }));
}

#[test]
fn main_agents_gate_is_not_approved_by_a_subagents_tool() {
    let mut h = Harness::claude();
    h.turn();
    h.hook(SignalKind::PermissionRequested {
        prompt: "Bash: rm -r build".into(),
        options: vec![],
        answer_keys: vec![],
        tool_use_id: None,
    });
    h.hook(SignalKind::ToolFinished {
        tool: Some("Bash".into()),
        tool_use_id: Some(subagent_scope("a1")),
    });
    assert_eq!(h.state(), (L::Blocked, A::PermissionRequired));
    h.hook(SignalKind::ToolFinished {
        tool: Some("Bash".into()),
        tool_use_id: Some("toolu_07".into()),
    });
    assert!(h.pane().pending_decision.is_none());
    assert_eq!(h.pane().lifecycle, L::Working);
}

#[test]
fn contract2_turn_started_working_resolves_question_adds_nothing() {
    let mut h = Harness::claude();
    h.question("Which file?");
    let ev = h.hook(SignalKind::TurnStarted);
    assert_eq!(h.state(), (L::Working, A::None));
    assert!(h.pane().pending_decision.is_none());
    assert!(!has(&ev, "attention.created"));
}

#[test]
fn contract2_turn_started_keeps_permission_gate() {
    let mut h = Harness::claude();
    h.permission("Bash: ls");
    h.hook(SignalKind::TurnStarted);
    assert_eq!(h.state(), (L::Blocked, A::PermissionRequired));
}

#[test]
fn contract2_tool_started_working() {
    let mut h = Harness::claude();
    h.hook(SignalKind::SessionStarted { source: None });
    h.hook(SignalKind::ToolStarted {
        tool: "Read".into(),
        tool_use_id: None,
    });
    assert_eq!(h.state(), (L::Working, A::None));
}

#[test]
fn contract2_tool_finished_matching_id_approves_gate() {
    let mut h = Harness::claude();
    h.permission("Bash: ls");
    let ev = h.hook(SignalKind::ToolFinished {
        tool: Some("Bash".into()),
        tool_use_id: Some("toolu_01".into()),
    });
    assert!(h.pane().pending_decision.is_none());
    assert_eq!(h.state(), (L::Working, A::None));
    assert!(ev.iter().any(|e| matches!(
        e.kind,
        EventKind::DecisionResolved {
            resolution: Resolution::Approved,
            ..
        }
    )));
}

#[test]
fn contract2_tool_finished_other_id_keeps_gate() {
    let mut h = Harness::claude();
    h.permission("Bash: ls");
    h.hook(SignalKind::ToolFinished {
        tool: Some("Read".into()),
        tool_use_id: Some("toolu_99".into()),
    });
    assert!(h.pane().pending_decision.is_some());
    assert_eq!(h.state(), (L::Blocked, A::PermissionRequired));
}

#[test]
fn contract2_tool_error_working_warning_message() {
    let mut h = Harness::claude();
    h.hook(SignalKind::ToolError {
        error: "no such file".into(),
    });
    assert_eq!(h.state(), (L::Working, A::Warning));
    assert_eq!(h.msg(), Some("no such file"));
}

/// A warning (an API error the agent retries, a tool denied by its permission rules) adds
/// warning with its text and leaves the lifecycle alone: it stays `working` mid-turn and a
/// pane that is not working is not made so (the screen line that may carry it never
/// decides the lifecycle).
#[test]
fn contract2_warning_adds_warning_keeps_lifecycle() {
    let mut h = Harness::claude();
    h.turn();
    let ev = h.hook(SignalKind::Warning {
        text: "API error · retrying in 2s · attempt 1/10".into(),
    });
    assert_eq!(h.state(), (L::Working, A::Warning));
    assert_eq!(h.msg(), Some("API error · retrying in 2s · attempt 1/10"));
    assert!(has(&ev, "attention.created") && !has(&ev, "agent.working"));
    let mut idle = Harness::claude();
    idle.hook(SignalKind::SessionStarted { source: None });
    idle.hook(SignalKind::Warning { text: "w".into() });
    assert_eq!(idle.state(), (L::Idle, A::Warning));
}

/// The warning of a recovered retry outlives the turn: the turn's end is done, the pane
/// still shows warning (ordinary attention clears only on interaction), and mark_seen
/// clears it.
#[test]
fn contract2_warning_stays_after_the_turn_until_seen() {
    let mut h = Harness::claude();
    h.turn();
    h.hook(SignalKind::Warning {
        text: "API error · retrying".into(),
    });
    h.stop("Hello.");
    assert_eq!(h.state(), (L::Done, A::Warning));
    assert_eq!(h.msg(), Some("Hello."));
    h.turn();
    assert_eq!(
        h.state(),
        (L::Working, A::Warning),
        "a new turn is no interaction"
    );
    h.seen();
    assert_eq!(h.state(), (L::Working, A::None));
}

#[test]
fn contract2_permission_requested_opens_decision_blocked() {
    let mut h = Harness::claude();
    let ev = h.permission("Bash: npm test");
    let d = h.pane().pending_decision.clone().unwrap();
    assert_eq!(d.kind, DecisionKind::Permission);
    assert_eq!(d.prompt, "Bash: npm test");
    assert_eq!(h.msg(), Some("Bash: npm test"));
    assert_eq!(h.state(), (L::Blocked, A::PermissionRequired));
    assert!(has(&ev, "decision.opened") && has(&ev, "attention.created"));
}

#[test]
fn contract2_newer_gate_supersedes_older() {
    let mut h = Harness::claude();
    h.permission("Bash: one");
    let first = h.pane().pending_decision.clone().unwrap().id;
    let ev = h.question("two?");
    assert!(ev.iter().any(|e| matches!(&e.kind,
        EventKind::DecisionResolved { id, resolution: Resolution::Superseded } if *id == first)));
    assert_eq!(h.state(), (L::Blocked, A::InputRequired));
    assert_eq!(h.pane().items.len(), 1);
}

#[test]
fn contract2_question_asked_opens_question_decision() {
    let mut h = Harness::claude();
    h.question("Which branch?");
    let d = h.pane().pending_decision.clone().unwrap();
    assert_eq!(d.kind, DecisionKind::Question);
    assert_eq!(h.msg(), Some("Which branch?"));
}

#[test]
fn contract2_agent_notification_raises_unread_with_text() {
    let mut h = Harness::claude();
    h.turn();
    h.hook(SignalKind::AgentNotification {
        text: "Claude is waiting for your input".into(),
        gate: GateRef::None,
    });
    assert_eq!(h.state(), (L::Working, A::Unread));
    assert_eq!(h.msg(), Some("Claude is waiting for your input"));
}

#[test]
fn contract2_agent_notification_restating_gate_adds_nothing() {
    let mut h = Harness::claude();
    h.permission("Bash: ls");
    let ev = h.hook(SignalKind::AgentNotification {
        text: "Claude needs your permission".into(),
        gate: GateRef::Names(DecisionKind::Permission),
    });
    assert!(ev.is_empty(), "{:?}", names(&ev));
    assert_eq!(h.msg(), Some("Bash: ls"));
}

#[test]
fn contract2_agent_notification_naming_gate_blocks() {
    let mut h = Harness::claude();
    h.turn();
    h.hook(SignalKind::AgentNotification {
        text: "Claude has a question".into(),
        gate: GateRef::Names(DecisionKind::Question),
    });
    assert_eq!(h.state(), (L::Blocked, A::InputRequired));
}

#[test]
fn contract2_terminal_notification_unread_with_text() {
    let mut h = Harness::shell();
    h.term(SignalKind::TerminalNotification {
        text: "build finished".into(),
    });
    assert_eq!(h.pane().attention(), A::Unread);
    assert_eq!(h.msg(), Some("build finished"));
}

#[test]
fn contract2_terminal_notification_blocks_hookless_working_agent() {
    let mut h = Harness::new(AgentKind::Codex);
    h.term(SignalKind::Prompt(PromptMark::CommandExecuted)); // ignored: not a shell
    let at = h.tick();
    // A working agent with no hooks (its turn known from another source).
    let start = Signal::new(SignalKind::TurnStarted, Source::process("test"), at);
    h.sig(start);
    assert_eq!(h.state().0, L::Working);
    h.sig(Signal::new(
        SignalKind::TerminalNotification {
            text: "Codex needs approval".into(),
        },
        Source::terminal("osc9"),
        at,
    ));
    assert_eq!(h.state(), (L::Blocked, A::Unread));
}

#[test]
fn contract2_terminal_notification_does_not_block_agent_with_hooks() {
    let mut h = Harness::claude();
    h.turn();
    h.term(SignalKind::TerminalNotification {
        text: "Claude needs your permission".into(),
    });
    assert_eq!(h.state(), (L::Working, A::Unread));
}

#[test]
fn contract2_terminal_notification_flood_is_rate_limited() {
    let mut h = Harness::shell();
    let mut created = 0;
    for i in 0..1000 {
        let at = Timestamp(T0 + 10_000 + i); // 1000 notifications within one second
        let ev = h.sig(Signal::new(
            SignalKind::TerminalNotification {
                text: format!("n{i}"),
            },
            Source::terminal("osc9"),
            at,
        ));
        created += ev
            .iter()
            .filter(|e| e.kind.name() == "attention.created")
            .count();
    }
    assert_eq!(created, 1);
    assert_eq!(h.msg(), Some("n999"));
    // After the interval a notification re-raises again.
    let ev = h.sig(Signal::new(
        SignalKind::TerminalNotification {
            text: "later".into(),
        },
        Source::terminal("osc9"),
        Timestamp(T0 + 12_000),
    ));
    assert!(has(&ev, "attention.created"));
}

#[test]
fn contract2_bell_raises_unread_once_per_unseen_period() {
    let mut h = Harness::shell();
    let first = h.term(SignalKind::Bell);
    let second = h.term(SignalKind::Bell);
    assert!(has(&first, "attention.created"));
    assert!(second.is_empty());
    assert_eq!(h.pane().lifecycle, L::Unknown);
    h.seen();
    let third = h.term(SignalKind::Bell);
    assert!(has(&third, "attention.created"));
}

#[test]
fn contract2_plain_output_shell_only() {
    let mut h = Harness::claude();
    let ev = h.term(SignalKind::Output);
    assert!(ev.is_empty());
    assert_eq!(h.state(), (L::Unknown, A::None));
}

#[test]
fn contract2_plain_output_focused_shell_adds_nothing() {
    let mut h = Harness::shell();
    h.act(Action::Focus);
    h.term(SignalKind::Output);
    assert_eq!(h.pane().attention(), A::None);
}

#[test]
fn contract2_plain_output_once_per_unseen_period() {
    let mut h = Harness::shell();
    assert!(has(&h.term(SignalKind::Output), "attention.created"));
    assert!(h.term(SignalKind::Output).is_empty());
}

#[test]
fn contract2_prompt_mark_c_working_a_idle() {
    let mut h = Harness::shell();
    h.term(SignalKind::Prompt(PromptMark::CommandExecuted));
    assert_eq!(h.pane().lifecycle, L::Working);
    h.term(SignalKind::Prompt(PromptMark::PromptStart));
    assert_eq!(h.pane().lifecycle, L::Idle);
}

#[test]
fn contract2_prompt_mark_d_nonzero_raises_unread() {
    let mut h = Harness::shell();
    h.term(SignalKind::Prompt(PromptMark::CommandExecuted));
    h.term(SignalKind::Prompt(PromptMark::CommandFinished {
        code: Some(0),
    }));
    assert_eq!(h.state(), (L::Idle, A::None));
    h.term(SignalKind::Prompt(PromptMark::CommandExecuted));
    h.term(SignalKind::Prompt(PromptMark::CommandFinished {
        code: Some(2),
    }));
    assert_eq!(h.state(), (L::Idle, A::Unread));
}

#[test]
fn contract2_turn_stopped_done_unread_summary_resolves_decision() {
    let mut h = Harness::claude();
    h.question("?");
    h.stop("Summary text");
    assert_eq!(h.state(), (L::Done, A::Unread));
    assert_eq!(h.msg(), Some("Summary text"));
    assert!(h.pane().pending_decision.is_none());
}

#[test]
fn contract2_turn_stopped_reported_twice_is_one_completion() {
    let mut h = Harness::claude();
    h.turn();
    h.stop("Summary");
    h.seen();
    let ev = h.stop("Summary");
    assert!(ev.is_empty(), "{:?}", names(&ev));
    assert_eq!(h.state(), (L::Done, A::None));
    // A different summary after the turn is a new report and re-raises.
    h.stop("Another");
    assert_eq!(h.state(), (L::Done, A::Unread));
}

#[test]
fn contract2_turn_failed_failed_error_message() {
    let mut h = Harness::claude();
    h.turn();
    h.fail("overloaded");
    assert_eq!(h.state(), (L::Failed, A::Error));
    assert_eq!(h.msg(), Some("overloaded"));
    assert_eq!(h.pane().limit_reason, None);
}

#[test]
fn contract2_turn_stopped_saying_nothing_after_the_turn_failed_keeps_failed() {
    let mut h = Harness::claude();
    h.turn();
    h.fail("authentication failed: bad key");
    // The failed turn's own stop (Gemini's AfterAgent after the error it drew).
    let ev = h.hook(SignalKind::TurnStopped { summary: None });
    assert!(ev.is_empty(), "{:?}", names(&ev));
    assert_eq!(h.state(), (L::Failed, A::Error));
    assert_eq!(h.msg(), Some("authentication failed: bad key"));
    // A stop that says something is a completion; so is any stop of a later turn.
    h.stop("Recovered");
    assert_eq!(h.state(), (L::Done, A::Error));
    h.turn();
    h.fail("again");
    h.turn();
    h.hook(SignalKind::TurnStopped { summary: None });
    assert_eq!(h.pane().lifecycle, L::Done);
}

#[test]
fn contract2_turn_failed_usage_limit_sets_reason() {
    let mut h = Harness::claude();
    h.turn();
    h.hook(SignalKind::TurnFailed {
        error: "rate_limit".into(),
        usage_limit: true,
    });
    assert_eq!(h.pane().limit_reason.as_deref(), Some("usage limit"));
    h.turn();
    assert_eq!(h.pane().limit_reason, None);
}

#[test]
fn contract2_gate_dismissed_idle_resolves_dismissed_adds_nothing() {
    let mut h = Harness::claude();
    h.permission("Bash: ls");
    let ev = h.hook(SignalKind::GateDismissed);
    assert_eq!(h.state(), (L::Idle, A::None));
    assert!(!has(&ev, "attention.created"));
    assert!(ev.iter().any(|e| matches!(
        e.kind,
        EventKind::DecisionResolved {
            resolution: Resolution::Dismissed,
            ..
        }
    )));
    assert_eq!(h.msg(), Some("Bash: ls"));
}

#[test]
fn contract2_handover_new_session_id_is_its_own_event() {
    let mut h = Harness::claude();
    let at = h.tick();
    h.sig(
        Signal::new(
            SignalKind::TurnStarted,
            Source::hook("claude", "UserPromptSubmit"),
            at,
        )
        .with_identity(Identity {
            session_id: Some("s1".into()),
            ..Default::default()
        }),
    );
    h.stop("first");
    let at = h.tick();
    let ev = h.sig(
        Signal::new(
            SignalKind::SessionStarted {
                source: Some("clear".into()),
            },
            Source::hook("claude", "SessionStart"),
            at,
        )
        .with_identity(Identity {
            session_id: Some("s2".into()),
            ..Default::default()
        }),
    );
    assert!(has(&ev, "pane.handover"));
    assert_eq!(h.pane().session_id.as_deref(), Some("s2"));
    // Items are kept; the new session starts idle.
    assert_eq!(h.state(), (L::Idle, A::Unread));
}

#[test]
fn contract2_every_lifecycle_change_emits_agent_event_with_previous_and_source() {
    let mut h = Harness::claude();
    let ev = h.hook(SignalKind::TurnStarted);
    let agent: Vec<_> = ev
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Agent { previous, value } => Some((*previous, *value, e.source.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        agent,
        vec![(L::Unknown, L::Working, Source::hook("claude", "test"))]
    );
    assert_eq!(ev[0].kind.name(), "agent.working");
}

// ---------------------------------------------------------------------------------------
// docs/lifecycle-attention.md#session-end-and-exit and spec 024.

fn reviewed_done() -> Harness {
    let mut h = Harness::claude();
    h.turn();
    h.stop("Stop summary");
    h.seen();
    assert!(h.pane().is_reviewed_terminal());
    h
}

#[test]
fn spec024_us1_1_session_end_on_reviewed_done_is_silent() {
    let mut h = reviewed_done();
    let ev = h.session_end();
    assert!(ev.is_empty(), "{:?}", names(&ev));
    assert_eq!(h.state(), (L::Done, A::None));
    assert_eq!(h.msg(), Some("Stop summary"));
}

#[test]
fn spec024_us1_1_applies_to_codex_and_cursor_session_end() {
    for (agent, event) in [("codex", "SessionEnd"), ("cursor", "sessionEnd")] {
        let mut h = reviewed_done();
        let at = h.tick();
        h.sig(Signal::new(
            SignalKind::SessionEnded {
                reason: Some("other".into()),
            },
            Source::hook(agent, event),
            at,
        ));
        assert_eq!(h.state(), (L::Done, A::None), "{agent}");
        assert_eq!(h.msg(), Some("Stop summary"));
    }
}

#[test]
fn spec024_us1_2_exit_after_reviewed_session_end_stays_none() {
    let mut h = reviewed_done();
    h.session_end();
    let ev = h.exit(0);
    assert_eq!(h.state(), (L::Done, A::None));
    assert_eq!(
        h.pane().live,
        Live::Exited {
            code: Some(0),
            signal: None
        }
    );
    assert_eq!(names(&ev), vec!["pane.exited"]);
}

#[test]
fn spec024_us1_3_session_end_still_updates_identity_and_resume_argv() {
    let mut h = reviewed_done();
    let at = h.tick();
    h.sig(
        Signal::new(
            SignalKind::SessionEnded { reason: None },
            Source::hook("claude", "SessionEnd"),
            at,
        )
        .with_identity(Identity {
            session_id: Some("abc".into()),
            resume_argv: Some(vec!["claude".into(), "--resume".into(), "abc".into()]),
            ..Default::default()
        }),
    );
    assert_eq!(h.pane().session_id.as_deref(), Some("abc"));
    assert_eq!(h.pane().resume_argv.as_ref().unwrap()[2], "abc");
    assert_eq!(h.state(), (L::Done, A::None));
}

#[test]
fn spec024_us2_1_session_end_keeps_failed_with_error() {
    let mut h = Harness::claude();
    h.turn();
    h.fail("authentication_failed");
    h.session_end();
    assert_eq!(h.state(), (L::Failed, A::Error));
    assert_eq!(h.msg(), Some("authentication_failed"));
}

#[test]
fn spec024_us2_1_session_end_keeps_reviewed_failed() {
    let mut h = Harness::claude();
    h.turn();
    h.fail("server_error");
    h.seen();
    h.session_end();
    assert_eq!(h.state(), (L::Failed, A::None));
    assert_eq!(h.msg(), Some("server_error"));
}

#[test]
fn spec024_us2_2_session_end_keeps_unreviewed_done_unread() {
    let mut h = Harness::claude();
    h.turn();
    h.stop("summary");
    h.session_end();
    assert_eq!(h.state(), (L::Done, A::Unread));
    assert_eq!(h.msg(), Some("summary"));
}

#[test]
fn spec024_us3_1_first_completion_working_session_end_done_unread() {
    let mut h = Harness::claude();
    h.turn();
    h.session_end();
    assert_eq!(h.state(), (L::Done, A::Unread));
    assert_eq!(h.msg(), Some("session ended"));
}

#[test]
fn spec024_us3_1_working_exit_raises_unread() {
    let mut h = Harness::claude();
    h.turn();
    h.exit(0);
    assert_eq!(h.pane().attention(), A::Unread);
    assert_eq!(h.pane().last_lifecycle, Some(L::Working));
}

#[test]
fn spec024_us3_2_idle_session_end_done_unread() {
    let mut h = Harness::claude();
    h.hook(SignalKind::SessionStarted {
        source: Some("startup".into()),
    });
    h.session_end();
    assert_eq!(h.state(), (L::Done, A::Unread));
}

#[test]
fn spec024_us3_3_fresh_turn_after_review_raises_unread() {
    let mut h = reviewed_done();
    h.turn();
    assert_eq!(h.state(), (L::Working, A::None));
    h.stop("again");
    assert_eq!(h.state(), (L::Done, A::Unread));
}

#[test]
fn spec024_us3_4_blocked_keeps_gate_at_session_end() {
    for q in [false, true] {
        let mut h = Harness::claude();
        if q {
            h.question("?");
        } else {
            h.permission("Bash: ls");
        }
        let want = if q {
            A::InputRequired
        } else {
            A::PermissionRequired
        };
        h.session_end();
        assert_eq!(h.state(), (L::Blocked, want));
        assert!(h.pane().pending_decision.is_some());
    }
}

#[test]
fn spec024_us3_4_exit_clears_decision_and_demotes_to_unread() {
    let mut h = Harness::claude();
    h.permission("Bash: ls");
    let ev = h.exit(0);
    assert!(h.pane().pending_decision.is_none());
    assert_eq!(h.pane().attention(), A::Unread);
    assert!(ev.iter().any(|e| matches!(
        e.kind,
        EventKind::DecisionResolved {
            resolution: Resolution::Abandoned,
            ..
        }
    )));
}

#[test]
fn spec024_us3_5_bel_and_osc_unchanged_on_reviewed_pane() {
    let mut h = reviewed_done();
    h.term(SignalKind::Bell);
    assert_eq!(h.state(), (L::Done, A::Unread));
    let mut h = reviewed_done();
    h.term(SignalKind::TerminalNotification { text: "hi".into() });
    assert_eq!(h.state(), (L::Done, A::Unread));
}

#[test]
fn spec024_edge_exit_with_pending_decision_drops_it_and_raises_unread() {
    let mut h = Harness::claude();
    h.question("name?");
    h.seen();
    h.exit(0);
    assert!(h.pane().pending_decision.is_none());
    assert_eq!(h.pane().attention(), A::Unread);
}

#[test]
fn spec024_edge_repeated_mark_seen_after_exit_is_idempotent() {
    let mut h = reviewed_done();
    h.exit(0);
    let a = h.seen();
    let b = h.seen();
    assert!(a.is_empty() && b.is_empty());
    assert_eq!(h.state(), (L::Done, A::None));
}

#[test]
fn spec024_edge_unknown_and_non_session_end_hooks_unaffected() {
    let mut h = reviewed_done();
    let ev = h.hook(SignalKind::IdentityOnly);
    assert!(ev.is_empty());
    assert_eq!(h.state(), (L::Done, A::None));
    h.hook(SignalKind::AgentNotification {
        text: "idle".into(),
        gate: GateRef::None,
    });
    assert_eq!(h.state(), (L::Done, A::Unread));
}

#[test]
fn spec024_fr001_reviewed_terminal_session_end_is_noop() {
    let mut h = reviewed_done();
    let before = h.pane().clone();
    let ev = h.session_end();
    assert!(ev.is_empty());
    assert_eq!(&before, h.pane());
}

#[test]
fn spec024_fr002_exit_does_not_raise_on_reviewed_terminal() {
    for failed in [false, true] {
        let mut h = Harness::claude();
        h.turn();
        if failed {
            h.fail("x");
        } else {
            h.stop("y");
        }
        h.seen();
        h.exit(1);
        assert_eq!(h.pane().attention(), A::None, "failed={failed}");
        assert_eq!(h.pane().lifecycle, if failed { L::Failed } else { L::Done });
    }
}

#[test]
fn spec024_fr002_other_exit_effects_unchanged() {
    let mut h = reviewed_done();
    let (tid, _) = h.w.add_task(h.p, "ship it", Timestamp(h.t)).unwrap();
    h.turn();
    h.stop("z");
    h.seen();
    let ev = h.exit(0);
    assert!(has(&ev, "pane.exited"));
    assert_eq!(h.pane().live.as_str(), "exited");
    assert_eq!(h.pane().last_lifecycle, Some(L::Done));
    // The task started working with the turn and was never reported: exit fails it.
    assert_eq!(
        h.pane().tasks.iter().find(|t| t.id == tid).unwrap().state,
        TaskState::Failed
    );
}

#[test]
fn spec024_fr003_non_terminal_panes_unchanged() {
    for start in ["unknown", "idle", "working"] {
        let mut h = Harness::claude();
        match start {
            "idle" => {
                h.hook(SignalKind::SessionStarted { source: None });
            }
            "working" => h.turn(),
            _ => {}
        }
        h.session_end();
        assert_eq!(h.state(), (L::Done, A::Unread), "{start}");
        assert_eq!(h.msg(), Some("session ended"));
    }
}

#[test]
fn spec024_fr005_suppressed_session_end_settles_working_task_input_required() {
    let mut h = Harness::claude();
    let (tid, _) =
        h.w.add_task(h.p, "write the parser", Timestamp(h.t))
            .unwrap();
    h.turn();
    assert_eq!(h.pane().tasks[0].state, TaskState::Working);
    h.stop("Stop summary");
    h.seen();
    let ev = h.session_end();
    assert_eq!(h.pane().tasks[0].state, TaskState::InputRequired);
    assert_eq!(names(&ev), vec!["task.input_required"]);
    assert_eq!(h.state(), (L::Done, A::None));
    assert_eq!(h.msg(), Some("Stop summary"));
    let _ = tid;
}

#[test]
fn spec024_reviewed_terminal_is_derived_not_stored() {
    let mut h = reviewed_done();
    assert!(h.pane().is_reviewed_terminal());
    h.term(SignalKind::Bell);
    assert!(!h.pane().is_reviewed_terminal());
}

// ---------------------------------------------------------------------------------------
// docs/lifecycle-attention.md#process-exited rows.

#[test]
fn contract4_exit_nonzero_on_working_is_failed_error() {
    let mut h = Harness::claude();
    h.turn();
    h.exit(2);
    assert_eq!(h.state(), (L::Failed, A::Error));
}

#[test]
fn contract4_exit_by_signal_is_failed_error() {
    let mut h = Harness::shell();
    let at = h.tick();
    h.sig(Signal::new(
        SignalKind::ProcessExited {
            code: None,
            signal: Some(9),
        },
        Source::process("exit"),
        at,
    ));
    assert_eq!(h.state(), (L::Failed, A::Error));
    assert_eq!(
        h.pane().live,
        Live::Exited {
            code: None,
            signal: Some(9)
        }
    );
}

#[test]
fn contract4_exit_zero_oneshot_is_done_unread() {
    let mut w = World::new();
    let (p, _) = w.add_pane(
        NewPane {
            workspace: "/w".into(),
            oneshot: true,
            ..Default::default()
        },
        Timestamp(T0),
    );
    w.apply_signal(
        p,
        &Signal::new(
            SignalKind::ProcessExited {
                code: Some(0),
                signal: None,
            },
            Source::process("exit"),
            Timestamp(T0 + 1),
        ),
    )
    .unwrap();
    let pane = w.pane(p).unwrap();
    assert_eq!((pane.lifecycle, pane.attention()), (L::Done, A::Unread));
}

#[test]
fn contract4_exit_zero_not_oneshot_keeps_lifecycle_unread() {
    let mut h = Harness::shell();
    h.term(SignalKind::Prompt(PromptMark::PromptStart));
    h.seen();
    h.exit(0);
    assert_eq!(h.state(), (L::Idle, A::Unread));
}

/// The exit of an agent whose process Attend does not run: no code, no signal.
fn exit_unknown(h: &mut Harness) -> Vec<Event> {
    let at = h.tick();
    h.sig(Signal::new(
        SignalKind::ProcessExited {
            code: None,
            signal: None,
        },
        Source::process("exit"),
        at,
    ))
}

/// `blocked` means waiting on the human; once the process is gone nothing waits. A pane
/// still blocked at its exit (its gate answered in Attend and the agent's next hook not
/// come, or its gate still open: dropped as `abandoned`) reads the end of its session:
/// done + unread "session ended", whatever the exit's code says short of a failure. A later
/// session end changes nothing.
#[test]
fn contract4_exit_of_a_blocked_pane_ends_its_session() {
    // Answered in Attend, then the external agent's process ends.
    let mut h = Harness::claude();
    h.turn();
    h.permission("Bash: make");
    h.act(Action::Answer {
        choice: "allow".into(),
    });
    assert_eq!(h.state(), (L::Blocked, A::None));
    let ev = exit_unknown(&mut h);
    assert_eq!(h.state(), (L::Done, A::Unread));
    assert_eq!(h.msg(), Some("session ended"));
    assert_eq!(h.pane().last_lifecycle, Some(L::Blocked));
    assert_eq!(
        names(&ev),
        vec!["pane.exited", "agent.done", "attention.created"]
    );
    assert!(h.session_end().is_empty(), "the session already ended");
    assert_eq!(h.state(), (L::Done, A::Unread));

    // The gate still open: the exit drops it, its required item demoted to one unread.
    for exit in [None, Some(0)] {
        let mut h = Harness::claude();
        h.turn();
        h.permission("Bash: make");
        h.session_end();
        assert_eq!(h.state(), (L::Blocked, A::PermissionRequired));
        let ev = match exit {
            None => exit_unknown(&mut h),
            Some(code) => h.exit(code),
        };
        assert!(h.pane().pending_decision.is_none());
        assert!(ev.iter().any(|e| matches!(
            e.kind,
            EventKind::DecisionResolved {
                resolution: Resolution::Abandoned,
                ..
            }
        )));
        assert_eq!(h.state(), (L::Done, A::Unread), "{exit:?}");
        assert_eq!(h.msg(), Some("session ended"));
        let raised = ev
            .iter()
            .filter(|e| matches!(e.kind, EventKind::AttentionCreated { .. }))
            .count();
        assert_eq!(raised, 1, "{exit:?}");
    }

    // A failure is still a failure.
    let mut h = Harness::claude();
    h.permission("Bash: make");
    h.exit(1);
    assert_eq!(h.state(), (L::Failed, A::Error));
}

/// A gate answered in Attend leaves nothing to wait for: the session's end is a first
/// completion, as for a working pane.
#[test]
fn spec024_us3_1_answered_gate_then_session_end_is_a_first_completion() {
    let mut h = Harness::claude();
    h.turn();
    h.permission("Bash: make");
    h.act(Action::Answer {
        choice: "allow".into(),
    });
    h.session_end();
    assert_eq!(h.state(), (L::Done, A::Unread));
    assert_eq!(h.msg(), Some("session ended"));
    exit_unknown(&mut h);
    assert_eq!(h.state(), (L::Done, A::Unread));
}

#[test]
fn contract4_exit_fails_working_task() {
    let mut h = Harness::claude();
    h.w.add_task(h.p, "t", Timestamp(h.t)).unwrap();
    h.turn();
    let ev = h.exit(0);
    assert_eq!(h.pane().tasks[0].state, TaskState::Failed);
    assert!(has(&ev, "task.failed"));
}

#[test]
fn contract4_session_end_handover_reason_is_not_an_end() {
    let mut h = Harness::claude();
    h.turn();
    let ev = h.hook(SignalKind::SessionEnded {
        reason: Some("clear".into()),
    });
    assert!(ev.is_empty());
    assert_eq!(h.state(), (L::Working, A::None));
}

// ---------------------------------------------------------------------------------------
// Tasks and holds (docs/lifecycle-attention.md#tasks-and-holds).

#[test]
fn contract5_task_lifecycle_open_working_reported() {
    let mut h = Harness::claude();
    let (tid, ev) = h.w.add_task(h.p, "do it", Timestamp(h.t)).unwrap();
    assert_eq!(names(&ev), vec!["task.open"]);
    h.turn();
    h.w.set_task_state(
        tid,
        TaskState::Reported,
        Some("done"),
        Source::user(),
        Timestamp(h.t),
    )
    .unwrap();
    let t = &h.pane().tasks[0];
    assert_eq!(
        (t.state, t.message.as_deref()),
        (TaskState::Reported, Some("done"))
    );
    assert_eq!(
        h.pane().attention(),
        A::None,
        "settling a task does not change attention"
    );
}

#[test]
fn contract5_hold_is_armed_until_wake() {
    let hold = Hold {
        owner: "me".into(),
        wake: Timestamp(T0 + 10),
        reason: None,
    };
    assert!(hold.is_armed(Timestamp(T0)));
    assert!(!hold.is_armed(Timestamp(T0 + 10)));
}

// ---------------------------------------------------------------------------------------
// docs/lifecycle-attention.md, "Quiet shell start" and the user's kill in "Process exited".

/// A world with one owned shell pane spawned at `T0` running `argv`.
fn spawned(argv: &[&str]) -> Harness {
    let mut w = World::new();
    let (p, log) = w.add_pane(
        NewPane {
            workspace: "/src/demo".into(),
            agent: AgentKind::Shell,
            owned: true,
            command: argv.iter().map(|a| a.to_string()).collect(),
            ..Default::default()
        },
        Timestamp(T0),
    );
    Harness { w, p, t: T0, log }
}

impl Harness {
    /// A terminal signal at `T0 + ms`.
    fn term_at(&mut self, ms: i64, kind: SignalKind) -> Vec<Event> {
        self.t = T0 + ms;
        self.sig(Signal::new(
            kind,
            Source::terminal("test"),
            Timestamp(self.t),
        ))
    }
    /// The user's `attend kill` (recorded intent), then the exit by `signal` it caused.
    fn user_kill(&mut self, signal: i32) -> Vec<Event> {
        self.act(Action::Kill);
        self.killed(signal)
    }
    fn killed(&mut self, signal: i32) -> Vec<Event> {
        let at = self.tick();
        self.sig(Signal::new(
            SignalKind::ProcessExited {
                code: None,
                signal: Some(signal),
            },
            Source::process("exit"),
            at,
        ))
    }
}

#[test]
fn quiet_shell_start_first_prompt_raises_nothing_later_output_does() {
    let mut h = spawned(&["bash", "-i"]);
    let ev = h.term_at(50, SignalKind::Output);
    assert_eq!(
        h.state(),
        (L::Idle, A::None),
        "the first prompt is not news"
    );
    assert!(!has(&ev, "attention.created"));
    h.term_at(attend::engine::SHELL_QUIET_MS - 1, SignalKind::Output);
    assert_eq!(h.pane().attention(), A::None);
    h.term_at(attend::engine::SHELL_QUIET_MS + 500, SignalKind::Output);
    assert_eq!(
        h.state(),
        (L::Idle, A::Unread),
        "output after the quiet start"
    );
}

#[test]
fn quiet_shell_start_with_prompt_marks_lasts_until_the_first_command() {
    let mut h = spawned(&["/bin/zsh"]);
    h.term_at(10, SignalKind::Prompt(PromptMark::PromptStart));
    h.term_at(10, SignalKind::Output);
    h.term_at(11, SignalKind::Prompt(PromptMark::CommandStart));
    // A prompt redrawn long after the quiet time is still the first prompt.
    let late = attend::engine::SHELL_QUIET_MS * 3;
    h.term_at(late, SignalKind::Output);
    assert_eq!(h.pane().attention(), A::None);
    h.term_at(late + 1, SignalKind::Prompt(PromptMark::CommandExecuted));
    h.term_at(late + 2, SignalKind::Output);
    assert_eq!(
        h.state(),
        (L::Working, A::Unread),
        "the first command's output"
    );
}

#[test]
fn quiet_shell_start_not_for_commands_unfocused_seen_or_external_panes() {
    for argv in [
        &["sleep", "9"][..],
        &["sh", "-c", "echo hi"],
        &["bash", "x.sh"],
    ] {
        let mut h = spawned(argv);
        h.term_at(50, SignalKind::Output);
        assert_eq!(h.state(), (L::Idle, A::Unread), "{argv:?}");
    }
    let mut w = World::new();
    let (p, _) = w.add_pane(
        NewPane {
            agent: AgentKind::Shell,
            owned: false,
            command: vec!["bash".into()],
            ..Default::default()
        },
        Timestamp(T0),
    );
    assert_eq!(
        w.pane(p).unwrap().start_quiet,
        None,
        "Attend did not spawn it"
    );
    // A bell or a notification is never quiet.
    let mut h = spawned(&["bash"]);
    h.term_at(20, SignalKind::Bell);
    assert_eq!(h.pane().attention(), A::Unread);
}

#[test]
fn user_kill_of_a_working_pane_is_failed_killed_by_you_without_attention() {
    let mut h = Harness::claude();
    h.turn();
    let ev = h.user_kill(15);
    assert_eq!(h.state(), (L::Failed, A::None));
    assert_eq!(h.msg(), Some(attend::engine::KILLED_BY_YOU));
    assert!(!has(&ev, "attention.created"), "{:?}", names(&ev));
    assert!(has(&ev, "pane.exited"));
    assert_eq!(
        h.pane().kill_requested_at,
        None,
        "the exit consumes the intent"
    );
}

#[test]
fn user_kill_drops_an_open_decision_without_unread() {
    let mut h = Harness::claude();
    h.turn();
    h.permission("Run rm?");
    let ev = h.user_kill(9);
    assert_eq!(h.state(), (L::Failed, A::None));
    assert!(h.pane().pending_decision.is_none());
    assert!(has(&ev, "decision.resolved"));
    assert!(!has(&ev, "attention.created"), "{:?}", names(&ev));
}

#[test]
fn user_kill_of_a_reviewed_or_finished_pane_keeps_the_ordinary_exit() {
    let mut h = reviewed_done();
    h.user_kill(15);
    assert_eq!(h.state(), (L::Done, A::None), "spec 024's quiet exit");
    let mut h = Harness::claude();
    h.turn();
    h.stop("done, not seen");
    h.user_kill(15);
    assert_eq!(
        h.state(),
        (L::Done, A::Unread),
        "an outcome is never rewritten"
    );
    assert_eq!(h.msg(), Some("done, not seen"));
}

#[test]
fn user_kill_intent_is_stale_after_the_window_and_outside_kills_are_crashes() {
    // Killed from outside Attend: a crash.
    let mut h = Harness::claude();
    h.turn();
    h.killed(9);
    assert_eq!(h.state(), (L::Failed, A::Error));
    // The user's kill long ago (the program ignored it): a later exit is ordinary.
    let mut h = Harness::claude();
    h.turn();
    h.act(Action::Kill);
    h.t += attend::engine::KILL_INTENT_MS;
    h.killed(9);
    assert_eq!(h.state(), (L::Failed, A::Error));
}

// Two agents in one pane (docs/lifecycle-attention.md#two-agents-in-one-pane).

fn with_session(kind: SignalKind, agent: &str, event: &str, session: &str, at: i64) -> Signal {
    let mut s = Signal::new(kind, Source::hook(agent, event), Timestamp(at));
    s.identity.session_id = Some(session.to_string());
    s
}

#[test]
fn two_agents_in_one_pane_hand_over_keep_attention_and_ignore_the_old_agent() {
    use attend::engine::HookAgent;
    let mut w = World::new();
    let (p, _) = w.add_pane(
        NewPane {
            command: vec!["bash".into()],
            owned: true,
            ..Default::default()
        },
        Timestamp(1),
    );
    let src = |a: &str| Source::hook(a, "x");
    // Claude starts in the shell: the pane becomes Claude's; a turn ends unread.
    assert!(matches!(
        w.hook_agent(
            p,
            AgentKind::Claude,
            Some("s1"),
            true,
            src("claude"),
            Timestamp(2)
        ),
        HookAgent::Adopted(_)
    ));
    for (kind, event, at) in [
        (SignalKind::TurnStarted, "UserPromptSubmit", 3),
        (
            SignalKind::TurnStopped {
                summary: Some("done".into()),
            },
            "Stop",
            4,
        ),
    ] {
        w.apply_signal(p, &with_session(kind, "claude", event, "s1", at))
            .unwrap();
    }
    assert_eq!(w.panes()[&p].attention(), A::Unread);
    // While Claude works, a Codex run as its tool is another agent's hook: not applied.
    w.apply_signal(
        p,
        &with_session(
            SignalKind::TurnStarted,
            "claude",
            "UserPromptSubmit",
            "s1",
            5,
        ),
    )
    .unwrap();
    assert_eq!(
        w.hook_agent(
            p,
            AgentKind::Codex,
            Some("c0"),
            true,
            src("codex"),
            Timestamp(6)
        ),
        HookAgent::Foreign
    );
    w.apply_signal(
        p,
        &with_session(
            SignalKind::TurnStopped { summary: None },
            "claude",
            "Stop",
            "s1",
            7,
        ),
    )
    .unwrap();
    // The user quits Claude and starts Codex in the same shell: a switch, then the new
    // session id hands over; the unread of Claude's turn is kept.
    assert!(matches!(
        w.hook_agent(
            p,
            AgentKind::Codex,
            Some("c1"),
            true,
            src("codex"),
            Timestamp(8)
        ),
        HookAgent::Switched(_)
    ));
    let ev = w
        .apply_signal(
            p,
            &with_session(
                SignalKind::SessionStarted { source: None },
                "codex",
                "SessionStart",
                "c1",
                9,
            ),
        )
        .unwrap();
    assert!(
        ev.iter()
            .any(|e| matches!(e.kind, EventKind::PaneHandover { .. })),
        "{ev:?}"
    );
    let pane = &w.panes()[&p];
    assert_eq!(pane.agent, AgentKind::Codex);
    assert_eq!(pane.attention(), A::Unread, "outstanding attention kept");
    // Claude's late hook moves nothing now.
    assert_eq!(
        w.hook_agent(
            p,
            AgentKind::Claude,
            Some("s1"),
            false,
            src("claude"),
            Timestamp(10)
        ),
        HookAgent::Foreign
    );
    // A pane started as the agent itself never switches.
    let (q, _) = w.add_pane(
        NewPane {
            agent: AgentKind::Claude,
            command: vec!["claude".into()],
            owned: true,
            ..Default::default()
        },
        Timestamp(11),
    );
    assert_eq!(
        w.hook_agent(
            q,
            AgentKind::Codex,
            Some("c2"),
            true,
            src("codex"),
            Timestamp(12)
        ),
        HookAgent::Foreign
    );
}

#[test]
fn an_unknown_notification_beside_a_dialog_no_hook_names_adds_no_unread() {
    let mut w = World::new();
    let spec = NewPane {
        agent: AgentKind::Claude,
        owned: true,
        ..Default::default()
    };
    let (p, _) = w.add_pane(spec, Timestamp(1));
    // The chrome reads a dialog no hook names: the pane's machine opens its question.
    let shown = attend::engine::ShownDialog {
        rule: "folder-trust".into(),
        reason: "folder trust".into(),
        kind: DecisionKind::Question,
        prompt: "Do you trust the files in this folder?".into(),
        options: vec![],
        choices: vec![],
    };
    let chrome = attend::engine::machine::Input::Chrome {
        shown: Some(shown),
        closed: None,
        changed: true,
    };
    w.step(p, chrome, Timestamp(2)).unwrap();
    assert_eq!(w.pane(p).unwrap().attention(), A::InputRequired);
    let note = Signal::new(
        SignalKind::AgentNotification {
            text: "Claude is waiting for your input".into(),
            gate: GateRef::None,
        },
        Source::hook("claude", "Notification"),
        Timestamp(3),
    );
    w.apply_signal(p, &note).unwrap();
    let pane = &w.panes()[&p];
    assert!(
        !pane.items.iter().any(|i| i.level == A::Unread),
        "{:?}",
        pane.items
    );
    assert_eq!(pane.attention(), A::InputRequired);
    // Without such a dialog the same notification is unread, as before.
    let (q, _) = w.add_pane(Default::default(), Timestamp(4));
    w.apply_signal(q, &note).unwrap();
    assert_eq!(w.panes()[&q].attention(), A::Unread);
}
