//! Typed D-Bus values of the `io.github.attend.Attend1` interface: panes, events and
//! workspace summaries as `a{sv}` dictionaries (documented in `docs/dbus-api.md`).
//!
//! A pane is one struct, [`WirePane`] ([`pane`]), that the daemon sends and every client
//! reads; events and workspace summaries are built key by key ([`DictBuilder`]).
//!
//! D-Bus has no null: a key whose value is absent is left out of the dictionary. Times
//! are `x` milliseconds since the Unix epoch (the engine's [`Timestamp`]). Vocabulary
//! values (lifecycle, attention, agent …) are the engine's lower-case wire names.

mod codec;
mod mirror;
pub mod pane;

pub use codec::{from_dict, to_dict, to_value};
pub use mirror::{mirrored, remote_pane};
pub use pane::{
    WireDecision, WireDiagnoses, WireHold, WireItem, WireLive, WireNeedsInput, WirePane, WireTask,
    WireTaxonomy,
};

use crate::engine::Summary;
use crate::model::{Event, EventKind, HostName, Resolution, Timestamp};
use std::collections::HashMap;
use zbus::zvariant::Value;

/// An `a{sv}` dictionary.
pub type Dict = HashMap<String, Value<'static>>;

/// Builds an [`Dict`] key by key; `None` values are left out.
#[derive(Default)]
pub struct DictBuilder(Dict);

impl DictBuilder {
    /// An empty dictionary.
    pub fn new() -> DictBuilder {
        DictBuilder::default()
    }

    /// Any value convertible to a variant.
    pub fn put(mut self, key: &str, value: impl Into<Value<'static>>) -> DictBuilder {
        self.0.insert(key.to_string(), value.into());
        self
    }

    /// A string (`s`).
    pub fn str(self, key: &str, value: &str) -> DictBuilder {
        self.put(key, value.to_string())
    }

    /// A string when present.
    pub fn opt_str(self, key: &str, value: Option<&str>) -> DictBuilder {
        match value {
            Some(v) => self.str(key, v),
            None => self,
        }
    }

    /// A time (`x`, ms since the epoch) when present.
    pub fn time(self, key: &str, value: Option<Timestamp>) -> DictBuilder {
        match value {
            Some(t) => self.put(key, t.0),
            None => self,
        }
    }

    /// A string list (`as`).
    pub fn strs(self, key: &str, value: &[String]) -> DictBuilder {
        self.put(key, value.to_vec())
    }

    /// A nested dictionary (`a{sv}`).
    pub fn dict(self, key: &str, value: Dict) -> DictBuilder {
        self.put(key, value)
    }

    /// The finished dictionary.
    pub fn build(self) -> Dict {
        self.0
    }
}

/// A workspace summary (`ListWorkspaces`). Keys: key, name, repo?, branch?, agents (as),
/// tabs (as), panes (as), worst_lifecycle, worst_attention, latest_message?,
/// latest_message_pane?, attention_changed_at? (x), since_attention_change_ms? (x).
/// Also a remote host's workspace (`Summary<PaneRef, String>`: ids `NAME:pN`).
pub fn workspace_dict<Id: std::fmt::Display, Agent: std::fmt::Display>(
    w: &Summary<Id, Agent>,
) -> Dict {
    let agents: Vec<String> = w.agents.iter().map(|a| a.to_string()).collect();
    let panes: Vec<String> = w.panes.iter().map(|p| p.to_string()).collect();
    let b = DictBuilder::new()
        .str("key", &w.key)
        .str("name", &w.name)
        .opt_str("repo", w.repo.as_deref())
        .opt_str("branch", w.branch.as_deref())
        .strs("agents", &agents)
        .strs("tabs", &w.tabs)
        .strs("panes", &panes)
        .str("worst_lifecycle", w.worst_lifecycle.as_str())
        .str("worst_attention", w.worst_attention.as_str())
        .opt_str("latest_message", w.latest_message.as_deref())
        .opt_str(
            "latest_message_pane",
            w.latest_message_pane
                .as_ref()
                .map(|p| p.to_string())
                .as_deref(),
        )
        .time("attention_changed_at", w.attention_changed_at);
    match w.since_attention_change_ms {
        Some(ms) => b.put("since_attention_change_ms", ms),
        None => b,
    }
    .build()
}

/// The data of one event (`Events`, the generic `Event` signal). Always: source (s,
/// `rung:origin`), at (x). Per kind: `agent.*` previous, value; `attention.created` level,
/// shown; `attention.cleared` levels (as), shown; `decision.opened` decision (a{sv});
/// `decision.resolved` id (t), how, choice?; `pane.exited` code?, signal? (i);
/// `pane.handover` previous_session?, session_id?; `task.*` task (t), state;
/// `rung.health` rung, from, to, reason.
pub fn event_data(e: &Event) -> Dict {
    let b = DictBuilder::new()
        .str("source", &e.source.to_string())
        .time("at", Some(e.at));
    match &e.kind {
        EventKind::Agent { previous, value } => b
            .str("previous", previous.as_str())
            .str("value", value.as_str()),
        EventKind::AttentionCreated { level, shown } => {
            b.str("level", level.as_str()).str("shown", shown.as_str())
        }
        EventKind::AttentionCleared { levels, shown } => {
            let levels: Vec<String> = levels.iter().map(|l| l.as_str().to_string()).collect();
            b.strs("levels", &levels).str("shown", shown.as_str())
        }
        EventKind::DecisionOpened { decision } => {
            b.put("decision", to_value(&WireDecision::of(decision)))
        }
        EventKind::DecisionResolved { id, resolution } => {
            let b = b.put("id", *id).str("how", resolution.as_str());
            match resolution {
                Resolution::Answered { choice } => b.str("choice", choice),
                _ => b,
            }
        }
        EventKind::PaneExited { code, signal } => {
            let b = match code {
                Some(c) => b.put("code", *c),
                None => b,
            };
            match signal {
                Some(s) => b.put("signal", *s),
                None => b,
            }
        }
        EventKind::PaneHandover {
            previous_session,
            session_id,
        } => b
            .opt_str("previous_session", previous_session.as_deref())
            .opt_str("session_id", session_id.as_deref()),
        EventKind::PaneAdded | EventKind::PaneRemoved | EventKind::PaneChanged => b,
        EventKind::Task { id, state } => b.put("task", *id).str("state", state.as_str()),
        EventKind::RungHealth {
            rung,
            from,
            to,
            reason,
        } => b
            .str("rung", rung.as_str())
            .str("from", from)
            .str("to", to)
            .str("reason", reason),
    }
    .build()
}

/// The data of a remote event stamped into the local log (`Events`, the generic `Event`
/// signal; `docs/dbus-api.md#events`): the remote's own data ([`json_dict`]) with `host`
/// (s, the `[remote.NAME]`) and `remote_seq` (t, its seq in that host's log) added.
/// `data` is the remote's data, `host` its name, `remote_seq` the seq there.
pub fn remote_event_data(data: &serde_json::Value, host: &HostName, remote_seq: u64) -> Dict {
    let mut d = match data {
        serde_json::Value::Object(m) => json_dict(m),
        _ => Dict::new(),
    };
    d.insert("host".into(), Value::from(host.as_str().to_string()));
    d.insert("remote_seq".into(), Value::from(remote_seq));
    d
}

/// A JSON object as an `a{sv}` dictionary, the inverse of the client's reading
/// ([`crate::client::json::dict_json`]) for what the daemon sends: strings `s` (an RFC
/// 3339 time under a key ending in `_at` becomes `x` ms again), integers `x` (`t` above
/// `i64::MAX`), other numbers `d`, booleans `b`, objects `a{sv}`, lists of strings `as`
/// and other lists `av`; nulls are left out.
pub fn json_dict(m: &serde_json::Map<String, serde_json::Value>) -> Dict {
    m.iter()
        .filter_map(|(k, v)| json_value(k, v).map(|v| (k.clone(), v)))
        .collect()
}

fn json_value(key: &str, v: &serde_json::Value) -> Option<Value<'static>> {
    use serde_json::Value as J;
    Some(match v {
        J::Null => return None,
        J::Bool(b) => Value::from(*b),
        J::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Value::from(i),
            (None, Some(u)) => Value::from(u),
            _ => Value::from(n.as_f64().unwrap_or(0.0)),
        },
        J::String(s) => match Timestamp::parse_rfc3339(s).filter(|_| key.ends_with("_at")) {
            Some(t) => Value::from(t.0),
            None => Value::from(s.clone()),
        },
        J::Object(m) => Value::from(json_dict(m)),
        J::Array(a) if a.iter().all(|x| x.is_string()) => {
            let strs: Vec<String> = a
                .iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect();
            Value::from(strs)
        }
        J::Array(a) => {
            let items: Vec<Value<'static>> = a
                .iter()
                .filter_map(|x| json_value(key, x))
                .map(|x| Value::Value(Box::new(x)))
                .collect();
            Value::from(items)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Attention, PaneId, Source};

    #[test]
    fn event_data_carries_kind_fields() {
        let e = Event {
            seq: 9,
            pane: PaneId(1),
            kind: EventKind::AttentionCleared {
                levels: vec![Attention::Unread],
                shown: Attention::None,
            },
            source: Source::user(),
            at: Timestamp(7),
        };
        let d = event_data(&e);
        assert_eq!(d["source"], Value::from("user:user"));
        assert_eq!(d["shown"], Value::from("none"));
        assert_eq!(d["at"], Value::from(7i64));
    }

    #[test]
    fn a_remote_events_data_reads_back_as_the_remote_sent_it_plus_host_and_remote_seq() {
        let dict_json = |d: &Dict| {
            let owned: crate::client::Dict = d
                .iter()
                .map(|(k, v)| {
                    let v = zbus::zvariant::OwnedValue::try_from(v.try_clone().unwrap());
                    (k.clone(), v.unwrap())
                })
                .collect();
            crate::client::json::dict_json(&owned)
        };
        let sent = DictBuilder::new()
            .str("source", "hook:claude.Stop")
            .time("at", Some(Timestamp(1_800_000_000_123)))
            .strs("levels", &["unread".to_string()])
            .dict(
                "decision",
                DictBuilder::new()
                    .put("id", 4u64)
                    .time("opened_at", Some(Timestamp(1_800_000_000_000)))
                    .put("ok", true)
                    .build(),
            )
            .build();
        let json = serde_json::Value::Object(dict_json(&sent));
        let host = HostName::parse("box").unwrap();
        let d = remote_event_data(&json, &host, 7);
        let mut want = sent.clone();
        want.insert("host".into(), Value::from("box"));
        want.insert("remote_seq".into(), Value::from(7u64));
        assert_eq!(
            dict_json(&d),
            dict_json(&want),
            "the same data once read, times and nested dictionaries included"
        );
        assert_eq!(
            d["at"],
            Value::from(1_800_000_000_123i64),
            "a time is x again"
        );
        let Value::Dict(decision) = &d["decision"] else {
            panic!("{d:?}");
        };
        let opened: Option<i64> = decision.get::<&str, i64>(&"opened_at").unwrap();
        assert_eq!(opened, Some(1_800_000_000_000));
        let odd = serde_json::json!({"n": null, "mixed": [1, "a"], "big": u64::MAX, "f": 0.5});
        let d = json_dict(odd.as_object().unwrap());
        assert!(!d.contains_key("n"), "a null is left out");
        assert_eq!(d["big"], Value::from(u64::MAX));
        assert_eq!(d["f"], Value::from(0.5));
        assert_eq!(d["mixed"].value_signature().to_string(), "av");
    }
}
