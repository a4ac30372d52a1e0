//! Dialogs no hook names, with a real PTY and daemon: a pane that draws a dialog recorded
//! from a real agent CLI (a folder trust dialog, a one-time offer) is blocked with a
//! question decision and input_required, not idle or unknown; answering it with
//! `attend answer` presses what the dialog shows; answering it in the pane closes the
//! decision (docs/lifecycle-attention.md#dialogs-no-hook-names). A gate the agent closes
//! on screen without a hook (Copilot's Esc) ends by the screen too
//! (docs/lifecycle-attention.md#gates-the-screen-closes).

use crate::support;

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
    // The dialog is gone; nothing is opened again, and no hook will ever speak for
    // this agent: once the answer settled, the pane is no longer blocked
    // (docs/lifecycle-attention.md#answered-without-a-hook).
    let v = env.wait_pane(&p, "idle once the dialog is behind it", |v| {
        v["lifecycle"] == "idle"
    });
    assert!(v["pending_decision"].is_null(), "{v:#}");
    assert_eq!(v["taxonomy"]["needs_input"]["count"], 0, "{v:#}");
    assert_eq!(v["attention"], "none", "{v:#}");
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

/// A Copilot pane (40×120) that draws its recorded approval dialog, reads one key
/// (non-canonical, no echo), writes it to `out`, then draws `after` (the screen the real
/// CLI shows after that key) and waits.
fn copilot_gate_pane(env: &Env, after: &str, out: &std::path::Path) -> String {
    let go = out.with_extension("go");
    let script = format!(
        "while [ ! -e '{}' ]; do sleep 0.05; done; cat '{}'; stty -icanon -echo min 1 time 0; k=$(dd bs=1 count=1 2>/dev/null); printf '%s' \"$k\" > '{}'; printf '\\033[H\\033[2J'; cat '{}'; exec sleep 100",
        go.display(),
        screen("copilot/1.0.102/permission-dialog.txt"),
        out.display(),
        screen(after),
    );
    let p = env.run(&["--agent", "copilot", "--", "sh", "-c", &script]);
    env.attend1().resize(&p, 40, 120).unwrap();
    std::fs::write(&go, "").unwrap();
    // The dialog's notification hook (recorded), as the real CLI sends it with the dialog.
    let notification = std::fs::read_to_string(format!(
        "{}/tests/fixtures/copilot/1.0.102/observed/notification-permission_prompt.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    env.hook("copilot", &p, &notification, &format!("gate-{p}"))
        .unwrap();
    let v = env.wait_pane(&p, "the gate", |v| v["lifecycle"] == "blocked");
    assert_eq!(v["attention"], "permission_required", "{v:#}");
    env.wait_until("the chrome sees the dialog", || {
        let x: Value = serde_json::from_str(&env.ok(&["explain", &p, "--json"])).unwrap();
        x["chrome"]["matched_rule"] == "command-approval"
    });
    p
}

/// GitHub Copilot CLI fires no hook when Esc closes its approval dialog (the turn ends):
/// the screen's closed state — its prompt back, the idle status row — ends the gate, in
/// the pane or answered `deny` from Attend (which types Esc), so the pane does not stay
/// blocked (docs/lifecycle-attention.md#gates-the-screen-closes).
#[test]
fn a_copilot_gate_closed_by_esc_without_a_hook_goes_idle() {
    let env = Env::with_daemon();
    let typed = env.work_dir().join("typed.txt");
    let p = copilot_gate_pane(&env, "negative/copilot/1.0.102-cancelled.txt", &typed);
    env.ok(&["send", &p, "\u{1b}"]);
    let v = env.wait_pane(&p, "the gate ended", |v| v["lifecycle"] != "blocked");
    assert_eq!(
        (&v["lifecycle"], &v["attention"]),
        (&"idle".into(), &"none".into()),
        "{v:#}"
    );
    assert!(v["pending_decision"].is_null(), "{v:#}");
    let resolved: Vec<Value> = env
        .events()
        .into_iter()
        .filter(|e| e["kind"] == "decision.resolved" && e["pane"] == p.as_str())
        .collect();
    assert_eq!(resolved.len(), 1, "{resolved:?}");
    assert_eq!(resolved[0]["how"], "dismissed", "{resolved:?}");
    assert_eq!(resolved[0]["source"], "needs-input-chrome:screen.chrome");
    // `attend explain` names the rule whose closed screen shows.
    let x: Value = serde_json::from_str(&env.ok(&["explain", &p, "--json"])).unwrap();
    assert_eq!(x["chrome"]["closed_rule"], "command-approval", "{x:#}");
    assert!(env.ok(&["explain", &p]).contains("closed command-approval"));

    // Denied from Attend: Esc typed, the decision answered at once, then idle.
    let answered = env.work_dir().join("answered.txt");
    let q = copilot_gate_pane(&env, "negative/copilot/1.0.102-cancelled.txt", &answered);
    env.ok(&["answer", &q, "deny"]);
    env.wait_until("Esc typed", || {
        std::fs::read_to_string(&answered).is_ok_and(|k| k == "\u{1b}")
    });
    let v = env.wait_pane(&q, "idle after the denial", |v| v["lifecycle"] == "idle");
    assert_eq!(v["attention"], "none", "{v:#}");
}

/// An approved command that still runs (`○ Working · … esc esc interrupt`): the dialog
/// is gone but the closed screen does not show, so the gate waits for the command's
/// postToolUse.
#[test]
fn a_copilot_gate_whose_command_runs_stays_until_its_hook() {
    let env = Env::with_daemon();
    let typed = env.work_dir().join("typed.txt");
    let p = copilot_gate_pane(&env, "negative/copilot/1.0.102-working.txt", &typed);
    env.ok(&["send", &p, "\r"]);
    env.wait_until("the dialog gone", || {
        let x: Value = serde_json::from_str(&env.ok(&["explain", &p, "--json"])).unwrap();
        x["chrome"]["matched_rule"].is_null() && !x["chrome"]["evaluated_at"].is_null()
    });
    // Past the time a closed dialog takes to end its gate (`DIALOG_GONE_MS`).
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let v = env.show(&p);
    assert_eq!(v["lifecycle"], "blocked", "{v:#}");
    assert_eq!(v["pending_decision"]["kind"], "permission", "{v:#}");
    let done = r#"{"sessionId":"88c0db96-eb7c-40c9-a71d-b487d8b9c3a1","cwd":"/tmp/proj","toolName":"bash","toolArgs":{"command":"echo hi > out.txt"}}"#;
    let mut ctx = std::collections::HashMap::new();
    ctx.insert("pane", zbus::zvariant::Value::from(p.as_str()));
    ctx.insert("delivery_id", zbus::zvariant::Value::from("post"));
    env.attend1()
        .hook("copilot", "postToolUse", done, &ctx)
        .unwrap();
    let v = env.wait_pane(&p, "the tool finished", |v| v["lifecycle"] == "working");
    assert!(v["pending_decision"].is_null(), "{v:#}");
}

/// Claude Code takes a number typed in its permission dialog's first moment as a cursor
/// move only: the dialog stays, the cursor on the option. Attend sees its answer not
/// taken (the same dialog still drawn with the cursor on the picked option, no hook since)
/// and presses Enter, once (docs/lifecycle-attention.md#answer).
#[test]
fn an_answer_the_agent_did_not_take_is_confirmed_with_one_enter() {
    let env = Env::with_daemon();
    let out = env.work_dir().join("typed.txt");
    let go = out.with_extension("go");
    let dialog = screen("claude/2.1.332/permission-dialog.txt");
    // Draw the dialog; take one key and draw the cursor on "4. No" with the dialog still
    // open; take the next key; then wait 3 s more for another one; record all three.
    let script = format!(
        "while [ ! -e '{go}' ]; do sleep 0.05; done; cat '{dialog}'; \
         stty -icanon -icrnl -echo min 1 time 0; a=$(dd bs=1 count=1 2>/dev/null); \
         printf '\\033[H\\033[2J'; sed -e 's/\u{276f} 1. Yes/  1. Yes/' -e 's/  4. No/\u{276f} 4. No/' '{dialog}'; \
         b=$(dd bs=1 count=1 2>/dev/null); stty min 0 time 30; c=$(dd bs=1 count=1 2>/dev/null); \
         printf '%s|%s|%s' \"$a\" \"$b\" \"$c\" > '{out}'; printf '\\033[H\\033[2J'; exec sleep 100",
        go = go.display(),
        out = out.display(),
    );
    let p = env.run(&["--agent", "claude", "--", "sh", "-c", &script]);
    env.attend1().resize(&p, 40, 120).unwrap();
    std::fs::write(&go, "").unwrap();
    let request = std::fs::read_to_string(format!(
        "{}/tests/fixtures/claude/2.1.332/observed/PermissionRequest.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    env.hook("claude", &p, &request, "gate").unwrap();
    env.wait_pane(&p, "the gate", |v| {
        v["pending_decision"]["kind"] == "permission"
    });
    env.wait_until("the chrome sees the dialog", || {
        let x: Value = serde_json::from_str(&env.ok(&["explain", &p, "--json"])).unwrap();
        x["chrome"]["matched_rule"] == "permission-dialog"
    });
    // A choice is taken whatever its case; the event names it as the decision does.
    env.ok(&["answer", &p, "DENY"]);
    env.wait_until("the keys typed", || std::fs::read(&out).is_ok());
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "4|\r|",
        "the number, one Enter, nothing more"
    );
    assert!(
        env.daemon_log().contains("answer not taken"),
        "{}",
        env.daemon_log()
    );
    let resolved: Vec<Value> = env
        .events()
        .into_iter()
        .filter(|e| e["kind"] == "decision.resolved")
        .collect();
    assert_eq!(resolved.len(), 1, "{resolved:?}");
    assert_eq!(resolved[0]["how"], "answered", "{resolved:?}");
    assert_eq!(resolved[0]["choice"], "deny", "{resolved:?}");
}
