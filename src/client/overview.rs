//! The words every desktop surface uses (`docs/desktop-surfaces.md#one-vocabulary`): the
//! reason a pane wants the human, the counts by attention, the most urgent pane, the icon
//! names, and the status-bar renderings (plain, JSON, Waybar, i3bar).
//!
//! Pure: it reads [`WirePane`]s (the one wire shape of a pane, which the daemon makes
//! from its panes and the CLI reads from `GetPane`) and the engine's "next
//! unread" answer, so the tray, the notifications and `attend status` say the same thing.

use crate::adapters::mirror::{next_order, tray_attention, MirroredPane};
use crate::adapters::terminal_signals::sanitize_text;
use crate::client::wire::{Dict, DictBuilder, WirePane};
use crate::engine::workspace_name;
use crate::model::{Attention, Pane, PaneId};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Longest reason put into a one-line summary (bytes); the full text goes to the body.
pub const REASON_MAX: usize = 100;

/// Short human word for an attention level in counts and summaries: `error`,
/// `permission`, `input`, `warning`, `unread`, `none`.
pub fn level_word(level: Attention) -> &'static str {
    match level {
        Attention::Error => "error",
        Attention::PermissionRequired => "permission",
        Attention::InputRequired => "input",
        Attention::Warning => "warning",
        Attention::Unread => "unread",
        Attention::None => "none",
    }
}

/// The themed icon name for `level` (shipped as symbolic SVGs in `data/icons/`):
/// `attend-none-symbolic`, `attend-unread-symbolic`, `attend-warning-symbolic`,
/// `attend-input-required-symbolic`, `attend-permission-required-symbolic`,
/// `attend-error-symbolic`.
pub fn icon_name(level: Attention) -> String {
    format!("attend-{}-symbolic", level.as_str().replace('_', "-"))
}

/// "workspace › pane" for a pane: the workspace's display name and the pane's name
/// (its id when it has no other), cleaned of control and escape sequences.
///
/// A remote pane (its id `NAME:pN`, [`crate::client::wire::remote_pane`]) is
/// prefixed with its host: `buildbox › webapp › api` (`docs/remote.md`).
pub fn pane_title(view: &WirePane) -> String {
    let ws = sanitize_text(&workspace_name(&view.workspace), 60);
    let name = sanitize_text(&view.name, 60);
    let (host, id) = match view.id.split_once(':') {
        Some((host, id)) => (Some(sanitize_text(host, 64)), id),
        None => (None, view.id.as_str()),
    };
    let title = match (ws.is_empty(), name.is_empty()) {
        (true, true) => id.to_string(),
        (true, false) => name,
        (false, true) => format!("{ws} › {id}"),
        (false, false) => format!("{ws} › {name}"),
    };
    match host {
        Some(host) => format!("{host} › {title}"),
        None => title,
    }
}

/// A mirrored pane as the overview counts it: its Remote pane dictionary ([`crate::client::wire::remote_pane`]) with the
/// attention the tray counts ([`tray_attention`]: `none` while its host is offline or for
/// a level this side does not know).
pub fn counted_view(p: &MirroredPane) -> WirePane {
    let mut v = crate::client::wire::remote_pane(p);
    v.attention = tray_attention(p).unwrap_or_default().as_str().into();
    v
}

/// A permission prompt as the adapters write it, `Tool: what` (`Bash: npm test`), split
/// into the tool and what it runs; `None` for a prompt of another shape.
pub fn split_tool_call(prompt: &str) -> Option<(&str, &str)> {
    match prompt.split_once(": ") {
        Some((tool, what))
            if !tool.is_empty()
                && tool.len() <= 40
                && !tool.contains(char::is_whitespace)
                && !what.trim().is_empty() =>
        {
            Some((tool, what.trim()))
        }
        _ => None,
    }
}

/// A permission prompt in the summary's form: ``Bash `npm test` ``. Other prompts come
/// back unchanged.
fn tool_call(prompt: &str) -> String {
    match split_tool_call(prompt) {
        Some((tool, what)) => format!("{tool} `{what}`"),
        None => prompt.to_string(),
    }
}

/// Why `view` wants the human at `level`, in one short line: ``permission: Bash `npm
/// test` ``, `question: Which database?`, `failed: rate limit`, `done: All 42 tests
/// pass`, `warning: …`, `unread`. Cleaned of control and escape sequences, at most
/// [`REASON_MAX`] bytes.
pub fn reason(level: Attention, view: &WirePane) -> String {
    let decision = view.pending_decision.as_ref();
    let message = view.last_message.as_deref().unwrap_or("");
    let text = match level {
        Attention::PermissionRequired => {
            let prompt = decision.map(|d| d.prompt.as_str()).unwrap_or(message);
            format!("permission: {}", tool_call(&sanitize_text(prompt, 400)))
        }
        Attention::InputRequired => {
            let prompt = decision.map(|d| d.prompt.as_str()).unwrap_or(message);
            with_detail("question", prompt)
        }
        Attention::Error => with_detail("failed", message),
        Attention::Warning => with_detail("warning", message),
        Attention::Unread if view.lifecycle == "done" => with_detail("done", message),
        Attention::Unread => with_detail("unread", message),
        Attention::None => view.lifecycle.clone(),
    };
    sanitize_text(&text, REASON_MAX)
}

fn with_detail(word: &str, detail: &str) -> String {
    let detail = sanitize_text(detail, REASON_MAX);
    if detail.is_empty() {
        word.to_string()
    } else {
        format!("{word}: {detail}")
    }
}

/// Escapes `&`, `<` and `>` for a notification body when the server advertises
/// `body-markup` (Desktop Notifications spec, "Markup").
pub fn escape_markup(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// The most urgent pane (the engine's next-unread order), as the surfaces name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextPane {
    /// Pane id (`p3`).
    pub id: String,
    /// [`pane_title`].
    pub title: String,
    pub attention: Attention,
    /// [`reason`] at the pane's attention.
    pub reason: String,
}

/// Counts by attention and the most urgent pane: what the tray tooltip and `attend
/// status` show. `online` is false when the daemon is not running (status bar only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overview {
    pub online: bool,
    /// Number of panes.
    pub panes: usize,
    /// Panes per shown attention, for every level above `none`, most severe first
    /// (zero counts included).
    pub counts: Vec<(Attention, usize)>,
    /// The highest attention of any pane (`none` without panes).
    pub worst: Attention,
    pub next: Option<NextPane>,
}

impl Overview {
    /// The overview of `views`; `next` is the engine's next-unread pane id (`NextUnread`,
    /// or [`crate::engine::next_unread_order`]'s first), `None` or `""` when none.
    pub fn new(views: &[WirePane], next: Option<&str>) -> Overview {
        let attention = |v: &WirePane| Attention::parse(&v.attention).unwrap_or_default();
        let counts = Attention::ALL
            .iter()
            .rev()
            .filter(|a| **a > Attention::None)
            .map(|a| (*a, views.iter().filter(|v| attention(v) == *a).count()))
            .collect();
        let worst = views.iter().map(attention).max().unwrap_or_default();
        let next = next
            .filter(|id| !id.is_empty())
            .and_then(|id| views.iter().find(|v| v.id == id))
            .map(|v| {
                let level = attention(v);
                NextPane {
                    id: v.id.clone(),
                    title: pane_title(v),
                    attention: level,
                    reason: reason(level, v),
                }
            });
        Overview {
            online: true,
            panes: views.len(),
            counts,
            worst,
            next,
        }
    }

    /// The overview of this machine's `panes` and the `mirrored` panes of remote hosts
    /// (those of offline hosts not counted: [`counted_view`]), the next pane by the one
    /// order of local and mirrored panes ([`crate::adapters::mirror::next_order`]): what
    /// the tray shows and `GetOverview()` serves.
    pub fn of(panes: &BTreeMap<PaneId, Pane>, mirrored: &[MirroredPane]) -> Overview {
        let views: Vec<WirePane> = panes
            .values()
            .map(WirePane::of)
            .chain(mirrored.iter().map(counted_view))
            .collect();
        let next = next_order(panes.values(), mirrored)
            .first()
            .map(|p| p.to_string());
        Overview::new(&views, next.as_deref())
    }

    /// `GetOverview()`'s dictionary (`docs/dbus-api.md#overview`): `panes` u, `worst` s,
    /// `counts` a{sv} (level → u, every level above `none`), `next` a{sv} (`pane`,
    /// `title`, `attention`, `reason`; absent when no pane waits).
    pub fn dict(&self) -> Dict {
        let counts = self
            .counts
            .iter()
            .fold(DictBuilder::new(), |b, (a, n)| b.put(a.as_str(), *n as u32))
            .build();
        let mut b = DictBuilder::new()
            .put("panes", self.panes as u32)
            .str("worst", self.worst.as_str())
            .dict("counts", counts);
        if let Some(n) = &self.next {
            b = b.dict(
                "next",
                DictBuilder::new()
                    .str("pane", &n.id)
                    .str("title", &n.title)
                    .str("attention", n.attention.as_str())
                    .str("reason", &n.reason)
                    .build(),
            );
        }
        b.build()
    }

    /// The overview from [`Overview::dict`] as JSON (`crate::client::json::dict_json`). Errors:
    /// a key missing or of another type, or an attention level this side does not know,
    /// as one line.
    pub fn from_json(d: &serde_json::Map<String, Value>) -> Result<Overview, String> {
        let level = |v: Option<&Value>, what: &str| {
            v.and_then(Value::as_str)
                .and_then(Attention::parse)
                .ok_or_else(|| format!("the overview's {what} is not an attention level: {v:?}"))
        };
        let str_of = |m: &serde_json::Map<String, Value>, k: &str| {
            m.get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| format!("the overview's next pane has no {k}"))
        };
        let panes = d
            .get("panes")
            .and_then(Value::as_u64)
            .ok_or("the overview has no pane count")?;
        let mut counts = Vec::new();
        if let Some(Value::Object(c)) = d.get("counts") {
            for a in Attention::ALL
                .iter()
                .rev()
                .filter(|a| **a > Attention::None)
            {
                let n = c.get(a.as_str()).and_then(Value::as_u64).unwrap_or(0);
                counts.push((*a, n as usize));
            }
        }
        let next = match d.get("next") {
            Some(Value::Object(n)) => Some(NextPane {
                id: str_of(n, "pane")?,
                title: str_of(n, "title")?,
                attention: level(n.get("attention"), "next attention")?,
                reason: str_of(n, "reason")?,
            }),
            _ => None,
        };
        Ok(Overview {
            online: true,
            panes: panes as usize,
            counts,
            worst: level(d.get("worst"), "worst")?,
            next,
        })
    }

    /// The overview while the daemon is not running.
    pub fn offline() -> Overview {
        Overview {
            online: false,
            panes: 0,
            counts: Vec::new(),
            worst: Attention::None,
            next: None,
        }
    }

    /// Panes at `level`.
    pub fn count(&self, level: Attention) -> usize {
        self.counts
            .iter()
            .find(|(a, _)| *a == level)
            .map_or(0, |(_, n)| *n)
    }

    /// Any required attention or error open (the tray's `NeedsAttention`).
    pub fn needs_attention(&self) -> bool {
        self.worst.is_required() || self.worst == Attention::Error
    }

    /// The non-zero counts, most severe first: `1 permission · 2 unread`; `all seen`
    /// when nothing wants the human; `attend is not running` offline.
    pub fn text(&self) -> String {
        if !self.online {
            return "attend is not running".into();
        }
        let parts: Vec<String> = self
            .counts
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(a, n)| format!("{n} {}", level_word(*a)))
            .collect();
        if parts.is_empty() {
            "all seen".into()
        } else {
            parts.join(" · ")
        }
    }

    /// The next pane in one line: ``next: p3 webapp › api — permission: Bash `npm test` ``.
    pub fn next_line(&self) -> Option<String> {
        self.next
            .as_ref()
            .map(|n| format!("next: {} {} — {}", n.id, n.title, n.reason))
    }

    /// Several lines: one count per level (non-zero ones), then the next pane.
    pub fn tooltip(&self) -> String {
        if !self.online {
            return format!(
                "The attend daemon is not running ({}).",
                crate::config::START_HINT
            );
        }
        let mut lines: Vec<String> = self
            .counts
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(a, n)| format!("{}: {n}", a.as_str()))
            .collect();
        if lines.is_empty() {
            lines.push(format!(
                "{} pane{}, nothing needs you",
                self.panes,
                if self.panes == 1 { "" } else { "s" }
            ));
        }
        lines.extend(self.next_line());
        lines.join("\n")
    }

    /// `attend status` (plain): [`Overview::text`], then ` — ` and the next line.
    pub fn plain(&self) -> String {
        match self.next_line() {
            Some(next) => format!("{} — {next}", self.text()),
            None => self.text(),
        }
    }

    /// The CSS class / `alt` of the status bar: the worst attention's wire name, or
    /// `offline`.
    pub fn class(&self) -> &'static str {
        if self.online {
            self.worst.as_str()
        } else {
            "offline"
        }
    }

    /// `attend status --format json`: `{"online", "panes", "worst", "counts": {level: n},
    /// "next": {"pane", "title", "attention", "reason"} | null, "text"}`.
    pub fn json(&self) -> Value {
        let counts: serde_json::Map<String, Value> = self
            .counts
            .iter()
            .map(|(a, n)| (a.as_str().to_string(), json!(n)))
            .collect();
        json!({
            "online": self.online,
            "panes": self.panes,
            "worst": self.worst.as_str(),
            "counts": counts,
            "next": self.next.as_ref().map(|n| json!({
                "pane": n.id,
                "title": n.title,
                "attention": n.attention.as_str(),
                "reason": n.reason,
            })),
            "text": self.text(),
        })
    }

    /// Waybar's custom-module JSON: `{"text", "tooltip", "class", "alt"}`, class and alt
    /// = [`Overview::class`]. Waybar renders text and tooltip as Pango markup, so both are
    /// escaped ([`escape_markup`]): an agent's message shows as typed, never as markup.
    pub fn waybar(&self) -> Value {
        json!({
            "text": escape_markup(&self.text()),
            "tooltip": escape_markup(&self.tooltip()),
            "class": self.class(),
            "alt": self.class(),
        })
    }

    /// One i3bar block (`name` `attend`, `full_text`, `short_text`, `urgent` for required
    /// attention and errors, a `color` per level except `none`).
    pub fn i3bar_block(&self) -> Value {
        let mut block = json!({
            "name": "attend",
            "full_text": match self.next_line() {
                Some(n) if self.needs_attention() => format!("{} — {n}", self.text()),
                _ => self.text(),
            },
            "short_text": self.text(),
            "urgent": self.needs_attention(),
        });
        let color = match (self.online, self.worst) {
            (false, _) => Some("#9a9996"),
            (_, Attention::Error) => Some("#e01b24"),
            (_, Attention::PermissionRequired) => Some("#ff7800"),
            (_, Attention::InputRequired) => Some("#f6d32d"),
            (_, Attention::Warning) => Some("#e5a50a"),
            (_, Attention::Unread) => Some("#62a0ea"),
            (_, Attention::None) => None,
        };
        if let Some(c) = color {
            block["color"] = json!(c);
        }
        block
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::wire::WirePane;
    use crate::model::{AgentKind, AnswerKey, Decision, DecisionKind, Pane, PaneId, Source};
    use crate::model::{AttentionItem, Lifecycle, Timestamp};

    fn pane(id: u64, ws: &str, name: &str) -> Pane {
        Pane::new(
            PaneId(id),
            ws,
            "main",
            name,
            AgentKind::Claude,
            Timestamp(0),
        )
    }

    fn with(mut p: Pane, level: Attention) -> Pane {
        p.items.push(AttentionItem {
            level,
            source: Source::user(),
            at: Timestamp(1),
            decision: level.is_required().then_some(1),
        });
        p
    }

    fn gated(prompt: &str) -> Pane {
        let mut p = with(pane(1, "/src/webapp", "api"), Attention::PermissionRequired);
        p.lifecycle = Lifecycle::Blocked;
        p.pending_decision = Some(Decision {
            id: 1,
            kind: DecisionKind::Permission,
            prompt: prompt.into(),
            options: vec!["Yes".into(), "No".into()],
            answer_keys: vec![AnswerKey {
                choice: "allow".into(),
                keys: "1".into(),
            }],
            tool_use_id: None,
            source: Source::user(),
            opened_at: Timestamp(1),
        });
        p
    }

    #[test]
    fn a_permission_reason_names_the_tool_and_the_command() {
        let v = WirePane::of(&gated("Bash: npm test"));
        assert_eq!(
            reason(Attention::PermissionRequired, &v),
            "permission: Bash `npm test`"
        );
        assert_eq!(pane_title(&v), "webapp › api");
        assert_eq!(
            split_tool_call("Bash: npm test"),
            Some(("Bash", "npm test"))
        );
        assert_eq!(split_tool_call("Write to the file?"), None);
    }

    #[test]
    fn reasons_follow_the_level_and_strip_escape_sequences() {
        let mut p = with(pane(2, "/src/infra", "deploy"), Attention::Unread);
        p.lifecycle = Lifecycle::Done;
        p.last_message = Some("\x1b[31mAll 42 tests pass\x1b[0m\x07".into());
        let v = WirePane::of(&p);
        assert_eq!(reason(Attention::Unread, &v), "done: All 42 tests pass");
        p.lifecycle = Lifecycle::Failed;
        p.last_message = Some("rate limit".into());
        let v = WirePane::of(&p);
        assert_eq!(reason(Attention::Error, &v), "failed: rate limit");
        let long = "x".repeat(500);
        p.last_message = Some(long);
        assert!(reason(Attention::Error, &WirePane::of(&p)).len() <= REASON_MAX);
    }

    #[test]
    fn markup_is_escaped() {
        assert_eq!(
            escape_markup("<b>a</b> & c"),
            "&lt;b&gt;a&lt;/b&gt; &amp; c"
        );
    }

    #[test]
    fn the_overview_counts_by_shown_attention_and_names_the_next_pane() {
        let views = vec![
            WirePane::of(&gated("Bash: npm test")),
            WirePane::of(&with(pane(2, "/src/webapp", "tests"), Attention::Unread)),
            WirePane::of(&with(pane(3, "/src/infra", "deploy"), Attention::Unread)),
            WirePane::of(&pane(4, "/src/infra", "shell")),
        ];
        let o = Overview::new(&views, Some("p1"));
        assert_eq!(o.count(Attention::PermissionRequired), 1);
        assert_eq!(o.count(Attention::Unread), 2);
        assert_eq!(o.worst, Attention::PermissionRequired);
        assert!(o.needs_attention());
        assert_eq!(o.text(), "1 permission · 2 unread");
        assert_eq!(
            o.next_line().unwrap(),
            "next: p1 webapp › api — permission: Bash `npm test`"
        );
        assert_eq!(
            o.waybar(),
            json!({
                "text": "1 permission · 2 unread",
                "tooltip": "permission_required: 1\nunread: 2\nnext: p1 webapp › api — permission: Bash `npm test`",
                "class": "permission_required",
                "alt": "permission_required",
            })
        );
        let b = o.i3bar_block();
        assert_eq!(b["urgent"], json!(true));
        assert_eq!(b["name"], json!("attend"));
        assert_eq!(o.json()["counts"]["unread"], json!(2));
        assert_eq!(o.json()["next"]["pane"], json!("p1"));
    }

    #[test]
    fn the_overview_crosses_the_bus_unchanged() {
        let views = vec![
            WirePane::of(&gated("Bash: npm test")),
            WirePane::of(&with(pane(2, "/src/webapp", "tests"), Attention::Unread)),
        ];
        for o in [
            Overview::new(&views, Some("p1")),
            Overview::new(&views, None),
        ] {
            let wire = crate::client::json::dict_json(&owned(o.dict()));
            assert_eq!(Overview::from_json(&wire).unwrap(), o);
        }
        let mut bad = crate::client::json::dict_json(&owned(Overview::new(&views, None).dict()));
        bad.insert("worst".into(), json!("frantic"));
        assert!(Overview::from_json(&bad).unwrap_err().contains("frantic"));
    }

    /// `d` as a client receives it.
    fn owned(d: Dict) -> crate::client::Dict {
        d.into_iter()
            .map(|(k, v)| (k, v.try_to_owned().unwrap()))
            .collect()
    }

    #[test]
    fn nothing_to_see_and_offline_have_their_own_words() {
        let o = Overview::new(&[WirePane::of(&pane(1, "/w", "a"))], Some(""));
        assert_eq!(o.text(), "all seen");
        assert_eq!(o.class(), "none");
        assert!(o.next.is_none());
        assert!(!o.needs_attention());
        let off = Overview::offline();
        assert_eq!(off.class(), "offline");
        assert_eq!(off.waybar()["alt"], json!("offline"));
    }

    #[test]
    fn icon_names_follow_the_wire_names() {
        assert_eq!(
            icon_name(Attention::PermissionRequired),
            "attend-permission-required-symbolic"
        );
        assert_eq!(icon_name(Attention::None), "attend-none-symbolic");
    }
}
