//! Answering the permission gate of an agent Attend does not own (an external pane: the
//! agent runs in the user's own terminal): the hook run of Claude Code's
//! `PermissionRequest` waits, bounded, for a choice made in Attend and prints it as the
//! hook's decision (docs/adapters.md "Answering gates of external agents";
//! docs/decisions/0015-answering-external-gates.md).
//!
//! Which runs wait ([`waits`]), the choice → behavior mapping ([`behavior_of`]), the
//! hook's output ([`decision_json`]) and the `AwaitGate` message ([`await_message`]).
//! Sending it is [`crate::client`]'s.

use crate::bus::{daemon_call, sendable, CallError};
use dbus::Message;
use std::time::Duration;

/// The D-Bus method the hook calls after its `Hook` call: `AwaitGate(s delivery, u32
/// timeout_ms) → s behavior` (docs/dbus-api.md).
pub const AWAIT_GATE: &str = "AwaitGate";

/// How long the hook run waits for a choice made in Attend: below the `timeout` of the
/// installed `PermissionRequest` entry ([`ENTRY_TIMEOUT_S`]), so that Claude Code never
/// has to kill it. Claude Code shows its own dialog while the hook runs, and an answer
/// typed there wins at once (measured, docs/adapters.md): the wait never holds a person
/// at the terminal.
pub const WAIT: Duration = Duration::from_secs(280);

/// The `timeout` (seconds) `attend install-hooks claude` writes on the
/// `PermissionRequest` entry: [`WAIT`] plus room for the `Hook` call and start-up.
pub const ENTRY_TIMEOUT_S: u64 = 300;

/// The environment variable that turns the wait off for the agents it is set for:
/// `ATTEND_GATE_WAIT=0` (or `no`, `false`, `off`) — the hook is delivered, the run never
/// waits, and only the agent's own dialog answers (docs/adapters.md "Answering gates of
/// external agents"). Scripts that replay `PermissionRequest` payloads set it.
pub const WAIT_ENV: &str = "ATTEND_GATE_WAIT";

/// False when [`WAIT_ENV`]'s `value` turns the wait off (`0`, `no`, `false`, `off`, any
/// case); true when unset or anything else.
pub fn wait_enabled(value: Option<&str>) -> bool {
    let off = value.map(|v| v.trim().to_ascii_lowercase());
    !matches!(off.as_deref(), Some("0" | "no" | "false" | "off"))
}

/// The message a denial gives the agent (Claude Code shows it and tells the model).
pub const DENY_MESSAGE: &str = "Denied in Attend";

/// True when this hook run waits for a choice made in Attend: Claude Code's
/// `PermissionRequest` (the EVENT argument, else the payload's `hook_event_name`) from a
/// globally installed entry. A pane's own entry (`pane_hooks`) never waits: Attend runs
/// that agent and types its answers into the pane.
pub fn waits(agent: &str, event: &str, payload: &str, pane_hooks: bool) -> bool {
    const EVENT: &str = "PermissionRequest";
    agent == "claude" && !pane_hooks && crate::event::names_event(event, payload, EVENT)
}

/// The behavior (`"allow"` or `"deny"`) a choice made in Attend gives the hook; the
/// choice is matched case-insensitively, surrounding blanks ignored. `None` for any other
/// choice (the daemon refuses it, listing [`CHOICES`]).
pub fn behavior_of(choice: &str) -> Option<&'static str> {
    let c = choice.trim();
    CHOICES.into_iter().find(|b| b.eq_ignore_ascii_case(c))
}

/// The choices an external gate takes (the decision's own `choices`).
pub const CHOICES: [&str; 2] = ["allow", "deny"];

/// What the hook prints for `behavior`: Claude Code's `PermissionRequest` output,
/// `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":
/// "allow"}}}`, a denial with `"message"`: [`DENY_MESSAGE`]. `None` for `""` (no choice
/// was made in Attend: the hook prints nothing and the agent's own dialog decides) and for
/// anything else.
pub fn decision_json(behavior: &str) -> Option<String> {
    let decision = match behavior {
        "allow" => serde_json::json!({"behavior": "allow"}),
        "deny" => serde_json::json!({"behavior": "deny", "message": DENY_MESSAGE}),
        _ => return None,
    };
    let out = serde_json::json!({"hookSpecificOutput": {
        "hookEventName": "PermissionRequest",
        "decision": decision,
    }});
    Some(out.to_string())
}

/// The `AwaitGate(s delivery, u32 timeout_ms)` call that waits up to `wait`.
///
/// Errors: [`CallError::Unreachable`] for a delivery id with a NUL byte.
pub fn await_message(delivery: &str, wait: Duration) -> Result<Message, CallError> {
    let timeout_ms = wait.as_millis().min(u32::MAX as u128) as u32;
    Ok(daemon_call(AWAIT_GATE)?.append2(sendable(delivery)?, timeout_ms))
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_environment_can_turn_the_wait_off() {
        assert!(wait_enabled(None));
        assert!(wait_enabled(Some("1")));
        for off in ["0", "no", " OFF ", "false"] {
            assert!(!wait_enabled(Some(off)), "{off}");
        }
    }

    use super::*;

    #[test]
    fn only_claudes_permission_request_from_a_global_entry_waits() {
        let payload = r#"{"hook_event_name":"PermissionRequest","session_id":"s"}"#;
        assert!(waits("claude", "", payload, false));
        assert!(waits("claude", "PermissionRequest", "{}", false));
        assert!(!waits("claude", "", payload, true), "a pane's own entry");
        assert!(!waits("codex", "", payload, false));
        assert!(!waits("claude", "PreToolUse", payload, false));
        let other = r#"{"hook_event_name":"PreToolUse","x":"PermissionRequest"}"#;
        assert!(!waits("claude", "", other, false));
        assert!(!waits("claude", "", "PermissionRequest", false), "not JSON");
    }

    #[test]
    fn choices_map_to_behaviors() {
        assert_eq!(behavior_of("allow"), Some("allow"));
        assert_eq!(behavior_of(" Deny "), Some("deny"));
        assert_eq!(behavior_of("ALLOW"), Some("allow"));
        for other in ["yes", "no", "1", "", "always"] {
            assert_eq!(behavior_of(other), None, "{other}");
        }
    }

    #[test]
    fn the_decision_json_is_claudes_permission_request_output() {
        let v: serde_json::Value = serde_json::from_str(&decision_json("allow").unwrap()).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow"}}})
        );
        let v: serde_json::Value = serde_json::from_str(&decision_json("deny").unwrap()).unwrap();
        assert_eq!(v["hookSpecificOutput"]["decision"]["behavior"], "deny");
        assert_eq!(v["hookSpecificOutput"]["decision"]["message"], DENY_MESSAGE);
        assert_eq!(decision_json(""), None);
        assert_eq!(decision_json("ask"), None);
    }

    #[test]
    fn the_wait_stays_below_the_entrys_timeout() {
        assert!(WAIT + Duration::from_secs(10) <= Duration::from_secs(ENTRY_TIMEOUT_S));
    }
}
