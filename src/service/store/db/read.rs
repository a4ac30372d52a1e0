//! Reading the world and the event log back (see [`super::schema`] for the columns).

use super::codec::{Json, SourceText, Text};
use super::{Db, DbError};
use crate::engine::World;
use crate::model::{Decision, Event, Hold, Live, Pane, PaneId, Task, Timestamp};
use rusqlite::{types::Type, OptionalExtension, Row};
use std::collections::BTreeMap;

impl Db {
    pub(super) fn read_world(&self) -> Result<World, DbError> {
        let mut world = World::new();
        let mut stmt = self.conn.prepare("SELECT key, value FROM meta")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let value: u64 = row.get("value")?;
            match row.get::<_, String>("key")?.as_str() {
                "last_pane" => world.last_pane = value,
                "last_decision" => world.last_decision = value,
                "last_task" => world.last_task = value,
                "seq" => world.seq = value,
                _ => {}
            }
        }

        let mut stmt = self.conn.prepare("SELECT * FROM panes")?;
        let panes = stmt.query_map([], pane)?;
        let mut panes = panes
            .map(|p| p.map(|p| (p.id, p)))
            .collect::<rusqlite::Result<BTreeMap<_, _>>>()?;

        let mut stmt = self
            .conn
            .prepare("SELECT * FROM decisions WHERE resolved = 0")?;
        for row in stmt.query_map([], |r| {
            Ok((r.get::<_, Text<PaneId>>("pane")?.0, decision(r)?))
        })? {
            let (id, decision) = row?;
            self.owner(&mut panes, id, "decisions")?.pending_decision = Some(decision);
        }

        let mut stmt = self.conn.prepare("SELECT * FROM tasks ORDER BY id")?;
        for task in stmt.query_map([], task)? {
            let task = task?;
            self.owner(&mut panes, task.pane, "tasks")?.tasks.push(task);
        }

        let mut stmt = self.conn.prepare("SELECT * FROM holds")?;
        for row in stmt.query_map([], |r| Ok((r.get::<_, Text<PaneId>>("pane")?.0, hold(r)?)))? {
            let (id, hold) = row?;
            self.owner(&mut panes, id, "holds")?.hold = Some(hold);
        }
        // Each pane's machine is built from its stored state (its evidence from nothing).
        for (_, p) in panes {
            world.restore_pane(p);
        }
        Ok(world)
    }

    pub(super) fn read_events(&self, after_seq: u64, limit: u32) -> Result<Vec<Event>, DbError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT payload FROM events WHERE seq > ?1 AND host IS NULL ORDER BY seq LIMIT ?2",
        )?;
        // Seqs are stored as SQLite integers (i64); any larger `after_seq` is past them all.
        let after = i64::try_from(after_seq).unwrap_or(i64::MAX);
        let events = stmt.query_map((after, limit), |r| Ok(r.get::<_, Json<Event>>(0)?.0))?;
        Ok(events.collect::<rusqlite::Result<_>>()?)
    }

    pub(super) fn read_last_lifecycle(&self, pane: PaneId) -> Result<Option<Event>, DbError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT payload FROM events WHERE pane = ?1 AND host IS NULL AND kind LIKE 'agent.%' \
             ORDER BY seq DESC LIMIT 1",
        )?;
        let event = stmt
            .query_row([pane.to_string()], |r| Ok(r.get::<_, Json<Event>>(0)?.0))
            .optional()?;
        Ok(event)
    }

    /// The pane a `table` row belongs to; foreign keys make a missing one corruption.
    fn owner<'a>(
        &self,
        panes: &'a mut BTreeMap<PaneId, Pane>,
        id: PaneId,
        table: &str,
    ) -> Result<&'a mut Pane, DbError> {
        panes.get_mut(&id).ok_or_else(|| DbError::Corrupt {
            path: self.path.clone(),
            detail: format!("a row of {table} names pane {id}, which has no row"),
        })
    }
}

/// A pane row, without its decision, tasks and hold.
fn pane(r: &Row) -> rusqlite::Result<Pane> {
    let live = match r.get_ref("live")?.as_str()? {
        "running" => Live::Running,
        "exited" => Live::Exited {
            code: r.get("exit_code")?,
            signal: r.get("exit_signal")?,
        },
        other => {
            let column = r.as_ref().column_index("live")?;
            let detail = format!("not a liveness: {other:?}");
            return Err(rusqlite::Error::FromSqlConversionFailure(
                column,
                Type::Text,
                detail.into(),
            ));
        }
    };
    Ok(Pane {
        id: r.get::<_, Text<_>>("id")?.0,
        workspace: r.get("workspace")?,
        tab: r.get("tab")?,
        name: r.get("name")?,
        agent: r.get::<_, Text<_>>("agent")?.0,
        lifecycle: r.get::<_, Text<_>>("lifecycle")?.0,
        last_lifecycle: r.get::<_, Option<Text<_>>>("last_lifecycle")?.map(|t| t.0),
        live,
        exited_at: time(r, "exited_at")?,
        items: r.get::<_, Json<_>>("items")?.0,
        pending_decision: None,
        session_id: r.get("session_id")?,
        resume_argv: r.get::<_, Option<Json<_>>>("resume_argv")?.map(|j| j.0),
        cwd: r.get("cwd")?,
        repo: r.get("repo")?,
        branch: r.get("branch")?,
        title: r.get("title")?,
        last_message: r.get("last_message")?,
        last_message_at: time(r, "last_message_at")?,
        last_seen_at: time(r, "last_seen_at")?,
        attention_changed_at: time(r, "attention_changed_at")?,
        done_at: time(r, "done_at")?,
        focused: r.get("focused")?,
        oneshot: r.get("oneshot")?,
        hooks_seen: r.get("hooks_seen")?,
        limit_reason: r.get("limit_reason")?,
        tasks: Vec::new(),
        hold: None,
        command: r.get::<_, Json<_>>("command")?.0,
        owned: r.get("owned")?,
        created_at: Timestamp(r.get("created_at")?),
        start_quiet: r.get::<_, Option<Json<_>>>("start_quiet")?.map(|j| j.0),
        kill_requested_at: time(r, "kill_requested_at")?,
        tmux: r.get::<_, Option<Json<_>>>("tmux")?.map(|j| j.0),
        worktree: r.get("worktree")?,
    })
}

fn decision(r: &Row) -> rusqlite::Result<Decision> {
    Ok(Decision {
        id: r.get("id")?,
        kind: r.get::<_, Text<_>>("kind")?.0,
        prompt: r.get("prompt")?,
        options: r.get::<_, Json<_>>("options")?.0,
        answer_keys: r.get::<_, Json<_>>("answer_keys")?.0,
        tool_use_id: r.get("tool_use_id")?,
        source: r.get::<_, SourceText>("source")?.0,
        opened_at: Timestamp(r.get("opened_at")?),
    })
}

fn task(r: &Row) -> rusqlite::Result<Task> {
    Ok(Task {
        id: r.get("id")?,
        pane: r.get::<_, Text<_>>("pane")?.0,
        text: r.get("text")?,
        state: r.get::<_, Text<_>>("state")?.0,
        message: r.get("message")?,
        created_at: Timestamp(r.get("created_at")?),
        updated_at: Timestamp(r.get("updated_at")?),
    })
}

fn hold(r: &Row) -> rusqlite::Result<Hold> {
    Ok(Hold {
        owner: r.get("owner")?,
        wake: Timestamp(r.get("wake")?),
        reason: r.get("reason")?,
    })
}

fn time(r: &Row, column: &str) -> rusqlite::Result<Option<Timestamp>> {
    Ok(r.get::<_, Option<i64>>(column)?.map(Timestamp))
}
