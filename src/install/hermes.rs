//! `install-hooks hermes`. Hermes Agent reads shell hooks from the `hooks:` block of
//! `~/.hermes/config.yaml` (no project layer): per event a list of `{command, timeout}`,
//! the command split with shell rules and run without a shell, the payload on stdin.
//! Attend's block ([`super::block`]) holds the events of [`EVENTS`], each running
//! `<dir>/attend-hook hermes`; a `hooks:` key of the user's own is refused (one YAML key
//! holds one block). Hermes asks once per new hook at its first start whether to run it
//! (`--accept-hooks`, `HERMES_ACCEPT_HOOKS=1` or `hooks_auto_accept: true` skip that;
//! docs/adapters.md, "Hermes Agent").

use super::block;

/// The events Attend installs, in Hermes's order: all that say something of the pane's
/// state (not `subagent_*`, the API request and transform hooks).
pub(super) const EVENTS: [&str; 10] = [
    "on_session_start",
    "on_session_reset",
    "pre_llm_call",
    "pre_tool_call",
    "pre_approval_request",
    "post_approval_response",
    "post_tool_call",
    "post_llm_call",
    "on_session_end",
    "on_session_finalize",
];

/// The top-level key Attend's block sets.
pub(super) const KEYS: &[&str] = &["hooks"];

/// Seconds Hermes waits for a hook; the hook client returns well within it.
const TIMEOUT_S: u32 = 5;

/// The body of Attend's block: `hooks:` with one entry per [`EVENTS`] running
/// `hook_command`.
pub(super) fn body(hook_command: &str) -> String {
    let command = block::quoted(hook_command);
    let mut out = String::from("hooks:\n");
    for event in EVENTS {
        out.push_str(&format!(
            "  {event}:\n    - command: {command}\n      timeout: {TIMEOUT_S}\n"
        ));
    }
    out
}
