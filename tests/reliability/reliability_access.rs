//! Reliability suite, access (docs/reliability.md): the daemon is
//! reachable on the session bus it was given and nowhere else (no other bus, no network
//! socket); its attach socket, spool, database and the panes' terminals are closed to
//! other users (modes checked, and a process of another uid really tries: `EACCES`);
//! and no payload string can reach a shell (the source is searched for shell
//! invocations; each one that remains is allow-listed with the reason its arguments are
//! not payload).

use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};
use support::{Bus, Env};

/// The uid (and gid) of "another user": `nobody` on Debian.
const OTHER_UID: u32 = 65534;

// ---------------------------------------------------------------------------------------
// Buses and network
// ---------------------------------------------------------------------------------------

/// The bus's own interface (`org.freedesktop.DBus`) on the bus at `address`, through a
/// connection of the test.
fn bus_at(address: &str) -> zbus::blocking::fdo::DBusProxy<'static> {
    let conn = zbus::blocking::connection::Builder::address(address)
        .unwrap()
        .build()
        .unwrap();
    zbus::blocking::fdo::DBusProxy::new(&conn).unwrap()
}

/// The pids of every connection on the bus at `address` (but the bus itself).
fn connection_pids(address: &str) -> BTreeMap<String, u32> {
    let bus = bus_at(address);
    bus.list_names()
        .unwrap()
        .into_iter()
        .filter(|n| n.starts_with(':'))
        .filter_map(|n| {
            let pid = bus.get_connection_unix_process_id(n.inner().clone()).ok()?;
            Some((n.to_string(), pid))
        })
        .collect()
}

/// Starts the daemon with a second bus in `DBUS_SYSTEM_BUS_ADDRESS` (and as the starter
/// bus): it must use the session bus and only that.
fn start_daemon_with(env: &mut Env, vars: &[(&str, &str)]) -> u32 {
    std::fs::create_dir_all(env.dir.path().join("run")).unwrap();
    let log = std::fs::File::create(env.dir.path().join("daemon-with.log")).unwrap();
    let mut c = env.cmd();
    c.args(["daemon", "--no-tray", "--no-notifications"])
        .stdout(Stdio::null())
        .stderr(log);
    for (k, v) in vars {
        c.env(k, v);
    }
    let child = c.spawn().unwrap();
    let pid = child.id();
    env.daemon = Some(child);
    env.wait_until("the daemon answers", || {
        env.cmd().arg("version").output().unwrap().status.success()
    });
    pid
}

#[test]
fn the_daemon_serves_the_session_bus_it_was_given_and_no_other() {
    let mut env = Env::new();
    let other = Bus::start();
    let pid = start_daemon_with(
        &mut env,
        &[
            ("DBUS_SYSTEM_BUS_ADDRESS", &other.address),
            ("DBUS_STARTER_ADDRESS", &other.address),
            ("DBUS_STARTER_BUS_TYPE", "system"),
        ],
    );
    // Exercise it so every part is up (a pane, a hook, the attach server).
    let p = env.run(&["--agent", "claude", "--", "sleep", "1000"]);
    env.hook(
        "claude",
        &p,
        r#"{"session_id":"s","hook_event_name":"Stop"}"#,
        "d",
    )
    .unwrap();

    let attend1 = zbus::names::BusName::try_from(attend::config::BUS_NAME).unwrap();
    let owner = bus_at(&env.bus.address)
        .get_connection_unix_process_id(attend1.clone())
        .unwrap();
    assert_eq!(owner, pid, "the session bus's owner is the daemon");

    let has = bus_at(&other.address).name_has_owner(attend1).unwrap();
    assert!(!has, "no name on the other bus");
    let there = connection_pids(&other.address);
    assert!(
        !there.values().any(|p| *p == pid),
        "the daemon connected to the other bus: {there:?}"
    );
    let here = connection_pids(&env.bus.address);
    let own: Vec<&String> = here
        .iter()
        .filter(|(_, p)| **p == pid)
        .map(|(n, _)| n)
        .collect();
    println!(
        "daemon pid {pid}: {} connection(s) on the session bus {own:?}, none of the {} on \
         the other bus",
        own.len(),
        there.len()
    );
    assert_eq!(own.len(), 1, "one connection, on the session bus: {here:?}");
}

/// Socket inodes of `pid` (`/proc/PID/fd/* -> socket:[N]`).
fn socket_inodes(pid: u32) -> BTreeSet<u64> {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter_map(|l| {
            let l = l.to_string_lossy().into_owned();
            l.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok()
        })
        .collect()
}

/// The inode column (10th) of every socket in `/proc/net/FILE`.
fn net_inodes(file: &str) -> BTreeSet<u64> {
    std::fs::read_to_string(format!("/proc/net/{file}"))
        .unwrap_or_default()
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(9)?.parse().ok())
        .collect()
}

#[test]
fn the_daemon_owns_no_network_socket_and_listens_only_on_its_attach_socket() {
    let env = Env::with_daemon();
    let pid = env.daemon_pid();
    let p = env.run(&["--agent", "claude", "--", "sleep", "1000"]);
    env.hook(
        "claude",
        &p,
        r#"{"session_id":"s","hook_event_name":"Stop"}"#,
        "d",
    )
    .unwrap();
    let attach = attach_socket(&env, &p);
    let mine = socket_inodes(pid);
    assert!(!mine.is_empty(), "the daemon has sockets (the bus, attach)");
    for file in [
        "tcp", "tcp6", "udp", "udp6", "raw", "raw6", "udplite", "udplite6",
    ] {
        let theirs = net_inodes(file);
        let shared: Vec<&u64> = theirs.intersection(&mine).collect();
        assert!(
            shared.is_empty(),
            "the daemon owns {file} sockets {shared:?}"
        );
    }
    // Listening Unix sockets (flag __SO_ACCEPTCON, 0x10000) of the daemon: the attach
    // socket only.
    let unix = std::fs::read_to_string("/proc/net/unix").unwrap();
    let listening: Vec<String> = unix
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let inode: u64 = f.get(6)?.parse().ok()?;
            let flags = u64::from_str_radix(f.get(3)?, 16).ok()?;
            (mine.contains(&inode) && flags & 0x10000 != 0)
                .then(|| f.get(7).unwrap_or(&"").to_string())
        })
        .collect();
    println!(
        "daemon pid {pid}: {} sockets, no TCP/UDP/raw; listening: {listening:?}",
        mine.len()
    );
    assert_eq!(listening, [attach.to_str().unwrap()]);
}

// ---------------------------------------------------------------------------------------
// Files and sockets: modes, and another uid really trying
// ---------------------------------------------------------------------------------------

/// The attach socket the daemon hands out for `pane` (D-Bus `Attach`).
fn attach_socket(env: &Env, pane: &str) -> PathBuf {
    PathBuf::from(env.attend1().attach(pane).unwrap())
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// The terminal of the pane whose program is `sleep ARG` (its `/proc/PID/fd/0`).
fn pane_tty(marker: &str) -> PathBuf {
    let start = Instant::now();
    loop {
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            if cmd == format!("sleep\0{marker}\0").as_bytes() {
                if let Ok(tty) = std::fs::read_link(e.path().join("fd/0")) {
                    return tty;
                }
            }
        }
        assert!(
            start.elapsed() < support::TIMEOUT,
            "no process `sleep {marker}`"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A daemon with a pane (`sleep MARKER`) and a spooled hook on disk; returns the env,
/// the pane and the marker.
fn with_files() -> (Env, String, String) {
    let mut env = Env::new();
    std::fs::create_dir_all(env.dir.path().join("run")).unwrap();
    // A hook while no daemon runs: it is spooled (replayed when the daemon starts).
    let out = env.attend_with(
        &["hook", "claude"],
        br#"{"session_id":"s-spooled","hook_event_name":"Stop"}"#,
        &[],
    );
    assert!(out.status.success() && out.stderr.is_empty());
    let spool = env.dir.path().join("run/attend/hooks.spool");
    assert_eq!(mode(&spool), 0o600, "the spool file");
    assert_eq!(mode(spool.parent().unwrap()), 0o700, "the spool directory");
    env.start_daemon();
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let marker = format!("{}", 900_000 + (std::process::id() % 9_000) * 10 + n);
    let p = env.run(&["--", "sleep", &marker]);
    (env, p, marker)
}

#[test]
fn attach_socket_spool_database_and_terminals_are_private_by_mode() {
    let (env, p, marker) = with_files();
    let socket = attach_socket(&env, &p);
    let meta = std::fs::symlink_metadata(&socket).unwrap();
    assert!(meta.file_type().is_socket());
    // SAFETY: geteuid cannot fail.
    let me = unsafe { libc::geteuid() };
    assert_eq!(meta.uid(), me);
    assert_eq!(mode(&socket), 0o600, "the attach socket");
    let dir = socket.parent().unwrap();
    assert_eq!(mode(dir), 0o700, "the attach socket's directory");
    assert_eq!(std::fs::metadata(dir).unwrap().uid(), me);
    assert_eq!(mode(&env.state_dir()), 0o700, "the state directory");
    let tty = pane_tty(&marker);
    let tty_mode = mode(&tty);
    println!(
        "modes: {} {:o}, {} {:o}, state {:o}, {} {:o}",
        socket.display(),
        mode(&socket),
        dir.display(),
        mode(dir),
        mode(&env.state_dir()),
        tty.display(),
        tty_mode
    );
    assert_eq!(
        tty_mode & 0o007,
        0,
        "the pane's terminal is closed to others"
    );
    assert_eq!(std::fs::metadata(&tty).unwrap().uid(), me);
}

/// What a process of another uid tries.
enum Try {
    Connect(libc::sockaddr_un),
    Open(CString, libc::c_int),
}

fn sockaddr(path: &Path) -> libc::sockaddr_un {
    // SAFETY: sockaddr_un is plain data; all zeroes is a valid value.
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    let bytes = path.as_os_str().as_bytes();
    assert!(bytes.len() < addr.sun_path.len());
    for (d, s) in addr.sun_path.iter_mut().zip(bytes) {
        *d = *s as libc::c_char;
    }
    addr
}

/// Forks; the child drops to [`OTHER_UID`] (groups, gid, uid) and tries `what`; returns
/// 0 when that worked, else its errno. The child only makes system calls (it is forked
/// from a threaded process): everything is prepared before the fork.
fn as_other_user(what: &Try) -> i32 {
    // SAFETY: the child calls only async-signal-safe functions (setgroups, setgid,
    // setuid, socket, connect, open, _exit) on memory prepared before the fork.
    unsafe {
        match libc::fork() {
            -1 => panic!("fork: {}", std::io::Error::last_os_error()),
            0 => {
                if libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setgid(OTHER_UID) != 0
                    || libc::setuid(OTHER_UID) != 0
                {
                    libc::_exit(200);
                }
                let rc = match what {
                    Try::Connect(addr) => {
                        let fd = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0);
                        if fd < 0 {
                            libc::_exit(201);
                        }
                        libc::connect(
                            fd,
                            addr as *const libc::sockaddr_un as *const libc::sockaddr,
                            std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t,
                        )
                    }
                    Try::Open(path, flags) => libc::open(path.as_ptr(), *flags),
                };
                libc::_exit(if rc >= 0 {
                    0
                } else {
                    *libc::__errno_location()
                });
            }
            child => {
                let mut status = 0;
                assert_eq!(libc::waitpid(child, &mut status, 0), child);
                assert!(libc::WIFEXITED(status));
                let code = libc::WEXITSTATUS(status);
                assert!(code < 200, "the child could not become uid {OTHER_UID}");
                code
            }
        }
    }
}

fn open_as_other(path: &Path, flags: libc::c_int) -> i32 {
    as_other_user(&Try::Open(
        CString::new(path.as_os_str().as_bytes()).unwrap(),
        flags,
    ))
}

/// Opens a directory of the test's own (its temporary directory is 0700) to others'
/// search (o+x), so that only Attend's own modes stand between another uid and its
/// files; restores the mode on drop.
struct OthersMaySearch(PathBuf, u32);

impl OthersMaySearch {
    fn open(dir: &Path) -> OthersMaySearch {
        let m = mode(dir);
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(m | 0o001)).unwrap();
        OthersMaySearch(dir.to_path_buf(), m)
    }
}

impl Drop for OthersMaySearch {
    fn drop(&mut self) {
        let _ = std::fs::set_permissions(&self.0, std::fs::Permissions::from_mode(self.1));
    }
}

#[test]
fn another_uid_cannot_connect_to_the_attach_socket_or_open_the_files() {
    let (env, p, marker) = with_files();
    let socket = attach_socket(&env, &p);
    let attend_dir = socket.parent().unwrap().to_path_buf();
    // Only Attend's own directories (run/attend, state) may stand in the way.
    let _open = OthersMaySearch::open(env.dir.path());
    for d in [Path::new("/tmp"), &env.dir.path().join("run")] {
        assert_eq!(mode(d) & 0o001, 0o001, "{} is searchable", d.display());
    }
    assert!(attend_dir.starts_with(env.dir.path().join("run")));
    // We (same uid) can connect: the path is right.
    assert!(std::os::unix::net::UnixStream::connect(&socket).is_ok());

    let addr = sockaddr(&socket);
    let denied = as_other_user(&Try::Connect(addr));
    assert_eq!(
        denied,
        libc::EACCES,
        "connect as uid {OTHER_UID} (directory 0700)"
    );

    // Even were the directory opened up, the socket's own mode (0600) refuses.
    std::fs::set_permissions(&attend_dir, std::fs::Permissions::from_mode(0o711)).unwrap();
    let socket_only = as_other_user(&Try::Connect(addr));
    std::fs::set_permissions(&attend_dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    assert_eq!(
        socket_only,
        libc::EACCES,
        "connect as uid {OTHER_UID} (socket 0600)"
    );

    let db = env.state_dir().join("attend.db");
    let db_read = open_as_other(&db, libc::O_RDONLY);
    assert_eq!(db_read, libc::EACCES, "read the database");
    let spool = attend_dir.join("hooks.spool");
    let spool_append = open_as_other(&spool, libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT);
    assert_eq!(spool_append, libc::EACCES, "write into the spool");
    let tty = pane_tty(&marker);
    let tty_open = open_as_other(&tty, libc::O_RDWR | libc::O_NOCTTY);
    assert_eq!(tty_open, libc::EACCES, "open the pane's terminal");
    println!(
        "uid {OTHER_UID}: connect {} → EACCES (dir 0700), EACCES (socket 0600 in a 0711 \
         dir); open {} → EACCES; spool → EACCES; {} → EACCES",
        socket.display(),
        db.display(),
        tty.display()
    );
    // Nothing was touched.
    assert_eq!(env.show(&p)["live"]["state"], "running");
}

/// The session bus itself refuses other users (EXTERNAL authentication): the daemon's
/// methods are out of their reach.
#[test]
fn another_uid_cannot_call_the_daemon_on_the_session_bus() {
    let env = Env::with_daemon();
    let p = env.run(&["--", "sleep", "1000"]);
    let marker = env.run(&["--", "sleep", "1000"]);
    let before = env.show(&p);
    let out = Command::new("busctl")
        .arg(format!("--address={}", env.bus.address))
        .args([
            "call",
            "io.github.attend.Attend1",
            "/io/github/attend/Attend1",
        ])
        .args(["io.github.attend.Attend1", "Kill", "si", &p, "9"])
        .env_clear()
        .uid(OTHER_UID)
        .gid(OTHER_UID)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    println!(
        "busctl as uid {OTHER_UID}: {:?}: {}",
        out.status.code(),
        err.trim_end()
    );
    assert!(!out.status.success(), "another uid reached the daemon");
    // A marker through the same path: our own Kill of a second pane, sent after the
    // refused call, and its exit recorded. A Kill that got through would be ahead of it.
    env.attend1().kill(&marker, 9).unwrap();
    env.wait_pane(&marker, "the marker pane killed", |v| {
        v["live"]["state"] == "exited"
    });
    assert_eq!(env.show(&p), before, "the pane was not killed");
    // The same call as us works (the refusal is the bus's, not a bad call).
    env.attend1().kill(&p, 9).unwrap();
    env.wait_pane(&p, "killed", |v| v["live"]["state"] == "exited");
}

// ---------------------------------------------------------------------------------------
// No payload string reaches a shell
// ---------------------------------------------------------------------------------------

/// What a shell invocation looks like in Rust source.
const SHELL_PATTERNS: &[&str] = &[
    "sh -c",
    "bash -c",
    "-lc",
    "Command::new(\"sh\")",
    "Command::new(\"bash\")",
    "/bin/sh",
    "/bin/bash",
    "\"sh\"",
    "\"bash\"",
    "\"zsh\"",
    "\"fish\"",
    "\"-c\"",
    "$SHELL",
    "\"SHELL\"",
    "libc::system",
    "libc::popen",
    "libc::exec",
];

/// Every line of `src/` that matches a shell pattern, each with the reason its
/// arguments are not payload: (file, text the line contains, reason).
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "src/client/attach/relay.rs",
        "Command::new(\"sh\")",
        "unit test of the relay: fixed scripts (stty size, read a line, sleep) in its PTY; \
         nothing from a hook or a pane",
    ),
    (
        "src/client/attach/relay.rs",
        "\"-c\",",
        "unit test of the relay: the `-c` of its fixed test scripts",
    ),
    (
        "src/cli/tmux_attach.rs",
        "\"-c\".to_string(),",
        "tmux's `switch-client -c CLIENT` (a client name tmux listed), not a shell's -c",
    ),
    (
        "src/service/tmux/looking.rs",
        "\"switch-client\", \"-c\"",
        "tmux's `switch-client -c CLIENT` (a client name tmux listed), not a shell's -c",
    ),
    (
        "src/service/owner/tmux_acts.rs",
        "args.extend([\"-c\".to_string(), cwd.clone()]);",
        "tmux's `new-window -c DIR`: the start directory (a pane's cwd, one argv element), \
         never run",
    ),
    (
        "src/install/cline.rs",
        "#!/bin/sh",
        "the hook script install-hooks writes for Cline (Cline runs hooks as files): `exec` \
         of the attend-hook path install-hooks found and an event from the fixed list; the \
         payload goes on stdin; and unit test data of that script",
    ),
    (
        "src/panel/new_agent.rs",
        "std::env::var(\"SHELL\")",
        "the user's own login shell, offered as the New agent dialog's plain-shell program \
         (run as argv through a holder, like `attend run -- $SHELL`)",
    ),
    (
        "src/panel/new_agent_form.rs",
        "sh",
        "the New agent form's plain-shell choice (the user's $SHELL or `sh`) and its unit \
         test data; run as argv through a holder, never given a payload",
    ),
    (
        "src/service/evidence/git.rs",
        ".args([\"-c\", \"user.name=t\", \"-c\", \"user.email=t@t\"])",
        "unit test only: git's own `-c key=value` for a test repository's commit",
    ),
    (
        "src/install/pane/codex.rs",
        "argv.push(\"-c\".into());",
        "Codex's own `-c key=value` config override in the agent's argv (run as argv, no \
         shell); the values are Attend's hook entries",
    ),
    (
        "src/install/pane/codex.rs",
        "\"-c\" | \"--config\" => words.next().cloned(),",
        "reads the user's Codex `-c` overrides from the argv; nothing is run",
    ),
    (
        "src/install/pane/codex.rs",
        ".or_else(|| w.strip_prefix(\"-c\")",
        "the same reading of `-cKEY=VALUE`",
    ),
    (
        "src/install/pane/codex.rs",
        "\"-c\",",
        "unit test data: a Codex argv with `-c` overrides, nothing is run",
    ),
    (
        "src/install/pane/tests.rs",
        "\"-c\"",
        "unit test data and checks of Codex `-c` overrides and of `sh -c` left alone; \
         nothing is run",
    ),
    (
        "src/install/pane/tests.rs",
        "[\"bash\"]",
        "unit test: a shell gets no pane hooks; nothing is run",
    ),
    (
        "src/cli/demo_live.rs",
        "\"#!/bin/sh\".to_string(),",
        "the demo writes its own script: fixed steps, payload JSON goes to files whose \
         paths are shlex-quoted; nothing from a hook or a pane",
    ),
    (
        "src/cli/demo_live.rs",
        "\"sh\".to_string(),",
        "argv [sh, SCRIPT] runs that demo script file (no -c, no payload)",
    ),
    (
        "src/cli/demo_live.rs",
        "Command::new(\"sh\")",
        "unit test: `sh -n` syntax check of the generated demo script",
    ),
    (
        "src/cli/mod.rs",
        "[\"attend\", \"run\", \"-w\", \"ws\", \"--\", \"sh\", \"-c\", \"x\"]",
        "unit test of clap parsing a user's own command line",
    ),
    (
        "src/cli/mod.rs",
        "assert_eq!(r.argv, [\"sh\", \"-c\", \"x\"]);",
        "the same unit test",
    ),
    (
        "src/service/processes/procwatch.rs",
        "10 => vec![\"sh\".into(), \"dash\".into()],",
        "unit test: process names in a table, nothing is run",
    ),
    (
        "src/service/processes/procwatch.rs",
        "_ => vec![\"bash\".into()],",
        "the same unit test",
    ),
    (
        "src/system/launch.rs",
        "assert!(find_program(\"sh\").is_some());",
        "unit test: PATH lookup, nothing is run",
    ),
    (
        "src/system/launch.rs",
        "[\"sh\", \"-c\", \"echo $ATTEND_TEST_WORD\"]",
        "unit test: a fixed command line checks that `env` reaches the child",
    ),
    (
        "src/adapters/hooks/payload.rs",
        "json!({\"command\": [\"bash\", \"-lc\", \"ls\"]})",
        "unit test data: a Codex tool call rendered as text, nothing is run",
    ),
    (
        "src/adapters/hooks/payload.rs",
        "\"Sh: bash -lc ls\"",
        "the same unit test's expected text",
    ),
    (
        "src/engine/quiet.rs",
        "\"sh\", \"bash\", \"dash\"",
        "the names of interactive shells, compared with a pane's argv[0]; nothing is run",
    ),
    (
        "src/engine/quiet.rs",
        "\"/bin/bash -l\",",
        "unit test data: an argv recognised as an interactive shell, nothing is run",
    ),
    (
        "src/engine/quiet.rs",
        "\"bash\",",
        "the same unit test's data",
    ),
    (
        "src/engine/quiet.rs",
        "\"fish\",",
        "the same unit test's data",
    ),
    (
        "src/engine/quiet.rs",
        "\"sh -c ls\",",
        "unit test data: an argv recognised as not an interactive shell, nothing is run",
    ),
    (
        "src/engine/quiet.rs",
        "\"bash -lc ls\",",
        "the same unit test's data",
    ),
    (
        "src/engine/quiet.rs",
        "&argv(\"bash\")",
        "unit test data: the quiet time of a shell pane's argv, nothing is run",
    ),
    (
        "src/install/mod.rs",
        "command_key: \"bash\",",
        "the key of GitHub Copilot CLI's hook entries in its settings file; its value is \
         Attend's own hook command (`attend-hook copilot EVENT`, a fixed event name), \
         nothing is run here",
    ),
    (
        "src/adapters/tmux/panes.rs",
        "p(10, &[\"bash\", \"bash\"], &[\"-bash\"])",
        "unit test data: a tmux pane's login shell as `/proc` names it, nothing is run",
    ),
];

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_payload_string_can_reach_a_shell() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("crates/attend-hook/src"), &mut files);
    files.sort();
    let mut used = vec![0usize; ALLOWED.len()];
    let mut offending = Vec::new();
    let mut hits = 0;
    for file in &files {
        let rel = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue; // Comments and docs run nothing.
            }
            if !SHELL_PATTERNS.iter().any(|p| code.contains(p)) {
                continue;
            }
            hits += 1;
            match ALLOWED
                .iter()
                .position(|(f, l, _)| *f == rel && code.contains(l))
            {
                Some(i) => used[i] += 1,
                None => offending.push(format!("{rel}:{}: {code}", n + 1)),
            }
        }
    }
    println!(
        "{} source files, {hits} shell-looking lines, all {} allow-listed",
        files.len(),
        ALLOWED.len()
    );
    assert!(
        offending.is_empty(),
        "shell invocations that are not allow-listed (run programs as argv, never through \
         a shell; or allow-list the line with the reason its arguments are not payload):\n{}",
        offending.join("\n")
    );
    let stale: Vec<String> = ALLOWED
        .iter()
        .zip(&used)
        .filter(|(_, n)| **n == 0)
        .map(|((f, l, _), _)| format!("{f}: {l}"))
        .collect();
    assert!(
        stale.is_empty(),
        "allow-list entries that match nothing: {stale:?}"
    );
}

/// Every place `src/` (and a plugin Attend ships in `data/`) starts a process, with what
/// its program and arguments come from: a new one must be looked at (and added here with
/// its reason).
const SPAWNS: &[(&str, &str, &str)] = &[
    (
        "src/client/attach/relay.rs",
        "Command::new(\"/nonexistent/attend\")",
        "unit test of the relay: a program that cannot start",
    ),
    (
        "src/panel/pane_terminal.rs",
        "Command::new(super::attach_terminal::attend_binary())",
        "the panel's terminal: Attend's own `attend` beside the panel, with argv `attach \
         --watch ID` (the pane id the daemon listed); never a shell",
    ),
    (
        "src/client/attach/relay.rs",
        "Command::new(\"sh\")",
        "unit test of the relay only: fixed scripts (stty size, read a line, sleep); the \
         relay itself runs the `attend attach --watch ID` command the panel gives it",
    ),
    (
        "src/cli/tmux_attach.rs",
        "Command::new(\"tmux\")",
        "tmux with argv: `-S SOCKET` (the followed pane's server socket) and \
         select-window/select-pane/attach-session/switch-client `-t %N` (a tmux pane id) \
         or `list-clients`; never a shell",
    ),
    (
        "src/service/owner/tmux_acts.rs",
        "Command::new(\"tmux\")",
        "tmux with argv: `show-environment -g PATH`, and `new-window -d -t SESSION: -c DIR \
         -- ARGV…` for `attend resume`: ARGV is the pane's resume argv (the agent's program \
         from the table, its resume flag and the session id a hook named), at least two \
         words, which tmux executes directly (only a single word goes to `sh -c`; a shorter \
         argv is refused)",
    ),
    (
        "src/system/worktree/git.rs",
        "Command::new(&argv[0])",
        "`git` and fixed subcommands planned in src/system/worktree/plan.rs (worktree add/ \
         remove/list, status, rev-parse) with the user's own branch, base and folder as argv \
         elements; never a shell",
    ),
    (
        "src/service/remotes/link.rs",
        "Command::new(&argv[0])",
        "the link to a remote Attend (docs/decisions/0014-remote-link.md): `ssh` with fixed \
         options, `-p PORT` (digits) and `-- DEST` (a parsed [user@]host that cannot start \
         with '-'), or the user's own `via` command from their config.toml, split into \
         words (never run by a shell); then the remote command's words (the user's own \
         `command`, default `attend bridge --stdio`). Nothing from a remote chooses them",
    ),
    (
        "data/opencode/attend.js",
        "spawn(HOOK[0], [...HOOK.slice(1), event]",
        "the hook argv install-hooks wrote (the absolute attend-hook path and `opencode`) \
         and the event's name from the plugin's fixed list; the payload goes on stdin; \
         never a shell",
    ),
    (
        "data/pi/attend.ts",
        "spawn(HOOK[0], [...HOOK.slice(1), event]",
        "the hook argv install-hooks wrote (the absolute attend-hook path and `pi`) and the \
         event's name from the extension's fixed list; the payload goes on stdin; never a \
         shell",
    ),
    (
        "src/service/processes/fd_limit.rs",
        "Command::new(\"sleep\")",
        "unit test only: a fixed `sleep 30` whose limits the test reads",
    ),
    (
        "src/service/pty/fdio.rs",
        "Command::new(\"sleep\")",
        "unit test only: a fixed `sleep 0.2` whose pidfd the test polls",
    ),
    (
        "src/service/surfaces/sound.rs",
        "Command::new(&player)",
        "pw-play or paplay found on PATH, one argument: a file found in the XDG sound \
         theme (theme name from the user's own config.toml, sound names a fixed set); \
         never a shell, never a payload string",
    ),
    (
        "src/service/evidence/git.rs",
        "Command::new(\"git\")",
        "git -C DIR rev-parse/symbolic-ref: DIR (a pane's cwd) is one argv element",
    ),
    (
        "src/system/launch.rs",
        "Command::new(program)",
        "attend-panel / attend from our own directory, `dbus-daemon --session` from PATH \
         for `attend up`'s private bus (fixed arguments and a socket path in Attend's own \
         runtime directory), and a terminal's remote-control CLI (tmux, kitty, wezterm) \
         whose pane/window ids are validated digits",
    ),
    (
        "src/panel/client.rs",
        "Command::new(&attend)",
        "Start Attend: the `attend` beside the panel, `up --no-panel` (fixed arguments)",
    ),
    (
        "src/panel/attach_terminal.rs",
        "Command::new(program)",
        "$TERMINAL split with shell word rules (never run by a shell) + attend attach PANE",
    ),
    (
        "src/cli/commands.rs",
        "Command::new(&argv[0])",
        "`attend attach NAME:pN` (exec, on the user's terminal): the link's carrier as in \
         src/service/remotes/link.rs (`ssh -t -o BatchMode=yes [-p PORT] -- DEST` or the \
         user's own `via` words, never run by a shell) with the remote `attend` of the \
         user's own `command` and `attach pN --detach-key KEY` (a parsed pane id, the \
         user's own key); nothing from a remote chooses them",
    ),
    (
        "src/cli/demo_live.rs",
        "Command::new(\"sh\")",
        "unit test (see the shell allow-list)",
    ),
    (
        "src/service/processes/procwatch.rs",
        "Command::new(\"true\")",
        "unit test",
    ),
    (
        "src/service/processes/procwatch.rs",
        "Command::new(\"sleep\")",
        "unit test",
    ),
];

#[test]
fn every_process_the_source_starts_is_known() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("crates/attend-hook/src"), &mut files);
    files.push(root.join("data/opencode/attend.js"));
    files.push(root.join("data/pi/attend.ts"));
    let mut unknown = Vec::new();
    let mut seen = 0;
    for file in &files {
        let rel = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for (n, line) in std::fs::read_to_string(file).unwrap().lines().enumerate() {
            let code = line.trim_start();
            // Rust: `Command`; JavaScript (node:child_process): `spawn`, `exec`, `fork`.
            let starts = if rel.ends_with(".js") {
                [
                    "spawn(",
                    "spawnSync(",
                    "exec(",
                    "execFile(",
                    "execSync(",
                    "fork(",
                ]
                .iter()
                .any(|f| code.contains(f))
            } else {
                code.contains("Command::new(") || code.contains("CommandBuilder::new(")
            };
            if code.starts_with("//") || !starts {
                continue;
            }
            seen += 1;
            if !SPAWNS.iter().any(|(f, l, _)| *f == rel && code.contains(l)) {
                unknown.push(format!("{rel}:{}: {code}", n + 1));
            }
        }
    }
    println!("{seen} process starts in src/, all known");
    assert!(
        unknown.is_empty(),
        "new process starts: check that no payload string chooses the program or reaches \
         a shell, then add them to SPAWNS:\n{}",
        unknown.join("\n")
    );
}
