//! The notification rules' unit tests (split from notifications.rs for its length).

use super::*;
use crate::model::{
    AgentKind, AnswerKey, AttentionItem, Decision, DecisionKind, Live, Pane, Source, Timestamp,
};

fn gate(owned: bool) -> Pane {
    let mut p = Pane::new(
        PaneId(1),
        "/src/webapp",
        "main",
        "api",
        AgentKind::Claude,
        Timestamp(0),
    );
    p.owned = owned;
    p.lifecycle = Lifecycle::Blocked;
    p.pending_decision = Some(Decision {
        id: 7,
        kind: DecisionKind::Permission,
        prompt: "Bash: npm test <x> & y".into(),
        options: vec![],
        answer_keys: ["allow", "deny"]
            .iter()
            .map(|c| AnswerKey {
                choice: c.to_string(),
                keys: "1".into(),
            })
            .collect(),
        tool_use_id: None,
        source: Source::user(),
        opened_at: Timestamp(1),
    });
    p.items.push(AttentionItem {
        level: Attention::PermissionRequired,
        source: Source::user(),
        at: Timestamp(1),
        decision: Some(7),
    });
    p
}

const FULL: Caps = Caps {
    actions: true,
    markup: true,
    inline_reply: false,
};

#[test]
fn a_gate_on_an_owned_pane_gets_a_button_per_choice() {
    let c = content(&gate(true), false, Attention::PermissionRequired, FULL);
    assert_eq!(c.summary, "webapp › api — permission: Bash");
    assert_eq!(c.body, "npm test &lt;x&gt; &amp; y");
    assert_eq!(c.urgency, 2);
    assert_eq!(c.category, "x-attend.permission_required");
    // The buttons are the decision's choices, named as `attend show` and the panel
    // name them (the one list: `Decision::choices`).
    let p = gate(true);
    let choices = p.pending_decision.as_ref().unwrap().choices();
    let buttons: Vec<(String, String)> = c.actions[1..].to_vec();
    let want: Vec<(String, String)> = choices.iter().map(|c| (c.clone(), c.clone())).collect();
    assert_eq!(buttons, want);
    assert_eq!(c.actions[0].0, "default");
    assert_eq!(WirePane::of(&p).pending_decision.unwrap().choices, choices);
    assert_eq!(choices, ["allow", "deny"]);
}

#[test]
fn external_or_exited_panes_and_plain_servers_get_fewer_actions() {
    let c = content(&gate(false), false, Attention::PermissionRequired, FULL);
    assert_eq!(c.actions.len(), 1);
    let mut exited = gate(true);
    exited.live = Live::Exited {
        code: Some(0),
        signal: None,
    };
    assert_eq!(
        content(&exited, false, Attention::PermissionRequired, FULL)
            .actions
            .len(),
        1
    );
    let plain = content(
        &gate(true),
        false,
        Attention::PermissionRequired,
        Caps::default(),
    );
    assert!(plain.actions.is_empty());
    assert_eq!(plain.body, "npm test <x> & y");
    // An ordinary level gets no answer buttons, even with a decision open.
    assert_eq!(
        content(&gate(true), false, Attention::Unread, FULL)
            .actions
            .len(),
        1
    );
}

#[test]
fn an_external_gate_a_hook_run_waits_on_gets_allow_and_deny() {
    let c = content(&gate(false), true, Attention::PermissionRequired, FULL);
    let buttons: Vec<&str> = c.actions[1..].iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(buttons, ["allow", "deny"]);
    // A pane Attend runs keeps its own decision's choices, gate or not.
    let owned = content(&gate(true), true, Attention::PermissionRequired, FULL);
    assert_eq!(
        owned.actions,
        content(&gate(true), false, Attention::PermissionRequired, FULL).actions
    );
}

#[test]
fn a_pane_followed_in_tmux_gets_a_button_per_choice_while_it_runs() {
    let mut p = gate(false);
    p.tmux = Some(crate::model::TmuxLocation {
        socket: "/tmp/tmux-1000/default".into(),
        server_pid: 42,
        pane: "%3".into(),
        place: "work:0.0".into(),
    });
    let c = content(&p, false, Attention::PermissionRequired, FULL);
    let buttons: Vec<&str> = c.actions[1..].iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(buttons, ["allow", "deny"]);
    assert_eq!(
        c.actions,
        content(&gate(true), false, Attention::PermissionRequired, FULL).actions
    );
    // A question that names no choice (opened by a hook): its options by number.
    let mut q = p.clone();
    let d = q.pending_decision.as_mut().unwrap();
    d.kind = DecisionKind::Question;
    d.answer_keys.clear();
    d.options = vec!["Red".into(), "Blue".into()];
    let c = content(&q, false, Attention::InputRequired, FULL);
    let buttons: Vec<(&str, &str)> = c.actions[1..]
        .iter()
        .map(|(k, l)| (k.as_str(), l.as_str()))
        .collect();
    assert_eq!(buttons, [("1", "Red"), ("2", "Blue")]);
    p.live = Live::Exited {
        code: None,
        signal: None,
    };
    assert_eq!(
        content(&p, false, Attention::PermissionRequired, FULL)
            .actions
            .len(),
        1
    );
}

#[test]
fn unread_is_announced_only_with_a_completion_and_never_on_a_focused_pane() {
    let settings = Settings::default();
    let mut p = gate(true);
    p.items.push(AttentionItem {
        level: Attention::Unread,
        source: Source::user(),
        at: Timestamp(2),
        decision: None,
    });
    let bell = Touch {
        created: vec![Attention::Unread],
        done: false,
    };
    assert_eq!(wanted(&p, &bell, &settings), None);
    let done = Touch {
        created: vec![Attention::Unread],
        done: true,
    };
    assert_eq!(wanted(&p, &done, &settings), Some(Attention::Unread));
    let both = Touch {
        created: vec![Attention::Unread, Attention::PermissionRequired],
        done: true,
    };
    assert_eq!(
        wanted(&p, &both, &settings),
        Some(Attention::PermissionRequired)
    );
    p.focused = true;
    assert_eq!(wanted(&p, &both, &settings), None);
}

#[test]
fn warnings_need_the_setting_and_cleared_levels_are_not_announced() {
    let mut p = gate(true);
    let warn = Touch {
        created: vec![Attention::Warning],
        done: false,
    };
    p.items.push(AttentionItem {
        level: Attention::Warning,
        source: Source::user(),
        at: Timestamp(2),
        decision: None,
    });
    assert_eq!(wanted(&p, &warn, &Settings::default()), None);
    let loud = Settings::parse("[notifications]\nlevels = [\"warning\"]").0;
    assert_eq!(wanted(&p, &warn, &loud), Some(Attention::Warning));
    p.items.retain(|i| i.level != Attention::Warning);
    assert_eq!(wanted(&p, &warn, &loud), None);
}

#[test]
fn a_shown_gate_stays_open_only_while_its_decision_does() {
    let p = gate(true);
    let shown = Shown {
        id: Some(3),
        level: Attention::PermissionRequired,
        decision: Some(7),
        content: None,
    };
    assert!(shown.still_open(Some(&p)));
    let other = Shown {
        decision: Some(8),
        ..shown.clone()
    };
    assert!(!other.still_open(Some(&p)));
    assert!(!shown.still_open(None));
}
