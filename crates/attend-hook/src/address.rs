//! The session bus address, one rule for every Attend process (the CLI, the daemon, the
//! panel, the hook executable; docs/dbus-api.md "Names"):
//!
//! 1. `DBUS_SESSION_BUS_ADDRESS` when set and not empty (a `;`-separated list of
//!    `transport:key=value,…` entries, values %-escaped);
//! 2. else the standard socket `$XDG_RUNTIME_DIR/bus` (`/run/user/<uid>/bus` when
//!    `XDG_RUNTIME_DIR` is unset, empty or relative), the place libdbus, sd-bus and zbus
//!    look, when a socket is there;
//! 3. else the private bus `attend up` started, whose address it recorded in
//!    [`RECORDED_FILE`] in the runtime directory ([`crate::paths::runtime_dir`]);
//! 4. else the standard socket (so that the error names it).
//!
//! The hook's own calls hand the resolved address to libdbus ([`crate::bus`]), which opens
//! any transport it names; [`parse`] and [`session`] (for the daemon's bridge and private
//! bus) read only its Unix sockets (`unix:path=…`, `unix:abstract=…`). Resolving reads
//! the environment, `lstat`s one path and reads one small file at most: no process starts.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// The file in the runtime directory holding the address of the private bus `attend up`
/// started (one line, `unix:path=…`), 0600 in a 0700 directory.
pub const RECORDED_FILE: &str = "session-bus.address";
/// The private bus's socket, beside [`RECORDED_FILE`].
pub const PRIVATE_SOCKET: &str = "session-bus.sock";
/// The largest recorded address read, in bytes (a longer file is ignored).
const RECORDED_MAX: u64 = 4096;

/// Where a Unix-socket bus listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Socket {
    /// A socket file.
    Path(PathBuf),
    /// A Linux abstract socket name (without the leading NUL).
    Abstract(Vec<u8>),
}

/// Which step of the rule gave the address ([`resolve`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `DBUS_SESSION_BUS_ADDRESS`.
    Variable,
    /// The standard socket, which exists.
    Standard,
    /// The address Attend recorded for its private bus.
    Recorded,
    /// Nothing found: the standard socket's address, which does not exist.
    Missing,
}

/// A session bus address and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The D-Bus address text (not empty).
    pub address: Vec<u8>,
    /// Which step of the rule gave it.
    pub source: Source,
}

/// The session bus address by the rule above, from this process's environment and files.
pub fn resolve() -> Resolved {
    let env = |name: &str| std::env::var_os(name);
    resolve_with(&env, &is_socket, &|| read_recorded(&recorded_path()))
}

/// [`resolve`] with the environment, the socket test and the recorded file's reader
/// passed in (for tests).
pub fn resolve_with(
    env: &dyn Fn(&str) -> Option<OsString>,
    socket_exists: &dyn Fn(&Path) -> bool,
    recorded: &dyn Fn() -> Option<Vec<u8>>,
) -> Resolved {
    if let Some(v) = env("DBUS_SESSION_BUS_ADDRESS").filter(|v| !v.is_empty()) {
        return Resolved {
            address: v.into_vec(),
            source: Source::Variable,
        };
    }
    let standard = standard_socket(env);
    if socket_exists(&standard) {
        return Resolved {
            address: path_address(&standard),
            source: Source::Standard,
        };
    }
    if let Some(address) = recorded().filter(|a| !parse(a).is_empty()) {
        return Resolved {
            address,
            source: Source::Recorded,
        };
    }
    Resolved {
        address: path_address(&standard),
        source: Source::Missing,
    }
}

/// The standard session bus socket: `$XDG_RUNTIME_DIR/bus`, else `/run/user/<uid>/bus`.
pub fn standard_socket(env: &dyn Fn(&str) -> Option<OsString>) -> PathBuf {
    let dir = env("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| {
            // SAFETY: getuid has no preconditions and cannot fail.
            PathBuf::from(format!("/run/user/{}", unsafe { libc::getuid() }))
        });
    dir.join("bus")
}

/// [`RECORDED_FILE`] in this process's runtime directory.
pub fn recorded_path() -> PathBuf {
    crate::paths::runtime_dir().join(RECORDED_FILE)
}

/// The address recorded in `path`, trimmed; `None` when missing, empty, over
/// [`RECORDED_MAX`] bytes or unreadable.
pub fn read_recorded(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut text = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(RECORDED_MAX + 1)
        .read_to_end(&mut text)
        .ok()?;
    if text.len() as u64 > RECORDED_MAX {
        return None;
    }
    let trimmed = text.trim_ascii();
    (!trimmed.is_empty()).then(|| trimmed.to_vec())
}

/// True when `path` is a socket (`stat`: a symbolic link to one counts).
pub fn is_socket(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_socket())
}

/// `unix:path=PATH` with the path %-escaped as the address format asks.
pub fn path_address(path: &Path) -> Vec<u8> {
    let mut out = b"unix:path=".to_vec();
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"-_/.\\*".contains(&b) {
            out.push(b);
        } else {
            out.extend_from_slice(format!("%{b:02x}").as_bytes());
        }
    }
    out
}

/// The session bus's Unix sockets to try, in order ([`resolve`]). Empty when the address
/// names only other transports (TCP, …).
pub fn session() -> Vec<Socket> {
    parse(&resolve().address)
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

    #[test]
    fn a_path_address_round_trips_through_the_escapes() {
        let path = Path::new("/tmp/a b/it's;x=1,y/bus.sock");
        let address = path_address(path);
        assert!(!address.contains(&b'\''), "safe in single quotes");
        assert_eq!(parse(&address), vec![Socket::Path(path.into())]);
    }

    #[test]
    fn the_variable_then_the_standard_socket_then_the_recorded_address() {
        let env_of = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let recorded = || Some(b"unix:path=/s/session-bus.sock".to_vec());
        let none = || None;
        let yes = |_: &Path| true;
        let no = |_: &Path| false;
        let all = env_of(&[
            ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/v"),
            ("XDG_RUNTIME_DIR", "/r"),
        ]);
        let r = resolve_with(&all, &yes, &recorded);
        assert_eq!(
            (r.address.as_slice(), r.source),
            (&b"unix:path=/v"[..], Source::Variable)
        );
        // An empty variable counts as unset; the standard socket wins over the record.
        let empty = env_of(&[("DBUS_SESSION_BUS_ADDRESS", ""), ("XDG_RUNTIME_DIR", "/r")]);
        let r = resolve_with(&empty, &|p| p == Path::new("/r/bus"), &recorded);
        assert_eq!(
            (r.address.as_slice(), r.source),
            (&b"unix:path=/r/bus"[..], Source::Standard)
        );
        // No standard socket: the record.
        let r = resolve_with(&empty, &no, &recorded);
        assert_eq!(
            (r.address.as_slice(), r.source),
            (&b"unix:path=/s/session-bus.sock"[..], Source::Recorded)
        );
        // Nothing: the standard socket, for the error; a record that names no Unix socket
        // counts as none.
        let r = resolve_with(&empty, &no, &none);
        assert_eq!(
            (r.address.as_slice(), r.source),
            (&b"unix:path=/r/bus"[..], Source::Missing)
        );
        let r = resolve_with(&empty, &no, &|| Some(b"tcp:host=x".to_vec()));
        assert_eq!(r.source, Source::Missing);
        // Without XDG_RUNTIME_DIR the standard socket is /run/user/<uid>/bus.
        let bare = env_of(&[]);
        let uid = unsafe { libc::getuid() };
        assert_eq!(
            standard_socket(&bare),
            PathBuf::from(format!("/run/user/{uid}/bus"))
        );
        let r = resolve_with(&bare, &no, &recorded);
        assert_eq!(r.source, Source::Recorded);
    }

    #[test]
    fn a_recorded_file_is_read_trimmed_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(RECORDED_FILE);
        assert_eq!(read_recorded(&p), None, "missing");
        std::fs::write(&p, "unix:path=/x\n").unwrap();
        assert_eq!(read_recorded(&p).as_deref(), Some(&b"unix:path=/x"[..]));
        std::fs::write(&p, "\n").unwrap();
        assert_eq!(read_recorded(&p), None, "empty");
        std::fs::write(&p, vec![b'a'; RECORDED_MAX as usize + 1]).unwrap();
        assert_eq!(read_recorded(&p), None, "too long");
    }
}
