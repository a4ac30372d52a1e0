//! The session bus address: `DBUS_SESSION_BUS_ADDRESS` (a `;`-separated list of
//! `transport:key=value,…` entries, values %-escaped), else `$XDG_RUNTIME_DIR/bus`, else
//! `/run/user/<uid>/bus`, the places libdbus, sd-bus and zbus look. Only Unix sockets are
//! spoken here (`unix:path=…`, `unix:abstract=…`).

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

/// Where a Unix-socket bus listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Socket {
    /// A socket file.
    Path(PathBuf),
    /// A Linux abstract socket name (without the leading NUL).
    Abstract(Vec<u8>),
}

/// The session bus's Unix sockets to try, in order, from the environment. Empty when the
/// address names only other transports (TCP, …), which this client does not speak.
pub fn session() -> Vec<Socket> {
    match std::env::var_os("DBUS_SESSION_BUS_ADDRESS").filter(|v| !v.is_empty()) {
        Some(address) => parse(address.as_bytes()),
        None => {
            let dir = std::env::var_os("XDG_RUNTIME_DIR")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .unwrap_or_else(|| {
                    // SAFETY: getuid has no preconditions and cannot fail.
                    PathBuf::from(format!("/run/user/{}", unsafe { libc::getuid() }))
                });
            vec![Socket::Path(dir.join("bus"))]
        }
    }
}

/// The Unix sockets of a D-Bus address list, in order; entries of other transports and
/// malformed ones are left out.
pub fn parse(address: &[u8]) -> Vec<Socket> {
    address
        .split(|&b| b == b';')
        .filter_map(|entry| {
            let rest = entry.strip_prefix(b"unix:")?;
            rest.split(|&b| b == b',').find_map(|pair| {
                let eq = pair.iter().position(|&b| b == b'=')?;
                let (key, value) = (&pair[..eq], unescape(&pair[eq + 1..])?);
                match key {
                    b"path" => Some(Socket::Path(PathBuf::from(OsString::from_vec(value)))),
                    b"abstract" => Some(Socket::Abstract(value)),
                    _ => None,
                }
            })
        })
        .collect()
}

/// Undoes the address format's `%XX` escapes; `None` for a broken escape.
fn unescape(value: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(value.len());
    let mut i = 0;
    while i < value.len() {
        if value[i] == b'%' {
            let hex = std::str::from_utf8(value.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(value[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_entries_are_found_in_order_and_unescaped() {
        assert_eq!(
            parse(b"unix:path=/run/user/1000/bus"),
            vec![Socket::Path("/run/user/1000/bus".into())]
        );
        assert_eq!(
            parse(
                b"tcp:host=x,port=1;unix:abstract=/tmp/dbus-AbC,guid=0123;unix:guid=9,path=/a%20b"
            ),
            vec![
                Socket::Abstract(b"/tmp/dbus-AbC".to_vec()),
                Socket::Path("/a b".into())
            ]
        );
        assert_eq!(parse(b"tcp:host=localhost,port=4"), vec![]);
        assert_eq!(parse(b"unix:path=/x%4"), vec![], "a broken escape");
        assert_eq!(parse(b""), vec![]);
    }
}
