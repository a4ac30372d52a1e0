//! What a per-agent hook table returns, and the identity every agent's hooks build:
//! the leaf the per-agent modules share.

use crate::model::{Identity, SignalKind};

/// What a per-agent table returns for one event.
pub(super) struct Mapped {
    pub(super) kind: SignalKind,
    pub(super) known: bool,
}

impl Mapped {
    pub(super) fn known(kind: SignalKind) -> Mapped {
        Mapped { kind, known: true }
    }

    pub(super) fn unknown() -> Mapped {
        Mapped {
            kind: SignalKind::IdentityOnly,
            known: false,
        }
    }
}

/// Identity with `session_id`, `resume_argv` = `resume(session_id)` when a session id is
/// known, and `cwd`. A session id that starts with `-` gets no resume argv: in
/// `claude --resume -x` it would be read as an option
/// (`docs/reliability.md#hostile-and-bad-input`).
pub(super) fn identity_with(
    session_id: Option<&str>,
    cwd: Option<&str>,
    resume: impl Fn(&str) -> Vec<String>,
) -> Identity {
    Identity {
        session_id: session_id.map(str::to_string),
        resume_argv: session_id.filter(|id| !id.starts_with('-')).map(resume),
        cwd: cwd.map(str::to_string),
        title: None,
    }
}
