//! Which notification gets a reply action (`docs/desktop-surfaces.md#replies`): a
//! question that takes typed text ([`crate::client::needs::reply_mode`]) on a pane
//! Attend runs gets, where the server advertises `inline-reply`, the `inline-reply`
//! action (the server shows a reply field; its text comes back in `NotificationReplied`),
//! else a "Reply…" button ([`REPLY_IN_PANEL`]) that opens the panel's reply field. Pure;
//! the notifier carries the replies out.

use crate::client::needs::reply_mode;
use crate::client::wire::WirePane;
use crate::model::Attention;

/// The action key of the inline reply field (the `inline-reply` extension); its label is
/// the field's placeholder.
pub const INLINE_REPLY: &str = "inline-reply";
/// The action key of the "Reply…" button on a server without inline replies.
pub const REPLY_IN_PANEL: &str = "x-attend-reply";

/// The reply action of the notification of `view` at `level`, or `None`: only on an
/// `input_required` notification of a question that takes a reply, on a pane Attend can
/// type into (`typeable`: it runs it), for a server with `actions`; the inline one when
/// it has `inline_reply`.
pub fn reply_action(
    view: &WirePane,
    typeable: bool,
    level: Attention,
    actions: bool,
    inline_reply: bool,
) -> Option<(String, String)> {
    if !actions || !typeable || level != Attention::InputRequired {
        return None;
    }
    reply_mode(view.pending_decision.as_ref()?)?;
    let key = if inline_reply {
        INLINE_REPLY
    } else {
        REPLY_IN_PANEL
    };
    Some((key.to_string(), "Reply…".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::wire::WireDecision;
    use crate::model::{AgentKind, Pane, PaneId, Timestamp};

    fn asking(options: &[&str]) -> WirePane {
        let p = Pane::new(
            PaneId(1),
            "/w",
            "main",
            "api",
            AgentKind::Claude,
            Timestamp(0),
        );
        let mut v = WirePane::of(&p);
        v.pending_decision = Some(WireDecision {
            id: 1,
            kind: "question".into(),
            prompt: "Which database, and why?".into(),
            options: options.iter().map(|s| s.to_string()).collect(),
            choices: Vec::new(),
            source: "user:user".into(),
            opened_at: 1,
            tool_use_id: None,
            gate: None,
        });
        v
    }

    #[test]
    fn a_question_that_takes_text_gets_an_inline_reply_or_a_reply_button() {
        let caps = |inline: bool| (true, inline);
        let q = asking(&[]);
        let at = Attention::InputRequired;
        assert_eq!(
            reply_action(&q, true, at, caps(true).0, caps(true).1),
            Some(("inline-reply".into(), "Reply…".into()))
        );
        assert_eq!(
            reply_action(&q, true, at, caps(false).0, caps(false).1),
            Some(("x-attend-reply".into(), "Reply…".into()))
        );
        assert_eq!(
            reply_action(&q, false, at, caps(true).0, caps(true).1),
            None,
            "not typeable"
        );
        assert_eq!(
            reply_action(&q, true, Attention::Unread, caps(true).0, caps(true).1),
            None
        );
        assert_eq!(reply_action(&q, true, at, false, true), None, "no actions");
        let dialog = asking(&["Postgres", "SQLite"]);
        assert_eq!(
            reply_action(&dialog, true, at, caps(true).0, caps(true).1),
            None,
            "digits pick options"
        );
        let free = asking(&["Postgres", "Type something."]);
        assert!(reply_action(&free, true, at, caps(true).0, caps(true).1).is_some());
    }
}
