//! Writing one batch inside the caller's transaction (see [`super::Db::commit`]). Every
//! statement is prepared once per connection and cached, so a batch of many panes and
//! events costs one transaction plus one step per row.

use super::codec::{event_columns, millis, Json};
use super::error::DbError;
use crate::engine::{workspace_name, World};
use crate::model::{Event, EventKind, Live, Pane, PaneId, Timestamp};
use rusqlite::{named_params, params, ErrorCode, Transaction};
use std::sync::LazyLock;

/// The columns of `panes`, in schema order; `id` first.
const PANE_COLUMNS: [&str; 34] = [
    "id",
    "workspace",
    "tab",
    "name",
    "agent",
    "lifecycle",
    "last_lifecycle",
    "live",
    "exit_code",
    "exit_signal",
    "items",
    "session_id",
    "resume_argv",
    "cwd",
    "repo",
    "branch",
    "title",
    "last_message",
    "last_message_at",
    "last_seen_at",
    "attention_changed_at",
    "done_at",
    "focused",
    "oneshot",
    "hooks_seen",
    "limit_reason",
    "command",
    "owned",
    "created_at",
    "start_quiet",
    "kill_requested_at",
    "exited_at",
    "tmux",
    "worktree",
];

/// `INSERT INTO panes (…) VALUES (:id, …) ON CONFLICT (id) DO UPDATE SET …`: an upsert
/// that keeps the row (and so its decisions, tasks and hold) rather than replacing it.
static UPSERT_PANE: LazyLock<String> = LazyLock::new(|| {
    let names = PANE_COLUMNS.join(", ");
    let params: Vec<String> = PANE_COLUMNS.iter().map(|c| format!(":{c}")).collect();
    let updates: Vec<String> = PANE_COLUMNS[1..]
        .iter()
        .map(|c| format!("{c} = excluded.{c}"))
        .collect();
    format!(
        "INSERT INTO panes ({names}) VALUES ({}) ON CONFLICT (id) DO UPDATE SET {}",
        params.join(", "),
        updates.join(", ")
    )
});

/// The body of [`super::Db::commit`]; the caller commits or (on error) drops `tx`.
pub(super) fn batch(
    tx: &Transaction,
    world: &World,
    touched: &[PaneId],
    events: &[Event],
    deliveries: &[(String, u64, Timestamp)],
) -> Result<(), DbError> {
    for event in events {
        append_event(tx, event)?;
    }
    for (delivery_id, seq, at) in deliveries {
        let mut stmt =
            tx.prepare_cached("INSERT INTO deliveries (delivery_id, seq, at) VALUES (?1, ?2, ?3)")?;
        match stmt.execute(params![delivery_id, seq, at.0]) {
            Err(e) if e.sqlite_error_code() == Some(ErrorCode::ConstraintViolation) => {
                return Err(DbError::DuplicateDelivery(delivery_id.clone()));
            }
            other => other?,
        };
    }
    for id in touched {
        match world.panes().get(id) {
            Some(pane) => write_pane(tx, pane)?,
            None => {
                tx.prepare_cached("DELETE FROM panes WHERE id = ?1")?
                    .execute([id.to_string()])?;
            }
        }
    }
    if !touched.is_empty() {
        tx.prepare_cached(
            "DELETE FROM tabs WHERE NOT EXISTS \
             (SELECT 1 FROM panes p WHERE p.workspace = tabs.workspace AND p.tab = tabs.name)",
        )?
        .execute([])?;
        tx.prepare_cached(
            "DELETE FROM workspaces WHERE NOT EXISTS \
             (SELECT 1 FROM tabs t WHERE t.workspace = workspaces.key)",
        )?
        .execute([])?;
    }
    let mut stmt = tx.prepare_cached(
        "INSERT INTO meta (key, value) VALUES (?1, ?2) \
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )?;
    for (key, value) in [
        ("last_pane", world.last_pane),
        ("last_decision", world.last_decision),
        ("last_task", world.last_task),
        ("seq", world.seq),
    ] {
        stmt.execute(params![key, value])?;
    }
    Ok(())
}

/// Appends `event` to the log; a `decision.resolved` also marks its decision row.
fn append_event(tx: &Transaction, event: &Event) -> Result<(), DbError> {
    let (previous, value) = event_columns(&event.kind);
    let payload = serde_json::to_string(event)?;
    tx.prepare_cached(
        "INSERT INTO events (seq, pane, kind, previous, value, source, at, payload) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        event.seq,
        event.pane.to_string(),
        event.kind.name(),
        previous,
        value,
        event.source.to_string(),
        event.at.0,
        payload,
    ])?;
    if let EventKind::DecisionResolved { id, resolution } = &event.kind {
        tx.prepare_cached(
            "UPDATE decisions SET resolved = 1, resolved_at = ?2, resolution = ?3 WHERE id = ?1",
        )?
        .execute(params![id, event.at.0, Json(resolution)])?;
    }
    Ok(())
}

/// Upserts `pane` with its workspace and tab rows, its open decision (any other open
/// decision row of the pane becomes resolved), its tasks and its hold.
fn write_pane(tx: &Transaction, pane: &Pane) -> Result<(), DbError> {
    let id = pane.id.to_string();
    tx.prepare_cached("INSERT INTO workspaces (key, name) VALUES (?1, ?2) ON CONFLICT DO NOTHING")?
        .execute(params![pane.workspace, workspace_name(&pane.workspace)])?;
    tx.prepare_cached("INSERT INTO tabs (workspace, name) VALUES (?1, ?2) ON CONFLICT DO NOTHING")?
        .execute(params![pane.workspace, pane.tab])?;

    let (exit_code, exit_signal) = match pane.live {
        Live::Running => (None, None),
        Live::Exited { code, signal } => (code, signal),
    };
    tx.prepare_cached(&UPSERT_PANE)?.execute(named_params! {
        ":id": id,
        ":workspace": pane.workspace,
        ":tab": pane.tab,
        ":name": pane.name,
        ":agent": pane.agent.as_str(),
        ":lifecycle": pane.lifecycle.as_str(),
        ":last_lifecycle": pane.last_lifecycle.map(|l| l.as_str()),
        ":live": pane.live.as_str(),
        ":exit_code": exit_code,
        ":exit_signal": exit_signal,
        ":items": Json(&pane.items),
        ":session_id": pane.session_id,
        ":resume_argv": pane.resume_argv.as_ref().map(Json),
        ":cwd": pane.cwd,
        ":repo": pane.repo,
        ":branch": pane.branch,
        ":title": pane.title,
        ":last_message": pane.last_message,
        ":last_message_at": millis(pane.last_message_at),
        ":last_seen_at": millis(pane.last_seen_at),
        ":attention_changed_at": millis(pane.attention_changed_at),
        ":done_at": millis(pane.done_at),
        ":focused": pane.focused,
        ":oneshot": pane.oneshot,
        ":hooks_seen": pane.hooks_seen,
        ":limit_reason": pane.limit_reason,
        ":command": Json(&pane.command),
        ":owned": pane.owned,
        ":created_at": pane.created_at.0,
        ":start_quiet": pane.start_quiet.as_ref().map(Json),
        ":kill_requested_at": millis(pane.kill_requested_at),
        ":exited_at": millis(pane.exited_at),
        ":tmux": pane.tmux.as_ref().map(Json),
        ":worktree": pane.worktree,
    })?;

    let open = pane.pending_decision.as_ref();
    tx.prepare_cached(
        "UPDATE decisions SET resolved = 1 WHERE pane = ?1 AND resolved = 0 AND id IS NOT ?2",
    )?
    .execute(params![id, open.map(|d| d.id)])?;
    if let Some(d) = open {
        tx.prepare_cached(
            "INSERT INTO decisions \
             (id, pane, kind, prompt, options, answer_keys, tool_use_id, source, opened_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) \
             ON CONFLICT (id) DO UPDATE SET pane = excluded.pane, kind = excluded.kind, \
             prompt = excluded.prompt, options = excluded.options, \
             answer_keys = excluded.answer_keys, tool_use_id = excluded.tool_use_id, \
             source = excluded.source, opened_at = excluded.opened_at, \
             resolved = 0, resolved_at = NULL, resolution = NULL",
        )?
        .execute(params![
            d.id,
            id,
            d.kind.as_str(),
            d.prompt,
            Json(&d.options),
            Json(&d.answer_keys),
            d.tool_use_id,
            d.source.to_string(),
            d.opened_at.0,
        ])?;
    }

    tx.prepare_cached("DELETE FROM tasks WHERE pane = ?1")?
        .execute([&id])?;
    for t in &pane.tasks {
        tx.prepare_cached(
            "INSERT INTO tasks (id, pane, text, state, message, created_at, updated_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?
        .execute(params![
            t.id,
            t.pane.to_string(),
            t.text,
            t.state.as_str(),
            t.message,
            t.created_at.0,
            t.updated_at.0,
        ])?;
    }

    tx.prepare_cached("DELETE FROM holds WHERE pane = ?1")?
        .execute([&id])?;
    if let Some(h) = &pane.hold {
        tx.prepare_cached("INSERT INTO holds (pane, owner, wake, reason) VALUES (?1, ?2, ?3, ?4)")?
            .execute(params![id, h.owner, h.wake.0, h.reason])?;
    }
    Ok(())
}
