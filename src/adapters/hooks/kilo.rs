//! Kilo Code CLI (7.7.7 recorded) → signals. Kilo is a fork of OpenCode: it loads the
//! same JS plugins and publishes the same bus events, so Attend's OpenCode plugin
//! (`data/opencode/attend.js`, installed with `attend-hook kilo` in its hook line) sends
//! the same payloads and [`super::opencode::map`] maps them; only the resume argv differs.
//!
//! Rows and decisions: `docs/adapters.md` ("Kilo Code CLI").

use super::opencode;
use super::payload::Payload;
use crate::model::Identity;

/// Kilo identity: as OpenCode's ([`opencode::identity`]), resume argv
/// `["kilo","--session",<id>]`.
pub(super) fn identity(event: &str, p: &Payload<'_>) -> Identity {
    opencode::identity_of("kilo", event, p)
}
