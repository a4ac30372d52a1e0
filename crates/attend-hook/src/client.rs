//! The hook client: `attend-hook AGENT [EVENT]` (and the compatible `attend hook AGENT
//! [EVENT]`), run by the agents before every tool call (docs/adapters.md "Delivery";
//! docs/decisions/0004-hook-executable.md).
//!
//! It is short and bounded:
//! 0. a globally installed entry (no `--pane-hooks`) of an agent that Attend started with
//!    hooks of its own (`ATTEND_PANE_HOOKS` names the agent) drains stdin and exits at
//!    once: the pane's own entry delivers the event ([`superseded`]; docs/adapters.md
//!    "Hooks for panes Attend starts");
//! 1. it reads its ancestors (pids and start times) first, before an agent that exits
//!    could orphan it, then the payload (stdin, or the last argument with `--notify`);
//! 2. it checks the payload with the caller's [`Entry::check`]: a refused one gives one
//!    line on stderr, and nothing is sent or stored;
//! 3. it makes one `Hook` call over libdbus ([`crate::bus`]) within [`CALL_BUDGET`];
//! 4. when the daemon is unreachable, does not answer in time or fails internally, it
//!    appends the call to the spool in [`crate::paths::runtime_dir`] (with its arrival
//!    time and delivery id; atomic append + fsync) for the daemon to replay. That is
//!    normal and silent. While earlier hooks wait in the spool ([`spool::pending`]) it
//!    spools without calling, so a hook never overtakes one spooled before it (the daemon
//!    applies them in per-pane order, docs/reliability.md "Crash").
//!
//! 5. Claude Code's `PermissionRequest` from a global entry, once delivered, waits (at
//!    most [`crate::gate::WAIT`]) for a choice made in Attend on the external pane's gate
//!    and prints it as the hook's decision ([`crate::gate`]); spooled, it never waits.
//!
//! Apart from that decision it prints nothing on stdout, and it always exits 0 (a broken
//! Attend must not break the agent): a rejected payload, or an event that could be
//! neither delivered nor spooled, gives exactly one `attend: …` line on stderr. The
//! delivery stays within [`DEADLINE`] after the payload was read and digested (a Copilot
//! or Droid turn's end may first wait up to `crate::transcript::WAIT` for the agent's
//! transcript: [`digest`]); only a gate's wait (5.) comes after it.

use crate::bus::{self, CallError};
use crate::context::{hook_message, Context};
use crate::event::names_event;
use crate::gate;
use crate::names::{ERROR_PREFIX, MAX_PAYLOAD, PANE_HOOKS_ENV, PANE_HOOKS_FLAG};
use crate::paths::runtime_dir;
use crate::procstat::ancestors;
use crate::spool::{self, SpoolRecord};
use std::io::{Read, Write};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long the hook may take in total, spooling included.
pub const DEADLINE: Duration = Duration::from_millis(300);
/// The part of [`DEADLINE`] kept for spooling when the call fails or times out.
pub const SPOOL_BUDGET: Duration = Duration::from_millis(50);
/// The longest the `Hook` call may take: [`DEADLINE`] minus [`SPOOL_BUDGET`].
pub const CALL_BUDGET: Duration = DEADLINE.saturating_sub(SPOOL_BUDGET);

/// Why a hook was not delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The daemon refused the call (bad input): reported, not spooled.
    Rejected(String),
    /// The daemon could not take it now: spooled.
    Undelivered(String),
}

/// What differs between the entries to the hook client.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// Checks `(agent, event, payload)` before anything is sent or spooled; `Err` holds
    /// the one-line reason. `attend hook` maps the payload with the daemon's own adapter;
    /// `attend-hook` checks the envelope ([`check_envelope`]) and leaves the rest to the
    /// daemon.
    pub check: fn(&str, &str, &str) -> Result<(), String>,
}

/// The `attend-hook` executable's entry: [`check_envelope`].
pub const EXECUTABLE: Entry = Entry {
    check: check_envelope,
};

/// Sorts a failed call into refused (bad input) and undelivered (spool it).
pub fn classify(e: CallError) -> Failure {
    match e {
        CallError::Failed { name, message } => {
            let text = if message.is_empty() {
                name.clone()
            } else {
                message
            };
            match name.strip_prefix(ERROR_PREFIX) {
                Some("Internal") | None => Failure::Undelivered(text),
                Some(_) => Failure::Rejected(text),
            }
        }
        CallError::Timeout => Failure::Undelivered(format!(
            "the daemon did not answer within {} ms",
            CALL_BUDGET.as_millis()
        )),
        CallError::Unreachable(e) => Failure::Undelivered(e),
    }
}

/// One `Hook` call before `deadline`.
fn deliver(
    agent: &str,
    event: &str,
    payload: &str,
    ctx: &Context,
    deadline: Instant,
) -> Result<(), Failure> {
    let msg = hook_message(agent, event, payload, ctx).map_err(classify)?;
    bus::call(msg, deadline).map(|_| ()).map_err(classify)
}

/// The gate of an external pane (docs/decisions/0015-answering-external-gates.md): after
/// the `PermissionRequest` hook was delivered, waits up to [`gate::WAIT`] in one
/// `AwaitGate` call for a choice made in Attend, and prints it as the hook's decision. An
/// empty answer (the decision was resolved otherwise, e.g. at the terminal; the daemon's
/// own deadline; no open gate), an error or this side's deadline print nothing: the
/// agent's own dialog decides.
fn await_gate(delivery_id: &str) {
    let Ok(msg) = gate::await_message(delivery_id, gate::WAIT) else {
        return;
    };
    // A little beyond the daemon's deadline, so that its empty answer normally ends it.
    let deadline = Instant::now() + gate::WAIT + Duration::from_secs(2);
    let Ok(reply) = bus::call(msg, deadline) else {
        return;
    };
    let Some(behavior) = reply.get1::<String>() else {
        return;
    };
    if let Some(json) = gate::decision_json(&behavior) {
        let mut out = std::io::stdout();
        let _ = out.write_all(json.as_bytes());
        let _ = out.flush();
    }
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// True when this hook run is a globally installed hook entry (no [`PANE_HOOKS_FLAG`]) of
/// an agent whose pane has hooks of its own: `pane_hooks_env` (the value of
/// [`PANE_HOOKS_ENV`], a comma-separated list of agent names) names `hook.agent`. Such a
/// run delivers nothing, so each event reaches the daemon once
/// (docs/decisions/0008-per-pane-hooks.md). A Codex `notify` run never is: Codex runs one
/// notify program, so where the pane sets its own the global one does not run at all, and
/// where it does not (the user's own program is configured) the global one is the only
/// one.
pub fn superseded(hook: &Invocation<'_>, pane_hooks_env: Option<&str>) -> bool {
    let names = |v: &str| v.split(',').any(|a| a.trim() == hook.agent);
    !hook.pane_hooks && hook.notify_payload.is_none() && pane_hooks_env.is_some_and(names)
}

/// Runs the hook client: payload from stdin, or the last argument with `--notify` (Codex
/// `notify`, event `notify`). A [`superseded`] run reads stdin to its end (the agent
/// writes the payload first and may count a hook that closed its stdin early as failed)
/// and returns at once. Always returns exit code 0.
pub fn run(entry: &Entry, hook: Invocation<'_>) -> i32 {
    let env = std::env::var(PANE_HOOKS_ENV).ok();
    if superseded(&hook, env.as_deref()) {
        let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
        return 0;
    }
    let arrived_at = now_ms();
    let pids = ancestors();
    let (event, payload) = match hook.notify_payload {
        Some(payload) => ("notify", payload.to_string()),
        None => {
            let mut text = String::new();
            if let Err(e) = std::io::stdin().read_to_string(&mut text) {
                eprintln!("attend: hook not delivered: cannot read the payload from stdin: {e}");
                return 0;
            }
            (hook.event.unwrap_or(""), text)
        }
    };
    let payload = crate::shrink::within_limit(digest(hook.agent, event, payload), MAX_PAYLOAD);
    // The call's budget starts now: a turn's end may have waited for its transcript.
    let started = Instant::now();
    if let Err(e) = (entry.check)(hook.agent, event, &payload) {
        eprintln!("attend: hook not delivered: {e}");
        return 0;
    }
    let ctx = Context::collect(pids);
    let dir = runtime_dir();
    let failure = if spool::pending(&dir) {
        // A live call would overtake the hooks still spooled (this agent's earlier ones
        // among them): queue behind them instead.
        "earlier hooks are still spooled".to_string()
    } else {
        match deliver(hook.agent, event, &payload, &ctx, started + CALL_BUDGET) {
            Ok(()) => {
                if gate::waits(hook.agent, event, &payload, hook.pane_hooks)
                    && gate::wait_enabled(std::env::var(gate::WAIT_ENV).ok().as_deref())
                {
                    await_gate(&ctx.delivery_id);
                }
                return 0;
            }
            Err(Failure::Rejected(e)) => {
                eprintln!("attend: hook not delivered: {e}");
                return 0;
            }
            Err(Failure::Undelivered(reason)) => reason,
        }
    };
    let record = SpoolRecord {
        delivery_id: ctx.delivery_id.clone(),
        agent: hook.agent.to_string(),
        event: event.to_string(),
        payload,
        context: ctx.to_json(),
        arrived_at,
    };
    if let Err(e) = spool::append(&dir, &record) {
        eprintln!(
            "attend: hook lost: not delivered ({failure}) and not spooled to {}: {e}",
            dir.display()
        );
    }
    0
}

/// What the hook client sends of a payload:
/// - Gemini's `BeforeModel` payload carries the whole conversation in `llm_request`
///   (megabytes in a long session, over [`MAX_PAYLOAD`]); Attend reads only the model and
///   how many messages it holds (a retry sends the same request again), so only that is
///   sent: `llm_request` becomes `{"model", "message_count"}` (docs/adapters.md, "Gemini
///   CLI");
/// - GitHub Copilot CLI's `agentStop` carries no reply text: the turn's last reply is
///   read from the end of its transcript and added ([`crate::transcript`];
///   docs/adapters.md, "GitHub Copilot CLI");
/// - Factory Droid's `Stop` carries no reply text either: the turn's last reply is read
///   from its transcript and added as `last_assistant_message`
///   ([`crate::droid_transcript`]; docs/adapters.md, "Factory Droid");
/// - Kimi Code CLI's `Stop` carries no reply text either: the turn's last reply is read
///   from the session's wire log and added as `last_assistant_message`
///   ([`crate::kimi_transcript`]; docs/adapters.md, "Kimi Code CLI");
/// - aider's notification (`notify`) carries nothing: the hook's working directory is
///   added as `cwd`, and the turn's reply, read from aider's chat history there, as
///   `last_assistant_message` ([`crate::aider_history`]; docs/adapters.md, "aider");
/// - Hermes Agent's `pre_llm_call` and `post_llm_call` carry the whole conversation in
///   `extra.conversation_history` (over [`MAX_PAYLOAD`] in a long session), which Attend
///   does not read: it is left out (docs/adapters.md, "Hermes Agent").
///
/// A leading UTF-8 byte order mark is dropped. Every other payload, and one that is not
/// such a JSON object, is returned as it is (the checks that follow refuse what is
/// malformed).
pub fn digest(agent: &str, event: &str, payload: String) -> String {
    // A UTF-8 byte order mark before the JSON (an editor's or a Windows tool's) is no
    // part of the payload: JSON parsers refuse it (RFC 8259 §8.1 lets them ignore it).
    let payload = match payload.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => payload,
    };
    const BEFORE_MODEL: &str = "BeforeModel";
    if agent == "copilot" && event == "agentStop" {
        return crate::transcript::with_last_message(payload);
    }
    if agent == "droid" && names_event(event, &payload, "Stop") {
        return crate::droid_transcript::with_last_message(payload);
    }
    if agent == "hermes" && payload.contains(HERMES_HISTORY) {
        return without_hermes_history(payload);
    }
    if agent == "aider" && event == "notify" {
        let cwd = std::env::current_dir().ok();
        return crate::aider_history::with_last_message(payload, cwd.as_deref());
    }
    if agent == "kimi" && names_event(event, &payload, "Stop") {
        let home = crate::kimi_transcript::home_from_env();
        return crate::kimi_transcript::with_last_message(payload, home.as_deref());
    }
    let named = event == BEFORE_MODEL || (event.is_empty() && payload.contains(BEFORE_MODEL));
    if agent != "gemini" || !named {
        return payload;
    }
    let Ok(serde_json::Value::Object(mut map)) = serde_json::from_str(&payload) else {
        return payload;
    };
    if event.is_empty() && map.get("hook_event_name").and_then(|v| v.as_str()) != Some(BEFORE_MODEL)
    {
        return payload;
    }
    if let Some(request) = map.get_mut("llm_request") {
        let model = request
            .get("model")
            .cloned()
            .unwrap_or(serde_json::Value::Null);
        let count = request
            .get("messages")
            .and_then(|m| m.as_array())
            .map(|m| serde_json::Value::from(m.len() as u64))
            .unwrap_or(serde_json::Value::Null);
        *request = serde_json::json!({"model": model, "message_count": count});
    }
    serde_json::Value::Object(map).to_string()
}

/// The field of Hermes Agent's LLM-call hooks' `extra` that holds the whole conversation.
const HERMES_HISTORY: &str = "conversation_history";

/// `payload` without `extra.conversation_history`; unchanged when it is no such object.
fn without_hermes_history(payload: String) -> String {
    let Ok(serde_json::Value::Object(mut map)) = serde_json::from_str(&payload) else {
        return payload;
    };
    let removed = map
        .get_mut("extra")
        .and_then(|e| e.as_object_mut())
        .and_then(|extra| extra.remove(HERMES_HISTORY));
    match removed {
        Some(_) => serde_json::Value::Object(map).to_string(),
        None => payload,
    }
}

/// The payload limit, with the daemon's words: `Err` when `payload` is over
/// [`MAX_PAYLOAD`] bytes.
pub fn check_size(payload: &str) -> Result<(), String> {
    if payload.len() > MAX_PAYLOAD {
        return Err(format!(
            "hook payload is {} bytes; the limit is {MAX_PAYLOAD}",
            payload.len()
        ));
    }
    Ok(())
}

/// What `attend-hook` refuses before anything is sent or spooled, with the daemon's
/// words: a payload over [`MAX_PAYLOAD`], one that is not valid JSON (with its line and
/// column), and one that is not a JSON object. The agent-specific checks (a known agent,
/// an event, the session id) are the daemon's: it refuses such a call when it answers,
/// and drops such a spooled record at replay with a line in its log
/// (docs/decisions/0004-hook-executable.md).
pub fn check_envelope(_agent: &str, _event: &str, payload: &str) -> Result<(), String> {
    check_size(payload)?;
    let value: serde_json::Value = serde_json::from_str(payload).map_err(|e| {
        format!(
            "hook payload is not valid JSON (line {}, column {}): {e}",
            e.line(),
            e.column()
        )
    })?;
    if !value.is_object() {
        return Err("hook payload is not a JSON object".into());
    }
    Ok(())
}

/// The arguments of one hook run: `AGENT [EVENT]`, or `AGENT --notify [EVENT] PAYLOAD`
/// (Codex `notify` passes its JSON as the last argument), either with `--pane-hooks` when
/// Attend gave the entry to an agent it started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invocation<'a> {
    pub agent: &'a str,
    pub event: Option<&'a str>,
    /// With `--notify`: the payload argument (`""` when it was missing).
    pub notify_payload: Option<&'a str>,
    /// `--pane-hooks` was given: the entry is a pane's own ([`PANE_HOOKS_FLAG`]).
    pub pane_hooks: bool,
}

/// Parses the arguments after `attend hook` / `attend-hook`: `AGENT [EVENT]` or `AGENT
/// --notify [EVENT] PAYLOAD` (`--notify` and `--pane-hooks` anywhere after AGENT). `None`
/// for anything else (`--help`, other options, no agent, too many arguments).
pub fn parse_args<'a>(args: &[&'a str]) -> Option<Invocation<'a>> {
    let notify = args.contains(&"--notify");
    let pane_hooks = args.contains(&PANE_HOOKS_FLAG);
    let mut plain: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| *a != "--notify" && *a != PANE_HOOKS_FLAG)
        .collect();
    if plain.is_empty() || plain.len() > 3 || plain.iter().any(|a| a.starts_with('-')) {
        return None;
    }
    let agent = plain.remove(0);
    let notify_payload = if notify {
        Some(plain.pop().unwrap_or(""))
    } else {
        None
    };
    if plain.len() > 1 {
        return None;
    }
    Some(Invocation {
        agent,
        event: plain.first().copied(),
        notify_payload,
        pane_hooks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_check_uses_the_daemons_words() {
        let err = check_envelope("claude", "", "{\"hook_event_name\": ").unwrap_err();
        assert!(
            err.starts_with("hook payload is not valid JSON (line 1, column "),
            "{err}"
        );
        let err = check_envelope("claude", "", "").unwrap_err();
        assert!(
            err.starts_with("hook payload is not valid JSON (line 1, column 0)"),
            "{err}"
        );
        for not_object in ["[1, 2]", "\"Stop\"", "null", "42"] {
            assert_eq!(
                check_envelope("claude", "", not_object).unwrap_err(),
                "hook payload is not a JSON object"
            );
        }
        let big = format!("{{\"x\": \"{}\"}}", "y".repeat(MAX_PAYLOAD));
        assert!(check_envelope("claude", "Stop", &big)
            .unwrap_err()
            .contains("the limit is 1048576"));
        assert!(check_envelope("claude", "", r#"{"hook_event_name":"Stop"}"#).is_ok());
    }

    /// A payload written with a UTF-8 byte order mark is sent without it.
    #[test]
    fn a_byte_order_mark_before_the_payload_is_dropped() {
        let stop = r#"{"hook_event_name":"Stop","session_id":"s1"}"#;
        let sent = digest("claude", "", format!("\u{feff}{stop}"));
        assert_eq!(sent, stop);
        assert!(check_envelope("claude", "", &sent).is_ok());
        assert_eq!(digest("claude", "", stop.into()), stop);
    }

    /// Hermes's LLM-call hooks are sent without the conversation; other agents' payloads
    /// and Hermes payloads without one are sent as they are.
    #[test]
    fn hermes_payloads_are_sent_without_the_conversation() {
        let full = r#"{"hook_event_name":"pre_llm_call","extra":{"user_message":"hi","conversation_history":[{"role":"user","content":"hi"}]}}"#;
        let sent: serde_json::Value =
            serde_json::from_str(&digest("hermes", "", full.into())).unwrap();
        assert_eq!(sent["extra"], serde_json::json!({"user_message": "hi"}));
        assert_eq!(digest("claude", "", full.into()), full);
        let other = r#"{"hook_event_name":"on_session_end","extra":{"completed":true}}"#;
        assert_eq!(digest("hermes", "", other.into()), other);
    }

    /// Droid's Stop (event named by the payload, as `install-hooks droid` registers it)
    /// gets the reply from its transcript; its other events and other agents' Stop not.
    #[test]
    fn droids_stop_is_sent_with_the_turns_reply() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.jsonl");
        let reply = serde_json::json!({"type": "message", "message": {"role": "assistant",
            "content": [{"type": "text", "text": "Hello."}]}});
        std::fs::write(&path, reply.to_string() + "\n").unwrap();
        let stop = |event: &str| {
            serde_json::json!({"hook_event_name": event, "transcript_path": path}).to_string()
        };
        let added = |agent: &str, event: &str, payload: String| {
            let v: serde_json::Value =
                serde_json::from_str(&digest(agent, event, payload)).unwrap();
            v.get("last_assistant_message")
                .and_then(|m| m.as_str())
                .map(str::to_string)
        };
        assert_eq!(added("droid", "", stop("Stop")).as_deref(), Some("Hello."));
        assert_eq!(
            added("droid", "Stop", stop("Stop")).as_deref(),
            Some("Hello.")
        );
        assert_eq!(added("droid", "", stop("SubagentStop")), None);
        assert_eq!(added("droid", "", stop("PreToolUse")), None);
        assert_eq!(added("claude", "", stop("Stop")), None);
    }

    #[test]
    fn geminis_before_model_is_sent_without_the_conversation() {
        let messages =
            vec![serde_json::json!({"role": "user", "content": "x".repeat(MAX_PAYLOAD)}); 2];
        let payload = serde_json::json!({
            "hook_event_name": "BeforeModel",
            "session_id": "g1",
            "cwd": "/tmp/proj",
            "llm_request": {"model": "gemini-3.8-flash", "messages": messages, "config": {}},
        })
        .to_string();
        for event in ["BeforeModel", ""] {
            let small = digest("gemini", event, payload.clone());
            let v: serde_json::Value = serde_json::from_str(&small).unwrap();
            assert_eq!(
                v["llm_request"],
                serde_json::json!({"model": "gemini-3.8-flash", "message_count": 2})
            );
            assert_eq!(
                (v["session_id"].as_str(), v["cwd"].as_str()),
                (Some("g1"), Some("/tmp/proj"))
            );
            assert!(check_size(&small).is_ok());
        }
        // Other agents and events, and what is no JSON object: as they are.
        assert_eq!(digest("claude", "BeforeModel", payload.clone()), payload);
        let stop = r#"{"hook_event_name":"AfterAgent","prompt_response":"BeforeModel"}"#;
        assert_eq!(digest("gemini", "", stop.to_string()), stop);
        assert_eq!(digest("gemini", "BeforeModel", "[1".to_string()), "[1");
    }

    #[test]
    fn only_plain_hook_invocations_parse() {
        assert_eq!(
            parse_args(&["claude"]),
            Some(Invocation {
                agent: "claude",
                event: None,
                notify_payload: None,
                pane_hooks: false,
            })
        );
        assert_eq!(
            parse_args(&["gemini", "AfterTool"]).map(|i| i.event),
            Some(Some("AfterTool"))
        );
        assert_eq!(
            parse_args(&["codex", "--notify", "{}"]),
            Some(Invocation {
                agent: "codex",
                event: None,
                notify_payload: Some("{}"),
                pane_hooks: false,
            })
        );
        assert_eq!(
            parse_args(&["codex", "--notify", "--pane-hooks", "{}"]),
            Some(Invocation {
                agent: "codex",
                event: None,
                notify_payload: Some("{}"),
                pane_hooks: true,
            })
        );
        assert_eq!(
            parse_args(&["claude", "--pane-hooks"]).map(|i| (i.agent, i.pane_hooks)),
            Some(("claude", true))
        );
        assert_eq!(
            parse_args(&["gemini", "AfterTool", "--pane-hooks"]).map(|i| i.event),
            Some(Some("AfterTool"))
        );
        assert_eq!(
            parse_args(&["codex", "notify", "--notify", "{}"]).map(|i| i.event),
            Some(Some("notify"))
        );
        for bad in [
            &[][..],
            &["--help"],
            &["claude", "a", "b"],
            &["codex", "--notify", "a", "b", "c"],
            &["claude", "-x"],
        ] {
            assert_eq!(parse_args(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_global_entry_is_superseded_only_where_the_pane_has_hooks_of_its_agent() {
        let global = parse_args(&["claude", "Stop"]).unwrap();
        let pane = parse_args(&["claude", "Stop", "--pane-hooks"]).unwrap();
        assert!(superseded(&global, Some("claude")));
        assert!(superseded(&global, Some("codex,claude")));
        assert!(
            !superseded(&global, None),
            "no pane hooks: the global entry delivers"
        );
        assert!(!superseded(&global, Some("")));
        assert!(
            !superseded(&global, Some("codex")),
            "another agent's pane hooks"
        );
        assert!(
            !superseded(&pane, Some("claude")),
            "the pane's own entry delivers"
        );
        let notify = parse_args(&["codex", "--notify", "{}"]).unwrap();
        assert!(
            !superseded(&notify, Some("codex")),
            "the one notify program"
        );
    }

    #[test]
    fn daemon_errors_split_into_rejected_and_spooled() {
        let failed = |name: &str| CallError::Failed {
            name: name.into(),
            message: "m".into(),
        };
        assert_eq!(
            classify(failed("io.github.attend.Attend1.Error.InvalidArgument")),
            Failure::Rejected("m".into())
        );
        assert!(matches!(
            classify(failed("io.github.attend.Attend1.Error.Internal")),
            Failure::Undelivered(_)
        ));
        assert!(matches!(
            classify(failed("org.freedesktop.DBus.Error.ServiceUnknown")),
            Failure::Undelivered(_)
        ));
        assert!(matches!(
            classify(CallError::Timeout),
            Failure::Undelivered(_)
        ));
    }
}
