//! Requests to the owner task (the one task that owns the world, the database and the
//! PTYs). The D-Bus interface, the attach server and helper tasks only send these; each
//! request that wants an answer carries a oneshot reply, sent after the owner committed.

use crate::adapters::hooks::HookMapping;
use crate::client::wire::{Dict, WirePane};
use crate::model::{Action, AgentKind, Hold, HostName, PaneId, PaneRef, TaskId, TaskState};
use crate::service::bus::error::Attend1Error;
use crate::service::evidence::git::GitInfo;
use crate::service::evidence::selfreport::WatchEvent;
use crate::service::surfaces::terminal_location::TerminalLocation;
use std::collections::BTreeMap;
use tokio::sync::{mpsc, oneshot};

/// The reply channel of one request.
pub type Reply<T> = oneshot::Sender<Result<T, Attend1Error>>;

/// One entry of `Events`: (seq, kind, pane, data).
pub type EventTuple = (u64, String, String, Dict);

/// What `Run` spawns (the `a{sv}` spec after validation).
#[derive(Debug, Clone, Default)]
pub struct RunSpec {
    pub argv: Vec<String>,
    pub cwd: Option<String>,
    /// Workspace key; already resolved (git top level of the cwd, else the cwd) when the
    /// caller gave none.
    pub workspace: String,
    pub tab: String,
    pub name: String,
    /// Detected from the program name when not given.
    pub agent: AgentKind,
    pub oneshot: bool,
    pub rows: u16,
    pub cols: u16,
    pub env: BTreeMap<String, String>,
    /// Git facts of the cwd, read before the request was sent.
    pub git: GitInfo,
    /// The git worktree the client made for the pane (`docs/worktrees.md`): its folder.
    pub worktree: Option<String>,
}

/// A hook delivery after the adapter mapped it (`docs/adapters.md#the-hook-wire`).
#[derive(Debug, Clone)]
pub struct HookRequest {
    pub mapping: HookMapping,
    /// `pane` from the context (the hook's `ATTEND_PANE`).
    pub pane: Option<PaneId>,
    /// Exactly-once key made by the client.
    pub delivery_id: Option<String>,
    /// The context's `cwd`: where a new external pane's workspace is looked up when the
    /// payload names no cwd (the owner reads its git facts once, on first sight).
    pub cwd: Option<String>,
    /// The hook's ancestors (pid, start time in clock ticks since boot), nearest first:
    /// checks a `pane` claim and finds an external pane's agent process
    /// (src/service/processes/procwatch.rs). Empty when the caller sent none.
    pub pids: Vec<(u32, u64)>,
    /// Where an external pane's agent runs (tmux, kitty, WezTerm), from the context's
    /// `terminal` entry; used to focus it (src/service/surfaces/terminal_location.rs).
    pub terminal: Option<TerminalLocation>,
    /// The workspace key and git facts of the hook's cwd, looked up off the owner task
    /// when the hook is the first sight of its session (`None` until then; the owner asks
    /// for it with [`Command::FirstSight`]'s lookup).
    pub workspace: Option<(String, GitInfo)>,
}

/// A request to the owner task.
#[derive(Debug)]
pub enum Command {
    Run(RunSpec, Reply<String>),
    ListPanes(Reply<Vec<WirePane>>),
    GetPane(PaneId, Reply<WirePane>),
    ListWorkspaces(Reply<Vec<Dict>>),
    /// A user action (mark seen, focus, unfocus, attach, detach).
    Act(PaneId, Action, Reply<()>),
    /// `Focus`: mark seen and ask the surfaces to show the pane. Replies true when the
    /// pane is followed in tmux and its tmux pane is being selected there
    /// (`docs/tmux.md#focus`): no other surface needs to show it.
    Focus(PaneId, Reply<bool>),
    Answer(PaneId, String, Reply<()>),
    /// `AwaitGate(delivery)`: the hook run that delivered `delivery` waits for a choice
    /// made in Attend on the gate it opened; `"allow"`, `"deny"`, or `""` when the gate
    /// is resolved otherwise or was never opened (the D-Bus method bounds the wait).
    AwaitGate(String, Reply<String>),
    NextUnread(Reply<String>),
    /// `GetOverview()`: counts and the next pane of local and mirrored panes.
    Overview(Reply<Dict>),
    SendInput(PaneId, Vec<u8>, Reply<()>),
    Resize(PaneId, u16, u16, Reply<()>),
    Kill(PaneId, i32, Reply<()>),
    Resume(PaneId, Reply<()>),
    Attach(PaneId, Reply<String>),
    Events(u64, u32, Reply<Vec<EventTuple>>),
    Hook(Box<HookRequest>, Reply<u64>),
    Explain(PaneId, Reply<Dict>),
    /// The plain text of the pane's live screen (the panel's preview).
    GetScreen(PaneId, Reply<String>),
    /// A git lookup for a changed cwd finished (no reply).
    Git(PaneId, String, GitInfo),
    /// A tmux pane to follow was found (src/service/tmux/; no reply).
    TmuxFound(Box<crate::service::tmux::found::Found>),
    /// A followed tmux pane is gone (killed, or its server ended; src/service/tmux/; no
    /// reply): its running Attend pane ends, status unknown.
    TmuxGone(crate::model::TmuxLocation),
    /// Whether a person is looking at each followed pane of one tmux server (no reply):
    /// a pane looked at is focused, one no longer looked at unfocused
    /// (`docs/tmux.md#focus`).
    TmuxFocus(Vec<(crate::model::TmuxLocation, bool)>),
    /// A followed tmux pane has a new size (rows, cols; `%layout-change`; no reply): its
    /// screen takes that size and is drawn again from a capture (`docs/tmux.md#resize`).
    TmuxResized(crate::model::TmuxLocation, u16, u16),
    /// The workspace lookup for the first sight of an external session (agent, session
    /// id) finished: the workspace key and the git facts of its cwd (no reply). The hooks
    /// of that session held back meanwhile are applied now, in arrival order.
    FirstSight(AgentKind, String, String, GitInfo),
    /// Tasks, holds and the evidence ladder's inputs (src/service/evidence/ladder_host.rs).
    Ladder(LadderCommand),
    /// One step of removing panes (src/service/bus/removal.rs; `Remove`).
    Remove(RemoveRequest, Reply<RemoveStep>),
    /// `RemoveExited(older_than_ms, dry_run)`: the exited panes whose exit lies at least
    /// `older_than_ms` back, removed unless `dry_run`; their ids.
    RemoveExited(i64, bool, Reply<Vec<PaneId>>),
    /// The automatic removal's timer fell due (no reply).
    AutoRemove,
    /// Remote events (of one host, in its log's order) to stamp into the local log with
    /// the next seqs, the host's last remote seq in the same commit
    /// (src/service/remotes/follow.rs) → the local seq of the last.
    StampRemote(Vec<RemoteStampRequest>, Reply<u64>),
    /// A remote left `config.toml`: its last remote seq is forgotten (no reply).
    ForgetRemote(HostName),
}

/// A remote event the mirror stamps (`Effect::Stamp` of [`crate::adapters::mirror`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteStampRequest {
    pub host: HostName,
    /// Its seq in the host's own log.
    pub remote_seq: u64,
    /// Cleaned kind.
    pub kind: String,
    /// `NAME:pN`; `None` when the remote named no valid pane.
    pub pane: Option<PaneRef>,
    /// The remote's data as a JSON object, cleaned and bounded.
    pub data: serde_json::Value,
}

/// A step of removing `panes` (`docs/lifecycle-attention.md#removing-panes`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoveRequest {
    /// The panes, each once.
    pub panes: Vec<PaneId>,
    /// End the running panes Attend runs first ([`crate::system::ending::ENDING`])
    /// instead of refusing them.
    pub kill: bool,
}

/// What the owner did with a [`RemoveRequest`].
#[derive(Debug)]
pub enum RemoveStep {
    /// Every pane is gone (these ids).
    Removed(Vec<PaneId>),
    /// Nothing is removed yet: the running panes got the first signal of
    /// [`crate::system::ending::ENDING`]; each receiver resolves
    /// once its pane's exit is committed (or the pane is gone). Ask again without `kill`
    /// after that.
    Killing(Vec<(PaneId, oneshot::Receiver<()>)>),
}

/// Requests of the obligations surface (`docs/lifecycle-attention.md#tasks-and-holds`) and
/// the ladder's own inputs; the owner applies them (`Command::Ladder`).
#[derive(Debug)]
pub enum LadderCommand {
    /// `AddTask`: a new open task on a pane → its id.
    AddTask(PaneId, String, Reply<TaskId>),
    /// `SetTaskState`: start (working), report (reported) … with an optional message.
    SetTaskState(TaskId, TaskState, Option<String>, Reply<()>),
    /// `SetHold` (`Some`) or `ClearHold` (`None`).
    SetHold(PaneId, Option<Hold>, Reply<()>),
    Input(LadderInput),
}

/// Something for the ladder host from outside the owner loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LadderInput {
    /// The self-report watcher saw a change.
    Watch(WatchEvent),
    /// A pane's timer fired (sampling or chrome pacing, or a correction falling due).
    Due(PaneId),
    /// An attach client is about to write an interrupt key into the pane
    /// (`crate::adapters::keys::is_interrupt`).
    Interrupt(PaneId),
}

/// Sends the request `make` builds to the owner task through `tx` and waits for its
/// reply (sent once the change is committed). Errors: `Internal` when the daemon is
/// shutting down or dropped the request; else the owner's answer.
pub async fn ask<T>(
    tx: &mpsc::Sender<Command>,
    make: impl FnOnce(Reply<T>) -> Command,
) -> Result<T, Attend1Error> {
    let (reply, rx) = oneshot::channel();
    tx.send(make(reply))
        .await
        .map_err(|_| Attend1Error::Internal("the daemon is shutting down".into()))?;
    rx.await
        .map_err(|_| Attend1Error::Internal("the daemon dropped the request".into()))?
}
