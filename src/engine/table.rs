//! Names as data on a terminal (`docs/cli.md#names-on-a-terminal`): every
//! value the CLI prints in plain text is escaped so that it is one line of visible text
//! ([`escape_controls`]), measured in terminal columns rather than characters
//! ([`width`]: emoji and CJK take two), and cut to its column ([`clip`]); [`Table`] lays
//! such cells out in aligned columns.
//!
//! Pure: strings in, strings out.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// True for a bidirectional formatting character (U+061C, U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069): invisible, yet it reorders what follows it on the line.
pub fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

/// `s` with every control character (C0, DEL and C1: `\n`, `\r`, `\t`, ESC, BEL, …)
/// replaced by a visible escape (`\n`, `\r`, `\t`, `\x1b`) and every bidirectional
/// formatting character ([`is_bidi_control`]) by `\u{202e}`, so a value from a hook
/// payload or a command line is one line of plain text that reads in the order it is
/// stored and cannot forge rows of a table or send terminal control sequences. Every
/// plain-text surface of the CLI shows values through it; JSON output escapes them itself.
pub fn escape_controls(s: &str) -> String {
    if !s.chars().any(|c| c.is_control() || is_bidi_control(c)) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if is_bidi_control(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// The columns `s` takes on a terminal (Unicode East Asian Width: emoji and CJK take two,
/// combining marks none). Meant for text already through [`escape_controls`].
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// `s` cut to at most `n` terminal columns ([`width`]), the last one `…` when cut.
pub fn clip(s: &str, n: usize) -> String {
    if width(s) <= n {
        return s.to_string();
    }
    let room = n.saturating_sub(1);
    let mut used = 0;
    let mut t = String::new();
    for c in s.chars() {
        let w = UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        t.push(c);
    }
    if n > 0 {
        t.push('…');
    }
    t
}

/// One column of a [`Table`]: its header and the most columns a cell may take (`None`:
/// as wide as its widest cell).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub header: &'static str,
    pub max: Option<usize>,
}

impl Column {
    /// A column as wide as its widest cell.
    pub const fn free(header: &'static str) -> Column {
        Column { header, max: None }
    }

    /// A column whose cells are cut to `max` terminal columns.
    pub const fn capped(header: &'static str, max: usize) -> Column {
        Column {
            header,
            max: Some(max),
        }
    }
}

/// A left-aligned text table: a header line, then one line per row; two spaces between
/// columns; the last column is not padded and trailing blanks are trimmed. Each cell is
/// escaped ([`escape_controls`]), then cut to its column's cap ([`clip`]); widths are
/// terminal columns, so wide characters keep the columns aligned. Deterministic.
pub struct Table {
    columns: Vec<Column>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table with `columns`.
    pub fn new(columns: &[Column]) -> Table {
        Table {
            columns: columns.to_vec(),
            rows: Vec::new(),
        }
    }

    /// Adds a row: one cell per column (missing cells are empty, extra ones dropped).
    pub fn row(&mut self, cells: Vec<String>) {
        let cells = self
            .columns
            .iter()
            .enumerate()
            .map(|(i, col)| {
                let cell = escape_controls(cells.get(i).map(String::as_str).unwrap_or(""));
                match col.max {
                    Some(max) => clip(&cell, max),
                    None => cell,
                }
            })
            .collect();
        self.rows.push(cells);
    }

    /// The table as text, each line ending in `\n`.
    pub fn render(&self) -> String {
        let mut widths: Vec<usize> = self.columns.iter().map(|c| width(c.header)).collect();
        for r in &self.rows {
            for (w, c) in widths.iter_mut().zip(r) {
                *w = (*w).max(width(c));
            }
        }
        let line = |cells: Vec<&str>| {
            let mut s = String::new();
            let last = cells.len().saturating_sub(1);
            for (i, c) in cells.iter().enumerate() {
                s.push_str(c);
                if i < last {
                    s.push_str(&" ".repeat(widths[i] - width(c) + 2));
                }
            }
            s.trim_end().to_string() + "\n"
        };
        let mut out = line(self.columns.iter().map(|c| c.header).collect());
        for r in &self.rows {
            out.push_str(&line(r.iter().map(String::as_str).collect()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_characters_become_visible_escapes() {
        assert_eq!(
            escape_controls("a\nb\r\tc\x1b[31m\x07\x7f\u{9b}é"),
            "a\\nb\\r\\tc\\x1b[31m\\x07\\x7f\\x9bé"
        );
        assert_eq!(
            escape_controls("evil\u{202e}txt.exe\u{2066}x\u{2069}\u{200f}"),
            "evil\\u{202e}txt.exe\\u{2066}x\\u{2069}\\u{200f}"
        );
        // Joiners inside emoji sequences are no bidi controls: kept.
        assert_eq!(escape_controls("👩\u{200d}💻"), "👩\u{200d}💻");
    }

    #[test]
    fn widths_are_terminal_columns() {
        assert_eq!(width("abc"), 3);
        assert_eq!(width("数据库"), 6);
        assert_eq!(width("🚀 go"), 5);
        assert_eq!(width("e\u{301}"), 1);
    }

    #[test]
    fn clip_cuts_to_columns_never_inside_a_wide_character() {
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(clip("数据库迁移", 6), "数据…");
        assert_eq!(width(&clip("数据库迁移", 6)), 5);
        assert_eq!(clip("🚀🚀🚀", 4), "🚀…");
        assert_eq!(clip("x", 0), "");
    }

    #[test]
    fn a_table_keeps_columns_aligned_with_wide_characters_and_caps() {
        let mut t = Table::new(&[Column::capped("NAME", 6), Column::free("NEXT")]);
        t.row(vec!["数据库".into(), "a".into()]);
        t.row(vec!["ab".into(), "b".into()]);
        t.row(vec!["verylongname".into(), "c".into()]);
        t.row(vec!["x\ny".into(), "\x1b]0;t\x07".into()]);
        let text = t.render();
        assert_eq!(
            text,
            "NAME    NEXT\n数据库  a\nab      b\nveryl…  c\nx\\ny    \\x1b]0;t\\x07\n"
        );
        // Every second column starts at the same terminal column.
        for line in text.lines() {
            let first = line.split("  ").next().unwrap();
            assert!(width(first) <= 6, "{line}");
        }
    }
}
