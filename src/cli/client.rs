//! The CLI's D-Bus client of `io.github.attend.Attend1` (the typed proxy of
//! [`crate::client`]), and the mapping of its failures to exit codes (documented in
//! `docs/dbus-api.md` and `attend --help`).

use crate::client::Attend1Proxy;
use crate::config::{BUS_NAME, START_HINT};
use std::fmt;

/// Success.
pub const EXIT_OK: i32 = 0;
/// Nothing to report (`attend next` with nothing unread).
pub const EXIT_NOTHING: i32 = 1;
/// Bad input: unknown pane, no decision, not owned, invalid argument, payload too large,
/// program that cannot be spawned (and clap's usage errors).
pub const EXIT_BAD_INPUT: i32 = 2;
/// The daemon is unreachable (no session bus, or nobody owns the name).
pub const EXIT_UNREACHABLE: i32 = 3;
/// The daemon failed internally (`Error.Internal`) or answered something unexpected.
pub const EXIT_INTERNAL: i32 = 4;

/// A failure with its exit code and the message printed after `attend: `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    pub code: i32,
    pub message: String,
}

impl CliError {
    /// A failure with `code`.
    pub fn new(code: i32, message: impl Into<String>) -> CliError {
        CliError {
            code,
            message: message.into(),
        }
    }

    /// Bad input (exit 2).
    pub fn bad_input(message: impl Into<String>) -> CliError {
        CliError::new(EXIT_BAD_INPUT, message)
    }

    /// The reader of stdout went away (`attend man | head -1`): the command ends with
    /// status 0 and prints nothing (`docs/cli.md#broken-pipes`).
    pub fn closed() -> CliError {
        CliError::new(EXIT_OK, "")
    }

    /// Prints the failure as `attend: MESSAGE` on stderr (nothing for [`CliError::closed`])
    /// and returns its exit code.
    pub fn report(&self) -> i32 {
        if !self.message.is_empty() {
            eprintln!("attend: {}", self.message);
        }
        self.code
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

fn bus_address() -> String {
    std::env::var("DBUS_SESSION_BUS_ADDRESS").unwrap_or_else(|_| "(unset)".into())
}

/// The daemon cannot be reached: exit 3, naming the bus and suggesting [`START_HINT`], or,
/// when the daemon runs on another bus (one this shell does not name, such as the bus of
/// the headless quick start's `dbus-run-session`), naming that bus and how to adopt it.
fn unreachable(detail: impl fmt::Display) -> CliError {
    let hint = match daemon_on_another_bus() {
        Some((pid, address)) => format!(
            "the daemon runs (pid {pid}) on another bus: run `eval \"$(attend up)\"` in this \
             shell, or export DBUS_SESSION_BUS_ADDRESS={address}"
        ),
        None => START_HINT.to_string(),
    };
    CliError::new(
        EXIT_UNREACHABLE,
        format!("{}; {hint}", no_bus_message(detail)),
    )
}

/// The daemon's pid and bus address from its state lock (`src/system/state_lock.rs`),
/// when it runs on a bus that answers and that is not the one this process names.
fn daemon_on_another_bus() -> Option<(u32, String)> {
    let ours = std::env::var("DBUS_SESSION_BUS_ADDRESS").unwrap_or_default();
    daemon_bus().filter(|(_, address)| *address != ours)
}

/// The running daemon's pid and bus address, read from its state lock
/// (`src/system/state_lock.rs`): the lock's holder is an `attend daemon` process and its
/// bus answers. `attend up` adopts that bus; other commands name it when they cannot
/// reach the daemon on their own.
pub fn daemon_bus() -> Option<(u32, String)> {
    let holder = crate::system::state_lock::holder(&attend_hook::paths::state_dir())?;
    let pid = holder.pid?;
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    if !cmdline.split(|b| *b == 0).any(|w| w == b"daemon") {
        return None;
    }
    let address = holder.address()?.to_string();
    crate::system::private_bus::answers(address.as_bytes()).then_some((pid, address))
}

/// "cannot reach the attend daemon on the session bus (DBUS_SESSION_BUS_ADDRESS=…):
/// DETAIL", without a suggestion (`attend up` adds its own).
pub fn no_bus_message(detail: impl fmt::Display) -> String {
    format!(
        "cannot reach the attend daemon on the session bus (DBUS_SESSION_BUS_ADDRESS={}): \
         {detail}",
        bus_address()
    )
}

/// Maps a zbus failure to an exit code: named Attend1 errors to bad input or internal,
/// bus errors about a missing service to "unreachable".
pub fn classify(e: zbus::Error) -> CliError {
    match &e {
        zbus::Error::MethodError(name, msg, _) => {
            let name = name.as_str();
            let text = msg.clone().unwrap_or_else(|| name.to_string());
            match crate::client::error_name(&e) {
                Some("Internal") => CliError::new(EXIT_INTERNAL, text),
                // The remote pane's daemon cannot be reached (docs/remote.md).
                Some("HostOffline") => CliError::new(EXIT_UNREACHABLE, text),
                Some(_) => CliError::bad_input(text),
                None if name.starts_with("org.freedesktop.DBus.Error.ServiceUnknown")
                    || name.starts_with("org.freedesktop.DBus.Error.NameHasNoOwner")
                    || name.starts_with("org.freedesktop.DBus.Error.Spawn")
                    || name.starts_with("org.freedesktop.DBus.Error.NoReply")
                    || name.starts_with("org.freedesktop.DBus.Error.Timeout") =>
                {
                    unreachable(text)
                }
                None => CliError::new(EXIT_INTERNAL, format!("{name}: {text}")),
            }
        }
        zbus::Error::Address(_) | zbus::Error::InputOutput(_) | zbus::Error::Handshake(_) => {
            unreachable(&e)
        }
        _ => CliError::new(EXIT_INTERNAL, e.to_string()),
    }
}

/// Maps the failure of the typed call `method` (the proxy's Rust name, e.g.
/// `list_panes`): a reply of the wrong shape is "unexpected reply to ListPanes: …" (exit
/// 4), anything else as [`classify`] says.
pub fn reply_error(method: &str, e: zbus::Error) -> CliError {
    match e {
        zbus::Error::Variant(e) => CliError::new(
            EXIT_INTERNAL,
            format!("unexpected reply to {}: {e}", member_name(method)),
        ),
        e => classify(e),
    }
}

/// The D-Bus member name of a proxy method: `list_panes` → `ListPanes` (zbus's rule).
fn member_name(method: &str) -> String {
    method
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

/// One typed call of the daemon: `call!(c, get_pane(&pane))` awaits
/// `c.proxy.get_pane(&pane)` and maps its failure with [`reply_error`], so each method
/// keeps its exit code and message.
macro_rules! call {
    ($c:expr, $method:ident($($arg:expr),* $(,)?)) => {
        $c.proxy
            .$method($($arg),*)
            .await
            .map_err(|e| $crate::cli::client::reply_error(stringify!($method), e))
    };
}
pub(crate) use call;

/// A connection to the session bus (`DBUS_SESSION_BUS_ADDRESS`) and the daemon's typed
/// proxy on it.
#[derive(Clone)]
pub struct Client {
    pub conn: zbus::Connection,
    /// `io.github.attend.Attend1` (no property cache: the interface has no properties).
    pub proxy: Attend1Proxy<'static>,
}

impl Client {
    /// Connects to the session bus; exit 3 when that fails.
    pub async fn connect() -> Result<Client, CliError> {
        Client::connect_or(unreachable).await
    }

    /// [`Client::connect`], with `no_bus` making the error when there is no session bus.
    pub async fn connect_or(
        no_bus: impl FnOnce(zbus::Error) -> CliError,
    ) -> Result<Client, CliError> {
        let conn = zbus::Connection::session().await.map_err(no_bus)?;
        let proxy = Attend1Proxy::builder(&conn)
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await
            .map_err(classify)?;
        Ok(Client { conn, proxy })
    }

    /// Whether the daemon's name has an owner, asked of the bus itself (never a call of
    /// the daemon, which would start it by D-Bus activation). Errors: the bus does not
    /// answer (exit 3).
    pub async fn daemon_running(&self) -> Result<bool, CliError> {
        let dbus = zbus::fdo::DBusProxy::new(&self.conn)
            .await
            .map_err(classify)?;
        let name = zbus::names::BusName::try_from(BUS_NAME)
            .map_err(|e| CliError::new(EXIT_INTERNAL, e.to_string()))?;
        dbus.name_has_owner(name)
            .await
            .map_err(|e| classify(e.into()))
    }

    /// A stream of the daemon's `Event` signals as the bus routes them, at most
    /// `max_queued` waiting (zbus's default 64 when `None`; a full queue stalls every
    /// other message of the connection, replies included, until it is read); only those
    /// sent by the current owner of the daemon's name (the bus checks the sender, so
    /// another client cannot inject events, and a restarted daemon's come through);
    /// decode each with
    /// [`crate::client::Event::from_message`]. A message stream rather than the proxy's
    /// `receive_event()`, which skips errors: a bus failure arrives here as an error item.
    pub async fn event_messages(
        &self,
        max_queued: Option<usize>,
    ) -> Result<zbus::MessageStream, CliError> {
        self.signal_messages("Event", max_queued).await
    }

    /// A stream of the daemon's signal `member` (`Event`, `RemotesChanged`, …), on the
    /// terms of [`Client::event_messages`].
    pub async fn signal_messages(
        &self,
        member: &'static str,
        max_queued: Option<usize>,
    ) -> Result<zbus::MessageStream, CliError> {
        let daemon = self.proxy.inner();
        let rule = zbus::MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .sender(daemon.destination().clone())
            .and_then(|b| b.interface(daemon.interface().clone()))
            .and_then(|b| b.member(member))
            .and_then(|b| b.path(daemon.path().clone()))
            .map_err(|e| CliError::new(EXIT_INTERNAL, e.to_string()))?
            .build();
        zbus::MessageStream::for_match_rule(rule, &self.conn, max_queued)
            .await
            .map_err(classify)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zbus::names::OwnedErrorName;

    fn method_error(name: &str, msg: &str) -> zbus::Error {
        let reply = zbus::message::Message::method_call("/", "X")
            .unwrap()
            .build(&())
            .unwrap();
        zbus::Error::MethodError(
            OwnedErrorName::try_from(name).unwrap(),
            Some(msg.to_string()),
            reply,
        )
    }

    #[test]
    fn named_errors_map_to_documented_exit_codes() {
        let e = classify(method_error(
            "io.github.attend.Attend1.Error.NoSuchPane",
            "no such pane: p9",
        ));
        assert_eq!(e, CliError::bad_input("no such pane: p9"));
        let e = classify(method_error(
            "io.github.attend.Attend1.Error.Internal",
            "db",
        ));
        assert_eq!(e.code, EXIT_INTERNAL);
        let e = classify(method_error(
            "org.freedesktop.DBus.Error.ServiceUnknown",
            "not provided",
        ));
        assert_eq!(e.code, EXIT_UNREACHABLE);
        assert!(e.message.contains("DBUS_SESSION_BUS_ADDRESS"));
        assert!(e.message.ends_with("; start it with `attend up`"), "{e}");
    }

    #[test]
    fn a_reply_of_the_wrong_shape_names_the_member() {
        assert_eq!(member_name("list_panes"), "ListPanes");
        assert_eq!(member_name("set_task_state"), "SetTaskState");
        assert_eq!(member_name("version"), "Version");
        let e = reply_error(
            "get_pane",
            zbus::Error::Variant(zbus::zvariant::Error::Message("bad".into())),
        );
        assert_eq!(
            e,
            CliError::new(EXIT_INTERNAL, "unexpected reply to GetPane: bad")
        );
        let e = reply_error(
            "get_pane",
            method_error(
                "io.github.attend.Attend1.Error.NoSuchPane",
                "no such pane: x",
            ),
        );
        assert_eq!(e, CliError::bad_input("no such pane: x"));
    }
}
