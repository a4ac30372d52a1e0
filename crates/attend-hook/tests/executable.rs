//! The `attend-hook` executable against a scripted bus (a Unix socket in the test that
//! speaks just enough D-Bus), and with no bus at all: delivered, refused, spooled.

use attend_hook::marshal::{self, Writer, ERROR, FIXED_HEADER, METHOD_CALL, METHOD_RETURN};
use attend_hook::spool::{SpoolRecord, SPOOL_FILE};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::thread;

const STOP: &str = r#"{"hook_event_name":"Stop","session_id":"s-1"}"#;

fn hook(dir: &Path, args: &[&str], stdin: &str, bus: Option<&Path>) -> Output {
    hook_with(dir, args, stdin, bus, &[])
}

/// [`hook`] with `vars` added to its environment.
fn hook_with(
    dir: &Path,
    args: &[&str],
    stdin: &str,
    bus: Option<&Path>,
    vars: &[(&str, &str)],
) -> Output {
    let address = match bus {
        Some(path) => format!("unix:path={}", path.display()),
        None => format!("unix:path={}", dir.join("no-bus").display()),
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_attend-hook"))
        .args(args)
        .env("DBUS_SESSION_BUS_ADDRESS", address)
        .env("XDG_RUNTIME_DIR", dir)
        .env("ATTEND_PANE", "p9")
        .env_remove("ATTEND_PANE_HOOKS")
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .envs(vars.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn spooled(dir: &Path) -> Vec<SpoolRecord> {
    std::fs::read_to_string(dir.join("attend").join(SPOOL_FILE))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A reply of `kind` to `serial`: an error with `error` as name and message, else a
/// method return with a `t` body.
fn reply(kind: u8, serial: u32, error: Option<&str>) -> Vec<u8> {
    let mut body = Writer::new();
    let signature = match error {
        Some(name) => {
            body.string(name).unwrap();
            "s"
        }
        None => {
            body.u64(42);
            "t"
        }
    };
    let body = body.into_bytes();
    let mut w = Writer::new();
    for b in [b'l', kind, 1, 1] {
        w.byte(b);
    }
    w.u32(body.len() as u32);
    w.u32(1000 + serial);
    w.array(8, |w| {
        w.align(8);
        w.byte(5);
        w.variant("u", |w| {
            w.u32(serial);
            Ok::<(), marshal::Malformed>(())
        })?;
        if let Some(name) = error {
            w.align(8);
            w.byte(4);
            w.variant("s", |w| w.string(name))?;
        }
        w.align(8);
        w.byte(8);
        w.variant("g", |w| {
            w.signature(signature);
            Ok::<(), marshal::Malformed>(())
        })
    })
    .unwrap();
    w.align(8);
    let mut bytes = w.into_bytes();
    bytes.extend_from_slice(&body);
    bytes
}

/// Serves one connection: checks the SASL lines, reads `Hello` and the call, answers
/// `Hello`, then the call with `answer` (`None`: a method return). Returns the call's
/// member and destination.
fn serve_one(listener: UnixListener, answer: Option<&'static str>) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(&stream);
        let mut auth = Vec::new();
        reader.read_until(b'\n', &mut auth).unwrap();
        assert!(auth.starts_with(b"\0AUTH EXTERNAL "), "{auth:?}");
        let mut begin = Vec::new();
        reader.read_until(b'\n', &mut begin).unwrap();
        assert_eq!(begin, b"BEGIN\r\n");
        (&stream)
            .write_all(b"OK 0123456789abcdef0123456789abcdef\r\n")
            .unwrap();
        let mut members = Vec::new();
        for _ in 0..2 {
            let mut head = [0u8; FIXED_HEADER];
            reader.read_exact(&mut head).unwrap();
            assert_eq!(head[1], METHOD_CALL);
            let mut bytes = vec![0u8; marshal::message_len(&head).unwrap()];
            bytes[..FIXED_HEADER].copy_from_slice(&head);
            reader.read_exact(&mut bytes[FIXED_HEADER..]).unwrap();
            let text = String::from_utf8_lossy(&bytes).into_owned();
            members.push(if text.contains("Hello") {
                "Hello"
            } else {
                "Hook"
            });
            if members.len() == 2 {
                assert!(text.contains("io.github.attend.Attend1"), "{text}");
                assert!(text.contains(STOP), "the payload verbatim");
            }
        }
        assert_eq!(members, ["Hello", "Hook"]);
        (&stream).write_all(&reply(METHOD_RETURN, 1, None)).unwrap();
        let last = match answer {
            Some(name) => reply(ERROR, 2, Some(name)),
            None => reply(METHOD_RETURN, 2, None),
        };
        (&stream).write_all(&last).unwrap();
        members.join(",")
    })
}

#[test]
fn a_hook_the_bus_answers_is_delivered_and_not_spooled() {
    let tmp = tempfile::tempdir().unwrap();
    let bus = tmp.path().join("bus");
    let server = serve_one(UnixListener::bind(&bus).unwrap(), None);
    let out = hook(tmp.path(), &["claude"], STOP, Some(&bus));
    assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
    assert!(out.stdout.is_empty());
    assert_eq!(server.join().unwrap(), "Hello,Hook");
    assert!(spooled(tmp.path()).is_empty());
}

#[test]
fn a_refusal_is_one_line_and_nothing_is_spooled() {
    let tmp = tempfile::tempdir().unwrap();
    let bus = tmp.path().join("bus");
    let server = serve_one(
        UnixListener::bind(&bus).unwrap(),
        Some("io.github.attend.Attend1.Error.InvalidArgument"),
    );
    let out = hook(tmp.path(), &["claude"], STOP, Some(&bus));
    assert_eq!(out.status.code(), Some(0));
    server.join().unwrap();
    assert_eq!(
        stderr(&out),
        "attend: hook not delivered: io.github.attend.Attend1.Error.InvalidArgument\n"
    );
    assert!(spooled(tmp.path()).is_empty());
}

#[test]
fn an_internal_error_or_no_bus_spools_the_call() {
    let tmp = tempfile::tempdir().unwrap();
    let bus = tmp.path().join("bus");
    let server = serve_one(
        UnixListener::bind(&bus).unwrap(),
        Some("io.github.attend.Attend1.Error.Internal"),
    );
    let out = hook(tmp.path(), &["claude"], STOP, Some(&bus));
    server.join().unwrap();
    assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
    let out = hook(
        tmp.path(),
        &["codex", "--notify", "{\"type\":\"x\"}"],
        "",
        None,
    );
    assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
    let recs = spooled(tmp.path());
    assert_eq!(recs.len(), 2);
    assert_eq!(
        (recs[0].agent.as_str(), recs[0].event.as_str()),
        ("claude", "")
    );
    assert_eq!(recs[0].payload, STOP);
    assert_eq!(recs[0].context["pane"], "p9");
    assert_eq!(
        recs[0].context["pids"][0][0],
        serde_json::json!(std::process::id()),
        "the nearest ancestor is this test"
    );
    assert_eq!(recs[0].delivery_id.len(), 36);
    assert_eq!(
        (recs[1].agent.as_str(), recs[1].event.as_str()),
        ("codex", "notify")
    );
    assert_eq!(recs[1].payload, "{\"type\":\"x\"}");
    assert_ne!(recs[0].delivery_id, recs[1].delivery_id);
}

/// In a pane whose agent Attend started with hooks of its own (`ATTEND_PANE_HOOKS`
/// names the agent), the globally installed entry exits at once: it connects to no bus
/// (the listener here never sees a connection) and spools nothing; the pane's own entry
/// (`--pane-hooks`) delivers as usual (docs/decisions/0008-per-pane-hooks.md).
#[test]
fn a_global_entry_in_a_pane_with_its_own_hooks_delivers_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let bus = tmp.path().join("bus");
    let listener = UnixListener::bind(&bus).unwrap();
    listener.set_nonblocking(true).unwrap();
    let vars = [("ATTEND_PANE_HOOKS", "claude")];
    let codex = [("ATTEND_PANE_HOOKS", "codex")];
    for (args, env) in [(&["claude"][..], &vars), (&["codex", "Stop"][..], &codex)] {
        let out = hook_with(tmp.path(), args, STOP, Some(&bus), env);
        assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
    }
    assert!(
        listener.accept().is_err(),
        "a superseded entry must not connect to the bus"
    );
    assert!(spooled(tmp.path()).is_empty());

    // The pane's own entry: delivered.
    listener.set_nonblocking(false).unwrap();
    let server = serve_one(listener, None);
    let own = ["claude", "--pane-hooks"];
    let out = hook_with(tmp.path(), &own, STOP, Some(&bus), &vars);
    assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
    assert_eq!(server.join().unwrap(), "Hello,Hook");
    // Another agent's pane hooks, and Codex's one notify program: not superseded (no
    // daemon here: spooled, not dropped).
    let out = hook_with(tmp.path(), &["claude"], STOP, None, &codex);
    assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
    let notify = ["codex", "--notify", "{\"type\":\"x\"}"];
    let out = hook_with(tmp.path(), &notify, "", None, &codex);
    assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
    assert_eq!(spooled(tmp.path()).len(), 2);
}

#[test]
fn bad_input_is_refused_before_anything_is_sent_or_spooled() {
    let tmp = tempfile::tempdir().unwrap();
    let out = hook(tmp.path(), &["claude"], "{\"hook_event_name\": ", None);
    assert_eq!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert!(
        err.starts_with(
            "attend: hook not delivered: hook payload is not valid JSON (line 1, column"
        ),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
    let out = hook(tmp.path(), &["claude"], "[1]", None);
    assert_eq!(
        stderr(&out),
        "attend: hook not delivered: hook payload is not a JSON object\n"
    );
    assert!(spooled(tmp.path()).is_empty());
}

/// A misconfigured hook line must not block the agent (an agent reads exit 2 as "block
/// the tool call"): a usage error exits 0 with one line on stderr and nothing on stdout
/// (stdout is the agent's decision channel).
#[test]
fn usage_errors_exit_0_with_one_line_and_help_exits_0() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        &[][..],
        &["claude", "Stop", "Stop"][..],
        &["claude", "a", "b"][..],
    ] {
        let out = hook(tmp.path(), args, "", None);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("attend-hook: usage error"),
            "{args:?}: {err}"
        );
    }
    let out = hook(tmp.path(), &["--help"], "", None);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("usage:"));
    assert!(spooled(tmp.path()).is_empty());
}

/// A bus that refuses the authentication is unreachable: the call is spooled, silently.
#[test]
fn a_bus_that_refuses_authentication_is_unreachable() {
    let tmp = tempfile::tempdir().unwrap();
    let bus = tmp.path().join("bus");
    let listener = UnixListener::bind(&bus).unwrap();
    let server = thread::spawn(move || {
        let (stream, _): (UnixStream, _) = listener.accept().unwrap();
        (&stream).write_all(b"REJECTED EXTERNAL\r\n").unwrap();
    });
    let out = hook(tmp.path(), &["claude"], STOP, Some(&bus));
    server.join().unwrap();
    assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
    assert_eq!(spooled(tmp.path()).len(), 1);
}
