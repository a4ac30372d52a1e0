//! The wire shape of a pane survives the D-Bus encoding: every optional field set, none
//! set, and any mix (proptest), read back both as the struct (the CLI, the panel) and
//! one dictionary at a time (the remote mirror); the keys and types stay those of
//! `docs/dbus-api.md#pane-getpane-listpanes`.

use super::*;
use crate::client::wire::{from_dict, to_dict};
use crate::client::Dict;
use proptest::prelude::*;
use zbus::zvariant::{serialized::Context, to_bytes, LE};

/// `p` encoded as D-Bus bytes and read back by the client: as the struct, and as a
/// dictionary then the struct (how the mirror reads one pane at a time).
fn round_trip(p: &WirePane) -> (WirePane, WirePane) {
    let bytes = to_bytes(Context::new_dbus(LE, 0), p).unwrap();
    let (direct, _): (WirePane, _) = bytes.deserialize().unwrap();
    let (dict, _): (Dict, _) = bytes.deserialize().unwrap();
    (direct, from_dict::<WirePane>(&dict).unwrap())
}

fn decision(gate: Option<bool>, tool_use_id: Option<String>) -> WireDecision {
    WireDecision {
        id: u64::MAX,
        kind: "permission".into(),
        prompt: "Bash: make\nline two".into(),
        options: vec!["Yes".into(), "No".into()],
        choices: vec!["allow".into(), "deny".into()],
        source: "lifecycle-hooks:claude.PermissionRequest".into(),
        opened_at: i64::MIN,
        tool_use_id,
        gate,
    }
}

/// Every optional field set, nested ones included.
fn full() -> WirePane {
    WirePane {
        id: "box:p3".into(),
        name: "api ✓".into(),
        workspace: "/src/api".into(),
        tab: "main".into(),
        agent: "claude".into(),
        lifecycle: "blocked".into(),
        last_lifecycle: Some("working".into()),
        attention: "permission_required".into(),
        live: WireLive {
            state: "exited".into(),
            code: Some(-1),
            signal: Some(9),
        },
        items: Some(vec![WireItem {
            level: "permission_required".into(),
            source: "user:user".into(),
            at: 7,
            decision: Some(4),
        }]),
        pending_decision: Some(decision(Some(true), Some("toolu_1".into()))),
        last_message: Some(String::new()),
        last_message_at: Some(1),
        last_seen_at: Some(2),
        attention_changed_at: Some(3),
        done_at: Some(4),
        exited_at: Some(5),
        created_at: Some(6),
        session_id: Some("s".into()),
        cwd: Some("/src/api/x".into()),
        title: Some("t".into()),
        repo: Some("api".into()),
        branch: Some("main".into()),
        limit_reason: Some("usage".into()),
        resume_argv: Some(vec!["claude".into(), "--resume".into()]),
        command: Some(vec![]),
        focused: true,
        oneshot: Some(false),
        owned: true,
        hooks_seen: Some(true),
        taxonomy: Some(WireTaxonomy {
            session: "present".into(),
            activity: "idle-at-prompt".into(),
            needs_input: WireNeedsInput {
                count: 2,
                reason: Some("permission".into()),
            },
            display: "needs-input".into(),
            resumability: "live".into(),
        }),
        diagnoses: Some(WireDiagnoses {
            parked: false,
            held: true,
            done_unseen: true,
        }),
        tasks: Some(vec![WireTask {
            id: 11,
            pane: "p3".into(),
            text: "ship it".into(),
            state: "reported".into(),
            message: Some("done".into()),
            created_at: 8,
            updated_at: 9,
        }]),
        hold: Some(WireHold {
            owner: "ci".into(),
            wake_at: 10,
            reason: Some("waits".into()),
            armed: true,
        }),
        host: Some("box".into()),
        offline: Some(true),
        location: Some([("kind".to_string(), "owned".to_string())].into()),
        degraded: Some(false),
        worktree: Some("/src/app.worktrees/f".into()),
    }
}

/// No optional field set.
fn bare() -> WirePane {
    WirePane {
        live: WireLive {
            state: "running".into(),
            code: None,
            signal: None,
        },
        last_lifecycle: None,
        items: None,
        pending_decision: None,
        last_message: None,
        last_message_at: None,
        last_seen_at: None,
        attention_changed_at: None,
        done_at: None,
        exited_at: None,
        created_at: None,
        session_id: None,
        cwd: None,
        title: None,
        repo: None,
        branch: None,
        limit_reason: None,
        resume_argv: None,
        command: None,
        oneshot: None,
        hooks_seen: None,
        taxonomy: None,
        diagnoses: None,
        tasks: None,
        hold: None,
        host: None,
        offline: None,
        location: None,
        degraded: None,
        worktree: None,
        ..full()
    }
}

#[test]
fn a_pane_with_every_optional_field_and_one_with_none_read_back_equal() {
    for p in [full(), bare()] {
        let (direct, by_dict) = round_trip(&p);
        assert_eq!(direct, p);
        assert_eq!(by_dict, p);
    }
}

#[test]
fn an_absent_value_is_a_key_left_out() {
    let mut keys: Vec<String> = to_dict(&bare()).into_keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "agent",
            "attention",
            "focused",
            "id",
            "lifecycle",
            "live",
            "name",
            "owned",
            "tab",
            "workspace"
        ]
    );
    let d = to_dict(&bare());
    let live = to_dict(&bare().live);
    assert_eq!(live.len(), 1, "code and signal left out: {live:?}");
    assert!(!d.contains_key("pending_decision"));
    let decision = to_dict(&decision(None, None));
    assert!(!decision.contains_key("gate") && !decision.contains_key("tool_use_id"));
}

/// The keys and D-Bus types of `docs/dbus-api.md` "Dictionaries" (Pane, Decision, Remote
/// pane): the wire struct sends the bytes the dictionaries always had.
#[test]
fn every_key_has_its_documented_type() {
    let sig = |d: &Dict| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = d
            .iter()
            .map(|(k, v)| (k.clone(), v.value_signature().to_string()))
            .collect();
        v.sort();
        v
    };
    let s = |k: &str, t: &str| (k.to_string(), t.to_string());
    let mut want = vec![
        s("id", "s"),
        s("name", "s"),
        s("workspace", "s"),
        s("tab", "s"),
        s("agent", "s"),
        s("lifecycle", "s"),
        s("last_lifecycle", "s"),
        s("attention", "s"),
        s("live", "a{sv}"),
        s("items", "aa{sv}"),
        s("pending_decision", "a{sv}"),
        s("last_message", "s"),
        s("last_message_at", "x"),
        s("last_seen_at", "x"),
        s("attention_changed_at", "x"),
        s("done_at", "x"),
        s("exited_at", "x"),
        s("created_at", "x"),
        s("session_id", "s"),
        s("cwd", "s"),
        s("title", "s"),
        s("repo", "s"),
        s("branch", "s"),
        s("limit_reason", "s"),
        s("resume_argv", "as"),
        s("command", "as"),
        s("focused", "b"),
        s("oneshot", "b"),
        s("owned", "b"),
        s("hooks_seen", "b"),
        s("taxonomy", "a{sv}"),
        s("diagnoses", "a{sv}"),
        s("tasks", "aa{sv}"),
        s("hold", "a{sv}"),
        s("host", "s"),
        s("offline", "b"),
        s("degraded", "b"),
        s("worktree", "s"),
        s("location", "a{ss}"),
    ];
    want.sort();
    assert_eq!(sig(&to_dict(&full())), want);
    let mut want = vec![
        s("id", "t"),
        s("kind", "s"),
        s("prompt", "s"),
        s("options", "as"),
        s("choices", "as"),
        s("source", "s"),
        s("opened_at", "x"),
        s("tool_use_id", "s"),
        s("gate", "b"),
    ];
    want.sort();
    assert_eq!(sig(&to_dict(&decision(Some(true), Some("t".into())))), want);
    let p = full();
    let mut want = vec![s("state", "s"), s("code", "i"), s("signal", "i")];
    want.sort();
    assert_eq!(sig(&to_dict(&p.live)), want);
    let mut want = vec![
        s("level", "s"),
        s("source", "s"),
        s("at", "x"),
        s("decision", "t"),
    ];
    want.sort();
    assert_eq!(sig(&to_dict(&p.items.unwrap()[0])), want);
    let t = p.taxonomy.unwrap();
    let mut want = vec![s("count", "u"), s("reason", "s")];
    want.sort();
    assert_eq!(sig(&to_dict(&t.needs_input)), want);
    let mut want = vec![
        s("id", "t"),
        s("pane", "s"),
        s("text", "s"),
        s("state", "s"),
        s("message", "s"),
        s("created_at", "x"),
        s("updated_at", "x"),
    ];
    want.sort();
    assert_eq!(sig(&to_dict(&p.tasks.unwrap()[0])), want);
}

#[test]
fn a_dictionary_without_a_required_key_is_refused() {
    let mut d = to_dict(&bare());
    d.remove("attention");
    let e = from_dict::<WirePane>(&d).unwrap_err();
    assert!(e.contains("attention"), "{e}");
}

fn text() -> impl Strategy<Value = String> {
    "\\PC{0,12}"
}

fn opt_text() -> impl Strategy<Value = Option<String>> {
    proptest::option::of(text())
}

fn opt_time() -> impl Strategy<Value = Option<i64>> {
    proptest::option::of(any::<i64>())
}

fn opt_bool() -> impl Strategy<Value = Option<bool>> {
    proptest::option::of(any::<bool>())
}

fn opt_strs() -> impl Strategy<Value = Option<Vec<String>>> {
    proptest::option::of(proptest::collection::vec(text(), 0..3))
}

prop_compose! {
    fn a_decision()(id in any::<u64>(), kind in text(), prompt in text(),
                    options in proptest::collection::vec(text(), 0..3),
                    choices in proptest::collection::vec(text(), 0..3), source in text(),
                    opened_at in any::<i64>(), tool_use_id in opt_text(), gate in opt_bool())
                    -> WireDecision {
        WireDecision { id, kind, prompt, options, choices, source, opened_at, tool_use_id, gate }
    }
}

prop_compose! {
    fn a_task()(id in any::<u64>(), pane in text(), text in text(), state in text(),
                message in opt_text(), created_at in any::<i64>(), updated_at in any::<i64>())
                -> WireTask {
        WireTask { id, pane, text, state, message, created_at, updated_at }
    }
}

prop_compose! {
    fn read_time()(taxonomy in proptest::option::of((text(), any::<u32>(), opt_text())),
                   diagnoses in proptest::option::of(any::<(bool, bool, bool)>()),
                   tasks in proptest::option::of(proptest::collection::vec(a_task(), 0..3)),
                   hold in proptest::option::of((text(), any::<i64>(), opt_text(), any::<bool>())))
                   -> (Option<WireTaxonomy>, Option<WireDiagnoses>, Option<Vec<WireTask>>, Option<WireHold>) {
        (
            taxonomy.map(|(s, count, reason)| WireTaxonomy {
                session: s.clone(),
                activity: s.clone(),
                needs_input: WireNeedsInput { count, reason },
                display: s.clone(),
                resumability: s,
            }),
            diagnoses.map(|(parked, held, done_unseen)| WireDiagnoses { parked, held, done_unseen }),
            tasks,
            hold.map(|(owner, wake_at, reason, armed)| WireHold { owner, wake_at, reason, armed }),
        )
    }
}

prop_compose! {
    fn times()(last_message_at in opt_time(), last_seen_at in opt_time(),
               attention_changed_at in opt_time(), done_at in opt_time(),
               exited_at in opt_time(), created_at in opt_time())
               -> [Option<i64>; 6] {
        [last_message_at, last_seen_at, attention_changed_at, done_at, exited_at, created_at]
    }
}

prop_compose! {
    fn texts()(last_lifecycle in opt_text(), last_message in opt_text(), session_id in opt_text(),
               cwd in opt_text(), title in opt_text(), repo in opt_text(), branch in opt_text(),
               limit_reason in opt_text(), host in opt_text())
               -> [Option<String>; 9] {
        [last_lifecycle, last_message, session_id, cwd, title, repo, branch, limit_reason, host]
    }
}

prop_compose! {
    fn a_pane()(id in text(), name in text(), vocab in (text(), text(), text()),
                live in (text(), proptest::option::of(any::<i32>()), proptest::option::of(any::<i32>())),
                items in proptest::option::of(proptest::collection::vec(
                    (text(), text(), any::<i64>(), proptest::option::of(any::<u64>())), 0..3)),
                pending_decision in proptest::option::of(a_decision()),
                times in times(), texts in texts(), argvs in (opt_strs(), opt_strs()),
                flags in (any::<bool>(), any::<bool>(), opt_bool(), opt_bool(), opt_bool(), opt_bool()),
                read_time in read_time())
                -> WirePane {
        let [last_lifecycle, last_message, session_id, cwd, title, repo, branch, limit_reason, host] = texts;
        let [last_message_at, last_seen_at, attention_changed_at, done_at, exited_at, created_at] = times;
        let (focused, owned, oneshot, hooks_seen, offline, degraded) = flags;
        let (taxonomy, diagnoses, tasks, hold) = read_time;
        WirePane {
            id, name, workspace: vocab.0.clone(), tab: vocab.1.clone(), agent: vocab.2.clone(),
            lifecycle: vocab.0, last_lifecycle, attention: vocab.1,
            live: WireLive { state: live.0, code: live.1, signal: live.2 },
            items: items.map(|v| v.into_iter().map(|(level, source, at, decision)| {
                WireItem { level, source, at, decision }
            }).collect()),
            pending_decision, last_message, last_message_at, last_seen_at,
            attention_changed_at, done_at, exited_at, created_at, session_id, cwd, title,
            repo, branch, limit_reason, resume_argv: argvs.0, command: argvs.1, focused,
            oneshot, owned, hooks_seen, taxonomy, diagnoses, tasks, hold, host, offline,
            degraded, location: None, worktree: None,
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_pane_reads_back_as_sent(p in a_pane()) {
        let (direct, by_dict) = round_trip(&p);
        prop_assert_eq!(&direct, &p);
        prop_assert_eq!(&by_dict, &p);
    }
}
