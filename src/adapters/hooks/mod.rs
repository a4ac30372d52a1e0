//! Agent hook payloads → signals.
//!
//! One pure entry point, [`map_hook`] (and [`map_hook_with`] for a non-default
//! [`NotificationPolicy`]): it takes the agent, the optional EVENT argument of
//! `attend hook <agent> [EVENT]`, the agent's own JSON text and the time the caller
//! received it, and returns a [`HookMapping`] whose [`Signal`] the engine applies. No I/O,
//! no clock; payload size is checked by the caller.
//!
//! The per-agent tables live in `claude` (shared by Codex, Qwen Code, Factory Droid,
//! OpenHands CLI and Qoder CLI hooks, whose schemas copy Claude's), `codex` (`--notify`
//! and the approval dialog), `qwen` (its approval dialog and resume), `droid` (its
//! notifications and resume), `continue_cli` (Continue CLI: Claude's table, and its
//! payloads told from Claude's), `omp` (oh-my-pi: pi's extension events plus its tool
//! approvals), `cursor`, `gemini`, `opencode` (the events of Attend's OpenCode plugin,
//! which Kilo Code runs too: `kilo`), `pi` (those of Attend's pi extension), `copilot`,
//! `kimi` (Claude-style events with its own permission result and interrupt), `cline`
//! (one hook file per event, the event named by the file), `letta` (Claude-style events
//! named by `event_type`, its approval dialog told by a notification), `auggie`
//! (Claude-style events of its own, documented only), `vibe` (Mistral Vibe's
//! `[[hooks]]`), `aider` (its notification command: a turn's end only), `hermes` (Hermes
//! Agent's shell hooks), `openhands` (OpenHands CLI's Claude-style hooks), `amp` (the
//! events of Attend's Amp plugin), `qoder` (Qoder CLI: Claude's table), `crush` (its
//! one `PreToolUse` hook; documented only, these three) and `mastracode` (its run,
//! permission and interrupt events; the turn ends with `AgentEnd`).
//! `docs/adapters.md` lists every row with its engine effect and test. Payload facts come
//! from `docs/adapters.md#agent-facts-the-adapters-rely-on`; the signal semantics from
//! `docs/lifecycle-attention.md#signals`.

mod aider;
mod amp;
mod auggie;
mod claude;
mod cline;
mod codex;
mod continue_cli;
mod copilot;
mod crush;
mod cursor;
mod droid;
mod gemini;
mod hermes;
mod kilo;
mod kimi;
mod letta;
mod mapped;
mod mastracode;
mod notification;
mod omp;
mod opencode;
mod openhands;
mod payload;
mod pi;
mod qoder;
mod qwen;
mod vibe;

pub use notification::{NotificationAction, NotificationPolicy};

use crate::model::{AgentKind, Signal, Source, Timestamp};
use payload::Payload;

/// Result of mapping one hook call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookMapping {
    pub agent: AgentKind,
    /// The event name used: the payload's `hook_event_name`, else the EVENT argument,
    /// else `"notify"` for a Codex `--notify` payload.
    pub event: String,
    /// Kind + identity + source ([`Source::hook`]`(agent, event)`) + `at`.
    pub signal: Signal,
    /// The agent session id the payload names (same as `signal.identity.session_id`).
    pub session_id: Option<String>,
    /// The working directory the payload names (same as `signal.identity.cwd`).
    pub cwd: Option<String>,
    /// Codex `notify` payloads must only touch a pane whose session id equals this thread
    /// id (Codex also fires notify for its side thread that generates titles): when
    /// `Some`, the service drops the signal unless the pane's session id matches.
    pub require_session: Option<String>,
    /// False for events this adapter does not know (mapped to `IdentityOnly`).
    pub known_event: bool,
}

/// Why a hook payload could not be mapped. Unknown events and unknown fields are not
/// errors (they map to `IdentityOnly`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdapterError {
    /// The payload is not JSON; `line` and `column` are 1-based (serde_json's position).
    #[error("hook payload is not valid JSON (line {line}, column {column}): {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    /// The payload is JSON but not an object.
    #[error("hook payload is not a JSON object")]
    NotAnObject,
    /// The agent has no hooks (a plain shell).
    #[error("agent {0:?} has no hook adapter")]
    UnknownAgent(String),
    /// Neither the payload's `hook_event_name` nor the EVENT argument names the event.
    #[error("hook payload names no event and no EVENT argument was given")]
    MissingEvent,
    /// The session id (a key the daemon files panes under) is longer than
    /// [`MAX_SESSION_ID`] bytes: no agent makes such ids (theirs are UUIDs), and a cut one
    /// could merge two sessions.
    #[error("hook payload's session id is longer than {MAX_SESSION_ID} bytes")]
    SessionIdTooLong,
}

/// Longest session id (bytes, after cleaning) a hook may carry; agents use UUIDs (36).
pub const MAX_SESSION_ID: usize = 256;

/// Maps one hook call with the default [`NotificationPolicy`]. See [`map_hook_with`].
pub fn map_hook(
    agent: AgentKind,
    event_arg: Option<&str>,
    payload: &str,
    at: Timestamp,
) -> Result<HookMapping, AdapterError> {
    map_hook_with(
        &NotificationPolicy::default(),
        agent,
        event_arg,
        payload,
        at,
    )
}

/// Maps one hook call of `agent` to a signal at `at`.
///
/// `event_arg` is the EVENT argument of `attend hook <agent> [EVENT]` (`Some("notify")`
/// for `attend hook codex --notify`); the payload's own `hook_event_name` wins over it.
/// `payload` is the agent's JSON text (an object).
///
/// Errors: [`AdapterError::Json`] for malformed JSON (with line and column),
/// [`AdapterError::NotAnObject`], [`AdapterError::MissingEvent`],
/// [`AdapterError::UnknownAgent`] for [`AgentKind::Shell`] and [`AgentKind::Grok`] (no
/// hooks; checked in that order), then [`AdapterError::SessionIdTooLong`]. A payload sent
/// as Claude's whose `transcript_path` is empty is Continue CLI's (which runs Claude's
/// hooks too): the mapping's agent is [`AgentKind::Continue`]. Never panics.
pub fn map_hook_with(
    policy: &NotificationPolicy,
    agent: AgentKind,
    event_arg: Option<&str>,
    payload: &str,
    at: Timestamp,
) -> Result<HookMapping, AdapterError> {
    let mut value: serde_json::Value =
        serde_json::from_str(payload).map_err(|e| AdapterError::Json {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
    clean_strings(&mut value);
    let object = value.as_object().ok_or(AdapterError::NotAnObject)?;
    let p = Payload::new(object);
    let event = event_name(agent, event_arg, &p).ok_or(AdapterError::MissingEvent)?;
    // Continue CLI runs the hooks of Claude's settings.json too: its payloads are its own.
    let agent = match agent {
        AgentKind::Claude if continue_cli::is_continue_payload(&p) => AgentKind::Continue,
        other => other,
    };

    let mut require_session = None;
    let (mapped, identity) = match agent {
        AgentKind::Claude => (
            claude::map(&event, &p, policy, claude::Dialect::Claude),
            claude::identity(&p),
        ),
        AgentKind::Codex if event == codex::NOTIFY_EVENT => {
            require_session = codex::notify_thread(&p);
            (codex::map_notify(&p), codex::notify_identity(&p))
        }
        AgentKind::Codex => (
            claude::map(&event, &p, policy, claude::Dialect::Codex),
            codex::identity(&p),
        ),
        AgentKind::Cursor => (cursor::map(&event, &p), cursor::identity(&p)),
        AgentKind::Gemini => (gemini::map(&event, &p, policy), gemini::identity(&p)),
        AgentKind::Qwen => (
            claude::map(&event, &p, policy, claude::Dialect::Qwen),
            qwen::identity(&p),
        ),
        AgentKind::OpenCode => (opencode::map(&event, &p), opencode::identity(&event, &p)),
        AgentKind::Kilo => (opencode::map(&event, &p), kilo::identity(&event, &p)),
        AgentKind::Copilot => (copilot::map(&event, &p, policy), copilot::identity(&p)),
        AgentKind::Droid => (
            claude::map(&event, &p, policy, claude::Dialect::Droid),
            droid::identity(&p),
        ),
        AgentKind::Pi => (pi::map(&event, &p), pi::identity(&p)),
        AgentKind::Kimi => (kimi::map(&event, &p), kimi::identity(&p)),
        AgentKind::Cline => (cline::map(&event, &p), cline::identity(&p)),
        AgentKind::Omp => (omp::map(&event, &p), omp::identity(&p)),
        AgentKind::Continue => (
            continue_cli::map(&event, &p, policy),
            continue_cli::identity(&p),
        ),
        AgentKind::Letta => (letta::map(&event, &p), letta::identity(&p)),
        AgentKind::Auggie => (auggie::map(&event, &p), auggie::identity(&p)),
        AgentKind::Vibe => (vibe::map(&event, &p), vibe::identity(&p)),
        AgentKind::Aider => (aider::map(&event, &p), aider::identity(&p)),
        AgentKind::Hermes => (hermes::map(&event, &p), hermes::identity(&p)),
        AgentKind::OpenHands => (openhands::map(&event, &p, policy), openhands::identity(&p)),
        AgentKind::Amp => (amp::map(&event, &p), amp::identity(&p)),
        AgentKind::Qoder => (qoder::map(&event, &p, policy), qoder::identity(&p)),
        AgentKind::Crush => (crush::map(&event, &p), crush::identity(&p)),
        AgentKind::MastraCode => (mastracode::map(&event, &p), mastracode::identity(&p)),
        AgentKind::Grok | AgentKind::Shell => {
            return Err(AdapterError::UnknownAgent(agent.as_str().to_string()))
        }
    };
    let too_long = |id: &Option<String>| id.as_ref().is_some_and(|s| s.len() > MAX_SESSION_ID);
    if too_long(&identity.session_id) || too_long(&require_session) {
        return Err(AdapterError::SessionIdTooLong);
    }
    let signal =
        Signal::new(mapped.kind, Source::hook(agent.as_str(), &event), at).with_identity(identity);
    Ok(HookMapping {
        agent,
        session_id: signal.identity.session_id.clone(),
        cwd: signal.identity.cwd.clone(),
        event,
        signal,
        require_session,
        known_event: mapped.known,
    })
}

/// The event name: the payload's `hook_event_name`, else the EVENT argument (cleaned
/// like the payload's strings, [`clean_text`]: it reaches the event log and every surface),
/// else `"notify"` for a Codex payload that carries the notify `type` field, else an
/// OpenCode (or Kilo) bus event's own `type`, else the hook file a Cline payload's
/// `hookName` belongs to (`agent_start` → `TaskStart`), else a Letta payload's
/// `event_type`, else an OpenHands payload's `event_type`, else a Crush payload's
/// `event`.
fn event_name(agent: AgentKind, event_arg: Option<&str>, p: &Payload<'_>) -> Option<String> {
    if let Some(name) = p.str("hook_event_name") {
        return Some(name.to_string());
    }
    if let Some(arg) = event_arg.map(clean_text).filter(|a| !a.is_empty()) {
        return Some(arg);
    }
    match agent {
        AgentKind::Codex => p.str("type").map(|_| codex::NOTIFY_EVENT.to_string()),
        AgentKind::OpenCode | AgentKind::Kilo => p.str("type").map(str::to_string),
        AgentKind::Letta => p.str("event_type").map(str::to_string),
        AgentKind::OpenHands => p.str(openhands::EVENT_FIELD).map(str::to_string),
        AgentKind::Crush => p.str(crush::EVENT_FIELD).map(str::to_string),
        AgentKind::Cline => p
            .str("hookName")
            .and_then(cline::event_of)
            .map(str::to_string),
        _ => None,
    }
}

/// Longest text (bytes) kept from any string of a hook payload. Agents' messages are
/// summaries; a longer string is cut on a character boundary.
pub const MAX_HOOK_TEXT: usize = 8 * 1024;

/// Makes every string of a payload safe to store and to show on any surface (D-Bus
/// strings cannot hold NUL; terminals must not receive escape sequences): per line,
/// [`crate::adapters::terminal_signals::sanitize_text`] (escape sequences, C0/C1 controls, bidi
/// controls removed), line breaks kept, at most [`MAX_HOOK_TEXT`] bytes in all.
pub fn clean_text(s: &str) -> String {
    let needs = s.len() > MAX_HOOK_TEXT
        || s.chars().any(|c| {
            (c.is_control() && c != '\n')
                || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        });
    if !needs {
        return s.to_string();
    }
    let mut out = String::new();
    for line in s.split('\n') {
        let budget = MAX_HOOK_TEXT.saturating_sub(out.len() + 1);
        if budget == 0 {
            break;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&crate::adapters::terminal_signals::sanitize_text(
            line, budget,
        ));
    }
    out
}

/// Cleans every string of a JSON value, object keys included, with [`clean_text`]: what a
/// hook payload gets, and what a remote host's event data gets (`docs/remote.md`).
pub fn clean_strings(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::String(s) => *s = clean_text(s),
        serde_json::Value::Array(a) => a.iter_mut().for_each(clean_strings),
        serde_json::Value::Object(o) => {
            // Keys too: a tool input reaches prompts as JSON text, keys and all (found by
            // tests/fuzz/hooks.rs).
            for (key, mut value) in std::mem::take(o) {
                clean_strings(&mut value);
                o.insert(clean_text(&key), value);
            }
        }
        _ => {}
    }
}
