//! One link to a remote Attend daemon (`docs/decisions/0014-remote-link.md`): the carrier
//! process (ssh, or the remote's `via` command) with its stdin/stdout on one end of a
//! socket pair, and a zbus bus connection on the other end.

use crate::client::Attend1Proxy;
use crate::engine::escape_controls;
use crate::settings::carrier::carrier_argv;
use crate::settings::Remote;
use std::os::fd::OwnedFd;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::AsyncReadExt;

/// How long connecting (the carrier's start, ssh's log-in, both handshakes and the
/// remote's `Version` and `InterfaceVersion`) may take before the attempt counts as failed.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Longest error or version text kept from a remote, in characters (after escaping).
pub const TEXT_MAX: usize = 300;

/// Cleans text from a remote for display: the last line only, control characters
/// escaped, at most [`TEXT_MAX`] characters.
pub fn clean(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("");
    let escaped = escape_controls(line);
    match escaped.char_indices().nth(TEXT_MAX) {
        Some((i, _)) => format!("{}…", &escaped[..i]),
        None => escaped,
    }
}

/// A live link.
pub struct Link {
    pub conn: zbus::Connection,
    /// The carrier; killed when the link is dropped.
    pub child: tokio::process::Child,
    /// The last lines the carrier wrote on stderr, cleaned ([`keep_last_line`]).
    pub stderr: Arc<Mutex<String>>,
    /// The remote daemon's `Version()`, cleaned.
    pub version: String,
    /// The task reading the carrier's stderr.
    stderr_task: Option<tokio::task::JoinHandle<()>>,
}

impl Link {
    /// The carrier's last stderr line, after its stderr ended (waits at most 1 s for
    /// that: a process the carrier left behind may hold it open).
    pub async fn last_stderr(&mut self) -> String {
        drain(self.stderr_task.take()).await;
        last_line(&self.stderr)
    }
}

async fn drain(task: Option<tokio::task::JoinHandle<()>>) {
    if let Some(task) = task {
        let _ = tokio::time::timeout(Duration::from_secs(1), task).await;
    }
}

fn last_line(stderr: &Mutex<String>) -> String {
    stderr
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

/// Starts the carrier of `remote`, builds the bus connection through it, asks the
/// remote daemon's `Version()` and checks its `InterfaceVersion()`. Errors: one cleaned line (the carrier's own last stderr
/// line when it wrote one: ssh's "Connection refused", "Permission denied", a missing
/// `attend`; else what failed: no attend daemon on the remote, a handshake that is not
/// D-Bus, an incompatible interface version, a timeout).
pub async fn connect(remote: &Remote) -> Result<Link, String> {
    let argv = carrier_argv(remote)?;
    let (ours, theirs) =
        std::os::unix::net::UnixStream::pair().map_err(|e| format!("socket pair: {e}"))?;
    let theirs: OwnedFd = theirs.into();
    let theirs_out = theirs
        .try_clone()
        .map_err(|e| format!("socket pair: {e}"))?;
    let mut child = tokio::process::Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::from(theirs))
        .stdout(Stdio::from(theirs_out))
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| clean(&format!("cannot start {}: {e}", argv[0])))?;
    let stderr = Arc::new(Mutex::new(String::new()));
    let stderr_task = child
        .stderr
        .take()
        .map(|err| tokio::spawn(keep_last_line(err, stderr.clone())));
    let attempt = async {
        let pair = |e: std::io::Error| (format!("socket pair: {e}"), false);
        ours.set_nonblocking(true).map_err(pair)?;
        let mut stream = tokio::net::UnixStream::from_std(ours).map_err(pair)?;
        let guid = authenticate(&mut stream).await?;
        let conn = bus_connection(stream, &guid)
            .await
            .map_err(|e| (clean(&format!("the remote bus failed: {e}")), false))?;
        let version = remote_version(&conn).await.map_err(|e| (e, false))?;
        interface_version(&conn, &version)
            .await
            .map_err(|e| (clean(&e), false))?;
        Ok::<_, (String, bool)>((conn, version))
    };
    let outcome = tokio::time::timeout(CONNECT_TIMEOUT, attempt)
        .await
        .unwrap_or_else(|_| {
            let secs = CONNECT_TIMEOUT.as_secs();
            Err((format!("no answer within {secs} s"), true))
        });
    match outcome {
        Ok((conn, version)) => Ok(Link {
            conn,
            child,
            stderr,
            version,
            stderr_task,
        }),
        Err((e, carrier_knows)) => {
            // Before the bus answered, the carrier's own words are the better message
            // (ssh's "Connection refused"): give it a moment to exit and say them.
            if !carrier_knows {
                return Err(clean(&e));
            }
            let status = tokio::time::timeout(Duration::from_secs(2), child.wait()).await;
            drain(stderr_task).await;
            let said = last_line(&stderr);
            if !said.is_empty() {
                return Err(clean(&said));
            }
            // A carrier that ended without a word: how it ended says more than the
            // socket's "Connection reset by peer".
            match status {
                Ok(Ok(st)) if !st.success() => Err(clean(&format!(
                    "the carrier `{}` ended ({st}) without a word on stderr",
                    argv.first().map(String::as_str).unwrap_or_default()
                ))),
                _ => Err(clean(&e)),
            }
        }
    }
}

/// The client side of the SASL handshake, bounded (zbus's own reads a line of any
/// length): `AUTH ANONYMOUS` (the bridge authenticated itself to the remote bus by its own
/// uid), then `BEGIN`; the guid of the remote bus. No file descriptor crosses the link,
/// so none is negotiated. Errors: (message, whether the carrier's stderr says it better).
async fn authenticate(stream: &mut tokio::net::UnixStream) -> Result<String, (String, bool)> {
    use tokio::io::AsyncWriteExt;
    let io = |e: std::io::Error| (format!("the link failed: {e}"), true);
    stream
        .write_all(b"\0AUTH ANONYMOUS 617474656e64\r\n")
        .await
        .map_err(io)?;
    // Byte by byte: nothing after the line may be taken from the connection.
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while line.last() != Some(&b'\n') {
        if line.len() > crate::service::remotes::bridge::sasl::LINE_MAX {
            let start = String::from_utf8_lossy(&line[..60]).into_owned();
            let e = format!(
                "the other end does not speak D-Bus (it sent {:?}…)",
                clean(&start)
            );
            return Err((e, false));
        }
        match stream.read(&mut byte).await.map_err(io)? {
            0 => return Err(("the link closed during the D-Bus handshake".into(), true)),
            _ => line.push(byte[0]),
        }
    }
    let text = String::from_utf8_lossy(&line).trim_end().to_string();
    let guid =
        crate::service::remotes::bridge::sasl::ok_guid(text.as_bytes()).ok_or_else(|| {
            let e = format!(
                "the other end does not speak D-Bus (it sent {:?})",
                clean(&text)
            );
            (e, false)
        })?;
    stream.write_all(b"BEGIN\r\n").await.map_err(io)?;
    Ok(guid)
}

/// A bus connection on the authenticated stream: zbus's, then `Hello`.
async fn bus_connection(
    stream: tokio::net::UnixStream,
    guid: &str,
) -> zbus::Result<zbus::Connection> {
    let conn = zbus::connection::Builder::authenticated_socket(stream, guid)?
        .build()
        .await?;
    // The bus's first message must be `Hello`; zbus sends it only in its own handshake.
    // (The name it returns is not needed here: the bus stamps every message's sender.)
    zbus::fdo::DBusProxy::new(&conn).await?.hello().await?;
    Ok(conn)
}

/// The remote daemon's version. Errors: no daemon owns the name there, or it does not
/// serve the interface this side speaks.
async fn remote_version(conn: &zbus::Connection) -> Result<String, String> {
    let proxy = Attend1Proxy::builder(conn)
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .map_err(|e| format!("cannot reach the remote attend daemon: {e}"))?;
    match proxy.version().await {
        Ok(v) => Ok(clean(&v)),
        Err(zbus::Error::MethodError(name, msg, _)) => {
            let name = name.as_str();
            if name.ends_with(".ServiceUnknown") || name.ends_with(".NameHasNoOwner") {
                Err("no attend daemon runs on the remote (start it there with `attend up`)".into())
            } else if name.ends_with(".UnknownMethod")
                || name.ends_with(".UnknownInterface")
                || name.ends_with(".UnknownObject")
            {
                Err(format!(
                    "the remote attend is incompatible: {name}: {}",
                    msg.unwrap_or_default()
                ))
            } else {
                Err(format!(
                    "the remote attend failed: {name}: {}",
                    msg.unwrap_or_default()
                ))
            }
        }
        Err(e) => Err(format!("the remote attend failed: {e}")),
    }
}

/// Checks the remote daemon serves this side's interface version
/// ([`crate::config::INTERFACE_VERSION`], `InterfaceVersion()`). Errors: "incompatible:
/// …" naming both versions (the remote's `version` too), for a remote that answers
/// another version or has no `InterfaceVersion` (older than it).
async fn interface_version(conn: &zbus::Connection, version: &str) -> Result<(), String> {
    let ours = crate::config::INTERFACE_VERSION;
    let proxy = Attend1Proxy::builder(conn)
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .map_err(|e| format!("cannot reach the remote attend daemon: {e}"))?;
    match proxy.interface_version().await {
        Ok(theirs) if theirs == ours => Ok(()),
        Ok(theirs) => Err(format!(
            "incompatible: remote interface version {theirs} (attend {version}), this side \
             speaks {ours}: install the same attend on both"
        )),
        Err(zbus::Error::MethodError(name, _, _)) if name.ends_with(".UnknownMethod") => {
            Err(format!(
                "incompatible: the remote attend {version} has no interface version (older), \
                 this side speaks {ours}: install the same attend on both"
            ))
        }
        Err(e) => Err(format!("the remote attend failed: {e}")),
    }
}

/// Reads the carrier's stderr to its end, keeping only its last two non-empty lines,
/// joined by ` | ` and cleaned (a tool's error and its hint, ssh's warning and its
/// error). Bounded: a remote that writes without end costs one read buffer and a few
/// times [`TEXT_MAX`].
async fn keep_last_line(mut err: tokio::process::ChildStderr, last: Arc<Mutex<String>>) {
    let mut buf = vec![0u8; 4096];
    let mut line: Vec<u8> = Vec::new();
    let mut lines: [String; 2] = Default::default();
    let mut push = |line: &mut Vec<u8>| {
        let text = clean(&String::from_utf8_lossy(line));
        line.clear();
        if text.is_empty() {
            return;
        }
        lines.swap(0, 1);
        lines[1] = text;
        let joined = if lines[0].is_empty() {
            lines[1].clone()
        } else {
            format!("{} | {}", lines[0], lines[1])
        };
        *last.lock().unwrap_or_else(PoisonError::into_inner) = clean(&joined);
    };
    loop {
        let n = match err.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for &b in &buf[..n] {
            if b == b'\n' {
                push(&mut line);
            } else if line.len() < 4 * TEXT_MAX {
                line.push(b);
            }
        }
    }
    push(&mut line);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_from_a_remote_is_one_clean_bounded_line() {
        assert_eq!(
            clean("warning\nssh: connect to host: refused\n\n"),
            "ssh: connect to host: refused"
        );
        assert_eq!(clean("\x1b]0;pwned\x07x"), "\\x1b]0;pwned\\x07x");
        let long = "a".repeat(5000);
        assert_eq!(clean(&long).chars().count(), TEXT_MAX + 1);
    }
}
