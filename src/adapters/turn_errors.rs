//! Screen turn errors: the error an agent draws when an API error ended its turn and no
//! hook says so — Codex 0.171.0's `■ unexpected status 401 …` (it fires no hook and no
//! `notify` for such a turn), Gemini CLI 0.61.0's `✕ [API Error: {…}]` (its `AfterAgent`
//! only says `[no response text]`). Pure: the screen text in, the error out. The service
//! turns a newly drawn one into a failed turn
//! (`docs/lifecycle-attention.md#api-failures-and-policy-denials`,
//! `docs/adapters.md#screen-turn-errors`).
//!
//! An error counts only as the **last history cell** above the agent's input area — no
//! status row, no reply, no prompt of the user's below it — so a reply that quotes the
//! words is none, and an error from an earlier turn stops counting once the next prompt is
//! drawn under it. A cell is a row that starts in column 0 with the rows indented under it.

use crate::model::AgentKind;
use regex::Regex;
use std::sync::LazyLock;

/// Longest error text kept, in characters.
const MAX_ERROR_CHARS: usize = 300;

/// What ended the turn, read off the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnError {
    /// `<kind>: <the agent's words>`, kind `authentication failed`, `usage limit` or `API
    /// error` (the words Claude's `StopFailure` messages use).
    pub text: String,
    /// A usage, quota or rate limit: the pane's needs-input reason "usage limit".
    pub usage_limit: bool,
}

/// An HTTP status in the text (`unexpected status 401`, `"code":401`).
static STATUS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)(?:status\s+|"code"\s*:\s*)(?P<code>[1-5]\d\d)\b"#).expect("a valid regex")
});

/// Words of a rejected credential.
static AUTH_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(unauthorized|unauthenticated|permission_denied|api key|authentication)\b")
        .expect("a valid regex")
});

/// Words of a usage, quota or rate limit.
static LIMIT_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(quota|usage limit|rate limit|resource_exhausted)").expect("a valid regex")
});

/// The `"message":"…"` of a JSON error body quoted in the text (Gemini's).
static JSON_MESSAGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#""message"\s*:\s*"(?P<m>(?:[^"\\]|\\.)*)""#).expect("a valid regex")
});

/// The turn error drawn as the last history cell on `agent`'s live `screen` (rows joined
/// by `\n`), if any. `None` for other agents and screens.
pub fn turn_error(agent: AgentKind, screen: &str) -> Option<TurnError> {
    if !matches!(agent, AgentKind::Codex | AgentKind::Gemini) {
        return None;
    }
    let rows: Vec<&str> = screen.lines().collect();
    let words = match agent {
        AgentKind::Codex => codex(&rows),
        AgentKind::Gemini => gemini(&rows),
        _ => None,
    }?;
    Some(classify(&words))
}

/// The last cell above row `end` (exclusive), skipping blank rows: the index of its head
/// and its rows, head first.
fn last_cell<'a>(rows: &[&'a str], end: usize) -> Option<(usize, Vec<&'a str>)> {
    let mut i = end;
    while i > 0 && rows[i - 1].trim().is_empty() {
        i -= 1;
    }
    let last = i;
    while i > 0 {
        i -= 1;
        let row = rows[i];
        if row.trim().is_empty() {
            return None; // Continuation rows never hold a blank row inside the cell.
        }
        if !row.starts_with(' ') {
            return Some((i, rows[i..last].to_vec()));
        }
    }
    None
}

/// The cell's words: its head without `glyph`, its rows joined with one space.
fn words(cell: &[&str], glyph: &str) -> Option<String> {
    let head = cell.first()?.strip_prefix(glyph)?;
    let mut text = head.trim().to_string();
    for row in &cell[1..] {
        text.push(' ');
        text.push_str(row.trim());
    }
    Some(text)
}

/// Codex: the composer is the last row that starts with `›`; the cell right above it
/// (blank rows between) starts with `■`.
fn codex(rows: &[&str]) -> Option<String> {
    let composer = rows.iter().rposition(|r| r.starts_with('›'))?;
    let (_, cell) = last_cell(rows, composer)?;
    let text = words(&cell, "■")?;
    // Codex appends the request's address: not the user's business.
    Some(
        text.split(", url:")
            .next()
            .unwrap_or(&text)
            .trim()
            .to_string(),
    )
}

/// Gemini: the input box's top rule is the last full-width rule; the status row right
/// above it (spinner, `Executing Hook: …`, `? for shortcuts`, or blank) is skipped, then
/// an `ℹ` note cell ("This request failed. …"), and the cell above must start with
/// `✕ [API Error:`.
fn gemini(rows: &[&str]) -> Option<String> {
    let rule = rows.iter().rposition(|r| is_rule(r))?;
    let mut end = rule;
    if end > 0 && rows[end - 1].starts_with(' ') {
        end -= 1; // The status row.
    }
    let (mut head, mut cell) = last_cell(rows, end)?;
    while cell[0].starts_with('ℹ') {
        (head, cell) = last_cell(rows, head)?;
    }
    let text = words(&cell, "✕")?;
    let inner = text
        .strip_prefix("[API Error:")?
        .trim()
        .trim_end_matches(']')
        .trim();
    Some(inner.to_string())
}

/// True for a full-width horizontal rule row.
fn is_rule(row: &str) -> bool {
    let t = row.trim();
    t.chars().count() >= 20 && t.chars().all(|c| c == '─')
}

/// The kind of error by its status code and words, and the agent's words (a JSON body's
/// `message` when the words are one), cut to [`MAX_ERROR_CHARS`].
fn classify(words: &str) -> TurnError {
    let code: Option<u16> = STATUS.captures(words).and_then(|c| c["code"].parse().ok());
    let usage_limit = code == Some(429) || LIMIT_WORDS.is_match(words);
    let kind = if usage_limit {
        "usage limit"
    } else if matches!(code, Some(401 | 403)) || AUTH_WORDS.is_match(words) {
        "authentication failed"
    } else {
        "API error"
    };
    let said = JSON_MESSAGE
        .captures(words)
        .map(|c| c["m"].replace("\\\"", "\""))
        .unwrap_or_else(|| words.to_string());
    let said = match said.char_indices().nth(MAX_ERROR_CHARS) {
        Some((cut, _)) => format!("{}…", &said[..cut]),
        None => said,
    };
    TurnError {
        text: format!("{kind}: {said}"),
        usage_limit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/notices")
            .join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn error(agent: AgentKind, screen: &str) -> Option<(String, bool)> {
        turn_error(agent, screen).map(|e| (e.text, e.usage_limit))
    }

    #[test]
    fn codex_error_cells_of_the_recorded_screens_are_turn_errors() {
        assert_eq!(
            error(AgentKind::Codex, &fixture("codex/0.171.0/turn-error-401.txt")),
            Some((
                "authentication failed: unexpected status 401 Unauthorized: Incorrect API key provided"
                    .into(),
                false
            ))
        );
        assert_eq!(
            error(
                AgentKind::Codex,
                &fixture("codex/0.171.0/turn-error-quota.txt")
            ),
            Some((
                "usage limit: Quota exceeded. Check your plan and billing details.".into(),
                true
            ))
        );
        let (text, limit) = error(
            AgentKind::Codex,
            &fixture("codex/0.171.0/turn-error-500.txt"),
        )
        .unwrap();
        assert!(text.starts_with("API error: We"), "{text}");
        assert!(!limit);
    }

    #[test]
    fn gemini_api_error_cell_is_a_turn_error_with_the_bodys_message() {
        assert_eq!(
            error(
                AgentKind::Gemini,
                &fixture("gemini/0.61.0/turn-error-401.txt")
            ),
            Some((
                "authentication failed: API key not valid. Please pass a valid API key.".into(),
                false
            ))
        );
    }

    #[test]
    fn an_error_that_is_not_the_last_cell_or_is_quoted_is_none() {
        let codex = "› say hello\n\n■ unexpected status 401 Unauthorized: bad key\n\n\n› Ask Codex to do anything\n\n  gpt · /tmp/proj";
        assert!(turn_error(AgentKind::Codex, codex).is_some());
        // The next prompt drawn under it.
        let next = codex.replace(
            "\n\n\n› Ask",
            "\n\n› again\n\n• Working (0s • esc to interrupt)\n\n› Ask",
        );
        assert_eq!(turn_error(AgentKind::Codex, &next), None);
        // A reply that quotes the glyph and words.
        let reply =
            "› say hello\n\n• Codex prints errors like\n  ■ unexpected status 401\n\n› Ask Codex";
        assert_eq!(turn_error(AgentKind::Codex, reply), None);
        // Other agents, and screens without an error.
        assert_eq!(turn_error(AgentKind::Claude, codex), None);
        assert_eq!(turn_error(AgentKind::Shell, codex), None);
        assert_eq!(
            turn_error(AgentKind::Codex, &fixture("codex/0.171.0/reconnecting.txt")),
            None
        );
        let rule = "─".repeat(40);
        let gemini = format!(
            " > say hello\n✕ [API Error: {{\"error\":{{\"code\":503,\"message\":\"The model is\n  overloaded.\",\"status\":\"UNAVAILABLE\"}}}}]\n                       ? for shortcuts\n{rule}\n >   Type your message"
        );
        assert_eq!(
            error(AgentKind::Gemini, &gemini),
            Some(("API error: The model is overloaded.".into(), false))
        );
        let answered = gemini.replace(
            "\n                       ? for",
            "\n > again\n✦ Hello.\n                       ? for",
        );
        assert_eq!(turn_error(AgentKind::Gemini, &answered), None);
        let quoted = format!(" > say hello\n✦ Gemini shows\n  ✕ [API Error: 401]\n\n{rule}\n >");
        assert_eq!(turn_error(AgentKind::Gemini, &quoted), None);
    }

    #[test]
    fn kinds_by_status_and_words() {
        let kind = |w: &str| classify(w).text.split(':').next().unwrap().to_string();
        assert_eq!(
            kind("unexpected status 403 Forbidden"),
            "authentication failed"
        );
        assert_eq!(
            kind("unexpected status 429 Too Many Requests"),
            "usage limit"
        );
        assert_eq!(
            kind("You've hit your usage limit. Try again at 18:00."),
            "usage limit"
        );
        assert_eq!(
            kind("unexpected status 500 Internal Server Error"),
            "API error"
        );
        assert!(classify("x".repeat(400).as_str()).text.ends_with('…'));
    }
}
