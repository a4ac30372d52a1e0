//! The server side of D-Bus's SASL handshake as `attend bridge --stdio` plays it to the
//! far client (the D-Bus specification's "Authentication Protocol";
//! `docs/decisions/0014-remote-link.md`). Pure: lines in, replies out.
//!
//! The client's uid is another machine's, so the bridge does not check it: `ANONYMOUS`
//! and `EXTERNAL` are both answered `OK <guid>` with the guid of the bus the bridge
//! connected to (the bus itself authenticated the bridge, by its own uid). No file
//! descriptor crosses ssh, so `NEGOTIATE_UNIX_FD` is answered `ERROR`.

/// Longest handshake line accepted, in bytes (without `\r\n`); libdbus allows 16 KiB for
/// the whole handshake, a real line is under 100 bytes.
pub const LINE_MAX: usize = 1024;

/// Lines that may be answered `ERROR` before the bridge gives up on the client.
pub const ERRORS_MAX: usize = 8;

/// What to do after one client line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Write this line (without `\r\n`) to the client and read the next one.
    Reply(String),
    /// `BEGIN` after `OK`: the handshake is over; relay messages from now on.
    Begin,
    /// Not a D-Bus client: stop with this message (for stderr).
    Fail(String),
}

/// The handshake's state.
#[derive(Debug, Clone)]
pub struct Server {
    guid: String,
    authenticated: bool,
    /// An `AUTH EXTERNAL` without initial response was answered `DATA`.
    waiting_data: bool,
    errors: usize,
}

impl Server {
    /// A handshake that answers `OK guid` (`guid`: the bus's, 32 hex digits).
    pub fn new(guid: &str) -> Server {
        Server {
            guid: guid.to_string(),
            authenticated: false,
            waiting_data: false,
            errors: 0,
        }
    }

    /// Handles one line from the client (`\r\n` already removed; the caller enforces
    /// [`LINE_MAX`]).
    pub fn line(&mut self, line: &[u8]) -> Step {
        let Ok(text) = std::str::from_utf8(line) else {
            return self.error("the handshake line is not text");
        };
        if !text.is_ascii() || text.chars().any(|c| c.is_ascii_control()) {
            return self.error("the handshake line is not printable ASCII");
        }
        let mut words = text.split(' ');
        let command = words.next().unwrap_or("");
        let mechanism = words.next();
        match command {
            "AUTH" if !self.authenticated => match mechanism {
                Some("ANONYMOUS") => self.ok(),
                Some("EXTERNAL") if words.next().is_some() => self.ok(),
                Some("EXTERNAL") => {
                    self.waiting_data = true;
                    Step::Reply("DATA".into())
                }
                _ => Step::Reply("REJECTED EXTERNAL ANONYMOUS".into()),
            },
            "DATA" if self.waiting_data => {
                self.waiting_data = false;
                self.ok()
            }
            "CANCEL" if !self.authenticated => {
                self.waiting_data = false;
                Step::Reply("REJECTED EXTERNAL ANONYMOUS".into())
            }
            "NEGOTIATE_UNIX_FD" if self.authenticated => {
                Step::Reply("ERROR file descriptors cannot cross this bridge".into())
            }
            "BEGIN" if self.authenticated => Step::Begin,
            "AUTH" | "DATA" | "CANCEL" | "NEGOTIATE_UNIX_FD" | "BEGIN" | "ERROR" => {
                self.error("a command out of order")
            }
            _ => self.error("an unknown command"),
        }
    }

    fn ok(&mut self) -> Step {
        self.authenticated = true;
        Step::Reply(format!("OK {}", self.guid))
    }

    fn error(&mut self, why: &str) -> Step {
        self.errors += 1;
        if self.errors > ERRORS_MAX {
            return Step::Fail(format!(
                "the client does not speak D-Bus ({ERRORS_MAX} bad handshake lines, the last: {why})"
            ));
        }
        Step::Reply(format!("ERROR {why}"))
    }
}

/// The guid in the bus's answer `OK <guid>` to the bridge's own `AUTH`; `None` for any
/// other answer.
pub fn ok_guid(line: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(line).ok()?;
    let guid = text.strip_prefix("OK ")?.trim();
    (guid.len() == 32 && guid.bytes().all(|b| b.is_ascii_hexdigit())).then(|| guid.to_string())
}

/// The bridge's own `AUTH EXTERNAL` line for `uid` (its decimal digits, hex-encoded, as
/// the specification has it), `\r\n` included.
pub fn auth_external(uid: u32) -> String {
    let hex: String = uid
        .to_string()
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("AUTH EXTERNAL {hex}\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const GUID: &str = "0123456789abcdef0123456789abcdef";

    fn reply(s: &str) -> Step {
        Step::Reply(s.to_string())
    }

    #[test]
    fn zbus_and_sd_bus_handshakes_are_answered() {
        let mut s = Server::new(GUID);
        assert_eq!(
            s.line(b"AUTH ANONYMOUS 7a627573"),
            reply(&format!("OK {GUID}"))
        );
        assert_eq!(
            s.line(b"NEGOTIATE_UNIX_FD"),
            reply("ERROR file descriptors cannot cross this bridge")
        );
        assert_eq!(s.line(b"BEGIN"), Step::Begin);
        let mut s = Server::new(GUID);
        assert_eq!(
            s.line(b"AUTH EXTERNAL 31303030"),
            reply(&format!("OK {GUID}"))
        );
        let mut s = Server::new(GUID);
        assert_eq!(s.line(b"AUTH EXTERNAL"), reply("DATA"));
        assert_eq!(s.line(b"DATA"), reply(&format!("OK {GUID}")));
        assert_eq!(s.line(b"BEGIN"), Step::Begin);
    }

    #[test]
    fn other_mechanisms_are_rejected_and_order_is_kept() {
        let mut s = Server::new(GUID);
        assert_eq!(s.line(b"AUTH"), reply("REJECTED EXTERNAL ANONYMOUS"));
        assert_eq!(
            s.line(b"AUTH DBUS_COOKIE_SHA1 31"),
            reply("REJECTED EXTERNAL ANONYMOUS")
        );
        assert_eq!(s.line(b"BEGIN"), reply("ERROR a command out of order"));
        assert_eq!(
            s.line(b"NEGOTIATE_UNIX_FD"),
            reply("ERROR a command out of order")
        );
    }

    #[test]
    fn garbage_ends_the_handshake_with_a_clear_message() {
        let mut s = Server::new(GUID);
        assert_eq!(
            s.line(b"\x1b[31mhello"),
            reply("ERROR the handshake line is not printable ASCII")
        );
        assert_eq!(
            s.line(&[0xff, 0xfe]),
            reply("ERROR the handshake line is not text")
        );
        for _ in 2..ERRORS_MAX {
            assert!(matches!(s.line(b"hello"), Step::Reply(_)));
        }
        let Step::Fail(why) = s.line(b"hello") else {
            panic!("no failure")
        };
        assert!(why.starts_with("the client does not speak D-Bus"), "{why}");
    }

    #[test]
    fn the_bus_guid_and_the_own_auth_line() {
        assert_eq!(ok_guid(format!("OK {GUID}").as_bytes()), Some(GUID.into()));
        assert_eq!(ok_guid(b"REJECTED EXTERNAL"), None);
        assert_eq!(ok_guid(b"OK short"), None);
        assert_eq!(auth_external(1000), "AUTH EXTERNAL 31303030\r\n");
    }
}
