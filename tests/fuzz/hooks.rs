//! Target `hooks`: the hook payload parsers. `attend hook AGENT [EVENT]` (and the Codex
//! `--notify` argv path, event `notify`) maps its payload with
//! [`attend::adapters::hooks::map_hook`] before it sends or spools anything; the daemon
//! maps a live or spooled call again through [`attend::service::bus::intake::hook_request`].
//!
//! Corpus: `tests/fuzz/corpus/hooks/<agent>/<EVENT>-<what>.json`, the EVENT argument is
//! the file name up to the first `-` (`_` for none, `~` and hex bytes for any other). Seeded from the recorded fixtures
//! (`tests/fixtures/*/*/observed`, OpenCode's `…/plugin`, and the documented ones) plus hand-made hostile
//! payloads. Mutants are byte-level ([`super::Op`]) or JSON-level ([`JsonOp`]: a field set
//! to a hostile value, removed, or nested deep), then byte-level.
//!
//! Checks: no panic; the same input maps to the same result twice; the error kind agrees
//! with serde_json's own verdict on the text (malformed ⇔ `Json`, not an object ⇔
//! `NotAnObject`); a mapping's signal has the agent, time and identity it reports, every
//! string in it is clean (no control character but `\n`, no bidi control) and at most
//! 2 × `MAX_HOOK_TEXT` bytes; the daemon's `hook_request` agrees with the client's
//! mapping; `clean_text` is bounded and idempotent.

use super::{corpus, hash, mutants, run, shown, Entry, Mutant, DEFAULT_CAP};
use crate::hook_events;
use attend::adapters::hooks::{
    clean_text, map_hook, AdapterError, HookMapping, MAX_HOOK_TEXT, MAX_SESSION_ID,
};
use attend::model::{AgentKind, PaneId, Timestamp};
use attend::service::bus::intake::{hook_request, HookContext};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::TestCaseError;
use serde_json::{json, Map, Value};
use std::sync::{Arc, LazyLock};

const AGENTS: [AgentKind; 5] = [
    AgentKind::Claude,
    AgentKind::Codex,
    AgentKind::Cursor,
    AgentKind::Gemini,
    AgentKind::OpenCode,
];

/// EVENT arguments: every event the adapters know, `notify`, and hostile names.
static EVENTS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut events: Vec<&'static str> = Vec::new();
    for e in [
        hook_events::CLAUDE,
        hook_events::GEMINI,
        hook_events::CURSOR,
    ]
    .concat()
    {
        if !events.contains(&e) {
            events.push(e);
        }
    }
    events.extend_from_slice(&[
        "notify",
        "",
        " ",
        "Unknown",
        "Stop\u{1b}]0;owned\u{7}",
        "\u{202e}Stop",
        "Stop\u{0}",
        "<b>Stop</b>",
    ]);
    events
});

/// Payload keys the adapters read (src/adapters/hooks), and a few others.
const KEYS: &[&str] = &[
    "hook_event_name",
    "session_id",
    "cwd",
    "tool_name",
    "tool_input",
    "tool_use_id",
    "tool_response",
    "notification_type",
    "message",
    "title",
    "source",
    "reason",
    "error",
    "error_details",
    "is_interrupt",
    "last_assistant_message",
    "last-assistant-message",
    "type",
    "thread-id",
    "conversation_id",
    "workspace_roots",
    "status",
    "prompt",
    "prompt_response",
    "questions",
    "options",
    "label",
    "question",
    "header",
    "command",
    "description",
    "details",
    "",
];

/// Byte-level dictionary for JSON payloads.
const DICT: &[&[u8]] = &[
    b"\"hook_event_name\":\"PreToolUse\",",
    b"\"hook_event_name\":\"Notification\",",
    b"\"hook_event_name\":",
    b"\"tool_name\":\"AskUserQuestion\",",
    b"\"notification_type\":\"permission_prompt\",",
    b"\"type\":\"agent-turn-complete\",",
    b"\"session_id\":\"\\u001b]0;x\\u0007\",",
    b"\"message\":\"\\u202e\\u0000\\u009b31m\",",
    b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    b"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    b"{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":",
    b"}}}}}}}}",
    b"null",
    b"true",
    b"false",
    b"\"\"",
    b"[]",
    b"{}",
    b",",
    b":",
    b"\\\"",
    b"\\\\",
    b"\xef\xbb\xbf",
    b"\x00",
];

/// Hostile values a JSON mutation puts into a payload field.
fn value(i: &Index) -> Value {
    let nested = |depth: usize| {
        let mut v = json!("deep");
        for _ in 0..depth {
            v = json!([v]);
        }
        v
    };
    let values = [
        json!(""),
        json!(" \t\n"),
        json!("Stop"),
        json!("PreToolUse"),
        json!("AskUserQuestion"),
        json!("permission_prompt"),
        json!("idle_prompt"),
        json!("elicitation_dialog"),
        json!("agent-turn-complete"),
        json!("rate_limit"),
        json!("\u{1b}]0;owned\u{7}title\u{1b}[2J"),
        json!("\u{202e}evil\u{2066}"),
        json!("a\u{0}b\u{7f}c\u{85}d"),
        json!("<b>pango</b> &amp; <span foreground='red'>x</span>"),
        json!("\u{9b}31m\u{9d}0;t\u{9c}"),
        json!("x".repeat(20_000)),
        json!("é".repeat(6_000)),
        json!("line1\nline2\r\n\tline3\n".repeat(600)),
        json!(0),
        json!(-1),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1e308),
        json!(5e-324),
        Value::Null,
        json!(true),
        json!(false),
        json!([]),
        json!(["Yes", "No"]),
        json!([1, {"x": null}, "s"]),
        json!([{"label": "A"}, {"label": "\u{1b}[2J"}, {"label": 3}]),
        json!({}),
        json!({"command": "rm -rf / \u{1b}[31m", "description": "x".repeat(9000)}),
        json!({"questions": [{"question": "Q?", "header": "H", "options": [{"label": "a"}, "b"]}]}),
        json!({"questions": []}),
        json!({"questions": "not a list"}),
        nested(100),
        nested(126),
        nested(200),
    ];
    values[i.index(values.len())].clone()
}

/// A structural mutation of a JSON payload.
#[derive(Clone, Debug)]
pub enum JsonOp {
    /// Sets key `KEYS[k]` of the n-th object to `value(v)`.
    Set(Index, Index, Index),
    /// Removes the k-th key of the n-th object.
    Remove(Index, Index),
    /// Wraps the n-th object's k-th value in `depth` arrays.
    Nest(Index, Index, usize),
}

fn count_objects(v: &Value) -> usize {
    match v {
        Value::Object(m) => 1 + m.values().map(count_objects).sum::<usize>(),
        Value::Array(a) => a.iter().map(count_objects).sum(),
        _ => 0,
    }
}

fn nth_object<'a>(v: &'a mut Value, n: &mut usize) -> Option<&'a mut Map<String, Value>> {
    match v {
        Value::Object(m) => {
            if *n == 0 {
                return Some(m);
            }
            *n -= 1;
            m.values_mut().find_map(|x| nth_object(x, n))
        }
        Value::Array(a) => a.iter_mut().find_map(|x| nth_object(x, n)),
        _ => None,
    }
}

fn apply_json(v: &mut Value, ops: &[JsonOp]) {
    for op in ops {
        let count = count_objects(v);
        if count == 0 {
            return;
        }
        let (JsonOp::Set(o, ..) | JsonOp::Remove(o, _) | JsonOp::Nest(o, ..)) = op;
        let mut n = o.index(count);
        let Some(map) = nth_object(v, &mut n) else {
            return;
        };
        match op {
            JsonOp::Set(_, k, val) => {
                map.insert(KEYS[k.index(KEYS.len())].to_string(), value(val));
            }
            JsonOp::Remove(_, k) if !map.is_empty() => {
                let key = map.keys().nth(k.index(map.len())).unwrap().clone();
                map.remove(&key);
            }
            JsonOp::Nest(_, k, depth) if !map.is_empty() => {
                let key = map.keys().nth(k.index(map.len())).unwrap().clone();
                let mut x = map.remove(&key).unwrap();
                for _ in 0..*depth {
                    x = json!([x]);
                }
                map.insert(key, x);
            }
            _ => {}
        }
    }
}

/// One hook call: the agent, the EVENT argument, the payload, and the `pane` of the
/// delivery context (for the daemon's side).
#[derive(Clone)]
pub struct HookCase {
    pub agent: AgentKind,
    pub event: Option<String>,
    pub pane: Option<String>,
    pub json_ops: Vec<JsonOp>,
    pub payload: Mutant,
}

impl std::fmt::Debug for HookCase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookCase")
            .field("agent", &self.agent)
            .field("event", &self.event)
            .field("pane", &self.pane)
            .field("json_ops", &self.json_ops)
            .field("payload", &self.payload)
            .finish()
    }
}

/// The agent a corpus entry belongs to (its directory) and its EVENT argument.
fn entry_call(name: &str) -> (AgentKind, Option<String>) {
    let (dir, file) = name.split_once('/').expect("corpus/hooks/<agent>/<file>");
    let agent = AgentKind::parse(dir).unwrap_or_else(|| panic!("agent directory {dir:?}"));
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    let event = stem.split('-').next().unwrap();
    let event = match event.strip_prefix('~') {
        // Any other EVENT argument: its bytes in hex.
        Some(hex) => {
            let bytes: Vec<u8> = (0..hex.len() / 2)
                .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
                .collect();
            String::from_utf8(bytes).unwrap()
        }
        None => event.to_string(),
    };
    (agent, (event != "_").then_some(event))
}

fn cases() -> impl Strategy<Value = HookCase> {
    let corpus = corpus("hooks");
    let payload = prop_oneof![
        2 => mutants(corpus.clone(), DICT, DEFAULT_CAP).prop_map(|m| (Vec::new(), m)),
        1 => json_mutants(corpus.clone(), false),
        1 => json_mutants(corpus, true),
    ];
    let event = prop_oneof![
        6 => Just(None::<Index>),
        4 => any::<Index>().prop_map(Some),
    ];
    let pane = prop_oneof![
        4 => Just(None),
        1 => prop::sample::select(vec![
            "p1", "p0", "p01", "p18446744073709551615", "p18446744073709551616", "", "garbage",
            "p-1", "p1\u{0}", "P1",
        ]).prop_map(|s| Some(s.to_string())),
        1 => ".{0,40}".prop_map(Some),
    ];
    let agent = prop_oneof![4 => Just(None), 1 => (0usize..4).prop_map(Some)];
    (payload, event, pane, agent).prop_map(|((json_ops, payload), event, pane, agent)| {
        let (seed_agent, seed_event) = entry_call(&payload.seed);
        let event = match event {
            None => seed_event,
            Some(i) => {
                let e = EVENTS[i.index(EVENTS.len())];
                (!e.is_empty()).then(|| e.to_string())
            }
        };
        HookCase {
            agent: agent.map_or(seed_agent, |i| AGENTS[i]),
            event,
            pane,
            json_ops,
            payload,
        }
    })
}

fn json_op() -> impl Strategy<Value = JsonOp> {
    prop_oneof![
        4 => (any::<Index>(), any::<Index>(), any::<Index>()).prop_map(|(o, k, v)| JsonOp::Set(o, k, v)),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(o, k)| JsonOp::Remove(o, k)),
        1 => (any::<Index>(), any::<Index>(), prop_oneof![1usize..10, 120usize..140])
            .prop_map(|(o, k, d)| JsonOp::Nest(o, k, d)),
    ]
}

/// JSON-level mutants of corpus entries (an entry that is not JSON starts as `{}`), then
/// byte-level mutations of the result when `bytes`.
fn json_mutants(
    corpus: Arc<Vec<Entry>>,
    bytes: bool,
) -> impl Strategy<Value = (Vec<JsonOp>, Mutant)> {
    let max_ops = if bytes { 4 } else { 0 };
    let dict: Vec<&'static [u8]> = DICT.iter().chain(super::COMMON_DICT).copied().collect();
    (
        any::<Index>(),
        prop::collection::vec(json_op(), 1..6),
        prop::collection::vec(super::op(), 0..=max_ops),
    )
        .prop_map(move |(e, json_ops, ops)| {
            let entry = &corpus[e.index(corpus.len())];
            let mut v: Value = serde_json::from_slice(&entry.bytes).unwrap_or_else(|_| json!({}));
            apply_json(&mut v, &json_ops);
            let text = serde_json::to_vec(&v).unwrap();
            let bytes = super::apply(&text, &ops, &corpus, &dict, DEFAULT_CAP);
            let seed = entry.name.clone();
            (json_ops, Mutant { seed, ops, bytes })
        })
}

/// True for characters no stored or shown text may hold (as `clean_text` removes them).
pub(super) fn unclean(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Every string in `v` (keys and values) with its JSON path.
pub(super) fn strings<'a>(v: &'a Value, path: &str, out: &mut Vec<(String, &'a str)>) {
    match v {
        Value::String(s) => out.push((path.to_string(), s)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| strings(x, &format!("{path}[{i}]"), out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            out.push((format!("{path}.<key>"), k));
            strings(x, &format!("{path}.{k}"), out)
        }),
        _ => {}
    }
}

pub(super) fn check_mapping(
    m: &HookMapping,
    agent: AgentKind,
    at: Timestamp,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(m.agent, agent);
    prop_assert_eq!(m.signal.at, at);
    prop_assert!(!m.event.is_empty(), "an empty event name was accepted");
    prop_assert_eq!(&m.session_id, &m.signal.identity.session_id);
    prop_assert_eq!(&m.cwd, &m.signal.identity.cwd);
    for id in [&m.session_id, &m.require_session].into_iter().flatten() {
        prop_assert!(
            id.len() <= MAX_SESSION_ID,
            "session id of {} bytes",
            id.len()
        );
    }
    let signal = serde_json::to_value(&m.signal).unwrap();
    let mut all = Vec::new();
    strings(&signal, "signal", &mut all);
    if let Some(r) = &m.require_session {
        all.push(("require_session".into(), r));
    }
    all.push(("event".into(), &m.event));
    for (path, s) in all {
        prop_assert!(
            s.len() <= 2 * MAX_HOOK_TEXT,
            "{path} is {} bytes (limit {})",
            s.len(),
            2 * MAX_HOOK_TEXT
        );
        prop_assert!(
            !s.chars().any(unclean),
            "{path} holds a control or bidi character: {}",
            shown(s.as_bytes())
        );
    }
    Ok(())
}

/// The checks of the module docs on one call.
pub fn check(case: &HookCase) -> Result<(), TestCaseError> {
    let payload = String::from_utf8_lossy(&case.payload.bytes);
    let at = Timestamp(1_700_000_000_000 + (hash(payload.as_bytes()) % 1000) as i64);
    let event = case.event.as_deref();
    let first = map_hook(case.agent, event, &payload, at);
    let again = map_hook(case.agent, event, &payload, at);
    prop_assert_eq!(&first, &again, "not deterministic");

    let parsed = serde_json::from_str::<Value>(&payload);
    match (&first, &parsed) {
        (Err(AdapterError::Json { line, column, .. }), Err(e)) => {
            prop_assert_eq!((*line, *column), (e.line(), e.column()));
        }
        (_, Err(e)) => prop_assert!(false, "serde_json refuses ({e}) but got {first:?}"),
        (Err(AdapterError::Json { message, .. }), Ok(_)) => {
            prop_assert!(false, "valid JSON refused as malformed: {message}")
        }
        (Err(AdapterError::NotAnObject), Ok(v)) => prop_assert!(!v.is_object()),
        (_, Ok(v)) if !v.is_object() => prop_assert!(false, "not an object, got {first:?}"),
        (Err(AdapterError::MissingEvent), Ok(_)) => {
            prop_assert!(
                event.map_or(true, |e| clean_text(e).is_empty()),
                "EVENT {event:?} was given"
            )
        }
        (Err(AdapterError::UnknownAgent(a)), _) => prop_assert!(false, "agent {a} refused"),
        (Err(AdapterError::SessionIdTooLong), Ok(v)) => {
            let mut all = Vec::new();
            strings(v, "payload", &mut all);
            prop_assert!(
                all.iter().any(|(_, s)| s.len() > MAX_SESSION_ID),
                "no string is over {} bytes",
                MAX_SESSION_ID
            );
        }
        (Ok(m), Ok(_)) => check_mapping(m, case.agent, at)?,
    }

    // The daemon's side (a live `Hook` call or a spooled one) agrees with the client.
    let ctx = HookContext {
        pane: case.pane.clone(),
        delivery_id: Some("d".into()),
        ..HookContext::default()
    };
    match hook_request(case.agent.as_str(), event.unwrap_or(""), &payload, ctx, at) {
        Ok(req) => {
            prop_assert_eq!(Some(&req.mapping), first.as_ref().ok());
            let pane = case.pane.as_deref().filter(|p| !p.is_empty());
            prop_assert_eq!(req.pane, pane.and_then(PaneId::parse));
        }
        Err(e) => prop_assert!(
            first.is_err() || payload.len() > attend::service::bus::intake::MAX_PAYLOAD,
            "daemon refused ({e}) what the client accepted"
        ),
    }

    // The text cleaner on the raw text: bounded, clean, idempotent.
    let clean = clean_text(&payload);
    prop_assert!(clean.len() <= MAX_HOOK_TEXT);
    prop_assert!(!clean.chars().any(unclean));
    prop_assert_eq!(
        clean_text(&clean),
        clean.clone(),
        "clean_text not idempotent"
    );
    Ok(())
}

/// Where a failing case goes in the corpus: the payload under its agent, the EVENT
/// argument first in the name.
fn save(case: &HookCase) -> (String, Vec<u8>) {
    let bytes = case.payload.bytes.clone();
    let event = match case.event.as_deref() {
        None => "_".to_string(),
        Some(e) if !e.is_empty() && e.chars().all(|c| c.is_ascii_alphanumeric()) => e.into(),
        Some(e) => format!(
            "~{}",
            e.bytes().map(|b| format!("{b:02x}")).collect::<String>()
        ),
    };
    let name = format!(
        "hooks/{}/{event}-regress-{:016x}.json",
        case.agent.as_str(),
        hash(&bytes)
    );
    (name, bytes)
}

#[test]
fn corpus_entries_map_cleanly() {
    let corpus = corpus("hooks");
    let mut mapped = 0;
    for entry in corpus.iter() {
        let (agent, event) = entry_call(&entry.name);
        let case = HookCase {
            agent,
            event,
            pane: Some("p1".into()),
            json_ops: Vec::new(),
            payload: Mutant {
                seed: entry.name.clone(),
                ops: Vec::new(),
                bytes: entry.bytes.clone(),
            },
        };
        if let Err(e) = check(&case) {
            panic!("{}: {e}", entry.name);
        }
        // The recorded fixtures are real payloads: each must map.
        let text = String::from_utf8_lossy(&entry.bytes);
        if entry.name.contains("-observed") || entry.name.contains("-docs") {
            let m = map_hook(agent, case.event.as_deref(), &text, Timestamp(1));
            assert!(m.is_ok(), "{}: {m:?}", entry.name);
            mapped += 1;
        }
    }
    println!(
        "fuzz hooks corpus: {} entries, {mapped} recorded payloads mapped",
        corpus.len()
    );
    assert!(
        mapped >= 40,
        "the recorded fixtures are missing from the corpus"
    );
}

#[test]
fn mutants_never_panic_and_map_deterministically() {
    run(
        "hooks",
        "proptest-regressions/fuzz/hooks.txt",
        700,
        cases(),
        save,
        check,
    );
}
