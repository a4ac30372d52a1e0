//! The terminal byte scanner (src/adapters/terminal_signals.rs): every sequence kind, both
//! terminators, splits at every byte, bounded memory, and the signal mapping.

use attend::adapters::terminal_signals::{
    sanitize_text, to_signal, TerminalEvent, TerminalScanner, MAX_BUFFERED, MAX_OSC_LEN,
    MAX_TEXT_LEN,
};
use attend::model::{Identity, PromptMark, Rung, SignalKind, Timestamp};
use proptest::prelude::*;
use TerminalEvent as E;

fn scan(bytes: &[u8]) -> Vec<TerminalEvent> {
    let mut scanner = TerminalScanner::new();
    let mut out = Vec::new();
    scanner.feed(bytes, &mut out);
    out
}

fn note(title: Option<&str>, body: &str) -> TerminalEvent {
    E::Notification {
        title: title.map(str::to_string),
        body: body.to_string(),
    }
}

/// OSC payloads (between `ESC ]` and the terminator) and the events they give.
fn osc_cases() -> Vec<(&'static str, Vec<TerminalEvent>)> {
    vec![
        ("0;⠂ Claude Code", vec![E::Title("⠂ Claude Code".into())]),
        ("2;vim main.rs", vec![E::Title("vim main.rs".into())]),
        ("0;", vec![E::Title(String::new())]),
        ("1;icon name only", vec![]),
        (
            "7;file://box/tmp/my%20proj",
            vec![E::Cwd("/tmp/my proj".into())],
        ),
        ("7;file:///srv/r%C3%A9po", vec![E::Cwd("/srv/répo".into())]),
        ("7;http://example.com/x", vec![]),
        (
            "9;Claude needs your permission",
            vec![note(None, "Claude needs your permission")],
        ),
        (
            "9;4;1;42",
            vec![E::Progress {
                state: 1,
                percent: Some(42),
            }],
        ),
        (
            "9;4;3",
            vec![E::Progress {
                state: 3,
                percent: None,
            }],
        ),
        (
            "9;4;0;0",
            vec![E::Progress {
                state: 0,
                percent: Some(0),
            }],
        ),
        ("9;4;9;10", vec![]),
        ("9;1;100", vec![]),
        ("9;5", vec![]),
        ("9;", vec![]),
        (
            "777;notify;Claude Code;Claude needs your permission",
            vec![note(Some("Claude Code"), "Claude needs your permission")],
        ),
        (
            "777;notify;Build;done; 3 warnings",
            vec![note(Some("Build"), "done; 3 warnings")],
        ),
        ("777;notify;Only title", vec![note(None, "Only title")]),
        ("777;preexec", vec![]),
        ("99;;Hello world", vec![note(None, "Hello world")]),
        ("99;i=1:p=body;Body only", vec![note(None, "Body only")]),
        ("99;i=1:e=1;SGVsbG8=", vec![note(None, "Hello")]),
        ("99;i=1:p=close;", vec![]),
        ("133;A", vec![E::PromptMark(PromptMark::PromptStart)]),
        (
            "133;A;cl=m;aid=7",
            vec![E::PromptMark(PromptMark::PromptStart)],
        ),
        ("133;B", vec![E::PromptMark(PromptMark::CommandStart)]),
        ("133;C", vec![E::PromptMark(PromptMark::CommandExecuted)]),
        (
            "133;D",
            vec![E::PromptMark(PromptMark::CommandFinished { code: None })],
        ),
        (
            "133;D;1",
            vec![E::PromptMark(PromptMark::CommandFinished { code: Some(1) })],
        ),
        (
            "133;D;0",
            vec![E::PromptMark(PromptMark::CommandFinished { code: Some(0) })],
        ),
        ("133;Z", vec![]),
        (
            "7501;state=blocked:app=codex:kind=permission",
            vec![E::CodexState {
                state: "blocked".into(),
                kind: Some("permission".into()),
            }],
        ),
        (
            "7501;state=working:app=codex",
            vec![E::CodexState {
                state: "working".into(),
                kind: None,
            }],
        ),
        ("7501;app=codex", vec![]),
        ("52;c;aGVsbG8=", vec![]),
        ("no-number", vec![]),
    ]
}

/// Complete byte streams (not only OSC) and their events.
fn stream_cases() -> Vec<(Vec<u8>, Vec<TerminalEvent>)> {
    let mut cases: Vec<(Vec<u8>, Vec<TerminalEvent>)> = Vec::new();
    for (payload, events) in osc_cases() {
        cases.push((format!("\x1b]{payload}\x07").into_bytes(), events.clone()));
        cases.push((format!("\x1b]{payload}\x1b\\").into_bytes(), events));
    }
    cases.push((b"hello\x07".to_vec(), vec![E::Bell]));
    cases.push((b"\x1b[?1004h".to_vec(), vec![E::FocusReporting(true)]));
    cases.push((b"\x1b[?2004;1004h".to_vec(), vec![E::FocusReporting(true)]));
    cases.push((b"\x1b[?1004;2004l".to_vec(), vec![E::FocusReporting(false)]));
    cases.push((b"\x1b[1004h\x1b[?1049h\x1b[?10040h".to_vec(), vec![]));
    cases.push((b"\x1bP1$r\x07q\x1b\\".to_vec(), vec![]));
    cases.push((b"\x1b_Gf=100;\x07AAAA\x1b\\".to_vec(), vec![]));
    cases.push((
        b"\x1b]99;i=7:d=0;Claude \x1b\\\x1b]99;i=7:d=0:p=body;needs your\x1b\\\x1b]99;i=7:p=body; permission\x1b\\"
            .to_vec(),
        vec![note(Some("Claude"), "needs your permission")],
    ));
    cases.push((
        b"\x1b]99;i=2:d=0:e=1;Q2xhdWRl\x07\x1b]99;i=2:e=1:p=body;bmVlZHMgeW91\x07".to_vec(),
        vec![note(Some("Claude"), "needs you")],
    ));
    cases.push((
        b"a\x07b\x1b]0;t\x07\x1b]133;C\x1b\\out\x1b]133;D;2\x07".to_vec(),
        vec![
            E::Bell,
            E::Title("t".into()),
            E::PromptMark(PromptMark::CommandExecuted),
            E::PromptMark(PromptMark::CommandFinished { code: Some(2) }),
        ],
    ));
    cases
}

#[test]
fn every_osc_kind_with_bel_and_st_terminators() {
    for (payload, expected) in osc_cases() {
        let bel = format!("\x1b]{payload}\x07");
        let st = format!("\x1b]{payload}\x1b\\");
        assert_eq!(scan(bel.as_bytes()), expected, "BEL-terminated {payload:?}");
        assert_eq!(scan(st.as_bytes()), expected, "ST-terminated {payload:?}");
    }
}

#[test]
fn every_stream_split_at_every_byte_gives_the_same_events() {
    let cases = stream_cases();
    let mut all = Vec::new();
    let mut all_expected = Vec::new();
    for (bytes, expected) in &cases {
        assert_eq!(
            &scan(bytes),
            expected,
            "whole {:?}",
            String::from_utf8_lossy(bytes)
        );
        all.extend_from_slice(bytes);
        all_expected.extend(expected.iter().cloned());
    }
    assert_eq!(scan(&all), all_expected);
    for (bytes, expected) in cases
        .iter()
        .chain([(all.clone(), all_expected.clone())].iter())
    {
        for cut in 0..=bytes.len() {
            let mut scanner = TerminalScanner::new();
            let mut out = Vec::new();
            scanner.feed(&bytes[..cut], &mut out);
            scanner.feed(&bytes[cut..], &mut out);
            assert_eq!(
                &out,
                expected,
                "split at {cut} of {:?}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
}

#[test]
fn bel_terminating_or_inside_a_string_is_not_a_bell() {
    assert_eq!(scan(b"\x1b]0;title\x07"), vec![E::Title("title".into())]);
    assert_eq!(scan(b"\x1bPq\x07\x07\x1b\\"), vec![]);
    assert_eq!(scan(b"\x1b_apc\x07\x1b\\\x07"), vec![E::Bell]);
    assert_eq!(scan(b"\x07\x1b[31m\x07"), vec![E::Bell, E::Bell]);
}

#[test]
fn conemu_progress_is_not_a_notification() {
    let events = scan(b"\x1b]9;4;1;50\x07\x1b]9;4;2;100\x1b\\");
    assert_eq!(
        events,
        vec![
            E::Progress {
                state: 1,
                percent: Some(50)
            },
            E::Progress {
                state: 2,
                percent: Some(100)
            }
        ]
    );
    assert!(events.iter().all(|e| to_signal(e, Timestamp(0)).is_none()));
    assert_eq!(
        scan(b"\x1b]9;4;1;250\x07"),
        vec![E::Progress {
            state: 1,
            percent: Some(100)
        }]
    );
}

#[test]
fn kitty_chunks_wait_for_the_final_chunk() {
    let mut scanner = TerminalScanner::new();
    let mut out = Vec::new();
    scanner.feed(b"\x1b]99;i=1:d=0;Build\x1b\\", &mut out);
    assert!(out.is_empty(), "d=0 means more to come");
    assert!(scanner.buffered_len() > 0);
    scanner.feed(b"\x1b]99;i=1:p=body;finished\x1b\\", &mut out);
    assert_eq!(out, vec![note(Some("Build"), "finished")]);
    assert_eq!(scanner.buffered_len(), 0);
}

#[test]
fn kitty_base64_payload_is_decoded() {
    // "Claude needs your permission", base64 with and without padding.
    assert_eq!(
        scan(b"\x1b]99;e=1:p=body;Q2xhdWRlIG5lZWRzIHlvdXIgcGVybWlzc2lvbg==\x1b\\"),
        vec![note(None, "Claude needs your permission")]
    );
    assert_eq!(scan(b"\x1b]99;e=1;SGk\x07"), vec![note(None, "Hi")]);
    assert_eq!(
        scan(b"\x1b]99;e=1;***\x07"),
        vec![],
        "invalid base64 carries no text"
    );
    // Decoded text is sanitised too: an escape sequence smuggled in base64 is removed.
    assert_eq!(
        scan(b"\x1b]99;e=1;G1szMW1yZWQbWzBt\x07"),
        vec![note(None, "red")]
    );
}

#[test]
fn kitty_chunk_with_another_id_replaces_the_pending_one() {
    let events = scan(b"\x1b]99;i=a:d=0;old\x07\x1b]99;i=b:d=0;new\x07\x1b]99;i=b:p=body;text\x07");
    assert_eq!(events, vec![note(Some("new"), "text")]);
}

#[test]
fn kitty_final_icon_chunk_completes_the_notification() {
    let events =
        scan(b"\x1b]99;i=3:d=0;Title\x07\x1b]99;i=3:d=0:p=body;Body\x07\x1b]99;i=3:p=icon;\x07");
    assert_eq!(events, vec![note(Some("Title"), "Body")]);
}

#[test]
fn osc_777_notification() {
    assert_eq!(
        scan(b"\x1b]777;notify;Gemini;Action required\x1b\\"),
        vec![note(Some("Gemini"), "Action required")]
    );
}

#[test]
fn osc_133_d_with_exit_code() {
    assert_eq!(
        scan(b"\x1b]133;D;1\x07"),
        vec![E::PromptMark(PromptMark::CommandFinished { code: Some(1) })]
    );
    assert_eq!(
        scan(b"\x1b]133;D;x\x07"),
        vec![E::PromptMark(PromptMark::CommandFinished { code: None })]
    );
}

#[test]
fn focus_reporting_in_combined_mode_lists() {
    assert_eq!(
        scan(b"\x1b[?1004;2004h\x1b[?25l\x1b[?1004l"),
        vec![E::FocusReporting(true), E::FocusReporting(false)]
    );
}

#[test]
fn other_escape_aborts_an_osc() {
    // ESC not followed by `\` abandons the OSC; the following CSI still parses.
    assert_eq!(
        scan(b"\x1b]0;lost\x1b[?1004h\x07"),
        vec![E::FocusReporting(true), E::Bell]
    );
    // CAN aborts too.
    assert_eq!(scan(b"\x1b]0;lost\x18\x07"), vec![E::Bell]);
}

#[test]
fn unterminated_ten_megabyte_osc_stays_bounded_and_later_sequences_parse() {
    for terminator in [&b"\x07"[..], b"\x1b\\"] {
        let mut scanner = TerminalScanner::new();
        let mut out = Vec::new();
        scanner.feed(b"\x1b]0;", &mut out);
        let chunk = vec![b'a'; 64 * 1024];
        let mut screen = Vec::new();
        for _ in 0..160 {
            scanner.feed_filtered(&chunk, &mut out, &mut screen);
            assert!(screen.is_empty(), "the screen emulator never sees the OSC");
            assert!(
                scanner.buffered_len() <= MAX_OSC_LEN,
                "{}",
                scanner.buffered_len()
            );
        }
        scanner.feed(terminator, &mut out);
        assert!(out.is_empty(), "an oversized OSC is ignored");
        assert_eq!(scanner.buffered_len(), 0);
        scanner.feed(b"\x1b]0;after\x07\x07", &mut out);
        assert_eq!(out, vec![E::Title("after".into()), E::Bell]);
    }
}

#[test]
fn osc_of_exactly_max_len_is_accepted() {
    let mut bytes = b"\x1b]9;".to_vec();
    bytes.extend(vec![b'x'; MAX_OSC_LEN - 2]);
    bytes.push(0x07);
    let events = scan(&bytes);
    assert_eq!(events.len(), 1);
    let E::Notification { body, .. } = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(body.len(), MAX_TEXT_LEN, "text is capped");

    let mut too_long = b"\x1b]9;".to_vec();
    too_long.extend(vec![b'x'; MAX_OSC_LEN - 1]);
    too_long.push(0x07);
    assert_eq!(scan(&too_long), vec![]);
}

#[test]
fn event_text_is_sanitised() {
    assert_eq!(
        scan("\x1b]0;a\u{202e}b\u{9b}31mc\u{2068}\x07".as_bytes()),
        vec![E::Title("abc".into())]
    );
    assert_eq!(
        scan(b"\x1b]9;line one\nline two\ttab\x07"),
        vec![note(None, "line one line two tab")]
    );
    // Invalid UTF-8 becomes U+FFFD.
    assert_eq!(
        scan(b"\x1b]2;bad\xff\xfe\x07"),
        vec![E::Title("bad\u{fffd}\u{fffd}".into())]
    );
}

#[test]
fn sanitize_text_rules() {
    assert_eq!(sanitize_text("\x1b]0;evil\x07ok", 100), "ok");
    assert_eq!(sanitize_text("\x1bPdcs\x1b\\ok\x7f\u{85}", 100), "ok");
    assert_eq!(sanitize_text("a\u{200f}b\u{061c}c\u{2069}", 100), "abc");
    assert_eq!(sanitize_text(&"x".repeat(5000), 1024).len(), 1024);
    assert_eq!(sanitize_text("日本語", 7), "日本");
}

#[test]
fn filtered_stream_drops_strings_and_keeps_the_rest() {
    let mut scanner = TerminalScanner::new();
    let mut out = Vec::new();
    let mut screen = Vec::new();
    let input = b"a\x1b]0;title\x07b\x1b[1mc\x1bPdcs\x1b\\d\x1b(Be\x07";
    // Feed byte by byte: the held-back ESC must come out right across calls.
    let mut printable = false;
    for b in input {
        printable |= scanner.feed_filtered(std::slice::from_ref(b), &mut out, &mut screen);
    }
    assert!(printable);
    assert_eq!(screen, b"ab\x1b[1mcd\x1b(Be\x07".to_vec());
    assert_eq!(out, vec![E::Title("title".into()), E::Bell]);

    let mut screen = Vec::new();
    assert!(!scanner.feed_filtered(b"\r\n  \x1b[2J\x07", &mut out, &mut screen));
    assert_eq!(screen, b"\r\n  \x1b[2J\x07".to_vec());
}

#[test]
fn signals_from_events() {
    let at = Timestamp(1_000);
    let bell = to_signal(&E::Bell, at).unwrap();
    assert_eq!(bell.kind, SignalKind::Bell);
    assert_eq!(bell.source.rung, Rung::Terminal);
    assert_eq!(bell.source.origin, "terminal.bel");
    assert_eq!(bell.at, at);

    let n = to_signal(&note(Some("Claude Code"), "needs you"), at).unwrap();
    assert_eq!(
        n.kind,
        SignalKind::TerminalNotification {
            text: "Claude Code: needs you".into()
        }
    );
    let n = to_signal(&note(None, "\x1b[1mplain\u{202e}"), at).unwrap();
    assert_eq!(
        n.kind,
        SignalKind::TerminalNotification {
            text: "plain".into()
        }
    );
    assert!(to_signal(&note(None, "\x07"), at).is_none());

    let t = to_signal(&E::Title("✳ Claude Code".into()), at).unwrap();
    assert_eq!(t.kind, SignalKind::IdentityOnly);
    assert_eq!(
        t.identity,
        Identity {
            title: Some("✳ Claude Code".into()),
            ..Identity::default()
        }
    );
    let c = to_signal(&E::Cwd("/tmp/proj".into()), at).unwrap();
    assert_eq!(c.identity.cwd.as_deref(), Some("/tmp/proj"));
    assert_eq!(c.source.origin, "terminal.cwd");

    let p = to_signal(
        &E::PromptMark(PromptMark::CommandFinished { code: Some(1) }),
        at,
    )
    .unwrap();
    assert_eq!(
        p.kind,
        SignalKind::Prompt(PromptMark::CommandFinished { code: Some(1) })
    );

    assert!(to_signal(
        &E::Progress {
            state: 1,
            percent: None
        },
        at
    )
    .is_none());
    assert!(to_signal(&E::FocusReporting(true), at).is_none());
    assert!(to_signal(
        &E::CodexState {
            state: "idle".into(),
            kind: None
        },
        at
    )
    .is_none());
}

/// Byte fragments that steer random input into the interesting states.
fn fragment() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => prop::collection::vec(any::<u8>(), 0..64),
        2 => prop::sample::select(vec![
            b"\x1b]".to_vec(), b"\x1b\\".to_vec(), b"\x07".to_vec(), b"\x1b[".to_vec(),
            b"\x1b[?1004h".to_vec(), b"\x1bP".to_vec(), b"\x1b_".to_vec(), b"9;".to_vec(),
            b"99;i=1:d=0;".to_vec(), b"99;i=1:d=0:p=body:e=1;".to_vec(), b"133;D;".to_vec(),
            b"777;notify;".to_vec(), b"7;file://h/%".to_vec(), b"\xe2\x80".to_vec(), b"\x18".to_vec(),
        ]),
        1 => (1usize..3 * MAX_OSC_LEN, any::<u8>()).prop_map(|(n, b)| vec![b; n]),
    ]
}

proptest! {
    #![proptest_config(crate::proptest_config(10_000))]

    #[test]
    fn arbitrary_bytes_never_panic_and_state_stays_bounded(
        frags in prop::collection::vec(fragment(), 0..12),
    ) {
        let mut scanner = TerminalScanner::new();
        let mut out = Vec::new();
        let mut screen = Vec::new();
        for f in &frags {
            scanner.feed_filtered(f, &mut out, &mut screen);
            prop_assert!(scanner.buffered_len() <= MAX_BUFFERED);
            screen.clear();
        }
        for ev in &out {
            let _ = to_signal(ev, Timestamp(0));
        }
    }

    #[test]
    fn random_split_points_give_the_same_events(
        frags in prop::collection::vec(fragment(), 0..8),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
    ) {
        let bytes: Vec<u8> = frags.concat();
        let whole = scan(&bytes);
        let mut points: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
        points.sort_unstable();
        let mut scanner = TerminalScanner::new();
        let mut out = Vec::new();
        let mut start = 0;
        for p in points.into_iter().chain([bytes.len()]) {
            scanner.feed(&bytes[start..p], &mut out);
            start = p;
        }
        prop_assert_eq!(out, whole);
    }
}
