//! Pane holders, the daemon's side (`docs/decisions/0009-pane-holders.md`): where their
//! sockets live, which executable runs them, starting one for a new pane and finding the
//! live ones of this state directory at start-up.
//!
//! Sockets live in `$XDG_RUNTIME_DIR/attend/holders/<key>/p<N>.sock`, `<key>` derived from
//! the state directory (so two daemons of two state directories never meet each other's
//! holders); the directories are 0700 and a holder answers its own uid only (SO_PEERCRED).

use crate::model::PaneId;
use crate::service::pty::{EventTx, PtyHandle, SpawnError, SpawnSpec};
use crate::system::private;
use attend_holder::client::{self, AttachError, Attached, Launcher, StartError};
use attend_holder::holder::Args;
use sha2::Digest;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

/// Environment variable naming the holder executable (tests run stand-ins with it).
pub const HOLDER_ENV: &str = "ATTEND_HOLDER";

/// Default output buffer of a holder while no daemon is connected (8 MiB).
pub const DEFAULT_HOLDER_BUFFER: usize = attend_holder::holder::DEFAULT_BUFFER;

/// The holders of one state directory.
#[derive(Debug, Clone)]
pub struct Holders {
    dir: PathBuf,
    /// `<state dir>/holders`: each holder's second socket, which outlives the removal of
    /// the runtime directory (logout without lingering, a tidy-up).
    spare_dir: PathBuf,
    state_dir: PathBuf,
    launcher: Launcher,
    buffer: usize,
    scopes: Option<crate::service::processes::scope::Scopes>,
}

/// A live holder found at start-up.
#[derive(Debug)]
pub struct Found {
    /// Its pane.
    pub pane: PaneId,
    /// The connection (the daemon reads its PTY from now on).
    pub attached: Attached,
}

impl Holders {
    /// The holders of `state_dir`, sockets under `runtime_dir` (created 0700, an existing
    /// directory made 0700), each buffering at most `buffer` bytes while the daemon is away.
    pub fn new(state_dir: &Path, runtime_dir: &Path, buffer: usize) -> io::Result<Holders> {
        let canonical = state_dir
            .canonicalize()
            .unwrap_or_else(|_| state_dir.to_path_buf());
        let digest = sha2::Sha256::digest(canonical.as_os_str().as_encoded_bytes());
        let key: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        let dir = runtime_dir.join("holders").join(key);
        for d in [dir.parent().unwrap_or(&dir), dir.as_path()] {
            private::dir(d)?;
        }
        let spare_dir = canonical.join("holders");
        Ok(Holders {
            dir,
            spare_dir,
            state_dir: canonical,
            launcher: launcher(),
            buffer,
            scopes: None,
        })
    }

    /// From now on each new holder gets a transient systemd scope of its own
    /// (src/service/processes/scope.rs).
    pub fn with_scopes(
        mut self,
        scopes: Option<crate::service::processes::scope::Scopes>,
    ) -> Holders {
        self.scopes = scopes;
        self
    }

    /// From now on holders run as `launcher` says instead of the executable found beside
    /// this one (tests run `attend __holder` from their own binary).
    pub fn with_launcher(mut self, launcher: Launcher) -> Holders {
        self.launcher = launcher;
        self
    }

    /// The screen log of `pane` (`<state dir>/screens/p<N>.log`, directory 0700; see
    /// src/service/pty/screen_log.rs).
    pub fn screen_log(&self, pane: PaneId) -> PathBuf {
        let dir = self.state_dir.join("screens");
        let _ = private::dir(&dir);
        dir.join(format!("{pane}.log"))
    }

    /// The socket of `pane`'s holder.
    pub fn socket(&self, pane: PaneId) -> PathBuf {
        self.dir.join(format!("{pane}.sock"))
    }

    /// Starts `spec.argv` as `pane` in a new PTY of `spec.rows`×`spec.cols` kept by a new
    /// holder — the one way a pane starts (`docs/decisions/0009-pane-holders.md`): the
    /// program outlives this process — and reports its output and exit on `tx` (a bounded
    /// queue makes the PTY threads wait while it is full). Errors: the program's (not
    /// found, not executable, a missing working directory) as [`SpawnError::Program`], a
    /// holder that cannot start or be read as [`SpawnError::Pty`].
    pub fn spawn(
        &self,
        pane: PaneId,
        spec: &SpawnSpec,
        tx: impl Into<EventTx>,
    ) -> Result<PtyHandle, SpawnError> {
        crate::service::pty::check(spec)?;
        let held = self.start(pane, spec)?;
        let log = Some((self.screen_log(pane), false));
        PtyHandle::adopt(pane, held, spec.scrollback, log, tx)
    }

    /// Starts a holder running `spec` for `pane` (the program was checked by the caller)
    /// and connects to it. Errors: the program's exec/chdir failure as
    /// [`SpawnError::Program`]; a holder that cannot start as [`SpawnError::Pty`].
    pub fn start(&self, pane: PaneId, spec: &SpawnSpec) -> Result<Attached, SpawnError> {
        let program = spec.argv.first().cloned().unwrap_or_default();
        // Both directories again: somebody may have removed them meanwhile.
        for d in [&self.dir, &self.spare_dir] {
            private::dir(d)
                .map_err(|e| SpawnError::Pty(format!("cannot make {}: {e}", d.display())))?;
        }
        let spare = self.spare_dir.join(format!("{pane}.sock"));
        // A Unix socket path has at most 107 bytes; a longer one is left out.
        let also_socket = (spare.as_os_str().len() < 108).then_some(spare);
        let args = Args {
            socket: self.socket(pane),
            also_socket,
            state_dir: self.state_dir.clone(),
            pane: pane.0,
            rows: spec.rows.max(1),
            cols: spec.cols.max(1),
            buffer: self.buffer,
            cwd: Some(spec.cwd.clone()),
            argv: spec.argv.iter().map(OsString::from).collect(),
        };
        let mut env: Vec<(OsString, OsString)> = Vec::new();
        if !spec.env.iter().any(|(k, _)| k == "TERM") {
            env.push(("TERM".into(), "xterm-256color".into()));
        }
        env.extend(spec.env.iter().map(|(k, v)| (k.into(), v.into())));
        let before_program = |pid: u32| {
            crate::service::processes::fd_limit::restore_in(pid);
            if let Some(s) = &self.scopes {
                s.adopt(pid, pane)
            }
        };
        client::start(&self.launcher, &args, &env, before_program).map_err(|e| match e {
            StartError::Program(source) => SpawnError::Program { program, source },
            StartError::Holder(e) => SpawnError::Pty(format!("cannot start the pane holder: {e}")),
        })?;
        client::connect(&args.socket)
            .map_err(|e| SpawnError::Pty(format!("cannot reach the pane holder: {e}")))
    }

    /// True when something listens on `pane`'s holder socket (a holder that runs, even
    /// one that did not answer in time). The connection is dropped at once: the holder
    /// goes on as if no daemon had come.
    pub fn is_alive(&self, pane: PaneId) -> bool {
        let spare = self.spare_dir.join(format!("{pane}.sock"));
        [self.socket(pane), spare]
            .iter()
            .any(|p| std::os::unix::net::UnixStream::connect(p).is_ok())
    }

    /// Connects to every holder socket of this state directory: live holders are
    /// returned, stale sockets (nobody listens) removed; a holder of another state
    /// directory or one that speaks another protocol version is left alone and logged.
    /// The second list: panes whose holder listens but could not be adopted (it did not
    /// answer in time, or speaks another version): their programs still run.
    pub fn scan(&self) -> (Vec<Found>, Vec<PaneId>) {
        // Each holder listens in both directories: the runtime one first, the state
        // directory's for holders whose runtime socket is gone.
        let mut paths: Vec<PathBuf> = Vec::new();
        for d in [&self.dir, &self.spare_dir] {
            if let Ok(entries) = std::fs::read_dir(d) {
                paths.extend(entries.flatten().map(|e| e.path()));
            }
        }
        let mut seen = std::collections::HashSet::new();
        let mut found = Vec::new();
        let mut unreachable = Vec::new();
        for path in paths {
            let Some(pane) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".sock"))
                .and_then(PaneId::parse)
            else {
                continue;
            };
            if seen.contains(&pane) {
                continue;
            }
            match client::connect(&path) {
                Ok(a) if a.hello.state_dir == self.state_dir && a.hello.pane == pane.0 => {
                    seen.insert(pane);
                    found.push(Found { pane, attached: a })
                }
                Ok(a) => tracing::warn!(
                    socket = %path.display(),
                    state_dir = %a.hello.state_dir.display(),
                    "a holder of another state directory or pane: left alone"
                ),
                Err(AttachError::Stale(e)) => {
                    tracing::info!(socket = %path.display(), "stale holder socket removed ({e})");
                    let _ = std::fs::remove_file(&path);
                }
                Err(e) => {
                    tracing::error!(
                        socket = %path.display(),
                        %pane,
                        "cannot adopt the pane's holder: {e}; it keeps running, not adopted \
                         (the next start tries again)"
                    );
                    seen.insert(pane);
                    unreachable.push(pane);
                }
            }
        }
        found.sort_by_key(|f| f.pane);
        (found, unreachable)
    }
}

/// The holder executable: [`HOLDER_ENV`], else `attend-holder` beside this executable,
/// else this executable with `__holder` (the same code, linked into `attend`).
fn launcher() -> Launcher {
    if let Some(p) = std::env::var_os(HOLDER_ENV).filter(|p| !p.is_empty()) {
        return Launcher {
            program: PathBuf::from(p),
            pre_args: vec![],
        };
    }
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("attend"));
    let beside = exe.with_file_name("attend-holder");
    if beside.is_file() {
        return Launcher {
            program: beside,
            pre_args: vec![],
        };
    }
    Launcher {
        program: exe,
        pre_args: vec![HOLDER_SUBCOMMAND.into()],
    }
}

/// The hidden first argument that makes `attend` run a holder.
pub const HOLDER_SUBCOMMAND: &str = "__holder";
