//! The tmux control-mode protocol (`tmux -C`; tmux's wiki page "Control Mode"), parsed
//! line by line: [`Reader::feed`] takes one line of the control client's output (without
//! its `\n`) and gives back at most one [`Event`] — a notification, or a whole command
//! reply once its `%end`/`%error` arrives (the lines between `%begin` and its end are the
//! command's output, never notifications).
//!
//! `%output %N DATA` and `%extended-output %N AGE … : DATA` (the latter once the client
//! set `pause-after`) carry a pane's bytes with every byte below 32 and the backslash
//! written as a three-digit octal escape (`\033`, `\134`); other bytes (UTF-8 included)
//! are sent as they are ([`unescape`]).

use super::layout::PaneSize;

/// One notification of the control client, as Attend uses them; others are
/// [`Notice::Other`] with their name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// `%output` or `%extended-output`: bytes a pane printed (unescaped).
    Output { pane: u32, bytes: Vec<u8> },
    /// `%pause %N`: tmux stopped sending this pane's output to the client (it fell
    /// `pause-after` seconds behind); `refresh-client -A %N:continue` resumes it.
    Pause { pane: u32 },
    /// `%sessions-changed`: a session was created or destroyed.
    SessionsChanged,
    /// `%subscription-changed NAME $S @W IDX %P … : VALUE`: a format subscribed with
    /// `refresh-client -B` changed its value for pane `pane` (`None` for a session or
    /// window subscription).
    Subscription {
        name: String,
        pane: Option<u32>,
        value: String,
    },
    /// `%exit [REASON]`: the server closes this client (the session or server ended, or
    /// the client was detached).
    Exit { reason: Option<String> },
    /// `%layout-change @W LAYOUT VISIBLE-LAYOUT FLAGS`: a window's layout changed (a pane
    /// was resized, split or closed); each pane's size in the new layout
    /// ([`super::layout::pane_sizes`]; empty when the layout could not be read).
    LayoutChange { sizes: Vec<PaneSize> },
    /// Any other notification, by name without its `%` (`window-add`, `window-close`).
    Other(String),
}

/// What [`Reader::feed`] gives back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// An asynchronous notification.
    Notice(Notice),
    /// A command's reply: its number (the `%begin` line's second field), whether it
    /// succeeded (`%end`) or failed (`%error`), and its output lines.
    Reply {
        number: u64,
        ok: bool,
        lines: Vec<Vec<u8>>,
    },
}

/// The reply being read, between `%begin` and its end.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Block {
    number: u64,
    lines: Vec<Vec<u8>>,
}

/// The parser's state: inside a reply block or not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reader {
    block: Option<Block>,
}

/// Most output lines one reply keeps (a runaway reply cannot grow memory without bound).
pub const MAX_REPLY_LINES: usize = 10_000;

impl Reader {
    /// A reader outside any block.
    pub fn new() -> Reader {
        Reader::default()
    }

    /// Takes one line (without its `\n`; a trailing `\r` is kept as data). Returns the
    /// notification it is, or the finished reply at its `%end`/`%error`, else `None`.
    pub fn feed(&mut self, line: &[u8]) -> Option<Event> {
        if let Some(block) = &mut self.block {
            let end = guard(line, b"%end ").or_else(|| guard(line, b"%error "));
            if let Some(number) = end.and_then(second_number) {
                if number == block.number {
                    let ok = line.starts_with(b"%end ");
                    let block = self.block.take()?;
                    return Some(Event::Reply {
                        number,
                        ok,
                        lines: block.lines,
                    });
                }
            }
            if block.lines.len() < MAX_REPLY_LINES {
                block.lines.push(line.to_vec());
            }
            return None;
        }
        if let Some(rest) = guard(line, b"%begin ") {
            let number = second_number(rest)?;
            self.block = Some(Block {
                number,
                lines: Vec::new(),
            });
            return None;
        }
        notice(line).map(Event::Notice)
    }
}

/// `rest` after `prefix` when `line` starts with it.
fn guard<'a>(line: &'a [u8], prefix: &[u8]) -> Option<&'a [u8]> {
    line.strip_prefix(prefix)
}

/// The second space-separated number of `%begin TIME NUMBER FLAGS` (after the prefix).
fn second_number(rest: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(rest).ok()?;
    text.split(' ').nth(1)?.parse().ok()
}

/// `%N` → N.
fn pane_id(word: &str) -> Option<u32> {
    word.strip_prefix('%')?.parse().ok()
}

/// One notification line (outside a block). `None` for a line that is no notification
/// (tmux sends none; a stray line is ignored).
pub fn notice(line: &[u8]) -> Option<Notice> {
    let rest = line.strip_prefix(b"%")?;
    let name_end = rest.iter().position(|b| *b == b' ').unwrap_or(rest.len());
    let name = std::str::from_utf8(&rest[..name_end]).ok()?;
    let args = rest.get(name_end + 1..).unwrap_or(&[]);
    Some(match name {
        "output" => {
            let sp = args.iter().position(|b| *b == b' ')?;
            let pane = pane_id(std::str::from_utf8(&args[..sp]).ok()?)?;
            Notice::Output {
                pane,
                bytes: unescape(&args[sp + 1..]),
            }
        }
        "extended-output" => {
            let sp = args.iter().position(|b| *b == b' ')?;
            let pane = pane_id(std::str::from_utf8(&args[..sp]).ok()?)?;
            // `%extended-output %N AGE [RESERVED…] : DATA`
            let colon = find(args, b" : ")?;
            Notice::Output {
                pane,
                bytes: unescape(&args[colon + 3..]),
            }
        }
        "pause" => Notice::Pause {
            pane: pane_id(std::str::from_utf8(args).ok()?.trim())?,
        },
        "sessions-changed" => Notice::SessionsChanged,
        "subscription-changed" => {
            let colon = find(args, b" : ");
            let (head, value) = match colon {
                Some(c) => (&args[..c], &args[c + 3..]),
                None => (args, &[][..]),
            };
            let head = std::str::from_utf8(head).ok()?;
            let mut words = head.split(' ');
            let name = words.next()?.to_string();
            let pane = words.find_map(pane_id);
            Notice::Subscription {
                name,
                pane,
                value: String::from_utf8_lossy(value).into_owned(),
            }
        }
        "layout-change" => {
            let text = String::from_utf8_lossy(args);
            let layout = text.split(' ').nth(1).unwrap_or("");
            Notice::LayoutChange {
                sizes: super::layout::pane_sizes(layout).unwrap_or_default(),
            }
        }
        "exit" => Notice::Exit {
            reason: (!args.is_empty()).then(|| String::from_utf8_lossy(args).into_owned()),
        },
        other => Notice::Other(other.to_string()),
    })
}

/// The first index of `needle` in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Undoes the control mode's escaping of a pane's output: `\ooo` (three octal digits)
/// is that byte; any other byte, including a backslash not followed by three octal
/// digits, is itself.
pub fn unescape(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        let b = data[i];
        if b == b'\\' && i + 3 < data.len() && data[i + 1..=i + 3].iter().all(is_octal) {
            let v = (u32::from(data[i + 1] - b'0') << 6)
                | (u32::from(data[i + 2] - b'0') << 3)
                | u32::from(data[i + 3] - b'0');
            out.push(v as u8);
            i += 4;
        } else {
            out.push(b);
            i += 1;
        }
    }
    out
}

fn is_octal(b: &u8) -> bool {
    (b'0'..=b'7').contains(b)
}

/// How tmux escapes a pane's bytes in `%output` (the inverse of [`unescape`]; for tests
/// and for tools that replay a pane).
pub fn escape(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for &b in bytes {
        if b < b' ' || b == b'\\' {
            out.extend(format!("\\{b:03o}").bytes());
        } else {
            out.push(b);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed_all(lines: &[&[u8]]) -> Vec<Event> {
        let mut r = Reader::new();
        lines.iter().filter_map(|l| r.feed(l)).collect()
    }

    /// Lines as tmux 3.3 wrote them in a session with a shell, a subscription and a
    /// second session made meanwhile.
    #[test]
    fn a_real_transcript_reads_as_notifications_and_replies() {
        let got = feed_all(&[
            b"%begin 1796635315 267 0",
            b"%end 1796635315 267 0",
            b"%session-changed $0 a",
            b"%begin 1796635315 272 1",
            b"%end 1796635315 272 1",
            b"%extended-output %0 0 : \\033[?2004hroot@vm:/tmp# ",
            b"%subscription-changed attend $0 @0 0 %0 : 26080 bash",
            b"%sessions-changed",
            b"%output %3 h\xc3\xa9\\015\\012",
            b"%pause %3",
            b"%exit",
        ]);
        assert_eq!(
            got,
            vec![
                Event::Reply {
                    number: 267,
                    ok: true,
                    lines: vec![]
                },
                Event::Notice(Notice::Other("session-changed".into())),
                Event::Reply {
                    number: 272,
                    ok: true,
                    lines: vec![]
                },
                Event::Notice(Notice::Output {
                    pane: 0,
                    bytes: b"\x1b[?2004hroot@vm:/tmp# ".to_vec()
                }),
                Event::Notice(Notice::Subscription {
                    name: "attend".into(),
                    pane: Some(0),
                    value: "26080 bash".into()
                }),
                Event::Notice(Notice::SessionsChanged),
                Event::Notice(Notice::Output {
                    pane: 3,
                    bytes: "hé\r\n".as_bytes().to_vec()
                }),
                Event::Notice(Notice::Pause { pane: 3 }),
                Event::Notice(Notice::Exit { reason: None }),
            ]
        );
    }

    /// Inside a block every line is the command's output, even one that looks like a
    /// notification; `%error` ends it as a failure; another number's `%end` is output.
    #[test]
    fn a_reply_block_holds_its_lines_and_ends_only_at_its_own_number() {
        let got = feed_all(&[
            b"%begin 1 7 1",
            b"%output %1 not a notification",
            b"%end 1 8 1",
            b"parse error: syntax error",
            b"%error 1 7 1",
        ]);
        assert_eq!(
            got,
            vec![Event::Reply {
                number: 7,
                ok: false,
                lines: vec![
                    b"%output %1 not a notification".to_vec(),
                    b"%end 1 8 1".to_vec(),
                    b"parse error: syntax error".to_vec()
                ]
            }]
        );
    }

    #[test]
    fn a_layout_change_carries_each_panes_size() {
        assert_eq!(
            notice(b"%layout-change @0 5d3e,120x40,0,0{60x40,0,0,0,59x40,61,0,3} 5d3e,120x40,0,0{60x40,0,0,0,59x40,61,0,3} *"),
            Some(Notice::LayoutChange {
                sizes: vec![
                    PaneSize { pane: 0, cols: 60, rows: 40 },
                    PaneSize { pane: 3, cols: 59, rows: 40 }
                ]
            })
        );
        assert_eq!(
            notice(b"%layout-change @1 bad"),
            Some(Notice::LayoutChange { sizes: vec![] })
        );
    }

    #[test]
    fn exit_keeps_its_reason_and_stray_lines_are_ignored() {
        assert_eq!(
            notice(b"%exit server exited"),
            Some(Notice::Exit {
                reason: Some("server exited".into())
            })
        );
        assert_eq!(notice(b"hello"), None);
        assert_eq!(notice(b"%output %x abc"), None);
    }

    #[test]
    fn a_backslash_without_three_octal_digits_is_itself() {
        assert_eq!(unescape(b"a\\0"), b"a\\0");
        assert_eq!(unescape(b"\\134\\"), b"\\\\");
        assert_eq!(unescape(b"\\08x"), b"\\08x");
        assert_eq!(unescape(b"\\377"), [0xff]);
    }

    proptest::proptest! {
        /// Whatever a pane printed comes back byte for byte from tmux's escaping.
        #[test]
        fn unescape_undoes_tmux_escaping(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512)) {
            proptest::prop_assert_eq!(unescape(&escape(&bytes)), bytes.clone());
            let mut line = b"%output %12 ".to_vec();
            line.extend(escape(&bytes));
            proptest::prop_assert_eq!(
                notice(&line),
                Some(Notice::Output { pane: 12, bytes })
            );
        }

        /// A reply's output lines come back as they were, whatever they hold, and the
        /// reader is outside a block afterwards.
        #[test]
        fn replies_keep_their_lines(lines in proptest::collection::vec("[ -~]{0,40}", 0..20), n in 0u64..1000) {
            let mut r = Reader::new();
            proptest::prop_assert_eq!(r.feed(format!("%begin 5 {n} 1").as_bytes()), None);
            for l in &lines {
                let end = l.starts_with(&format!("%end 5 {n} ")) || l.starts_with(&format!("%error 5 {n} "));
                proptest::prop_assume!(!end);
                proptest::prop_assert_eq!(r.feed(l.as_bytes()), None);
            }
            let got = r.feed(format!("%end 5 {n} 1").as_bytes());
            let want: Vec<Vec<u8>> = lines.iter().map(|l| l.as_bytes().to_vec()).collect();
            proptest::prop_assert_eq!(got, Some(Event::Reply { number: n, ok: true, lines: want }));
            proptest::prop_assert_eq!(r, Reader::new());
        }
    }
}
