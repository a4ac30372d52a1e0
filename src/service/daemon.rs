//! `attend daemon`: the session service (ADR 0005,
//! `docs/decisions/0005-one-service-thin-clients.md`).
//!
//! One tokio runtime. Start-up order: serve the interface (its calls queue in the owner's
//! channel), take the bus name (refuse when another daemon has it, before touching the
//! database), open and load the database (a corrupt file is moved aside, loudly), mark
//! the panes of the previous daemon exited, start the attach server, then run the owner
//! loop until SIGTERM, SIGINT or the loss of the bus.

use crate::engine::World;
use crate::model::{Action, PaneId};
use crate::service::bus::error::Attend1Error;
use crate::service::bus::interface::{Attend1, BUS_NAME, OBJECT_PATH};
use crate::service::command::{Command, LadderCommand, LadderInput};
use crate::service::owner::{Owner, OwnerConfig};
use crate::service::pty::attach::{AttachFocus, AttachServer};
use crate::service::pty::PtyRegistry;
use crate::service::store::db::{move_aside, Db, DbError, DB_FILE};
use crate::service::store::replay;
use crate::service::store::spool::Spool;
use attend_hook::paths::{runtime_dir, state_dir};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use tokio::sync::{mpsc, oneshot};
use zbus::fdo::{RequestNameFlags, RequestNameReply};

/// Options of `attend daemon`.
#[derive(Debug, Clone)]
pub struct DaemonOptions {
    /// No tray icon (src/service/surfaces/tray.rs).
    pub no_tray: bool,
    /// No desktop notifications (src/service/surfaces/notifications.rs).
    pub no_notifications: bool,
    /// State directory; default [`state_dir`].
    pub state_dir: Option<PathBuf>,
    /// Scrollback lines per pane (default 2 000).
    pub scrollback: usize,
    /// Bytes each pane holder keeps while no daemon is connected (default 8 MiB).
    pub holder_buffer: usize,
    /// Take over from a running daemon of the same state directory
    /// (src/service/processes/handover.rs).
    pub replace: bool,
}

impl Default for DaemonOptions {
    fn default() -> DaemonOptions {
        DaemonOptions {
            no_tray: false,
            no_notifications: false,
            state_dir: None,
            scrollback: 2000,
            holder_buffer: crate::service::pty::holders::DEFAULT_HOLDER_BUFFER,
            replace: false,
        }
    }
}

/// Why the daemon stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error("another attend daemon is already running on this bus (it owns {BUS_NAME})")]
    AlreadyRunning,
    #[error("D-Bus: {0}")]
    Bus(#[from] zbus::Error),
    #[error("{0}")]
    Db(#[from] DbError),
    #[error("cannot move the bad database file {path} aside: {source}")]
    MoveAside {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("attach socket: {0}")]
    Attach(std::io::Error),
    #[error("pane holder directory: {0}")]
    Holders(std::io::Error),
    #[error("{0}")]
    StateLock(#[from] crate::system::state_lock::StateLockError),
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // The HTTP client's own wire logs would show the away push's `Authorization` header
    // (docs/away.md#privacy): never below warn, whatever RUST_LOG says.
    let filter = ["ureq=warn", "ureq_proto=warn"]
        .into_iter()
        .filter_map(|d| d.parse().ok())
        .fold(filter, |f, d| f.add_directive(d));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// Exit code of a daemon that found another instance there first: its state directory
/// taken by another daemon ([`DaemonError::StateLock`] `InUse`) or its bus name owned
/// ([`DaemonError::AlreadyRunning`]); docs/dbus-api.md "Start-up and files".
pub const EXIT_STATE_IN_USE: i32 = 2;

/// Runs the daemon on the session bus (`DBUS_SESSION_BUS_ADDRESS`); returns the exit
/// code: 0 after SIGTERM/SIGINT or the loss of the bus, [`EXIT_STATE_IN_USE`] (2) when
/// another daemon holds the state directory or owns the name, 1 on any other start-up
/// failure (no bus, unusable database); each with a clear message on stderr.
pub fn run(opts: DaemonOptions) -> i32 {
    init_logging();
    // Each pane costs descriptors: 1 000 panes need more than the usual soft limit.
    match crate::service::processes::fd_limit::raise() {
        Ok(Some((from, to))) => tracing::info!("open-files limit raised from {from} to {to}"),
        Ok(None) => {}
        Err(e) => tracing::warn!("cannot raise the open-files limit: {e}"),
    }
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("attend: cannot start the runtime: {e}");
            return 1;
        }
    };
    rt.block_on(async move {
        let conn = match zbus::Connection::session().await {
            Ok(c) => c,
            Err(e) => {
                eprintln!(
                    "attend: cannot connect to the session bus (DBUS_SESSION_BUS_ADDRESS={}): {e}",
                    std::env::var("DBUS_SESSION_BUS_ADDRESS").unwrap_or_else(|_| "(unset)".into())
                );
                return 1;
            }
        };
        match run_with_connection(conn, opts).await {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("attend: {e}");
                match e {
                    DaemonError::StateLock(crate::system::state_lock::StateLockError::InUse {
                        ..
                    })
                    | DaemonError::AlreadyRunning => EXIT_STATE_IN_USE,
                    _ => 1,
                }
            }
        }
    })
}

/// Says that the database file is missing before a fresh one is made, never silently:
/// a warning in the log (first start, or the file was deleted); and when the file's
/// write-ahead log or journal is still there (deleted while the daemon was stopped) those
/// are moved aside to `<name>.orphan-<unix-ms>` (reported on stderr), so SQLite neither
/// applies them to the new file nor discards what they hold.
fn report_missing_db(path: &Path) -> Result<(), DaemonError> {
    let companions: Vec<PathBuf> = ["-wal", "-shm", "-journal"]
        .iter()
        .map(|c| PathBuf::from(format!("{}{c}", path.display())))
        .filter(|p| p.exists())
        .collect();
    if companions.is_empty() {
        tracing::warn!(
            path = %path.display(),
            "no database: starting with an empty state (first start, or the file was deleted)"
        );
        return Ok(());
    }
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let mut moved = Vec::new();
    for from in companions {
        let to = PathBuf::from(format!("{}.orphan-{stamp}", from.display()));
        std::fs::rename(&from, &to).map_err(|source| DaemonError::MoveAside {
            path: from.clone(),
            source,
        })?;
        moved.push(to.display().to_string());
    }
    eprintln!(
        "attend: the database {} is missing but its log files are still there (was it \
         deleted?); moved them to {} and starting with an empty state",
        path.display(),
        moved.join(", ")
    );
    tracing::error!(path = %path.display(), moved = %moved.join(", "), "missing database: its log files moved aside");
    Ok(())
}

/// Opens the database, moving a corrupt one aside (reported on stderr, never silent) and
/// starting fresh; a missing one is reported ([`report_missing_db`]).
fn open_db(dir: &Path) -> Result<(Db, World), DaemonError> {
    let path = dir.join(DB_FILE);
    if !path.exists() {
        report_missing_db(&path)?;
    }
    let opened = Db::open_in(dir).and_then(|db| db.load().map(|w| (db, w)));
    let (db, world) = match opened {
        Ok(x) => x,
        Err(DbError::Corrupt { path, detail }) => {
            let aside = move_aside(&path).map_err(|source| DaemonError::MoveAside {
                path: path.clone(),
                source,
            })?;
            eprintln!(
                "attend: the database {} is corrupt ({detail}); moved it to {} and starting \
                 with an empty state",
                path.display(),
                aside.display()
            );
            tracing::error!(path = %path.display(), aside = %aside.display(), "corrupt database moved aside");
            let db = Db::open_in(dir)?;
            let world = db.load()?;
            (db, world)
        }
        Err(e) => return Err(e.into()),
    };
    Ok((db, world))
}

/// Serves `io.github.attend.Attend1` on `conn` and runs until SIGTERM, SIGINT or the loss
/// of the bus name. Tests may pass a connection to a private bus.
///
/// Errors: [`DaemonError::AlreadyRunning`] when the name has another owner (nothing else
/// is touched), [`DaemonError::StateLock`] when another daemon (on another bus) holds the
/// state directory (src/system/state_lock.rs; nothing else is touched), bus, database
/// and attach-socket failures at start-up.
pub async fn run_with_connection(
    conn: zbus::Connection,
    opts: DaemonOptions,
) -> Result<(), DaemonError> {
    let (cmd_tx, cmd_rx) = mpsc::channel::<Command>(1024);
    let quit = std::sync::Arc::new(tokio::sync::Notify::new());
    let remotes = crate::service::remotes::Remotes::new();
    tokio::spawn(crate::service::bus::interface::signal_remote_changes(
        conn.clone(),
        remotes.clone(),
    ));
    let router = crate::service::bus::routed::Router::new(cmd_tx.clone(), remotes.clone());
    conn.object_server()
        .at(
            OBJECT_PATH,
            Attend1::new(
                cmd_tx.clone(),
                quit.clone(),
                remotes.clone(),
                router.clone(),
            ),
        )
        .await?;
    // The object server dispatches calls once its task runs: wait for that before the
    // name is requested, so that no call sent as soon as the name is ours is dropped.
    object_server_ready(&conn).await;
    // A focus held by a bus client ends when the client leaves (src/service/bus/routed.rs).
    tokio::spawn(crate::service::bus::routed::watch_clients(
        conn.clone(),
        router,
    ));
    let lost = name_lost(&conn).await?;
    let dir = opts.state_dir.clone().unwrap_or_else(state_dir);
    // `--replace`: the running daemon goes first (its agents stay, in their holders).
    let taken = if opts.replace {
        let lock = crate::service::processes::handover::take_over(&conn, &dir).await?;
        crate::service::processes::handover::wait_for_name(&conn).await?;
        Some(lock)
    } else {
        None
    };
    let reply = match conn
        .request_name_with_flags(BUS_NAME, RequestNameFlags::DoNotQueue.into())
        .await
    {
        Err(zbus::Error::NameTaken) => return Err(DaemonError::AlreadyRunning),
        other => other?,
    };
    if !matches!(
        reply,
        RequestNameReply::PrimaryOwner | RequestNameReply::AlreadyOwner
    ) {
        return Err(DaemonError::AlreadyRunning);
    }
    // Held until this function returns: one daemon per state directory.
    let mut state = match taken {
        Some(lock) => lock,
        None => crate::system::state_lock::lock(&dir)?,
    };
    state.record_bus(&bus_label(&conn));
    let runtime_changed = crate::system::private::tighten_dir(&runtime_dir());
    if runtime_changed > 0 {
        tracing::info!(
            paths = runtime_changed,
            "closed the runtime directory to other users (it was readable by them)"
        );
    }
    let (db, world) = open_db(&dir)?;
    tracing::info!(
        db = %dir.join(DB_FILE).display(),
        panes = world.panes().len(),
        seq = world.seq,
        "state loaded"
    );

    // One socket per daemon (clients get its path from `Attach`): two daemons on two
    // buses (a desktop session and an SSH one) never take over each other's socket.
    let socket = runtime_dir().join(format!("attach-{}.sock", std::process::id()));
    remove_stale_attach_sockets(&runtime_dir());
    let (pty_tx, pty_rx) = crate::service::pty::event_channel();
    // The user's config.toml, once: a bad entry is logged and only it falls back.
    let settings = crate::settings::load();
    // The links to other machines' daemons (src/service/remotes/), each its own task.
    // Each continues after its host's last stored remote seq; the seqs of remotes no
    // longer configured are forgotten (docs/remote.md).
    let configured: Vec<_> = settings.remotes.iter().map(|r| r.name.clone()).collect();
    let mut db = db;
    match db.forget_remotes_except(&configured) {
        Ok(gone) if !gone.is_empty() => {
            tracing::info!(
                ?gone,
                "forgot the remote seqs of remotes no longer configured"
            )
        }
        Ok(_) => {}
        Err(e) => tracing::warn!("cannot forget the seqs of removed remotes: {e}"),
    }
    let seqs = db.remote_seqs().unwrap_or_else(|e| {
        tracing::warn!("cannot read the remote seqs ({e}); remotes are read from their start");
        Default::default()
    });
    remotes.store_in(cmd_tx.clone(), seqs);
    let mut owner = Owner::new(
        world,
        db,
        pty_tx,
        cmd_tx.clone(),
        conn.clone(),
        OwnerConfig {
            attach_socket: socket.clone(),
            scrollback: opts.scrollback,
            remove_exited_after: settings.remove_exited_after,
            holders: crate::service::pty::holders::Holders::new(
                &dir,
                &runtime_dir(),
                opts.holder_buffer,
            )
            .map_err(DaemonError::Holders)?
            .with_scopes(crate::service::processes::scope::Scopes::detect(&conn).await),
        },
    );
    // The user's tmux (docs/tmux.md): its agent panes become panes.
    if let Some(follower) = crate::service::tmux::Follower::start(cmd_tx.clone(), &settings.tmux) {
        follower.recheck(owner.followed_in_tmux());
        owner.set_tmux(follower);
    }
    let adopting = std::time::Instant::now();
    let adopted = owner.adopt_holders();
    if adopted > 0 {
        tracing::info!(
            panes = adopted,
            ms = adopting.elapsed().as_millis() as u64,
            "panes of the previous daemon re-adopted from their holders"
        );
    }
    let gone = owner.mark_gone_after_restart()?;
    if gone > 0 {
        tracing::info!(panes = gone, "panes of the previous daemon are now exited");
    }
    let spool = Spool::new(runtime_dir());
    let replayed = replay::replay_at_start(&mut owner, &spool).await;
    if replayed != replay::ReplayReport::default() {
        tracing::info!(?replayed, "replayed the hook spool");
    }
    let attach = start_attach(&socket, owner.ptys(), cmd_tx.clone())?;
    let spool_watch = replay::watch(spool, cmd_tx.clone())
        .inspect_err(|e| {
            tracing::error!(
                "cannot watch the hook spool ({e}); spooled hooks wait for the next start"
            )
        })
        .ok();
    let remote_hosts = settings.remotes.clone();
    remotes.set_notify_levels(settings.notify_levels.iter().copied().collect());
    let surfaces = crate::service::surfaces::start(
        &conn,
        cmd_tx.clone(),
        crate::service::surfaces::SurfaceOptions {
            tray: !opts.no_tray,
            notifications: !opts.no_notifications,
        },
        settings,
        &remotes,
    )
    .await;
    owner.set_surfaces(surfaces.clone());
    owner.set_remotes(remotes.clone());
    // The links to other machines' daemons (src/service/remotes/), each its own task;
    // started once the surfaces subscribed to their mirrors.
    remotes.set(remote_hosts);
    tracing::info!(bus = BUS_NAME, "attend daemon ready");

    let shutdown = async move {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!("cannot watch SIGTERM: {e}");
                    return std::future::pending().await;
                }
            };
        tokio::select! {
            _ = term.recv() => tracing::info!("SIGTERM: stopping"),
            _ = tokio::signal::ctrl_c() => tracing::info!("SIGINT: stopping"),
            _ = lost => tracing::warn!("lost the bus or the bus name: stopping"),
            _ = surfaces.quit_requested() => tracing::info!("quit from the tray: stopping"),
            _ = quit.notified() => tracing::info!("Quit over D-Bus: stopping"),
        }
    };
    owner.run(cmd_rx, pty_rx, shutdown).await;
    remotes.stop();
    drop(spool_watch);
    attach.abort();
    // The bus may be gone already: do not wait long for its answer.
    let release = conn.release_name(BUS_NAME);
    let _ = tokio::time::timeout(std::time::Duration::from_millis(500), release).await;
    let _ = std::fs::remove_file(&socket);
    Ok(())
}

/// The daemon's bus as a second daemon's message names it: the session bus address
/// (`DBUS_SESSION_BUS_ADDRESS`, when set) and this connection's unique name, e.g.
/// `unix:path=/run/user/1000/bus (:1.42)`.
fn bus_label(conn: &zbus::Connection) -> String {
    let address = std::env::var("DBUS_SESSION_BUS_ADDRESS")
        .ok()
        .filter(|a| !a.is_empty())
        .unwrap_or_else(|| "the default session bus".into());
    match conn.unique_name() {
        Some(name) => format!("{address} ({name})"),
        None => address,
    }
}

/// Removes `attach-<pid>.sock` files of daemons that are gone (killed: they could not
/// remove their own), so they do not pile up in the runtime directory.
fn remove_stale_attach_sockets(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for path in entries.flatten().map(|e| e.path()) {
        let pid = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("attach-"))
            .and_then(|n| n.strip_suffix(".sock"))
            .and_then(|n| n.parse::<i32>().ok());
        let Some(pid) = pid else { continue };
        let gone = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None)
            == Err(nix::errno::Errno::ESRCH);
        if gone {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Resolves when the bus name is lost or the connection to the bus closes.
/// How long [`object_server_ready`] waits for one answer, and how often it asks.
const READY_PING: std::time::Duration = std::time::Duration::from_millis(100);
const READY_TRIES: u32 = 50;

/// Waits until `conn`'s object server answers a call (`org.freedesktop.DBus.Peer.Ping` to
/// this connection's own unique name). zbus starts the task that dispatches method calls
/// lazily, on the first `object_server()`; a call that arrives before that task first ran
/// is dropped unanswered, and its caller (a hook, the panel) would wait for its whole
/// timeout. On a busy machine that first run can come after the name is acquired: hence
/// this wait, before the name is requested. Gives up after [`READY_TRIES`] ×
/// [`READY_PING`] with a warning (nothing is lost but the guarantee).
pub async fn object_server_ready(conn: &zbus::Connection) {
    let Some(me) = conn.unique_name().map(|n| n.to_string()) else {
        return;
    };
    for _ in 0..READY_TRIES {
        let ping = conn.call_method(
            Some(me.as_str()),
            "/",
            Some("org.freedesktop.DBus.Peer"),
            "Ping",
            &(),
        );
        if let Ok(Ok(_)) = tokio::time::timeout(READY_PING, ping).await {
            return;
        }
    }
    tracing::warn!("the object server did not answer a ping; requesting the name anyway");
}

async fn name_lost(
    conn: &zbus::Connection,
) -> Result<impl std::future::Future<Output = ()>, DaemonError> {
    let rule = zbus::MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .sender("org.freedesktop.DBus")?
        .interface("org.freedesktop.DBus")?
        .member("NameLost")?
        .arg(0, BUS_NAME)?
        .build();
    let mut stream = zbus::MessageStream::for_match_rule(rule, conn, None).await?;
    Ok(async move {
        use zbus::export::futures_core::Stream;
        let next = std::future::poll_fn(|cx| std::pin::Pin::new(&mut stream).poll_next(cx));
        let _ = next.await;
    })
}

/// Binds the attach socket and serves it: lookups go to the PTY registry; the first
/// client's attach, focus reports and the last client's detach become the engine's
/// attach, focus, unfocus and detach actions (`docs/lifecycle-attention.md#focus`).
fn start_attach(
    socket: &Path,
    ptys: PtyRegistry,
    cmd_tx: mpsc::Sender<Command>,
) -> Result<tokio::task::JoinHandle<()>, DaemonError> {
    let server = AttachServer::bind(socket).map_err(DaemonError::Attach)?;
    let clients: Mutex<HashMap<PaneId, usize>> = Mutex::new(HashMap::new());
    let on_focus = move |pane: PaneId, focus: AttachFocus| {
        let action = {
            let mut clients = clients.lock().unwrap_or_else(PoisonError::into_inner);
            let n = clients.entry(pane).or_insert(0);
            match focus {
                AttachFocus::Attached => {
                    *n += 1;
                    Some(Action::Attach)
                }
                AttachFocus::Detached => {
                    *n = n.saturating_sub(1);
                    (*n == 0).then_some(Action::Detach)
                }
                AttachFocus::FocusIn => Some(Action::Focus),
                AttachFocus::FocusOut => Some(Action::Unfocus),
                AttachFocus::Interrupt => None,
            }
        };
        if focus == AttachFocus::Interrupt {
            let input = LadderInput::Interrupt(pane);
            let cmd = Command::Ladder(LadderCommand::Input(input));
            if cmd_tx.try_send(cmd).is_err() {
                tracing::warn!(%pane, "interrupt key not noted: the daemon is busy");
            }
        }
        if let Some(action) = action {
            let (reply, _) = oneshot::channel::<Result<(), Attend1Error>>();
            if cmd_tx.try_send(Command::Act(pane, action, reply)).is_err() {
                tracing::warn!(%pane, "focus report dropped: the daemon is busy");
            }
        }
    };
    let lookup = move |pane: PaneId| ptys.lock().get(&pane).cloned();
    Ok(tokio::spawn(async move {
        if let Err(e) = server.serve(lookup, on_focus).await {
            tracing::error!("the attach server stopped: {e}");
        }
    }))
}
