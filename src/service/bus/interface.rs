//! The D-Bus interface `io.github.attend.Attend1` at `/io/github/attend/Attend1`
//! (`docs/dbus-api.md#names`; every member documented in `docs/dbus-api.md`, the
//! introspection checked in as `data/io.github.attend.Attend1.xml`).
//!
//! Methods only validate their arguments and send a [`Command`] to the owner task, then
//! wait for its reply, which comes after the change is committed. Signals are emitted by
//! the owner after each commit through [`emit_event`].

use crate::client::wire::{event_data, Dict, WireDecision, WirePane};
use crate::model::{Event, EventKind};
use crate::service::bus::args::{
    hold_of, hook_context, parse_pane, parse_pane_ref, parse_task_state, run_spec, Map,
};
use crate::service::bus::error::Attend1Error;
use crate::service::bus::intake::{hook_request, Refusals};
use crate::service::bus::routed::Router;
use crate::service::command::{ask, Command, EventTuple, LadderCommand};
use crate::service::remotes::act::RemoteCall;
use crate::service::remotes::{remote_dict, Remotes};
use crate::service::surfaces::TerminalLocation;
use crate::system::clock::now;
use tokio::sync::mpsc;
use zbus::object_server::SignalEmitter;

pub use crate::config::{BUS_NAME, INTERFACE, OBJECT_PATH};

/// The longest `AwaitGate` holds its caller (ms): 10 minutes.
pub const MAX_GATE_WAIT_MS: u32 = 600_000;
/// The served object: a sender to the owner task, and the daemon's quit request.
pub struct Attend1 {
    tx: mpsc::Sender<Command>,
    quit: std::sync::Arc<tokio::sync::Notify>,
    remotes: Remotes,
    router: Router,
    /// Hook calls refused, for the daemon's log.
    refusals: Refusals,
}

impl Attend1 {
    /// An interface that forwards every call to `tx`; `Quit` notifies `quit`; `Remotes`
    /// and `ReloadRemotes` use the link supervisor `remotes` (src/service/remotes/); the
    /// actions that name a pane go through `router` (local or remote,
    /// src/service/bus/routed.rs).
    pub fn new(
        tx: mpsc::Sender<Command>,
        quit: std::sync::Arc<tokio::sync::Notify>,
        remotes: Remotes,
        router: Router,
    ) -> Attend1 {
        Attend1 {
            tx,
            quit,
            remotes,
            router,
            refusals: Refusals::default(),
        }
    }
}

#[zbus::interface(name = "io.github.attend.Attend1", introspection_docs = false)]
impl Attend1 {
    /// Spawns `spec.argv` in a new pane; returns its id.
    #[zbus(out_args("pane"))]
    async fn run(&self, spec: Map) -> Result<String, Attend1Error> {
        let spec = run_spec(&spec).await?;
        ask(&self.tx, |r| Command::Run(spec, r)).await
    }

    #[zbus(out_args("panes"))]
    async fn list_panes(&self) -> Result<Vec<WirePane>, Attend1Error> {
        ask(&self.tx, Command::ListPanes).await
    }

    /// GetPane(s pane) → a{sv}: a local pane's dictionary, or a mirrored remote pane's
    /// (`NAME:pN`, `docs/dbus-api.md#remote-pane`). Errors: `NoSuchPane`, `NoSuchHost`.
    #[zbus(out_args("info"))]
    async fn get_pane(&self, pane: &str) -> Result<WirePane, Attend1Error> {
        self.router.get_pane(&parse_pane_ref(pane)?).await
    }

    #[zbus(out_args("workspaces"))]
    async fn list_workspaces(&self) -> Result<Vec<Dict>, Attend1Error> {
        ask(&self.tx, Command::ListWorkspaces).await
    }

    /// MarkSeen, Focus, SetFocused, Answer, SendInput and Kill take `pN` or `NAME:pN` (a
    /// remote pane: carried out by its host's daemon; errors also `NoSuchHost`,
    /// `HostOffline`).
    async fn mark_seen(&self, pane: &str) -> Result<(), Attend1Error> {
        let target = parse_pane_ref(pane)?;
        self.router.act(&target, RemoteCall::MarkSeen).await
    }

    async fn focus(&self, pane: &str) -> Result<(), Attend1Error> {
        let target = parse_pane_ref(pane)?;
        self.router.act(&target, RemoteCall::Focus).await
    }

    /// The focus set by a bus client ends when that client leaves the bus
    /// (src/service/bus/routed.rs).
    async fn set_focused(
        &self,
        #[zbus(header)] header: zbus::message::Header<'_>,
        #[zbus(connection)] conn: &zbus::Connection,
        pane: &str,
        focused: bool,
    ) -> Result<(), Attend1Error> {
        let target = parse_pane_ref(pane)?;
        let client = header.sender().map(|s| s.to_string());
        self.router
            .set_focused(conn, client, &target, focused)
            .await
    }

    async fn answer(&self, pane: &str, choice: &str) -> Result<(), Attend1Error> {
        let target = parse_pane_ref(pane)?;
        if choice.trim().is_empty() {
            return Err(Attend1Error::InvalidArgument("the choice is empty".into()));
        }
        let call = RemoteCall::Answer(choice.to_string());
        self.router.act(&target, call).await
    }

    /// AwaitGate(s delivery, u32 timeout_ms) → s behavior: the hook run that delivered
    /// `delivery` (Claude Code's `PermissionRequest` of an external pane) waits until a
    /// choice made in Attend answers its gate (`allow`, `deny`), the gate is resolved
    /// otherwise or was never opened (`""`), or `timeout_ms` (at most
    /// [`MAX_GATE_WAIT_MS`]) passes (`""`). docs/decisions/0015-answering-external-gates.md.
    /// A caller that leaves the bus meanwhile (the hook run was killed: Claude Code ends
    /// a hook run whose timeout passed) stops the wait: its gate then has no waiting run,
    /// and `Answer` is refused (`NotOwned`) instead of answering no one.
    #[zbus(out_args("behavior"))]
    async fn await_gate(
        &self,
        #[zbus(header)] header: zbus::message::Header<'_>,
        #[zbus(connection)] conn: &zbus::Connection,
        delivery: &str,
        timeout_ms: u32,
    ) -> Result<String, Attend1Error> {
        let wait = std::time::Duration::from_millis(timeout_ms.min(MAX_GATE_WAIT_MS).into());
        let delivery = delivery.to_string();
        let asked = ask(&self.tx, |r| Command::AwaitGate(delivery, r));
        let caller = header.sender().map(|s| s.to_string());
        tokio::select! {
            r = tokio::time::timeout(wait, asked) => r.unwrap_or(Ok(String::new())),
            () = self.router.until_gone(conn, caller) => Ok(String::new()),
        }
    }

    /// GetOverview() → a{sv}: counts by attention and the next pane, of local and
    /// mirrored panes (offline hosts' not counted), as the tray shows them: `panes` u,
    /// `worst` s, `counts` a{sv}, `next` a{sv}? (`docs/dbus-api.md#overview`).
    #[zbus(out_args("overview"))]
    async fn get_overview(&self) -> Result<Dict, Attend1Error> {
        ask(&self.tx, Command::Overview).await
    }

    #[zbus(out_args("pane"))]
    async fn next_unread(&self) -> Result<String, Attend1Error> {
        ask(&self.tx, Command::NextUnread).await
    }

    async fn send_input(&self, pane: &str, data: Vec<u8>) -> Result<(), Attend1Error> {
        let target = parse_pane_ref(pane)?;
        self.router.act(&target, RemoteCall::SendInput(data)).await
    }

    async fn resize(&self, pane: &str, rows: u16, cols: u16) -> Result<(), Attend1Error> {
        let id = parse_pane(pane)?;
        if rows == 0 || cols == 0 {
            return Err(Attend1Error::InvalidArgument(
                "rows and cols must be positive".into(),
            ));
        }
        ask(&self.tx, |r| Command::Resize(id, rows, cols, r)).await
    }

    async fn kill(&self, pane: &str, signal: i32) -> Result<(), Attend1Error> {
        let target = parse_pane_ref(pane)?;
        if nix::sys::signal::Signal::try_from(signal).is_err() {
            return Err(Attend1Error::InvalidArgument(format!(
                "{signal} is not a signal number"
            )));
        }
        self.router.act(&target, RemoteCall::Kill(signal)).await
    }

    async fn resume(&self, pane: &str) -> Result<(), Attend1Error> {
        let id = parse_pane(pane)?;
        ask(&self.tx, |r| Command::Resume(id, r)).await
    }

    #[zbus(out_args("socket"))]
    async fn attach(&self, pane: &str) -> Result<String, Attend1Error> {
        let id = parse_pane(pane)?;
        ask(&self.tx, |r| Command::Attach(id, r)).await
    }

    #[zbus(out_args("events"))]
    async fn events(&self, after_seq: u64, limit: u32) -> Result<Vec<EventTuple>, Attend1Error> {
        ask(&self.tx, |r| Command::Events(after_seq, limit, r)).await
    }

    #[zbus(out_args("seq"))]
    async fn hook(
        &self,
        agent: &str,
        event: &str,
        payload: &str,
        context: Map,
    ) -> Result<u64, Attend1Error> {
        let (context, terminal) = hook_context(&context)?;
        let mut req = hook_request(agent, event, payload, context, now()).inspect_err(|e| {
            self.refusals.note(agent, event, e);
        })?;
        req.terminal = TerminalLocation::from_env(&terminal);
        ask(&self.tx, |r| Command::Hook(Box::new(req), r)).await
    }

    #[zbus(out_args("explanation"))]
    async fn explain(&self, pane: &str) -> Result<Dict, Attend1Error> {
        let id = parse_pane(pane)?;
        ask(&self.tx, |r| Command::Explain(id, r)).await
    }

    /// GetScreen(s pane) → s: the plain text of the pane's live screen, from its vt100
    /// state (never scrollback). Errors: `NoSuchPane`, `NotOwned` (an external pane has no
    /// screen here), `InvalidArgument` when the pane is not running.
    #[zbus(out_args("screen"))]
    async fn get_screen(&self, pane: &str) -> Result<String, Attend1Error> {
        let id = parse_pane(pane)?;
        ask(&self.tx, |r| Command::GetScreen(id, r)).await
    }

    /// Adds an open task (obligation) to a pane; returns its id
    /// (`docs/lifecycle-attention.md#tasks-and-holds`).
    #[zbus(out_args("task"))]
    async fn add_task(&self, pane: &str, text: &str) -> Result<u64, Attend1Error> {
        let id = parse_pane(pane)?;
        let text = text.to_string();
        ask(&self.tx, |r| {
            Command::Ladder(LadderCommand::AddTask(id, text, r))
        })
        .await
    }

    /// Moves a task to `state` with a message (`""`: none).
    async fn set_task_state(
        &self,
        task: u64,
        state: &str,
        message: &str,
    ) -> Result<(), Attend1Error> {
        let state = parse_task_state(state)?;
        let message = (!message.is_empty()).then(|| message.to_string());
        ask(&self.tx, |r| {
            Command::Ladder(LadderCommand::SetTaskState(task, state, message, r))
        })
        .await
    }

    /// Holds a pane on purpose: `owner`, `wake` (ms since the epoch), `reason` (`""`:
    /// none).
    async fn set_hold(
        &self,
        pane: &str,
        owner: &str,
        wake: i64,
        reason: &str,
    ) -> Result<(), Attend1Error> {
        let id = parse_pane(pane)?;
        let hold = hold_of(owner, wake, reason)?;
        ask(&self.tx, |r| {
            Command::Ladder(LadderCommand::SetHold(id, Some(hold), r))
        })
        .await
    }

    async fn clear_hold(&self, pane: &str) -> Result<(), Attend1Error> {
        let id = parse_pane(pane)?;
        ask(&self.tx, |r| {
            Command::Ladder(LadderCommand::SetHold(id, None, r))
        })
        .await
    }

    /// Remove(as panes, b kill) → as removed: removes the panes, all or none
    /// (`docs/dbus-api.md#methods`; src/service/bus/removal.rs). Errors: `NoSuchPane`,
    /// `InvalidArgument` (no pane; a running pane without `kill`; no exit within the
    /// bound after `kill`), `NotOwned` (`kill` of a running external pane).
    #[zbus(out_args("removed"))]
    async fn remove(&self, panes: Vec<String>, kill: bool) -> Result<Vec<String>, Attend1Error> {
        let ids = panes
            .iter()
            .map(|p| parse_pane(p))
            .collect::<Result<Vec<_>, _>>()?;
        let removed = crate::service::bus::removal::remove(&self.tx, ids, kill).await?;
        Ok(removed.iter().map(|p| p.to_string()).collect())
    }

    /// RemoveExited(x older_than, b dry_run) → as panes: the exited panes whose exit is
    /// at least `older_than` ms ago (0: every exited pane), removed unless `dry_run`.
    /// Errors: `InvalidArgument` (a negative age).
    #[zbus(out_args("panes"))]
    async fn remove_exited(
        &self,
        older_than: i64,
        dry_run: bool,
    ) -> Result<Vec<String>, Attend1Error> {
        if older_than < 0 {
            return Err(Attend1Error::InvalidArgument(format!(
                "older_than must not be negative: {older_than}"
            )));
        }
        let ids = ask(&self.tx, |r| Command::RemoveExited(older_than, dry_run, r)).await?;
        Ok(ids.iter().map(|p| p.to_string()).collect())
    }

    /// Remotes() → aa{sv}: every remote of `config.toml` with its link's state, by name
    /// (`docs/dbus-api.md#remote`).
    #[zbus(out_args("remotes"))]
    async fn remotes(&self) -> Vec<Dict> {
        let list = self.remotes.list();
        list.iter().map(|(r, s)| remote_dict(r, s)).collect()
    }

    /// ListRemotePanes() → aa{sv}: every pane mirrored from a remote, by host then pane
    /// (`docs/dbus-api.md#remote-pane`).
    #[zbus(out_args("panes"))]
    async fn list_remote_panes(&self) -> Vec<WirePane> {
        let panes = self.remotes.panes(None);
        panes.iter().map(crate::client::wire::remote_pane).collect()
    }

    /// ListRemoteWorkspaces() → aa{sv}: the workspaces of the mirrored panes, by host
    /// then key, summed up by the engine as `ListWorkspaces` is
    /// (`docs/dbus-api.md#remote-workspace`).
    #[zbus(out_args("workspaces"))]
    async fn list_remote_workspaces(&self) -> Vec<Dict> {
        let panes = self.remotes.panes(None);
        crate::adapters::mirror::remote_workspaces(&panes, crate::system::clock::now())
            .iter()
            .map(crate::service::remotes::panes::remote_workspace_dict)
            .collect()
    }

    /// ReloadRemotes() → as problems: reads `config.toml` again and makes the links its
    /// `[remote.NAME]` tables (new ones connect, removed or changed ones end); the bad
    /// remote entries, one line each (`docs/configuration.md#bad-entries`).
    #[zbus(out_args("problems"))]
    async fn reload_remotes(&self) -> Vec<String> {
        let loaded = tokio::task::spawn_blocking(crate::settings::read).await;
        let Ok(loaded) = loaded else {
            return vec!["config.toml: cannot be read".into()];
        };
        self.remotes.set(loaded.settings.remotes);
        loaded
            .problems
            .iter()
            .filter(|p| p.entry.starts_with("remote") || p.entry == "config.toml")
            .map(|p| p.to_string())
            .collect()
    }

    #[zbus(out_args("version"))]
    async fn version(&self) -> String {
        crate::config::VERSION.to_string()
    }

    /// InterfaceVersion() → u: the interface's major version
    /// ([`crate::config::INTERFACE_VERSION`]); a link refuses a remote with another.
    #[zbus(out_args("version"))]
    async fn interface_version(&self) -> u32 {
        crate::config::INTERFACE_VERSION
    }

    /// Asks the daemon to stop (as SIGTERM does); the agents keep running in their
    /// holders (`docs/decisions/0009-pane-holders.md`). Answers before it stops.
    async fn quit(&self) {
        self.quit.notify_one();
    }

    #[zbus(signal)]
    pub async fn agent_transition(
        emitter: &SignalEmitter<'_>,
        seq: u64,
        pane: &str,
        previous: &str,
        value: &str,
        source: &str,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    pub async fn attention_created(
        emitter: &SignalEmitter<'_>,
        seq: u64,
        pane: &str,
        level: &str,
        shown: &str,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    pub async fn attention_cleared(
        emitter: &SignalEmitter<'_>,
        seq: u64,
        pane: &str,
        levels: &[&str],
        shown: &str,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    pub async fn decision_opened(
        emitter: &SignalEmitter<'_>,
        seq: u64,
        pane: &str,
        decision: &WireDecision,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    pub async fn decision_resolved(
        emitter: &SignalEmitter<'_>,
        seq: u64,
        pane: &str,
        id: u64,
        how: &str,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    pub async fn pane_exited(
        emitter: &SignalEmitter<'_>,
        seq: u64,
        pane: &str,
        code: i32,
        signal: i32,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    pub async fn pane_added(emitter: &SignalEmitter<'_>, seq: u64, pane: &str) -> zbus::Result<()>;

    #[zbus(signal)]
    pub async fn pane_removed(
        emitter: &SignalEmitter<'_>,
        seq: u64,
        pane: &str,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    pub async fn pane_changed(
        emitter: &SignalEmitter<'_>,
        seq: u64,
        pane: &str,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    pub async fn event(
        emitter: &SignalEmitter<'_>,
        seq: u64,
        kind: &str,
        pane: &str,
        data: &Dict,
    ) -> zbus::Result<()>;

    /// `rung.health`: an evidence rung's trust changed
    /// (`docs/taxonomy.md#trust-and-promotion`).
    #[zbus(signal)]
    pub async fn rung_health(
        emitter: &SignalEmitter<'_>,
        seq: u64,
        pane: &str,
        rung: &str,
        from: &str,
        to: &str,
        reason: &str,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    pub async fn focus_requested(emitter: &SignalEmitter<'_>, pane: &str) -> zbus::Result<()>;

    /// `RemotesChanged()`: a remote's link state or its mirrored panes changed; read
    /// `Remotes()` and `ListRemotePanes()` again (`docs/dbus-api.md#signals`). Not an
    /// event, no seq; a burst of changes may be signalled once.
    #[zbus(signal)]
    pub async fn remotes_changed(emitter: &SignalEmitter<'_>) -> zbus::Result<()>;
}

/// Emits `RemotesChanged()` on `conn`, through the object server's emitter as the
/// owner's signals, after each change of `remotes`' table (a burst once or twice); runs
/// until the runtime ends.
pub async fn signal_remote_changes(conn: zbus::Connection, remotes: Remotes) {
    loop {
        remotes.changed().await;
        let emitter = match SignalEmitter::new(&conn, OBJECT_PATH) {
            Ok(e) => e,
            Err(e) => return tracing::error!("cannot emit RemotesChanged: {e}"),
        };
        if let Err(e) = Attend1::remotes_changed(&emitter).await {
            tracing::warn!("cannot emit RemotesChanged: {e}");
        }
    }
}

/// Emits the typed signal of `e` (when its kind has one) and the generic `Event`.
pub async fn emit_event(emitter: &SignalEmitter<'_>, e: &Event) -> zbus::Result<()> {
    let pane = e.pane.to_string();
    let seq = e.seq;
    match &e.kind {
        EventKind::Agent { previous, value } => {
            let source = e.source.to_string();
            Attend1::agent_transition(
                emitter,
                seq,
                &pane,
                previous.as_str(),
                value.as_str(),
                &source,
            )
            .await?
        }
        EventKind::AttentionCreated { level, shown } => {
            Attend1::attention_created(emitter, seq, &pane, level.as_str(), shown.as_str()).await?
        }
        EventKind::AttentionCleared { levels, shown } => {
            let levels: Vec<&str> = levels.iter().map(|l| l.as_str()).collect();
            Attend1::attention_cleared(emitter, seq, &pane, &levels, shown.as_str()).await?
        }
        EventKind::DecisionOpened { decision } => {
            let d = crate::client::wire::WireDecision::of(decision);
            Attend1::decision_opened(emitter, seq, &pane, &d).await?
        }
        EventKind::DecisionResolved { id, resolution } => {
            Attend1::decision_resolved(emitter, seq, &pane, *id, resolution.as_str()).await?
        }
        EventKind::PaneExited { code, signal } => {
            Attend1::pane_exited(
                emitter,
                seq,
                &pane,
                code.unwrap_or(-1),
                signal.unwrap_or(-1),
            )
            .await?
        }
        EventKind::PaneAdded => Attend1::pane_added(emitter, seq, &pane).await?,
        EventKind::PaneRemoved => Attend1::pane_removed(emitter, seq, &pane).await?,
        EventKind::PaneChanged => Attend1::pane_changed(emitter, seq, &pane).await?,
        EventKind::RungHealth {
            rung,
            from,
            to,
            reason,
        } => Attend1::rung_health(emitter, seq, &pane, rung.as_str(), from, to, reason).await?,
        EventKind::PaneHandover { .. } | EventKind::Task { .. } => {}
    }
    Attend1::event(emitter, seq, &e.kind.name(), &pane, &event_data(e)).await
}

/// The wire form of one event in `Events`.
pub fn event_tuple(e: &Event) -> EventTuple {
    (e.seq, e.kind.name(), e.pane.to_string(), event_data(e))
}
