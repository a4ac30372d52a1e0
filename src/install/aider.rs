//! `install-hooks aider`. aider has no hooks; it runs one `notifications-command` through
//! a shell (its stdin the terminal, no payload) when it waits for the user after the model
//! answered. Attend's block in `~/.aider.conf.yml` (or the project's `.aider.conf.yml`,
//! which aider reads from the git root and the working directory too) turns its
//! notifications on and names `attend-hook aider --notify {}`: the payload is the argument,
//! so the hook never reads the terminal ([`super::block`]; docs/adapters.md, "aider").

use super::block;

/// The top-level keys of aider's configuration Attend's block sets.
pub(super) const KEYS: &[&str] = &["notifications", "notifications-command"];

/// The body of Attend's block: notifications on, the command `hook_command` (the hook
/// program and `aider`, shell-quoted) with `--notify {}`.
pub(super) fn body(hook_command: &str) -> String {
    format!(
        "notifications: true\nnotifications-command: {}\n",
        block::quoted(&format!("{hook_command} --notify {{}}"))
    )
}
