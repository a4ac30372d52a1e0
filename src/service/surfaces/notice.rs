//! The words of a desktop notification (`docs/desktop-surfaces.md#what-a-notification-says-and-does`):
//! the summary says where and what — `workspace › pane — permission: Bash`, `— question`,
//! `— done`, `— failed`, `— warning` — and the body is the agent's message, once: the
//! command a gate guards, the question and its options, the pane's last message.
//! Nothing is said twice: the summary never repeats the message, the body never repeats
//! the summary.
//!
//! Pure: a [`WirePane`] and a level in, text out. Text from agents and terminals is
//! cleaned of control and escape sequences here; markup escaping is the caller's (it
//! depends on the server).

use crate::adapters::terminal_signals::sanitize_text;
use crate::client::overview::{pane_title, split_tool_call};
use crate::client::wire::WirePane;
use crate::model::Attention;

/// Longest body (bytes).
pub const BODY_MAX: usize = 1000;

/// A notification's summary and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub summary: String,
    pub body: String,
}

/// The word for what happened at `level`: `permission`, `question`, `failed`, `warning`,
/// `done` (unread after a completion), `unread`. One mapping for every message Attend
/// sends about a level: desktop notifications and away pushes (`surfaces::away`).
pub(super) fn what(level: Attention, view: &WirePane) -> &'static str {
    match level {
        Attention::PermissionRequired => "permission",
        Attention::InputRequired => "question",
        Attention::Error => "failed",
        Attention::Warning => "warning",
        Attention::Unread if view.lifecycle == "done" => "done",
        Attention::Unread | Attention::None => "unread",
    }
}

/// The notification of `view` at `level` (see the module doc).
pub fn notice(level: Attention, view: &WirePane) -> Notice {
    let title = pane_title(view);
    let word = what(level, view);
    let decision = view.pending_decision.as_ref();
    let last = view.last_message.as_deref().unwrap_or("");
    let clean = |s: &str, max: usize| sanitize_text(s, max);
    let (what, body) = match level {
        Attention::PermissionRequired => {
            let prompt = clean(decision.map_or(last, |d| d.prompt.as_str()), BODY_MAX);
            match split_tool_call(&prompt) {
                // The tool in the summary, what it runs in the body.
                Some((tool, command)) => (format!("{word}: {}", clean(tool, 40)), command.into()),
                None => (word.to_string(), prompt.clone()),
            }
        }
        Attention::InputRequired => {
            let prompt = clean(decision.map_or(last, |d| d.prompt.as_str()), BODY_MAX);
            let options = decision
                .filter(|d| !d.options.is_empty())
                .map(|d| clean(&d.options.join(" · "), 300));
            let body = match options {
                Some(o) if !prompt.is_empty() => format!("{prompt}\n{o}"),
                Some(o) => o,
                None => prompt,
            };
            (word.to_string(), body)
        }
        _ => (word.to_string(), clean(last, BODY_MAX)),
    };
    Notice {
        summary: format!("{title} — {what}"),
        body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        AgentKind, AnswerKey, AttentionItem, Decision, DecisionKind, Lifecycle, Pane, PaneId,
        Source, Timestamp,
    };

    fn pane(ws: &str, name: &str) -> Pane {
        Pane::new(PaneId(6), ws, "main", name, AgentKind::Claude, Timestamp(0))
    }

    fn decide(p: &mut Pane, kind: DecisionKind, prompt: &str, options: &[&str]) {
        p.lifecycle = Lifecycle::Blocked;
        p.pending_decision = Some(Decision {
            id: 1,
            kind,
            prompt: prompt.into(),
            options: options.iter().map(|o| o.to_string()).collect(),
            answer_keys: ["allow", "deny"]
                .iter()
                .map(|c| AnswerKey {
                    choice: c.to_string(),
                    keys: String::new(),
                })
                .collect(),
            tool_use_id: None,
            source: Source::user(),
            opened_at: Timestamp(1),
        });
        p.items.push(AttentionItem {
            level: kind.attention(),
            source: Source::user(),
            at: Timestamp(1),
            decision: Some(1),
        });
    }

    fn text(level: Attention, p: &Pane) -> (String, String) {
        let n = notice(level, &WirePane::of(p));
        (n.summary, n.body)
    }

    fn pair(summary: &str, body: &str) -> (String, String) {
        (summary.to_string(), body.to_string())
    }

    /// The golden summary and body of every kind of notification.
    #[test]
    fn golden_summary_and_body_of_every_kind() {
        // A gate: the tool in the summary, the command in the body.
        let mut gate = pane("/src/webapp", "api");
        decide(
            &mut gate,
            DecisionKind::Permission,
            "Bash: npm test -- --watch=false",
            &["Yes", "Yes, and don't ask again", "No"],
        );
        assert_eq!(
            text(Attention::PermissionRequired, &gate),
            pair(
                "webapp › api — permission: Bash",
                "npm test -- --watch=false"
            )
        );
        // A gate whose prompt is no tool call: the prompt is the body.
        let mut trust = pane("/src/webapp", "api");
        decide(
            &mut trust,
            DecisionKind::Permission,
            "Do you trust the files in this folder?",
            &[],
        );
        assert_eq!(
            text(Attention::PermissionRequired, &trust),
            pair(
                "webapp › api — permission",
                "Do you trust the files in this folder?"
            )
        );
        // A question: the question and its options.
        let mut question = pane("/src/webapp", "db");
        decide(
            &mut question,
            DecisionKind::Question,
            "Which database should the tests use?",
            &["Postgres", "SQLite"],
        );
        assert_eq!(
            text(Attention::InputRequired, &question),
            pair(
                "webapp › db — question",
                "Which database should the tests use?\nPostgres · SQLite"
            )
        );
        // A completion: where and "done"; the agent's message once.
        let mut done = pane("", "");
        done.lifecycle = Lifecycle::Done;
        done.last_message = Some("Done: the work is finished.".into());
        assert_eq!(
            text(Attention::Unread, &done),
            pair("p6 — done", "Done: the work is finished.")
        );
        // A failure.
        let mut failed = pane("/src/infra", "deploy");
        failed.lifecycle = Lifecycle::Failed;
        failed.last_message = Some("API error: rate limit reached".into());
        assert_eq!(
            text(Attention::Error, &failed),
            pair("infra › deploy — failed", "API error: rate limit reached")
        );
        // A warning.
        let mut warned = pane("/src/infra", "deploy");
        warned.last_message = Some("API retry 3/10 in 8 s".into());
        assert_eq!(
            text(Attention::Warning, &warned),
            pair("infra › deploy — warning", "API retry 3/10 in 8 s")
        );
        // No message: an empty body, never the summary again.
        let mut bare = pane("/src/infra", "deploy");
        bare.lifecycle = Lifecycle::Done;
        assert_eq!(
            text(Attention::Unread, &bare),
            pair("infra › deploy — done", "")
        );
        // Nothing is said twice.
        for (level, p) in [
            (Attention::PermissionRequired, &gate),
            (Attention::PermissionRequired, &trust),
            (Attention::InputRequired, &question),
            (Attention::Unread, &done),
            (Attention::Error, &failed),
            (Attention::Warning, &warned),
        ] {
            let (summary, body) = text(level, p);
            let what = summary.rsplit(" — ").next().unwrap();
            assert!(!body.contains(&summary), "{summary:?} / {body:?}");
            assert!(!summary.contains(&body), "{summary:?} / {body:?}");
            assert!(!what.contains(':') || level == Attention::PermissionRequired);
        }
    }

    #[test]
    fn agent_text_is_cleaned_of_escape_sequences() {
        let mut p = pane("/src/w\x1b[31m", "a\u{202e}pi");
        p.lifecycle = Lifecycle::Done;
        p.last_message = Some("\x1b[31mAll tests pass\x1b[0m\x07 <b>".into());
        assert_eq!(
            text(Attention::Unread, &p),
            pair("w › api — done", "All tests pass <b>")
        );
        let mut gate = pane("/src/w", "api");
        decide(
            &mut gate,
            DecisionKind::Permission,
            "Bash: rm -rf \x1b]0;x\x07build",
            &[],
        );
        assert_eq!(
            text(Attention::PermissionRequired, &gate),
            pair("w › api — permission: Bash", "rm -rf build")
        );
    }
}
