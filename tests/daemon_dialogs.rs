//! Dialogs no hook names, with a real PTY and daemon: a pane that draws a dialog recorded
//! from a real agent CLI (a folder trust dialog, a one-time offer) is blocked with a
//! question decision and input_required, not idle or unknown; answering it with
//! `attend answer` presses what the dialog shows; answering it in the pane closes the
//! decision (docs/lifecycle-attention.md#dialogs-no-hook-names).

mod support;

use serde_json::Value;
use support::Env;

fn screen(path: &str) -> String {
    format!(
        "{}/tests/fixtures/screens/{path}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A pane of `agent`, 40×120 like the recording, that draws the recorded `fixture`, then
/// reads one line (cooked mode: arrow keys and Enter make a line), writes it to `out`,
/// clears the screen and waits.
fn dialog_pane(env: &Env, agent: &str, fixture: &str, out: &std::path::Path) -> String {
    let go = out.with_extension("go");
    let script = format!(
        "while [ ! -e '{}' ]; do sleep 0.05; done; cat '{}'; IFS= read -r k; printf '%s' \"$k\" > '{}'; printf '\\033[H\\033[2J'; exec sleep 100",
        go.display(),
        screen(fixture),
        out.display()
    );
    let p = env.run(&["--agent", agent, "--", "sh", "-c", &script]);
    env.attend1().resize(&p, 40, 120).unwrap();
    std::fs::write(&go, "").unwrap();
    p
}

fn question(env: &Env, pane: &str) -> Value {
    env.wait_pane(pane, "the dialog's question", |v| {
        v["pending_decision"]["kind"] == "question"
    })
}

#[test]
fn a_trust_dialog_no_hook_names_blocks_and_is_answered_by_what_it_shows() {
    let env = Env::with_daemon();
    // Claude Code 2.1.332: "❯ No, exit" above "Yes, I trust this folder", no numbers.
    let out = env.work_dir().join("claude.txt");
    let p = dialog_pane(&env, "claude", "claude/2.1.332/folder-trust.txt", &out);
    let v = question(&env, &p);
    assert_eq!(v["lifecycle"], "blocked", "{v:#}");
    assert_eq!(v["attention"], "input_required", "{v:#}");
    let d = &v["pending_decision"];
    assert_eq!(
        d["options"],
        serde_json::json!(["No, exit", "Yes, I trust this folder"]),
        "{v:#}"
    );
    assert_eq!(d["choices"], serde_json::json!(["allow", "deny"]));
    let x: Value = serde_json::from_str(&env.ok(&["explain", &p, "--json"])).unwrap();
    assert_eq!(x["needs_input_reason"], "folder trust", "{x:#}");

    // allow = "Yes, I trust this folder": one Down from the cursor, then Enter.
    env.ok(&["answer", &p, "allow"]);
    env.wait_until("the keys typed", || {
        std::fs::read_to_string(&out).is_ok_and(|s| s == "\u{1b}[B")
    });
    let v = env.wait_pane(&p, "answered", |v| v["pending_decision"].is_null());
    assert_ne!(v["attention"], "input_required", "{v:#}");
    // The dialog is gone; nothing is opened again.
    std::thread::sleep(std::time::Duration::from_millis(2000));
    assert!(env.show(&p)["pending_decision"].is_null());
}

#[test]
fn a_dialog_answered_in_the_pane_closes_its_decision() {
    let env = Env::with_daemon();
    // Codex 0.171.0's trust dialog, answered by typing in the pane (not through Attend).
    let out = env.work_dir().join("codex.txt");
    let p = dialog_pane(&env, "codex", "codex/0.171.0/folder-trust.txt", &out);
    let v = question(&env, &p);
    assert_eq!(v["attention"], "input_required", "{v:#}");
    env.ok(&["send", &p, "1", "--enter"]);
    let v = env.wait_pane(&p, "the dialog gone", |v| v["pending_decision"].is_null());
    assert_eq!(v["lifecycle"], "idle", "{v:#}");
    assert_eq!(v["attention"], "none", "{v:#}");
    let resolved: Vec<Value> = env
        .events()
        .into_iter()
        .filter(|e| e["kind"] == "decision.resolved")
        .collect();
    assert_eq!(resolved.len(), 1, "{resolved:?}");
    assert_eq!(resolved[0]["how"], "dismissed", "{resolved:?}");
}

#[test]
fn a_one_time_offer_and_a_gemini_trust_dialog_are_questions_too() {
    let env = Env::with_daemon();
    let a = dialog_pane(
        &env,
        "claude",
        "claude/2.1.332/auto-mode-offer.txt",
        &env.work_dir().join("a.txt"),
    );
    let b = dialog_pane(
        &env,
        "gemini",
        "gemini/0.61.0/folder-trust.txt",
        &env.work_dir().join("b.txt"),
    );
    let v = question(&env, &a);
    assert_eq!(
        v["pending_decision"]["prompt"],
        "Make auto mode your default permission mode?"
    );
    let v = question(&env, &b);
    assert_eq!(
        v["pending_decision"]["prompt"],
        "Do you trust the files in this folder?"
    );
    assert_eq!(v["pending_decision"]["options"][2], "Don't trust");
    // A shell pane showing the same text is not an agent's dialog.
    let s = dialog_pane(
        &env,
        "shell",
        "claude/2.1.332/folder-trust.txt",
        &env.work_dir().join("s.txt"),
    );
    env.wait_pane(&s, "output", |v| {
        v["lifecycle"] != "unknown" || v["attention"] != "none"
    });
    std::thread::sleep(std::time::Duration::from_millis(1000));
    assert!(env.show(&s)["pending_decision"].is_null());
}
