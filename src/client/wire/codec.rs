//! The wire structs ([`super::pane`]) and the untyped dictionaries ([`crate::client::Dict`])
//! of the same bytes: a struct encoded as D-Bus (`a{sv}`, little endian) and read back as
//! the other. For the readers that walk a dictionary key by key (the CLI's `--json`,
//! event data that nests a decision) and for a list read one entry at a time.

use crate::client::types::Dict;
use serde::{de::DeserializeOwned, Serialize};
use zbus::zvariant::{serialized::Context, to_bytes, Type, Value, LE};

/// `v` as the dictionary a D-Bus peer receives (the same keys, types and nesting).
/// Infallible for the wire structs (their values are all encodable); an encoding failure
/// gives an empty dictionary.
pub fn to_dict<T: Serialize + Type>(v: &T) -> Dict {
    let ctxt = Context::new_dbus(LE, 0);
    to_bytes(ctxt, v)
        .and_then(|data| data.deserialize::<Dict>().map(|(d, _)| d))
        .unwrap_or_default()
}

/// `v` as a variant value (`a{sv}`), to nest in a dictionary built key by key.
pub fn to_value<T: Serialize + Type>(v: &T) -> Value<'static> {
    let d: std::collections::HashMap<String, Value<'static>> = to_dict(v)
        .into_iter()
        .map(|(k, v)| (k, Value::from(v)))
        .collect();
    Value::from(d)
}

/// A wire struct from a dictionary as received. Errors: a key of a non-optional field
/// missing, or a value of the wrong type (zvariant's message).
pub fn from_dict<T: DeserializeOwned + Type>(d: &Dict) -> Result<T, String> {
    let ctxt = Context::new_dbus(LE, 0);
    to_bytes(ctxt, d)
        .and_then(|data| data.deserialize::<T>().map(|(t, _)| t))
        .map_err(|e| e.to_string())
}
