//! The SQLite store against a real file in a temporary directory: the world round-trips
//! (after every step and after a reopen), the event log pages in seq order, hook
//! deliveries de-duplicate, counters continue after a restart, a batch is all or nothing,
//! corrupt files are reported (never silently replaced) and can be moved aside.

use attend::engine::{NewPane, World};
use attend::model::*;
use attend::service::store::db::{move_aside, Db, DbError, DB_FILE};
use rusqlite::Connection;
use std::collections::BTreeSet;
use std::path::Path;

const T0: i64 = 1_800_000_000_000;

fn t(offset_s: i64) -> Timestamp {
    Timestamp(T0 + offset_s * 1000)
}

fn claude(event: &str) -> Source {
    Source::hook("claude", event)
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Drives the real engine through a day's worth of changes on five panes, calling
/// `after(world, pane, events)` after each step: a Claude pane blocked on a permission
/// gate with a working task, a Codex pane whose turn ended (held, attached), a shell that
/// failed, a pane whose question was answered, and a pane added then removed.
fn scenario(world: &mut World, mut after: impl FnMut(&World, PaneId, Vec<Event>)) {
    let spec = |workspace: &str, tab: &str, agent: AgentKind| NewPane {
        workspace: workspace.into(),
        tab: tab.into(),
        agent,
        cwd: Some(workspace.into()),
        command: strings(&[agent.as_str()]),
        owned: true,
        ..Default::default()
    };

    let (p1, ev) = world.add_pane(spec("/src/attend", "main", AgentKind::Claude), t(0));
    after(world, p1, ev);
    let identity = Identity {
        session_id: Some("sess-1".into()),
        resume_argv: Some(strings(&["claude", "--resume", "sess-1"])),
        cwd: Some("/src/attend".into()),
        title: Some("fix the tests".into()),
    };
    let started = Signal::new(
        SignalKind::SessionStarted {
            source: Some("startup".into()),
        },
        claude("SessionStart"),
        t(1),
    );
    let steps = [
        started.with_identity(identity),
        Signal::new(SignalKind::TurnStarted, claude("UserPromptSubmit"), t(2)),
        Signal::new(
            SignalKind::PermissionRequested {
                prompt: "Bash: cargo test".into(),
                options: strings(&["Yes", "No"]),
                answer_keys: vec![AnswerKey {
                    choice: "allow".into(),
                    keys: "1".into(),
                }],
                tool_use_id: Some("toolu_1".into()),
            },
            claude("PermissionRequest"),
            t(3),
        ),
    ];
    for signal in &steps {
        let ev = world.apply_signal(p1, signal).unwrap();
        after(world, p1, ev);
    }
    let (task, ev) = world.add_task(p1, "make the tests pass", t(4)).unwrap();
    after(world, p1, ev);
    let ev = world
        .set_task_state(
            task,
            TaskState::Working,
            Some("on it"),
            Source::user(),
            t(5),
        )
        .unwrap();
    after(world, p1, ev);

    let (p2, ev) = world.add_pane(spec("/src/attend", "review", AgentKind::Codex), t(6));
    after(world, p2, ev);
    let codex = |event: &str| Source::hook("codex", event);
    for signal in [
        Signal::new(SignalKind::TurnStarted, codex("prompt"), t(7)),
        Signal::new(
            SignalKind::TurnStopped {
                summary: Some("All 42 tests pass".into()),
            },
            codex("agent-turn-complete"),
            t(8),
        ),
    ] {
        let ev = world.apply_signal(p2, &signal).unwrap();
        after(world, p2, ev);
    }
    let hold = Hold {
        owner: "ci".into(),
        wake: t(3600),
        reason: Some("waiting for CI".into()),
    };
    let ev = world.set_hold(p2, Some(hold), t(9)).unwrap();
    after(world, p2, ev);
    let (ev, _) = world.apply_action(p2, &Action::Attach, t(10)).unwrap();
    after(world, p2, ev);

    let (p3, ev) = world.add_pane(spec("/tmp/scratch", "main", AgentKind::Shell), t(11));
    after(world, p3, ev);
    for signal in [
        Signal::new(
            SignalKind::Prompt(PromptMark::CommandExecuted),
            Source::terminal("osc133"),
            t(12),
        ),
        Signal::new(
            SignalKind::ProcessExited {
                code: Some(2),
                signal: None,
            },
            Source::process("exit"),
            t(13),
        ),
    ] {
        let ev = world.apply_signal(p3, &signal).unwrap();
        after(world, p3, ev);
    }

    let (p4, ev) = world.add_pane(spec("/src/other", "main", AgentKind::Gemini), t(14));
    after(world, p4, ev);
    let question = SignalKind::QuestionAsked {
        prompt: "Which branch?".into(),
        options: strings(&["main", "dev"]),
        answer_keys: vec![],
    };
    let ev = world
        .apply_signal(
            p4,
            &Signal::new(question, Source::hook("gemini", "Notification"), t(15)),
        )
        .unwrap();
    after(world, p4, ev);
    let answer = Action::Answer {
        choice: "main".into(),
    };
    let (ev, _) = world.apply_action(p4, &answer, t(16)).unwrap();
    after(world, p4, ev);

    let (p5, ev) = world.add_pane(spec("/src/gone", "main", AgentKind::Cursor), t(17));
    after(world, p5, ev);
    let ev = world.remove_pane(p5, Source::user(), t(18)).unwrap();
    after(world, p5, ev);
}

/// What the store keeps of a world: every pane's state and the counters (a machine's
/// evidence is not stored: a restart inherits no rung authority).
fn stored(
    w: &World,
) -> (
    std::collections::BTreeMap<PaneId, attend::model::Pane>,
    [u64; 4],
) {
    (
        w.snapshot(),
        [w.last_pane, w.last_decision, w.last_task, w.seq],
    )
}

/// The scenario, persisted after every step; also returns the whole event log.
fn stepwise(db: &mut Db) -> (World, Vec<Event>) {
    let mut world = World::new();
    let mut log = Vec::new();
    scenario(&mut world, |w, pane, events| {
        db.commit(w, &[pane], &events, &[]).unwrap();
        assert_eq!(
            stored(&db.load().unwrap()),
            stored(w),
            "after events {events:?}"
        );
        log.extend(events);
    });
    (world, log)
}

fn count(path: &Path, sql: &str) -> i64 {
    Connection::open(path)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

#[test]
fn the_world_round_trips_after_every_step_and_after_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open_in(dir.path()).unwrap();
    assert_eq!(db.path(), dir.path().join(DB_FILE));
    assert_eq!(stored(&db.load().unwrap()), stored(&World::new()));

    let (world, log) = stepwise(&mut db);
    let p1 = world.pane(PaneId(1)).unwrap();
    assert!(p1.pending_decision.is_some() && !p1.tasks.is_empty());
    assert!(world.pane(PaneId(2)).unwrap().hold.is_some());
    assert!(!world.pane(PaneId(3)).unwrap().live.is_running());
    assert!(!world.panes().contains_key(&PaneId(5)));
    drop(db);

    let db = Db::open_in(dir.path()).unwrap();
    assert_eq!(stored(&db.load().unwrap()), stored(&world));
    assert_eq!(db.events_after(0, 1000).unwrap(), log);
    assert_eq!(log.last().unwrap().seq, world.seq);
}

#[test]
fn one_batch_of_everything_equals_step_by_step() {
    let dir = tempfile::tempdir().unwrap();
    let mut world = World::new();
    let mut touched = BTreeSet::new();
    let mut log = Vec::new();
    scenario(&mut world, |_, pane, events| {
        touched.insert(pane);
        log.extend(events);
    });
    let touched: Vec<PaneId> = touched.into_iter().collect();
    let mut db = Db::open_in(dir.path()).unwrap();
    db.commit(&world, &touched, &log, &[]).unwrap();
    drop(db);
    let db = Db::open_in(dir.path()).unwrap();
    assert_eq!(stored(&db.load().unwrap()), stored(&world));
    assert_eq!(db.events_after(0, u32::MAX).unwrap(), log);
}

#[test]
fn every_pane_field_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let decision = Decision {
        id: 7,
        kind: DecisionKind::Question,
        prompt: "Proceed?".into(),
        options: strings(&["yes", "no"]),
        answer_keys: vec![AnswerKey {
            choice: "yes".into(),
            keys: "y\r".into(),
        }],
        tool_use_id: Some("call-9".into()),
        source: Source::new(Rung::NeedsInputChrome, "manifest:claude"),
        opened_at: t(5),
    };
    let item = |level, decision| AttentionItem {
        level,
        source: Source::terminal("bel"),
        at: t(6),
        decision,
    };
    let pane = Pane {
        id: PaneId(3),
        workspace: "/src/x y".into(),
        tab: "tab 2".into(),
        name: "ünïcode 'quoted'".into(),
        agent: AgentKind::Cursor,
        lifecycle: Lifecycle::Blocked,
        last_lifecycle: Some(Lifecycle::Working),
        live: Live::Exited {
            code: None,
            signal: Some(9),
        },
        exited_at: Some(t(4)),
        items: vec![
            item(Attention::Unread, None),
            item(Attention::InputRequired, Some(7)),
        ],
        pending_decision: Some(decision),
        session_id: Some("s".into()),
        resume_argv: Some(vec![]),
        cwd: Some("/src/x y/sub".into()),
        repo: Some("/src/x y".into()),
        branch: Some("feature/db".into()),
        title: Some("title".into()),
        last_message: Some("line one\nline two".into()),
        last_message_at: Some(t(1)),
        last_seen_at: Some(t(2)),
        attention_changed_at: Some(t(3)),
        done_at: Some(Timestamp(-5)),
        focused: true,
        oneshot: true,
        hooks_seen: true,
        limit_reason: Some("usage limit".into()),
        tasks: vec![Task {
            id: 4,
            pane: PaneId(3),
            text: "t".into(),
            state: TaskState::InputRequired,
            message: None,
            created_at: t(0),
            updated_at: t(9),
        }],
        hold: Some(Hold {
            owner: "me".into(),
            wake: t(99),
            reason: None,
        }),
        command: strings(&["cursor-agent", "--flag=a b"]),
        owned: true,
        created_at: t(0),
        start_quiet: Some(StartQuiet::Timed { since: t(1) }),
        kill_requested_at: Some(t(8)),
        tmux: Some(attend::model::TmuxLocation {
            socket: "/tmp/tmux-1000/default".into(),
            server_pid: 4242,
            pane: "%3".into(),
            place: "work:0.1".into(),
        }),
        worktree: Some("/src/x y.worktrees/feature-db".into()),
    };
    let mut world = World::default();
    world.restore_pane(pane);
    (world.last_pane, world.last_decision, world.last_task) = (3, 7, 4);
    let mut db = Db::open_in(dir.path()).unwrap();
    db.commit(&world, &[PaneId(3)], &[], &[]).unwrap();
    drop(db);
    assert_eq!(
        stored(&Db::open_in(dir.path()).unwrap().load().unwrap()),
        stored(&world)
    );
}

#[test]
fn events_page_in_seq_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open_in(dir.path()).unwrap();
    let (world, log) = stepwise(&mut db);
    assert!(log.len() > 10);

    let mut paged = Vec::new();
    let mut after = 0;
    loop {
        let page = db.events_after(after, 4).unwrap();
        assert!(page.len() <= 4);
        let Some(last) = page.last() else { break };
        after = last.seq;
        paged.extend(page);
    }
    assert_eq!(paged, log);
    assert!(paged.windows(2).all(|w| w[0].seq < w[1].seq));
    assert_eq!(db.events_after(world.seq, 10).unwrap(), vec![]);
    assert_eq!(db.events_after(3, 2).unwrap(), log[3..5].to_vec());
}

#[test]
fn event_rows_carry_the_dotted_kind_and_summary_columns() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open_in(dir.path()).unwrap();
    let (_, log) = stepwise(&mut db);
    let conn = Connection::open(db.path()).unwrap();
    let row = |seq: u64| -> (String, Option<String>, Option<String>, String, i64) {
        conn.query_row(
            "SELECT kind, previous, value, source, at FROM events WHERE seq = ?1",
            [seq],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap()
    };
    let working = log
        .iter()
        .find(|e| {
            matches!(
                e.kind,
                EventKind::Agent {
                    value: Lifecycle::Working,
                    ..
                }
            )
        })
        .unwrap();
    let (kind, previous, value, source, at) = row(working.seq);
    assert_eq!(kind, "agent.working");
    assert_eq!(previous.as_deref(), Some("idle"));
    assert_eq!(value.as_deref(), Some("working"));
    assert_eq!(source, "lifecycle-hooks:claude.UserPromptSubmit");
    assert_eq!(at, working.at.0);
    let resolved = log
        .iter()
        .find(|e| matches!(e.kind, EventKind::DecisionResolved { .. }))
        .unwrap();
    let (kind, _, value, _, _) = row(resolved.seq);
    assert_eq!(
        (kind.as_str(), value.as_deref()),
        ("decision.resolved", Some("answered"))
    );
}

#[test]
fn the_event_log_is_append_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open_in(dir.path()).unwrap();
    stepwise(&mut db);
    let conn = Connection::open(db.path()).unwrap();
    assert!(conn
        .execute("UPDATE events SET kind = 'x' WHERE seq = 1", [])
        .is_err());
    assert!(conn
        .execute("DELETE FROM events WHERE seq = 1", [])
        .is_err());
    assert_eq!(db.events_after(0, 1).unwrap()[0].kind, EventKind::PaneAdded);
}

#[test]
fn answered_decisions_are_kept_resolved_and_removed_panes_leave_no_rows() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open_in(dir.path()).unwrap();
    stepwise(&mut db);
    let path = db.path();
    // p4's question was answered: kept, resolved, with its resolution and time.
    let (resolved, resolved_at, resolution): (i64, Option<i64>, Option<String>) =
        Connection::open(path)
            .unwrap()
            .query_row(
                "SELECT resolved, resolved_at, resolution FROM decisions WHERE pane = 'p4'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
    assert_eq!((resolved, resolved_at), (1, Some(t(16).0)));
    let resolution: Resolution = serde_json::from_str(&resolution.unwrap()).unwrap();
    assert_eq!(
        resolution,
        Resolution::Answered {
            choice: "main".into()
        }
    );
    assert_eq!(
        count(path, "SELECT count(*) FROM decisions WHERE resolved = 0"),
        1
    );
    // p5 was removed: no pane row, and its workspace and tab went with it.
    assert_eq!(count(path, "SELECT count(*) FROM panes WHERE id = 'p5'"), 0);
    assert_eq!(
        count(
            path,
            "SELECT count(*) FROM workspaces WHERE key = '/src/gone'"
        ),
        0
    );
    assert_eq!(
        count(
            path,
            "SELECT count(*) FROM tabs WHERE workspace = '/src/gone'"
        ),
        0
    );
    // Live panes keep theirs, with the display name.
    let name: String = Connection::open(path)
        .unwrap()
        .query_row(
            "SELECT name FROM workspaces WHERE key = '/src/attend'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(name, "attend");
    assert_eq!(
        count(
            path,
            "SELECT count(*) FROM tabs WHERE workspace = '/src/attend'"
        ),
        2
    );
}

#[test]
fn deliveries_are_recorded_once_and_a_failed_batch_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open_in(dir.path()).unwrap();
    let mut world = World::new();
    let (p1, ev) = world.add_pane(
        NewPane {
            workspace: "/w".into(),
            ..Default::default()
        },
        t(0),
    );
    db.commit(&world, &[p1], &ev, &[("d-1".into(), world.seq, t(0))])
        .unwrap();
    assert_eq!(db.delivery_seen("d-1").unwrap(), Some(world.seq));
    assert_eq!(db.delivery_seen("d-2").unwrap(), None);
    let saved = world.clone();

    // A replay of d-1 in a later batch: rejected, and none of that batch is written.
    let ev = world
        .apply_signal(
            p1,
            &Signal::new(SignalKind::Bell, Source::terminal("bel"), t(1)),
        )
        .unwrap();
    let (p2, ev2) = world.add_pane(
        NewPane {
            workspace: "/v".into(),
            ..Default::default()
        },
        t(1),
    );
    let events: Vec<Event> = ev.into_iter().chain(ev2).collect();
    let err = db
        .commit(
            &world,
            &[p1, p2],
            &events,
            &[("d-2".into(), 2, t(1)), ("d-1".into(), 2, t(1))],
        )
        .unwrap_err();
    assert!(
        matches!(&err, DbError::DuplicateDelivery(id) if id == "d-1"),
        "{err:?}"
    );
    assert_eq!(stored(&db.load().unwrap()), stored(&saved));
    assert_eq!(db.events_after(saved.seq, 10).unwrap(), vec![]);
    assert_eq!(db.delivery_seen("d-2").unwrap(), None);

    // A seq already in the log also fails the whole batch.
    assert!(db
        .commit(
            &world,
            &[p1, p2],
            &saved_events(&db),
            &[("d-3".into(), 1, t(1))]
        )
        .is_err());
    assert_eq!(db.delivery_seen("d-3").unwrap(), None);
    assert_eq!(stored(&db.load().unwrap()), stored(&saved));

    drop(db);
    let db = Db::open_in(dir.path()).unwrap();
    assert_eq!(db.delivery_seen("d-1").unwrap(), Some(saved.seq));
}

fn saved_events(db: &Db) -> Vec<Event> {
    db.events_after(0, 100).unwrap()
}

#[test]
fn counters_continue_after_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open_in(dir.path()).unwrap();
    let (before, log) = stepwise(&mut db);
    drop(db);

    let mut db = Db::open_in(dir.path()).unwrap();
    let mut world = db.load().unwrap();
    assert_eq!(
        (
            world.last_pane,
            world.last_decision,
            world.last_task,
            world.seq
        ),
        (
            before.last_pane,
            before.last_decision,
            before.last_task,
            before.seq
        )
    );
    let (p, ev) = world.add_pane(
        NewPane {
            workspace: "/w".into(),
            ..Default::default()
        },
        t(20),
    );
    assert_eq!(p, PaneId(before.last_pane + 1));
    assert_eq!(ev[0].seq, before.seq + 1);
    let (task, ev2) = world.add_task(p, "next", t(21)).unwrap();
    assert_eq!(task, before.last_task + 1);
    let gate = SignalKind::PermissionRequested {
        prompt: "Edit".into(),
        options: vec![],
        answer_keys: vec![],
        tool_use_id: None,
    };
    let ev3 = world
        .apply_signal(p, &Signal::new(gate, claude("PermissionRequest"), t(22)))
        .unwrap();
    let opened = world.pane(p).unwrap().pending_decision.as_ref().unwrap().id;
    assert_eq!(opened, before.last_decision + 1);
    let events: Vec<Event> = ev.into_iter().chain(ev2).chain(ev3).collect();
    db.commit(&world, &[p], &events, &[]).unwrap();
    drop(db);

    let db = Db::open_in(dir.path()).unwrap();
    assert_eq!(stored(&db.load().unwrap()), stored(&world));
    let all = db.events_after(0, 1000).unwrap();
    assert_eq!(all, log.into_iter().chain(events).collect::<Vec<_>>());
}

#[test]
fn migrations_are_idempotent_and_the_file_is_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open_in(dir.path()).unwrap();
    let (world, _) = stepwise(&mut db);
    // A second handle on the same file while the first is open, then a reopen.
    let second = Db::open_in(dir.path()).unwrap();
    assert_eq!(stored(&second.load().unwrap()), stored(&world));
    drop((db, second));
    let db = Db::open_in(dir.path()).unwrap();
    assert_eq!(stored(&db.load().unwrap()), stored(&world));

    let conn = Connection::open(db.path()).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 7);
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn the_state_directory_is_created_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state/attend");
    let db = Db::open_in(&state).unwrap();
    assert!(db.path().is_file());
    let mode = std::fs::metadata(&state).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
}

#[test]
fn a_garbage_file_is_corrupt_and_can_be_moved_aside() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DB_FILE);
    std::fs::write(&path, vec![0x5a; 8192]).unwrap();

    let err = Db::open(&path).unwrap_err();
    assert!(
        matches!(&err, DbError::Corrupt { path: p, .. } if p == &path),
        "{err:?}"
    );
    // Never silently started fresh: the bad bytes are still there.
    assert_eq!(std::fs::read(&path).unwrap(), vec![0x5a; 8192]);

    // Companions left by the crashed daemon travel with the file.
    let companion = |base: &Path, suffix: &str| {
        let mut name = base.as_os_str().to_owned();
        name.push(suffix);
        std::path::PathBuf::from(name)
    };
    std::fs::write(companion(&path, "-wal"), b"stale wal").unwrap();
    std::fs::write(companion(&path, "-shm"), b"stale shm").unwrap();
    let moved = move_aside(&path).unwrap();
    assert_eq!(moved.parent(), Some(dir.path()));
    let name = moved.file_name().unwrap().to_str().unwrap();
    let ms = name.strip_prefix("attend.db.corrupt-").unwrap();
    assert!(ms.parse::<u64>().unwrap() > 1_700_000_000_000, "{name}");
    assert_eq!(std::fs::read(&moved).unwrap(), vec![0x5a; 8192]);
    for suffix in ["-wal", "-shm"] {
        assert!(!companion(&path, suffix).exists());
        assert!(companion(&moved, suffix).exists());
    }
    assert!(!path.exists());

    let db = Db::open(&path).unwrap();
    assert_eq!(stored(&db.load().unwrap()), stored(&World::new()));
}

#[test]
fn a_damaged_page_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open_in(dir.path()).unwrap();
    stepwise(&mut db);
    let path = db.path().to_path_buf();
    drop(db);
    assert!(
        !dir.path().join("attend.db-wal").exists(),
        "closing checkpoints the WAL"
    );

    // Keep the header page, overwrite every b-tree page after it.
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 8192);
    bytes[4096..].fill(0xa7);
    std::fs::write(&path, bytes).unwrap();

    let err = Db::open(&path).unwrap_err();
    assert!(matches!(err, DbError::Corrupt { .. }), "{err:?}");
}

#[test]
fn move_aside_of_a_missing_file_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let err = move_aside(&dir.path().join(DB_FILE)).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
}
