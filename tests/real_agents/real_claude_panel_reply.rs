//! The panel's reply field against the real Claude Code (docs/desktop-surfaces.md#replies):
//! the pinned CLI in a pane Attend runs, the scripted model makes it ask its own question
//! (`AskUserQuestion`, two options), the real `attend-panel` on Xvfb lists it in Needs you
//! with a reply field (Claude's dialog takes free text through its "Type something."
//! option); a sentence typed there (XTEST keys, as a keyboard does) and Enter reach the
//! model as the question's tool result. The panel support is `tests/panel/mod.rs`, the
//! one the panel's integration tests use.
//!
//! A CLI that cannot be installed prints `SKIPPED: <reason>` and the test passes, unless
//! `ATTEND_REQUIRE_REAL_AGENTS=1` (docs/real-agents.md).

use crate::panel::{text, Panel, Xvfb};
use crate::support;

use serde_json::{json, Value};
use support::agents::Cli;
use support::model_server::{ModelServer, Reply};
use support::scenario::Scenario;

/// Claude's question and the model's text once it has the answer.
const QUESTION: &str = "Which color do you want?";
const THANKS: &str = "Thanks for the color.";
/// The reply typed into the panel: words no option of the question has.
const SENTENCE: &str = "Teal, because it reads well on a dark background";

/// The scripted question: two options (Claude adds its free-text option).
fn ask() -> Reply {
    let input = json!({"questions": [{"question": QUESTION, "header": "Color",
        "multiSelect": false, "options": [{"label": "Red", "description": "warm"},
        {"label": "Blue", "description": "cool"}]}]});
    Reply::Tool {
        name: "AskUserQuestion".into(),
        input_json: input.to_string(),
    }
}

/// The text of the tool results in the last turn request's last message.
fn tool_results(server: &ModelServer) -> Vec<String> {
    let Some(last) = server.turns().last().map(|r| r.json()) else {
        return Vec::new();
    };
    let Some(message) = last["messages"].as_array().and_then(|m| m.last()) else {
        return Vec::new();
    };
    message["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["type"] == "tool_result")
        .map(|c| match &c["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts.iter().map(|p| text(&p["text"])).collect(),
            other => other.to_string(),
        })
        .collect()
}

/// The Needs you rows shown: (pane, has a reply field, its field has the keyboard).
fn rows(d: &Value) -> Result<Vec<(String, bool, bool)>, String> {
    let v = &d["needs_you"];
    if v["visible"] != true {
        return Err(format!("Needs you is not shown: {v}"));
    }
    Ok(v["rows"]
        .as_array()
        .ok_or("no rows")?
        .iter()
        .map(|r| {
            (
                text(&r["pane"]).to_string(),
                r["reply"] == true,
                r["reply_focused"] == true,
            )
        })
        .collect())
}

#[test]
fn claude_question_takes_a_free_text_reply_typed_in_the_panel() {
    let Some(s) = Scenario::start(
        "claude panel reply",
        Cli::Claude,
        vec![ask(), Reply::text(THANKS)],
    ) else {
        return;
    };
    s.wait_ready();
    s.prompt("ask me");
    let v = s.wait("the question", |v| {
        v["pending_decision"]["kind"] == "question"
    });
    assert_eq!(v["attention"], "input_required", "{v:#}");
    s.wait_screen("Claude's question dialog", |sc| sc.contains(QUESTION));

    let x = Xvfb::start();
    let mut panel = Panel::start(&s.env, &x, &[]);
    panel.wait("online", |d| {
        (d["state"] == "online")
            .then_some(())
            .ok_or("offline".into())
    });
    panel.keys(&["ctrl+shift+a"]);
    let want = s.pane.clone();
    panel.wait("the question listed with a reply field", |d| {
        match rows(d)?.as_slice() {
            [(pane, true, _)] if *pane == want => Ok(()),
            other => Err(format!("rows {other:?}")),
        }
    });
    // `r` goes to the row's reply field; the sentence and Enter send it.
    panel.keys_to_focus(&["r"]);
    panel.wait("the reply field focused", |d| match rows(d)?.as_slice() {
        [(_, true, true)] => Ok(()),
        other => Err(format!("rows {other:?}")),
    });
    panel.type_text(SENTENCE);
    panel.keys_to_focus(&["Return"]);

    let mut results = Vec::new();
    let received = support::poll(s.step(), || {
        results = tool_results(&s.server);
        s.server.turns().len() >= 2 && results.iter().any(|r| r.contains(SENTENCE))
    });
    if !received {
        s.fail(&format!(
            "the model never received the reply as the tool result: {results:?}\n\
             --- panel ---\n{:#?}\n--- panel log ---\n{}",
            panel
                .read()
                .map(|d| json!({"needs_you": d["needs_you"], "toasts": d["toasts"]})),
            panel.log_text()
        ));
    }
    let v = s.wait("the turn's end", |v| v["lifecycle"] == "done");
    assert!(v["pending_decision"].is_null(), "{v:#}");
    assert!(
        v["last_seen_at"].is_string(),
        "typing a reply is interaction: {v:#}"
    );
    println!(
        "claude question answered from the panel: {:.1} s",
        s.started.elapsed().as_secs_f64()
    );
}
