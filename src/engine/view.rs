//! The one read-time projection of a pane that every surface renders (`attend show
//! --json`, `attend ls`, D-Bus `GetPane`, the demo): values in the engine's lower-case
//! vocabulary, times in RFC 3339.

use super::table::{Column, Table};
use crate::model::{Attention, Lifecycle, Live, Pane};
use serde::{Deserialize, Serialize};

/// `live` as rendered: `{"state": "running"|"exited", "code": N|null, "signal": N|null}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveView {
    pub state: String,
    pub code: Option<i32>,
    pub signal: Option<i32>,
}

/// The open decision as rendered: `{kind, prompt, options}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionView {
    pub id: u64,
    pub kind: String,
    pub prompt: String,
    pub options: Vec<String>,
    pub choices: Vec<String>,
    pub source: String,
    pub opened_at: String,
    /// An external pane's gate: its daemon answers `allow`/`deny` through the agent's
    /// waiting hook run (`GetPane`'s `gate`, docs/decisions/0015-answering-external-gates.md);
    /// absent (false) in event data and on panes Attend runs.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gate: bool,
}

/// One pane as every surface shows it (the `attend show PANE --json` shape).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaneView {
    pub id: String,
    pub name: String,
    pub workspace: String,
    pub tab: String,
    pub agent: String,
    pub lifecycle: String,
    pub last_lifecycle: Option<String>,
    pub attention: String,
    pub live: LiveView,
    pub pending_decision: Option<DecisionView>,
    pub last_message: Option<String>,
    /// When `last_message` was recorded (RFC 3339); absent from dictionaries that do
    /// not carry it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_message_at: Option<String>,
    pub last_seen_at: Option<String>,
    pub attention_changed_at: Option<String>,
    pub session_id: Option<String>,
    pub resume_argv: Option<Vec<String>>,
    pub cwd: Option<String>,
    pub title: Option<String>,
    pub repo: Option<String>,
    pub branch: Option<String>,
    pub focused: bool,
    pub owned: bool,
}

impl PaneView {
    /// Projects `pane`.
    pub fn of(pane: &Pane) -> PaneView {
        let (code, signal) = match pane.live {
            Live::Running => (None, None),
            Live::Exited { code, signal } => (code, signal),
        };
        PaneView {
            id: pane.id.to_string(),
            name: pane.name.clone(),
            workspace: pane.workspace.clone(),
            tab: pane.tab.clone(),
            agent: pane.agent.as_str().into(),
            lifecycle: pane.lifecycle.as_str().into(),
            last_lifecycle: pane.last_lifecycle.map(|l| l.as_str().into()),
            attention: pane.attention().as_str().into(),
            live: LiveView {
                state: pane.live.as_str().into(),
                code,
                signal,
            },
            pending_decision: pane.pending_decision.as_ref().map(|d| DecisionView {
                id: d.id,
                kind: d.kind.as_str().into(),
                prompt: d.prompt.clone(),
                options: d.options.clone(),
                choices: d.choices(),
                source: d.source.to_string(),
                opened_at: d.opened_at.to_rfc3339(),
                gate: false,
            }),
            last_message: pane.last_message.clone(),
            last_message_at: pane.last_message_at.map(|t| t.to_rfc3339()),
            last_seen_at: pane.last_seen_at.map(|t| t.to_rfc3339()),
            attention_changed_at: pane.attention_changed_at.map(|t| t.to_rfc3339()),
            session_id: pane.session_id.clone(),
            resume_argv: pane.resume_argv.clone(),
            cwd: pane.cwd.clone(),
            title: pane.title.clone(),
            repo: pane.repo.clone(),
            branch: pane.branch.clone(),
            focused: pane.focused,
            owned: pane.owned,
        }
    }

    /// The live column as shown in tables: `running`, `exited 0`, `exited sig 9`.
    pub fn live_text(&self) -> String {
        match (self.live.state.as_str(), self.live.code, self.live.signal) {
            ("exited", _, Some(s)) => format!("exited sig {s}"),
            ("exited", Some(c), None) => format!("exited {c}"),
            (s, _, _) => s.to_string(),
        }
    }
}

/// Most terminal columns of the message column in [`render_table`].
pub const MESSAGE_COLUMN: usize = 40;
/// Most terminal columns of the workspace and name columns in [`render_table`] (longer
/// names are cut with `…`; `attend show` prints them whole).
pub const NAME_COLUMN: usize = 24;
/// Most terminal columns of the tab column in [`render_table`].
pub const TAB_COLUMN: usize = 16;

/// The pane table printed by `attend ls` and `attend demo`: one header line, one line per
/// pane, columns PANE WORKSPACE TAB NAME AGENT LIFECYCLE ATTENTION LIVE MESSAGE. Workspace
/// keys are shown by their display name; every cell is escaped and cut to its column, in
/// terminal columns ([`Table`], `docs/cli.md#names-on-a-terminal`). Deterministic for
/// equal input.
pub fn render_table(panes: &[PaneView]) -> String {
    let mut table = Table::new(&pane_columns(None));
    for p in panes {
        table.row(pane_row(p));
    }
    table.render()
}

/// The `attend ls` table with a HOST column first (`docs/cli.md#ls`), for when remote
/// panes are listed: each row is the pane's host (`-` for this machine) and its view;
/// otherwise the columns of [`render_table`].
pub fn render_host_table(rows: &[(String, PaneView)]) -> String {
    let mut table = Table::new(&pane_columns(Some(Column::free("HOST"))));
    for (host, p) in rows {
        let mut row = vec![host.clone()];
        row.extend(pane_row(p));
        table.row(row);
    }
    table.render()
}

fn pane_columns(first: Option<Column>) -> Vec<Column> {
    first
        .into_iter()
        .chain([
            Column::free("PANE"),
            Column::capped("WORKSPACE", NAME_COLUMN),
            Column::capped("TAB", TAB_COLUMN),
            Column::capped("NAME", NAME_COLUMN),
            Column::free("AGENT"),
            Column::free("LIFECYCLE"),
            Column::free("ATTENTION"),
            Column::free("LIVE"),
            Column::capped("MESSAGE", MESSAGE_COLUMN),
        ])
        .collect()
}

fn pane_row(p: &PaneView) -> Vec<String> {
    let decision = p
        .pending_decision
        .as_ref()
        .map(|d| format!("[{}] {}", d.kind, d.prompt));
    let msg = decision
        .or_else(|| p.last_message.clone())
        .unwrap_or_default();
    vec![
        p.id.clone(),
        super::summary::workspace_name(&p.workspace),
        p.tab.clone(),
        p.name.clone(),
        p.agent.clone(),
        p.lifecycle.clone(),
        p.attention.clone(),
        p.live_text(),
        msg.replace(['\n', '\r', '\t'], " "),
    ]
}

/// Checks a rendered value is inside the vocabulary (used by tests of every surface).
pub fn in_vocabulary(lifecycle: &str, attention: &str) -> bool {
    Lifecycle::parse(lifecycle).is_some() && Attention::parse(attention).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AgentKind, PaneId, Timestamp};

    #[test]
    fn names_in_the_pane_table_are_data_cut_to_their_column_and_aligned() {
        let pane = |id: u64, ws: &str, name: &str| {
            PaneView::of(&Pane::new(
                PaneId(id),
                ws,
                "main",
                name,
                AgentKind::Claude,
                Timestamp(0),
            ))
        };
        let text = render_table(&[
            pane(1, "/src/web\u{202e}app", "\x1b[2J\x1b]0;x\x07api\nrow"),
            pane(2, "/src/数据库", "🚀 launch"),
            pane(3, "/src/w", &"n".repeat(50)),
        ]);
        assert!(
            !text.chars().any(|c| c == '\x1b' || is_bidi_control_char(c)),
            "{text}"
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "one line per pane: {text}");
        assert!(lines[1].contains("web\\u{202e}app"), "{text}");
        assert!(
            lines[1].contains("  \\x1b[2J\\x1b]0;x\\x07api\\…  "),
            "{text}"
        );
        assert!(lines[3].contains(&format!("{}…", "n".repeat(NAME_COLUMN - 1))));
        // The AGENT column starts at the same terminal column on every line.
        let at: Vec<usize> = lines[1..]
            .iter()
            .map(|l| crate::engine::width(&l[..l.find("claude").unwrap()]))
            .collect();
        assert!(at.windows(2).all(|w| w[0] == w[1]), "{text}");
    }

    fn is_bidi_control_char(c: char) -> bool {
        super::super::table::is_bidi_control(c)
    }
}
