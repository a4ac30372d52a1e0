//! The delivery context of one hook (the `Hook` method's `a{sv}`, docs/dbus-api.md):
//! collected from this process, encoded for the call, and as JSON for a spool record.

use crate::bus::{daemon_call, sendable, CallError};
use crate::names::{PANE_ENV, TERMINAL_ENV};
use dbus::arg::{Arg, IterAppend, Variant};
use dbus::Message;
use std::collections::BTreeMap;

/// The delivery context, collected by the client.
#[derive(Debug, Clone, PartialEq)]
pub struct Context {
    /// `ATTEND_PANE`, when set and not empty.
    pub pane: Option<String>,
    /// A fresh random (version 4) UUID, made before the first attempt.
    pub delivery_id: String,
    /// The working directory, when it is UTF-8.
    pub cwd: Option<String>,
    /// stdin's terminal (`/dev/pts/N`), when it is one.
    pub tty: Option<String>,
    /// CLOCK_MONOTONIC in ns (orders hooks that race).
    pub monotonic: u64,
    /// Ancestors (pid, start time in clock ticks since boot), parent first, ≤ 32.
    pub pids: Vec<(u32, u64)>,
    /// Where the agent's terminal can show it: the set ones of [`TERMINAL_ENV`] (`TMUX`,
    /// `TMUX_PANE`, `KITTY_WINDOW_ID`, …).
    pub terminal: BTreeMap<String, String>,
}

impl Context {
    /// Collects the context of this process with the ancestors read earlier.
    pub fn collect(pids: Vec<(u32, u64)>) -> Context {
        Context {
            pane: std::env::var(PANE_ENV).ok().filter(|p| !p.is_empty()),
            delivery_id: uuid_v4(),
            cwd: std::env::current_dir()
                .ok()
                .and_then(|p| p.to_str().map(str::to_string)),
            tty: std::fs::read_link("/proc/self/fd/0")
                .ok()
                .and_then(|p| p.to_str().map(str::to_string))
                .filter(|p| p.starts_with("/dev/pts/") || p.starts_with("/dev/tty")),
            monotonic: monotonic_ns(),
            pids,
            terminal: TERMINAL_ENV
                .iter()
                .filter_map(|k| Some((k.to_string(), std::env::var(k).ok()?)))
                .collect(),
        }
    }

    /// Appends the `a{sv}` of the `Hook` call: `pane`, `delivery_id`, `cwd`, `tty` (when
    /// known), `monotonic` (t), `pids` (a(ut)), `terminal` (a{ss}, when any is set).
    ///
    /// Errors: [`CallError::Unreachable`] for a string with a NUL byte (nothing is sent).
    pub fn append_dbus(&self, msg: &mut Message) -> Result<(), CallError> {
        let id = Some(self.delivery_id.clone());
        let mut texts = Vec::with_capacity(4);
        for (key, value) in [
            ("pane", &self.pane),
            ("delivery_id", &id),
            ("cwd", &self.cwd),
            ("tty", &self.tty),
        ] {
            if let Some(v) = value {
                texts.push((key, sendable(v)?));
            }
        }
        for (k, v) in &self.terminal {
            sendable(k)?;
            sendable(v)?;
        }
        let mut i = IterAppend::new(msg);
        let (key_sig, value_sig) = (
            <&str as Arg>::signature(),
            <Variant<u8> as Arg>::signature(),
        );
        i.append_dict(&key_sig, &value_sig, |i| {
            for (key, value) in texts {
                i.append_dict_entry(|i| {
                    i.append(key);
                    i.append(Variant(value));
                });
            }
            i.append_dict_entry(|i| {
                i.append("monotonic");
                i.append(Variant(self.monotonic));
            });
            i.append_dict_entry(|i| {
                i.append("pids");
                i.append(Variant(&self.pids));
            });
            if !self.terminal.is_empty() {
                i.append_dict_entry(|i| {
                    i.append("terminal");
                    i.append(Variant(&self.terminal));
                });
            }
        });
        Ok(())
    }

    /// The same keys as JSON, for a spool record (`pids` as `[[pid, start], …]`; the
    /// delivery id is the record's own field).
    pub fn to_json(&self) -> BTreeMap<String, serde_json::Value> {
        let mut c = BTreeMap::new();
        if let Some(p) = &self.pane {
            c.insert("pane".into(), p.as_str().into());
        }
        if let Some(cwd) = &self.cwd {
            c.insert("cwd".into(), cwd.as_str().into());
        }
        if let Some(tty) = &self.tty {
            c.insert("tty".into(), tty.as_str().into());
        }
        c.insert("monotonic".into(), self.monotonic.into());
        c.insert("pids".into(), serde_json::json!(self.pids));
        if !self.terminal.is_empty() {
            c.insert("terminal".into(), serde_json::json!(self.terminal));
        }
        c
    }
}

/// The `Hook(s agent, s event, s payload, a{sv} context)` call to the daemon.
///
/// Errors: [`CallError::Unreachable`] for a string with a NUL byte (nothing is sent).
pub fn hook_message(
    agent: &str,
    event: &str,
    payload: &str,
    ctx: &Context,
) -> Result<Message, CallError> {
    let mut msg =
        daemon_call("Hook")?.append3(sendable(agent)?, sendable(event)?, sendable(payload)?);
    ctx.append_dbus(&mut msg)?;
    Ok(msg)
}

/// CLOCK_MONOTONIC in ns (0 when the clock cannot be read).
fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the valid pointer we pass.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// A random (version 4, RFC 9562) UUID in its 36-character text form, from the kernel's
/// `getrandom`; should that fail, from the clock and the pid (still unique per call).
pub fn uuid_v4() -> String {
    let mut b = [0u8; 16];
    // SAFETY: getrandom writes at most b.len() bytes into the valid buffer we pass.
    let got = unsafe { libc::getrandom(b.as_mut_ptr().cast(), b.len(), 0) };
    if got != b.len() as isize {
        let seed = (monotonic_ns() as u128) << 32 | u128::from(std::process::id());
        b = seed.to_le_bytes();
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::procstat::ancestors;

    #[test]
    fn context_has_a_fresh_delivery_id_and_our_parent() {
        let a = Context::collect(ancestors());
        let b = Context::collect(Vec::new());
        assert_ne!(a.delivery_id, b.delivery_id);
        let parent = std::os::unix::process::parent_id();
        assert_eq!(a.pids.first().map(|p| p.0), Some(parent));
        assert!(a.monotonic > 0);
        let json = a.to_json();
        assert_eq!(json["pids"][0][0], serde_json::json!(parent));
        assert!(!json.contains_key("delivery_id"), "a field of the record");
    }

    #[test]
    fn uuids_are_version_4_text() {
        let id = uuid_v4();
        assert_eq!(id.len(), 36);
        let dashes: Vec<usize> = id.match_indices('-').map(|(i, _)| i).collect();
        assert_eq!(dashes, vec![8, 13, 18, 23]);
        assert_eq!(&id[14..15], "4");
        assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"), "{id}");
        assert_ne!(id, uuid_v4());
    }
}
