//! A dialog's options read off the live screen, and the keys that pick one
//! (`docs/lifecycle-attention.md#answer`, ADR 0007).
//!
//! The agents draw their choices as a list: numbered (`❯ 1. Yes`, `  4. No`), or without
//! numbers where the selection cursor is the only way to choose (`❯ Yes, set auto mode …`
//! over `  No, keep manual mode`). Order, numbering and count differ between versions
//! and dialogs, so the keys that answer a dialog are derived from what is on screen at
//! the moment of answering, never from a fixed position. [`read_options`] reads the list;
//! [`keys_to_select`] gives the keys for one item: the shortcut the label names
//! (`Yes, proceed (y)`), else its number, else cursor moves from the cursor's row and
//! Enter.
//!
//! Pure: text in, options and keys out.

/// Glyphs the agents draw in front of the selected option (Claude `❯`, Codex `›`,
/// Gemini `●`, and common others).
pub const CURSORS: &[char] = &['❯', '›', '●', '▸', '▶', '→', '>'];

/// Box sides a dialog's rows may be drawn between (Gemini frames its dialogs).
const BORDERS: &[char] = &['│', '┃', '║'];

/// A key an option's label names in parentheses at its end: `(y)`, `(esc)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortcut {
    Char(char),
    Esc,
}

impl Shortcut {
    /// The bytes the key sends.
    pub fn bytes(self) -> String {
        match self {
            Shortcut::Char(c) => c.to_string(),
            Shortcut::Esc => "\u{1b}".to_string(),
        }
    }
}

/// One option of a dialog as drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogOption {
    /// Its number when the list is numbered (`1` for `1. Yes`).
    pub number: Option<u32>,
    /// The label without number, cursor and trailing shortcut (`Yes, proceed`).
    pub label: String,
    /// The key the label names (`(y)` → `y`), if any.
    pub shortcut: Option<Shortcut>,
}

/// The options of the dialog on screen, top to bottom, and which one the cursor is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub items: Vec<DialogOption>,
    /// Index into `items` of the option the selection cursor is on, when drawn.
    pub cursor: Option<usize>,
}

impl Options {
    /// The labels, for messages and a decision's `options`.
    pub fn labels(&self) -> Vec<String> {
        self.items.iter().map(|o| o.label.clone()).collect()
    }

    /// `1. Yes | 2. No` (numbers as drawn, else positions), for messages.
    pub fn describe(&self) -> String {
        self.items
            .iter()
            .enumerate()
            .map(|(i, o)| match o.number {
                Some(n) => format!("{n}. {}", o.label),
                None => format!("({}) {}", i + 1, o.label),
            })
            .collect::<Vec<_>>()
            .join(" | ")
    }
}

/// One row split into indentation, cursor, number and the rest.
struct Row<'a> {
    /// Columns before the label (after any border).
    label_col: usize,
    cursor: bool,
    number: Option<u32>,
    rest: &'a str,
}

fn strip_borders(row: &str) -> &str {
    let t = row.trim_end();
    let t = t.strip_suffix(BORDERS).unwrap_or(t).trim_end();
    let lead = t.trim_start();
    match lead.strip_prefix(BORDERS) {
        Some(inner) => inner,
        None => t,
    }
}

fn parse_row(row: &str) -> Option<Row<'_>> {
    let body = strip_borders(row);
    let indent = body.chars().take_while(|c| *c == ' ').count();
    let mut rest = &body[indent..];
    let mut col = indent;
    let mut cursor = false;
    if let Some(c) = rest.chars().next().filter(|c| CURSORS.contains(c)) {
        let after = &rest[c.len_utf8()..];
        let spaces = after.chars().take_while(|c| *c == ' ').count();
        // A cursor glyph stands apart from the label (`❯ Yes`); `>foo` is text.
        if spaces > 0 {
            cursor = true;
            rest = &after[spaces..];
            col += 1 + spaces;
        }
    }
    if rest.is_empty() {
        return None;
    }
    let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
    let mut number = None;
    if (1..=2).contains(&digits) {
        let after = &rest[digits..];
        if let Some(label) = after.strip_prefix(". ") {
            number = rest[..digits].parse().ok();
            rest = label.trim_start();
        }
    }
    Some(Row {
        label_col: col,
        cursor,
        number,
        rest: rest.trim_end(),
    })
}

/// Splits a trailing `(y)` / `(esc)` off a label.
fn split_shortcut(label: &str) -> (String, Option<Shortcut>) {
    let t = label.trim_end();
    if let Some(open) = t.rfind(" (") {
        if let Some(inner) = t[open + 2..].strip_suffix(')') {
            let key = if inner.eq_ignore_ascii_case("esc") {
                Some(Shortcut::Esc)
            } else {
                let mut cs = inner.chars();
                match (cs.next(), cs.next()) {
                    (Some(c), None) if c.is_ascii_alphanumeric() => Some(Shortcut::Char(c)),
                    _ => None,
                }
            };
            if let Some(key) = key {
                return (t[..open].trim_end().to_string(), Some(key));
            }
        }
    }
    (t.to_string(), None)
}

fn option(number: Option<u32>, rest: &str) -> DialogOption {
    let (label, shortcut) = split_shortcut(rest);
    DialogOption {
        number,
        label,
        shortcut,
    }
}

/// The options of the dialog in `region` (rows joined by `\n`, as
/// [`Screen::region`](super::manifest::Screen::region) gives them), or `None` when no list
/// of at least two options is there.
///
/// Numbered lists: the last run of rows numbered `1.`, `2.`, … in order (rows between
/// them, such as a wrapped label, are skipped). Unnumbered lists: the rows next to the
/// one row with a cursor glyph whose labels start in the same column.
pub fn read_options(region: &str) -> Option<Options> {
    let rows: Vec<&str> = region.lines().collect();
    let parsed: Vec<Option<Row>> = rows.iter().map(|r| parse_row(r)).collect();
    // Numbered: the last run 1, 2, 3, … in row order.
    let mut best: Option<Vec<usize>> = None;
    let mut run: Vec<usize> = Vec::new();
    for (i, row) in parsed.iter().enumerate() {
        let Some(n) = row.as_ref().and_then(|r| r.number) else {
            continue;
        };
        if n == 1 {
            if run.len() >= 2 {
                best = Some(std::mem::take(&mut run));
            }
            run = vec![i];
        } else if !run.is_empty() && n as usize == run.len() + 1 {
            run.push(i);
        } else {
            if run.len() >= 2 {
                best = Some(std::mem::take(&mut run));
            }
            run.clear();
        }
    }
    if run.len() >= 2 {
        best = Some(run);
    }
    if let Some(run) = best {
        let items = run
            .iter()
            .map(|&i| {
                let r = parsed[i].as_ref().expect("numbered");
                option(r.number, r.rest)
            })
            .collect();
        let cursor = run
            .iter()
            .position(|&i| parsed[i].as_ref().is_some_and(|r| r.cursor));
        return Some(Options { items, cursor });
    }
    // Unnumbered: exactly one cursor row, with siblings in its label column.
    let cursor_rows: Vec<usize> = parsed
        .iter()
        .enumerate()
        .filter(|(_, r)| r.as_ref().is_some_and(|r| r.cursor))
        .map(|(i, _)| i)
        .collect();
    let [at] = cursor_rows[..] else {
        return None;
    };
    let col = parsed[at].as_ref()?.label_col;
    // A row wholly in parentheses under the options is a hint, not an option: Continue
    // CLI's question ends its list with "(or start typing for custom answer)".
    let hint = |rest: &str| rest.starts_with('(') && rest.ends_with(')');
    let sibling = |i: usize| {
        parsed[i]
            .as_ref()
            .is_some_and(|r| !r.cursor && r.label_col == col && r.number.is_none() && !hint(r.rest))
    };
    let mut first = at;
    while first > 0 && sibling(first - 1) {
        first -= 1;
    }
    let mut last = at;
    while last + 1 < parsed.len() && sibling(last + 1) {
        last += 1;
    }
    if last == first {
        return None;
    }
    let items = (first..=last)
        .map(|i| option(None, parsed[i].as_ref().expect("row").rest))
        .collect();
    Some(Options {
        items,
        cursor: Some(at - first),
    })
}

/// [`read_options`] of a dialog that draws a marker between the cursor and each option's
/// label (oh-my-pi's radio buttons: `❯ ○ Red`, `  ○ Blue`): each label loses the first of
/// `markers` it starts with, followed by a space. The markers are the dialog's own (its
/// screen manifest's `option_markers`): the same glyph may be a cursor elsewhere.
pub fn read_marked_options(region: &str, markers: &[String]) -> Option<Options> {
    let mut options = read_options(region)?;
    for item in &mut options.items {
        let unmarked = markers
            .iter()
            .filter(|m| !m.is_empty())
            .find_map(|m| item.label.strip_prefix(m.as_str())?.strip_prefix(' '));
        if let Some(label) = unmarked {
            item.label = label.trim_start().to_string();
        }
    }
    Some(options)
}

/// The keys that pick `items[index]`: the label's shortcut, else its number (1–9), else
/// cursor moves from the cursor's option (`ESC [ A`/`ESC [ B`, or `ESC O A`/`ESC O B` when
/// the terminal is in application cursor mode) and Enter. `None` when none of these is
/// known (an unnumbered list without a cursor).
pub fn keys_to_select(options: &Options, index: usize, app_cursor: bool) -> Option<String> {
    let item = options.items.get(index)?;
    if let Some(s) = item.shortcut {
        return Some(s.bytes());
    }
    if let Some(n) = item.number.filter(|n| (1..=9).contains(n)) {
        return Some(n.to_string());
    }
    let cursor = options.cursor?;
    let (up, down) = if app_cursor {
        ("\u{1b}OA", "\u{1b}OB")
    } else {
        ("\u{1b}[A", "\u{1b}[B")
    };
    let mut keys = String::new();
    if index >= cursor {
        keys.push_str(&down.repeat(index - cursor));
    } else {
        keys.push_str(&up.repeat(cursor - index));
    }
    keys.push('\r');
    Some(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(o: &Options) -> Vec<&str> {
        o.items.iter().map(|i| i.label.as_str()).collect()
    }

    #[test]
    fn numbered_list_with_cursor_and_wrapped_rows() {
        let region = " Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and always allow access to\n      proj/ from this project\n   3. Yes, and switch to auto mode · auto mode handles these prompts for you\n   4. No\n Esc to cancel · Tab to amend";
        let o = read_options(region).unwrap();
        assert_eq!(
            labels(&o),
            [
                "Yes",
                "Yes, and always allow access to",
                "Yes, and switch to auto mode · auto mode handles these prompts for you",
                "No"
            ]
        );
        assert_eq!(o.cursor, Some(0));
        assert_eq!(keys_to_select(&o, 3, false).as_deref(), Some("4"));
        assert_eq!(o.describe().split(" | ").last(), Some("4. No"));
    }

    #[test]
    fn shortcuts_in_labels_win_over_numbers() {
        let region = "› 1. Yes, proceed (y)\n  2. Yes, and don't ask again for commands that start with `echo` (p)\n  3. No, and tell Codex what to do differently (esc)\n  Press enter to confirm or esc to cancel";
        let o = read_options(region).unwrap();
        assert_eq!(o.items[0].label, "Yes, proceed");
        assert_eq!(keys_to_select(&o, 0, false).as_deref(), Some("y"));
        assert_eq!(keys_to_select(&o, 1, false).as_deref(), Some("p"));
        assert_eq!(keys_to_select(&o, 2, false).as_deref(), Some("\u{1b}"));
        // Not a single key: stays part of the label.
        let o = read_options("❯ 1. Yes\n  2. Yes, allow all edits (shift+tab)\n  3. No").unwrap();
        assert_eq!(o.items[1].label, "Yes, allow all edits (shift+tab)");
        assert_eq!(o.items[1].shortcut, None);
    }

    #[test]
    fn framed_list_with_a_dot_cursor() {
        let region = "│ Allow execution of [Shell]?   │\n│                               │\n│ ● 1. Allow once               │\n│   2. Allow for this session   │\n│   3. No, suggest changes (esc)│";
        let o = read_options(region).unwrap();
        assert_eq!(
            labels(&o),
            [
                "Allow once",
                "Allow for this session",
                "No, suggest changes"
            ]
        );
        assert_eq!(o.cursor, Some(0));
    }

    #[test]
    fn unnumbered_list_is_answered_with_cursor_moves() {
        let region = "  Make auto mode your default permission mode?\n  Auto mode lets Claude handle permission prompts automatically.\n  ❯ Yes, set auto mode as my default permission mode\n    No, keep manual mode";
        let o = read_options(region).unwrap();
        assert_eq!(
            labels(&o),
            [
                "Yes, set auto mode as my default permission mode",
                "No, keep manual mode"
            ]
        );
        assert_eq!(o.cursor, Some(0));
        assert_eq!(keys_to_select(&o, 1, false).as_deref(), Some("\u{1b}[B\r"));
        assert_eq!(keys_to_select(&o, 0, false).as_deref(), Some("\r"));
        assert_eq!(keys_to_select(&o, 1, true).as_deref(), Some("\u{1b}OB\r"));
        // "No" above "Yes", the cursor on the second: up to pick the first.
        let o = read_options("    No\n  ❯ Yes").unwrap();
        assert_eq!(keys_to_select(&o, 0, false).as_deref(), Some("\u{1b}[A\r"));
    }

    #[test]
    fn a_hint_in_parentheses_under_the_options_is_no_option() {
        // Continue CLI 1.5.47's question (tests/fixtures/screens/continue/1.5.47/).
        let region = "│  ? Which color do you want?          │\n│                                      │\n│    ❯ Red                             │\n│      Blue                            │\n│      (or start typing for custom answer) │\n│                                      │\n│  ↑/↓ navigate, Enter select          │";
        let o = read_options(region).unwrap();
        assert_eq!(labels(&o), ["Red", "Blue"]);
        assert_eq!(o.cursor, Some(0));
        assert_eq!(keys_to_select(&o, 1, false).as_deref(), Some("\u{1b}[B\r"));
    }

    #[test]
    fn markers_before_the_labels_are_not_part_of_them() {
        // oh-my-pi 18.2.3's question (tests/fixtures/screens/omp/18.2.3/).
        let region = "│ Which color do you want?          │\n├────────────────────────────────────┤\n│ ❯ ○ Red                            │\n│   ○ Blue                           │\n│   ○ Other (type your own)          │\n│                                    │";
        let markers = ["○".to_string(), "◉".to_string()];
        let o = read_marked_options(region, &markers).unwrap();
        assert_eq!(labels(&o), ["Red", "Blue", "Other (type your own)"]);
        assert_eq!(o.cursor, Some(0));
        assert_eq!(keys_to_select(&o, 1, false).as_deref(), Some("\u{1b}[B\r"));
        // Without the dialog's markers, the glyph stays in the label.
        assert_eq!(read_options(region).unwrap().items[1].label, "○ Blue");
        // A marker only counts followed by a space; an empty one is ignored.
        let o = read_marked_options("❯ ○Red\n  Blue", &["○".into(), String::new()]).unwrap();
        assert_eq!(labels(&o), ["○Red", "Blue"]);
    }

    #[test]
    fn no_list_no_options() {
        for region in [
            "",
            "❯ ",
            "❯ say hello",
            "● Hello from the scripted model.",
            "1. only one\nsome text",
            "2. Yes\n3. No",
            "> quoted\n> more quoted",
        ] {
            assert_eq!(read_options(region), None, "{region:?}");
        }
    }

    #[test]
    fn the_last_numbered_run_wins() {
        let o = read_options("1. a\n2. b\ntext\n1. Yes\n2. No").unwrap();
        assert_eq!(labels(&o), ["Yes", "No"]);
        assert_eq!(o.cursor, None);
        assert_eq!(keys_to_select(&o, 1, false).as_deref(), Some("2"));
        // Beyond 9 and without a cursor there is no safe key.
        let mut many = String::new();
        for n in 1..=11 {
            many.push_str(&format!("{n}. item {n}\n"));
        }
        let o = read_options(&many).unwrap();
        assert_eq!(keys_to_select(&o, 10, false), None);
    }
}
