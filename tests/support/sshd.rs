//! A real OpenSSH server on 127.0.0.1 and a second local user, the "remote host" of the
//! remote-host tests (docs/reliability.md#sshd-tests).
//!
//! - [`require`] gives the second user ([`TEST_USER`], another uid), creating it when the
//!   tests run as root (`useradd`, idempotent); without root, `/usr/sbin/sshd`
//!   (`build-aux/deps.sh test`) or the user, the test prints `SKIPPED: <reason>` and
//!   passes, unless `ATTEND_REQUIRE_SSHD=1` (CI), which fails it. Root is needed because
//!   an sshd that logs in another user must run as root.
//! - [`Sshd::start`] runs `/usr/sbin/sshd -D -e -f <private config>` on a free port of
//!   127.0.0.1 only, with a host key and a user key generated into its temp directory,
//!   public-key login for that one user and nothing else; it writes a client config for
//!   `ssh -F` ([`Sshd::ssh`]) with the host key pre-trusted. Nothing reads or writes
//!   `~/.ssh`, the machine's `/etc/ssh` keys or port 22.
//! - [`RemoteUser::start`] runs, as that user (uid and gid set on the `Command`, which
//!   also drops root's groups; no PAM, no login session), a private `dbus-daemon` at
//!   `$XDG_RUNTIME_DIR/bus` and an `attend daemon` on it, with home, runtime, state and
//!   `TMUX_TMPDIR` directories of its own in a temp directory the user owns. The `attend` binaries are
//!   linked (or copied) into that directory, because the build tree may not be readable
//!   by another uid. [`RemoteUser::argv`] is the remote command that reaches that bus.
//!
//! Everything is killed and removed on drop.
#![allow(dead_code)]

use super::{attend_bin, poll, stat_fields, stop, Bus, READY_TIMEOUT, STOP_GRACE, TIMEOUT};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

/// Set to `1` to make a missing sshd or test user fail the test instead of skipping it
/// (`build-aux/test.sh` sets it).
pub const REQUIRE_VAR: &str = "ATTEND_REQUIRE_SSHD";

/// The second local user that plays the remote host's user.
pub const TEST_USER: &str = "attend-test-remote";

/// The `Host` name of [`Sshd`]'s client config (`ssh -F CONFIG attend-test-sshd`).
pub const HOST_ALIAS: &str = "attend-test-sshd";

/// Debian's sshd (openssh-server); the daemon must be started by its absolute path.
pub const SSHD: &str = "/usr/sbin/sshd";

/// A local user: name, uid, gid, home from the passwd database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
    pub home: PathBuf,
}

impl User {
    /// The passwd entry of `name` (`getent passwd`), or `None`.
    pub fn lookup(name: &str) -> Option<User> {
        let out = Command::new("getent")
            .args(["passwd", name])
            .output()
            .ok()?;
        let line = String::from_utf8(out.stdout).ok()?;
        let f: Vec<&str> = line.trim_end().split(':').collect();
        if !out.status.success() || f.len() < 7 || f[0] != name {
            return None;
        }
        Some(User {
            name: name.to_string(),
            uid: f[2].parse().ok()?,
            gid: f[3].parse().ok()?,
            home: PathBuf::from(f[5]),
        })
    }
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// Creates [`TEST_USER`] when missing (as root): a system user with its own group, a home
/// under /var/lib, shell /bin/sh, and password field `*` (no password, but not locked:
/// sshd with `UsePAM no` refuses even key logins to an account whose field starts with
/// `!`). A user left locked by an earlier run is unlocked the same way. Idempotent; a
/// concurrent creation by another test process is fine.
fn ensure_user() -> Result<User, String> {
    if let Some(u) = User::lookup(TEST_USER) {
        if !is_root() {
            return Ok(u);
        }
        let shadow = std::fs::read_to_string("/etc/shadow").unwrap_or_default();
        let locked = shadow
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{TEST_USER}:")))
            .is_some_and(|rest| rest.starts_with('!'));
        if locked {
            let out = Command::new("usermod")
                .args(["-p", "*", TEST_USER])
                .output()
                .map_err(|e| format!("cannot run usermod: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "usermod -p '*' {TEST_USER}: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
        }
        return Ok(u);
    }
    if !is_root() {
        return Err(format!(
            "the test user {TEST_USER} does not exist and only root can create it"
        ));
    }
    let home = format!("/var/lib/{TEST_USER}");
    let mut last = String::new();
    // useradd exits 9 when the user exists (made meanwhile by another test process) and
    // 10 when /etc/passwd is locked by one: look again, retry.
    for _ in 0..20 {
        let out = Command::new("useradd")
            .args(["--system", "--user-group", "--create-home", "--home-dir"])
            .arg(&home)
            .args([
                "--shell",
                "/bin/sh",
                "--comment",
                "Attend tests remote user",
            ])
            .args(["--password", "*", TEST_USER])
            .output()
            .map_err(|e| format!("cannot run useradd: {e}"))?;
        if let Some(u) = User::lookup(TEST_USER) {
            return Ok(u);
        }
        last = format!(
            "useradd {TEST_USER} failed ({:?}): {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    Err(last)
}

/// Why the sshd tests cannot run here, or the second user.
fn availability() -> Result<User, String> {
    if !is_root() {
        return Err(format!(
            "the sshd tests need root (an sshd that logs in {TEST_USER}, another uid, runs \
             as root)"
        ));
    }
    if !Path::new(SSHD).exists() {
        return Err(format!(
            "{SSHD} is missing: run build-aux/deps.sh test (openssh-server)"
        ));
    }
    for tool in ["ssh", "ssh-keygen", "dbus-daemon", "getent", "useradd"] {
        let path = std::env::var_os("PATH").unwrap_or_default();
        if !std::env::split_paths(&path).any(|d| d.join(tool).is_file()) {
            return Err(format!("{tool} is not on PATH"));
        }
    }
    ensure_user()
}

/// The second user, ready for [`Sshd::start`] and [`RemoteUser::start`]. `None` (after
/// writing `SKIPPED: <reason>` straight to stderr, past the harness's output capture)
/// when the sshd tests cannot run here; panics instead when `ATTEND_REQUIRE_SSHD=1`.
pub fn require() -> Option<User> {
    static AVAILABLE: OnceLock<Result<User, String>> = OnceLock::new();
    match AVAILABLE.get_or_init(availability) {
        Ok(u) => Some(u.clone()),
        Err(reason) if std::env::var(REQUIRE_VAR).as_deref() == Ok("1") => {
            panic!("{REQUIRE_VAR}=1 but the sshd tests cannot run: {reason}")
        }
        Err(reason) => {
            let _ = writeln!(std::io::stderr(), "SKIPPED: {reason}");
            None
        }
    }
}

/// Runs `program args`, panicking with its stderr when it fails.
fn run(program: &str, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A key pair generated with `ssh-keygen -t ed25519` (no passphrase) at `path` and
/// `path.pub`; the public key line.
fn keygen(path: &Path, comment: &str) -> String {
    run(
        "ssh-keygen",
        &[
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            comment,
            "-f",
            path.to_str().unwrap(),
        ],
    );
    std::fs::read_to_string(path.with_extension("pub"))
        .unwrap()
        .trim()
        .to_string()
}

/// The command name (`/proc/<pid>/comm`) of `pid`.
fn comm(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|s| s.trim().to_string())
}

/// The living (not zombie) children of `pid`, from `/proc/*/stat`'s ppid field.
pub fn children_of(pid: u32) -> Vec<u32> {
    let want = pid.to_string();
    super::pids()
        .filter(|p| stat_fields(*p).is_some_and(|f| f[1] == want && f[0] != "Z"))
        .collect()
}

/// `pid`'s living descendants, parents before children.
pub fn descendants_of(pid: u32) -> Vec<u32> {
    let mut all = Vec::new();
    let mut next = children_of(pid);
    while let Some(p) = next.pop() {
        all.push(p);
        next.extend(children_of(p));
    }
    all
}

/// The living processes of `uid` whose command line or environment names `path` (what a
/// test's remote command left running, e.g. the daemon and bus `attend up` started).
pub fn processes_of(uid: u32, path: &Path) -> Vec<u32> {
    let needle = path.display().to_string();
    super::pids()
        .filter(|pid| {
            let dir = format!("/proc/{pid}");
            let owner = std::fs::metadata(&dir).map(|m| std::os::unix::fs::MetadataExt::uid(&m));
            owner.ok() == Some(uid)
                && ["cmdline", "environ"].iter().any(|f| {
                    std::fs::read(format!("{dir}/{f}"))
                        .is_ok_and(|b| String::from_utf8_lossy(&b).contains(&needle))
                })
        })
        .collect()
}

fn signal(pid: u32, sig: Signal) {
    let _ = kill(Pid::from_raw(pid as i32), sig);
}

/// A private sshd on 127.0.0.1 that logs one user in with a generated key; killed with
/// its per-connection processes on drop, its directory removed.
pub struct Sshd {
    child: Child,
    /// The port it listens on (127.0.0.1 only).
    pub port: u16,
    /// The only user it logs in.
    pub user: User,
    dir: tempfile::TempDir,
}

impl Sshd {
    /// Starts sshd for `user` (see the module doc) and waits until it logs "Server
    /// listening on 127.0.0.1 port N" (it accepts from then on). A port taken between
    /// choosing and binding it is retried with another.
    pub fn start(user: &User) -> Sshd {
        let dir = tempfile::tempdir().unwrap();
        // sshd reads the authorized keys file as the user: the directory must let them
        // through; the private keys stay 0600.
        set_mode(dir.path(), 0o711);
        let host_pub = keygen(&dir.path().join("host_ed25519"), "attend-test-host");
        let user_pub = keygen(&dir.path().join("id_ed25519"), "attend-test-user");
        let keys = dir.path().join("authorized_keys");
        std::fs::write(&keys, format!("{user_pub}\n")).unwrap();
        set_mode(&keys, 0o644);
        let known = dir.path().join("known_hosts");
        std::fs::write(&known, format!("{HOST_ALIAS} {host_pub}\n")).unwrap();
        // The privilege separation directory (compiled in); the system service's unit
        // would make it.
        std::fs::create_dir_all("/run/sshd").unwrap();
        let mut last_log = String::new();
        for _ in 0..5 {
            let port = free_port();
            let config = dir.path().join("sshd_config");
            std::fs::write(&config, sshd_config(dir.path(), port, &user.name)).unwrap();
            let log_path = dir.path().join("sshd.log");
            let log = std::fs::File::create(&log_path).unwrap();
            let mut child = Command::new(SSHD)
                .args(["-D", "-e", "-f"])
                .arg(&config)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .expect("start sshd");
            let marker = format!("Server listening on 127.0.0.1 port {port}.");
            let mut exited = false;
            let ready = poll(TIMEOUT, || {
                exited = matches!(child.try_wait(), Ok(Some(_)));
                exited || std::fs::read_to_string(&log_path).is_ok_and(|l| l.contains(&marker))
            });
            last_log = std::fs::read_to_string(&log_path).unwrap_or_default();
            if ready && !exited {
                let sshd = Sshd {
                    child,
                    port,
                    user: user.clone(),
                    dir,
                };
                sshd.write_client_config();
                return sshd;
            }
            let _ = child.kill();
            let _ = child.wait();
            if !last_log.contains("Address already in use") {
                break;
            }
        }
        panic!("sshd did not start\n--- sshd log ---\n{last_log}");
    }

    /// Its temp directory (keys, configs, log).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The client config for `ssh -F` (host [`HOST_ALIAS`]).
    pub fn client_config(&self) -> PathBuf {
        self.dir.path().join("ssh_config")
    }

    fn write_client_config(&self) {
        let d = self.dir.path().display();
        let text = format!(
            "Host {HOST_ALIAS}\n\
             \x20 HostName 127.0.0.1\n\
             \x20 Port {port}\n\
             \x20 User {user}\n\
             \x20 HostKeyAlias {HOST_ALIAS}\n\
             \x20 IdentityFile {d}/id_ed25519\n\
             \x20 IdentitiesOnly yes\n\
             \x20 IdentityAgent none\n\
             \x20 UserKnownHostsFile {d}/known_hosts\n\
             \x20 GlobalKnownHostsFile /dev/null\n\
             \x20 StrictHostKeyChecking yes\n\
             \x20 CheckHostIP no\n\
             \x20 UpdateHostKeys no\n\
             \x20 BatchMode yes\n\
             \x20 ConnectTimeout 10\n\
             \x20 ServerAliveInterval 1\n\
             \x20 ServerAliveCountMax 2\n\
             \x20 ControlMaster no\n\
             \x20 ControlPath none\n\
             \x20 ForwardAgent no\n\
             \x20 ForwardX11 no\n\
             \x20 LogLevel ERROR\n",
            port = self.port,
            user = self.user.name,
        );
        std::fs::write(self.client_config(), text).unwrap();
    }

    /// `ssh -F <client config> attend-test-sshd`: add `--` and the remote command (one
    /// string, run by the user's shell), or use [`Sshd::ssh`].
    pub fn ssh_command(&self) -> Command {
        let mut c = Command::new("ssh");
        c.arg("-F").arg(self.client_config()).arg(HOST_ALIAS);
        c
    }

    /// `ssh … -- 'WORD' 'WORD'…`: `argv` run on the remote as it is (each word
    /// shell-quoted, since sshd hands the command line to the user's shell).
    pub fn ssh<S: AsRef<str>>(&self, argv: &[S]) -> Command {
        let line = shlex::try_join(argv.iter().map(|s| s.as_ref())).expect("quotable argv");
        let mut c = self.ssh_command();
        c.arg("--").arg(line);
        c
    }

    /// The pid of the listening sshd.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Per open connection, the sshd processes that serve it: the listener's child (the
    /// privileged monitor) and its sshd descendants (the session process as the user,
    /// which holds the socket); not the user's own programs. All of them must be killed
    /// (or stopped) to cut the link: the monitor alone leaves the session running.
    pub fn connections(&self) -> Vec<Vec<u32>> {
        children_of(self.pid())
            .into_iter()
            .map(|monitor| {
                let mut pids = vec![monitor];
                pids.extend(
                    descendants_of(monitor)
                        .into_iter()
                        .filter(|p| comm(*p).as_deref() == Some("sshd")),
                );
                pids
            })
            .collect()
    }

    /// Waits until `n` connections are open; their processes ([`Sshd::connections`]).
    pub fn wait_connections(&self, n: usize) -> Vec<Vec<u32>> {
        let mut conns = Vec::new();
        // A connection is complete once its session process (the second pid) exists.
        let held = poll(TIMEOUT, || {
            conns = self.connections();
            conns.len() == n && conns.iter().all(|c| c.len() >= 2)
        });
        assert!(
            held,
            "timed out waiting for {n} ssh connection(s): {conns:?}\n--- sshd log ---\n{}",
            self.log()
        );
        conns
    }

    /// Sends `sig` to every process of every open connection (SIGKILL: the link is lost
    /// abruptly, the client sees the TCP connection close; SIGSTOP: silently, only
    /// `ServerAliveInterval` notices). The processes signalled.
    pub fn signal_connections(&self, sig: Signal) -> Vec<u32> {
        let pids: Vec<u32> = self.connections().into_iter().flatten().collect();
        for p in &pids {
            signal(*p, sig);
        }
        pids
    }

    /// sshd's log so far (`-e`: its messages on stderr).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("sshd.log")).unwrap_or_default()
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        // Everything under the listener at once (stopped ones too: SIGKILL ends them),
        // then the listener.
        for p in descendants_of(self.pid()) {
            signal(p, Signal::SIGKILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port of 127.0.0.1 that was free a moment ago.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The private sshd configuration: 127.0.0.1:`port` only, the host key and authorized
/// keys in `dir`, public-key logins of `user` only, no PAM, no forwarding.
fn sshd_config(dir: &Path, port: u16, user: &str) -> String {
    let d = dir.display();
    format!(
        "ListenAddress 127.0.0.1\n\
         Port {port}\n\
         HostKey {d}/host_ed25519\n\
         PidFile {d}/sshd.pid\n\
         AuthorizedKeysFile {d}/authorized_keys\n\
         AuthenticationMethods publickey\n\
         PubkeyAuthentication yes\n\
         PasswordAuthentication no\n\
         KbdInteractiveAuthentication no\n\
         UsePAM no\n\
         StrictModes no\n\
         AllowUsers {user}\n\
         PermitRootLogin no\n\
         PermitUserEnvironment no\n\
         AllowAgentForwarding no\n\
         AllowTcpForwarding no\n\
         X11Forwarding no\n\
         UseDNS no\n\
         PrintMotd no\n\
         PrintLastLog no\n\
         MaxStartups 100:30:200\n\
         MaxSessions 100\n\
         LogLevel INFO\n"
    )
}

/// The "remote host" side: a private session bus and an `attend daemon` run as the second
/// user, with directories of their own. Stopped and removed on drop.
pub struct RemoteUser {
    /// The user they run as.
    pub user: User,
    daemon: Option<Child>,
    bus: Option<Bus>,
    dir: tempfile::TempDir,
}

impl RemoteUser {
    /// Prepares the directories (see [`RemoteUser::home`]) and the binaries, starts the
    /// bus at `$XDG_RUNTIME_DIR/bus` and `attend daemon --no-tray --no-notifications` on
    /// it, as `user`, and waits until the daemon has logged "attend daemon ready".
    pub fn start(user: &User) -> RemoteUser {
        let dir = tempfile::tempdir().unwrap();
        set_mode(dir.path(), 0o711);
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        set_mode(&bin, 0o755);
        let built = Path::new(attend_bin());
        let from = built.parent().unwrap();
        for name in ["attend", "attend-hook", "attend-holder"] {
            let src = if name == "attend" {
                built.to_path_buf()
            } else {
                from.join(name)
            };
            let dst = bin.join(name);
            if std::fs::hard_link(&src, &dst).is_err() {
                std::fs::copy(&src, &dst)
                    .unwrap_or_else(|e| panic!("copy {} for {}: {e}", src.display(), user.name));
            }
            // A hard link shares the build's mode (cargo's 0755); a copy keeps it too.
            let mode = std::fs::metadata(&dst).unwrap().permissions().mode();
            assert!(
                mode & 0o005 == 0o005,
                "{} is not world-executable",
                dst.display()
            );
        }
        std::fs::create_dir(dir.path().join("log")).unwrap();
        let mut remote = RemoteUser {
            user: user.clone(),
            daemon: None,
            bus: None,
            dir,
        };
        for d in [
            remote.home(),
            remote.runtime_dir(),
            remote.state_dir(),
            remote.tmux_dir(),
        ] {
            std::fs::create_dir(&d).unwrap();
            set_mode(&d, 0o700);
            std::os::unix::fs::chown(&d, Some(user.uid), Some(user.gid)).unwrap();
        }
        let mut c = remote.command("dbus-daemon");
        c.arg("--session").arg(format!(
            "--address=unix:path={}",
            remote.runtime_dir().join("bus").display()
        ));
        remote.bus = Some(Bus::spawn(c));
        remote.start_daemon();
        remote
    }

    /// The user's `HOME` (owned by them, 0700); `run/`, `state/` and `tmux/` are inside it.
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// Their `XDG_RUNTIME_DIR` (the bus socket `bus` and the hook spool are there).
    pub fn runtime_dir(&self) -> PathBuf {
        self.home().join("run")
    }

    /// Their `TMUX_TMPDIR`: their tmux servers' sockets are under it (`tmux-UID/`), so
    /// their daemon follows the test's own tmux only, never another test's (every test
    /// runs as the same user).
    pub fn tmux_dir(&self) -> PathBuf {
        self.home().join("tmux")
    }

    /// Their `ATTEND_STATE_DIR`.
    pub fn state_dir(&self) -> PathBuf {
        self.home().join("state")
    }

    /// The bus address (`unix:path=…/run/bus`, as `DBUS_SESSION_BUS_ADDRESS`).
    pub fn bus_address(&self) -> String {
        format!("unix:path={}", self.runtime_dir().join("bus").display())
    }

    /// The path of `attend` (or `attend-hook`, `attend-holder`) the user can run.
    pub fn bin(&self, name: &str) -> PathBuf {
        self.dir.path().join("bin").join(name)
    }

    /// The environment every program of the user gets: `HOME`, `USER`, `LOGNAME`,
    /// `PATH`, `XDG_RUNTIME_DIR`, `ATTEND_STATE_DIR`, `DBUS_SESSION_BUS_ADDRESS`,
    /// `TMUX_TMPDIR`.
    pub fn env(&self) -> Vec<(String, String)> {
        let p = |p: PathBuf| p.display().to_string();
        vec![
            ("HOME".into(), p(self.home())),
            ("USER".into(), self.user.name.clone()),
            ("LOGNAME".into(), self.user.name.clone()),
            ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
            ("XDG_RUNTIME_DIR".into(), p(self.runtime_dir())),
            ("ATTEND_STATE_DIR".into(), p(self.state_dir())),
            ("DBUS_SESSION_BUS_ADDRESS".into(), self.bus_address()),
            ("TMUX_TMPDIR".into(), p(self.tmux_dir())),
            (super::TETHER_ENV.into(), std::process::id().to_string()),
        ]
    }

    /// The remote command line for `program args` in the user's environment, for
    /// [`Sshd::ssh`]: `env K=V… PROGRAM ARGS…` (`program` "attend" is their copy).
    pub fn argv(&self, program: &str, args: &[&str]) -> Vec<String> {
        let mut v = vec!["env".to_string()];
        v.extend(self.env().into_iter().map(|(k, val)| format!("{k}={val}")));
        v.push(match program {
            "attend" | "attend-hook" | "attend-holder" => self.bin(program).display().to_string(),
            other => other.to_string(),
        });
        v.extend(args.iter().map(|a| a.to_string()));
        v
    }

    /// `attend bridge --stdio` in the user's environment ([`RemoteUser::argv`]), quoted
    /// as one line: a link's `--command` to this user's daemon.
    pub fn bridge_command(&self) -> String {
        shlex::try_join(
            self.argv("attend", &["bridge", "--stdio"])
                .iter()
                .map(String::as_str),
        )
        .expect("quotable argv")
    }

    /// `program` run locally as the user (uid, gid; root's groups dropped) in their
    /// environment only and their home: set-up and checks without ssh.
    pub fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env_clear()
            .envs(self.env())
            .current_dir(self.home())
            .uid(self.user.uid)
            .gid(self.user.gid)
            .stdin(Stdio::null());
        c
    }

    /// `program args` run as the user ([`RemoteUser::command`]; `attend`, `attend-hook`
    /// and `attend-holder` are their copies) with `stdin` as its input: its output.
    pub fn run(&self, program: &str, args: &[&str], stdin: &str) -> std::process::Output {
        let path = match program {
            "attend" | "attend-hook" | "attend-holder" => self.bin(program).display().to_string(),
            other => other.to_string(),
        };
        let mut child = self
            .command(&path)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {path} as {}: {e}", self.user.name));
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    fn log_path(&self) -> PathBuf {
        self.dir.path().join("log/daemon.log")
    }

    /// The remote daemon's stderr so far.
    pub fn daemon_log(&self) -> String {
        std::fs::read_to_string(self.log_path()).unwrap_or_default()
    }

    /// The remote daemon's pid.
    pub fn daemon_pid(&self) -> u32 {
        self.daemon.as_ref().expect("the remote daemon").id()
    }

    fn start_daemon(&mut self) {
        let log = std::fs::File::create(self.log_path()).unwrap();
        let child = self
            .command(&self.bin("attend").display().to_string())
            .args(["daemon", "--no-tray", "--no-notifications"])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start the remote attend daemon");
        self.daemon = Some(child);
        let log = self.log_path();
        let mut exited = false;
        let ready = poll(READY_TIMEOUT, || {
            exited = matches!(self.daemon.as_mut().unwrap().try_wait(), Ok(Some(_)));
            exited || std::fs::read_to_string(&log).is_ok_and(|l| l.contains("attend daemon ready"))
        });
        assert!(
            ready && !exited,
            "the remote daemon (as {}) did not get ready\n--- daemon log ---\n{}",
            self.user.name,
            self.daemon_log()
        );
    }
}

impl Drop for RemoteUser {
    fn drop(&mut self) {
        if let Some(mut d) = self.daemon.take() {
            stop(&mut d, STOP_GRACE);
        }
        super::kill_holders(&self.state_dir());
        // The bus goes with its field; the directory last.
    }
}
