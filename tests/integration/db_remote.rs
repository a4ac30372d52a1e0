//! Remote events in the SQLite store against a real file (docs/remote.md "How remote panes
//! are mirrored"): a remote event takes the next local seq beside local events, names its
//! host and remote seq, and is committed with the host's last remote seq in the batch's
//! one transaction (all or nothing); the seqs survive a reopen and are forgotten for
//! remotes no longer configured; the local readers never see a remote event.

use attend::engine::{NewPane, World};
use attend::model::*;
use attend::service::store::db::{Db, LogEntry, RemoteStamp, RemoteWrites};
use rusqlite::Connection;
use serde_json::json;
use std::collections::BTreeMap;

fn host(name: &str) -> HostName {
    HostName::parse(name).unwrap()
}

/// A remote event of `name`'s pane p1 with the world's next seq.
fn stamp(world: &mut World, name: &str, remote_seq: u64, kind: &str) -> RemoteStamp {
    world.seq += 1;
    RemoteStamp {
        seq: world.seq,
        host: host(name),
        remote_seq,
        kind: kind.into(),
        pane: format!("{name}:p1"),
        data: json!({"source": "hook:claude.Stop", "at": 1_800_000_000_000i64 + remote_seq as i64,
                     "previous": "working", "value": "idle"}),
        at: Timestamp(1_800_000_000_000 + remote_seq as i64),
    }
}

fn writes(stamps: Vec<RemoteStamp>) -> RemoteWrites {
    RemoteWrites {
        stamps,
        forget: Vec::new(),
    }
}

#[test]
fn remote_events_interleave_with_local_ones_and_their_seqs_survive_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open_in(dir.path()).unwrap();
    let mut world = World::new();
    let (p1, local) = world.add_pane(
        NewPane {
            workspace: "/w".into(),
            ..Default::default()
        },
        Timestamp(5),
    );
    let a = stamp(&mut world, "box", 7, "agent.idle");
    let b = stamp(&mut world, "vm-2", 3, "pane.added");
    db.commit_batch(
        &world,
        &[p1],
        &local,
        &[],
        &writes(vec![a.clone(), b.clone()]),
    )
    .unwrap();
    let (_, later) = world.add_pane(
        NewPane {
            workspace: "/v".into(),
            ..Default::default()
        },
        Timestamp(9),
    );
    let c = stamp(&mut world, "box", 8, "agent.working");
    db.commit_batch(&world, &[PaneId(2)], &later, &[], &writes(vec![c.clone()]))
        .unwrap();
    drop(db);

    let db = Db::open_in(dir.path()).unwrap();
    assert_eq!(
        db.load().unwrap(),
        world,
        "the counters count the remote events"
    );
    let log = db.log_after(0, 100).unwrap();
    let expected: Vec<LogEntry> = local
        .iter()
        .cloned()
        .map(LogEntry::Local)
        .chain([a, b].map(LogEntry::Remote))
        .chain(later.iter().cloned().map(LogEntry::Local))
        .chain([LogEntry::Remote(c.clone())])
        .collect();
    assert_eq!(log, expected);
    assert!(log.windows(2).all(|w| w[0].seq() < w[1].seq()));
    assert_eq!(db.log_after(c.seq - 1, 10).unwrap(), [LogEntry::Remote(c)]);
    assert_eq!(
        db.events_after(0, 100).unwrap(),
        local.into_iter().chain(later).collect::<Vec<_>>(),
        "the local reader sees local events only"
    );
    assert_eq!(db.last_lifecycle(p1).unwrap(), None);
    assert_eq!(
        db.remote_seqs().unwrap(),
        BTreeMap::from([(host("box"), 8), (host("vm-2"), 3)])
    );
    let conn = Connection::open(db.path()).unwrap();
    let row: (String, String, Option<String>, i64) = conn
        .query_row(
            "SELECT pane, source, previous, remote_seq FROM events WHERE host = 'box' \
             ORDER BY seq LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(
        row,
        (
            "box:p1".into(),
            "hook:claude.Stop".into(),
            Some("working".into()),
            7
        )
    );
    let local_hosts: i64 = conn
        .query_row("SELECT count(*) FROM events WHERE host IS NULL", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(local_hosts, 2, "a local event has no host");
}

#[test]
fn a_failed_batch_stores_neither_the_remote_event_nor_its_seq() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open_in(dir.path()).unwrap();
    let mut world = World::new();
    let first = stamp(&mut world, "box", 1, "pane.added");
    db.commit_batch(&world, &[], &[], &[], &writes(vec![first.clone()]))
        .unwrap();
    let saved = world.clone();
    // The second stamp reuses a seq already in the log: the whole batch fails.
    let next = stamp(&mut world, "box", 2, "agent.working");
    let mut clash = stamp(&mut world, "box", 3, "agent.idle");
    clash.seq = first.seq;
    assert!(db
        .commit_batch(&world, &[], &[], &[], &writes(vec![next, clash]))
        .is_err());
    assert_eq!(db.remote_seqs().unwrap()[&host("box")], 1);
    assert_eq!(db.log_after(0, 10).unwrap(), [LogEntry::Remote(first)]);
    assert_eq!(db.load().unwrap(), saved);
}

#[test]
fn removed_remotes_forget_their_seq() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open_in(dir.path()).unwrap();
    let mut world = World::new();
    let a = stamp(&mut world, "box", 4, "pane.added");
    let b = stamp(&mut world, "vm", 9, "pane.added");
    db.commit_batch(&world, &[], &[], &[], &writes(vec![a, b]))
        .unwrap();
    // In a batch (a remote removed by ReloadRemotes).
    let forget = RemoteWrites {
        stamps: Vec::new(),
        forget: vec![host("vm")],
    };
    db.commit_batch(&world, &[], &[], &[], &forget).unwrap();
    assert_eq!(
        db.remote_seqs().unwrap(),
        BTreeMap::from([(host("box"), 4)])
    );
    // At start, for the remotes config.toml no longer names.
    let c = stamp(&mut world, "vm", 10, "agent.idle");
    db.commit_batch(&world, &[], &[], &[], &writes(vec![c]))
        .unwrap();
    assert_eq!(
        db.forget_remotes_except(&[host("vm")]).unwrap(),
        [host("box")]
    );
    drop(db);
    let db = Db::open_in(dir.path()).unwrap();
    assert_eq!(
        db.remote_seqs().unwrap(),
        BTreeMap::from([(host("vm"), 10)])
    );
    assert_eq!(
        db.log_after(0, 10).unwrap().len(),
        3,
        "the log keeps their events"
    );
}
