//! Hosts and host-qualified pane references: a remote host's name (`buildbox`) and the
//! id a pane of that host has on this machine (`buildbox:p3`). The grammar is
//! docs/decisions/0013-pane-ids-across-hosts.md's: NAME = `[a-z0-9][a-z0-9-]{0,31}`, a
//! remote pane is `NAME:pN`, a local pane id never contains `:`.

use super::pane_id::PaneId;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Longest host name, in bytes (ADR 0013).
pub const HOST_NAME_MAX: usize = 32;

/// The name a remote host is known by here: `[a-z0-9][a-z0-9-]{0,31}` (ADR 0013).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct HostName(String);

impl HostName {
    /// Parses a host name. Errors: a message naming the rule the text breaks (empty,
    /// too long, a first character that is not a lower-case letter or digit, a character
    /// outside `a-z`, `0-9`, `-`).
    pub fn parse(s: &str) -> Result<HostName, String> {
        let rule = "a host name is 1–32 characters of a-z, 0-9 and '-', not starting with '-'";
        let first = s.bytes().next();
        if s.is_empty() || s.len() > HOST_NAME_MAX {
            return Err(format!("bad host name {s:?}: {rule}"));
        }
        if !matches!(first, Some(b'a'..=b'z' | b'0'..=b'9')) {
            return Err(format!("bad host name {s:?}: {rule}"));
        }
        if !s
            .bytes()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'-'))
        {
            return Err(format!("bad host name {s:?}: {rule}"));
        }
        Ok(HostName(s.to_string()))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for HostName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<HostName> for String {
    fn from(h: HostName) -> String {
        h.0
    }
}

impl TryFrom<String> for HostName {
    type Error = String;
    fn try_from(s: String) -> Result<HostName, String> {
        HostName::parse(&s)
    }
}

/// A pane as this machine names it: a local pane (`p3`) or a remote host's pane
/// (`buildbox:p3`, the remote's own id after the host name and `:`), ADR 0013.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PaneRef {
    /// `None`: a pane of this machine.
    pub host: Option<HostName>,
    /// The pane's id on its own host.
    pub pane: PaneId,
}

impl PaneRef {
    /// Parses `pN` or `NAME:pN`; `None` for anything else (a bad host name, a bad pane
    /// id, more than one `:`).
    pub fn parse(s: &str) -> Option<PaneRef> {
        match s.split_once(':') {
            None => Some(PaneRef {
                host: None,
                pane: PaneId::parse(s)?,
            }),
            Some((host, pane)) => Some(PaneRef {
                host: Some(HostName::parse(host).ok()?),
                pane: PaneId::parse(pane)?,
            }),
        }
    }
}

/// The words for a pane id that names no pane (`no such pane: p9`), the same in the CLI
/// and in D-Bus errors: escaped (the text comes from the caller and is printed on a
/// terminal), and an empty id shown as `""` so the message never ends in nothing.
pub fn no_such_pane_text(pane: &str) -> String {
    if pane.is_empty() {
        "no such pane: \"\" (an empty id)".to_string()
    } else {
        format!("no such pane: {}", pane.escape_debug())
    }
}

impl fmt::Display for PaneRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.host {
            None => write!(f, "{}", self.pane),
            Some(h) => write!(f, "{h}:{}", self.pane),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_follow_the_grammar() {
        for ok in ["a", "buildbox", "vm-2", "0", &"x".repeat(32)] {
            assert_eq!(HostName::parse(ok).unwrap().as_str(), ok);
        }
        for bad in [
            "",
            "-a",
            "Build",
            "a_b",
            "a:b",
            "a b",
            "é",
            &"x".repeat(33),
            "a\u{1b}",
        ] {
            let e = HostName::parse(bad).unwrap_err();
            assert!(e.contains("host name"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn an_unknown_pane_is_named_escaped_and_an_empty_id_visibly() {
        assert_eq!(no_such_pane_text("p9"), "no such pane: p9");
        assert_eq!(no_such_pane_text("a\u{1b}b"), "no such pane: a\\u{1b}b");
        assert_eq!(no_such_pane_text(""), "no such pane: \"\" (an empty id)");
    }

    #[test]
    fn pane_refs_round_trip_and_local_ids_have_no_colon() {
        for s in ["p1", "p42", "buildbox:p3", "vm-2:p10"] {
            assert_eq!(PaneRef::parse(s).unwrap().to_string(), s);
        }
        assert_eq!(PaneRef::parse("p3").unwrap().host, None);
        for bad in ["", "p0", "x:p0", "X:p1", "a:b:p1", ":p1", "a:", "a:3"] {
            assert_eq!(PaneRef::parse(bad), None, "{bad:?}");
        }
    }
}
