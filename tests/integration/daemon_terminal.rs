//! Real PTYs under the real daemon: BEL and OSC notifications become attention, the
//! user's `seen` clears it, input reaches the program and its exit is recorded (docs/lifecycle-attention.md#signals
//! rows bell, terminal notification, process exited).

use crate::support;

use attend::client::error_name;
use support::Env;

#[test]
fn bel_raises_unread_seen_clears_it_send_ends_it_and_the_exit_is_recorded() {
    let env = Env::with_daemon();
    let p = env.run(&["--", "sh", "-c", "printf '\\a'; read x"]);
    assert_eq!(p, "p1");
    let v = env.wait_pane(&p, "BEL raises unread", |v| v["attention"] == "unread");
    assert_eq!(v["live"]["state"], "running");
    assert_eq!(v["agent"], "shell");
    assert_eq!(v["tab"], "main");
    assert!(v["last_seen_at"].is_null());

    env.ok(&["seen", &p]);
    let v = env.show(&p);
    assert_eq!(v["attention"], "none");
    assert!(v["last_seen_at"].is_string(), "{v}");

    env.ok(&["send", &p, "x", "--enter"]);
    let v = env.wait_pane(&p, "the program exits", |v| v["live"]["state"] == "exited");
    assert_eq!(
        v["live"],
        serde_json::json!({"state": "exited", "code": 0, "signal": null})
    );
    assert!(v["last_lifecycle"].is_string(), "{v}");

    let kinds: Vec<String> = env
        .events()
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        kinds[..3],
        ["pane.added", "attention.created", "attention.cleared"]
    );
    assert!(kinds.contains(&"pane.exited".to_string()), "{kinds:?}");
}

#[test]
fn a_non_zero_exit_and_a_kill_are_recorded_as_failures() {
    let env = Env::with_daemon();
    let a = env.run(&["--", "sh", "-c", "exit 7"]);
    let v = env.wait_pane(&a, "exit 7", |v| v["live"]["state"] == "exited");
    assert_eq!(v["live"]["code"], 7);
    assert_eq!(v["lifecycle"], "failed");
    assert_eq!(v["attention"], "error");

    let b = env.run(&["--", "sleep", "100"]);
    env.ok(&["kill", &b, "--signal", "KILL"]);
    let v = env.wait_pane(&b, "killed", |v| v["live"]["state"] == "exited");
    assert_eq!(v["live"]["signal"], 9);
    assert!(v["live"]["code"].is_null());
}

#[test]
fn osc_9_777_99_and_split_sequences_become_notifications_with_their_text() {
    let env = Env::with_daemon();
    // Agent panes: the program's own output is not a reason for attention there, so only
    // the terminal notifications speak.
    let programs = [
        (
            "osc 9",
            "printf '\\033]9;nine says hi\\007'; sleep 100",
            "nine says hi",
        ),
        (
            "osc 777",
            "printf '\\033]777;notify;Build;seven says hi\\033\\\\'; sleep 100",
            "seven says hi",
        ),
        (
            "osc 99 chunked",
            "printf '\\033]99;i=1:d=0:p=title;Kitty\\033\\\\'; \
             printf '\\033]99;i=1:p=body;kitty says hi\\033\\\\'; sleep 100",
            "kitty says hi",
        ),
        (
            "split osc 9",
            "printf '\\033]9;split '; sleep 0.5; printf 'across reads\\007'; sleep 100",
            "split across reads",
        ),
    ];
    let panes: Vec<(String, &str, &str)> = programs
        .iter()
        .map(|(what, prog, text)| {
            (
                env.run(&["--agent", "claude", "--", "sh", "-c", prog]),
                *what,
                *text,
            )
        })
        .collect();
    for (p, what, text) in panes {
        let v = env.wait_pane(&p, what, |v| v["attention"] == "unread");
        let msg = v["last_message"].as_str().unwrap_or_default();
        assert!(
            msg.contains(text),
            "{what}: last_message {msg:?} lacks {text:?}"
        );
        assert_eq!(v["agent"], "claude");
    }
}

#[test]
fn a_focused_pane_counts_new_output_and_bells_as_seen() {
    let env = Env::with_daemon();
    let p = env.run(&[
        "--",
        "sh",
        "-c",
        "read x; printf 'ring\\a\\033]0;rang\\007'; sleep 100",
    ]);
    env.set_focused(&p, true);
    assert_eq!(env.show(&p)["focused"], true);
    env.ok(&["send", &p, "go", "--enter"]);
    // The title is a marker behind the output and the bell on the same terminal: once it
    // shows, both were applied, and nothing may be outstanding.
    let v = env.wait_pane(&p, "the title set after the bell", |v| v["title"] == "rang");
    assert_eq!(v["attention"], "none", "{v}");
    assert!(v["last_seen_at"].is_string());
    env.set_focused(&p, false);
    assert_eq!(env.show(&p)["focused"], false);
}

#[test]
fn osc_7_moves_the_cwd_and_refreshes_repo_and_branch_from_git() {
    let env = Env::with_daemon();
    let repo = env.work_dir().join("checkout");
    std::fs::create_dir_all(&repo).unwrap();
    let ok = std::process::Command::new("git")
        .args(["init", "-q", "-b", "feature-x"])
        .arg(&repo)
        .status()
        .unwrap();
    assert!(ok.success());
    let p = env.run(&[
        "--",
        "sh",
        "-c",
        "read x; printf '\\033]7;file://localhost%s\\007' \"$x\"; sleep 100",
    ]);
    let v = env.show(&p);
    assert!(v["repo"].is_null(), "the work dir is no repository: {v}");
    env.ok(&["send", &p, repo.to_str().unwrap(), "--enter"]);
    let v = env.wait_pane(&p, "repo and branch of the new cwd", |v| {
        v["branch"] == "feature-x"
    });
    assert_eq!(v["repo"], "checkout");
    assert_eq!(v["cwd"], repo.to_str().unwrap());
}

#[test]
fn get_screen_returns_the_live_screen_text() {
    let env = Env::with_daemon();
    let p = env.run(&["--", "sh", "-c", "printf 'preview line one\\n'; sleep 100"]);
    let attend = env.attend1();
    env.wait_until("the output reached the screen", || {
        attend
            .get_screen(&p)
            .is_ok_and(|s| s.lines().any(|l| l.trim_end() == "preview line one"))
    });
    let err = attend.get_screen("p99").unwrap_err();
    assert_eq!(error_name(&err), Some("NoSuchPane"), "{err}");
    assert!(err.to_string().contains("p99"), "{err}");
}

/// The kinds of `pane`'s events, oldest first.
fn kinds_of(env: &Env, pane: &str) -> Vec<String> {
    env.events()
        .iter()
        .filter(|e| e["pane"] == pane)
        .map(|e| e["kind"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_fresh_interactive_shell_is_quiet_until_output_after_its_first_prompt() {
    let env = Env::with_daemon();
    let p = env.run(&["--", "sh", "-i"]);
    let v = env.wait_pane(&p, "the first prompt", |v| v["lifecycle"] == "idle");
    assert_eq!(
        v["attention"], "none",
        "its own first prompt is not news: {v}"
    );
    std::thread::sleep(std::time::Duration::from_millis(
        attend::engine::SHELL_QUIET_MS as u64 + 200,
    ));
    assert_eq!(env.show(&p)["attention"], "none");
    env.ok(&["send", &p, "echo later", "--enter"]);
    env.wait_pane(&p, "output after the first prompt", |v| {
        v["attention"] == "unread"
    });
    env.ok(&["kill", &p, "--signal", "KILL"]);
}

#[test]
fn the_users_kill_is_failed_killed_by_you_without_attention_an_outside_kill_is_a_crash() {
    let env = Env::with_daemon();
    // Working by its OSC 133 C mark; the script's pid is the sleep's (exec).
    let pid_file = env.path("pid");
    let script = format!(
        "echo $$ > {}; printf '\\033]133;C\\007'; exec sleep 100",
        pid_file.display()
    );
    let mine = env.run(&["--", "sh", "-c", &script]);
    env.wait_pane(&mine, "working", |v| v["lifecycle"] == "working");
    env.ok(&["kill", &mine]);
    let v = env.wait_pane(&mine, "killed", |v| v["live"]["state"] == "exited");
    assert_eq!(v["live"]["signal"], 15);
    assert_eq!(v["lifecycle"], "failed");
    assert_eq!(v["attention"], "none");
    assert_eq!(v["last_message"], attend::engine::KILLED_BY_YOU);
    let kinds = kinds_of(&env, &mine);
    assert!(
        !kinds.iter().any(|k| k == "attention.created"),
        "nothing to announce: {kinds:?}"
    );

    std::fs::remove_file(&pid_file).unwrap();
    let other = env.run(&["--", "sh", "-c", &script]);
    env.wait_pane(&other, "working", |v| v["lifecycle"] == "working");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let status = std::process::Command::new("kill")
        .args(["-9", pid.trim()])
        .status()
        .unwrap();
    assert!(status.success());
    let v = env.wait_pane(&other, "crashed", |v| v["live"]["state"] == "exited");
    assert_eq!(v["live"]["signal"], 9);
    assert_eq!(v["lifecycle"], "failed");
    assert_eq!(v["attention"], "error", "a kill from outside Attend: {v}");
    assert!(kinds_of(&env, &other)
        .iter()
        .any(|k| k == "attention.created"));
}
