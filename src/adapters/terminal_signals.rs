//! Terminal byte stream scanner: BEL and OSC sequences → terminal events.
//!
//! [`TerminalScanner`] is a small, pure state machine (no I/O) over the bytes a program
//! writes to its PTY. It finds the signals listed in `docs/adapters.md#terminal-signals`:
//!
//! | bytes | event |
//! | --- | --- |
//! | BEL outside any OSC/DCS/APC/PM/SOS string | [`TerminalEvent::Bell`] |
//! | `OSC 0;title` / `OSC 2;title` | [`TerminalEvent::Title`] |
//! | `OSC 7;file://host/path` | [`TerminalEvent::Cwd`] (percent-decoded path) |
//! | `OSC 9;text` (iTerm2) | [`TerminalEvent::Notification`] |
//! | `OSC 9;4;state;percent` (ConEmu) | [`TerminalEvent::Progress`] |
//! | `OSC 777;notify;title;body` | [`TerminalEvent::Notification`] |
//! | `OSC 99;k=v:…;payload` (kitty, chunked, base64) | [`TerminalEvent::Notification`] |
//! | `OSC 133;A/B/C/D[;exit]` | [`TerminalEvent::PromptMark`] |
//! | `OSC 7501;state=…:app=codex:kind=…` | [`TerminalEvent::CodexState`] |
//! | `CSI ? … 1004 … h/l` | [`TerminalEvent::FocusReporting`] |
//!
//! OSC strings end with BEL or ST (`ESC \`); any other ESC, CAN or SUB aborts them. The
//! scanner keeps its state between [`TerminalScanner::feed`] calls, so a sequence split
//! across reads gives the same events as one read. Memory is bounded: an OSC string longer
//! than [`MAX_OSC_LEN`] bytes is dropped as soon as it overflows (the rest of it is
//! skipped up to its terminator and no event is produced), and the whole buffered state
//! never exceeds [`MAX_BUFFERED`] bytes. All text in events is already passed through
//! [`sanitize_text`]; [`to_signal`] sanitises again, so hand-built events are safe too.
//!
//! [`to_signal`] maps events onto the engine's signals
//! (`docs/lifecycle-attention.md#signals`, rows "terminal notification", "BEL", "OSC 133
//! marks"; titles and cwd become identity-only signals).

use crate::model::{Identity, PromptMark, Signal, SignalKind, Source, Timestamp};
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;

/// Longest OSC payload (bytes between `ESC ]` and the terminator) the scanner buffers;
/// longer strings are dropped without an event.
pub const MAX_OSC_LEN: usize = 8 * 1024;

/// Longest text (bytes) an event or signal carries: titles, notification title and body,
/// and each part of a pending kitty notification. Paths use [`MAX_PATH_LEN`].
pub const MAX_TEXT_LEN: usize = 1024;

/// Longest working directory path (bytes) a [`TerminalEvent::Cwd`] carries.
pub const MAX_PATH_LEN: usize = 4096;

/// Parameter bytes of one CSI sequence the scanner keeps (enough for any realistic mode
/// list such as `?1004;2004`); longer sequences are skipped without an event.
const MAX_CSI_LEN: usize = 64;

/// Upper bound of [`TerminalScanner::buffered_len`]: the OSC buffer, the CSI parameters
/// and a pending kitty notification's title and body.
pub const MAX_BUFFERED: usize = MAX_OSC_LEN + MAX_CSI_LEN + 2 * MAX_TEXT_LEN;

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;
const CAN: u8 = 0x18;
const SUB: u8 = 0x1a;

/// Something a terminal program said through its output stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TerminalEvent {
    /// BEL (0x07) outside any OSC/DCS/APC/PM/SOS string.
    Bell,
    /// OSC 0 / OSC 2 window title (may be empty: programs clear it on exit).
    Title(String),
    /// OSC 7 `file://host/path`: the percent-decoded path.
    Cwd(String),
    /// OSC 9 (iTerm2; not ConEmu `9;<digits>;…`), OSC 777 `notify;title;body`, or a
    /// completed OSC 99 (kitty) notification. `body` is never empty: a notification with
    /// only a title reports it as the body.
    Notification { title: Option<String>, body: String },
    /// ConEmu `OSC 9;4;state;percent`: state 0 remove, 1 normal, 2 error,
    /// 3 indeterminate, 4 paused; percent 0–100 when given.
    Progress { state: u8, percent: Option<u8> },
    /// `OSC 133;A`/`B`/`C`/`D[;exit]` shell integration mark.
    PromptMark(PromptMark),
    /// Codex's private `OSC 7501;state=…:app=codex:kind=…` self-report.
    CodexState { state: String, kind: Option<String> },
    /// The program set (`CSI ?1004h`) or reset (`CSI ?1004l`) focus reporting, also
    /// inside combined lists such as `CSI ?1004;2004h`.
    FocusReporting(bool),
}

/// Where the scanner is inside the byte stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Plain text and C0 controls.
    Ground,
    /// After ESC (the ESC is held back from the emulator stream until the next byte).
    Escape,
    /// `ESC` followed by intermediates (0x20–0x2F), waiting for the final byte.
    EscIntermediate,
    /// Inside `ESC [`, collecting parameters until the final byte.
    Csi,
    /// Inside an OSC string.
    Osc,
    /// ESC seen inside an OSC string: `\` ends it, anything else aborts it.
    OscEsc,
    /// Inside a DCS, APC, PM or SOS string (skipped; BEL is not a bell here).
    Str,
    /// ESC seen inside such a string.
    StrEsc,
}

/// A kitty OSC 99 notification whose chunks are still arriving (`d=0`).
#[derive(Debug, Default)]
struct KittyPending {
    id: Option<String>,
    title: Vec<u8>,
    body: Vec<u8>,
}

/// Incremental scanner for terminal output; see the module docs for what it finds.
#[derive(Debug)]
pub struct TerminalScanner {
    state: State,
    /// OSC payload so far (≤ [`MAX_OSC_LEN`]).
    osc: Vec<u8>,
    /// The current OSC string overflowed: skip to its terminator, no event.
    osc_overflow: bool,
    /// CSI parameter and intermediate bytes so far (≤ [`MAX_CSI_LEN`]).
    csi: Vec<u8>,
    /// The current CSI sequence is too long to matter: no event.
    csi_overflow: bool,
    kitty: Option<KittyPending>,
    /// Last DEC private mode 1049/1047/47 setting seen (alternate screen).
    alt_screen: bool,
}

impl Default for TerminalScanner {
    fn default() -> Self {
        Self::new()
    }
}

/// Where the scanner writes the bytes meant for a screen emulator, if anywhere.
struct Sink<'a>(Option<&'a mut Vec<u8>>);

impl Sink<'_> {
    fn push(&mut self, b: u8) {
        if let Some(v) = self.0.as_mut() {
            v.push(b);
        }
    }

    fn extend(&mut self, bytes: &[u8]) {
        if let Some(v) = self.0.as_mut() {
            v.extend_from_slice(bytes);
        }
    }
}

impl TerminalScanner {
    /// A scanner in the ground state with nothing buffered.
    pub fn new() -> Self {
        TerminalScanner {
            state: State::Ground,
            osc: Vec::new(),
            osc_overflow: false,
            csi: Vec::new(),
            csi_overflow: false,
            kitty: None,
            alt_screen: false,
        }
    }

    /// Scans `bytes`, appending the events found to `out` in stream order. Never panics;
    /// invalid UTF-8 in OSC text is replaced lossily.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<TerminalEvent>) {
        self.scan(bytes, out, Sink(None));
    }

    /// Like [`feed`](Self::feed), and also appends to `screen` the bytes a screen emulator
    /// needs: the input without OSC, DCS, APC, PM and SOS strings (they never change the
    /// screen grid, and an emulator such as vt100 buffers OSC strings without a bound).
    /// A CSI or escape sequence cut short by an ESC is cancelled with a CAN, and an ESC
    /// abandoned by another ESC is dropped, as a terminal does; so `screen` is at most
    /// one byte per ESC longer than `bytes`.
    /// Returns true when `bytes` held printable text (a graphic character outside any
    /// escape sequence; spaces and controls do not count).
    pub fn feed_filtered(
        &mut self,
        bytes: &[u8],
        out: &mut Vec<TerminalEvent>,
        screen: &mut Vec<u8>,
    ) -> bool {
        self.scan(bytes, out, Sink(Some(screen)))
    }

    /// True while the program has the alternate screen on (the last `CSI ?1049h/l`,
    /// `?1047h/l` or `?47h/l` seen set it).
    pub fn alternate_screen(&self) -> bool {
        self.alt_screen
    }

    /// Bytes the scanner holds between calls (OSC payload, CSI parameters, pending kitty
    /// notification); never more than [`MAX_BUFFERED`].
    pub fn buffered_len(&self) -> usize {
        let kitty = self
            .kitty
            .as_ref()
            .map_or(0, |k| k.title.len() + k.body.len());
        self.osc.len() + self.csi.len() + kitty
    }

    fn scan(&mut self, bytes: &[u8], out: &mut Vec<TerminalEvent>, mut sink: Sink<'_>) -> bool {
        let mut printable = false;
        let mut i = 0;
        while i < bytes.len() {
            if self.state == State::Ground {
                // Ground: everything up to the next ESC or BEL passes as it is, in one go
                // (what `step` does byte by byte; a flood is mostly this).
                let end = memchr::memchr2(ESC, BEL, &bytes[i..]).map_or(bytes.len(), |p| i + p);
                let run = &bytes[i..end];
                printable = printable || run.iter().any(|&b| b > b' ' && b != 0x7f);
                sink.extend(run);
                i = end;
                if i == bytes.len() {
                    break;
                }
            }
            self.step(bytes[i], out, &mut sink, &mut printable);
            i += 1;
        }
        printable
    }

    fn step(
        &mut self,
        b: u8,
        out: &mut Vec<TerminalEvent>,
        sink: &mut Sink<'_>,
        printable: &mut bool,
    ) {
        match self.state {
            State::Ground => match b {
                ESC => self.state = State::Escape,
                BEL => {
                    out.push(TerminalEvent::Bell);
                    sink.push(b);
                }
                _ => {
                    if b > b' ' && b != 0x7f {
                        *printable = true;
                    }
                    sink.push(b);
                }
            },
            State::Escape => self.escape(b, out, sink),
            State::EscIntermediate => match b {
                ESC => {
                    // Cancel the part already passed on, so that what follows a string
                    // the sink never sees is not read as its final byte.
                    sink.push(CAN);
                    self.state = State::Escape;
                }
                CAN | SUB => {
                    sink.push(b);
                    self.state = State::Ground;
                }
                BEL => {
                    out.push(TerminalEvent::Bell);
                    sink.push(b);
                }
                0x30..=0x7e => {
                    sink.push(b);
                    self.state = State::Ground;
                }
                _ => sink.push(b),
            },
            State::Csi => self.csi_byte(b, out, sink),
            State::Osc => match b {
                BEL => self.end_osc(out),
                ESC => self.state = State::OscEsc,
                CAN | SUB => self.abort_osc(),
                _ if self.osc_overflow => {}
                _ if self.osc.len() >= MAX_OSC_LEN => {
                    self.osc_overflow = true;
                    self.osc = Vec::new();
                }
                _ => self.osc.push(b),
            },
            State::OscEsc => {
                if b == b'\\' {
                    self.end_osc(out);
                } else {
                    // Any other ESC aborts the string and starts a new escape sequence.
                    self.abort_osc();
                    self.state = State::Escape;
                    self.escape(b, out, sink);
                }
            }
            State::Str => match b {
                ESC => self.state = State::StrEsc,
                CAN | SUB => self.state = State::Ground,
                _ => {}
            },
            State::StrEsc => {
                if b == b'\\' {
                    self.state = State::Ground;
                } else {
                    self.state = State::Escape;
                    self.escape(b, out, sink);
                }
            }
        }
    }

    /// The byte after ESC. The ESC itself was held back; it reaches the sink together with
    /// `b` unless `b` opens a string the sink never sees.
    fn escape(&mut self, b: u8, out: &mut Vec<TerminalEvent>, sink: &mut Sink<'_>) {
        match b {
            b']' => {
                self.osc.clear();
                self.osc_overflow = false;
                self.state = State::Osc;
            }
            b'P' | b'X' | b'^' | b'_' => self.state = State::Str,
            b'[' => {
                sink.push(ESC);
                sink.push(b);
                self.csi.clear();
                self.csi_overflow = false;
                self.state = State::Csi;
            }
            ESC => {
                // ESC ESC: the first one is abandoned (it has no effect on a terminal),
                // the second is held. Passing the first on would let the byte after a
                // dropped string complete it: `ESC ESC ] CAN ]` must not reach the
                // emulator as `ESC ]`, an OSC it would buffer without a bound.
            }
            CAN | SUB => self.state = State::Ground,
            BEL => {
                // C0 controls execute inside escape sequences (VT500 parser).
                out.push(TerminalEvent::Bell);
                sink.push(b);
            }
            0x00..=0x1f | 0x7f => sink.push(b),
            0x20..=0x2f => {
                sink.push(ESC);
                sink.push(b);
                self.state = State::EscIntermediate;
            }
            _ => {
                sink.push(ESC);
                sink.push(b);
                self.state = State::Ground;
            }
        }
    }

    fn csi_byte(&mut self, b: u8, out: &mut Vec<TerminalEvent>, sink: &mut Sink<'_>) {
        match b {
            ESC => {
                // ESC aborts the sequence: cancel the part already passed on (see
                // `State::EscIntermediate`).
                self.csi.clear();
                sink.push(CAN);
                self.state = State::Escape;
            }
            CAN | SUB => {
                self.csi.clear();
                sink.push(b);
                self.state = State::Ground;
            }
            BEL => {
                out.push(TerminalEvent::Bell);
                sink.push(b);
            }
            0x20..=0x3f => {
                sink.push(b);
                if self.csi.len() >= MAX_CSI_LEN {
                    self.csi_overflow = true;
                    self.csi.clear();
                } else if !self.csi_overflow {
                    self.csi.push(b);
                }
            }
            0x40..=0x7e => {
                sink.push(b);
                if !self.csi_overflow {
                    self.private_modes(b, out);
                }
                self.csi.clear();
                self.state = State::Ground;
            }
            _ => sink.push(b),
        }
    }

    /// `CSI ? Pm h` / `CSI ? Pm l`: reports mode 1004 (focus reporting) and tracks the
    /// alternate screen modes.
    fn private_modes(&mut self, final_byte: u8, out: &mut Vec<TerminalEvent>) {
        let on = match final_byte {
            b'h' => true,
            b'l' => false,
            _ => return,
        };
        let Some(list) = self.csi.strip_prefix(b"?") else {
            return;
        };
        for mode in list.split(|&b| b == b';') {
            match mode {
                b"1004" => out.push(TerminalEvent::FocusReporting(on)),
                b"1049" | b"1047" | b"47" => self.alt_screen = on,
                _ => {}
            }
        }
    }

    fn abort_osc(&mut self) {
        self.osc = Vec::new();
        self.osc_overflow = false;
        self.state = State::Ground;
    }

    fn end_osc(&mut self, out: &mut Vec<TerminalEvent>) {
        let payload = std::mem::take(&mut self.osc);
        let overflow = self.osc_overflow;
        self.abort_osc();
        if !overflow {
            self.dispatch_osc(&payload, out);
        }
    }

    fn dispatch_osc(&mut self, payload: &[u8], out: &mut Vec<TerminalEvent>) {
        let text = String::from_utf8_lossy(payload);
        let Some((command, rest)) = text.split_once(';') else {
            return;
        };
        let event = match command {
            "0" | "2" => Some(TerminalEvent::Title(sanitize_text(rest, MAX_TEXT_LEN))),
            "7" => cwd_from_url(rest).map(TerminalEvent::Cwd),
            "9" => osc9(rest),
            "99" => self.kitty_chunk(rest),
            "133" => prompt_mark(rest).map(TerminalEvent::PromptMark),
            "777" => osc777(rest),
            "7501" => codex_state(rest),
            _ => None,
        };
        out.extend(event);
    }

    /// One OSC 99 chunk (`k=v:k=v;payload`). Keys: `i` id, `d=0` more chunks follow,
    /// `p` title (default) | body | icon | buttons | close | alive | `?`, `e=1` base64.
    /// One notification is pending at a time; a chunk with another id replaces it.
    fn kitty_chunk(&mut self, rest: &str) -> Option<TerminalEvent> {
        let (meta, payload) = rest.split_once(';').unwrap_or((rest, ""));
        let mut id = None;
        let mut done = true;
        let mut part = "title";
        let mut base64 = false;
        for (key, value) in meta.split(':').filter_map(|kv| kv.split_once('=')) {
            match key {
                "i" => id = Some(value.to_string()),
                "d" => done = value != "0",
                "p" => part = value,
                "e" => base64 = value == "1",
                _ => {}
            }
        }
        let text_part = match part {
            "title" | "body" => true,
            "icon" | "buttons" => false,
            _ => return None, // close, alive, queries: not a notification
        };
        let mut pending = match self.kitty.take() {
            Some(p) if p.id == id => p,
            _ => KittyPending {
                id,
                ..KittyPending::default()
            },
        };
        if text_part {
            let bytes = if base64 {
                lenient_base64().decode(payload.trim()).unwrap_or_default()
            } else {
                payload.as_bytes().to_vec()
            };
            let target = if part == "body" {
                &mut pending.body
            } else {
                &mut pending.title
            };
            let room = MAX_TEXT_LEN.saturating_sub(target.len());
            target.extend_from_slice(&bytes[..bytes.len().min(room)]);
        }
        if !done {
            self.kitty = Some(pending);
            return None;
        }
        notification(
            &String::from_utf8_lossy(&pending.title),
            &String::from_utf8_lossy(&pending.body),
        )
    }
}

/// Base64 as kitty sends it: standard alphabet, padding optional.
fn lenient_base64() -> GeneralPurpose {
    GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    )
}

/// A notification from a title and a body, both sanitised; `None` when both are empty.
fn notification(title: &str, body: &str) -> Option<TerminalEvent> {
    let title = sanitize_text(title, MAX_TEXT_LEN);
    let body = sanitize_text(body, MAX_TEXT_LEN);
    match (title.is_empty(), body.is_empty()) {
        (true, true) => None,
        (false, true) => Some(TerminalEvent::Notification {
            title: None,
            body: title,
        }),
        (true, false) => Some(TerminalEvent::Notification { title: None, body }),
        (false, false) => Some(TerminalEvent::Notification {
            title: Some(title),
            body,
        }),
    }
}

/// OSC 9 payload: ConEmu commands start with digits followed by `;` or the end
/// (`docs/adapters.md#terminal-signals`); of those only `4;state;percent` (progress) is
/// reported. Anything else is an iTerm2 notification text.
fn osc9(rest: &str) -> Option<TerminalEvent> {
    let (head, tail) = rest.split_once(';').unwrap_or((rest, ""));
    let conemu = !head.is_empty() && head.bytes().all(|b| b.is_ascii_digit());
    if !conemu {
        return notification("", rest);
    }
    if head != "4" {
        return None;
    }
    let mut fields = tail.split(';');
    let state: u8 = fields.next()?.trim().parse().ok().filter(|s| *s <= 4)?;
    let percent = fields
        .next()
        .and_then(|p| p.trim().parse::<u16>().ok())
        .map(|p| p.min(100) as u8);
    Some(TerminalEvent::Progress { state, percent })
}

/// OSC 777 `notify;title;body` (the body may itself contain `;`).
fn osc777(rest: &str) -> Option<TerminalEvent> {
    let mut fields = rest.splitn(3, ';');
    if fields.next()? != "notify" {
        return None;
    }
    let title = fields.next().unwrap_or("");
    let body = fields.next().unwrap_or("");
    notification(title, body)
}

/// OSC 133 `A`, `B`, `C`, `D[;exit]` (extra `;k=v` options are ignored).
fn prompt_mark(rest: &str) -> Option<PromptMark> {
    let mut fields = rest.split(';');
    let mark = match fields.next()? {
        "A" => PromptMark::PromptStart,
        "B" => PromptMark::CommandStart,
        "C" => PromptMark::CommandExecuted,
        "D" => PromptMark::CommandFinished {
            code: fields.next().and_then(|c| c.trim().parse().ok()),
        },
        _ => return None,
    };
    Some(mark)
}

/// OSC 7501 `state=…:app=codex:kind=…`; `state` is required.
fn codex_state(rest: &str) -> Option<TerminalEvent> {
    let mut state = None;
    let mut kind = None;
    for (key, value) in rest.split(':').filter_map(|kv| kv.split_once('=')) {
        let value = sanitize_text(value, 64);
        match key.trim() {
            "state" if !value.is_empty() => state = Some(value),
            "kind" if !value.is_empty() => kind = Some(value),
            _ => {}
        }
    }
    Some(TerminalEvent::CodexState {
        state: state?,
        kind,
    })
}

/// OSC 7 `file://host/path` (also kitty's `kitty-shell-cwd://`) → the percent-decoded,
/// sanitised path; `None` for other schemes or an empty path.
fn cwd_from_url(url: &str) -> Option<String> {
    let after_scheme = url
        .strip_prefix("file://")
        .or_else(|| url.strip_prefix("kitty-shell-cwd://"))?;
    let path = &after_scheme[after_scheme.find('/')?..];
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
    let clean = sanitize_text(&decoded, MAX_PATH_LEN);
    (!clean.is_empty()).then_some(clean)
}

/// Makes text from a terminal safe to store and display: removes escape sequences (ESC
/// and C1 introduced, including whole OSC/DCS strings), C0 and C1 control characters and
/// bidi controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069); turns tabs and
/// line breaks into single spaces; trims; and cuts the result to at most `max` bytes on
/// a character boundary.
pub fn sanitize_text(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max));
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => skip_escape(&mut chars),
            '\u{9b}' => skip_csi(&mut chars),
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            '\t' | '\n' | '\r' => {
                if !out.is_empty() && !out.ends_with(' ') && out.len() < max {
                    out.push(' ');
                }
            }
            '\u{061c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}' => {}
            c if c.is_control() => {}
            c => {
                if out.len() + c.len_utf8() > max {
                    break;
                }
                out.push(c);
            }
        }
    }
    out.trim().to_string()
}

type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

/// Skips what follows an ESC: a CSI, a string (OSC, DCS, APC, PM, SOS) or a short escape.
fn skip_escape(chars: &mut Chars<'_>) {
    match chars.next() {
        Some('[') => skip_csi(chars),
        Some(']' | 'P' | 'X' | '^' | '_') => skip_string(chars),
        Some('\x20'..='\x2f') => {
            while chars.next_if(|c| ('\x20'..='\x2f').contains(c)).is_some() {}
            chars.next();
        }
        _ => {}
    }
}

/// Skips CSI parameters and intermediates up to and including the final byte.
fn skip_csi(chars: &mut Chars<'_>) {
    for c in chars.by_ref() {
        if ('\x40'..='\x7e').contains(&c) || !('\x20'..='\x7e').contains(&c) {
            break;
        }
    }
}

/// Skips a control string up to and including BEL, ST (`ESC \` or U+009C).
fn skip_string(chars: &mut Chars<'_>) {
    while let Some(c) = chars.next() {
        match c {
            '\x07' | '\u{9c}' => break,
            '\x1b' => {
                chars.next_if_eq(&'\\');
                break;
            }
            _ => {}
        }
    }
}

/// The engine signal a terminal event implies (`docs/lifecycle-attention.md#signals`):
/// notifications → `TerminalNotification` (text `title: body`), BEL → `Bell`, OSC 133 →
/// `Prompt`, titles and cwd → `IdentityOnly` carrying `Identity{title}` / `Identity{cwd}`.
/// Sources are `Source::terminal("notification" | "bel" | "osc133" | "title" | "cwd")`.
/// `None` for progress, focus reporting and Codex state (not signals yet).
pub fn to_signal(ev: &TerminalEvent, at: Timestamp) -> Option<Signal> {
    let signal = match ev {
        TerminalEvent::Bell => Signal::new(SignalKind::Bell, Source::terminal("bel"), at),
        TerminalEvent::Title(title) => {
            Signal::new(SignalKind::IdentityOnly, Source::terminal("title"), at).with_identity(
                Identity {
                    title: Some(sanitize_text(title, MAX_TEXT_LEN)),
                    ..Identity::default()
                },
            )
        }
        TerminalEvent::Cwd(cwd) => {
            let cwd = sanitize_text(cwd, MAX_PATH_LEN);
            if cwd.is_empty() {
                return None;
            }
            Signal::new(SignalKind::IdentityOnly, Source::terminal("cwd"), at).with_identity(
                Identity {
                    cwd: Some(cwd),
                    ..Identity::default()
                },
            )
        }
        TerminalEvent::Notification { title, body } => {
            let body = sanitize_text(body, MAX_TEXT_LEN);
            let title = title
                .as_deref()
                .map(|t| sanitize_text(t, MAX_TEXT_LEN))
                .unwrap_or_default();
            let text = match (title.is_empty(), body.is_empty()) {
                (_, true) => title,
                (true, false) => body,
                (false, false) => sanitize_text(&format!("{title}: {body}"), MAX_TEXT_LEN),
            };
            if text.is_empty() {
                return None;
            }
            Signal::new(
                SignalKind::TerminalNotification { text },
                Source::terminal("notification"),
                at,
            )
        }
        TerminalEvent::PromptMark(mark) => {
            Signal::new(SignalKind::Prompt(*mark), Source::terminal("osc133"), at)
        }
        TerminalEvent::Progress { .. }
        | TerminalEvent::CodexState { .. }
        | TerminalEvent::FocusReporting(_) => return None,
    };
    Some(signal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_strips_controls_escapes_and_bidi() {
        let s = "a\x1b[31mred\x1b[0m\u{202e}b\x07\u{9d}0;x\u{9c}c\td\u{2066}";
        assert_eq!(sanitize_text(s, 100), "aredbc d");
    }

    #[test]
    fn sanitize_caps_on_char_boundary() {
        assert_eq!(sanitize_text("ééé", 5), "éé");
        assert_eq!(sanitize_text("  x  ", 10), "x");
    }

    #[test]
    fn alternate_screen_tracking() {
        let mut scanner = TerminalScanner::new();
        let mut out = Vec::new();
        scanner.feed(b"\x1b[?1049h", &mut out);
        assert!(scanner.alternate_screen());
        scanner.feed(b"\x1b[?25;1049l", &mut out);
        assert!(!scanner.alternate_screen());
        scanner.feed(b"\x1b[1049h", &mut out);
        assert!(!scanner.alternate_screen(), "not a private mode");
        assert!(out.is_empty());
    }
}
