//! `attend hook AGENT [EVENT]`: the compatible entry to the hook client, for hooks
//! installed before the `attend-hook` executable (docs/decisions/0004-hook-executable.md).
//! Same arguments, stdin, deadline, spool and exit code as `attend-hook`: both run
//! `attend_hook::run` (the client's steps are documented there, docs/adapters.md
//! "Delivery"). One thing differs, because this binary links the daemon's code:
//! the payload is checked by mapping it with the daemon's own adapter ([`check`]), so an
//! unknown agent, a payload that names no event or a session id that is too long is
//! refused here even while the daemon is down. The call itself is the hook crate's, over
//! libdbus, whatever transport the bus address names.

use crate::adapters::hooks::map_hook;
use crate::model::{AgentKind, Timestamp};
use attend_hook::client::{check_size, parse_args};
use attend_hook::Entry;
use std::ffi::OsString;

/// The `attend hook` entry: the adapter's check.
const ENTRY: Entry = Entry { check };

/// What the daemon would refuse, checked before anything is sent or spooled: a payload
/// over [`crate::config::MAX_PAYLOAD`], an unknown agent, or a payload the adapter cannot
/// map (malformed JSON with its line and column, not an object, no event, a session id
/// too long). The messages are the daemon's.
fn check(agent: &str, event: &str, payload: &str) -> Result<(), String> {
    check_size(payload)?;
    let kind = AgentKind::parse(agent)
        .ok_or_else(|| format!("unknown agent {agent:?} ({})", AgentKind::names(true)))?;
    let event_arg = (!event.is_empty()).then_some(event);
    map_hook(kind, event_arg, payload, Timestamp(0))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// `attend hook …` without clap (it runs before every agent tool call): `hook AGENT
/// [EVENT]` or `hook AGENT --notify [EVENT] PAYLOAD` (`--notify` anywhere after AGENT).
/// `None` for anything else (`--help`, other options, too many arguments), which clap
/// then parses and reports.
pub fn fast_path(args: &[OsString]) -> Option<i32> {
    let args: Vec<&str> = args.iter().map(|a| a.to_str()).collect::<Option<_>>()?;
    let [_, "hook", rest @ ..] = args.as_slice() else {
        return None;
    };
    Some(attend_hook::run(&ENTRY, parse_args(rest)?))
}

/// Runs the hook client for a clap-parsed `attend hook` (see [`fast_path`]); `pane_hooks`
/// is `--pane-hooks` (the entry of a pane Attend started, docs/adapters.md "Hooks for
/// panes Attend starts"). Always returns exit code 0.
pub fn run(
    agent: &str,
    event: Option<&str>,
    notify: bool,
    arg: Option<String>,
    pane_hooks: bool,
) -> i32 {
    let hook = attend_hook::Invocation {
        agent,
        event,
        notify_payload: notify.then(|| arg.as_deref().unwrap_or("")),
        pane_hooks,
    };
    attend_hook::run(&ENTRY, hook)
}

#[cfg(test)]
mod tests {
    use super::*;
    use attend_hook::context::hook_message;
    use attend_hook::Context;
    use std::collections::{BTreeMap, HashMap};
    use zbus::zvariant::serialized::{Context as Ctx, Data};
    use zbus::zvariant::{Endian, OwnedValue, Value};

    /// The `a{sv}` of the `Hook` call as zbus values (the same keys the hook client encodes
    /// itself: `pane`, `delivery_id`, `cwd`, `tty`, `monotonic`, `pids`, `terminal`).
    fn context_to_zbus(ctx: &Context) -> HashMap<&'static str, Value<'_>> {
        let mut c = HashMap::new();
        if let Some(p) = &ctx.pane {
            c.insert("pane", Value::from(p.as_str()));
        }
        c.insert("delivery_id", Value::from(ctx.delivery_id.as_str()));
        if let Some(cwd) = &ctx.cwd {
            c.insert("cwd", Value::from(cwd.as_str()));
        }
        if let Some(tty) = &ctx.tty {
            c.insert("tty", Value::from(tty.as_str()));
        }
        c.insert("monotonic", Value::from(ctx.monotonic));
        c.insert("pids", Value::from(ctx.pids.clone()));
        if !ctx.terminal.is_empty() {
            let terminal: HashMap<String, String> = ctx.terminal.clone().into_iter().collect();
            c.insert("terminal", Value::from(terminal));
        }
        c
    }

    #[test]
    fn bad_payloads_are_refused_with_the_daemons_words() {
        let err = check("claude", "", "{\"hook_event_name\": ").unwrap_err();
        assert!(
            err.starts_with("hook payload is not valid JSON (line 1, column "),
            "{err}"
        );
        let err = check("nobody", "", "{}").unwrap_err();
        assert!(err.starts_with("unknown agent \"nobody\""), "{err}");
        let big = format!("{{\"x\": \"{}\"}}", "y".repeat(crate::config::MAX_PAYLOAD));
        assert!(check("claude", "Stop", &big)
            .unwrap_err()
            .contains("the limit is 1048576"));
        assert!(check("claude", "", r#"{"hook_event_name":"Stop"}"#).is_ok());
    }

    #[test]
    fn only_plain_hook_invocations_take_the_fast_path() {
        let args = |a: &[&str]| -> Vec<OsString> { a.iter().map(OsString::from).collect() };
        // Not hooks, or options clap must handle: no fast path (nothing is run).
        assert_eq!(fast_path(&args(&["attend", "ls"])), None);
        assert_eq!(fast_path(&args(&["attend", "hook"])), None);
        assert_eq!(fast_path(&args(&["attend", "hook", "--help"])), None);
        assert_eq!(
            fast_path(&args(&["attend", "hook", "claude", "a", "b"])),
            None
        );
        assert_eq!(
            fast_path(&args(&[
                "attend", "hook", "codex", "--notify", "a", "b", "c"
            ])),
            None
        );
    }

    /// The hook client's `Hook` call as libdbus encodes it, read back by zbus: the same
    /// message the daemon's zbus connection parses.
    #[test]
    fn zbus_reads_the_hook_call_libdbus_encodes() {
        let mut ctx = Context::collect(vec![(4242, 987_654), (1, 7)]);
        ctx.pane = Some("p3".into());
        ctx.tty = Some("/dev/pts/4".into());
        ctx.terminal = BTreeMap::from([
            ("TMUX_PANE".to_string(), "%3".to_string()),
            ("KITTY_WINDOW_ID".to_string(), "12".to_string()),
        ]);
        let payload = "{\"hook_event_name\":\"Stop\",\"x\":\"é\\n\"}";
        let mut call = hook_message("claude", "Stop", payload, &ctx).unwrap();
        call.set_serial(2);
        let mut bytes = Vec::new();
        call.marshal(|b| {
            bytes.extend_from_slice(b);
            Ok::<(), ()>(())
        })
        .unwrap();
        // SAFETY: from_bytes checks the encoding as it parses.
        let msg = unsafe {
            zbus::Message::from_bytes(Data::new(bytes, Ctx::new_dbus(Endian::Little, 0)))
        }
        .unwrap();
        let header = msg.header();
        assert_eq!(header.path().unwrap().as_str(), "/io/github/attend/Attend1");
        assert_eq!(header.member().unwrap().as_str(), "Hook");
        assert_eq!(
            header.interface().unwrap().as_str(),
            "io.github.attend.Attend1"
        );
        assert_eq!(
            header.destination().unwrap().to_string(),
            "io.github.attend.Attend1"
        );
        assert_eq!(msg.primary_header().serial_num().get(), 2);
        let (agent, event, got_payload, context): (
            String,
            String,
            String,
            HashMap<String, OwnedValue>,
        ) = msg.body().deserialize().unwrap();
        assert_eq!((agent.as_str(), event.as_str()), ("claude", "Stop"));
        assert_eq!(got_payload, payload);
        let want = context_to_zbus(&ctx);
        assert_eq!(context.len(), want.len(), "{context:?}");
        for (key, value) in want {
            assert_eq!(
                Value::from(context[key].clone()),
                value,
                "context key {key}"
            );
        }
    }
}
