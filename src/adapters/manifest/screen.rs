//! The live screen as a manifest's rules read it ([`Screen`]): its rows, its title, and
//! the regions rules name (`docs/taxonomy.md#screen-manifests`).

use serde::Deserialize;

/// Shortest run of line-drawing characters that counts as a horizontal rule.
pub const RULE_MIN_LEN: usize = 8;

/// Characters a horizontal rule is drawn with (U+2500 family; never ASCII `-`, which
/// prose uses).
const RULE_CHARS: &[char] = &['─', '━', '═', '╌', '╍', '┄', '┅', '┈', '┉'];

/// The part of the live screen a rule looks at.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Region {
    /// The bottom `lines` non-empty rows.
    Bottom { lines: usize },
    /// The non-empty rows below the last horizontal rule (none when there is no rule),
    /// at most `max_lines` of them from the top when given.
    AfterLastRule {
        #[serde(default)]
        max_lines: Option<usize>,
    },
    /// The non-empty rows from the last row that contains `text` down to the bottom, that
    /// row included (none when no row contains it): a dialog drawn under its own title row
    /// with no rule above it, the agent's conversation above (Cline).
    FromLastRow { text: String },
    /// The window title (OSC 0/2).
    Title,
}

/// The live screen as rules see it: the visible rows top to bottom (never scrollback;
/// trailing blanks are ignored) and the window title.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Screen {
    pub rows: Vec<String>,
    pub title: String,
}

impl Screen {
    /// A screen from its text (rows separated by `\n`) and title.
    pub fn new(text: &str, title: &str) -> Screen {
        Screen {
            rows: text.lines().map(|r| r.trim_end().to_string()).collect(),
            title: title.to_string(),
        }
    }

    /// The text of `region`: its rows joined by `\n` (the title for [`Region::Title`]).
    pub fn region(&self, region: &Region) -> String {
        let non_empty = |rows: &[String]| -> Vec<String> {
            rows.iter().filter(|r| !r.is_empty()).cloned().collect()
        };
        match region {
            Region::Title => self.title.clone(),
            Region::Bottom { lines } => {
                // The last `lines` non-empty rows, without copying the others.
                let mut rows: Vec<&str> = (self.rows.iter().rev())
                    .filter(|r| !r.is_empty())
                    .take(*lines)
                    .map(String::as_str)
                    .collect();
                rows.reverse();
                rows.join("\n")
            }
            Region::AfterLastRule { max_lines } => {
                let Some(last) = self.rows.iter().rposition(|r| is_rule(r)) else {
                    return String::new();
                };
                let rows = non_empty(&self.rows[last + 1..]);
                let n = max_lines.unwrap_or(rows.len()).min(rows.len());
                rows[..n].join("\n")
            }
            Region::FromLastRow { text } => {
                match self.rows.iter().rposition(|r| r.contains(text.as_str())) {
                    Some(at) => non_empty(&self.rows[at..]).join("\n"),
                    None => String::new(),
                }
            }
        }
    }
}

/// True for a row that is a horizontal rule: after trimming, at least [`RULE_MIN_LEN`]
/// characters, all line-drawing characters.
pub fn is_rule(row: &str) -> bool {
    let t = row.trim();
    // The character test first: it stops at a text row's first letter.
    t.chars().all(|c| RULE_CHARS.contains(&c)) && t.chars().count() >= RULE_MIN_LEN
}
