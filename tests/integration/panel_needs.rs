//! The panel's Needs you view (docs/desktop-surfaces.md#needs-you) under Xvfb: a gate of
//! an external Claude pane here (its hook waits), a question dialog of a pane Attend runs
//! here, and a gate of a remote host's external pane (a second daemon linked with
//! `--via`, tests/support/remote.rs) are listed in one queue, worst first then the oldest;
//! `attend needs --json` lists the same; keys on the list allow the gates (the stand-ins
//! then run their commands) and pick option 2 of the question; empty, it says nothing
//! waits.

use crate::panel::{text, Panel, Xvfb};
use crate::support::{self, attend_bin, Env};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Child;
use support::remote::{add, local_env, remote_env, via_args, wait_state};

/// The hook executable's argv up to the agent's name.
pub(crate) fn hook_argv() -> String {
    let exe = PathBuf::from(attend_bin()).with_file_name("attend-hook");
    let argv = if exe.exists() {
        vec![exe.to_string_lossy().into_owned()]
    } else {
        vec![attend_bin().to_string(), "hook".into()]
    };
    shlex::try_join(argv.iter().map(String::as_str)).unwrap()
}

/// A stand-in for Claude Code outside Attend on `env`: its `PermissionRequest` for
/// `command` waits in the hook (asked again while the hook spooled it); when the answer is allow, it runs `command` in its work
/// folder, as Claude Code runs an allowed tool.
fn gate_agent(env: &Env, session: &str, command: &str) -> Child {
    let payload = json!({
        "session_id": session,
        "cwd": env.work_dir(),
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Write a file"}
    })
    .to_string();
    // The hook spools its payload and prints nothing when the daemon does not take the
    // call within its 300 ms budget (a loaded machine); the spool is replayed only at the
    // next daemon start, so the stand-in asks again, as a gate that was never shown.
    let script = format!(
        "for i in 1 2 3 4 5; do printf '%s' \"$PAYLOAD\" | {} claude > {session}.answer; \
         [ -s {session}.answer ] && break; done; \
         grep -q '\"behavior\":\"allow\"' {session}.answer && sh -c \"$COMMAND\"",
        hook_argv()
    );
    env.program("sh")
        .args(["-c", &script])
        .env("PAYLOAD", payload)
        .env("COMMAND", command)
        .current_dir(env.work_dir())
        .spawn()
        .expect("sh")
}

/// The id of the external pane of `session` once its gate is open.
fn gate_pane(env: &Env, session: &str) -> String {
    let mut id = String::new();
    env.wait_until("the external pane's gate opens", || {
        let panes: Vec<Value> =
            serde_json::from_str(&env.ok(&["ls", "--json"])).unwrap_or_default();
        match panes.iter().find(|p| p["session_id"] == session) {
            Some(p) if !p["pending_decision"].is_null() => {
                id = p["id"].as_str().unwrap().to_string();
                true
            }
            _ => false,
        }
    });
    env.wait_gate_waiting(&id);
    id
}

/// A pane of Claude (40×120 like the recording) that draws the recorded folder-trust
/// dialog (a question of two options), reads one line, writes it to `out` and waits.
fn dialog_pane(env: &Env, out: &Path) -> String {
    let go = out.with_extension("go");
    let screen = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/screens/claude/2.1.332/folder-trust.txt"
    );
    let script = format!(
        "while [ ! -e '{}' ]; do sleep 0.05; done; cat '{screen}'; IFS= read -r k; \
         printf '%s' \"$k\" > '{}'; exec sleep 100",
        go.display(),
        out.display()
    );
    let p = env.run(&[
        "-n", "trust", "--agent", "claude", "--", "sh", "-c", &script,
    ]);
    env.attend1().resize(&p, 40, 120).unwrap();
    std::fs::write(&go, "").unwrap();
    p
}

/// The panes of the Needs you rows, in order, once the view is shown.
fn rows(d: &Value) -> Result<Vec<String>, String> {
    let v = &d["needs_you"];
    if v["visible"] != true {
        return Err(format!("the view is not shown: {v}"));
    }
    Ok(v["rows"]
        .as_array()
        .ok_or("no rows")?
        .iter()
        .map(|r| text(&r["pane"]).to_string())
        .collect())
}

fn wait_rows(panel: &mut Panel, what: &str, want: &[&str]) -> Value {
    panel.wait(what, |d| {
        let got = rows(d)?;
        (got == want)
            .then_some(())
            .ok_or(format!("rows {got:?}, want {want:?}"))
    })
}

/// What `attend ARGS` printed on stdout (whatever its exit).
fn stdout(env: &Env, args: &[&str]) -> String {
    String::from_utf8_lossy(&env.attend(args).stdout).into_owned()
}

/// `child` has exited successfully (bounded wait).
fn exits_ok(env: &Env, child: &mut Child, what: &str) {
    env.wait_until(what, || child.try_wait().unwrap().is_some());
    assert!(child.wait().unwrap().success(), "{what}");
}

#[test]
fn needs_you_lists_a_gate_a_question_and_a_remote_gate_and_answers_them_by_key() {
    let (remote, socket) = remote_env();
    let local = local_env();
    add(&local, "r1", "box", &via_args(&remote, &socket));
    wait_state(&local, "r1", "connected", |r| r["state"] == "connected");

    let out = local.work_dir().join("trust.txt");
    let question = dialog_pane(&local, &out);
    local.wait_pane(&question, "the dialog's question", |v| {
        v["pending_decision"]["kind"] == "question"
    });
    let mut here = gate_agent(&local, "needs-here", "echo ran > ran-here.txt");
    let gate = gate_pane(&local, "needs-here");
    let mut there = gate_agent(&remote, "needs-there", "echo ran > ran-there.txt");
    let far = format!("r1:{}", gate_pane(&remote, "needs-there"));
    support::remote::wait_listed(&local, &far, "the remote gate mirrored", |v| {
        v["pending_decision"]["kind"] == "permission"
    });

    // Worst first (the gates), each kind oldest first; the CLI lists the same queue.
    let order = [gate.as_str(), far.as_str(), question.as_str()];
    let cli: Value =
        serde_json::from_str(&stdout(&local, &["needs", "--json"])).expect("attend needs --json");
    let listed: Vec<&str> = cli
        .as_array()
        .unwrap()
        .iter()
        .map(|n| text(&n["pane"]))
        .collect();
    assert_eq!(listed, order, "{cli:#}");
    assert_eq!(cli[1]["host"], "r1");
    assert_eq!(
        cli[2]["options"].as_array().map(Vec::len),
        Some(2),
        "{cli:#}"
    );

    let x = Xvfb::start();
    let mut panel = Panel::start(&local, &x, &[]);
    panel.wait("online", |d| {
        (d["state"] == "online")
            .then_some(())
            .ok_or("offline".into())
    });
    panel.keys(&["ctrl+shift+a"]);
    let d = wait_rows(&mut panel, "the three decisions listed", &order);
    let shown = &d["needs_you"]["rows"];
    assert_eq!(shown[0]["severity"], "permission_required");
    assert_eq!(shown[0]["buttons"], json!(["allow", "deny"]));
    assert_eq!(
        shown[0]["prompt"], "Bash: echo ran > ran-here.txt",
        "{shown:#}"
    );
    assert!(text(&shown[1]["where"]).starts_with("r1 › "), "{shown:#}");
    assert_eq!(
        shown[2]["reply"], false,
        "a dialog without a free-text option: no field"
    );
    assert_eq!(
        shown[0]["focused"], true,
        "the keyboard is on the first row: {shown:#}"
    );

    // `a` allows the first row's gate: its hook gets allow and the agent runs the command.
    panel.keys_to_focus(&["a"]);
    exits_ok(&local, &mut here, "the local gate's agent ran its command");
    assert!(local.work_dir().join("ran-here.txt").exists());
    wait_rows(&mut panel, "the local gate gone", &order[1..]);

    // The next row is the remote gate: allowed there, run there.
    panel.keys_to_focus(&["a"]);
    exits_ok(
        &remote,
        &mut there,
        "the remote gate's agent ran its command",
    );
    assert!(remote.work_dir().join("ran-there.txt").exists());
    wait_rows(&mut panel, "the remote gate gone", &order[2..]);

    // `2` picks the question's second option.
    panel.keys_to_focus(&["2"]);
    local.wait_pane(&question, "the question answered", |v| {
        v["pending_decision"].is_null()
    });
    let resolved = local
        .events()
        .into_iter()
        .rev()
        .find(|e| e["pane"] == question.as_str() && e["kind"] == "decision.resolved")
        .expect("a resolution");
    assert_eq!(resolved["how"], "answered", "{resolved}");
    local.wait_until("the pane read the keys", || out.exists());
    let d = wait_rows(&mut panel, "nothing left", &[]);
    assert_eq!(d["needs_you"]["empty"]["visible"], true);
    assert_eq!(d["needs_you"]["empty"]["title"], "Nothing waits");
    let nothing = local.attend(&["needs"]);
    assert_eq!(nothing.status.code(), Some(1), "exit 1: nothing waits");
    assert_eq!(String::from_utf8_lossy(&nothing.stdout), "nothing waits\n");
}

/// A pane Attend runs standing in for Claude Code asking a question without options (it
/// takes free text): its `PreToolUse` of `AskUserQuestion` delivered from inside the pane,
/// then it reads one line into `out`.
pub(crate) fn free_text_pane(env: &Env, out: &Path) -> String {
    let payload = json!({
        "session_id": "needs-reply",
        "cwd": env.work_dir(),
        "hook_event_name": "PreToolUse",
        "tool_name": "AskUserQuestion",
        "tool_use_id": "toolu_reply",
        "tool_input": {"questions": [{"question": "Which database should the tests use, and why?"}]}
    });
    let file = env.path("question.json");
    std::fs::write(&file, payload.to_string()).unwrap();
    let script = format!(
        "{} claude < '{}'; IFS= read -r k; printf '%s' \"$k\" > '{}'; exec sleep 100",
        hook_argv(),
        file.display(),
        out.display()
    );
    env.run(&["-n", "db", "--agent", "claude", "--", "sh", "-c", &script])
}

#[test]
fn a_reply_typed_in_needs_you_reaches_the_agent() {
    let env = Env::with_daemon();
    let out = env.path("reply.txt");
    let pane = free_text_pane(&env, &out);
    env.wait_pane(&pane, "the question", |v| {
        v["pending_decision"]["kind"] == "question"
    });
    let x = Xvfb::start();
    let mut panel = Panel::start(&env, &x, &[]);
    panel.wait("online", |d| {
        (d["state"] == "online")
            .then_some(())
            .ok_or("offline".into())
    });
    panel.keys(&["ctrl+shift+a"]);
    let d = wait_rows(&mut panel, "the question listed", &[pane.as_str()]);
    assert_eq!(
        d["needs_you"]["rows"][0]["reply"], true,
        "a question without options takes text"
    );
    // `r` goes to the reply field; what is typed there and Enter reach the agent.
    panel.keys_to_focus(&["r"]);
    panel.wait("the reply field focused", |d| {
        (d["needs_you"]["rows"][0]["reply_focused"] == true)
            .then_some(())
            .ok_or(format!("{}", d["needs_you"]))
    });
    panel.keys_to_focus(&[
        "s", "q", "l", "i", "t", "e", "space", "f", "a", "s", "t", "Return",
    ]);
    env.wait_until("the reply typed into the pane", || {
        std::fs::read_to_string(&out).is_ok_and(|s| s == "sqlite fast")
    });
    env.wait_pane(&pane, "typing is interaction: seen", |v| {
        v["last_seen_at"].is_string()
    });
}
