//! The D-Bus wire format, for the few messages the hook client exchanges with the bus: it
//! encodes method calls (little-endian) and reads the header of what comes back (either
//! byte order). The D-Bus specification's "Message Protocol" is the reference; zbus
//! decodes what this module encodes in the main crate's tests.

use std::fmt;

/// Message type of a method call.
pub const METHOD_CALL: u8 = 1;
/// Message type of a method return.
pub const METHOD_RETURN: u8 = 2;
/// Message type of an error reply.
pub const ERROR: u8 = 3;
/// Message type of a signal.
pub const SIGNAL: u8 = 4;

/// Length of the fixed part of a message header, in bytes.
pub const FIXED_HEADER: usize = 16;

/// A message the bus sent that does not follow the protocol (or a string to send that
/// D-Bus cannot carry: one with a NUL byte).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed(pub &'static str);

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// Encodes values with D-Bus alignment, little-endian. Offsets count from the start of
/// the buffer, which is where a body (or a whole message) starts: both are 8-aligned.
#[derive(Debug, Default)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// An empty buffer.
    pub fn new() -> Writer {
        Writer::default()
    }

    /// The bytes written so far.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// Pads with zero bytes to a multiple of `n`.
    pub fn align(&mut self, n: usize) {
        let len = self.buf.len().next_multiple_of(n);
        self.buf.resize(len, 0);
    }

    /// A `y` (byte).
    pub fn byte(&mut self, v: u8) {
        self.buf.push(v);
    }

    /// A `u` (uint32).
    pub fn u32(&mut self, v: u32) {
        self.align(4);
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// A `t` (uint64).
    pub fn u64(&mut self, v: u64) {
        self.align(8);
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// An `s` (string) or `o` (object path): length, bytes, NUL.
    ///
    /// Errors: [`Malformed`] when `v` holds a NUL byte (D-Bus strings cannot).
    pub fn string(&mut self, v: &str) -> Result<(), Malformed> {
        if v.as_bytes().contains(&0) {
            return Err(Malformed(
                "a string with a NUL byte cannot be sent over D-Bus",
            ));
        }
        let len = u32::try_from(v.len()).map_err(|_| Malformed("a string over 4 GiB"))?;
        self.u32(len);
        self.buf.extend_from_slice(v.as_bytes());
        self.buf.push(0);
        Ok(())
    }

    /// A `g` (signature): one length byte, the ASCII signature, NUL.
    pub fn signature(&mut self, sig: &str) {
        debug_assert!(sig.len() < 256 && sig.is_ascii());
        self.buf.push(sig.len() as u8);
        self.buf.extend_from_slice(sig.as_bytes());
        self.buf.push(0);
    }

    /// A `v` (variant) holding a value of signature `sig`, written by `value`.
    pub fn variant<E>(
        &mut self,
        sig: &str,
        value: impl FnOnce(&mut Writer) -> Result<(), E>,
    ) -> Result<(), E> {
        self.signature(sig);
        value(self)
    }

    /// An array whose elements align to `element_align` (8 for structs and dict entries),
    /// written by `elements`; the length counts the elements' bytes, not the padding
    /// before the first.
    pub fn array<E>(
        &mut self,
        element_align: usize,
        elements: impl FnOnce(&mut Writer) -> Result<(), E>,
    ) -> Result<(), E> {
        self.u32(0);
        let at = self.buf.len() - 4;
        self.align(element_align);
        let start = self.buf.len();
        elements(self)?;
        let len = (self.buf.len() - start) as u32;
        self.buf[at..at + 4].copy_from_slice(&len.to_le_bytes());
        Ok(())
    }
}

/// The header fields of a method call.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub path: &'a str,
    pub interface: &'a str,
    pub member: &'a str,
    pub destination: &'a str,
    /// The body's signature (`""`: no body).
    pub signature: &'a str,
}

/// A whole method-call message: fixed header, header fields, padding, `body`.
///
/// Errors: [`Malformed`] when a name holds a NUL byte.
pub fn method_call(serial: u32, call: &Call<'_>, body: &[u8]) -> Result<Vec<u8>, Malformed> {
    let body_len = u32::try_from(body.len()).map_err(|_| Malformed("a body over 4 GiB"))?;
    let mut w = Writer::new();
    w.byte(b'l');
    w.byte(METHOD_CALL);
    w.byte(0); // flags
    w.byte(1); // protocol version
    w.u32(body_len);
    w.u32(serial);
    w.array(8, |w| {
        let mut field = |code: u8, sig: &str, v: &str| {
            w.align(8);
            w.byte(code);
            w.variant(sig, |w| match sig {
                "g" => {
                    w.signature(v);
                    Ok(())
                }
                _ => w.string(v),
            })
        };
        field(1, "o", call.path)?;
        field(2, "s", call.interface)?;
        field(3, "s", call.member)?;
        field(6, "s", call.destination)?;
        if !call.signature.is_empty() {
            field(8, "g", call.signature)?;
        }
        Ok(())
    })?;
    w.align(8);
    let mut bytes = w.into_bytes();
    bytes.extend_from_slice(body);
    Ok(bytes)
}

/// The total length of a message from its fixed header: header, fields, padding, body.
///
/// Errors: [`Malformed`] for an unknown byte order.
pub fn message_len(head: &[u8; FIXED_HEADER]) -> Result<usize, Malformed> {
    let r = Reader::new(head)?;
    let body = r.word(4) as usize;
    let fields = r.word(12) as usize;
    Ok((FIXED_HEADER + fields).next_multiple_of(8) + body)
}

/// What the client needs of a message the bus sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    /// [`METHOD_RETURN`], [`ERROR`], [`SIGNAL`], …
    pub kind: u8,
    /// The serial of the call this answers.
    pub reply_serial: Option<u32>,
    /// An error reply's name (`org.freedesktop.DBus.Error.ServiceUnknown`, …).
    pub error_name: Option<String>,
    /// The body's first value when it is a string (an error's message).
    pub first_string: Option<String>,
}

/// Reads the header fields (and the first string of the body) of one whole message.
///
/// Errors: [`Malformed`] when the bytes do not follow the protocol.
pub fn parse(bytes: &[u8]) -> Result<Received, Malformed> {
    let mut r = Reader::new(bytes)?;
    if bytes.len() < FIXED_HEADER {
        return Err(Malformed("a message shorter than its header"));
    }
    let kind = bytes[1];
    let fields_end = FIXED_HEADER
        .checked_add(r.word(12) as usize)
        .ok_or(Malformed("header fields too long"))?;
    r.pos = FIXED_HEADER;
    let mut received = Received {
        kind,
        reply_serial: None,
        error_name: None,
        first_string: None,
    };
    let mut signature = String::new();
    while r.pos < fields_end {
        r.align(8)?;
        let code = r.byte()?;
        let sig = r.signature()?;
        match (code, sig.as_str()) {
            (4, "s") => received.error_name = Some(r.string()?),
            (5, "u") => received.reply_serial = Some(r.u32()?),
            (8, "g") => signature = r.signature()?,
            (_, other) => r.skip_basic(other)?,
        }
    }
    if r.pos != fields_end {
        return Err(Malformed("header fields overrun their length"));
    }
    r.pos = fields_end.next_multiple_of(8);
    if signature.starts_with('s') {
        received.first_string = Some(r.string()?);
    }
    Ok(received)
}

/// Reads values of either byte order from a message.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    little: bool,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Result<Reader<'a>, Malformed> {
        let little = match bytes.first() {
            Some(b'l') => true,
            Some(b'B') => false,
            _ => return Err(Malformed("the bus sent a malformed message")),
        };
        Ok(Reader {
            bytes,
            pos: 0,
            little,
        })
    }

    /// The uint32 at `at` (within the fixed header).
    fn word(&self, at: usize) -> u32 {
        let b = [
            self.bytes[at],
            self.bytes[at + 1],
            self.bytes[at + 2],
            self.bytes[at + 3],
        ];
        if self.little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Malformed> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len())
            .ok_or(Malformed("the bus sent a truncated message"))?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn align(&mut self, n: usize) -> Result<(), Malformed> {
        let to = self.pos.next_multiple_of(n);
        self.take(to - self.pos).map(|_| ())
    }

    fn byte(&mut self) -> Result<u8, Malformed> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, Malformed> {
        self.align(4)?;
        let at = self.pos;
        self.take(4)?;
        Ok(self.word(at))
    }

    fn text(&mut self, len: usize) -> Result<String, Malformed> {
        let bytes = self.take(len)?;
        if self.byte()? != 0 {
            return Err(Malformed("a string without its NUL"));
        }
        Ok(String::from_utf8_lossy(bytes).into_owned())
    }

    fn string(&mut self) -> Result<String, Malformed> {
        let len = self.u32()? as usize;
        self.text(len)
    }

    fn signature(&mut self) -> Result<String, Malformed> {
        let len = self.byte()? as usize;
        self.text(len)
    }

    /// Skips one value of a basic type (the only kind header fields hold).
    fn skip_basic(&mut self, sig: &str) -> Result<(), Malformed> {
        match sig {
            "s" | "o" => self.string().map(|_| ()),
            "g" => self.signature().map(|_| ()),
            "y" => self.byte().map(|_| ()),
            "n" | "q" => self.align(2).and_then(|_| self.take(2).map(|_| ())),
            "b" | "i" | "u" | "h" => self.u32().map(|_| ()),
            "x" | "t" | "d" => self.align(8).and_then(|_| self.take(8).map(|_| ())),
            _ => Err(Malformed("a header field of an unexpected type")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_without_a_body_is_the_specifications_layout() {
        let call = Call {
            path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus",
            member: "Hello",
            destination: "org.freedesktop.DBus",
            signature: "",
        };
        let bytes = method_call(1, &call, &[]).unwrap();
        assert_eq!(&bytes[..4], b"l\x01\x00\x01");
        assert_eq!(&bytes[4..8], &0u32.to_le_bytes(), "no body");
        assert_eq!(&bytes[8..12], &1u32.to_le_bytes(), "serial");
        assert_eq!(bytes.len() % 8, 0);
        let head: [u8; FIXED_HEADER] = bytes[..FIXED_HEADER].try_into().unwrap();
        assert_eq!(message_len(&head).unwrap(), bytes.len());
        // Path field: code 1, signature "o", the path at offset 24.
        assert_eq!(&bytes[16..20], b"\x01\x01o\x00");
        assert_eq!(&bytes[20..24], &21u32.to_le_bytes());
        assert_eq!(&bytes[24..45], b"/org/freedesktop/DBus");
        let parsed = parse(&bytes).unwrap();
        assert_eq!(parsed.kind, METHOD_CALL);
        assert_eq!(parsed.reply_serial, None);
    }

    /// An error reply as dbus-daemon sends it (big-endian here, to read both orders).
    fn error_reply(little: bool) -> Vec<u8> {
        let word = |v: u32| {
            if little {
                v.to_le_bytes()
            } else {
                v.to_be_bytes()
            }
        };
        let name = b"org.freedesktop.DBus.Error.ServiceUnknown";
        let msg = b"no such name";
        let mut fields = Vec::new();
        fields.extend_from_slice(b"\x04\x01s\x00");
        fields.extend_from_slice(&word(name.len() as u32));
        fields.extend_from_slice(name);
        fields.push(0);
        while fields.len() % 8 != 0 {
            fields.push(0);
        }
        fields.extend_from_slice(b"\x05\x01u\x00");
        fields.extend_from_slice(&word(2));
        fields.extend_from_slice(b"\x08\x01g\x00\x01s\x00");
        let mut body = Vec::new();
        body.extend_from_slice(&word(msg.len() as u32));
        body.extend_from_slice(msg);
        body.push(0);
        let mut out = vec![if little { b'l' } else { b'B' }, ERROR, 1, 1];
        out.extend_from_slice(&word(body.len() as u32));
        out.extend_from_slice(&word(7));
        out.extend_from_slice(&word(fields.len() as u32));
        out.extend_from_slice(&fields);
        while out.len() % 8 != 0 {
            out.push(0);
        }
        out.extend_from_slice(&body);
        out
    }

    #[test]
    fn error_replies_are_read_in_both_byte_orders() {
        for little in [true, false] {
            let bytes = error_reply(little);
            let head: [u8; FIXED_HEADER] = bytes[..FIXED_HEADER].try_into().unwrap();
            assert_eq!(message_len(&head).unwrap(), bytes.len());
            let got = parse(&bytes).unwrap();
            assert_eq!(
                got,
                Received {
                    kind: ERROR,
                    reply_serial: Some(2),
                    error_name: Some("org.freedesktop.DBus.Error.ServiceUnknown".into()),
                    first_string: Some("no such name".into()),
                }
            );
        }
    }

    #[test]
    fn garbage_and_truncated_messages_are_errors_not_panics() {
        let bytes = error_reply(true);
        for cut in 0..bytes.len() {
            let _ = parse(&bytes[..cut]);
        }
        assert!(parse(b"X").is_err());
        assert!(parse(&bytes[..40]).is_err());
        let mut w = Writer::new();
        assert!(w.string("a\0b").is_err());
    }

    #[test]
    fn arrays_count_their_elements_not_the_padding() {
        let mut w = Writer::new();
        w.array(8, |w| {
            w.align(8);
            w.u32(7);
            w.u64(9);
            Ok::<(), Malformed>(())
        })
        .unwrap();
        let bytes = w.into_bytes();
        assert_eq!(&bytes[..4], &16u32.to_le_bytes());
        assert_eq!(bytes.len(), 8 + 16);
    }
}
