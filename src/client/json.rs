//! The daemon's dictionaries as JSON (`docs/dbus-api.md#dictionaries`), for the CLI's
//! `--json` (`src/cli/render.rs`, `docs/cli.md`) and for remote events stamped into the
//! local log (`src/service/remotes/follow.rs`). Times (keys ending in `_at`) become RFC
//! 3339 strings. A pane is read from its wire struct ([`WirePane`]), walked key by key
//! as a D-Bus peer receives it.

use super::wire::{to_dict, WirePane};
use super::Dict;
use crate::model::Timestamp;
use serde_json::{json, Map, Value as Json};
use zbus::zvariant::Value;

/// Keys `attend show --json` always has (the `Pane` dictionary of
/// `docs/dbus-api.md#pane-getpane-listpanes`).
pub const PANE_KEYS: [&str; 21] = [
    "id",
    "name",
    "workspace",
    "tab",
    "agent",
    "lifecycle",
    "last_lifecycle",
    "attention",
    "live",
    "pending_decision",
    "last_message",
    "last_message_at",
    "last_seen_at",
    "attention_changed_at",
    "session_id",
    "resume_argv",
    "cwd",
    "title",
    "repo",
    "branch",
    "command",
];

/// A variant as JSON; `key` decides whether an integer is a time.
pub fn to_json(key: &str, v: &Value<'_>) -> Json {
    match v {
        Value::Bool(b) => json!(b),
        Value::U8(n) => json!(n),
        Value::I16(n) => json!(n),
        Value::U16(n) => json!(n),
        Value::I32(n) => json!(n),
        Value::U32(n) => json!(n),
        Value::I64(n) if key.ends_with("_at") => json!(Timestamp(*n).to_rfc3339()),
        Value::I64(n) => json!(n),
        Value::U64(n) => json!(n),
        Value::F64(n) => json!(n),
        Value::Str(s) => json!(s.as_str()),
        Value::Signature(s) => json!(s.to_string()),
        Value::ObjectPath(p) => json!(p.as_str()),
        Value::Value(inner) => to_json(key, inner),
        Value::Array(a) => Json::Array(a.inner().iter().map(|x| to_json(key, x)).collect()),
        Value::Dict(d) => {
            let mut m = Map::new();
            for (k, x) in d.iter() {
                let k = match k {
                    Value::Str(s) => s.to_string(),
                    other => other.to_string(),
                };
                let j = to_json(&k, x);
                m.insert(k, j);
            }
            Json::Object(m)
        }
        Value::Structure(s) => Json::Array(s.fields().iter().map(|x| to_json(key, x)).collect()),
        #[allow(unreachable_patterns)]
        other => json!(other.to_string()),
    }
}

/// A dictionary as a JSON object.
pub fn dict_json(d: &Dict) -> Map<String, Json> {
    d.iter().map(|(k, v)| (k.clone(), to_json(k, v))).collect()
}

/// A pane as `attend show --json` prints it: its dictionary's keys, every [`PANE_KEYS`]
/// key present (`null` when the daemon left it out), `live` with `state`, `code` and
/// `signal`.
pub fn pane_json(p: &WirePane) -> Json {
    let mut m = dict_json(&to_dict(p));
    for k in PANE_KEYS {
        m.entry(k).or_insert(Json::Null);
    }
    if let Some(Json::Object(live)) = m.get_mut("live") {
        live.entry("code").or_insert(Json::Null);
        live.entry("signal").or_insert(Json::Null);
    }
    Json::Object(m)
}
