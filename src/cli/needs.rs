//! `attend needs [--json]` (`docs/cli.md#needs`): every open decision of this machine's
//! panes and of the online remote hosts' panes, worst first then the one that has waited
//! longest ([`crate::client::needs`], the queue the panel's Needs you view and the tray
//! show): its pane, severity, how long it has waited, where it is, its prompt and its
//! choices. Exit 1 when nothing waits (and `nothing waits` on stdout, `[]` with
//! `--json`), as `attend next` with nothing unread.

use super::client::{call, CliError, Client, EXIT_NOTHING, EXIT_OK};
use crate::adapters::terminal_signals::sanitize_text;
use crate::client::needs::{needs, waited_text, Need, ReplyMode};
use crate::client::overview::level_word;
use crate::model::Timestamp;
use serde_json::{json, Value};

/// What `attend needs` prints when nothing waits.
pub const NOTHING_WAITS: &str = "nothing waits\n";

/// Lists the queue; returns the exit code.
pub async fn run(c: &Client, as_json: bool) -> Result<i32, CliError> {
    let mut panes = call!(c, list_panes())?;
    panes.extend(call!(c, list_remote_panes())?);
    let queue = needs(&panes, crate::system::clock::now());
    let out = if as_json {
        let v: Vec<Value> = queue.iter().map(need_json).collect();
        format!("{}\n", Value::Array(v))
    } else {
        text(&queue)
    };
    super::out::write(&out)?;
    Ok(if queue.is_empty() {
        EXIT_NOTHING
    } else {
        EXIT_OK
    })
}

/// The queue for people: per decision a heading line (`p3  permission  waited 4m  web ›
/// api`), its prompt indented, and its choices (`choices: allow · deny`) or numbered
/// options (`options: 1 Postgres · 2 SQLite`), the numbers `attend answer` takes; a
/// question that takes free text says how (`reply: attend send …`). [`NOTHING_WAITS`]
/// when empty. Agent text is cleaned of control and escape sequences.
pub fn text(queue: &[Need]) -> String {
    if queue.is_empty() {
        return NOTHING_WAITS.into();
    }
    let mut out = String::new();
    for n in queue {
        let d = &n.decision;
        out.push_str(&format!(
            "{}  {}  waited {}  {}\n",
            n.pane,
            level_word(n.severity),
            waited_text(n.waited_ms),
            n.place
        ));
        for line in sanitize_text(&d.prompt, 2000).lines().take(6) {
            out.push_str(&format!("    {line}\n"));
        }
        if !d.choices.is_empty() {
            let choices: Vec<String> = d.choices.iter().map(|c| sanitize_text(c, 60)).collect();
            out.push_str(&format!("    choices: {}\n", choices.join(" · ")));
        }
        if !d.options.is_empty() && d.options != d.choices {
            let options: Vec<String> = d
                .options
                .iter()
                .enumerate()
                .map(|(i, o)| format!("{} {}", i + 1, sanitize_text(o, 60)))
                .collect();
            out.push_str(&format!("    options: {}\n", options.join(" · ")));
        }
        match &n.reply {
            Some(ReplyMode::Type) => out.push_str("    reply: type the answer\n"),
            Some(ReplyMode::PickThenType { label }) => out.push_str(&format!(
                "    reply: pick “{}”, then type the answer\n",
                sanitize_text(label, 60)
            )),
            None => {}
        }
    }
    out
}

/// One decision as JSON: `pane`, `host` (null here), `workspace`, `name`, `agent`,
/// `where`, `severity`, `kind`, `prompt`, `options`, `choices`, `gate`, `decision` (its
/// id), `opened_at` (RFC 3339, null when unknown), `waited_ms` (null when unknown),
/// `reply` (null, `"type"`, or `{"pick": LABEL}`).
pub fn need_json(n: &Need) -> Value {
    let d = &n.decision;
    let reply = match &n.reply {
        None => Value::Null,
        Some(ReplyMode::Type) => json!("type"),
        Some(ReplyMode::PickThenType { label }) => json!({ "pick": label }),
    };
    json!({
        "pane": n.pane,
        "host": n.host,
        "workspace": n.workspace,
        "name": n.name,
        "agent": n.agent,
        "where": n.place,
        "severity": n.severity.as_str(),
        "kind": d.kind,
        "prompt": d.prompt,
        "options": d.options,
        "choices": d.choices,
        "gate": d.is_gate(),
        "decision": d.id,
        "opened_at": n.opened_at.map(Timestamp::to_rfc3339),
        "waited_ms": n.waited_ms,
        "reply": reply,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::needs::needs;
    use crate::client::wire::{WireDecision, WirePane};
    use crate::model::{AgentKind, Pane, PaneId};

    fn asking(id: u64, kind: &str, prompt: &str, options: &[&str], choices: &[&str]) -> WirePane {
        let p = Pane::new(
            PaneId(id),
            "/src/web",
            "main",
            "api",
            AgentKind::Claude,
            Timestamp(0),
        );
        let mut w = WirePane::of(&p);
        w.attention = if kind == "permission" {
            "permission_required"
        } else {
            "input_required"
        }
        .into();
        w.pending_decision = Some(WireDecision {
            id,
            kind: kind.into(),
            prompt: prompt.into(),
            options: options.iter().map(|s| s.to_string()).collect(),
            choices: choices.iter().map(|s| s.to_string()).collect(),
            source: "user:user".into(),
            opened_at: 1_000,
            tool_use_id: None,
            gate: None,
        });
        w
    }

    #[test]
    fn the_text_names_each_decision_where_it_is_how_long_it_waited_and_its_choices() {
        let panes = [
            asking(
                2,
                "question",
                "Which db?\x1b[31m",
                &["Postgres", "Other"],
                &[],
            ),
            asking(
                1,
                "permission",
                "Bash: npm test",
                &["Yes", "No"],
                &["allow", "deny"],
            ),
        ];
        let q = needs(&panes, Timestamp(241_000));
        assert_eq!(
            text(&q),
            "p1  permission  waited 4m  web › api\n    Bash: npm test\n    choices: allow · deny\n    options: 1 Yes · 2 No\n\
             p2  input  waited 4m  web › api\n    Which db?\n    options: 1 Postgres · 2 Other\n    reply: pick “Other”, then type the answer\n"
        );
        assert_eq!(text(&[]), "nothing waits\n");
        let j = need_json(&q[1]);
        assert_eq!(j["reply"], json!({"pick": "Other"}));
        assert_eq!(j["waited_ms"], json!(240_000));
        assert_eq!(j["opened_at"], json!(Timestamp(1_000).to_rfc3339()));
        assert_eq!(need_json(&q[0])["choices"], json!(["allow", "deny"]));
    }
}
