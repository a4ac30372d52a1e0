//! Tests of the pane screen (src/service/pty/emulator.rs).

use super::*;
use proptest::prelude::*;

/// The rows of a reference parser's scrollback, formatted one by one as `run_piece`
/// does, oldest first.
fn reference_history(p: &mut vt100::Parser) -> Vec<Vec<u8>> {
    let screen = p.screen_mut();
    screen.set_scrollback(usize::MAX);
    let len = screen.scrollback();
    let cols = screen.size().1;
    let mut out = Vec::new();
    for back in (1..=len).rev() {
        screen.set_scrollback(back);
        out.push(screen.rows_formatted(0, cols).next().unwrap());
    }
    screen.set_scrollback(0);
    out
}

/// Feeds `chunks` to a [`Terminal`] and to a plain vt100 parser with a big scrollback;
/// the screens and the last `history` lines must be the same.
fn check_same(rows: u16, cols: u16, history: usize, chunks: &[Vec<u8>]) -> Terminal {
    let batches: Vec<Vec<Vec<u8>>> = chunks.iter().map(|c| vec![c.clone()]).collect();
    check_same_batches(rows, cols, history, &batches)
}

/// [`check_same`] with the chunks in batches, fed as a parser feeds them
/// ([`Terminal::feed_batch`]).
fn check_same_batches(rows: u16, cols: u16, history: usize, batches: &[Vec<Vec<u8>>]) -> Terminal {
    let mut t = Terminal::new(rows, cols, history);
    let mut reference = vt100::Parser::new(rows, cols, 100_000);
    for batch in batches {
        let slices: Vec<&[u8]> = batch.iter().map(Vec::as_slice).collect();
        let (unread, fed) = t.feed_batch(&slices);
        assert_eq!(fed, slices[unread..].concat());
        for c in batch {
            reference.process(c);
        }
    }
    assert_eq!(
        String::from_utf8_lossy(&t.screen().contents_formatted()),
        String::from_utf8_lossy(&reference.screen().contents_formatted())
    );
    assert_eq!(
        t.screen().cursor_position(),
        reference.screen().cursor_position()
    );
    // The history belongs to the main screen.
    t.feed(b"\x1b[?1049l");
    reference.process(b"\x1b[?1049l");
    let want = reference_history(&mut reference);
    let want = &want[want.len().saturating_sub(history)..];
    let got = t.history(history);
    assert_eq!(got.len(), want.len(), "history lengths");
    for (g, w) in got.iter().zip(want) {
        assert_eq!(String::from_utf8_lossy(g), String::from_utf8_lossy(w));
    }
    t
}

fn token() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => "[a-z ]{1,30}".prop_map(|s| s.into_bytes()),
        4 => Just(b"\r\n".to_vec()),
        1 => Just(b"\n".to_vec()),
        1 => Just(b"\t".to_vec()),
        1 => (30u8..38).prop_map(|c| format!("\x1b[{c}m").into_bytes()),
        1 => Just(b"\x1b[0m".to_vec()),
        1 => (0u8..12).prop_map(|n| format!("\x1b[{n}S").into_bytes()),
        1 => (1u8..6).prop_map(|n| format!("\x1b[{n}A").into_bytes()),
        1 => (1u8..40).prop_map(|n| format!("\x1b[{n}C").into_bytes()),
        1 => (1u8..8, 1u8..30).prop_map(|(r, c)| format!("\x1b[{r};{c}H").into_bytes()),
        1 => Just(b"\x1b[?1049h".to_vec()),
        1 => Just(b"\x1b[?1049l".to_vec()),
        1 => Just(b"\x1b[?25l".to_vec()),
        1 => Just(b"\x1b[2;4r".to_vec()),
        1 => Just(b"\x1b[r".to_vec()),
        1 => Just(b"\x1b7".to_vec()),
        1 => Just(b"\x1b8".to_vec()),
        1 => Just("é漢字".as_bytes().to_vec()),
        2 => (1usize..80).prop_map(|n| "line of text\r\n".repeat(n).into_bytes()),
        // Plain lines of every width around the screen's (20): some wrap.
        2 => (0usize..23, 1usize..60)
            .prop_map(|(w, n)| format!("{:>w$}\r\n", "x y").repeat(n).into_bytes()),
    ]
}

/// `all` cut into chunks of the lengths `cuts` gives, over and over.
fn cut(all: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
    let mut chunks = Vec::new();
    let mut at = 0;
    for c in cuts.iter().cycle() {
        if at >= all.len() {
            break;
        }
        let end = (at + c).min(all.len());
        chunks.push(all[at..end].to_vec());
        at = end;
    }
    chunks
}

/// The tokens concatenated and cut at arbitrary points (sequences split across feeds).
fn stream() -> impl Strategy<Value = Vec<Vec<u8>>> {
    (
        prop::collection::vec(token(), 1..120),
        prop::collection::vec(1usize..400, 1..40),
    )
        .prop_map(|(tokens, cuts)| cut(&tokens.concat(), &cuts))
}

/// Mostly plain lines (a flood), now and then coloured or cut by a control sequence.
fn flood_token() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => (1usize..60).prop_map(|n| "line of text\r\n".repeat(n).into_bytes()),
        3 => (0usize..45, 1usize..40)
            .prop_map(|(w, n)| format!("{:>w$}\r\n", "x y").repeat(n).into_bytes()),
        1 => "[a-z ]{1,30}".prop_map(|s| s.into_bytes()),
        1 => Just("é漢字\r\n".as_bytes().to_vec()),
        1 => Just(b"\n\t".to_vec()),
        1 => (30u8..38).prop_map(|c| format!("\x1b[{c}m").into_bytes()),
        1 => Just(b"\x1b[0m".to_vec()),
        1 => Just(b"\x1b[2;4r".to_vec()),
        1 => Just(b"\x1b[r".to_vec()),
    ]
}

/// A flood cut into chunks at arbitrary points, the chunks grouped into batches.
fn flood_batches() -> impl Strategy<Value = Vec<Vec<Vec<u8>>>> {
    (
        prop::collection::vec(flood_token(), 1..80),
        prop::collection::vec(1usize..600, 1..20),
        prop::collection::vec(1usize..30, 1..10),
    )
        .prop_map(|(tokens, cuts, sizes)| {
            let chunks = cut(&tokens.concat(), &cuts);
            let mut batches = Vec::new();
            let mut chunks = chunks.into_iter().peekable();
            for n in sizes.iter().cycle() {
                if chunks.peek().is_none() {
                    break;
                }
                batches.push(chunks.by_ref().take(*n).collect());
            }
            batches
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn screen_and_history_match_a_plain_parser(chunks in stream()) {
        check_same(6, 20, 30, &chunks);
    }

    #[test]
    fn a_batch_fed_without_its_unread_head_matches_a_plain_parser(
        batches in flood_batches()
    ) {
        check_same_batches(6, 20, 30, &batches);
    }
}

#[test]
fn a_flood_batch_is_fed_from_the_chunks_the_screen_can_still_show() {
    // 6 rows and 30 lines of history: coalescing keeps 36 lines and looks back up to
    // 6 + CUT_SEARCH more for a CR LF, so 108 lines must follow the unread chunks.
    let lines: Vec<Vec<u8>> = (0..400)
        .map(|i| format!("line {i}\r\n").into_bytes())
        .collect();
    let batch: Vec<Vec<u8>> = lines.chunks(20).map(|c| c.concat()).collect();
    let t = check_same_batches(6, 20, 30, std::slice::from_ref(&batch));
    // 20 chunks of 20 lines: the last 6 (120 lines) are needed, 14 are not.
    assert_eq!(t.unread, 14);
    assert_eq!(t.history(1), vec![b"line 394".to_vec()]);
    // One colour anywhere, a scroll region, or a batch that starts inside an escape
    // sequence: every chunk is read.
    let mut coloured = batch.clone();
    coloured[3].splice(0..0, b"\x1b[31m".iter().copied());
    assert_eq!(check_same_batches(6, 20, 30, &[coloured]).unread, 0);
    let region = vec![vec![b"\x1b[2;4r".to_vec()], batch.clone()];
    assert_eq!(check_same_batches(6, 20, 30, &region).unread, 0);
    let split = vec![vec![b"\x1b[3".to_vec()], batch];
    assert_eq!(check_same_batches(6, 20, 30, &split).unread, 0);
}

#[test]
fn a_long_plain_batch_is_coalesced_and_stays_exact() {
    let text: String = (0..5000).map(|i| format!("line {i}\r\n")).collect();
    let chunks = vec![
        b"\x1b[31mred\x1b[0m\r\n".to_vec(),
        text.into_bytes(),
        b"tail".to_vec(),
    ];
    let t = check_same(10, 40, 100, &chunks);
    assert!(t.skipped_lines() > 4000, "skipped {}", t.skipped_lines());
    assert_eq!(t.history_len(), 100);
    // 10 rows: lines 4991 to 4999 and "tail" are on the screen.
    assert_eq!(t.history(1), vec![b"line 4990".to_vec()]);
    // The history's lines went in as they were: vt100 formatted only the rows the
    // last 10 lines pushed (and its own before them).
    assert!(t.formatted < 30, "formatted {}", t.formatted);
}

#[test]
fn plain_lines_go_to_the_history_as_they_are_unless_coloured() {
    let text: String = (0..5000).map(|i| format!("line {i}\r\n")).collect();
    // Red left on: the rows carry SGR, so vt100 formats them.
    let t = check_same(
        10,
        40,
        100,
        &[b"\x1b[31m".to_vec(), text.clone().into_bytes()],
    );
    assert!(t.formatted >= 100, "formatted {}", t.formatted);
    // Lines as wide as the screen, and wider (they wrap): as they are, cut.
    for width in [40, 41, 80, 95] {
        let wide: String = (0..5000).map(|i| format!("{i:>width$}\r\n")).collect();
        let t = check_same(10, 40, 100, &[wide.into_bytes()]);
        assert!(t.formatted < 30, "width {width}: formatted {}", t.formatted);
    }
    // A CR inside a line (a progress counter): vt100 formats from there on.
    let cr = format!("{text}50%\r60%\r\n{text}");
    check_same(10, 40, 100, &[cr.into_bytes()]);
}

#[test]
fn a_character_split_across_feeds_loses_nothing() {
    // Claude's footer "· ← for agents" cut inside "·": vte alone drops the space
    // (so `check_same`, whose reference gets the same cuts, cannot be used here).
    let text = "· ← for agents".as_bytes();
    for at in 1..text.len() {
        let mut t = Terminal::new(3, 20, 10);
        t.feed(&text[..at]);
        t.feed(&text[at..]);
        assert_eq!(t.screen().contents(), "· ← for agents", "cut at {at}");
    }
    assert_eq!(incomplete_utf8(b"a\xe2\x86"), 2);
    assert_eq!(incomplete_utf8(b"a\xe2\x86\x90"), 0);
    assert_eq!(incomplete_utf8(b"\xf0\x9f\x98"), 3);
    assert_eq!(incomplete_utf8(b"\x80\x80\x80"), 0);
}

#[test]
fn no_coalescing_inside_a_scroll_region() {
    let mut chunks = vec![b"\x1b[2;5r".to_vec()];
    chunks.push("x\r\n".repeat(3000).into_bytes());
    let t = check_same(8, 20, 50, &chunks);
    assert_eq!(t.skipped_lines(), 0);
}

#[test]
fn a_big_scroll_up_or_lf_flood_loses_no_history() {
    let chunks = vec![
        (0..30)
            .map(|i| format!("r{i}\r\n"))
            .collect::<String>()
            .into_bytes(),
        b"\x1b[30S".to_vec(),
        b"\n".repeat(500),
        b"end".to_vec(),
    ];
    check_same(30, 10, 1000, &chunks);
}

#[test]
fn history_is_bounded_and_compact() {
    let mut t = Terminal::new(40, 120, 2000);
    for i in 0..10_000 {
        t.feed(format!("\x1b[32m{i:>6}\x1b[0m some compiler output\r\n").as_bytes());
    }
    assert_eq!(t.history_len(), 2000);
    let bytes: usize = t.history(2000).iter().map(Vec::len).sum();
    assert!(bytes < 2000 * 60, "{bytes} bytes");
}
