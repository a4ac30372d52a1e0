//! aider (0.86.2 recorded) → signals. aider has no hooks: the one thing it runs is its
//! `notifications-command`, through a shell, when it waits for the user again after the
//! model answered (its "ring the bell" moment). Attend's command is `attend-hook aider
//! --notify {}` (`attend install-hooks aider`): the event is `notify`, and the hook client
//! adds the turn's reply (`last_assistant_message`, read from the end of aider's chat
//! history file in the working directory, `attend_hook::aider_history`) and the working
//! directory (`cwd`).
//!
//! Nothing reports a turn's start, a tool, its confirmation prompts or an interrupt: the
//! screen manifest (`data/manifests/aider.toml`) opens its `(Y)es/(N)o` prompts, and
//! `docs/adapters.md` ("aider") lists what it cannot see.

use super::mapped::{identity_with, Mapped};
use super::payload::{non_empty, Payload};
use crate::model::{Identity, SignalKind::*};

/// The event of Attend's notification command (`attend-hook aider --notify`).
pub(super) const NOTIFY: &str = "notify";

/// The field the hook client adds to `notify` (Claude Code's name for a turn's reply).
const LAST_MESSAGE: &str = "last_assistant_message";

/// aider identity: no session id (aider has none; `--restore-chat-history` resumes the
/// working directory's chat), the `cwd` the hook client adds.
pub(super) fn identity(p: &Payload<'_>) -> Identity {
    identity_with(None, p.str("cwd"), |_| Vec::new())
}

/// Maps one aider event (the table of `docs/adapters.md`, "aider"): `notify` is the end
/// of a turn, with the reply the hook client read as its summary.
pub(super) fn map(event: &str, p: &Payload<'_>) -> Mapped {
    match event {
        NOTIFY => Mapped::known(TurnStopped {
            summary: p
                .get(LAST_MESSAGE)
                .and_then(non_empty)
                .map(|t| t.trim().to_string()),
        }),
        _ => Mapped::unknown(),
    }
}
