//! The `attend-hook` executable against a scripted bus (a Unix socket in the test that
//! answers the handshake and encodes its replies with the `dbus` crate), and with no bus
//! at all: delivered, refused, spooled.

use attend_hook::spool::{SpoolRecord, SPOOL_FILE};
use dbus::Message;
use std::ffi::CString;
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

/// Reads one whole message from the client.
fn read_message(reader: &mut impl Read) -> Message {
    let mut bytes = vec![0u8; 16];
    reader.read_exact(&mut bytes).unwrap();
    let total = Message::demarshal_bytes_needed(&bytes).unwrap();
    bytes.resize(total, 0);
    reader.read_exact(&mut bytes[16..]).unwrap();
    Message::demarshal(&bytes).unwrap()
}

/// Writes `msg` with the bus's serial `serial`.
fn write_message(stream: &UnixStream, mut msg: Message, serial: u32) {
    msg.set_serial(serial);
    msg.marshal(|bytes| (&*stream).write_all(bytes)).unwrap();
}

/// Answers the client's SASL lines as a bus does (`AUTH` → `OK`, `NEGOTIATE_UNIX_FD` →
/// `AGREE_UNIX_FD`) until its `BEGIN`.
fn handshake(stream: &UnixStream, reader: &mut impl BufRead) {
    let mut nul = [0u8; 1];
    reader.read_exact(&mut nul).unwrap();
    assert_eq!(nul, [0]);
    loop {
        let mut line = Vec::new();
        reader.read_until(b'\n', &mut line).unwrap();
        let answer: &[u8] = if line.starts_with(b"AUTH EXTERNAL ") {
            b"OK 0123456789abcdef0123456789abcdef\r\n"
        } else if line == b"NEGOTIATE_UNIX_FD\r\n" {
            b"AGREE_UNIX_FD\r\n"
        } else if line == b"BEGIN\r\n" {
            return;
        } else {
            panic!("unexpected SASL line {line:?}");
        };
        (&*stream).write_all(answer).unwrap();
    }
}

/// Serves one connection: the handshake, then reads `Hello` and the call, answers
/// `Hello`, then the call with `answer` (`None`: a method return). Returns the members
/// called, in order.
fn serve_one(listener: UnixListener, answer: Option<&'static str>) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(&stream);
        handshake(&stream, &mut reader);
        let hello = read_message(&mut reader);
        let call = read_message(&mut reader);
        let members: Vec<String> = [&hello, &call]
            .iter()
            .map(|m| m.member().map(|m| m.to_string()).unwrap_or_default())
            .collect();
        assert_eq!(
            call.destination().as_deref(),
            Some("io.github.attend.Attend1")
        );
        assert_eq!(
            call.interface().as_deref(),
            Some("io.github.attend.Attend1")
        );
        let (_, _, payload): (String, String, String) = call.read3().unwrap();
        assert_eq!(payload, STOP, "the payload verbatim");
        write_message(&stream, hello.method_return().append1(":1.7"), 1);
        let last = match answer {
            Some(name) => call.error(&name.into(), &CString::new(name).unwrap()),
            None => call.method_return().append1(42u64),
        };
        write_message(&stream, last, 2);
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

/// A bus that stops answering, in the handshake or after the call was sent: the hook
/// gives up at its deadline (libdbus's blocking calls are bounded by it too) and spools
/// the call, silently.
#[test]
fn a_bus_that_does_not_answer_in_time_gets_the_call_spooled() {
    use std::time::{Duration, Instant};
    for handshake_done in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let bus = tmp.path().join("bus");
        let listener = UnixListener::bind(&bus).unwrap();
        let server = thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(&stream);
            if handshake_done {
                handshake(&stream, &mut reader);
                read_message(&mut reader);
                read_message(&mut reader);
            }
            // Holds the connection open, answering nothing, until the hook hangs up.
            let _ = reader.read_to_end(&mut Vec::new());
        });
        let start = Instant::now();
        let out = hook(tmp.path(), &["claude"], STOP, Some(&bus));
        let took = start.elapsed();
        server.join().unwrap();
        assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
        assert!(
            took >= Duration::from_millis(240) && took < Duration::from_secs(3),
            "handshake done: {handshake_done}: {took:?}"
        );
        assert_eq!(
            spooled(tmp.path()).len(),
            1,
            "handshake done: {handshake_done}"
        );
    }
}
