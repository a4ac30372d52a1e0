//! Requests to the owner task (the one task that owns the world, the database and the
//! PTYs). The D-Bus interface, the attach server and helper tasks only send these; each
//! request that wants an answer carries a oneshot reply, sent after the owner committed.

use super::dbus::Attend1Error;
use super::wire::Dict;
use crate::adapters::hooks::HookMapping;
use crate::model::{Action, AgentKind, PaneId};
use std::collections::BTreeMap;
use tokio::sync::oneshot;

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
}

/// The git facts of a directory (`git rev-parse`); both `None` outside a repository.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitInfo {
    /// Absolute path of the top-level directory.
    pub toplevel: Option<String>,
    /// Current branch (`HEAD` when detached).
    pub branch: Option<String>,
}

/// A hook delivery after the adapter mapped it (CONTRACT §8).
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
    /// (src/service/procwatch.rs). Empty when the caller sent none.
    pub pids: Vec<(u32, u64)>,
    /// Where an external pane's agent runs (tmux, kitty, WezTerm), from the context's
    /// `terminal` entry; used to focus it (src/service/surfaces/terminal.rs).
    pub terminal: Option<super::surfaces::TerminalLocation>,
}

/// A request to the owner task.
#[derive(Debug)]
pub enum Command {
    Run(RunSpec, Reply<String>),
    ListPanes(Reply<Vec<Dict>>),
    GetPane(PaneId, Reply<Dict>),
    ListWorkspaces(Reply<Vec<Dict>>),
    /// A user action (mark seen, focus, unfocus, attach, detach).
    Act(PaneId, Action, Reply<()>),
    /// `Focus`: mark seen and ask the surfaces to show the pane.
    Focus(PaneId, Reply<()>),
    Answer(PaneId, String, Reply<()>),
    NextUnread(Reply<String>),
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
    /// Tasks, holds and the evidence ladder's inputs (src/service/ladder_host.rs).
    Ladder(super::ladder_host::LadderCommand),
}
