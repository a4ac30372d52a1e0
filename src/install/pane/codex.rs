//! Codex CLI: `-c` overrides. Codex reads hooks from every configuration layer, the
//! session flags (`-c`) included, in the TOML form of `hooks.json`
//! (`-c 'hooks.Stop=[{hooks=[{type="command",command="…",timeout=3}]}]'`), and runs a hook
//! only once it is trusted: a `trusted_hash` for the hook's key in `hooks.state`, which the
//! session flags may carry too (Codex reads hook state from the user-controlled layers:
//! the user's `config.toml` and the session flags). Attend pins exactly its own entries,
//! by the hash Codex computes for them, and nothing else: the user's and the project's
//! hooks keep Codex's review. `notify` is set the same way (`-c notify=[…]`) unless the
//! user's `config.toml` names another notify program (Codex runs only one).
//!
//! The hash (Codex 0.171.0): `sha256:` + the hex SHA-256 of the compact JSON, keys sorted,
//! of `{"event_name": "<event in snake case>", "matcher"?: …, "hooks": [<the handler with
//! "async": false>]}`; the key is `/<session-flags>/config.toml:<event>:<group>:<handler>`.

use super::argv::{subcommand, Located};
use super::setup::{entries, PaneHooks, PaneSetup};
use crate::install::command::Matcher;
use crate::install::error::InstallError;
use crate::install::CODEX_EVENTS;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::path::PathBuf;

/// Codex subcommands that start no session (`exec`, `review`, `resume` and `fork` do).
const SUBCOMMANDS: &[&str] = &[
    "a",
    "agents",
    "app-server",
    "apply",
    "archive",
    "cloud",
    "completion",
    "debug",
    "delete",
    "doctor",
    "exec-server",
    "features",
    "help",
    "login",
    "logout",
    "mcp",
    "mcp-server",
    "migrate-nfs-db",
    "migrate-rollouts",
    "plugin",
    "queue",
    "remote-control",
    "sandbox",
    "unarchive",
    "update",
];

/// The key source of hooks given as session flags, as Codex names it in hook keys.
const SESSION_FLAGS: &str = "/<session-flags>/config.toml";

/// The argv with Attend's `-c` overrides right after the program (Codex applies root
/// overrides to every subcommand). `None` for a subcommand that starts no session, or
/// when the user gives `-c hooks…` themselves (both would be one layer: one would replace
/// the other).
pub(super) fn plan(
    setup: &PaneSetup<'_>,
    located: &Located,
    var: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<PaneHooks>, InstallError> {
    let (head, args) = setup.argv.split_at(located.program + 1);
    if subcommand(args, SUBCOMMANDS).is_some() {
        return Ok(None);
    }
    let keys = override_keys(args);
    if keys.iter().any(|k| k == "hooks" || k.starts_with("hooks.")) {
        return Ok(None);
    }
    let (ours, notify) = entries(setup)?;
    let mut overrides = Vec::new();
    let mut state = Map::new();
    for &event in CODEX_EVENTS {
        let groups = &ours["hooks"][event];
        overrides.push(format!("hooks.{event}={}", toml_inline(groups)));
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            for (h, handler) in group["hooks"].as_array().into_iter().flatten().enumerate() {
                let label = snake_case(event);
                let key = format!("{SESSION_FLAGS}:{label}:{g}:{h}");
                let hash = trust_hash(&label, group, handler);
                state.insert(key, serde_json::json!({ "trusted_hash": hash }));
            }
        }
    }
    overrides.push(format!(
        "hooks.state={}",
        toml_inline(&Value::Object(state))
    ));
    let matcher = Matcher::new(setup.agent, setup.attend_exe);
    if let Some(notify) = notify {
        if !keys.iter().any(|k| k == "notify") && notify_free(setup, var, &matcher) {
            let argv = Value::from(notify);
            overrides.push(format!("notify={}", toml_inline(&argv)));
        }
    }
    let mut argv = head.to_vec();
    for o in overrides {
        argv.push("-c".into());
        argv.push(o);
    }
    argv.extend(args.iter().cloned());
    Ok(Some(PaneHooks {
        argv,
        env: Vec::new(),
        files: Vec::new(),
    }))
}

/// The keys of the user's `-c KEY=VALUE` / `--config KEY=VALUE` overrides.
fn override_keys(args: &[String]) -> Vec<String> {
    let mut keys = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let value = match word.as_str() {
            "--" => break,
            "-c" | "--config" => words.next().cloned(),
            w => w
                .strip_prefix("--config=")
                .or_else(|| w.strip_prefix("-c").filter(|v| !v.is_empty()))
                .map(str::to_string),
        };
        if let Some(v) = value {
            keys.push(v.split('=').next().unwrap_or("").trim().to_string());
        }
    }
    keys
}

/// True unless the user's `config.toml` (`$CODEX_HOME`, else `~/.codex`) sets `notify` to
/// a program that is not Attend's: Codex runs one notify program, and Attend never
/// replaces someone else's (the rule of `install-hooks`). A file that cannot be read or
/// parsed counts as taken: Codex reports it at start.
fn notify_free(
    setup: &PaneSetup<'_>,
    var: &dyn Fn(&str) -> Option<String>,
    matcher: &Matcher,
) -> bool {
    let dir = match var("CODEX_HOME").filter(|v| !v.is_empty()) {
        Some(home) => PathBuf::from(home),
        None => match var("HOME").filter(|v| !v.is_empty()) {
            Some(home) => PathBuf::from(home).join(".codex"),
            None => return false,
        },
    };
    let text = match (setup.read)(&dir.join("config.toml")) {
        Ok(Some(text)) => text,
        Ok(None) => return true,
        Err(_) => return false,
    };
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return false;
    };
    match doc.get("notify").and_then(|n| n.as_array()) {
        None => doc.get("notify").is_none(),
        Some(array) => {
            let argv: Vec<&str> = array.iter().filter_map(|v| v.as_str()).collect();
            matcher.is_ours_argv(&argv)
        }
    }
}

/// `SessionStart` → `session_start` (Codex's event label in hook keys and hashes).
fn snake_case(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The trust hash Codex computes for one handler of a matcher group (module docs).
fn trust_hash(label: &str, group: &Value, handler: &Value) -> String {
    let mut handler = handler.clone();
    if let Some(h) = handler.as_object_mut() {
        h.entry("async").or_insert(Value::Bool(false));
    }
    let mut identity = Map::new();
    identity.insert("event_name".into(), Value::from(label));
    if let Some(matcher) = group.get("matcher").filter(|m| !m.is_null()) {
        identity.insert("matcher".into(), matcher.clone());
    }
    identity.insert("hooks".into(), Value::Array(vec![handler]));
    let text = serde_json::to_string(&canonical(&Value::Object(identity))).unwrap_or_default();
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// `value` with every object's keys in sorted order.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// A JSON value as a TOML inline value (`{hooks=[{type="command",…}]}`): objects become
/// inline tables, strings basic strings.
fn toml_inline(value: &Value) -> String {
    match value {
        Value::Null => "\"\"".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => toml_string(s),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(toml_inline).collect();
            format!("[{}]", items.join(","))
        }
        Value::Object(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}={}", toml_key(k), toml_inline(v)))
                .collect();
            format!("{{{}}}", items.join(","))
        }
    }
}

fn toml_key(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        key.to_string()
    } else {
        toml_string(key)
    }
}

/// A TOML basic string: `"`, `\` and control characters escaped.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash Codex 0.171.0 wrote into `config.toml` when its review dialog trusted the
    /// hook `-c 'hooks.SessionStart=[{hooks=[{type="command",command="cat >
    /// /tmp/cx/rec/ss-$(date +%s%N).json",timeout=3}]}]'` ("Trust all and continue").
    #[test]
    fn the_trust_hash_is_the_one_codex_computes() {
        let group = serde_json::json!({"hooks": [{
            "type": "command",
            "command": "cat > /tmp/cx/rec/ss-$(date +%s%N).json",
            "timeout": 3,
        }]});
        assert_eq!(
            trust_hash("session_start", &group, &group["hooks"][0]),
            "sha256:bab631bfe62b231246f4daae12c1b3ac4ffd879d9bed8b53339767abef6c9d3b"
        );
        assert_eq!(snake_case("UserPromptSubmit"), "user_prompt_submit");
        assert_eq!(snake_case("Stop"), "stop");
    }

    #[test]
    fn toml_values_are_quoted_and_escaped() {
        let v = serde_json::json!({"a b": ["x\"y\\z\n", 3, true], "k": {"q": "é"}});
        assert_eq!(toml_inline(&v), r#"{"a b"=["x\"y\\z\n",3,true],k={q="é"}}"#);
        let parsed: toml_edit::DocumentMut = format!("v={}", toml_inline(&v)).parse().unwrap();
        assert_eq!(parsed["v"]["a b"][0].as_str(), Some("x\"y\\z\n"));
    }

    #[test]
    fn the_users_overrides_are_read_with_every_spelling() {
        let args: Vec<String> = [
            "-c",
            "model=\"o3\"",
            "--config=hooks.Stop=[]",
            "-cnotify=[]",
            "--config",
            "x.y = 1",
            "--",
            "-c",
            "late=1",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            override_keys(&args),
            ["model", "hooks.Stop", "notify", "x.y"]
        );
    }
}
