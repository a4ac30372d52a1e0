//! tmux window layouts (`%layout-change @W LAYOUT VISIBLE-LAYOUT FLAGS`, and
//! `#{window_layout}`): the size of each pane, so that a followed pane resized after
//! following began keeps a screen of its tmux pane's size (`docs/tmux.md#resize`).
//!
//! A layout is `CSUM,CELL` where a cell is `WxH,X,Y,ID` (a pane: `ID` is its number, the
//! `N` of `%N`), or `WxH,X,Y{CELL,CELL…}` (side by side) or `WxH,X,Y[CELL,CELL…]`
//! (stacked); `CSUM` is four hex digits.

/// One pane's size in a layout: its number (`%N`) and its size in cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaneSize {
    pub pane: u32,
    pub cols: u16,
    pub rows: u16,
}

/// The panes of `layout` with their sizes, in layout order; `None` when it is malformed.
pub fn pane_sizes(layout: &str) -> Option<Vec<PaneSize>> {
    let (sum, body) = layout.split_once(',')?;
    if sum.len() != 4 || !sum.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut out = Vec::new();
    let rest = cell(body.as_bytes(), &mut out)?;
    rest.is_empty().then_some(out)
}

/// Reads one cell at the start of `s` into `out`; the bytes after it.
fn cell<'a>(s: &'a [u8], out: &mut Vec<PaneSize>) -> Option<&'a [u8]> {
    let (cols, s) = number(s)?;
    let s = s.strip_prefix(b"x")?;
    let (rows, s) = number(s)?;
    let s = s.strip_prefix(b",")?;
    let (_x, s) = number(s)?;
    let s = s.strip_prefix(b",")?;
    let (_y, s) = number(s)?;
    let (cols, rows) = (u16::try_from(cols).ok()?, u16::try_from(rows).ok()?);
    match s.first() {
        Some(b',') => {
            let (pane, s) = number(&s[1..])?;
            out.push(PaneSize { pane, cols, rows });
            Some(s)
        }
        Some(open @ (b'{' | b'[')) => {
            let close = if *open == b'{' { b'}' } else { b']' };
            let mut s = cell(&s[1..], out)?;
            loop {
                match s.first() {
                    Some(b',') => s = cell(&s[1..], out)?,
                    Some(c) if *c == close => return Some(&s[1..]),
                    _ => return None,
                }
            }
        }
        _ => None,
    }
}

/// A decimal number at the start of `s` and the bytes after it.
fn number(s: &[u8]) -> Option<(u32, &[u8])> {
    let end = s
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(s.len());
    let n = std::str::from_utf8(&s[..end]).ok()?.parse().ok()?;
    Some((n, &s[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(pane: u32, cols: u16, rows: u16) -> PaneSize {
        PaneSize { pane, cols, rows }
    }

    /// Layouts as tmux 3.3 wrote them: one pane, a split side by side, a split inside a
    /// stack.
    #[test]
    fn each_panes_size_is_read_from_a_layout() {
        assert_eq!(pane_sizes("b25f,80x24,0,0,2"), Some(vec![size(2, 80, 24)]));
        assert_eq!(
            pane_sizes("5d3e,120x40,0,0{60x40,0,0,0,59x40,61,0,3}"),
            Some(vec![size(0, 60, 40), size(3, 59, 40)])
        );
        assert_eq!(
            pane_sizes("e0b6,120x40,0,0[120x20,0,0,1,120x19,0,21{60x19,0,21,4,59x19,61,21,5}]"),
            Some(vec![size(1, 120, 20), size(4, 60, 19), size(5, 59, 19)])
        );
    }

    #[test]
    fn a_malformed_layout_is_none() {
        assert_eq!(pane_sizes(""), None);
        assert_eq!(pane_sizes("zz,80x24,0,0,2"), None);
        assert_eq!(pane_sizes("b25f,80x24,0,0"), None);
        assert_eq!(pane_sizes("b25f,80x24,0,0{80x24,0,0,1"), None);
        assert_eq!(pane_sizes("b25f,80x24,0,0,2 trailing"), None);
        assert_eq!(pane_sizes("b25f,99999x24,0,0,2"), None);
    }
}
