//! What a key does on a row of the Needs you view (`docs/desktop-surfaces.md#needs-you`),
//! pure so it is tested without GTK: `a` allows, `d` denies, a digit picks the option of
//! that number, `o` (or Enter, the row's activation) opens the pane, `r` goes to the reply
//! field. Up and Down move between rows (the list's own keys).

use crate::client::needs::Need;

/// What a key on a row asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowKey {
    /// Answer the decision of `pane` with `choice` (as `attend answer` takes it).
    Answer { pane: String, choice: String },
    /// Show the pane in the window.
    Open(String),
    /// Put the keyboard focus in the row's reply field.
    Reply,
    /// The key means something here, but not for this decision: the message to show.
    Refused(String),
}

/// The choice named `name` (case-insensitively) among `need`'s choices, as the daemon
/// spells it.
fn named<'a>(need: &'a Need, name: &str) -> Option<&'a str> {
    need.decision
        .choices
        .iter()
        .find(|c| c.eq_ignore_ascii_case(name))
        .map(String::as_str)
}

/// What key `key` (the character typed, no modifier) does on the row of `need`; `None`
/// for a key the row leaves to GTK. `messages` gives the texts of the refusals (the
/// panel's translated strings): `(no_choice, no_option, no_reply)` where `{choice}` and
/// `{n}` are replaced.
pub fn row_key(need: &Need, key: char, messages: (&str, &str, &str)) -> Option<RowKey> {
    let (no_choice, no_option, no_reply) = messages;
    let answer = |choice: &str| RowKey::Answer {
        pane: need.pane.clone(),
        choice: choice.to_string(),
    };
    Some(match key.to_ascii_lowercase() {
        'a' | 'y' => named(need, "allow")
            .map(answer)
            .unwrap_or_else(|| RowKey::Refused(no_choice.replace("{choice}", "allow"))),
        'd' | 'n' => named(need, "deny")
            .map(answer)
            .unwrap_or_else(|| RowKey::Refused(no_choice.replace("{choice}", "deny"))),
        'o' => RowKey::Open(need.pane.clone()),
        'r' if need.reply.is_some() => RowKey::Reply,
        'r' => RowKey::Refused(no_reply.to_string()),
        c @ '1'..='9' => {
            let n = c.to_digit(10).unwrap_or(0) as usize;
            let d = &need.decision;
            if n <= d.options.len() {
                // The number the agent draws beside the option: the daemon reads the
                // dialog on screen and presses that option.
                answer(&n.to_string())
            } else if n <= d.choices.len() {
                // No labels known: the n-th choice by name (a gate answered through its
                // waiting hook has no screen to read numbers from).
                answer(&d.choices[n - 1])
            } else {
                RowKey::Refused(no_option.replace("{n}", &n.to_string()))
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::needs::{need_of, ReplyMode};
    use crate::client::wire::{WireDecision, WirePane};
    use crate::model::{AgentKind, Pane, PaneId, Timestamp};

    fn need(kind: &str, options: &[&str], choices: &[&str]) -> Need {
        let p = Pane::new(
            PaneId(4),
            "/w",
            "main",
            "api",
            AgentKind::Claude,
            Timestamp(0),
        );
        let mut w = WirePane::of(&p);
        w.pending_decision = Some(WireDecision {
            id: 1,
            kind: kind.into(),
            prompt: "?".into(),
            options: options.iter().map(|s| s.to_string()).collect(),
            choices: choices.iter().map(|s| s.to_string()).collect(),
            source: "user:user".into(),
            opened_at: 1,
            tool_use_id: None,
            gate: None,
        });
        need_of(&w, Timestamp(2)).unwrap()
    }

    const M: (&str, &str, &str) = ("no {choice}", "no option {n}", "no reply");

    fn answer(choice: &str) -> Option<RowKey> {
        Some(RowKey::Answer {
            pane: "p4".into(),
            choice: choice.into(),
        })
    }

    #[test]
    fn keys_allow_deny_pick_open_and_reply() {
        let gate = need("permission", &[], &["allow", "deny"]);
        assert_eq!(row_key(&gate, 'a', M), answer("allow"));
        assert_eq!(row_key(&gate, 'D', M), answer("deny"));
        assert_eq!(row_key(&gate, '2', M), answer("deny"), "the 2nd choice");
        assert_eq!(
            row_key(&gate, '3', M),
            Some(RowKey::Refused("no option 3".into()))
        );
        assert_eq!(row_key(&gate, 'o', M), Some(RowKey::Open("p4".into())));
        assert_eq!(
            row_key(&gate, 'r', M),
            Some(RowKey::Refused("no reply".into()))
        );
        assert_eq!(row_key(&gate, 'x', M), None);

        let q = need("question", &["Postgres", "SQLite", "Type something."], &[]);
        assert_eq!(
            row_key(&q, '2', M),
            answer("2"),
            "the option the agent numbers 2"
        );
        assert_eq!(
            row_key(&q, 'a', M),
            Some(RowKey::Refused("no allow".into()))
        );
        assert_eq!(row_key(&q, 'r', M), Some(RowKey::Reply));
        assert!(matches!(q.reply, Some(ReplyMode::PickThenType { .. })));
    }
}
