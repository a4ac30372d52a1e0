//! The editors of the agents installed from PyPI (docs/adapters.md): Mistral Vibe's
//! `hooks.toml` tables ([`super::vibe`]), aider's and Hermes Agent's blocks of YAML lines
//! ([`super::aider`], [`super::hermes`], [`super::block`]) and OpenHands CLI's
//! Claude-shaped `hooks.json`.

use super::aider;
use super::command::Matcher;
use super::error::InstallError;
use super::hermes;
use super::json::{JsonHooks, Shape};
use crate::model::AgentKind;
use std::path::PathBuf;

/// How one of their files is edited (the install module makes its editor of it).
pub(super) enum Edit<'a> {
    /// Mistral Vibe's `[[hooks]]` tables ([`super::vibe`]) running `command`.
    Vibe {
        command: String,
        matcher: &'a Matcher,
    },
    /// A block of Attend's YAML lines ([`super::block`]).
    Block {
        agent: &'static str,
        body: String,
        keys: &'static [&'static str],
    },
    /// Claude-shaped hook entries in JSON.
    Json(JsonHooks<'a>),
}

/// OpenHands CLI's hook events (Claude Code's names; docs/adapters.md "OpenHands CLI").
const OPENHANDS_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SessionEnd",
];

/// OpenHands's tool events, whose groups say `"matcher": "*"`.
const OPENHANDS_TOOL_EVENTS: &[&str] = &["PreToolUse", "PostToolUse"];

/// The edits of `agent` (one of the four; `project`: in the project's files) whose
/// entries run `command`. Hooks' timeouts: 5 s each.
///
/// Errors: [`InstallError::Shape`] for Hermes in project scope (it reads no project file),
/// [`InstallError::Unsupported`] for another agent.
pub(super) fn edits<'a>(
    agent: AgentKind,
    project: bool,
    command: String,
    matcher: &'a Matcher,
) -> Result<Vec<Edit<'a>>, InstallError> {
    Ok(match agent {
        AgentKind::Vibe => vec![Edit::Vibe { command, matcher }],
        AgentKind::Aider => vec![Edit::Block {
            agent: "aider",
            body: aider::body(&command),
            keys: aider::KEYS,
        }],
        AgentKind::Hermes if project => {
            return Err(InstallError::Shape {
                path: PathBuf::from(".hermes/config.yaml"),
                message: "Hermes Agent reads hooks only from the user's \
                          ~/.hermes/config.yaml (install without --project)"
                    .into(),
            })
        }
        AgentKind::Hermes => vec![Edit::Block {
            agent: "hermes",
            body: hermes::body(&command),
            keys: hermes::KEYS,
        }],
        AgentKind::OpenHands => vec![Edit::Json(JsonHooks {
            shape: Shape::Grouped {
                timeout: 5,
                timeouts: &[],
                name: None,
                match_all: OPENHANDS_TOOL_EVENTS,
            },
            events: OPENHANDS_EVENTS,
            allow_comments: false,
            command,
            event_argument: false,
            matcher,
        })],
        _ => return Err(InstallError::Unsupported(agent)),
    })
}
