//! Tests of [`super::HostMirror`]: the seq rule, offline hosts and the notification rule.

use super::pane::tests::view;
use super::vocab::MAX_PANES_PER_HOST;
use super::*;
use crate::client::wire::{mirrored, WirePane};
use crate::model::{Attention, HostName, PaneId, PaneRef, Timestamp};
use proptest::prelude::*;
use serde_json::{json, Value};

fn host() -> HostName {
    HostName::parse("buildbox").unwrap()
}

fn rules() -> NotifyRules {
    NotifyRules {
        levels: vec![
            Attention::Unread,
            Attention::Warning,
            Attention::InputRequired,
            Attention::PermissionRequired,
            Attention::Error,
        ],
    }
}

fn pref(s: &str) -> PaneRef {
    PaneRef::parse(s).unwrap()
}

/// One entry of a remote's log.
#[derive(Debug, Clone)]
struct Entry {
    seq: u64,
    kind: String,
    pane: String,
    data: Value,
}

fn created(seq: u64, pane: &str, level: &str) -> Entry {
    Entry {
        seq,
        kind: "attention.created".into(),
        pane: pane.into(),
        data: json!({"level": level, "shown": level, "source": "s"}),
    }
}

fn cleared(seq: u64, pane: &str) -> Entry {
    Entry {
        seq,
        kind: "attention.cleared".into(),
        pane: pane.into(),
        data: json!({"levels": ["unread"], "shown": "none", "source": "s"}),
    }
}

fn feed(m: &mut HostMirror, e: &Entry, origin: Origin) -> Vec<Effect> {
    m.event(RemoteEvent {
        seq: e.seq,
        kind: &e.kind,
        pane: &e.pane,
        data: &e.data,
        origin,
    })
}

/// Carries out `effects` as a shell would against the remote's `log` and `panes`
/// (pages of `page` entries), returning every effect seen, catch-ups included.
fn drive(
    m: &mut HostMirror,
    effects: Vec<Effect>,
    log: &[Entry],
    panes: &[WirePane],
    page: usize,
) -> Vec<Effect> {
    let mut seen = Vec::new();
    let mut queue: std::collections::VecDeque<Effect> = effects.into();
    while let Some(e) = queue.pop_front() {
        assert!(
            seen.len() < 100_000,
            "the effects never end: {:?}",
            &seen[..20]
        );
        match &e {
            Effect::Snapshot => {
                queue.extend(m.snapshot(panes.iter().map(|v| mirrored(&host(), v))))
            }
            Effect::CatchUp { after } => {
                let got: Vec<&Entry> = log.iter().filter(|x| x.seq > *after).take(page).collect();
                for x in &got {
                    queue.extend(feed(m, x, Origin::CatchUp));
                }
                queue.extend(m.page_done(got.len() < page));
            }
            Effect::Refresh { pane } => {
                let v = panes.iter().find(|v| v.id == pane.to_string());
                if let Some(v) = v {
                    queue.extend(m.refreshed(mirrored(&host(), v)));
                }
            }
            _ => {}
        }
        seen.push(e);
    }
    seen
}

fn stamps(effects: &[Effect]) -> Vec<u64> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Stamp { remote_seq, .. } => Some(*remote_seq),
            _ => None,
        })
        .collect()
}

fn notifies(effects: &[Effect]) -> Vec<(String, Attention)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Notify { pane, level, .. } => Some((pane.to_string(), *level)),
            _ => None,
        })
        .collect()
}

fn withdraws(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Withdraw { pane } => Some(pane.to_string()),
            _ => None,
        })
        .collect()
}

/// A mirror connected to a remote with `panes`, caught up on `log`.
fn connected(panes: &[WirePane], log: &[Entry]) -> (HostMirror, Vec<Effect>) {
    let mut m = HostMirror::new(host(), 0, rules(), Timestamp(0));
    let up = m.link_up(Timestamp(1));
    let seen = drive(&mut m, up, log, panes, 100);
    (m, seen)
}

#[test]
fn the_seq_rule_drops_old_applies_next_and_catches_up_on_a_gap() {
    use SeqStep::*;
    assert_eq!(seq_step(5, 5, Origin::Signal), Duplicate);
    assert_eq!(seq_step(5, 2, Origin::CatchUp), Duplicate);
    assert_eq!(seq_step(5, 6, Origin::Signal), Apply);
    assert_eq!(seq_step(5, 7, Origin::Signal), Gap);
    assert_eq!(seq_step(5, 9, Origin::CatchUp), Apply);
}

#[test]
fn a_connect_reads_the_panes_and_catches_up_from_the_persisted_seq() {
    let mut m = HostMirror::new(host(), 41, rules(), Timestamp(0));
    assert!(!m.link().is_up());
    assert_eq!(
        m.link_up(Timestamp(7)),
        [Effect::Snapshot, Effect::CatchUp { after: 41 }]
    );
    assert_eq!(
        m.link(),
        &Link::Connected {
            since: Timestamp(7)
        }
    );
    let log = [created(40, "p1", "error"), created(42, "p1", "warning")];
    let seen = drive(
        &mut m,
        vec![Effect::CatchUp { after: 41 }],
        &log,
        &[view("p1", "warning", "working")],
        100,
    );
    assert_eq!(stamps(&seen), [42]);
    assert_eq!(m.last_seq(), 42);
    let Some(Effect::Stamp { pane, kind, .. }) = seen.get(1) else {
        panic!("{seen:?}")
    };
    assert_eq!(
        (pane.clone(), kind.as_str()),
        (Some(pref("buildbox:p1")), "attention.created")
    );
}

#[test]
fn live_attention_notifies_once_and_its_clearing_withdraws() {
    let panes = [view("p1", "none", "working")];
    let (mut m, seen) = connected(&panes, &[]);
    assert!(notifies(&seen).is_empty());
    let gate = created(1, "p1", "permission_required");
    let out = feed(&mut m, &gate, Origin::Signal);
    assert_eq!(stamps(&out), [1]);
    assert_eq!(
        notifies(&out),
        [("buildbox:p1".to_string(), Attention::PermissionRequired)]
    );
    // The same event again (a catch-up that read it too) is dropped.
    assert!(feed(&mut m, &gate, Origin::Signal).is_empty());
    assert!(feed(&mut m, &gate, Origin::CatchUp).is_empty());
    let out = feed(&mut m, &cleared(2, "p1"), Origin::Signal);
    assert_eq!(withdraws(&out), ["buildbox:p1"]);
    assert_eq!(
        m.pane(PaneId(1)).unwrap().known_attention(),
        Some(Attention::None)
    );
}

#[test]
fn an_external_panes_new_decision_is_read_back_for_its_gate_before_it_is_announced() {
    let decision = json!({"id": 4, "kind": "permission", "prompt": "Bash: make",
        "options": ["Yes", "No"], "choices": ["allow", "deny"], "source": "s",
        "opened_at": "2026-01-01T00:00:00.000Z"});
    let opened = Entry {
        seq: 1,
        kind: "decision.opened".into(),
        pane: "p1".into(),
        data: json!({ "decision": decision }),
    };
    // `GetPane` after the hook: the decision is the gate of a waiting hook run there.
    let mut gated = view("p1", "permission_required", "blocked");
    gated.pending_decision = Some(crate::client::wire::WireDecision {
        id: 4,
        kind: "permission".into(),
        prompt: "Bash: make".into(),
        options: vec!["Yes".into(), "No".into()],
        choices: vec!["allow".into(), "deny".into()],
        source: "s".into(),
        opened_at: 1_767_225_600_000,
        tool_use_id: None,
        gate: Some(true),
    });
    let (mut m, _) = connected(&[view("p1", "none", "working")], &[]);
    let out = feed(&mut m, &opened, Origin::Signal);
    assert_eq!(stamps(&out), [1]);
    assert!(
        out.contains(&Effect::Refresh { pane: PaneId(1) }),
        "{out:?}"
    );
    assert!(notifies(&out).is_empty());
    drive(&mut m, out, &[], std::slice::from_ref(&gated), 100);
    let out = feed(
        &mut m,
        &created(2, "p1", "permission_required"),
        Origin::Signal,
    );
    assert_eq!(
        notifies(&out),
        [("buildbox:p1".to_string(), Attention::PermissionRequired)]
    );
    let d = m.pane(PaneId(1)).unwrap().decision.clone().unwrap();
    assert!(d.id == 4 && d.gate, "{d:?}");

    // A pane its host runs answers by keys: its decision is not read back.
    let mut owned = view("p1", "none", "working");
    owned.owned = true;
    let (mut m, _) = connected(&[owned], &[]);
    let out = feed(&mut m, &opened, Origin::Signal);
    assert!(
        !out.iter().any(|e| matches!(e, Effect::Refresh { .. })),
        "{out:?}"
    );
}

#[test]
fn a_gap_asks_for_one_catch_up_and_reads_on_until_a_short_page() {
    let panes = [view("p1", "none", "working")];
    let (mut m, _) = connected(&panes, &[]);
    let log: Vec<Entry> = (1..=7).map(|s| created(s, "p1", "warning")).collect();
    assert_eq!(
        feed(&mut m, &log[3], Origin::Signal),
        [Effect::CatchUp { after: 0 }]
    );
    // Another gap while the catch-up runs asks for nothing more.
    assert!(feed(&mut m, &log[5], Origin::Signal).is_empty());
    let seen = drive(&mut m, vec![Effect::CatchUp { after: 0 }], &log, &panes, 3);
    assert_eq!(stamps(&seen), [1, 2, 3, 4, 5, 6, 7]);
    // One notification for the pane, not one per event.
    assert_eq!(
        notifies(&seen),
        [("buildbox:p1".to_string(), Attention::Warning)]
    );
}

#[test]
fn a_gap_seen_while_catching_up_reads_once_more() {
    let panes = [view("p1", "none", "working")];
    let (mut m, _) = connected(&panes, &[]);
    let log: Vec<Entry> = (1..=5).map(|s| created(s, "p1", "warning")).collect();
    assert_eq!(
        feed(&mut m, &log[1], Origin::Signal),
        [Effect::CatchUp { after: 0 }]
    );
    // The page is read before events 4 and 5 are committed; 5's signal comes meanwhile.
    for e in &log[..3] {
        feed(&mut m, e, Origin::CatchUp);
    }
    assert!(feed(&mut m, &log[4], Origin::Signal).is_empty());
    assert_eq!(m.page_done(true), [Effect::CatchUp { after: 3 }]);
    for e in &log[3..] {
        feed(&mut m, e, Origin::CatchUp);
    }
    assert_eq!(
        notifies(&m.page_done(true)),
        [("buildbox:p1".to_string(), Attention::Warning)]
    );
    assert_eq!(m.last_seq(), 5);
}

#[test]
fn an_offline_host_greys_its_panes_withdraws_and_comes_back_without_a_storm() {
    let panes = [
        view("p1", "none", "working"),
        view("p2", "none", "working"),
        view("p3", "none", "working"),
    ];
    let (mut m, _) = connected(&panes, &[]);
    let out = feed(
        &mut m,
        &created(1, "p1", "permission_required"),
        Origin::Signal,
    );
    assert_eq!(notifies(&out).len(), 1);
    let out = m.link_down(
        Timestamp(50),
        "ssh: connect to host: Connection refused\x1b[2J\n",
    );
    assert_eq!(withdraws(&out), ["buildbox:p1"]);
    assert_eq!(
        m.link(),
        &Link::Offline {
            since: Timestamp(50),
            error: Some("ssh: connect to host: Connection refused".into())
        }
    );
    assert!(m.panes().all(|p| p.offline));
    // Meanwhile on the host: p1's gate stays, p2 gets 30 warnings, p3 gets one that is
    // cleared again.
    let mut log = vec![created(1, "p1", "permission_required")];
    for s in 2..32 {
        log.push(created(s, "p2", "warning"));
    }
    log.push(created(32, "p3", "error"));
    log.push(cleared(33, "p3"));
    let now = [
        view("p1", "permission_required", "blocked"),
        view("p2", "warning", "working"),
        view("p3", "none", "working"),
    ];
    let up = m.link_up(Timestamp(60));
    let seen = drive(&mut m, up, &log, &now, 10);
    assert_eq!(stamps(&seen), (2..=33).collect::<Vec<_>>());
    assert_eq!(
        notifies(&seen),
        [
            ("buildbox:p1".to_string(), Attention::PermissionRequired),
            ("buildbox:p2".to_string(), Attention::Warning)
        ]
    );
    assert!(m.panes().all(|p| !p.offline));
    // A second drop while caught up and a reconnect with nothing new: the gate is shown
    // again once, nothing else.
    m.link_down(Timestamp(70), "");
    let up = m.link_up(Timestamp(80));
    let seen = drive(&mut m, up, &log, &now, 10);
    assert!(stamps(&seen).is_empty());
    assert_eq!(
        notifies(&seen),
        [
            ("buildbox:p1".to_string(), Attention::PermissionRequired),
            ("buildbox:p2".to_string(), Attention::Warning)
        ]
    );
}

#[test]
fn unread_needs_a_completion_and_focused_or_unconfigured_levels_stay_quiet() {
    let panes = [view("p1", "none", "working"), view("p2", "none", "working")];
    let (mut m, _) = connected(&panes, &[]);
    let out = feed(&mut m, &created(1, "p1", "unread"), Origin::Signal);
    assert!(notifies(&out).is_empty());
    let done = Entry {
        seq: 2,
        kind: "agent.done".into(),
        pane: "p1".into(),
        data: json!({"previous": "working", "value": "done"}),
    };
    // The catch-up that read both announces the unread.
    let mut m3 = HostMirror::new(host(), 0, rules(), Timestamp(0));
    let up = m3.link_up(Timestamp(1));
    let seen = drive(&mut m3, up, &[created(1, "p1", "unread"), done], &panes, 10);
    assert_eq!(
        notifies(&seen),
        [("buildbox:p1".to_string(), Attention::Unread)]
    );
    // Focused on its host: no notification.
    let mut focused = view("p2", "none", "working");
    focused.focused = true;
    m.refreshed(mirrored(&host(), &focused));
    assert!(notifies(&feed(&mut m, &created(2, "p2", "error"), Origin::Signal)).is_empty());
    // A level the settings leave out.
    let mut quiet = HostMirror::new(
        host(),
        0,
        NotifyRules {
            levels: vec![Attention::Error],
        },
        Timestamp(0),
    );
    let up = quiet.link_up(Timestamp(1));
    drive(&mut quiet, up, &[], &panes, 10);
    assert!(notifies(&feed(
        &mut quiet,
        &created(1, "p1", "warning"),
        Origin::Signal
    ))
    .is_empty());
}

#[test]
fn removed_and_unknown_panes() {
    let panes = [view("p1", "none", "working")];
    let (mut m, _) = connected(&panes, &[]);
    feed(&mut m, &created(1, "p1", "error"), Origin::Signal);
    let removed = Entry {
        seq: 2,
        kind: "pane.removed".into(),
        pane: "p1".into(),
        data: json!({"source": "user:user"}),
    };
    let out = feed(&mut m, &removed, Origin::Signal);
    assert_eq!(withdraws(&out), ["buildbox:p1"]);
    assert!(m.pane(PaneId(1)).is_none());
    // An event of a pane not mirrored yet asks for it; its attention is announced once
    // it is read.
    let out = feed(&mut m, &created(3, "p9", "error"), Origin::Signal);
    assert_eq!(out.last(), Some(&Effect::Refresh { pane: PaneId(9) }));
    let out = m.refreshed(mirrored(&host(), &view("p9", "error", "failed")));
    assert_eq!(
        notifies(&out),
        [("buildbox:p9".to_string(), Attention::Error)]
    );
    assert_eq!(m.pane(PaneId(9)).unwrap().id, pref("buildbox:p9"));
}

#[test]
fn a_hostile_remote_is_cleaned_and_bounded() {
    let many: Vec<WirePane> = (1..=(MAX_PANES_PER_HOST as u64 + 5))
        .map(|n| view(&format!("p{n}"), "none", "idle"))
        .chain([view("../../etc", "none", "idle")])
        .collect();
    let (mut m, seen) = connected(&many, &[]);
    assert_eq!(m.panes().count(), MAX_PANES_PER_HOST);
    let dropped: Vec<&Effect> = seen
        .iter()
        .filter(|e| matches!(e, Effect::Dropped { .. }))
        .collect();
    assert_eq!(dropped.len(), 2, "{dropped:?}");
    assert!(m.refreshed(mirrored(&host(), &view("p5000", "none", "idle")))[0] != Effect::Snapshot);
    assert!(m.pane(PaneId(5000)).is_none());
    // Events of panes beyond the limit ask for nothing and keep nothing.
    for n in 0..3 {
        let out = feed(
            &mut m,
            &created(n + 1, &format!("p{}", 6000 + n), "error"),
            Origin::Signal,
        );
        assert!(
            matches!(out[..], [Effect::Stamp { .. }, Effect::Dropped { .. }]),
            "{out:?}"
        );
    }
    assert_eq!(m.last_seq(), 3);
    let evil = Entry {
        seq: 4,
        kind: "agent.\x1b]0;x\x07work\u{202e}ing".into(),
        pane: "p1; rm -rf".into(),
        data: json!({"value": "\x1b[31mworking", "at": 3}),
    };
    let out = feed(&mut m, &evil, Origin::Signal);
    assert_eq!(
        out,
        [Effect::Stamp {
            remote_seq: 4,
            kind: "agent.working".into(),
            pane: None,
            data: json!({"value": "working", "at": 3}),
        }]
    );
}

proptest! {
    /// The remote commits its log one event at a time; each signal may be lost or come
    /// twice, the link may drop and come back, the log may skip numbers and the mirror
    /// may start from a persisted seq. Once the signal of the last event arrives, every
    /// event after the persisted seq is stamped exactly once, in order.
    #[test]
    fn nothing_doubled_nothing_missed(
        steps in proptest::collection::vec((any::<bool>(), 0u8..4, any::<bool>()), 1..60),
        at_start in 0usize..10,
        start in 0u64..5,
        page in 1usize..8,
    ) {
        // (hole before this event, signal: 0 lost, 1 once, 2 twice, 3 once late; link drop)
        let mut log: Vec<Entry> = Vec::new();
        let mut seq = 0;
        for (hole, _, _) in &steps {
            seq += if *hole { 2 } else { 1 };
            log.push(created(seq, "p1", "warning"));
        }
        let start = start.min(seq);
        let panes = [view("p1", "warning", "working")];
        let mut m = HostMirror::new(host(), start, rules(), Timestamp(0));
        let mut committed = at_start.min(log.len());
        let up = m.link_up(Timestamp(1));
        let mut seen = drive(&mut m, up, &log[..committed], &panes, page);
        let mut late: Option<Entry> = None;
        for (i, (_, signal, drop)) in steps.iter().enumerate().skip(committed) {
            committed = i + 1;
            let now = &log[..committed];
            if *drop {
                seen.extend(m.link_down(Timestamp(2), "gone"));
                let up = m.link_up(Timestamp(3));
                seen.extend(drive(&mut m, up, now, &panes, page));
            }
            let e = &log[i];
            let mut out = Vec::new();
            match signal {
                1 => out.extend(feed(&mut m, e, Origin::Signal)),
                2 => {
                    out.extend(feed(&mut m, e, Origin::Signal));
                    out.extend(feed(&mut m, e, Origin::Signal));
                }
                3 => {
                    if let Some(l) = late.replace(e.clone()) {
                        out.extend(feed(&mut m, &l, Origin::Signal));
                    }
                }
                _ => {}
            }
            seen.extend(drive(&mut m, out, now, &panes, page));
        }
        // The last event's signal arrives.
        let end = log.last().unwrap().clone();
        let out = feed(&mut m, &end, Origin::Signal);
        seen.extend(drive(&mut m, out, &log, &panes, page));
        let want: Vec<u64> = log.iter().map(|e| e.seq).filter(|s| *s > start).collect();
        prop_assert_eq!(stamps(&seen), want);
        prop_assert_eq!(m.last_seq(), seq.max(start));
        // At most one notification per connection and per live event.
        let drops = steps.iter().filter(|s| s.2).count();
        prop_assert!(notifies(&seen).len() <= 1 + drops + steps.len());
    }
}
