//! Which hook event a call is: the EVENT argument of the hook command line when the entry
//! gives one, else the payload's `hook_event_name`.

/// True when the hook call is event `name`: `event` (the EVENT argument) when not empty,
/// else the payload's `hook_event_name`. The payload is parsed only when it contains
/// `name` at all (most calls pay a substring search, not a JSON parse).
pub fn names_event(event: &str, payload: &str, name: &str) -> bool {
    if !event.is_empty() {
        return event == name;
    }
    payload.contains(name)
        && serde_json::from_str::<serde_json::Value>(payload)
            .ok()
            .and_then(|v| v.get("hook_event_name")?.as_str().map(|e| e == name))
            .unwrap_or(false)
}
