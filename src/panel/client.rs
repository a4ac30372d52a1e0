//! The panel's D-Bus side: one thread with a current-thread tokio runtime (zbus runs on
//! tokio in this crate), joined to the GLib main loop by two `async_channel`s.
//!
//! It follows the daemon's `Event` and `RemotesChanged` signals and refetches `ListPanes`,
//! `ListWorkspaces`, `ListRemotePanes` and `Remotes` after each burst of them (at most
//! [`COALESCE`] later), so the window always renders the daemon's current values, remote
//! panes included ([`super::hosts`]), and keeps nothing else. It watches
//! `NameOwnerChanged` for
//! the daemon's name: while nobody owns it the window shows its empty state
//! ([`Update::Offline`]); when the name comes back it first catches up with
//! `Events(after_seq)` from the last seq it saw (logging how many it missed and moving
//! its watermark to the daemon's newest seq), then renders a fresh snapshot. The seq is
//! the only thing it remembers across daemons; the snapshot it shows is always new.

use super::data::Snapshot;
use crate::client::Attend1Proxy;
use crate::config::BUS_NAME;
use async_channel::{Receiver, Sender};
use std::time::Duration;
use tokio::time::Instant;
use zbus::export::futures_core::Stream;

/// How long a burst of events is collected before the state is fetched again.
pub const COALESCE: Duration = Duration::from_millis(30);
/// Delay before connecting to the session bus again after a failure.
const RETRY: Duration = Duration::from_secs(2);
/// Page size of the `Events` catch-up.
const CATCH_UP_PAGE: u32 = 1000;
/// Signal sent by the Kill button (SIGTERM).
pub const KILL_SIGNAL: i32 = 15;

/// What the window asks of the daemon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    MarkSeen(String),
    /// `SetFocused(pane, focused)`.
    SetFocused(String, bool),
    /// `Answer(pane, choice)`.
    Answer(String, String),
    NextUnread,
    /// `Kill(pane, SIGTERM)`.
    Kill(String),
    Resume(String),
    /// `Remove([pane], kill)`: the Remove button (`kill` for a running pane Attend runs,
    /// after the user confirmed).
    Remove(String, bool),
    /// `Attach(pane)`: the attach socket for the live terminal.
    Attach(String),
    /// A typed reply to `pane`'s question (`docs/desktop-surfaces.md#replies`): the
    /// option `pick` first when the question is a dialog (by its label, as `Answer`
    /// takes it), then `text`, then Enter; the pane is marked seen (typing is
    /// interaction).
    Reply {
        pane: String,
        pick: Option<String>,
        text: String,
    },
    /// Start the service as `attend up` does ([`start_daemon`]).
    StartDaemon,
    /// Start a pane (the New agent dialog), in a new git worktree when asked
    /// ([`super::new_agent_run`]); the window then shows it.
    Run(super::new_agent_form::RunRequest),
    /// The window is closing: end the thread after the requests sent before this one.
    Quit,
}

/// What the window must show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Update {
    /// Nobody owns the daemon's name (or there is no session bus): the empty state.
    Offline,
    /// The daemon's current values.
    Snapshot(Snapshot),
    /// The answer to [`Request::Attach`]: the socket path, or the daemon's error text.
    AttachSocket {
        pane: String,
        socket: Result<String, String>,
    },
    /// Select and show `pane` (a `FocusRequested` signal or the `NextUnread` answer).
    Select(String),
    /// `NextUnread` found nothing.
    NothingUnread,
    /// A call failed; the daemon's message.
    Failed(String),
    /// SIGTERM or SIGINT: quit the application (it withdraws its focus report first).
    Quit,
}

/// Starts the client thread. The window sends [`Request`]s and receives [`Update`]s; the
/// thread ends on [`Request::Quit`] or when every sender is dropped.
pub fn spawn() -> (
    Sender<Request>,
    Receiver<Update>,
    std::thread::JoinHandle<()>,
) {
    let (req_tx, req_rx) = async_channel::unbounded();
    let (upd_tx, upd_rx) = async_channel::unbounded();
    let thread = std::thread::Builder::new()
        .name("attend-panel-dbus".into())
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime");
            rt.block_on(run(req_rx, upd_tx));
        })
        .expect("a thread for the D-Bus client");
    (req_tx, upd_rx, thread)
}

/// Why a connection or a session ended.
enum End {
    /// The window is gone.
    Quit,
    /// The daemon lost its name (exited, crashed, restarted).
    OwnerGone,
    /// The bus connection failed.
    Bus(zbus::Error),
}

impl From<zbus::Error> for End {
    fn from(e: zbus::Error) -> End {
        End::Bus(e)
    }
}

impl From<zbus::fdo::Error> for End {
    fn from(e: zbus::fdo::Error) -> End {
        End::Bus(e.into())
    }
}

struct Client {
    requests: Receiver<Request>,
    updates: Sender<Update>,
    /// Newest event seq seen (signals or catch-up); `None` before the first.
    last_seq: Option<u64>,
}

async fn run(requests: Receiver<Request>, updates: Sender<Update>) {
    tokio::spawn(quit_on_signals(updates.clone()));
    let mut c = Client {
        requests,
        updates,
        last_seq: None,
    };
    loop {
        let end = match zbus::Connection::session().await {
            Ok(conn) => c.on_bus(&conn).await,
            Err(e) => End::Bus(e),
        };
        match end {
            End::Quit => return,
            End::OwnerGone => {}
            End::Bus(e) => {
                tracing::warn!("session bus: {e}; retrying");
                if !c.send(Update::Offline) || !c.idle_for(RETRY).await {
                    return;
                }
            }
        }
    }
}

/// Turns SIGTERM and SIGINT into [`Update::Quit`], so the window quits cleanly.
async fn quit_on_signals(updates: Sender<Update>) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        return tracing::warn!("cannot watch SIGTERM/SIGINT");
    };
    loop {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        if updates.try_send(Update::Quit).is_err() {
            std::process::exit(0);
        }
    }
}

/// A daemon failure as one line for a toast.
fn message(e: &zbus::Error) -> String {
    match e {
        zbus::Error::MethodError(_, Some(text), _) if !text.is_empty() => text.clone(),
        zbus::Error::MethodError(name, None, _) => name.to_string(),
        other => other.to_string(),
    }
}

/// How long a reply waits after picking a dialog's free-text option before typing: the
/// agent redraws the option as a text field.
const REPLY_PICK_SETTLE: Duration = Duration::from_millis(400);
/// Between the reply's text and its Enter: an agent that reads a burst of input as a
/// paste would take the Enter as part of it.
const REPLY_ENTER_AFTER: Duration = Duration::from_millis(150);

/// [`Request::Reply`]: picks `pick` (the dialog's free-text option) when given, types
/// `text`, presses Enter, and marks the pane seen.
async fn reply(
    proxy: &Attend1Proxy<'_>,
    pane: &str,
    pick: Option<&str>,
    text: &str,
) -> zbus::Result<()> {
    if let Some(label) = pick {
        proxy.answer(pane, label).await?;
        tokio::time::sleep(REPLY_PICK_SETTLE).await;
    }
    proxy.send_input(pane, text.as_bytes()).await?;
    tokio::time::sleep(REPLY_ENTER_AFTER).await;
    proxy.send_input(pane, b"\r").await?;
    proxy.mark_seen(pane).await
}

fn is_unknown_method(e: &zbus::Error) -> bool {
    matches!(e, zbus::Error::MethodError(name, _, _)
        if name.as_str() == "org.freedesktop.DBus.Error.UnknownMethod")
}

impl Client {
    /// Sends an update; false when the window is gone.
    fn send(&self, u: Update) -> bool {
        self.updates.try_send(u).is_ok()
    }

    /// Waits `d`, handling requests meanwhile as [`Client::offline_request`] does. False
    /// when the window is gone or quits.
    async fn idle_for(&mut self, d: Duration) -> bool {
        let deadline = Instant::now() + d;
        loop {
            tokio::select! {
                _ = tokio::time::sleep_until(deadline) => return true,
                r = self.requests.recv() => match r {
                    Err(_) | Ok(Request::Quit) => return false,
                    Ok(r) => self.offline_request(r),
                },
            }
        }
    }

    /// While the daemon is away the window shows its empty state and offers only "start
    /// it"; other requests (from a window that was not yet re-rendered) are dropped.
    fn offline_request(&mut self, r: Request) {
        if r == Request::StartDaemon {
            start_daemon(self.updates.clone());
        }
    }

    /// Runs on one bus connection: sessions with the daemon while it owns its name, the
    /// empty state in between.
    async fn on_bus(&mut self, conn: &zbus::Connection) -> End {
        let dbus = match zbus::fdo::DBusProxy::new(conn).await {
            Ok(d) => d,
            Err(e) => return End::Bus(e),
        };
        let mut owners = match dbus
            .receive_name_owner_changed_with_args(&[(0, BUS_NAME)])
            .await
        {
            Ok(s) => s,
            Err(e) => return End::Bus(e),
        };
        let name = zbus::names::BusName::try_from(BUS_NAME).expect("a valid bus name");
        loop {
            let running = match dbus.name_has_owner(name.clone()).await {
                Ok(b) => b,
                Err(e) => return End::Bus(e.into()),
            };
            if running {
                match self.session(conn).await {
                    End::OwnerGone => {}
                    other => return other,
                }
                if !self.send(Update::Offline) {
                    return End::Quit;
                }
                // Look again: another daemon may own the name already.
                if !self.idle_for(RETRY / 10).await {
                    return End::Quit;
                }
                continue;
            }
            if !self.send(Update::Offline) {
                return End::Quit;
            }
            // Wait for the name to get an owner, answering requests meanwhile.
            loop {
                tokio::select! {
                    change = next(&mut owners) => match change {
                        None => return End::Bus(zbus::Error::InputOutput(
                            std::io::Error::other("the bus closed").into())),
                        Some(ch) => match ch.args() {
                            Ok(a) if a.new_owner().is_some() => break,
                            _ => {}
                        },
                    },
                    r = self.requests.recv() => match r {
                        Err(_) | Ok(Request::Quit) => return End::Quit,
                        Ok(r) => self.offline_request(r),
                    },
                }
            }
        }
    }

    /// Catches up with the events missed since `last_seq` (after a reconnect): pages of
    /// `Events(after_seq)` until the log is exhausted. Returns how many were missed.
    async fn catch_up(&mut self, proxy: &Attend1Proxy<'_>) -> zbus::Result<usize> {
        let Some(mut after) = self.last_seq else {
            return Ok(0);
        };
        let mut missed = 0;
        loop {
            let page = proxy.events(after, CATCH_UP_PAGE).await?;
            missed += page.len();
            match page.last() {
                Some((seq, ..)) if *seq > after => after = *seq,
                _ => break,
            }
            if page.len() < CATCH_UP_PAGE as usize {
                break;
            }
        }
        self.last_seq = Some(after);
        Ok(missed)
    }

    /// Fetches and sends the daemon's current values.
    async fn refresh(&mut self, proxy: &Attend1Proxy<'_>) -> Result<(), End> {
        let (panes, workspaces, remote_panes, remote_workspaces, remotes) = tokio::try_join!(
            proxy.list_panes(),
            proxy.list_workspaces(),
            older_daemon_none(proxy.list_remote_panes()),
            older_daemon_none(proxy.list_remote_workspaces()),
            older_daemon_none(proxy.remotes()),
        )?;
        match Snapshot::parse(panes, &workspaces, self.last_seq.unwrap_or(0)) {
            Ok(s) => {
                let s = s.with_remotes(remote_panes, &remote_workspaces, &remotes);
                if !self.send(Update::Snapshot(s)) {
                    return Err(End::Quit);
                }
            }
            Err(e) => {
                tracing::error!("{e}");
                self.send(Update::Failed(e.to_string()));
            }
        }
        Ok(())
    }

    /// One session with a running daemon, until it loses its name.
    async fn session(&mut self, conn: &zbus::Connection) -> End {
        match self.session_inner(conn).await {
            Ok(()) => End::OwnerGone,
            Err(End::Bus(zbus::Error::MethodError(name, _, _)))
                if name.as_str().starts_with("org.freedesktop.DBus.Error.") =>
            {
                // The daemon went away between the owner check and a call.
                End::OwnerGone
            }
            Err(e) => e,
        }
    }

    async fn session_inner(&mut self, conn: &zbus::Connection) -> Result<(), End> {
        let proxy = Attend1Proxy::builder(conn)
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await?;
        let dbus = zbus::fdo::DBusProxy::new(conn).await?;
        // Subscribe before reading, so nothing falls between the snapshot and the signals.
        let mut owners = dbus
            .receive_name_owner_changed_with_args(&[(0, BUS_NAME)])
            .await?;
        let mut events = proxy.receive_event().await?;
        let mut focus = proxy.receive_focus_requested().await?;
        let mut remotes = proxy.receive_remotes_changed().await?;
        let missed = self.catch_up(&proxy).await?;
        if missed > 0 {
            tracing::info!(missed, "caught up with the daemon's events");
        }
        self.refresh(&proxy).await?;
        let mut due: Option<Instant> = None;
        loop {
            tokio::select! {
                ev = next(&mut events) => {
                    let Some(ev) = ev else { return Err(End::OwnerGone) };
                    // Every event refetches, whatever its seq: a daemon that started over
                    // with a fresh database counts from 1 again.
                    if let Ok(args) = ev.args() {
                        self.last_seq = Some(args.seq);
                    }
                    due.get_or_insert_with(|| Instant::now() + COALESCE);
                }
                ch = next(&mut remotes) => {
                    if ch.is_none() { return Err(End::OwnerGone) }
                    // A remote's link or mirrored panes changed: fetch again, coalesced.
                    due.get_or_insert_with(|| Instant::now() + COALESCE);
                }
                req = next(&mut focus) => {
                    let Some(req) = req else { return Err(End::OwnerGone) };
                    if let Ok(args) = req.args() {
                        if !self.send(Update::Select(args.pane)) {
                            return Err(End::Quit);
                        }
                    }
                }
                ch = next(&mut owners) => {
                    let Some(ch) = ch else { return Err(End::OwnerGone) };
                    if let Ok(a) = ch.args() {
                        if a.new_owner().is_none() {
                            return Ok(());
                        }
                        // A new daemon took the name at once: start over with it.
                        return Err(End::OwnerGone);
                    }
                }
                r = self.requests.recv() => {
                    match r {
                        Err(_) | Ok(Request::Quit) => return Err(End::Quit),
                        Ok(r) => self.request(&proxy, r).await?,
                    }
                }
                _ = sleep_until(due), if due.is_some() => {
                    due = None;
                    self.refresh(&proxy).await?;
                }
            }
        }
    }

    /// Performs one request; daemon errors become [`Update::Failed`].
    async fn request(&mut self, proxy: &Attend1Proxy<'_>, r: Request) -> Result<(), End> {
        let result = match r {
            Request::MarkSeen(p) => proxy.mark_seen(&p).await,
            Request::SetFocused(p, f) => proxy.set_focused(&p, f).await,
            Request::Answer(p, c) => proxy.answer(&p, &c).await,
            Request::Reply { pane, pick, text } => {
                reply(proxy, &pane, pick.as_deref(), &text).await
            }
            Request::Kill(p) => proxy.kill(&p, KILL_SIGNAL).await,
            Request::Resume(p) => proxy.resume(&p).await,
            Request::Run(r) => match super::new_agent_run::run(proxy, r).await {
                Ok(pane) => self.ok(Update::Select(pane)),
                Err(why) => self.ok(Update::Failed(why)),
            },
            Request::Remove(p, kill) => proxy.remove(&[p.as_str()], kill).await.map(|_| ()),
            Request::NextUnread => match proxy.next_unread().await {
                Ok(p) if p.is_empty() => self.ok(Update::NothingUnread),
                Ok(p) => self.ok(Update::Select(p)),
                Err(e) => Err(e),
            },
            Request::Attach(p) => {
                let socket = proxy.attach(&p).await.map_err(|e| message(&e));
                self.ok(Update::AttachSocket { pane: p, socket })
            }
            // Already running: the snapshot is on its way.
            Request::StartDaemon | Request::Quit => Ok(()),
        };
        match result {
            Ok(()) => Ok(()),
            Err(e @ zbus::Error::MethodError(..)) => {
                if self.send(Update::Failed(message(&e))) {
                    Ok(())
                } else {
                    Err(End::Quit)
                }
            }
            Err(e) => Err(End::Bus(e)),
        }
    }

    fn ok(&self, u: Update) -> zbus::Result<()> {
        self.send(u);
        Ok(())
    }
}

/// The answer of a remotes call, or nothing from a daemon without remotes (an older one
/// answers `UnknownMethod`).
async fn older_daemon_none<T>(
    call: impl std::future::Future<Output = zbus::Result<Vec<T>>>,
) -> zbus::Result<Vec<T>> {
    match call.await {
        Err(e) if is_unknown_method(&e) => Ok(Vec::new()),
        other => other,
    }
}

/// The next item of a signal stream.
async fn next<S: Stream + Unpin>(s: &mut S) -> Option<S::Item> {
    std::future::poll_fn(|cx| std::pin::Pin::new(&mut *s).poll_next(cx)).await
}

async fn sleep_until(due: Option<Instant>) {
    match due {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}

/// Starts the service the way `attend up` does, by running `attend up --no-panel` (the
/// `attend` beside the panel): D-Bus activation when it is installed, else `attend
/// daemon` in a session of its own with its log in the state directory
/// (`docs/desktop-surfaces.md#attend-up-and-attend-demo---live`). The daemon is never the
/// panel's child. A thread waits for `attend up`; when it fails, its last line of error
/// output becomes an [`Update::Failed`]. The window learns of the daemon from its bus
/// name, as always.
fn start_daemon(updates: Sender<Update>) {
    let attend = super::attach_terminal::attend_binary();
    std::thread::spawn(move || {
        let out = std::process::Command::new(&attend)
            .args(["up", "--no-panel"])
            .stdin(std::process::Stdio::null())
            .output();
        let failure = match out {
            Ok(o) if o.status.success() => return,
            Ok(o) => {
                let text = String::from_utf8_lossy(&o.stderr);
                let line = text.lines().rev().find(|l| !l.trim().is_empty());
                line.map(str::to_string)
                    .unwrap_or_else(|| format!("`attend up` failed ({})", o.status))
            }
            Err(e) => format!("{}: {e}", attend.display()),
        };
        tracing::warn!("starting the daemon: {failure}");
        let _ = updates.try_send(Update::Failed(failure));
    });
}
