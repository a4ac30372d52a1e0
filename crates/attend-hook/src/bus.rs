//! One blocking D-Bus method call to the daemon over libdbus (the `dbus` crate, the
//! library `dbus-send` uses): the hot path of every agent tool call.
//!
//! The address is Attend's rule ([`crate::address::resolve`]: the variable, the standard
//! socket, then the private bus `attend up` recorded), which libdbus does not know in
//! full; libdbus opens it (every transport it speaks, each entry of a `;` list in turn),
//! authenticates and carries the messages. The bus's `Hello` is queued before the call
//! rather than awaited on its own, so both go out together once the handshake is done, and
//! the whole exchange, handshake included, is bounded by the caller's deadline (libdbus's
//! own `Hello` helper would wait up to its 25 s default, and its blocking call waits for
//! the handshake without a bound).

use crate::names::{BUS_NAME, INTERFACE, OBJECT_PATH};
use dbus::channel::Channel;
use dbus::Message;
use std::time::{Duration, Instant};

/// Why the call did not return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// No bus, a refused authentication, a broken connection, or a message that could not
    /// be made.
    Unreachable(String),
    /// The deadline passed before the answer came.
    Timeout,
    /// The call was answered with a D-Bus error (`name`, its message).
    Failed { name: String, message: String },
}

/// A method call of the daemon's interface ([`INTERFACE`] at [`OBJECT_PATH`] on
/// [`BUS_NAME`]), without arguments yet.
pub fn daemon_call(member: &str) -> Result<Message, CallError> {
    Message::new_method_call(BUS_NAME, OBJECT_PATH, INTERFACE, member)
        .map_err(CallError::Unreachable)
}

/// `Err` when `text` holds a NUL byte, which a D-Bus string cannot carry (libdbus would
/// cut the string there).
pub fn sendable(text: &str) -> Result<&str, CallError> {
    if text.as_bytes().contains(&0) {
        return Err(CallError::Unreachable(
            "a string with a NUL byte cannot be sent over D-Bus".into(),
        ));
    }
    Ok(text)
}

/// The time left until `deadline`, at least 1 ms (libdbus counts in whole milliseconds),
/// or [`CallError::Timeout`].
fn left(deadline: Instant) -> Result<Duration, CallError> {
    let now = Instant::now();
    if now >= deadline {
        return Err(CallError::Timeout);
    }
    Ok((deadline - now).max(Duration::from_millis(1)))
}

/// Sends `msg` on a private connection to the session bus and returns the method return,
/// all before `deadline`.
///
/// Errors: [`CallError::Unreachable`] (no bus, refused authentication, a broken
/// connection), [`CallError::Timeout`] (the call may still be applied later: the caller's
/// delivery id makes a second delivery harmless), [`CallError::Failed`] with the D-Bus
/// error (e.g. `ServiceUnknown` when no daemon owns the name).
pub fn call(msg: Message, deadline: Instant) -> Result<Message, CallError> {
    let resolved = crate::address::resolve();
    let address = std::str::from_utf8(&resolved.address)
        .ok()
        .filter(|a| !a.contains('\0'))
        .ok_or_else(|| {
            CallError::Unreachable("the session bus address is not valid text".into())
        })?;
    left(deadline)?;
    // libdbus reports its failures as values; a panic in the bindings (they panic where
    // libdbus runs out of memory) must not make the hook fail the agent either.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        exchange(address, msg, deadline)
    }))
    .unwrap_or_else(|_| Err(CallError::Unreachable("the D-Bus library failed".into())))
}

/// [`call`] on the bus at `address`. libdbus's own blocking call does not bound the
/// handshake (it waits for the bus's `OK` without a timeout), so this drives the
/// connection itself, one bounded read/write at a time, until the answer comes.
fn exchange(address: &str, msg: Message, deadline: Instant) -> Result<Message, CallError> {
    let channel = Channel::open_private(address).map_err(|e| {
        CallError::Unreachable(format!(
            "cannot connect to the session bus: {}",
            e.message().unwrap_or("no reason given")
        ))
    })?;
    let hello = Message::new_method_call(
        "org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus",
        "Hello",
    )
    .map_err(CallError::Unreachable)?;
    let queued = |m| {
        channel
            .send(m)
            .map_err(|()| CallError::Unreachable("cannot queue a message for the bus".into()))
    };
    let hello_serial = queued(hello)?;
    let serial = queued(msg)?;
    let mut connected = true;
    loop {
        while let Some(mut answer) = channel.pop_message() {
            let to = answer.get_reply_serial();
            if to != Some(serial) && to != Some(hello_serial) {
                continue; // NameAcquired, …
            }
            match answer.as_result() {
                Err(e) if to == Some(hello_serial) => {
                    return Err(CallError::Unreachable(format!(
                        "the bus refused Hello: {}",
                        e.message().unwrap_or_default()
                    )))
                }
                Err(e) => return Err(failure(&e)),
                Ok(_) if to == Some(serial) => return Ok(answer),
                Ok(_) => {} // Hello's answer: the unique name.
            }
        }
        if !connected {
            return Err(CallError::Unreachable(
                "the session bus closed the connection".into(),
            ));
        }
        // After a hang-up, the messages read before it are still looked at once.
        connected = channel.read_write(Some(left(deadline)?)).is_ok();
    }
}

/// The [`CallError`] of an error reply: its name and message.
fn failure(e: &dbus::Error) -> CallError {
    CallError::Failed {
        name: e.name().unwrap_or_default().to_string(),
        message: e.message().unwrap_or_default().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_with_nul_are_not_sent_and_a_past_deadline_is_a_timeout() {
        assert!(sendable("a\0b").is_err());
        assert_eq!(sendable("ab"), Ok("ab"));
        assert_eq!(left(Instant::now()), Err(CallError::Timeout));
        let call = daemon_call("Hook").unwrap();
        assert_eq!(call.member().as_deref(), Some("Hook"));
    }
}
