//! The schema of `attend.db`, as rusqlite_migration migrations (`PRAGMA user_version`
//! counts the applied ones). Append new migrations; never edit an applied one.
//!
//! Column conventions: pane ids are text (`p1`), as in the event log; times are INTEGER
//! milliseconds since the Unix epoch ([`crate::model::Timestamp`]); enum values are their
//! wire names (`working`, `permission`, `self-report`); a source is its Display form
//! `rung:origin`; booleans are 0/1; lists and tagged values are JSON text.

use rusqlite_migration::{Migrations, M};

/// Every migration, oldest first.
pub(super) fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(V1),
        M::up(V2),
        M::up(V3),
        M::up(V4),
        M::up(V5),
        M::up(V6),
        M::up(V7),
    ])
}

/// Version 7: the git worktree Attend made for a pane (`docs/worktrees.md`): its folder,
/// NULL for every other pane.
const V7: &str = r#"
ALTER TABLE panes ADD COLUMN worktree TEXT;
"#;

/// Version 6: where a pane followed in the user's tmux lives (`docs/tmux.md#identity`):
/// JSON `TmuxLocation`, NULL for every other pane.
const V6: &str = r#"
ALTER TABLE panes ADD COLUMN tmux TEXT;
"#;

/// Version 5: remote events stamped into the log (`docs/remote.md#how-remote-panes-are-mirrored`):
/// an event of a remote host's pane names the host and its seq in that host's log (both
/// NULL for a local event; its `pane` is `NAME:pN`, or empty when the remote named none),
/// and the last remote seq stamped per host, written in the same transaction, where the
/// mirror continues after a restart.
const V5: &str = r#"
ALTER TABLE events ADD COLUMN host TEXT;                    -- NULL: a local event
ALTER TABLE events ADD COLUMN remote_seq INTEGER;           -- the seq in the host's own log
CREATE TABLE remote_seqs (
    host     TEXT PRIMARY KEY NOT NULL,                     -- [remote.NAME] of config.toml
    last_seq INTEGER NOT NULL
) STRICT;
"#;

/// Version 4: when each exited pane's process exited (what `attend rm --exited
/// --older-than` and the automatic removal measure from:
/// `docs/lifecycle-attention.md#removing-panes`); an exited pane of an older file takes
/// its latest `pane.exited` event's time, else its creation time.
const V4: &str = r#"
ALTER TABLE panes ADD COLUMN exited_at INTEGER;
UPDATE panes SET exited_at = COALESCE(
    (SELECT max(e.at) FROM events e WHERE e.pane = panes.id AND e.kind = 'pane.exited'),
    created_at)
WHERE live = 'exited';
"#;

/// Version 3: a fresh interactive shell's quiet start and the user's kill request
/// (`docs/lifecycle-attention.md#quiet-shell-start`, `#process-exited`).
const V3: &str = r#"
ALTER TABLE panes ADD COLUMN start_quiet TEXT;              -- JSON StartQuiet or NULL
ALTER TABLE panes ADD COLUMN kill_requested_at INTEGER;
"#;

/// Version 2: the event log indexed by pane and seq, for a pane's latest event of a kind
/// (`Explain`'s lifecycle source) without a scan of the whole log.
const V2: &str = r#"
CREATE INDEX events_by_pane ON events(pane, seq);
"#;

/// Version 1: the world (workspaces, tabs, panes, decisions, tasks, holds, counters),
/// the append-only event log and the hook delivery ledger.
const V1: &str = r#"
CREATE TABLE workspaces (
    key  TEXT PRIMARY KEY NOT NULL,   -- git top-level path, else the cwd (docs/lifecycle-attention.md#workspace-key)
    name TEXT NOT NULL                -- display name: its last component
) STRICT;

CREATE TABLE tabs (
    workspace TEXT NOT NULL REFERENCES workspaces(key),
    name      TEXT NOT NULL,
    PRIMARY KEY (workspace, name)
) STRICT;

-- One row per pane; one column per field of model::Pane.
CREATE TABLE panes (
    id                   TEXT PRIMARY KEY NOT NULL,   -- p1, p2, ...
    workspace            TEXT NOT NULL,
    tab                  TEXT NOT NULL,
    name                 TEXT NOT NULL,
    agent                TEXT NOT NULL,
    lifecycle            TEXT NOT NULL,
    last_lifecycle       TEXT,
    live                 TEXT NOT NULL,               -- running | exited
    exit_code            INTEGER,
    exit_signal          INTEGER,
    items                TEXT NOT NULL,               -- JSON [AttentionItem]
    session_id           TEXT,
    resume_argv          TEXT,                        -- JSON [string] or NULL
    cwd                  TEXT,
    repo                 TEXT,
    branch               TEXT,
    title                TEXT,
    last_message         TEXT,
    last_message_at      INTEGER,
    last_seen_at         INTEGER,
    attention_changed_at INTEGER,
    done_at              INTEGER,
    focused              INTEGER NOT NULL,
    oneshot              INTEGER NOT NULL,
    hooks_seen           INTEGER NOT NULL,
    limit_reason         TEXT,
    command              TEXT NOT NULL,               -- JSON [string]
    owned                INTEGER NOT NULL,
    created_at           INTEGER NOT NULL,
    FOREIGN KEY (workspace, tab) REFERENCES tabs(workspace, name)
) STRICT;
CREATE INDEX panes_by_tab ON panes(workspace, tab);

-- The open decision of each pane (resolved = 0, at most one per pane) and the resolved
-- ones, kept until their pane is removed.
CREATE TABLE decisions (
    id          INTEGER PRIMARY KEY,
    pane        TEXT NOT NULL REFERENCES panes(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,                        -- permission | question
    prompt      TEXT NOT NULL,
    options     TEXT NOT NULL,                        -- JSON [string]
    answer_keys TEXT NOT NULL,                        -- JSON [AnswerKey]
    tool_use_id TEXT,
    source      TEXT NOT NULL,
    opened_at   INTEGER NOT NULL,
    resolved    INTEGER NOT NULL DEFAULT 0,
    resolved_at INTEGER,
    resolution  TEXT                                  -- JSON Resolution
) STRICT;
CREATE INDEX decisions_by_pane ON decisions(pane);
CREATE UNIQUE INDEX decisions_one_open ON decisions(pane) WHERE resolved = 0;

CREATE TABLE tasks (
    id         INTEGER PRIMARY KEY,
    pane       TEXT NOT NULL REFERENCES panes(id) ON DELETE CASCADE,
    text       TEXT NOT NULL,
    state      TEXT NOT NULL,
    message    TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX tasks_by_pane ON tasks(pane);

CREATE TABLE holds (
    pane   TEXT PRIMARY KEY NOT NULL REFERENCES panes(id) ON DELETE CASCADE,
    owner  TEXT NOT NULL,
    wake   INTEGER NOT NULL,
    reason TEXT
) STRICT;

-- The event log: append-only, outlives the panes it names.
CREATE TABLE events (
    seq      INTEGER PRIMARY KEY,
    pane     TEXT NOT NULL,
    kind     TEXT NOT NULL,                           -- EventKind::name()
    previous TEXT,
    value    TEXT,
    source   TEXT NOT NULL,
    at       INTEGER NOT NULL,
    payload  TEXT NOT NULL                            -- JSON of the whole Event
) STRICT;
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;

-- Hook delivery ids already applied (exactly-once across live calls and spool replay).
CREATE TABLE deliveries (
    delivery_id TEXT PRIMARY KEY NOT NULL,
    seq         INTEGER NOT NULL,
    at          INTEGER NOT NULL
) STRICT;

-- The World counters.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY NOT NULL,
    value INTEGER NOT NULL
) STRICT;
INSERT INTO meta (key, value)
VALUES ('last_pane', 0), ('last_decision', 0), ('last_task', 0), ('seq', 0);
"#;

#[cfg(test)]
mod tests {
    #[test]
    fn migrations_are_valid() {
        super::migrations().validate().unwrap();
    }

    #[test]
    fn a_version_3_database_takes_each_exited_panes_exit_time_from_its_events() {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        let old = [super::V1, super::V2, super::V3].map(rusqlite_migration::M::up);
        rusqlite_migration::Migrations::new(old.to_vec())
            .to_latest(&mut conn)
            .unwrap();
        conn.execute_batch(
            "INSERT INTO workspaces VALUES ('/w', 'w'); INSERT INTO tabs VALUES ('/w', 'main');",
        )
        .unwrap();
        for (id, live) in [("p1", "exited"), ("p2", "exited"), ("p3", "running")] {
            conn.execute(
                "INSERT INTO panes (id, workspace, tab, name, agent, lifecycle, live, items, \
                 focused, oneshot, hooks_seen, command, owned, created_at) \
                 VALUES (?1, '/w', 'main', ?1, 'shell', 'idle', ?2, '[]', 0, 0, 0, '[]', 1, 7)",
                [id, live],
            )
            .unwrap();
        }
        for (seq, pane, kind, at) in [
            (1, "p1", "pane.exited", 100),
            (2, "p1", "pane.changed", 150),
            (3, "p1", "pane.exited", 200),
            (4, "p3", "pane.exited", 300),
        ] {
            conn.execute(
                "INSERT INTO events (seq, pane, kind, source, at, payload) \
                 VALUES (?1, ?2, ?3, 'process:exit', ?4, '{}')",
                rusqlite::params![seq, pane, kind, at],
            )
            .unwrap();
        }
        super::migrations().to_latest(&mut conn).unwrap();
        let exited: Vec<(String, Option<i64>)> = conn
            .prepare("SELECT id, exited_at FROM panes ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            exited,
            [
                ("p1".into(), Some(200)),
                ("p2".into(), Some(7)),
                ("p3".into(), None)
            ],
            "the latest exit, else the creation; a running pane has none"
        );
    }

    #[test]
    fn a_version_1_database_gains_the_pane_index() {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        rusqlite_migration::Migrations::new(vec![rusqlite_migration::M::up(super::V1)])
            .to_latest(&mut conn)
            .unwrap();
        conn.execute(
            "INSERT INTO events (seq, pane, kind, source, at, payload) \
             VALUES (1, 'p1', 'pane.added', 'process:spawn', 0, '{}')",
            [],
        )
        .unwrap();
        super::migrations().to_latest(&mut conn).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, 7);
        conn.prepare("SELECT worktree FROM panes")
            .expect("version 7 adds the worktree");
        conn.prepare("SELECT start_quiet, kill_requested_at FROM panes")
            .expect("version 3 adds the quiet start and the kill request");
        conn.prepare("SELECT exited_at FROM panes")
            .expect("version 4 adds the exit time");
        conn.prepare("SELECT host, remote_seq FROM events")
            .expect("version 5 adds the remote columns");
        let hosts: Option<String> = conn
            .query_row("SELECT host FROM events", [], |r| r.get(0))
            .unwrap();
        assert_eq!(hosts, None, "an older event is local");
        conn.prepare("SELECT host, last_seq FROM remote_seqs")
            .expect("version 5 adds the remote seqs");
        let index: String = conn
            .query_row(
                "SELECT sql FROM sqlite_master WHERE name = 'events_by_pane'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(index.contains("events(pane, seq)"), "{index}");
        let rows: i64 = conn
            .query_row("SELECT count(*) FROM events", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 1, "the log is kept");
    }
}
