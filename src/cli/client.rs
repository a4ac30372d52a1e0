//! The CLI's D-Bus client of `io.github.attend.Attend1`, and the mapping of its failures
//! to exit codes (documented in `docs/dbus-api.md` and `attend --help`).

use crate::config::{BUS_NAME, ERROR_PREFIX, INTERFACE, OBJECT_PATH};
use serde::de::DeserializeOwned;
use std::fmt;
use zbus::zvariant::{DynamicType, Type};

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
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

fn bus_address() -> String {
    std::env::var("DBUS_SESSION_BUS_ADDRESS").unwrap_or_else(|_| "(unset)".into())
}

fn unreachable(detail: impl fmt::Display) -> CliError {
    CliError::new(
        EXIT_UNREACHABLE,
        format!(
            "cannot reach the attend daemon on the session bus \
             (DBUS_SESSION_BUS_ADDRESS={}): {detail}; start it with `attend daemon`",
            bus_address()
        ),
    )
}

/// Maps a zbus failure to an exit code: named Attend1 errors to bad input or internal,
/// bus errors about a missing service to "unreachable".
pub fn classify(e: zbus::Error) -> CliError {
    match &e {
        zbus::Error::MethodError(name, msg, _) => {
            let name = name.as_str();
            let text = msg.clone().unwrap_or_else(|| name.to_string());
            match name.strip_prefix(ERROR_PREFIX) {
                Some("Internal") => CliError::new(EXIT_INTERNAL, text),
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

/// A connection to the session bus (`DBUS_SESSION_BUS_ADDRESS`).
#[derive(Clone)]
pub struct Client {
    pub conn: zbus::Connection,
}

impl Client {
    /// Connects to the session bus; exit 3 when that fails.
    pub async fn connect() -> Result<Client, CliError> {
        let conn = zbus::Connection::session().await.map_err(unreachable)?;
        Ok(Client { conn })
    }

    /// Calls `method` with `body` and decodes the reply as `R`.
    pub async fn call<B, R>(&self, method: &str, body: &B) -> Result<R, CliError>
    where
        B: serde::Serialize + DynamicType,
        R: DeserializeOwned + Type,
    {
        let msg = self
            .conn
            .call_method(Some(BUS_NAME), OBJECT_PATH, Some(INTERFACE), method, body)
            .await
            .map_err(classify)?;
        msg.body()
            .deserialize::<R>()
            .map_err(|e| CliError::new(EXIT_INTERNAL, format!("unexpected reply to {method}: {e}")))
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
    }
}
