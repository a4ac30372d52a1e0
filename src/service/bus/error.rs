//! The named errors of the D-Bus interface (`io.github.attend.Attend1.Error.<Name>`),
//! shared by every part of the service that answers a request.

/// Named errors of the interface (`io.github.attend.Attend1.Error.<Name>`), each with a
/// human message.
#[derive(Debug, Clone, PartialEq, Eq, zbus::DBusError)]
#[zbus(prefix = "io.github.attend.Attend1.Error")]
pub enum Attend1Error {
    /// The pane id is unknown (or not a pane id at all).
    NoSuchPane(String),
    /// `Answer` on a pane without an open decision.
    NoDecision(String),
    /// The pane's PTY is not Attend's (an external pane known only through hooks).
    NotOwned(String),
    InvalidArgument(String),
    /// `Answer` when the dialog on the pane's screen cannot be matched to the choice with
    /// certainty (no readable dialog, no option or several options that mean it): nothing
    /// was typed (`docs/lifecycle-attention.md#answer`).
    DialogUnreadable(String),
    /// `Answer` or `SendInput` on a pane followed in the user's tmux while that tmux pane
    /// is in a mode (copy-mode, a chooser: `#{pane_in_mode}`): nothing was typed and a
    /// decision stays open (`docs/tmux.md#answers`).
    PaneInMode(String),
    /// A hook payload over 1 MiB.
    PayloadTooLarge(String),
    /// The program could not be spawned; the message names the program and the errno.
    SpawnFailed(String),
    Internal(String),
    /// An action on a remote pane (`NAME:pN`) whose host is not configured
    /// (`docs/remote.md#how-remote-panes-are-mirrored`).
    NoSuchHost(String),
    /// An action on a remote pane while its host's link is down: refused, never queued
    /// (`docs/remote.md#how-remote-panes-are-mirrored`).
    HostOffline(String),
}

impl Attend1Error {
    /// `NoSuchPane` for the text `pane`, with the CLI's wording
    /// ([`crate::model::no_such_pane_text`]).
    pub fn no_such_pane(pane: &str) -> Attend1Error {
        Attend1Error::NoSuchPane(crate::model::no_such_pane_text(pane))
    }
}

impl From<crate::engine::EngineError> for Attend1Error {
    fn from(e: crate::engine::EngineError) -> Attend1Error {
        use crate::engine::EngineError as E;
        match e {
            E::NoSuchPane(p) => Attend1Error::no_such_pane(&p.to_string()),
            E::NoDecision(_) => Attend1Error::NoDecision(e.to_string()),
            E::NoSuchTask(_) | E::InvalidArgument(_) => {
                Attend1Error::InvalidArgument(e.to_string())
            }
        }
    }
}
