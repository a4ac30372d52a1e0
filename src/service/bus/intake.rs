//! One hook delivery → a [`HookRequest`] for the owner: the checks and the mapping that a
//! live `Hook` D-Bus call (src/service/bus/interface.rs) and a spooled one (src/service/store/replay.rs)
//! share (`docs/adapters.md#the-hook-wire`, `docs/adapters.md#which-pane`; bad input:
//! `docs/dbus-api.md#errors`).

use crate::adapters::hooks::map_hook;
use crate::model::{AgentKind, PaneId, Timestamp};
use crate::service::bus::error::Attend1Error;
use crate::service::command::HookRequest;
use crate::service::processes::procfs::Proc;
use zbus::zvariant::Value;

/// Largest hook payload accepted (1 MiB, shared with the hook client); larger ones fail
/// with `PayloadTooLarge` and nothing is stored (`docs/dbus-api.md#errors`).
pub use crate::config::MAX_PAYLOAD;

/// The parts of a hook's context (the `a{sv}` of `Hook`, or a spool record's `context`)
/// the daemon uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookContext {
    /// `pane`: the hook's `ATTEND_PANE` (checked by the owner before it is believed).
    pub pane: Option<String>,
    /// `delivery_id`: made by the client before its first attempt (exactly-once key).
    pub delivery_id: Option<String>,
    /// `cwd`: the hook process's working directory.
    pub cwd: Option<String>,
    /// `pids` (`a(ut)`): the hook's ancestors, nearest first, with their start times
    /// (clock ticks since boot).
    pub pids: Vec<Proc>,
}

/// Reads `pids` (`a(ut)`) from a context value. Errors: `InvalidArgument` for any other
/// shape.
pub fn pids_from_value(value: &Value<'_>) -> Result<Vec<Proc>, Attend1Error> {
    let bad = || Attend1Error::InvalidArgument("pids must be an array of (ut)".into());
    let Value::Array(items) = value else {
        return Err(bad());
    };
    items
        .inner()
        .iter()
        .map(|item| match item {
            Value::Structure(s) => match s.fields() {
                [Value::U32(pid), Value::U64(start)] => Ok((*pid, *start)),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        })
        .collect()
}

/// Reads `pids` from a spool record's JSON context (`[[pid, start], …]`); entries of any
/// other shape are skipped.
pub fn pids_from_json(value: Option<&serde_json::Value>) -> Vec<Proc> {
    let Some(items) = value.and_then(|v| v.as_array()) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let pair = item.as_array()?;
            let pid = u32::try_from(pair.first()?.as_u64()?).ok()?;
            let start = pair.get(1)?.as_u64()?;
            Some((pid, start))
        })
        .collect()
}

/// Checks and maps one hook call received at `at` (a spooled one: its arrival time).
///
/// - payload over [`MAX_PAYLOAD`] → `PayloadTooLarge`; unknown agent, malformed JSON, no
///   event → `InvalidArgument` (nothing is stored);
/// - a `pane` that is not a pane id is ignored with a warning in the log: the hook is
///   treated as coming from outside Attend (an external pane keyed by agent and session).
///
/// No I/O: a new external pane's workspace is looked up by the owner, once.
pub fn hook_request(
    agent: &str,
    event: &str,
    payload: &str,
    context: HookContext,
    at: Timestamp,
) -> Result<HookRequest, Attend1Error> {
    if payload.len() > MAX_PAYLOAD {
        return Err(Attend1Error::PayloadTooLarge(format!(
            "hook payload is {} bytes; the limit is {MAX_PAYLOAD}",
            payload.len()
        )));
    }
    let kind = AgentKind::parse(agent).ok_or_else(|| {
        Attend1Error::InvalidArgument(format!(
            "unknown agent {agent:?} ({})",
            AgentKind::names(true)
        ))
    })?;
    let pane = match context.pane.as_deref().filter(|p| !p.is_empty()) {
        Some(p) => {
            let id = PaneId::parse(p);
            if id.is_none() {
                tracing::warn!(
                    pane = p,
                    agent,
                    "a hook names a pane that is not a pane id (ATTEND_PANE); \
                     treating it as an external pane"
                );
            }
            id
        }
        None => None,
    };
    let event_arg = (!event.is_empty()).then_some(event);
    let mapping = map_hook(kind, event_arg, payload, at)
        .map_err(|e| Attend1Error::InvalidArgument(e.to_string()))?;
    Ok(HookRequest {
        mapping,
        pane,
        delivery_id: context.delivery_id.filter(|d| !d.is_empty()),
        cwd: context.cwd,
        pids: context.pids,
        terminal: None,
        workspace: None,
    })
}

/// How many distinct hook refusals [`Refusals`] remembers; past that, every refusal is
/// logged at debug level only.
pub const REFUSALS_KEPT: usize = 256;

/// The hook calls the daemon refused (`InvalidArgument`, `PayloadTooLarge`: the hook
/// client exits 0 and prints the reason on a stderr its agent may swallow), written to the
/// daemon's log: the first refusal of each (agent, event, reason) as a warning, later
/// ones at debug level, so a newer agent that renamed its payload's fields leaves one line
/// per kind of hook rather than none or one per call (`docs/dbus-api.md#errors`).
#[derive(Debug, Default)]
pub struct Refusals(std::sync::Mutex<std::collections::HashSet<(String, String, String)>>);

impl Refusals {
    /// Logs the refusal of a hook of `agent` (`event` as the hook's command line named it,
    /// empty when only its payload names it) with `error`. Returns true when it was
    /// written as a warning (the first of its kind).
    pub fn note(&self, agent: &str, event: &str, error: &Attend1Error) -> bool {
        let reason = error.to_string();
        let key = (agent.to_string(), event.to_string(), reason.clone());
        let first = {
            let mut seen = self.0.lock().unwrap_or_else(|e| e.into_inner());
            seen.len() < REFUSALS_KEPT && seen.insert(key)
        };
        if first {
            tracing::warn!(
                agent,
                event,
                "a hook was refused and nothing was stored ({reason}); later refusals like \
                 it are logged at debug level"
            );
        } else {
            tracing::debug!(agent, event, "a hook was refused ({reason})");
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zbus::zvariant::Value;

    #[test]
    fn pids_come_from_a_ut_arrays_and_json_pairs() {
        let v = Value::from(vec![(10u32, 100u64), (20, 200)]);
        assert_eq!(pids_from_value(&v).unwrap(), vec![(10, 100), (20, 200)]);
        assert!(pids_from_value(&Value::from("x")).is_err());
        let j = serde_json::json!([[10, 100], [20, 200], "junk", [-1, 3]]);
        assert_eq!(pids_from_json(Some(&j)), vec![(10, 100), (20, 200)]);
        assert!(pids_from_json(None).is_empty());
    }

    #[test]
    fn a_garbage_pane_is_ignored_and_bad_input_refused() {
        let stop = r#"{"session_id":"s","hook_event_name":"Stop","last_assistant_message":"x"}"#;
        let ctx = HookContext {
            pane: Some("not-a-pane".into()),
            ..HookContext::default()
        };
        let req = hook_request("claude", "", stop, ctx, Timestamp(5)).unwrap();
        assert_eq!(req.pane, None);
        assert_eq!(req.mapping.signal.at, Timestamp(5));
        let ctx = HookContext {
            pane: Some("p3".into()),
            ..HookContext::default()
        };
        let req = hook_request("claude", "", stop, ctx.clone(), Timestamp(5)).unwrap();
        assert_eq!(req.pane, Some(PaneId(3)));
        let err = hook_request("claude", "", "{not json", ctx.clone(), Timestamp(5)).unwrap_err();
        assert!(matches!(err, Attend1Error::InvalidArgument(m) if m.contains("not valid JSON")));
        let err = hook_request("nope", "", stop, ctx, Timestamp(5)).unwrap_err();
        let refusals = Refusals::default();
        assert!(refusals.note("nope", "", &err), "the first of its kind");
        assert!(!refusals.note("nope", "", &err), "the same again");
        assert!(refusals.note("nope", "Stop", &err), "another event");
        assert!(matches!(err, Attend1Error::InvalidArgument(m) if m.contains("unknown agent")));
    }
}
