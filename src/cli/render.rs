//! Rendering of the daemon's typed values for people (tables) and for programs (`--json`).
//!
//! JSON keys are the D-Bus dictionary keys; times (keys ending in `_at`) become RFC 3339
//! strings; documented keys that the daemon left out (D-Bus has no null) become `null`.
//! In plain text every value goes through [`escape_controls`]: one record is one line,
//! whatever a hook payload or a command line put in a name, path or message.

use crate::engine::{Column, Table, NAME_COLUMN};
use crate::model::Timestamp;
use serde_json::{json, Map, Value as Json};
use zbus::zvariant::Value;

pub use crate::client::json::{dict_json, pane_json, to_json, PANE_KEYS};
use crate::client::wire::WirePane;
pub use crate::client::Dict;
pub use crate::engine::escape_controls;

/// The value under `key`, unwrapping a variant nested in the variant.
fn field<'a>(d: &'a Dict, key: &str) -> Option<&'a Value<'static>> {
    d.get(key).map(|v| match &**v {
        Value::Value(inner) => &**inner,
        other => other,
    })
}

/// A string field, `""` when absent.
pub fn text(d: &Dict, key: &str) -> String {
    match field(d, key) {
        Some(Value::Str(s)) => s.to_string(),
        _ => String::new(),
    }
}

fn int(d: &Dict, key: &str) -> Option<i64> {
    match field(d, key) {
        Some(Value::I32(n)) => Some(*n as i64),
        Some(Value::I64(n)) => Some(*n),
        _ => None,
    }
}

/// `s` on one line (control characters become spaces), cut to `max` terminal columns
/// with `…` when cut ([`crate::engine::clip`]).
pub fn truncate(s: &str, max: usize) -> String {
    let one_line: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    crate::engine::clip(&one_line, max)
}

/// Rows as a left-aligned table with a header; the last column is not padded. Each cell
/// is escaped ([`escape_controls`]) and measured in terminal columns
/// ([`crate::engine::Table`]).
pub fn table(header: &[&'static str], rows: &[Vec<String>]) -> String {
    let columns: Vec<Column> = header.iter().map(|h| Column::free(h)).collect();
    let mut t = Table::new(&columns);
    for r in rows {
        t.row(r.clone());
    }
    t.render()
}

/// `attend show` for people: one `key: value` line per field of [`PANE_KEYS`], control
/// characters in a value escaped ([`escape_controls`]). An open decision reads
/// `KIND: PROMPT`, followed by a `choices` line (the decision's choices, the names
/// `attend answer` takes and the panel's and notification's buttons show) and an
/// `options` line (the agent's own labels).
pub fn pane_text(p: &WirePane) -> String {
    let Json::Object(m) = pane_json(p) else {
        return String::new();
    };
    let mut out = String::new();
    let mut line = |k: &str, v: &str| out.push_str(&format!("{k:<22}{}\n", escape_controls(v)));
    for k in PANE_KEYS {
        let v = match (k, &m[k]) {
            ("live", _) => p.live.text(),
            ("pending_decision", _) => match &p.pending_decision {
                None => "-".to_string(),
                Some(d) => {
                    line(k, &format!("{}: {}", d.kind, d.prompt));
                    line("choices", &or_dash(&d.choices.join(CHOICE_SEPARATOR)));
                    line("options", &or_dash(&d.options.join(CHOICE_SEPARATOR)));
                    continue;
                }
            },
            (_, Json::Null) => "-".to_string(),
            (_, Json::String(s)) => s.clone(),
            (_, other) => other.to_string(),
        };
        line(k, &v);
    }
    // Only a pane Attend made a git worktree for (docs/worktrees.md).
    if let Some(w) = &p.worktree {
        line("worktree", w);
    }
    out
}

/// Between the choices (and the options) of a decision on one line.
pub const CHOICE_SEPARATOR: &str = " · ";

fn or_dash(s: &str) -> String {
    if s.is_empty() {
        "-".to_string()
    } else {
        s.to_string()
    }
}

/// The `attend workspaces` table: names and messages escaped and cut to their columns
/// ([`crate::engine::Table`], `docs/cli.md#names-on-a-terminal`).
pub fn workspaces_table(ws: &[Dict]) -> String {
    let mut t = Table::new(&[
        Column::capped("WORKSPACE", NAME_COLUMN),
        Column::capped("REPO", 32),
        Column::free("AGENTS"),
        Column::free("PANES"),
        Column::free("LIFECYCLE"),
        Column::free("ATTENTION"),
        Column::capped("LATEST MESSAGE", 48),
    ]);
    for w in ws {
        let panes = match field(w, "panes") {
            Some(Value::Array(a)) => a.len(),
            _ => 0,
        };
        let repo = match (text(w, "repo"), text(w, "branch")) {
            (r, _) if r.is_empty() => String::new(),
            (r, b) if b.is_empty() => r,
            (r, b) => format!("{r}/{b}"),
        };
        let agents = match field(w, "agents") {
            Some(v @ Value::Array(_)) => match to_json("agents", v) {
                Json::Array(a) => a
                    .iter()
                    .filter_map(Json::as_str)
                    .collect::<Vec<_>>()
                    .join(","),
                _ => String::new(),
            },
            _ => String::new(),
        };
        t.row(vec![
            text(w, "name"),
            repo,
            agents,
            panes.to_string(),
            text(w, "worst_lifecycle"),
            text(w, "worst_attention"),
            text(w, "latest_message").replace(['\n', '\r', '\t'], " "),
        ]);
    }
    t.render()
}

/// One event as a JSON object: seq, kind, pane, then its data keys.
pub fn event_json(seq: u64, kind: &str, pane: &str, data: &Dict) -> Json {
    let mut m = Map::new();
    m.insert("seq".into(), json!(seq));
    m.insert("kind".into(), json!(kind));
    m.insert("pane".into(), json!(pane));
    m.extend(dict_json(data));
    Json::Object(m)
}

/// One event for people on one line: `seq time pane kind details [source]`, control
/// characters escaped ([`escape_controls`]).
pub fn event_line(seq: u64, kind: &str, pane: &str, data: &Dict) -> String {
    let at = int(data, "at")
        .map(|t| Timestamp(t).to_rfc3339())
        .unwrap_or_default();
    let mut details: Vec<String> = Vec::new();
    let mut keys: Vec<&String> = data
        .keys()
        .filter(|k| *k != "at" && *k != "source")
        .collect();
    keys.sort();
    for k in keys {
        let v = match to_json(k, &data[k]) {
            Json::String(s) => s,
            other => other.to_string(),
        };
        details.push(format!("{k}={}", truncate(&v, 60)));
    }
    escape_controls(&format!(
        "{seq:>6}  {at}  {pane:<4}  {kind:<20} {}  [{}]",
        details.join(" "),
        text(data, "source")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use zbus::zvariant::OwnedValue;

    fn dict(pairs: Vec<(&str, Value<'static>)>) -> Dict {
        pairs
            .into_iter()
            .map(|(k, v)| (k.to_string(), OwnedValue::try_from(v).unwrap()))
            .collect()
    }

    fn pane() -> crate::model::Pane {
        use crate::model::*;
        let mut p = Pane::new(
            PaneId(4),
            "/src/app",
            "main",
            "api",
            AgentKind::Claude,
            Timestamp(1),
        );
        p.live = Live::Exited {
            code: None,
            signal: Some(9),
        };
        p.last_lifecycle = Some(Lifecycle::Blocked);
        p.last_message = Some("Bash: ls".into());
        p.last_seen_at = Some(Timestamp(0));
        p.resume_argv = Some(vec!["claude".into(), "--resume".into(), "s".into()]);
        p.pending_decision = Some(Decision {
            id: 2,
            kind: DecisionKind::Permission,
            prompt: "Bash: ls".into(),
            options: vec!["Yes".into(), "No".into()],
            answer_keys: vec![AnswerKey {
                choice: "yes".into(),
                keys: "1".into(),
            }],
            tool_use_id: Some("toolu_1".into()),
            source: Source::hook("claude", "PermissionRequest"),
            opened_at: Timestamp(5),
        });
        p
    }

    #[test]
    fn show_json_fills_documented_keys_and_renders_times() {
        let mut w = WirePane::of(&pane());
        w.pending_decision = None;
        w.live = crate::client::wire::WireLive {
            state: "exited".into(),
            code: Some(3),
            signal: None,
        };
        let j = pane_json(&w);
        assert_eq!(j["id"], "p4");
        assert_eq!(j["pending_decision"], Json::Null);
        assert_eq!(j["session_id"], Json::Null);
        assert_eq!(j["last_seen_at"], "1970-01-01T00:00:00.000Z");
        assert_eq!(j["created_at"], "1970-01-01T00:00:00.001Z");
        assert!(
            j.get("done_at").is_none(),
            "an undocumented-null key stays out"
        );
        assert_eq!(
            j["live"],
            json!({"state": "exited", "code": 3, "signal": null})
        );
    }

    /// The pane `GetPane` sends, through the D-Bus encoding and back, renders for people
    /// with its decision, choices and options.
    #[test]
    fn a_pane_over_the_wire_renders_with_its_decision() {
        use zbus::zvariant::{serialized::Context, to_bytes, LE};
        let sent = WirePane::of(&pane());
        let ctxt = Context::new_dbus(LE, 0);
        let bytes = to_bytes(ctxt, &sent).unwrap();
        let (got, _): (WirePane, _) = bytes.deserialize().unwrap();
        assert_eq!(got, sent);
        let text = pane_text(&got);
        assert!(text.contains("exited sig 9"));
        // The decision, its choices (the names `attend answer` takes) and its options.
        assert!(
            text.contains("\npending_decision      permission: Bash: ls\n"),
            "{text}"
        );
        assert!(text.contains("\nchoices               yes\n"), "{text}");
        assert!(
            text.contains("\noptions               Yes · No\n"),
            "{text}"
        );
    }

    #[test]
    fn truncate_counts_characters_and_flattens_lines() {
        assert_eq!(truncate("héllo\nworld", 20), "héllo world");
        assert_eq!(truncate("abcdef", 4), "abc…");
    }

    #[test]
    fn control_characters_are_escaped_so_a_row_stays_one_line() {
        assert_eq!(
            escape_controls("a\nb\r\tc\x1b[31m\x07\x7f\u{9b}é"),
            "a\\nb\\r\\tc\\x1b[31m\\x07\\x7f\\x9bé"
        );
        let t = table(&["A", "B"], &[vec!["x\ny".into(), "\x1b]0;t\x07".into()]]);
        assert_eq!(t, "A     B\nx\\ny  \\x1b]0;t\\x07\n");
    }

    #[test]
    fn workspace_names_are_data_cut_to_their_column_and_aligned() {
        let ws = |name: &str, msg: &str| {
            dict(vec![
                ("name", Value::from(name.to_string())),
                ("worst_lifecycle", Value::from("idle")),
                ("worst_attention", Value::from("none")),
                ("latest_message", Value::from(msg.to_string())),
            ])
        };
        let text = workspaces_table(&[
            ws("\x1b[31mw\u{202e}a", "line\nbreak"),
            ws("数据库", "ok"),
            ws(&"n".repeat(60), &"m".repeat(80)),
        ]);
        assert!(
            !text.contains('\x1b') && !text.contains('\u{202e}'),
            "{text}"
        );
        assert!(text.contains("\\x1b[31mw\\u{202e}a  "), "{text}");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "one line per workspace: {text}");
        assert!(lines[3].starts_with(&format!("{}…  ", "n".repeat(NAME_COLUMN - 1))));
        assert!(
            lines[3].ends_with(&format!("{}…", "m".repeat(47))),
            "{text}"
        );
        // The REPO column (empty) starts at the same terminal column on every line.
        let col = |l: &str| crate::engine::width(&l[..l.find("  ").unwrap()]);
        assert_eq!(col(lines[2]), crate::engine::width("数据库"));
        let starts: Vec<usize> = lines
            .iter()
            .map(|l| {
                let head = l.split("idle").next().unwrap();
                crate::engine::width(head)
            })
            .skip(1)
            .collect();
        assert!(starts.windows(2).all(|w| w[0] == w[1]), "{text}");
    }

    #[test]
    fn a_remote_event_renders_with_its_host_pane_host_and_remote_seq() {
        let d = dict(vec![
            ("source", Value::from("hook:claude.Stop")),
            ("at", Value::from(0i64)),
            ("value", Value::from("done")),
            ("host", Value::from("buildbox")),
            ("remote_seq", Value::from(41u64)),
        ]);
        let line = event_line(7, "agent.done", "buildbox:p12", &d);
        assert!(
            line.starts_with("     7  1970-01-01T00:00:00.000Z  buildbox:p12  agent.done"),
            "{line}"
        );
        assert!(line.contains("host=buildbox remote_seq=41"), "{line}");
        assert!(line.ends_with("[hook:claude.Stop]"), "{line}");
        let j = event_json(7, "agent.done", "buildbox:p12", &d);
        assert_eq!(
            (&j["pane"], &j["host"], &j["remote_seq"]),
            (&json!("buildbox:p12"), &json!("buildbox"), &json!(41))
        );
    }

    #[test]
    fn table_aligns_columns() {
        let t = table(&["A", "BB"], &[vec!["xxx".into(), "y".into()]]);
        assert_eq!(t, "A    BB\nxxx  y\n");
    }
}
