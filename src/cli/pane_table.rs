//! The pane table printed by `attend ls` and `attend demo` (`docs/cli.md#ls`): one line per
//! pane ([`WirePane`], the Pane dictionary as the daemon sent it), cut to the engine's
//! columns ([`MESSAGE_COLUMN`], [`NAME_COLUMN`], [`TAB_COLUMN`]).

use crate::client::wire::WirePane;
use crate::engine::{workspace_name, Column, Table, MESSAGE_COLUMN, NAME_COLUMN, TAB_COLUMN};

/// The pane table printed by `attend ls` and `attend demo`: one header line, one line per
/// pane, columns PANE WORKSPACE TAB NAME AGENT LIFECYCLE ATTENTION LIVE MESSAGE. Workspace
/// keys are shown by their display name; every cell is escaped and cut to its column, in
/// terminal columns ([`Table`], `docs/cli.md#names-on-a-terminal`). Deterministic for
/// equal input.
pub fn render_table(panes: &[WirePane]) -> String {
    let mut table = Table::new(&pane_columns(None));
    for p in panes {
        table.row(pane_row(p));
    }
    table.render()
}

/// The `attend ls` table with a HOST column first (`docs/cli.md#ls`), for when remote
/// panes are listed: each row is the pane's host (`-` for this machine) and its view;
/// otherwise the columns of [`render_table`].
pub fn render_host_table(rows: &[(String, WirePane)]) -> String {
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

fn pane_row(p: &WirePane) -> Vec<String> {
    let decision = p
        .pending_decision
        .as_ref()
        .map(|d| format!("[{}] {}", d.kind, d.prompt));
    let msg = decision
        .or_else(|| p.last_message.clone())
        .unwrap_or_default();
    vec![
        p.id.clone(),
        workspace_name(&p.workspace),
        p.tab.clone(),
        p.name.clone(),
        p.agent.clone(),
        p.lifecycle.clone(),
        p.attention.clone(),
        p.live.text(),
        msg.replace(['\n', '\r', '\t'], " "),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AgentKind, Pane, PaneId, Timestamp};

    #[test]
    fn names_in_the_pane_table_are_data_cut_to_their_column_and_aligned() {
        let pane = |id: u64, ws: &str, name: &str| {
            WirePane::of(&Pane::new(
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
        crate::engine::is_bidi_control(c)
    }
}
