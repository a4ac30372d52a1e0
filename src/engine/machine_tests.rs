//! Tests of [`super::PaneMachine`] kept beside it (titles, hook-closed dialogs).
use super::*;
use crate::model::{Identity, PaneId, Source};

fn titled(title: &str, at: i64) -> Signal {
    Signal::new(
        SignalKind::IdentityOnly,
        Source::terminal("title"),
        Timestamp(at),
    )
    .with_identity(Identity {
        title: Some(title.into()),
        ..Identity::default()
    })
}

#[test]
fn a_spinner_frame_of_the_title_is_a_title_only_change() {
    let mut next = 0;
    let pane = Pane::new(PaneId(1), "/w", "main", "", AgentKind::Claude, Timestamp(0));
    let mut m = PaneMachine::new(pane);
    m.step_signal(&titled("✳ Claude Code", 1), &mut next);
    let before = m.clone();
    m.step_signal(&titled("◐ Claude Code", 2), &mut next);
    assert!(before.clone().differs_in_title_only(&m));
    assert!(
        !before.clone().differs_in_title_only(&before),
        "no change at all"
    );
    // The title and the lifecycle: more than the title.
    let working = Signal::new(
        SignalKind::TurnStarted,
        Source::terminal("test"),
        Timestamp(3),
    );
    m.step_signal(&working, &mut next);
    m.step_signal(&titled("◑ Claude Code", 3), &mut next);
    assert_ne!(before.lifecycle, m.lifecycle);
    assert!(!before.differs_in_title_only(&m));
}

/// The timeline of a real OpenCode run: its hook opened the gate, the user's Enter
/// and its hook closed it 91 ms later, and only then did the chrome first read the
/// dialog, still drawn on its way out. That reading opens nothing; the same dialog
/// still drawn once the answer settled is open again.
#[test]
fn a_dialog_first_read_just_after_its_hook_closed_it_opens_nothing() {
    use crate::engine::dialogs::ShownDialog;
    use crate::model::{DecisionKind, Rung};
    let mut next = 0;
    let pane = Pane::new(
        PaneId(1),
        "/w",
        "main",
        "",
        AgentKind::OpenCode,
        Timestamp(0),
    );
    let mut m = PaneMachine::new(pane);
    let hook = |kind, at| Signal::new(kind, Source::new(Rung::LifecycleHooks, "t"), Timestamp(at));
    m.step_signal(&hook(SignalKind::TurnStarted, 100), &mut next);
    let asked = SignalKind::PermissionRequested {
        prompt: "bash: echo hi".into(),
        options: Vec::new(),
        answer_keys: Vec::new(),
        tool_use_id: None,
    };
    m.step_signal(&hook(asked, 447), &mut next);
    assert!(m.pending_decision.is_some());
    let replied = SignalKind::ToolFinished {
        tool: None,
        tool_use_id: None,
    };
    m.step_signal(&hook(replied, 538), &mut next);
    assert!(m.pending_decision.is_none(), "the hook closed it");
    let shown = ShownDialog {
        rule: "permission-dialog".into(),
        kind: DecisionKind::Permission,
        prompt: "permission prompt".into(),
        reason: "permission prompt".into(),
        options: vec!["Allow once".into(), "Reject".into()],
        choices: vec!["allow".into(), "deny".into()],
    };
    let chrome = |changed| Input::Chrome {
        shown: Some(shown.clone()),
        closed: None,
        changed,
    };
    let out = m.step(chrome(true), Timestamp(568), &mut next).unwrap();
    assert!(m.pending_decision.is_none(), "{:?}", out.events);
    let out = m.step(chrome(false), Timestamp(650), &mut next).unwrap();
    assert!(m.pending_decision.is_none(), "{:?}", out.events);
    // A dialog read anew later is a new dialog.
    let none = Input::Chrome {
        shown: None,
        closed: None,
        changed: true,
    };
    m.step(none, Timestamp(725), &mut next).unwrap();
    m.step(
        chrome(true),
        Timestamp(538 + HOOK_CLOSE_LAG_MS + 1),
        &mut next,
    )
    .unwrap();
    assert!(m.pending_decision.is_some(), "a new dialog opens");
}

/// Claude Code 2.1.332's `PermissionRequest` names three options; its dialog draws four
/// ("3. Yes, and switch to auto mode"). The numbers Attend lists are the dialog's: the
/// chrome's reading sets the hook's decision's options — the same decision, no second
/// one (`docs/lifecycle-attention.md#one-verdict`).
#[test]
fn the_chrome_sets_the_options_of_a_hooks_gate_that_named_others() {
    let mut next = 0;
    let pane = Pane::new(PaneId(1), "/w", "main", "", AgentKind::Claude, Timestamp(0));
    let mut m = PaneMachine::new(pane);
    let hook = Signal::new(
        SignalKind::PermissionRequested {
            prompt: "Bash: echo hi".into(),
            options: vec!["Yes".into(), "Yes, and don't ask again".into(), "No".into()],
            answer_keys: Vec::new(),
            tool_use_id: None,
        },
        Source::hook("claude", "PermissionRequest"),
        Timestamp(1_000),
    );
    m.step_signal(&hook, &mut next);
    let id = m.pending_decision.as_ref().unwrap().id;
    let drawn: Vec<String> = [
        "Yes",
        "Yes, and always allow access to tmp/ from this project",
        "Yes, and switch to auto mode",
        "No",
    ]
    .map(String::from)
    .to_vec();
    let shown = ShownDialog {
        rule: "permission-dialog".into(),
        reason: "permission prompt".into(),
        kind: crate::model::DecisionKind::Permission,
        prompt: "Do you want to proceed?".into(),
        options: drawn.clone(),
        choices: vec!["allow".into(), "deny".into()],
    };
    let chrome = Input::Chrome {
        shown: Some(shown),
        closed: None,
        changed: true,
    };
    let out = m.step(chrome, Timestamp(1_100), &mut next).unwrap();
    let d = m.pending_decision.as_ref().unwrap();
    assert_eq!(d.id, id, "the same decision");
    assert_eq!(d.options, drawn);
    assert_eq!(d.kind, crate::model::DecisionKind::Permission);
    assert!(
        !out.events
            .iter()
            .any(|(k, _)| matches!(k, EventKind::DecisionOpened { .. })),
        "{:?}",
        out.events
    );
}
