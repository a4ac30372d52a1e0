//! The D-Bus interface `io.github.attend.Attend1` at `/io/github/attend/Attend1`
//! (DESIGN "Names"; issue 3; every member documented in `docs/dbus-api.md`, the
//! introspection checked in as `data/io.github.attend.Attend1.xml`).
//!
//! Methods only validate their arguments and send a [`Command`] to the owner task, then
//! wait for its reply, which comes after the change is committed. Signals are emitted by
//! the owner after each commit through [`emit_event`].

use super::command::{Command, EventTuple, GitInfo, Reply, RunSpec};
use super::git;
use super::intake::{hook_request, pids_from_value, HookContext};
use super::ladder_host::{hold_of, parse_task_state, LadderCommand};
use super::wire::{event_data, Dict};
use crate::model::{Action, AgentKind, Event, EventKind, PaneId, Timestamp};
use std::collections::{BTreeMap, HashMap};
use tokio::sync::{mpsc, oneshot};
use zbus::object_server::SignalEmitter;
use zbus::zvariant::{OwnedValue, Value};

pub use crate::config::{BUS_NAME, INTERFACE, MAX_PAYLOAD, OBJECT_PATH};

/// Named errors of the interface (`io.github.attend.Attend1.Error.<Name>`), each with a
/// human message.
#[derive(Debug, Clone, PartialEq, Eq, zbus::DBusError)]
#[zbus(prefix = "io.github.attend.Attend1.Error")]
pub enum Attend1Error {
    /// The pane id is unknown (or not a pane id at all).
    NoSuchPane(String),
    /// `Answer` on a pane without an open decision.
    NoDecision(String),
    /// The pane's PTY is not Attend's (an external pane known only through hooks).
    NotOwned(String),
    InvalidArgument(String),
    /// A hook payload over 1 MiB.
    PayloadTooLarge(String),
    /// The program could not be spawned; the message names the program and the errno.
    SpawnFailed(String),
    Internal(String),
}

impl Attend1Error {
    /// `NoSuchPane` for the text `pane`, with the CLI's wording.
    pub fn no_such_pane(pane: &str) -> Attend1Error {
        Attend1Error::NoSuchPane(format!("no such pane: {pane}"))
    }
}

impl From<crate::engine::EngineError> for Attend1Error {
    fn from(e: crate::engine::EngineError) -> Attend1Error {
        use crate::engine::EngineError as E;
        match e {
            E::NoSuchPane(p) => Attend1Error::no_such_pane(&p.to_string()),
            E::NoDecision(_) => Attend1Error::NoDecision(e.to_string()),
            E::NoSuchTask(_) | E::InvalidArgument(_) => {
                Attend1Error::InvalidArgument(e.to_string())
            }
        }
    }
}

/// The milliseconds-since-epoch clock of the service (the engine never reads one).
pub fn now() -> Timestamp {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    Timestamp(ms)
}

/// Parses a pane id argument; anything that is not `p<N>` is an unknown pane.
pub fn parse_pane(s: &str) -> Result<PaneId, Attend1Error> {
    PaneId::parse(s).ok_or_else(|| Attend1Error::no_such_pane(s))
}

/// The served object: a sender to the owner task.
pub struct Attend1 {
    tx: mpsc::Sender<Command>,
}

impl Attend1 {
    /// An interface that forwards every call to `tx`.
    pub fn new(tx: mpsc::Sender<Command>) -> Attend1 {
        Attend1 { tx }
    }

    async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> Command) -> Result<T, Attend1Error> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(make(reply))
            .await
            .map_err(|_| Attend1Error::Internal("the daemon is shutting down".into()))?;
        rx.await
            .map_err(|_| Attend1Error::Internal("the daemon dropped the request".into()))?
    }
}

type Map = HashMap<String, OwnedValue>;

fn bad(key: &str, want: &str) -> Attend1Error {
    Attend1Error::InvalidArgument(format!("{key} must be {want}"))
}

/// The value under `key`, unwrapping a variant nested in the variant.
fn field<'a>(map: &'a Map, key: &str) -> Option<&'a Value<'static>> {
    map.get(key).map(|v| match &**v {
        Value::Value(inner) => &**inner,
        other => other,
    })
}

fn get_str(map: &Map, key: &str) -> Result<Option<String>, Attend1Error> {
    match field(map, key) {
        None => Ok(None),
        Some(Value::Str(s)) => Ok(Some(s.to_string())),
        Some(_) => Err(bad(key, "a string (s)")),
    }
}

fn get_bool(map: &Map, key: &str) -> Result<Option<bool>, Attend1Error> {
    match field(map, key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(bad(key, "a boolean (b)")),
    }
}

fn get_u16(map: &Map, key: &str) -> Result<Option<u16>, Attend1Error> {
    match field(map, key) {
        None => Ok(None),
        Some(Value::U16(n)) => Ok(Some(*n)),
        Some(_) => Err(bad(key, "an unsigned 16-bit integer (q)")),
    }
}

fn get_strs(map: &Map, key: &str) -> Result<Option<Vec<String>>, Attend1Error> {
    match field(map, key) {
        None => Ok(None),
        Some(Value::Array(a)) => a
            .inner()
            .iter()
            .map(|v| match v {
                Value::Str(s) => Ok(s.to_string()),
                _ => Err(bad(key, "a string array (as)")),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(bad(key, "a string array (as)")),
    }
}

fn get_env(map: &Map, key: &str) -> Result<BTreeMap<String, String>, Attend1Error> {
    match field(map, key) {
        None => Ok(BTreeMap::new()),
        Some(Value::Dict(d)) => d
            .iter()
            .map(|(k, v)| match (k, v) {
                (Value::Str(k), Value::Str(v)) => Ok((k.to_string(), v.to_string())),
                _ => Err(bad(key, "a string dictionary (a{ss})")),
            })
            .collect(),
        Some(_) => Err(bad(key, "a string dictionary (a{ss})")),
    }
}

/// The workspace key for a directory: the git top level, else the directory itself
/// (CONTRACT §8).
fn workspace_of(cwd: &str, info: &GitInfo) -> String {
    info.toplevel.clone().unwrap_or_else(|| cwd.to_string())
}

/// Reads the git facts of `cwd` off the async threads.
async fn git_info(cwd: Option<String>) -> GitInfo {
    match cwd {
        Some(dir) => tokio::task::spawn_blocking(move || git::info(&dir))
            .await
            .unwrap_or_default(),
        None => GitInfo::default(),
    }
}

/// Validates a `Run` spec (keys in `docs/dbus-api.md`).
async fn run_spec(spec: &Map) -> Result<RunSpec, Attend1Error> {
    let argv = get_strs(spec, "argv")?.unwrap_or_default();
    if argv.is_empty() || argv[0].is_empty() {
        return Err(Attend1Error::InvalidArgument(
            "argv must name a program".into(),
        ));
    }
    let cwd = get_str(spec, "cwd")?.or_else(|| std::env::var("HOME").ok());
    if let Some(c) = &cwd {
        if !std::path::Path::new(c).is_dir() {
            return Err(Attend1Error::InvalidArgument(format!(
                "cwd {c:?} is not a directory"
            )));
        }
    }
    let agent = match get_str(spec, "agent")? {
        Some(a) => AgentKind::parse(&a).ok_or_else(|| {
            Attend1Error::InvalidArgument(format!(
                "unknown agent {a:?} (claude, codex, cursor, gemini, shell)"
            ))
        })?,
        None => AgentKind::from_program(&argv[0]),
    };
    let git = git_info(cwd.clone()).await;
    let workspace = match get_str(spec, "workspace")?.filter(|w| !w.is_empty()) {
        Some(w) => w,
        None => match &cwd {
            Some(c) => workspace_of(c, &git),
            None => "/".to_string(),
        },
    };
    Ok(RunSpec {
        argv,
        cwd,
        workspace,
        tab: get_str(spec, "tab")?.unwrap_or_default(),
        name: get_str(spec, "name")?.unwrap_or_default(),
        agent,
        oneshot: get_bool(spec, "oneshot")?.unwrap_or(false),
        rows: get_u16(spec, "rows")?.filter(|r| *r > 0).unwrap_or(24),
        cols: get_u16(spec, "cols")?.filter(|c| *c > 0).unwrap_or(80),
        env: get_env(spec, "env")?,
        git,
    })
}

#[zbus::interface(name = "io.github.attend.Attend1", introspection_docs = false)]
impl Attend1 {
    /// Spawns `spec.argv` in a new pane; returns its id.
    #[zbus(out_args("pane"))]
    async fn run(&self, spec: Map) -> Result<String, Attend1Error> {
        let spec = run_spec(&spec).await?;
        self.ask(|r| Command::Run(spec, r)).await
    }

    #[zbus(out_args("panes"))]
    async fn list_panes(&self) -> Result<Vec<Dict>, Attend1Error> {
        self.ask(Command::ListPanes).await
    }

    #[zbus(out_args("info"))]
    async fn get_pane(&self, pane: &str) -> Result<Dict, Attend1Error> {
        let id = parse_pane(pane)?;
        self.ask(|r| Command::GetPane(id, r)).await
    }

    #[zbus(out_args("workspaces"))]
    async fn list_workspaces(&self) -> Result<Vec<Dict>, Attend1Error> {
        self.ask(Command::ListWorkspaces).await
    }

    async fn mark_seen(&self, pane: &str) -> Result<(), Attend1Error> {
        let id = parse_pane(pane)?;
        self.ask(|r| Command::Act(id, Action::MarkSeen, r)).await
    }

    async fn focus(&self, pane: &str) -> Result<(), Attend1Error> {
        let id = parse_pane(pane)?;
        self.ask(|r| Command::Focus(id, r)).await
    }

    async fn set_focused(&self, pane: &str, focused: bool) -> Result<(), Attend1Error> {
        let id = parse_pane(pane)?;
        let action = if focused {
            Action::Focus
        } else {
            Action::Unfocus
        };
        self.ask(|r| Command::Act(id, action, r)).await
    }

    async fn answer(&self, pane: &str, choice: &str) -> Result<(), Attend1Error> {
        let id = parse_pane(pane)?;
        if choice.trim().is_empty() {
            return Err(Attend1Error::InvalidArgument("the choice is empty".into()));
        }
        let choice = choice.to_string();
        self.ask(|r| Command::Answer(id, choice, r)).await
    }

    #[zbus(out_args("pane"))]
    async fn next_unread(&self) -> Result<String, Attend1Error> {
        self.ask(Command::NextUnread).await
    }

    async fn send_input(&self, pane: &str, data: Vec<u8>) -> Result<(), Attend1Error> {
        let id = parse_pane(pane)?;
        self.ask(|r| Command::SendInput(id, data, r)).await
    }

    async fn resize(&self, pane: &str, rows: u16, cols: u16) -> Result<(), Attend1Error> {
        let id = parse_pane(pane)?;
        if rows == 0 || cols == 0 {
            return Err(Attend1Error::InvalidArgument(
                "rows and cols must be positive".into(),
            ));
        }
        self.ask(|r| Command::Resize(id, rows, cols, r)).await
    }

    async fn kill(&self, pane: &str, signal: i32) -> Result<(), Attend1Error> {
        let id = parse_pane(pane)?;
        if nix::sys::signal::Signal::try_from(signal).is_err() {
            return Err(Attend1Error::InvalidArgument(format!(
                "{signal} is not a signal number"
            )));
        }
        self.ask(|r| Command::Kill(id, signal, r)).await
    }

    async fn resume(&self, pane: &str) -> Result<(), Attend1Error> {
        let id = parse_pane(pane)?;
        self.ask(|r| Command::Resume(id, r)).await
    }

    #[zbus(out_args("socket"))]
    async fn attach(&self, pane: &str) -> Result<String, Attend1Error> {
        let id = parse_pane(pane)?;
        self.ask(|r| Command::Attach(id, r)).await
    }

    #[zbus(out_args("events"))]
    async fn events(&self, after_seq: u64, limit: u32) -> Result<Vec<EventTuple>, Attend1Error> {
        self.ask(|r| Command::Events(after_seq, limit, r)).await
    }

    #[zbus(out_args("seq"))]
    async fn hook(
        &self,
        agent: &str,
        event: &str,
        payload: &str,
        context: Map,
    ) -> Result<u64, Attend1Error> {
        let terminal = get_env(&context, "terminal")?;
        let context = HookContext {
            pane: get_str(&context, "pane")?,
            delivery_id: get_str(&context, "delivery_id")?,
            cwd: get_str(&context, "cwd")?,
            pids: match field(&context, "pids") {
                Some(v) => pids_from_value(v)?,
                None => Vec::new(),
            },
        };
        let mut req = hook_request(agent, event, payload, context, now())?;
        req.terminal = super::surfaces::TerminalLocation::from_env(&terminal);
        self.ask(|r| Command::Hook(Box::new(req), r)).await
    }

    #[zbus(out_args("explanation"))]
    async fn explain(&self, pane: &str) -> Result<Dict, Attend1Error> {
        let id = parse_pane(pane)?;
        self.ask(|r| Command::Explain(id, r)).await
    }

    /// GetScreen(s pane) → s: the plain text of the pane's live screen, from its vt100
    /// state (never scrollback). Errors: `NoSuchPane`, `NotOwned` (an external pane has no
    /// screen here), `InvalidArgument` when the pane is not running.
    #[zbus(out_args("screen"))]
    async fn get_screen(&self, pane: &str) -> Result<String, Attend1Error> {
        let id = parse_pane(pane)?;
        self.ask(|r| Command::GetScreen(id, r)).await
    }

    /// Adds an open task (obligation) to a pane; returns its id (CONTRACT §5).
    #[zbus(out_args("task"))]
    async fn add_task(&self, pane: &str, text: &str) -> Result<u64, Attend1Error> {
        let id = parse_pane(pane)?;
        let text = text.to_string();
        self.ask(|r| Command::Ladder(LadderCommand::AddTask(id, text, r)))
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
        self.ask(|r| Command::Ladder(LadderCommand::SetTaskState(task, state, message, r)))
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
        self.ask(|r| Command::Ladder(LadderCommand::SetHold(id, Some(hold), r)))
            .await
    }

    async fn clear_hold(&self, pane: &str) -> Result<(), Attend1Error> {
        let id = parse_pane(pane)?;
        self.ask(|r| Command::Ladder(LadderCommand::SetHold(id, None, r)))
            .await
    }

    #[zbus(out_args("version"))]
    async fn version(&self) -> String {
        crate::config::VERSION.to_string()
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
        decision: &Dict,
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

    /// `rung.health`: an evidence rung's trust changed (seed 004).
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
            let d = super::wire::decision_dict(decision);
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
