//! The one read-time projection of a pane that every surface renders (`attend show
//! --json`, `attend ls`, D-Bus `GetPane`, the demo): values in the engine's lower-case
//! vocabulary, times in RFC 3339.

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
                choices: d.answer_keys.iter().map(|k| k.choice.clone()).collect(),
                source: d.source.to_string(),
                opened_at: d.opened_at.to_rfc3339(),
            }),
            last_message: pane.last_message.clone(),
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

/// Maximum width of the message column in [`render_table`].
pub const MESSAGE_COLUMN: usize = 40;

/// `s` with every control character (C0, DEL and C1: `\n`, `\r`, `\t`, ESC, BEL, …)
/// replaced by a visible escape (`\n`, `\r`, `\t`, `\x1b`), so a value from a hook
/// payload or a command line is one line of plain text and cannot forge rows of a table
/// or send terminal control sequences. Every plain-text surface of the CLI shows values
/// through it; JSON output escapes them itself.
pub fn escape_controls(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// `s` cut to at most `n` characters, the last one `…` when cut.
pub fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// The pane table printed by `attend ls` and `attend demo`: one header line, one line per
/// pane, columns PANE WORKSPACE TAB NAME AGENT LIFECYCLE ATTENTION LIVE MESSAGE. Workspace
/// keys are shown by their display name; control characters in a cell are escaped
/// ([`escape_controls`]). Deterministic for equal input.
pub fn render_table(panes: &[PaneView]) -> String {
    let header = [
        "PANE",
        "WORKSPACE",
        "TAB",
        "NAME",
        "AGENT",
        "LIFECYCLE",
        "ATTENTION",
        "LIVE",
        "MESSAGE",
    ];
    let rows: Vec<[String; 9]> = panes
        .iter()
        .map(|p| {
            let decision = p
                .pending_decision
                .as_ref()
                .map(|d| format!("[{}] {}", d.kind, d.prompt));
            let msg = decision
                .or_else(|| p.last_message.clone())
                .unwrap_or_default();
            [
                p.id.clone(),
                super::summary::workspace_name(&p.workspace),
                p.tab.clone(),
                p.name.clone(),
                p.agent.clone(),
                p.lifecycle.clone(),
                p.attention.clone(),
                p.live_text(),
                clip(&msg.replace(['\n', '\r', '\t'], " "), MESSAGE_COLUMN),
            ]
            .map(|cell| escape_controls(&cell))
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r.iter()) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                s.push_str(c);
            } else {
                s.push_str(c);
                s.push_str(&" ".repeat(widths[i] - c.chars().count() + 2));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(header.to_vec());
    for r in &rows {
        out.push_str(&line(r.iter().map(String::as_str).collect()));
    }
    out
}

/// Checks a rendered value is inside the vocabulary (used by tests of every surface).
pub fn in_vocabulary(lifecycle: &str, attention: &str) -> bool {
    Lifecycle::parse(lifecycle).is_some() && Attention::parse(attention).is_some()
}
