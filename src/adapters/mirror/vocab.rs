//! A remote daemon's values read with the local vocabulary, and its strings made safe
//! (`docs/remote.md#how-remote-panes-are-mirrored`, "One vocabulary" and "A hostile
//! remote").
//!
//! Vocabulary values are parsed by the same functions as local ones ([`Lifecycle::parse`],
//! [`Attention::parse`], [`AgentKind::parse`], [`DecisionKind::parse`]); a value they do
//! not know is kept raw ([`Vocab::Raw`]), cleaned and cut, and marks the pane degraded.
//! Every other string goes through the hook payload cleaning
//! ([`crate::adapters::hooks::clean_text`], line breaks kept) or the single-line
//! [`crate::adapters::terminal_signals::sanitize_text`], each with a byte bound below.

use crate::adapters::hooks::clean_text;
use crate::adapters::terminal_signals::{sanitize_text, MAX_PATH_LEN};
use crate::model::{AgentKind, Attention, DecisionKind, Lifecycle, Live};
use std::fmt;

/// Most panes kept per remote host; a snapshot or event beyond it is dropped and
/// reported ([`super::Effect::Dropped`]).
pub const MAX_PANES_PER_HOST: usize = 1000;
/// Longest single-line value kept (pane name, tab, repo, branch, title, session id), in
/// bytes.
pub const MAX_LINE: usize = 256;
/// Longest path kept (workspace key, cwd), in bytes: the terminal adapter's bound.
pub const MAX_PATH: usize = MAX_PATH_LEN;
/// Longest raw vocabulary value kept (an unknown agent, lifecycle, …), in bytes.
pub const MAX_RAW_VALUE: usize = 32;
/// Most options or choices kept of a decision; each is a [`MAX_LINE`] line.
pub const MAX_OPTIONS: usize = 16;
/// Longest error text kept for a link (`offline since T: ERROR`), in bytes.
pub const MAX_ERROR: usize = 200;
/// Largest event data kept for the local log, in bytes of JSON text; larger data is
/// replaced by `{"truncated": true}`.
pub const MAX_EVENT_DATA: usize = 16 * 1024;

/// A vocabulary value from a remote: one the local side knows, or the remote's raw text
/// (cleaned, at most [`MAX_RAW_VALUE`] bytes) — shown as it is and marked degraded, never
/// read as another value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Vocab<T> {
    Known(T),
    Raw(String),
}

impl<T: Copy> Vocab<T> {
    /// The known value; `None` for a raw one.
    pub fn known(&self) -> Option<T> {
        match self {
            Vocab::Known(v) => Some(*v),
            Vocab::Raw(_) => None,
        }
    }

    /// True for a value the local side does not know.
    pub fn is_degraded(&self) -> bool {
        matches!(self, Vocab::Raw(_))
    }
}

impl<T: fmt::Display> fmt::Display for Vocab<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Vocab::Known(v) => v.fmt(f),
            Vocab::Raw(s) => f.write_str(s),
        }
    }
}

fn vocab<T>(s: &str, parse: impl Fn(&str) -> Option<T>) -> Vocab<T> {
    match parse(s) {
        Some(v) => Vocab::Known(v),
        None => Vocab::Raw(line(s, MAX_RAW_VALUE)),
    }
}

/// A remote lifecycle (`working`, …).
pub fn lifecycle(s: &str) -> Vocab<Lifecycle> {
    vocab(s, Lifecycle::parse)
}

/// A remote attention level (`permission_required`, …).
pub fn attention(s: &str) -> Vocab<Attention> {
    vocab(s, Attention::parse)
}

/// A remote agent name (`claude`, …).
pub fn agent(s: &str) -> Vocab<AgentKind> {
    vocab(s, AgentKind::parse)
}

/// A remote decision kind (`permission`, `question`).
pub fn decision_kind(s: &str) -> Vocab<DecisionKind> {
    vocab(s, DecisionKind::parse)
}

/// A remote live state with its exit code and signal: `running` or `exited`, the names
/// of [`Live::as_str`].
pub fn live(state: &str, code: Option<i32>, signal: Option<i32>) -> Vocab<Live> {
    vocab(state, |s| {
        if s == Live::Running.as_str() {
            Some(Live::Running)
        } else if s == (Live::Exited { code, signal }).as_str() {
            Some(Live::Exited { code, signal })
        } else {
            None
        }
    })
}

/// One line of remote text: escapes and controls removed, breaks made spaces, at most
/// `max` bytes ([`sanitize_text`]).
pub fn line(s: &str, max: usize) -> String {
    sanitize_text(s, max)
}

/// Remote text that may span lines (a message, a prompt): the hook payload cleaning
/// ([`clean_text`]: escapes and controls removed, line breaks kept, at most
/// [`crate::adapters::hooks::MAX_HOOK_TEXT`] bytes).
pub fn text(s: &str) -> String {
    clean_text(s)
}

/// An optional single-line value, `None` when nothing is left after cleaning.
pub fn opt_line(s: Option<&str>, max: usize) -> Option<String> {
    s.map(|s| line(s, max)).filter(|s| !s.is_empty())
}

/// A list of labels: at most [`MAX_OPTIONS`], each a [`MAX_LINE`] line, empty ones
/// dropped.
pub fn labels(v: &[String]) -> Vec<String> {
    v.iter()
        .map(|s| line(s, MAX_LINE))
        .filter(|s| !s.is_empty())
        .take(MAX_OPTIONS)
        .collect()
}

/// Event data for the local log: every string (keys too) cleaned like a hook payload's,
/// and data over [`MAX_EVENT_DATA`] bytes of JSON replaced by `{"truncated": true}`.
pub fn event_data(data: &serde_json::Value) -> serde_json::Value {
    let mut v = data.clone();
    crate::adapters::hooks::clean_strings(&mut v);
    let fits = serde_json::to_string(&v).is_ok_and(|t| t.len() <= MAX_EVENT_DATA);
    if fits && v.is_object() {
        v
    } else {
        serde_json::json!({ "truncated": true })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_values_parse_with_the_local_vocabulary() {
        for l in Lifecycle::ALL {
            assert_eq!(lifecycle(l.as_str()), Vocab::Known(l));
        }
        for a in Attention::ALL {
            assert_eq!(attention(a.as_str()), Vocab::Known(a));
        }
        for a in AgentKind::ALL {
            assert_eq!(agent(a.as_str()), Vocab::Known(a));
        }
        assert_eq!(
            decision_kind("question"),
            Vocab::Known(DecisionKind::Question)
        );
        assert_eq!(live("running", None, None), Vocab::Known(Live::Running));
        assert_eq!(
            live("exited", Some(1), None),
            Vocab::Known(Live::Exited {
                code: Some(1),
                signal: None
            })
        );
    }

    #[test]
    fn unknown_values_stay_raw_and_degraded_never_another_value() {
        let v = agent("goose");
        assert_eq!(v, Vocab::Raw("goose".into()));
        assert!(v.is_degraded() && v.known().is_none());
        assert_eq!(v.to_string(), "goose");
        // Near misses are not read as the value they resemble.
        assert!(lifecycle("Working").is_degraded());
        assert!(attention("permission").is_degraded());
        assert!(live("zombie", None, None).is_degraded());
        // A raw value is cleaned and cut.
        let long = agent(&format!("\x1b[31m{}", "x".repeat(100)));
        assert_eq!(long, Vocab::Raw("x".repeat(MAX_RAW_VALUE)));
    }

    #[test]
    fn oversized_or_odd_event_data_is_replaced() {
        let x = "x".repeat(MAX_EVENT_DATA / 2);
        let big = serde_json::json!({ "a": x, "b": x, "c": x });
        assert_eq!(event_data(&big), serde_json::json!({ "truncated": true }));
        let odd = serde_json::json!(["not", "an", "object"]);
        assert_eq!(event_data(&odd), serde_json::json!({ "truncated": true }));
        let esc = serde_json::json!({ "lev\x07el": "a\x1b[1mb\nc" });
        assert_eq!(event_data(&esc), serde_json::json!({ "level": "ab\nc" }));
    }

    proptest! {
        #[test]
        fn no_control_character_survives_cleaning(s in "\\PC*|[\\x00-\\x1f\\x7f-\\x9f\u{202e}a-z]*") {
            let one = line(&s, MAX_LINE);
            prop_assert!(one.len() <= MAX_LINE);
            prop_assert!(!one.chars().any(char::is_control), "{one:?}");
            let many = text(&s);
            prop_assert!(!many.chars().any(|c| c.is_control() && c != '\n'), "{many:?}");
            for v in [agent(&s).to_string(), lifecycle(&s).to_string()] {
                prop_assert!(v.len() <= MAX_RAW_VALUE.max(16));
                prop_assert!(!v.contains('\x1b') && !v.contains('\u{202e}'), "{:?}", v);
            }
        }
    }
}
