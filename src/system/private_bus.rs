//! Attend's private session bus, for a machine without one (an SSH login, a container, a
//! bare VT): `attend up` starts `dbus-daemon --session` on a socket in the runtime
//! directory and records its address there; every `attend` process (and `attend-panel`)
//! adopts that address at start when it has no bus of its own, so that every library
//! (zbus, the tray, notifications) and every child (agents and their hooks) finds it. The
//! lookup rule is the hook crate's ([`attend_hook::address`]); the files and the
//! fallback directory are in docs/dbus-api.md "Names", the behaviour of `attend up` in
//! docs/cli.md "attend up".

use attend_hook::address::{
    self, is_socket, path_address, read_recorded, Source, PRIVATE_SOCKET, RECORDED_FILE,
};
use attend_hook::paths::runtime_dir;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

/// The variable every D-Bus library reads.
pub const VARIABLE: &str = "DBUS_SESSION_BUS_ADDRESS";
/// The private bus's log (dbus-daemon's stderr), in the runtime directory.
pub const LOG_FILE: &str = "session-bus.log";
/// The lock `attend up` holds while it checks and starts the private bus, so that two at
/// once start one.
pub const LOCK_FILE: &str = "session-bus.lock";
/// How long a started `dbus-daemon` may take to answer on its socket.
const START_LIMIT: Duration = Duration::from_secs(15);

/// True when a Unix socket of `address` accepts a connection (the bus is alive; a socket
/// file left by a dead bus refuses).
pub fn answers(address: &[u8]) -> bool {
    address::parse(address).iter().any(|s| match s {
        address::Socket::Path(p) => UnixStream::connect(p).is_ok(),
        address::Socket::Abstract(name) => {
            use std::os::linux::net::SocketAddrExt;
            std::os::unix::net::SocketAddr::from_abstract_name(name)
                .and_then(|a| UnixStream::connect_addr(&a))
                .is_ok()
        }
    })
}

/// At the start of `attend` and `attend-panel`: when `DBUS_SESSION_BUS_ADDRESS` is unset
/// or empty, there is no standard socket, and the private bus Attend recorded answers,
/// sets the variable to its address in this process's environment. Returns whether it
/// did.
///
/// Must run while the process is single-threaded (before any runtime, thread or library
/// that reads the environment starts): `std::env::set_var` races with `getenv` in other
/// threads.
pub fn adopt() -> bool {
    let found = address::resolve();
    if found.source != Source::Recorded || !answers(&found.address) {
        return false;
    }
    std::env::set_var(VARIABLE, std::ffi::OsStr::from_bytes(&found.address));
    true
}

/// For `attend up`: makes sure a session bus is there. `Ok(None)` when the process uses a
/// bus of its own (the variable names another bus, or the standard socket exists):
/// nothing is done. `Ok(Some(address))` when it uses Attend's private bus: the recorded
/// one when it answers, else a new `dbus-daemon` started detached on
/// [`PRIVATE_SOCKET`] in the runtime directory (made 0700), its address recorded in
/// [`RECORDED_FILE`] (0600, written atomically) — and `DBUS_SESSION_BUS_ADDRESS` set to
/// it in this process (for the daemon and the panel it starts).
///
/// Must run while the process is single-threaded (it may set the variable).
///
/// Errors: the runtime directory or its files cannot be made, `dbus-daemon` cannot be
/// started (not installed) or does not answer within 15 s (its log's tail in the
/// message).
pub fn ensure() -> io::Result<Option<String>> {
    let dir = runtime_dir();
    let recorded_path = dir.join(RECORDED_FILE);
    let variable = std::env::var_os(VARIABLE).filter(|v| !v.is_empty());
    match &variable {
        Some(v) if read_recorded(&recorded_path).as_deref() != Some(v.as_bytes()) => {
            return Ok(None)
        }
        Some(_) => {}
        None => {
            let env = |name: &str| std::env::var_os(name);
            if address::resolve_with(&env, &is_socket, &|| None).source == Source::Standard {
                return Ok(None);
            }
        }
    }
    crate::system::private::dir(&dir)?;
    let _lock = lock(&dir.join(LOCK_FILE))?;
    if let Some(recorded) = read_recorded(&recorded_path).filter(|a| answers(a)) {
        if variable.is_none() {
            std::env::set_var(VARIABLE, std::ffi::OsStr::from_bytes(&recorded));
        }
        return Ok(Some(String::from_utf8_lossy(&recorded).into_owned()));
    }
    let socket = dir.join(PRIVATE_SOCKET);
    match std::fs::remove_file(&socket) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let address = String::from_utf8_lossy(&path_address(&socket)).into_owned();
    // Set before the spawn below starts its reaper thread: the process is single-threaded.
    std::env::set_var(VARIABLE, &address);
    let log = dir.join(LOG_FILE);
    let argv = [
        "dbus-daemon".to_string(),
        "--session".into(),
        "--nofork".into(),
        "--nopidfile".into(),
        format!("--address={address}"),
    ];
    crate::system::launch::spawn_detached(&argv, &BTreeMap::new(), Some(&log)).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot start dbus-daemon (package dbus): {e}"),
        )
    })?;
    let start = Instant::now();
    while !answers(address.as_bytes()) {
        if start.elapsed() > START_LIMIT {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(5).collect();
            return Err(io::Error::other(format!(
                "dbus-daemon did not answer on {} within {} s; its log ({}):\n{}",
                socket.display(),
                START_LIMIT.as_secs(),
                log.display(),
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::set_permissions(
        &socket,
        std::fs::Permissions::from_mode(crate::system::private::FILE_MODE),
    )?;
    record(&recorded_path, &address)?;
    Ok(Some(address))
}

/// The line for a POSIX shell that sets the variable: `eval "$(attend up)"`. The address
/// is %-escaped ([`path_address`]), so it holds no `'`.
pub fn export_line(address: &str) -> String {
    format!("{VARIABLE}='{address}'; export {VARIABLE};")
}

/// Writes `address` to `path` atomically (a 0600 temporary file beside it, renamed).
fn record(path: &Path, address: &str) -> io::Result<()> {
    let tmp = path.with_extension("address.tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(crate::system::private::FILE_MODE)
        .open(&tmp)?;
    f.write_all(format!("{address}\n").as_bytes())?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}

/// An exclusive `flock` on `path` (made 0600), released when dropped.
fn lock(path: &Path) -> io::Result<nix::fcntl::Flock<std::fs::File>> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(crate::system::private::FILE_MODE)
        .open(path)?;
    nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusive)
        .map_err(|(_, e)| io::Error::from(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_export_line_is_for_a_posix_shell() {
        assert_eq!(
            export_line("unix:path=/r/attend/session-bus.sock"),
            "DBUS_SESSION_BUS_ADDRESS='unix:path=/r/attend/session-bus.sock'; \
             export DBUS_SESSION_BUS_ADDRESS;"
        );
    }

    #[test]
    fn a_dead_socket_does_not_answer() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.sock");
        let a = path_address(&p);
        assert!(!answers(&a), "no socket");
        let l = std::os::unix::net::UnixListener::bind(&p).unwrap();
        assert!(answers(&a));
        drop(l);
        assert!(!answers(&a), "a socket file without a listener");
    }
}
