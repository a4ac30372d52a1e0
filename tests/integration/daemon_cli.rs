//! The daemon and the CLI on a private bus: start-up rules, bad input and exit codes,
//! and the checked-in introspection (docs/dbus-api.md).

use crate::support;

use attend::client::{error_name, Attend1ProxyBlocking, Dict};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use support::Env;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_second_daemon_on_the_same_bus_refuses_to_start() {
    let env = Env::with_daemon();
    let out = env.attend(&["daemon", "--no-tray", "--no-notifications"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("another attend daemon is already running on this bus"),
        "{}",
        stderr(&out)
    );
    // The first one still answers.
    env.ok(&["version"]);
}

#[test]
fn unknown_panes_are_bad_input_with_exit_2() {
    let env = Env::with_daemon();
    for args in [
        vec!["show", "p9"],
        vec!["seen", "p9"],
        vec!["kill", "p9"],
        vec!["send", "p9", "x"],
        vec!["answer", "p9", "yes"],
        vec!["show", "nonsense"],
    ] {
        let out = env.attend(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "attend {args:?}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).starts_with("attend: no such pane: "),
            "attend {args:?}: {}",
            stderr(&out)
        );
    }
    let out = env.attend(&["show", "p9"]);
    assert_eq!(stderr(&out), "attend: no such pane: p9\n");
    // An empty id is named visibly, never as a message that ends in nothing.
    for args in [vec!["show", ""], vec!["attach", ""], vec!["kill", ""]] {
        let out = env.attend(&args);
        assert_eq!(out.status.code(), Some(2), "attend {args:?}");
        assert_eq!(
            stderr(&out),
            "attend: no such pane: \"\" (an empty id)\n",
            "attend {args:?}"
        );
    }
    // An id with control characters is shown escaped, never sent to the terminal as is.
    for args in [
        vec!["show", "p1\u{1b}]0;title\u{7}\u{1b}[31m"],
        vec!["attach", "h:p1\u{1b}[31m"],
    ] {
        let out = env.attend(&args);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(!stderr(&out).contains('\u{1b}'), "{:?}", stderr(&out));
        assert!(stderr(&out).contains("\\u{1b}"), "{:?}", stderr(&out));
    }
}

#[test]
fn sending_nothing_is_bad_input_and_enter_alone_is_sent() {
    let env = Env::with_daemon();
    let done = env.path("done");
    let script = format!("read line; touch '{}'; sleep 100", done.display());
    let p = env.run(&["--", "sh", "-c", &script]);
    let out = env.attend(&["send", &p, ""]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "attend: nothing to send: the text is empty (--enter presses Enter alone)\n"
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!done.exists(), "nothing reached the program");
    env.ok(&["send", &p, "", "--enter"]);
    env.wait_until("the program read the Enter", || done.exists());
}

#[test]
fn a_program_that_cannot_be_spawned_names_program_and_errno_and_leaves_no_pane() {
    let env = Env::with_daemon();
    let out = env.attend(&["run", "--", "/nonexistent/attend-test-program", "x"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("/nonexistent/attend-test-program"), "{err}");
    assert!(err.contains("No such file or directory"), "{err}");
    assert!(out.stdout.is_empty());
    assert_eq!(env.ok(&["ls", "--json"]).trim(), "[]");
    assert!(
        env.events().is_empty(),
        "no event for a pane that never existed"
    );
    // The next pane still gets p1: nothing was half-created.
    assert_eq!(env.run(&["--", "sleep", "100"]), "p1");
}

#[test]
fn next_exits_1_when_nothing_is_unread() {
    let env = Env::with_daemon();
    let out = env.attend(&["next"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let p = env.run(&["--", "sh", "-c", "printf '\\a'; sleep 100"]);
    env.wait_pane(&p, "unread", |v| v["attention"] == "unread");
    assert_eq!(env.ok(&["next"]).trim(), p);
    let json: serde_json::Value = serde_json::from_str(&env.ok(&["next", "--json"])).unwrap();
    assert_eq!(json["id"], p.as_str());
}

#[test]
fn without_a_daemon_the_cli_exits_3_naming_the_bus_variable() {
    let env = Env::new();
    let out = env.attend(&["ls"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("DBUS_SESSION_BUS_ADDRESS"),
        "{}",
        stderr(&out)
    );
    // The hook client never fails the agent.
    let out = env.attend_with(&["hook", "claude"], b"{}", &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr(&out).starts_with("attend: hook not delivered"),
        "{}",
        stderr(&out)
    );
}

/// A newer agent that renamed its payload's fields (`hookEventName` for
/// `hook_event_name`): the hook still exits 0 and stores nothing, and the daemon's log
/// says so once per kind of refusal (docs/dbus-api.md#errors), not once per call.
#[test]
fn a_refused_hook_is_written_once_to_the_daemons_log() {
    let env = Env::with_daemon();
    // The executable `install-hooks` writes (`attend hook` refuses such a payload itself,
    // before any call).
    let exe = std::path::PathBuf::from(support::attend_bin()).with_file_name("attend-hook");
    assert!(exe.exists(), "{} (cargo build builds it)", exe.display());
    let renamed = br#"{"hookEventName":"Stop","sessionId":"s-renamed","cwd":"/tmp"}"#;
    for _ in 0..3 {
        let mut child = env
            .program(&exe.to_string_lossy())
            .arg("claude")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), renamed).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            stderr(&out).starts_with("attend: hook not delivered"),
            "{}",
            stderr(&out)
        );
    }
    env.wait_until("the refusal in the daemon's log", || {
        env.daemon_log().contains("a hook was refused")
    });
    let log = env.daemon_log();
    assert_eq!(log.matches("a hook was refused").count(), 1, "{log}");
    assert!(
        log.contains("agent=\"claude\"") || log.contains("agent=claude"),
        "{log}"
    );
    assert_eq!(env.ok(&["ls", "--json"]).trim(), "[]");
}

/// `attend hook` never exits 2 (an agent reads it as "block the tool call"): a hook line
/// with arguments too many is a usage error said on stderr, exit 0, as for `attend-hook`.
#[test]
fn a_hook_line_with_too_many_arguments_does_not_block_the_agent() {
    let env = Env::with_daemon();
    let stop = br#"{"hook_event_name":"Stop","session_id":"s1","cwd":"/tmp"}"#;
    let out = env.attend_with(&["hook", "claude", "Stop", "extra", "more"], stop, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("unexpected"), "{}", stderr(&out));
    // Usage errors of other commands keep exit 2.
    assert_eq!(
        env.attend(&["events", "--after", "-5"]).status.code(),
        Some(2)
    );
}

/// `attend run -- env FOO=1 claude` (no `--agent`) is a Claude Code pane from its
/// start, with its own hooks on the command line (docs/adapters.md, "Hooks for panes
/// Attend starts"), as `attend run -- claude` is.
#[test]
fn an_agent_behind_an_env_prefix_is_that_agents_pane() {
    let env = Env::with_daemon();
    let bin = env.work_dir().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    // A `claude` that records its arguments and waits.
    let claude = bin.join("claude");
    let args = env.work_dir().join("args.txt");
    std::fs::write(
        &claude,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\nexec sleep 30\n",
            args.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&claude, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let p = env.run(&["--", "env", "FOO=1", &claude.to_string_lossy()]);
    assert_eq!(env.show(&p)["agent"], "claude");
    env.wait_until("the agent started", || args.exists());
    let got = std::fs::read_to_string(&args).unwrap();
    assert!(got.starts_with("--settings\n"), "{got}");
}

#[test]
fn completions_and_man_page_come_from_clap() {
    let env = Env::new();
    let bash = env.ok(&["completions", "bash"]);
    assert!(bash.contains("attend") && bash.contains("workspaces"));
    let man = env.ok(&["man"]);
    assert!(man.contains(".TH ATTEND 1"), "{man}");
}

/// The `<interface name="io.github.attend.Attend1">` element, one trimmed line each.
fn attend1_interface(xml: &str) -> Vec<String> {
    let start = xml
        .find("<interface name=\"io.github.attend.Attend1\">")
        .expect("the Attend1 interface is present");
    let end = start + xml[start..].find("</interface>").unwrap();
    xml[start..end]
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn the_live_introspection_matches_the_checked_in_xml() {
    let env = Env::with_daemon();
    let live = env.attend1().inner().introspect().unwrap();
    let file = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/io.github.attend.Attend1.xml"
    ))
    .unwrap();
    assert_eq!(
        attend1_interface(&live),
        attend1_interface(&file),
        "data/io.github.attend.Attend1.xml differs from the live interface; live:\n{live}"
    );
}

#[test]
fn events_follow_catches_up_then_streams_new_events() {
    use std::io::{BufRead, BufReader};
    let env = Env::with_daemon();
    let first = env.run(&["--", "sleep", "100"]);
    let mut child = env
        .cmd()
        .args(["events", "--follow", "--json"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let next = || -> serde_json::Value {
        let line = rx
            .recv_timeout(support::TIMEOUT)
            .expect("events --follow printed nothing in time");
        serde_json::from_str(&line).unwrap()
    };
    let e = next();
    assert_eq!(
        (e["seq"].as_u64(), e["kind"].as_str()),
        (Some(1), Some("pane.added"))
    );
    assert_eq!(e["pane"], first.as_str());
    let second = env.run(&["--", "sleep", "100"]);
    let e = next();
    assert_eq!(
        (e["seq"].as_u64(), e["kind"].as_str()),
        (Some(2), Some("pane.added"))
    );
    assert_eq!(e["pane"], second.as_str());
    assert_eq!(e["source"], "process:process.spawn");
    let _ = child.kill();
    let _ = child.wait();
}

/// A signal seen by [`typed_client_calls_every_method_and_receives_the_signals`].
#[derive(Debug, Clone, PartialEq)]
enum Seen {
    /// `Event(seq, kind, pane, data)` (the data's `source`).
    Event(u64, String, String, String),
    /// `PaneChanged(seq, pane)`.
    PaneChanged(u64, String),
    /// `FocusRequested(pane)`.
    FocusRequested(String),
}

/// A string of a daemon dictionary.
fn text(d: &Dict, key: &str) -> String {
    let v = d.get(key).unwrap_or_else(|| panic!("no {key} in {d:?}"));
    <&str>::try_from(v)
        .unwrap_or_else(|e| panic!("{key}: {e}"))
        .to_string()
}

/// A dictionary inside a daemon dictionary.
fn dict(d: &Dict, key: &str) -> Dict {
    let v = d.get(key).unwrap_or_else(|| panic!("no {key} in {d:?}"));
    Dict::try_from(v.try_clone().unwrap()).unwrap_or_else(|e| panic!("{key}: {e}"))
}

/// `GetPane(pane)` as the bytes came: the dictionary, not the typed client's struct.
fn get_pane(attend: &Attend1ProxyBlocking<'_>, pane: &str) -> zbus::Result<Dict> {
    attend.inner().call("GetPane", &(pane,))
}

/// `ListPanes()` as the bytes came.
fn list_panes(attend: &Attend1ProxyBlocking<'_>) -> zbus::Result<Vec<Dict>> {
    attend.inner().call("ListPanes", &())
}

/// The error's short name (`error_name`) or a panic naming the call that succeeded.
fn named<T: std::fmt::Debug>(r: zbus::Result<T>) -> (String, String) {
    let e = r.expect_err("an error reply");
    let name = error_name(&e).unwrap_or_else(|| panic!("not a named error: {e}"));
    (name.to_string(), e.to_string())
}

/// The one typed client end to end: every method of `Attend1ProxyBlocking` against a real
/// daemon on a private bus (each error case checked by its name), and the `Event`,
/// `PaneChanged` and `FocusRequested` signals through the async `Attend1Proxy`.
#[test]
fn typed_client_calls_every_method_and_receives_the_signals() {
    use attend::client::Attend1Proxy;
    use zbus::zvariant::Value;

    let env = Env::with_daemon();
    let attend = env.attend1();

    // The signals, on a connection and runtime of their own (the blocking proxy must not
    // run inside a tokio runtime): subscribed before any call, collected in `seen`.
    let seen = Arc::new(Mutex::new(Vec::<Seen>::new()));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let address = env.bus.address.clone();
    let log = seen.clone();
    rt.block_on(async move {
        let conn = zbus::connection::Builder::address(address.as_str())
            .unwrap()
            .build()
            .await
            .unwrap();
        let proxy = Attend1Proxy::new(&conn).await.unwrap();
        let mut events = proxy.receive_event().await.unwrap();
        let mut changed = proxy.receive_pane_changed().await.unwrap();
        let mut focus = proxy.receive_focus_requested().await.unwrap();
        let l = log.clone();
        tokio::spawn(async move {
            while let Some(s) = next(&mut events).await {
                let a = s.args().unwrap();
                let source = <&str>::try_from(&a.data["source"]).unwrap().to_string();
                let seen = Seen::Event(a.seq, a.kind.clone(), a.pane.clone(), source);
                l.lock().unwrap().push(seen);
            }
        });
        let l = log.clone();
        tokio::spawn(async move {
            while let Some(s) = next(&mut changed).await {
                let a = s.args().unwrap();
                l.lock()
                    .unwrap()
                    .push(Seen::PaneChanged(a.seq, a.pane.clone()));
            }
        });
        tokio::spawn(async move {
            while let Some(s) = next(&mut focus).await {
                let a = s.args().unwrap();
                log.lock()
                    .unwrap()
                    .push(Seen::FocusRequested(a.pane.clone()));
            }
        });
    });
    // The first signal from the `from`-th on that `want` accepts.
    let wait_seen = |what: &str, from: usize, want: &dyn Fn(&Seen) -> bool| -> Seen {
        let mut found = None;
        env.wait_until(what, || {
            found = seen
                .lock()
                .unwrap()
                .iter()
                .skip(from)
                .find(|s| want(s))
                .cloned();
            found.is_some()
        });
        found.unwrap()
    };

    assert_eq!(attend.version().unwrap(), env!("CARGO_PKG_VERSION"));

    // Run: refusals by name, then a claude pane echoing each line and its terminal size.
    let work = env.work_dir();
    fn spec<'a>(argv: Vec<&'a str>) -> HashMap<&'static str, Value<'a>> {
        HashMap::from([("argv", Value::from(argv))])
    }
    let (name, _) = named(attend.run(&spec(vec![])));
    assert_eq!(name, "InvalidArgument");
    let (name, msg) = named(attend.run(&spec(vec!["/nonexistent/attend-test-program"])));
    assert_eq!(name, "SpawnFailed");
    assert!(msg.contains("/nonexistent/attend-test-program"), "{msg}");
    let script = "echo ready; while read l; do echo \"got $l\"; stty size; done";
    let mut run = spec(vec!["sh", "-c", script]);
    run.insert("agent", Value::from("claude"));
    run.insert("name", Value::from("typed"));
    run.insert("cwd", Value::from(work.to_str().unwrap()));
    let p = attend.run(&run).unwrap();
    assert!(p.starts_with('p'), "{p}");
    let added = wait_seen(
        "the pane.added Event",
        0,
        &|s| matches!(s, Seen::Event(_, k, pane, _) if k == "pane.added" && *pane == p),
    );

    // Reading: the pane, the list, the workspaces; an unknown pane by name.
    let pane = get_pane(&attend, &p).unwrap();
    let typed = attend.get_pane(&p).unwrap();
    assert_eq!(
        (typed.id.as_str(), typed.name.as_str()),
        (p.as_str(), "typed")
    );
    assert_eq!(
        (text(&pane, "id"), text(&pane, "name"), text(&pane, "agent")),
        (p.clone(), "typed".to_string(), "claude".to_string())
    );
    let ids: Vec<String> = list_panes(&attend)
        .unwrap()
        .iter()
        .map(|d| text(d, "id"))
        .collect();
    assert_eq!(ids, [p.as_str()]);
    let workspaces = attend.list_workspaces().unwrap();
    assert_eq!(workspaces.len(), 1, "{workspaces:?}");
    let panes = Vec::<String>::try_from(workspaces[0]["panes"].try_clone().unwrap()).unwrap();
    assert_eq!(panes, [p.as_str()]);
    assert_eq!(named(attend.get_pane("p99")).0, "NoSuchPane");

    // The terminal: screen, input, resize, attach.
    let screen_has = |what: &str, line: &str| {
        env.wait_until(what, || {
            attend
                .get_screen(&p)
                .is_ok_and(|s| s.lines().any(|l| l.trim_end() == line))
        })
    };
    screen_has("the first output", "ready");
    attend.send_input(&p, b"hello\n").unwrap();
    screen_has("the typed line echoed", "got hello");
    screen_has("the first size", "24 80");
    attend.resize(&p, 30, 100).unwrap();
    assert_eq!(named(attend.resize(&p, 0, 100)).0, "InvalidArgument");
    attend.send_input(&p, b"again\n").unwrap();
    screen_has("the new size", "30 100");
    let socket = attend.attach(&p).unwrap();
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::metadata(&socket).unwrap().file_type().is_socket(),
        "{socket}"
    );

    // Hooks and decisions: a permission request opens one, answered by a known choice.
    let hook = |payload: serde_json::Value, delivery: &str| {
        let context = HashMap::from([
            ("pane", Value::from(p.as_str())),
            ("delivery_id", Value::from(delivery)),
        ]);
        attend.hook("claude", "", &payload.to_string(), &context)
    };
    let ask = serde_json::json!({
        "session_id": "s-typed",
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": "echo hi > out.txt", "description": "write a file"}
    });
    hook(ask, "d-ask").unwrap();
    let decision = dict(&get_pane(&attend, &p).unwrap(), "pending_decision");
    assert_eq!(text(&decision, "kind"), "permission");
    // No dialog on this pane's screen: a named choice types nothing.
    let (name, msg) = named(attend.answer(&p, "definitely-not-a-choice"));
    assert_eq!(name, "DialogUnreadable");
    assert!(msg.contains("nothing was typed"), "{msg}");
    attend.answer(&p, "1").unwrap();
    assert!(!get_pane(&attend, &p)
        .unwrap()
        .contains_key("pending_decision"));
    assert_eq!(named(attend.answer(&p, "1")).0, "NoDecision");

    // A completion: its Event signal carries what `Events` lists for its seq.
    let stop = serde_json::json!({
        "session_id": "s-typed",
        "hook_event_name": "Stop",
        "last_assistant_message": "Typed work done."
    });
    let seq = hook(stop, "d-stop").unwrap();
    let (s, kind, pane, data) = attend.events(seq - 1, 1).unwrap().remove(0);
    assert_eq!(s, seq);
    let signal = wait_seen(
        "the Event signal of the Stop hook",
        0,
        &|e| matches!(e, Seen::Event(n, ..) if *n == seq),
    );
    let source = <&str>::try_from(&data["source"]).unwrap().to_string();
    assert_eq!(signal, Seen::Event(seq, kind, pane, source));
    let all = attend.events(0, 0).unwrap();
    assert_eq!(
        all.last().map(|e| e.0),
        Some(seq),
        "Events ends at the last seq"
    );
    let Seen::Event(first, ..) = added else {
        unreachable!()
    };
    assert_eq!(
        all.first().map(|e| e.0),
        Some(first),
        "the pane.added was the first"
    );
    assert_eq!(text(&get_pane(&attend, &p).unwrap(), "attention"), "unread");
    assert_eq!(attend.next_unread().unwrap(), p);
    attend.mark_seen(&p).unwrap();
    assert_eq!(attend.next_unread().unwrap(), "");
    assert_eq!(text(&get_pane(&attend, &p).unwrap(), "attention"), "none");
    assert_eq!(named(attend.mark_seen("p99")).0, "NoSuchPane");

    // Focus.
    attend.focus(&p).unwrap();
    wait_seen("FocusRequested", 0, &|s| {
        *s == Seen::FocusRequested(p.clone())
    });
    let focused = || bool::try_from(&get_pane(&attend, &p).unwrap()["focused"]).unwrap();
    attend.set_focused(&p, true).unwrap();
    assert!(focused(), "SetFocused true");
    attend.set_focused(&p, false).unwrap();
    assert!(!focused(), "SetFocused false");

    // Explain, tasks, holds.
    let why = attend.explain(&p).unwrap();
    assert_eq!(text(&why, "agent"), "claude");
    assert!(why.contains_key("chrome"), "{why:?}");
    let task = attend.add_task(&p, "write the typed test").unwrap();
    attend.set_task_state(task, "working", "on it").unwrap();
    let tasks = Vec::<Dict>::try_from(get_pane(&attend, &p).unwrap()["tasks"].try_clone().unwrap())
        .unwrap();
    assert_eq!(
        tasks
            .iter()
            .map(|t| (text(t, "text"), text(t, "state"), text(t, "message")))
            .collect::<Vec<_>>(),
        [(
            "write the typed test".to_string(),
            "working".to_string(),
            "on it".to_string()
        )]
    );
    assert_eq!(
        named(attend.set_task_state(task, "bogus", "")).0,
        "InvalidArgument"
    );
    assert_eq!(named(attend.add_task(&p, " ")).0, "InvalidArgument");
    let wake = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
        + 3_600_000;
    attend.set_hold(&p, "bob", wake, "lunch").unwrap();
    let hold = dict(&get_pane(&attend, &p).unwrap(), "hold");
    assert_eq!(
        (text(&hold, "owner"), text(&hold, "reason")),
        ("bob".into(), "lunch".into())
    );
    wait_seen(
        "PaneChanged of the hold",
        0,
        &|s| matches!(s, Seen::PaneChanged(_, pane) if *pane == p),
    );
    assert_eq!(
        named(attend.set_hold(&p, " ", wake, "")).0,
        "InvalidArgument"
    );
    attend.clear_hold(&p).unwrap();
    assert!(!get_pane(&attend, &p).unwrap().contains_key("hold"));
    assert_eq!(named(attend.clear_hold("p99")).0, "NoSuchPane");

    // Outside Attend: a hook without a pane makes an external pane, which takes no input.
    let outside = HashMap::from([("delivery_id", Value::from("d-ext"))]);
    let start = serde_json::json!({"session_id": "s-outside", "hook_event_name": "UserPromptSubmit", "prompt": "hi"});
    attend
        .hook("claude", "", &start.to_string(), &outside)
        .unwrap();
    let external = list_panes(&attend)
        .unwrap()
        .into_iter()
        .find(|d| !bool::try_from(&d["owned"]).unwrap())
        .expect("the external pane");
    let (name, msg) = named(attend.send_input(&text(&external, "id"), b"x"));
    assert_eq!(name, "NotOwned", "{msg}");
    let big = "x".repeat(1024 * 1024 + 1);
    assert_eq!(
        named(attend.hook("claude", "", &big, &outside)).0,
        "PayloadTooLarge"
    );

    // Kill and resume, on a pane of its own (the claude pane would resume `claude`): the
    // same pane id runs its command again.
    let q = attend
        .run(&spec(vec!["sh", "-c", "echo second; sleep 100"]))
        .unwrap();
    let live = |pane: &str| text(&dict(&get_pane(&attend, pane).unwrap(), "live"), "state");
    assert_eq!(named(attend.resume(&q)).0, "InvalidArgument");
    assert_eq!(named(attend.kill(&q, 999)).0, "InvalidArgument");
    attend.kill(&q, 15).unwrap();
    env.wait_until("the killed pane exited", || live(&q) == "exited");
    let before_resume = seen.lock().unwrap().len();
    attend.resume(&q).unwrap();
    assert_eq!(live(&q), "running");
    env.wait_until("the resumed program's output", || {
        attend
            .get_screen(&q)
            .is_ok_and(|s| s.lines().any(|l| l.trim_end() == "second"))
    });
    wait_seen(
        "PaneChanged of the resume",
        before_resume,
        &|s| matches!(s, Seen::PaneChanged(_, pane) if *pane == q),
    );
    assert_eq!(named(attend.resume("p99")).0, "NoSuchPane");
}

/// The next item of a stream (a typed signal stream of the proxy).
async fn next<S>(stream: &mut S) -> Option<S::Item>
where
    S: zbus::export::futures_core::Stream + Unpin,
{
    std::future::poll_fn(|cx| std::pin::Pin::new(&mut *stream).poll_next(cx)).await
}

/// Control characters from a hook payload or a command line never reach plain-text output
/// raw: one pane is one row of `attend ls`, one workspace one row of `attend workspaces`,
/// one field one line of `attend show`, one event one line of `attend events`, and
/// `attend status` is one line; `--json` keeps the values exact.
#[test]
fn control_characters_in_values_cannot_forge_rows_or_reach_the_terminal() {
    use zbus::zvariant::Value;
    let env = Env::with_daemon();
    let name = "evil\x1b[31mname\nx";
    let workspace = "w\x07s\np98  fake  main  api  claude  done  none  running  ok";
    let p = env.run(&[
        "-n", name, "-w", workspace, "-t", "t\tab", "--agent", "claude", "--", "sleep", "100",
    ]);
    let message = "done\n\x1b]0;title\x07\r\u{9b}ok\x7f";
    let stop = serde_json::json!({
        "session_id": "s-ctl",
        "cwd": "/tmp/y\np97  bank  main",
        "hook_event_name": "Stop",
        "stop_hook_active": false,
        "last_assistant_message": message,
    });
    env.hook("claude", &p, &stop.to_string(), "d-ctl").unwrap();
    // Outside Attend: an external pane whose cwd (its workspace) tries to forge a row.
    let forge = serde_json::json!({
        "session_id": "forge",
        "hook_event_name": "SessionStart",
        "cwd": "/tmp/x\np99   bank  main  api  claude  done  none  running  all good",
    });
    let outside = HashMap::from([("delivery_id", Value::from("d-forge"))]);
    env.attend1()
        .hook("claude", "", &forge.to_string(), &outside)
        .unwrap();

    let raw = |s: &str| s.chars().any(|c| c.is_control() && c != '\n');
    let count = |args: &[&str]| -> usize {
        let v: serde_json::Value = serde_json::from_str(&env.ok(args)).unwrap();
        v.as_array().unwrap().len()
    };

    let panes = count(&["ls", "--json"]);
    assert_eq!(panes, 2);
    let ls = env.ok(&["ls"]);
    assert_eq!(ls.lines().count(), 1 + panes, "{ls}");
    assert!(!raw(&ls), "{ls:?}");
    assert!(ls.contains("evil\\x1b[31mname\\nx"), "{ls}");
    assert!(!ls.lines().any(|l| l.starts_with("p99")), "{ls}");

    let workspaces = count(&["workspaces", "--json"]);
    assert_eq!(workspaces, 2);
    let ws = env.ok(&["workspaces"]);
    assert_eq!(ws.lines().count(), 1 + workspaces, "{ws}");
    assert!(!raw(&ws), "{ws:?}");

    let show = env.ok(&["show", &p]);
    assert_eq!(show.lines().count(), 21, "{show}");
    assert!(!raw(&show), "{show:?}");
    let json = env.show(&p);
    assert_eq!(json["name"], name);
    assert_eq!(json["workspace"], workspace);
    // The daemon strips terminal sequences from messages itself; the newline stays.
    let kept = json["last_message"].as_str().unwrap();
    assert!(kept.starts_with("done\n"), "{kept:?}");
    assert!(show.contains("done\\n"), "{show}");

    let events = env.ok(&["events"]);
    assert!(!raw(&events), "{events:?}");
    for line in events.lines() {
        let seq = line.split_whitespace().next().unwrap_or("");
        assert!(seq.parse::<u64>().is_ok(), "a forged event line: {line:?}");
    }

    let status = env.ok(&["status"]);
    assert_eq!(status.lines().count(), 1, "{status}");
    assert!(!raw(&status), "{status:?}");
}
