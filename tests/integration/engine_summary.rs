//! "Jump to next unread" ordering and the workspace summary (docs/lifecycle-attention.md#names-and-ordering).

use attend::engine::{next_unread_order, summarize_workspaces, workspace_name, NewPane, World};
use attend::model::*;

fn pane(w: &mut World, ws: &str, agent: AgentKind) -> PaneId {
    w.add_pane(
        NewPane {
            workspace: ws.into(),
            agent,
            ..Default::default()
        },
        Timestamp(0),
    )
    .0
}

fn sig(w: &mut World, p: PaneId, kind: SignalKind, at: i64) {
    w.apply_signal(
        p,
        &Signal::new(kind, Source::hook("claude", "t"), Timestamp(at)),
    )
    .unwrap();
}

fn stop(w: &mut World, p: PaneId, msg: &str, at: i64) {
    sig(
        w,
        p,
        SignalKind::TurnStopped {
            summary: Some(msg.into()),
        },
        at,
    );
}

fn permission(w: &mut World, p: PaneId, at: i64) {
    sig(
        w,
        p,
        SignalKind::PermissionRequested {
            prompt: "Bash: ls".into(),
            options: vec![],
            answer_keys: vec![],
            tool_use_id: None,
        },
        at,
    );
}

#[test]
fn next_unread_orders_by_severity_then_recency_then_id() {
    let mut w = World::new();
    let a = pane(&mut w, "/a", AgentKind::Claude);
    let b = pane(&mut w, "/b", AgentKind::Claude);
    let c = pane(&mut w, "/b", AgentKind::Claude);
    let d = pane(&mut w, "/c", AgentKind::Claude);
    let quiet = pane(&mut w, "/c", AgentKind::Claude);
    stop(&mut w, a, "a", 10); // unread, older
    stop(&mut w, b, "b", 30); // unread, newer
    permission(&mut w, c, 5); // permission, oldest
    stop(&mut w, d, "d", 30); // unread, same time as b → id order
    let _ = quiet;
    assert_eq!(next_unread_order(w.pane_values()), vec![c, b, d, a]);
    assert_eq!(w.next_unread(), Some(c));
}

#[test]
fn next_unread_spans_workspaces_and_skips_focused_pane() {
    let mut w = World::new();
    let a = pane(&mut w, "/a", AgentKind::Claude);
    let b = pane(&mut w, "/b", AgentKind::Claude);
    permission(&mut w, a, 10);
    stop(&mut w, b, "b", 20);
    w.apply_action(a, &Action::Focus, Timestamp(30)).unwrap();
    assert_eq!(next_unread_order(w.pane_values()), vec![b]);
}

#[test]
fn next_unread_empty_when_nothing_outstanding() {
    let mut w = World::new();
    let a = pane(&mut w, "/a", AgentKind::Claude);
    stop(&mut w, a, "x", 1);
    w.apply_action(a, &Action::MarkSeen, Timestamp(2)).unwrap();
    assert_eq!(w.next_unread(), None);
}

#[test]
fn summary_worst_lifecycle_blocked_over_failed_over_working_over_done_over_idle() {
    let order = [
        Lifecycle::Blocked,
        Lifecycle::Failed,
        Lifecycle::Working,
        Lifecycle::Done,
        Lifecycle::Idle,
        Lifecycle::Unknown,
    ];
    for (i, worst) in order.iter().enumerate() {
        let mut w = World::new();
        let mut panes = Vec::new();
        for l in &order[i..] {
            let p = pane(&mut w, "/ws", AgentKind::Claude);
            // The summary is pure over pane values: any lifecycle, however reached.
            let mut value = w.pane(p).unwrap().clone();
            value.lifecycle = *l;
            panes.push(value);
        }
        let s = summarize_workspaces(panes.iter(), Timestamp(0));
        assert_eq!(s[0].worst_lifecycle, *worst);
    }
}

#[test]
fn summary_fields_derive_from_panes() {
    let mut w = World::new();
    let a = pane(&mut w, "/src/webapp", AgentKind::Claude);
    let b = pane(&mut w, "/src/webapp", AgentKind::Codex);
    let c = pane(&mut w, "/src/infra", AgentKind::Shell);
    let git = attend::engine::machine::Input::Git {
        repo: Some("/src/webapp".into()),
        branch: Some("main".into()),
    };
    w.step(a, git, Timestamp(500)).unwrap();
    stop(&mut w, a, "first", 1_000);
    sig(&mut w, b, SignalKind::TurnStarted, 2_000);
    permission(&mut w, b, 3_000);
    sig(&mut w, c, SignalKind::Bell, 4_000);
    // Title changes (screen-derived) never become the latest message.
    let mut t = Signal::new(
        SignalKind::IdentityOnly,
        Source::terminal("title"),
        Timestamp(5_000),
    );
    t.identity.title = Some("screen title".into());
    w.apply_signal(a, &t).unwrap();

    let s = summarize_workspaces(w.pane_values(), Timestamp(10_000));
    assert_eq!(s.len(), 2);
    let web = s.iter().find(|s| s.name == "webapp").unwrap();
    assert_eq!(web.key, "/src/webapp");
    assert_eq!(web.repo.as_deref(), Some("/src/webapp"));
    assert_eq!(web.branch.as_deref(), Some("main"));
    assert_eq!(web.agents, vec![AgentKind::Claude, AgentKind::Codex]);
    assert_eq!(web.worst_lifecycle, Lifecycle::Blocked);
    assert_eq!(web.worst_attention, Attention::PermissionRequired);
    assert_eq!(web.latest_message.as_deref(), Some("Bash: ls"));
    assert_eq!(web.latest_message_pane, Some(b));
    assert_eq!(web.attention_changed_at, Some(Timestamp(3_000)));
    assert_eq!(web.since_attention_change_ms, Some(7_000));
    let infra = s.iter().find(|s| s.name == "infra").unwrap();
    assert_eq!(infra.worst_attention, Attention::Unread);
    assert_eq!(infra.latest_message, None);
}

#[test]
fn workspace_name_is_last_component() {
    assert_eq!(workspace_name("/src/attend"), "attend");
    assert_eq!(workspace_name("/src/attend/"), "attend");
    assert_eq!(workspace_name("scratch"), "scratch");
    assert_eq!(workspace_name("/"), "/");
}

#[test]
fn severity_order_is_the_seed_order() {
    use Attention::*;
    let mut v = vec![
        Unread,
        Error,
        None,
        Warning,
        PermissionRequired,
        InputRequired,
    ];
    v.sort();
    assert_eq!(
        v,
        vec![
            None,
            Unread,
            Warning,
            InputRequired,
            PermissionRequired,
            Error
        ]
    );
}

#[test]
fn demo_output_is_deterministic_and_shows_the_story() {
    let a = attend::cli::demo::demo_text();
    let b = attend::cli::demo::demo_text();
    assert_eq!(a, b);
    assert!(a.contains("permission_required"));
    // After review and session end the claude pane stays done/none (spec 024).
    let last_p1 = a
        .lines()
        .rfind(|l| l.starts_with("p1 "))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        last_p1.contains("done none exited 0 All 42 tests pass"),
        "{last_p1}"
    );
    assert!(a.contains("p3 ") && a.contains("failed"));
}
