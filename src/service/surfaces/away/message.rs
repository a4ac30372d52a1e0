//! What an away push says (`docs/away.md#what-a-push-says`): the generic webhook's JSON
//! body ([`Message`]) and ntfy's title and message made from it. By default it names
//! the host, workspace, pane and kind only — never the command or the question; the
//! text only with `include_text = true` (`docs/away.md#privacy`).

use super::super::notice::{notice, what};
use crate::adapters::terminal_signals::sanitize_text;
use crate::client::overview::pane_title;
use crate::client::wire::WirePane;
use crate::engine::away::AwayItem;
use crate::engine::workspace_name;
use crate::model::Pane;
use serde::Serialize;

/// `open`: the item has been open for the delay while the user is away; `resolved`: a
/// pushed item is no longer open (the follow-up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Open,
    Resolved,
}

/// The webhook's JSON body (`docs/away.md#webhook`); ntfy's text is made from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    /// Always `attend.away`.
    pub source: &'static str,
    pub event: Phase,
    /// The machine's host name.
    pub host: String,
    /// The workspace's display name (the last component of its key), cleaned of control
    /// and escape sequences like every name Attend shows.
    pub workspace: String,
    /// The pane's id (`p3`), as `attend show` takes it.
    pub pane: String,
    /// The pane's name, cleaned (its id when it has none).
    pub pane_name: String,
    /// The attention level's wire name: `permission_required` or `input_required`.
    pub kind: &'static str,
    /// When the item opened (RFC 3339, UTC, milliseconds).
    pub opened_at: String,
    /// The command a gate guards or the question, only with `include_text = true` and
    /// only on `open`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// `workspace › pane`, as the desktop notification says it.
    #[serde(skip)]
    pub title: String,
    /// The word for the kind, as the desktop notification says it (`permission`,
    /// `question`).
    #[serde(skip)]
    pub word: &'static str,
}

impl Message {
    /// The `open` message of `item` on pane `p`.
    pub fn open(item: &AwayItem, p: &Pane, host: &str, include_text: bool) -> Message {
        let view = WirePane::of(p);
        let text = include_text
            .then(|| notice(item.level, &view))
            .map(|n| {
                let what = n.summary.rsplit_once(" — ").map_or("", |(_, w)| w);
                match (what.split_once(": "), n.body.is_empty()) {
                    (Some((_, tool)), false) => format!("{tool}: {}", n.body),
                    (_, false) => n.body,
                    (Some((_, tool)), true) => tool.to_string(),
                    (None, true) => String::new(),
                }
            })
            .filter(|t| !t.is_empty());
        Message {
            source: "attend.away",
            event: Phase::Open,
            host: host.to_string(),
            workspace: sanitize_text(&workspace_name(&p.workspace), 60),
            pane: view.id.clone(),
            pane_name: match sanitize_text(&p.name, 60) {
                n if n.is_empty() => view.id.clone(),
                n => n,
            },
            kind: item.level.as_str(),
            opened_at: item.opened_at.to_rfc3339(),
            text,
            title: pane_title(&view),
            word: what(item.level, &view),
        }
    }

    /// The follow-up of this (pushed) message: `resolved`, without the text.
    pub fn resolved(&self) -> Message {
        Message {
            event: Phase::Resolved,
            text: None,
            ..self.clone()
        }
    }

    /// ntfy's title: `Attend on HOST: permission` (`… resolved`).
    pub fn ntfy_title(&self) -> String {
        match self.event {
            Phase::Open => format!("Attend on {}: {}", self.host, self.word),
            Phase::Resolved => format!("Attend on {}: {} resolved", self.host, self.word),
        }
    }

    /// ntfy's message: `workspace › pane waits for your permission` (`… was resolved`),
    /// then the text when included.
    pub fn ntfy_message(&self) -> String {
        let line = match self.event {
            Phase::Open => format!("{} waits for your {}", self.title, self.word),
            Phase::Resolved => format!("{}: the {} was resolved", self.title, self.word),
        };
        match &self.text {
            Some(t) => format!("{line}\n{t}"),
            None => line,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AgentKind, Attention, Decision, DecisionKind, PaneId, Source, Timestamp};

    fn gate_pane() -> (AwayItem, Pane) {
        let mut p = Pane::new(
            PaneId(4),
            "/src/shop",
            "t",
            "api",
            AgentKind::Claude,
            Timestamp(0),
        );
        p.pending_decision = Some(Decision {
            id: 9,
            kind: DecisionKind::Permission,
            prompt: "Bash: rm -rf build".into(),
            options: Vec::new(),
            answer_keys: Vec::new(),
            tool_use_id: None,
            source: Source::user(),
            opened_at: Timestamp(1_000),
        });
        let item = AwayItem {
            pane: p.id,
            level: Attention::PermissionRequired,
            decision: Some(9),
            opened_at: Timestamp(1_000),
        };
        (item, p)
    }

    #[test]
    fn by_default_no_command_only_where_and_what() {
        let (item, p) = gate_pane();
        let m = Message::open(&item, &p, "desk", false);
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "source": "attend.away", "event": "open", "host": "desk",
                "workspace": "shop", "pane": "p4", "pane_name": "api",
                "kind": "permission_required", "opened_at": "1970-01-01T00:00:01.000Z"
            })
        );
        let all = format!("{}{}{json}", m.ntfy_title(), m.ntfy_message());
        assert!(!all.contains("rm -rf"), "{all}");
        assert_eq!(m.ntfy_title(), "Attend on desk: permission");
        assert_eq!(m.ntfy_message(), "shop › api waits for your permission");
        let r = m.resolved();
        assert_eq!(serde_json::to_value(&r).unwrap()["event"], "resolved");
        assert_eq!(r.ntfy_message(), "shop › api: the permission was resolved");
    }

    #[test]
    fn include_text_adds_the_command() {
        let (item, p) = gate_pane();
        let m = Message::open(&item, &p, "desk", true);
        assert_eq!(m.text.as_deref(), Some("Bash: rm -rf build"));
        assert!(m.ntfy_message().ends_with("\nBash: rm -rf build"));
        assert_eq!(m.resolved().text, None);
    }
}
