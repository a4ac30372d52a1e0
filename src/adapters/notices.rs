//! Screen notices: the status lines an agent draws on its live screen about a problem it
//! works around, which no hook reports — today its API retry line (Claude Code's
//! `✻ API error · Retrying in 2s · attempt 1/10`, Codex's `• Reconnecting... 1/5 (0s • esc
//! to interrupt)` with the reason on the row below). Pure: the screen text in, the notice's
//! text out. The service raises a `warning` when one appears
//! (`docs/lifecycle-attention.md#signals`, "warning"; `docs/adapters.md#screen-notices`).
//!
//! A notice is read only where the agent draws its status row, so that a reply quoting the
//! words is not one: Claude's within [`CLAUDE_STATUS_ROWS`] rows above its input box (the
//! second-last full-width rule), never a reply row (`●`, `⎿`); Codex's only with its
//! status row's `(Ns • esc to interrupt)` tail.

use crate::model::AgentKind;
use regex::Regex;
use std::sync::LazyLock;

/// How many rows above Claude's input box its status (spinner) row may sit: 2.1.197 draws
/// it right above the box, 2.1.332 puts an effort row between them.
pub const CLAUDE_STATUS_ROWS: usize = 3;

/// Longest notice text kept, in characters.
const MAX_NOTICE_CHARS: usize = 200;

/// Claude's retry row: a spinner glyph, what failed, `· retrying in Ns · attempt a/b`
/// (2.1.197 writes `Retrying`, 2.1.332 `retrying`).
static CLAUDE_RETRY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*[^\w\s●⎿]\s+(?P<text>\S.*·\s*retrying in \d+\s*s\s*·\s*attempt \d+/\d+)\s*$",
    )
    .expect("a valid regex")
});

/// Codex's reconnect status row.
static CODEX_RECONNECT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*[•◦]\s+Reconnecting\.\.\.\s+(?P<n>\d+/\d+)\s+\(\d+s • esc to interrupt\)\s*$")
        .expect("a valid regex")
});

/// The row under Codex's status row that says why (`└ Unexpected status 401 …`).
static CODEX_REASON: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*└\s*(?P<why>\S.*?)\s*$").expect("a valid regex"));

/// The API retry notice on `agent`'s live `screen` (rows joined by `\n`), if one is drawn:
/// Claude's retry row without its glyph (`"API error · retrying in 2s · attempt 1/10"`),
/// Codex's `"Reconnecting 1/5: <reason>"` (the reason cut before its `, url:`). `None` for
/// other agents and screens.
pub fn retry_notice(agent: AgentKind, screen: &str) -> Option<String> {
    if !matches!(agent, AgentKind::Claude | AgentKind::Codex) {
        return None;
    }
    let rows: Vec<&str> = screen.lines().collect();
    let text = match agent {
        AgentKind::Claude => claude_retry(&rows),
        AgentKind::Codex => codex_reconnect(&rows),
        _ => None,
    }?;
    Some(match text.char_indices().nth(MAX_NOTICE_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    })
}

/// True for a full-width horizontal rule row (Claude draws one above and below its input).
fn is_rule(row: &str) -> bool {
    let t = row.trim();
    // The character test first: it stops at a text row's first letter.
    t.chars().all(|c| c == '─') && t.chars().count() >= 20
}

fn claude_retry(rows: &[&str]) -> Option<String> {
    let rules: Vec<usize> = (0..rows.len()).filter(|&i| is_rule(rows[i])).collect();
    // The input box's top rule: the second-last rule (the last closes the box).
    let top = match rules.as_slice() {
        [.., top, _] => *top,
        [only] => *only,
        [] => return None,
    };
    rows[top.saturating_sub(CLAUDE_STATUS_ROWS)..top]
        .iter()
        .find_map(|row| CLAUDE_RETRY.captures(row))
        .map(|c| c["text"].trim().to_string())
}

fn codex_reconnect(rows: &[&str]) -> Option<String> {
    let (i, n) = rows.iter().enumerate().find_map(|(i, row)| {
        CODEX_RECONNECT
            .captures(row)
            .map(|c| (i, c["n"].to_string()))
    })?;
    let why = rows
        .get(i + 1)
        .and_then(|row| CODEX_REASON.captures(row))
        .map(|c| {
            let why = &c["why"];
            why.split(", url:").next().unwrap_or(why).trim().to_string()
        });
    Some(match why {
        Some(why) => format!("Reconnecting {n}: {why}"),
        None => format!("Reconnecting {n}"),
    })
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

    #[test]
    fn claude_retry_rows_of_both_versions_are_notices() {
        assert_eq!(
            retry_notice(AgentKind::Claude, &fixture("claude/2.1.332/api-retry.txt")).as_deref(),
            Some("API error · retrying in 3s · attempt 1/10")
        );
        assert_eq!(
            retry_notice(AgentKind::Claude, &fixture("claude/2.1.197/api-retry.txt")).as_deref(),
            Some("API error · Retrying in 2s · attempt 1/10")
        );
    }

    #[test]
    fn codex_reconnect_row_is_a_notice_with_its_reason() {
        let notice = retry_notice(AgentKind::Codex, &fixture("codex/0.171.0/reconnecting.txt"));
        let notice = notice.expect("the reconnect row");
        assert!(notice.starts_with("Reconnecting "), "{notice}");
        assert!(
            notice.ends_with("/5: Unexpected status 401 Unauthorized: Incorrect API key provided"),
            "the reason without its url: {notice}"
        );
    }

    #[test]
    fn quoted_or_misplaced_retry_words_are_no_notice() {
        let box_ = format!(
            "{}\n❯ \n{}\n  ⏸ manual mode on",
            "─".repeat(40),
            "─".repeat(40)
        );
        // A reply quoting the row, right above the input box.
        let quoted = format!("● API error · Retrying in 1s · attempt 1/10\n{box_}");
        assert_eq!(retry_notice(AgentKind::Claude, &quoted), None);
        // The row far above the input box (scrolled reply text).
        let far = format!("✻ API error · Retrying in 1s · attempt 1/10\n\n\n\n● Done.\n{box_}");
        assert_eq!(retry_notice(AgentKind::Claude, &far), None);
        // The same row with the status row's place: a notice; another agent: none.
        let shown = format!("✻ API error · Retrying in 1s · attempt 1/10\n{box_}");
        assert!(retry_notice(AgentKind::Claude, &shown).is_some());
        assert_eq!(retry_notice(AgentKind::Gemini, &shown), None);
        assert_eq!(retry_notice(AgentKind::Shell, &shown), None);
        // Codex: a reply item saying the words has no status tail.
        let reply = "• Reconnecting... 1/5 happens when the network drops\n› Ask Codex";
        assert_eq!(retry_notice(AgentKind::Codex, reply), None);
        // Screens without any: the idle and working screens of the recorded corpus.
        assert_eq!(
            retry_notice(AgentKind::Claude, &fixture("claude/2.1.332/done.txt")),
            None
        );
    }

    #[test]
    fn long_notices_are_cut() {
        let long = format!(
            "✻ {} · retrying in 1s · attempt 1/10\n{}\n❯\n{}",
            "x".repeat(300),
            "─".repeat(40),
            "─".repeat(40)
        );
        let text = retry_notice(AgentKind::Claude, &long).unwrap();
        assert_eq!(text.chars().count(), MAX_NOTICE_CHARS + 1);
        assert!(text.ends_with('…'));
    }
}
