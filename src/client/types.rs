//! The dictionary and tuple shapes the daemon's D-Bus members return.

use std::collections::HashMap;
use zbus::zvariant::OwnedValue;

/// An `a{sv}` dictionary of the daemon (pane, workspace summary, decision, event data,
/// explanation): keys and value types in `docs/dbus-api.md` "Dictionaries". A key whose
/// value is absent is left out (D-Bus has no null); times are `x`, milliseconds since the
/// Unix epoch.
pub type Dict = HashMap<String, OwnedValue>;

/// One entry of `Events`: `(seq, kind, pane, data)`, the same fields as the `Event` signal
/// (`kind` e.g. `agent.working`, `pane` e.g. `p3`, `data` the event data dictionary).
pub type EventTuple = (u64, String, String, Dict);
