//! The proxy of `io.github.attend.Attend1`: every method and signal the daemon serves,
//! with the types of its `#[zbus::interface]` (`docs/dbus-api.md` is the reference).
//!
//! zbus takes the names in the attribute only as string literals; the test below keeps
//! them equal to [`crate::config::BUS_NAME`], [`crate::config::OBJECT_PATH`] and
//! [`crate::config::INTERFACE`], the one home of those names.

use super::types::{Dict, EventTuple};
use super::wire::WirePane;
use std::collections::HashMap;
use zbus::zvariant::Value;

/// The daemon's object `/io/github/attend/Attend1` on the session bus, owned by
/// `attend daemon` under `io.github.attend.Attend1` (the generated types are
/// `Attend1Proxy`, async, and `Attend1ProxyBlocking`; `new(&conn)` uses those names).
///
/// Every member is documented in `docs/dbus-api.md`: the dictionaries' keys under
/// "Dictionaries", the vocabulary under "Conventions". Pane ids are strings `p1`, `p2`, …;
/// times are `x`, milliseconds since the Unix epoch (UTC).
///
/// Errors: every method fails with `zbus::Error::MethodError(name, message, _)`, `name`
/// `io.github.attend.Attend1.Error.<Name>` ([`super::error_name`] gives `<Name>`) and
/// `message` a human sentence:
/// - `NoSuchPane`: the pane id is unknown or malformed (`no such pane: p9`), for every
///   method that takes a pane;
/// - `NoDecision`: `Answer` on a pane with no open decision;
/// - `NotOwned`: the pane runs outside Attend (known through hooks only): no input,
///   answer, kill, resize, attach, resume or screen;
/// - `InvalidArgument`: a malformed argument (as listed on each method);
/// - `DialogUnreadable`: `Answer` when the dialog on the pane's screen cannot be matched
///   to the choice with certainty; nothing was typed;
/// - `PaneInMode`: `Answer` or `SendInput` on a pane followed in tmux while that tmux
///   pane is in a mode such as copy-mode; nothing was typed;
/// - `PayloadTooLarge`: a `Hook` payload over 1 MiB (1 048 576 bytes);
/// - `SpawnFailed`: `Run` cannot start the program (the message names it and the OS
///   error);
/// - `Internal`: the daemon failed (the database refused the change, a write to the PTY
///   failed) or is shutting down.
///
/// Without a daemon the bus answers `org.freedesktop.DBus.Error.ServiceUnknown` (or
/// `NameHasNoOwner`); without a bus the error is I/O or an address error. Each method
/// answers after the change it causes is committed; signals follow the commit.
#[zbus::proxy(
    interface = "io.github.attend.Attend1",
    default_service = "io.github.attend.Attend1",
    default_path = "/io/github/attend/Attend1"
)]
pub trait Attend1 {
    /// `Run(a{sv} spec) → s`: spawns `spec["argv"]` (`as`, required) in a new PTY and
    /// returns the new pane id. Other keys: `cwd` s (an existing directory), `workspace`
    /// s, `tab` s, `name` s, `agent` s, `oneshot` b, `rows` q, `cols` q (default 24×80),
    /// `env` a{ss}. Errors: `InvalidArgument` (empty argv, bad cwd, unknown agent, a key
    /// of the wrong type), `SpawnFailed`.
    fn run(&self, spec: &HashMap<&str, Value<'_>>) -> zbus::Result<String>;

    /// `ListPanes() → aa{sv}`: every pane as a Pane dictionary, by id.
    fn list_panes(&self) -> zbus::Result<Vec<WirePane>>;

    /// `GetPane(s pane) → a{sv}`: one Pane dictionary. Errors: `NoSuchPane`.
    fn get_pane(&self, pane: &str) -> zbus::Result<WirePane>;

    /// `ListWorkspaces() → aa{sv}`: every workspace summary, by key.
    fn list_workspaces(&self) -> zbus::Result<Vec<Dict>>;

    /// `MarkSeen(s pane)`: clears the pane's ordinary attention (an open decision stays).
    /// Errors: `NoSuchPane`.
    fn mark_seen(&self, pane: &str) -> zbus::Result<()>;

    /// `Focus(s pane)`: marks the pane seen and emits `FocusRequested` so a surface shows
    /// it. Errors: `NoSuchPane`.
    fn focus(&self, pane: &str) -> zbus::Result<()>;

    /// `SetFocused(s pane, b focused)`: the user selected (`true`) or left (`false`) the
    /// pane in an active window of the panel. Errors: `NoSuchPane`.
    fn set_focused(&self, pane: &str, focused: bool) -> zbus::Result<()>;

    /// `Answer(s pane, s choice)`: types the keys that pick `choice` in the dialog on the
    /// pane's screen now and resolves the open decision (`docs/lifecycle-attention.md#answer`).
    /// Errors: `NoSuchPane`, `NoDecision`, `NotOwned`, `InvalidArgument` (empty or unknown
    /// choice; the message lists the known ones), `DialogUnreadable` (no readable dialog,
    /// or no single option that means the choice; nothing typed, the decision stays open).
    fn answer(&self, pane: &str, choice: &str) -> zbus::Result<()>;

    /// `NextUnread() → s`: the pane to look at next (severity, then recency, then id;
    /// focused panes skipped); `""` when there is none.
    fn next_unread(&self) -> zbus::Result<String>;

    /// `GetOverview() → a{sv}`: counts by attention and the next pane, local and mirrored,
    /// as the tray shows them (`docs/dbus-api.md#overview`); decode with
    /// `crate::client::overview::Overview::from_json`.
    fn get_overview(&self) -> zbus::Result<Dict>;

    /// `SendInput(s pane, ay data)`: types the bytes `data` into the pane. Errors:
    /// `NoSuchPane`, `NotOwned`, `InvalidArgument` (not running).
    fn send_input(&self, pane: &str, data: &[u8]) -> zbus::Result<()>;

    /// `Resize(s pane, q rows, q cols)`: resizes the pane's PTY (character cells).
    /// Errors: `NoSuchPane`, `NotOwned`, `InvalidArgument` (zero rows or cols).
    fn resize(&self, pane: &str, rows: u16, cols: u16) -> zbus::Result<()>;

    /// `Kill(s pane, i signal)`: sends the signal (a number, e.g. 15) to the pane's
    /// process group. Errors: `NoSuchPane`, `NotOwned`, `InvalidArgument` (not a signal
    /// number, not running).
    fn kill(&self, pane: &str, signal: i32) -> zbus::Result<()>;

    /// `Resume(s pane)`: re-spawns an exited pane with its `resume_argv`, else its
    /// original command; same pane id. Errors: `NoSuchPane`, `NotOwned`,
    /// `InvalidArgument` (still running), `SpawnFailed`.
    fn resume(&self, pane: &str) -> zbus::Result<()>;

    /// `Attach(s pane) → s`: the path of the attach socket (a Unix socket, mode 0600)
    /// where the client speaks the attach protocol for this pane. Errors: `NoSuchPane`,
    /// `NotOwned`, `InvalidArgument` (not running).
    fn attach(&self, pane: &str) -> zbus::Result<String>;

    /// `Events(t after_seq, u limit) → a(tssa{sv})`: up to `limit` events (0 or over
    /// 10 000 means 10 000) with `seq > after_seq`, oldest first. Subscribe to `Event`
    /// first, then catch up, to miss nothing.
    fn events(&self, after_seq: u64, limit: u32) -> zbus::Result<Vec<EventTuple>>;

    /// `Hook(s agent, s event, s payload, a{sv} context) → t`: one agent hook (`agent`
    /// `claude|codex|cursor|gemini`, `event` the event name or `""` when the payload
    /// carries it, `payload` the agent's JSON text); returns the seq of the applied event
    /// (for a `delivery_id` already applied, its recorded seq). Context keys in
    /// `docs/dbus-api.md` (`pane` s, `delivery_id` s, `cwd` s, `pids` a(ut), `terminal`
    /// a{ss}, …). Errors: `InvalidArgument` (malformed payload, unknown agent or event,
    /// a context key of the wrong type), `PayloadTooLarge`.
    fn hook(
        &self,
        agent: &str,
        event: &str,
        payload: &str,
        context: &HashMap<&str, Value<'_>>,
    ) -> zbus::Result<u64>;

    /// `Explain(s pane) → a{sv}`: why the pane shows what it shows (the event and
    /// evidence behind its lifecycle, attention and activity; keys in `docs/dbus-api.md`).
    /// Errors: `NoSuchPane`.
    fn explain(&self, pane: &str) -> zbus::Result<Dict>;

    /// `GetScreen(s pane) → s`: the plain text of the pane's live screen (never
    /// scrollback). Errors: `NoSuchPane`, `NotOwned`, `InvalidArgument` (not running).
    fn get_screen(&self, pane: &str) -> zbus::Result<String>;

    /// `AddTask(s pane, s text) → t`: adds an open task to the pane; returns the task id.
    /// Errors: `NoSuchPane`, `InvalidArgument` (empty text).
    fn add_task(&self, pane: &str, text: &str) -> zbus::Result<u64>;

    /// `SetTaskState(t task, s state, s message)`: moves the task to `state` (`open`,
    /// `working`, `reported`, `failed`, `input_required`) with `message` (`""`: none).
    /// Errors: `InvalidArgument` (unknown task or state).
    fn set_task_state(&self, task: u64, state: &str, message: &str) -> zbus::Result<()>;

    /// `SetHold(s pane, s owner, x wake, s reason)`: holds the pane on purpose until
    /// `wake` (ms since the epoch) for `owner`; `reason` `""` is none. Errors:
    /// `NoSuchPane`, `InvalidArgument` (no owner, wake ≤ 0).
    fn set_hold(&self, pane: &str, owner: &str, wake: i64, reason: &str) -> zbus::Result<()>;

    /// `ClearHold(s pane)`: removes the pane's hold. Errors: `NoSuchPane`.
    fn clear_hold(&self, pane: &str) -> zbus::Result<()>;

    /// `Remove(as panes, b kill) → as removed`: removes the panes, all or none; with
    /// `kill`, running panes Attend runs are ended first (SIGHUP, SIGTERM after 1 s,
    /// SIGKILL after 5 s more; the call fails when one has not exited 2 s later). An
    /// external pane is only forgotten. Errors: `NoSuchPane`, `InvalidArgument` (no pane,
    /// a running pane without `kill`, no exit in time), `NotOwned` (`kill` of a running
    /// external pane).
    fn remove(&self, panes: &[&str], kill: bool) -> zbus::Result<Vec<String>>;

    /// `RemoveExited(x older_than, b dry_run) → as panes`: the exited panes whose exit is
    /// at least `older_than` ms ago (0: all), removed unless `dry_run`. Errors:
    /// `InvalidArgument` (a negative age).
    fn remove_exited(&self, older_than: i64, dry_run: bool) -> zbus::Result<Vec<String>>;

    /// `Version() → s`: the daemon's version (e.g. `0.1.0`).
    fn version(&self) -> zbus::Result<String>;

    /// `InterfaceVersion() → u`: the major version of this interface the daemon serves
    /// (`crate::config::INTERFACE_VERSION`; absent before version 1 existed).
    fn interface_version(&self) -> zbus::Result<u32>;

    /// `Remotes() → aa{sv}`: every remote of `config.toml` and its link, by name: `name`
    /// s, `target` s, `via` s and `command` s (when set), `state` s
    /// (`connected`|`connecting`|`offline`), `since_at` x, `last_error` s and
    /// `remote_version` s (when known) (`docs/dbus-api.md#remote`).
    fn remotes(&self) -> zbus::Result<Vec<Dict>>;

    /// `ListRemotePanes() → aa{sv}`: every pane mirrored from a remote, by host then pane,
    /// as a Pane dictionary with `id` `NAME:pN` plus `host` s, `offline` b and `degraded`
    /// b (`docs/dbus-api.md#remote-pane`). Offline hosts' panes stay listed.
    fn list_remote_panes(&self) -> zbus::Result<Vec<WirePane>>;

    /// `ListRemoteWorkspaces() → aa{sv}`: the workspaces of the mirrored panes, by host
    /// then key, as workspace summaries (`key` the host's own) plus `host` s and `offline`
    /// b (`docs/dbus-api.md#remote-workspace`).
    fn list_remote_workspaces(&self) -> zbus::Result<Vec<Dict>>;

    /// `ReloadRemotes() → as`: reads `config.toml` again and applies its remotes (new
    /// ones connect, removed or changed ones end); the bad remote entries, one line each.
    fn reload_remotes(&self) -> zbus::Result<Vec<String>>;

    /// `Quit()`: the daemon stops; its panes' programs keep running.
    fn quit(&self) -> zbus::Result<()>;

    /// `AgentTransition(t seq, s pane, s previous, s value, s source)`: an `agent.*`
    /// event; `previous`/`value` lifecycles, `source` a `rung:origin` string.
    #[zbus(signal)]
    fn agent_transition(
        &self,
        seq: u64,
        pane: String,
        previous: String,
        value: String,
        source: String,
    ) -> zbus::Result<()>;

    /// `AttentionCreated(t seq, s pane, s level, s shown)`: an attention item was raised;
    /// `shown` is the pane's highest attention after it.
    #[zbus(signal)]
    fn attention_created(
        &self,
        seq: u64,
        pane: String,
        level: String,
        shown: String,
    ) -> zbus::Result<()>;

    /// `AttentionCleared(t seq, s pane, as levels, s shown)`: attention items cleared.
    #[zbus(signal)]
    fn attention_cleared(
        &self,
        seq: u64,
        pane: String,
        levels: Vec<String>,
        shown: String,
    ) -> zbus::Result<()>;

    /// `DecisionOpened(t seq, s pane, a{sv} decision)`: a Decision dictionary.
    #[zbus(signal)]
    fn decision_opened(&self, seq: u64, pane: String, decision: Dict) -> zbus::Result<()>;

    /// `DecisionResolved(t seq, s pane, t id, s how)`: decision `id` resolved (`how`:
    /// `answered`, `approved`, `dismissed`, `superseded`, `abandoned`,
    /// `agent_transition`).
    #[zbus(signal)]
    fn decision_resolved(&self, seq: u64, pane: String, id: u64, how: String) -> zbus::Result<()>;

    /// `PaneExited(t seq, s pane, i code, i signal)`: the pane's process ended; -1 when
    /// the code or the signal is unknown.
    #[zbus(signal)]
    fn pane_exited(&self, seq: u64, pane: String, code: i32, signal: i32) -> zbus::Result<()>;

    /// `PaneAdded(t seq, s pane)`.
    #[zbus(signal)]
    fn pane_added(&self, seq: u64, pane: String) -> zbus::Result<()>;

    /// `PaneRemoved(t seq, s pane)`: the pane was removed (`Remove`, `RemoveExited`, the
    /// automatic removal); its id names no pane any more and is never reused.
    #[zbus(signal)]
    fn pane_removed(&self, seq: u64, pane: String) -> zbus::Result<()>;

    /// `PaneChanged(t seq, s pane)`: something of the pane changed that has no event kind
    /// of its own (e.g. a hold, a resume, a shell pane becoming an agent's).
    #[zbus(signal)]
    fn pane_changed(&self, seq: u64, pane: String) -> zbus::Result<()>;

    /// `Event(t seq, s kind, s pane, a{sv} data)`: emitted once for every committed
    /// event, the same fields as an entry of `Events`.
    #[zbus(signal)]
    fn event(&self, seq: u64, kind: String, pane: String, data: Dict) -> zbus::Result<()>;

    /// `RungHealth(t seq, s pane, s rung, s from, s to, s reason)`: an evidence rung's
    /// trust changed (`authoritative`, `trial`, `identity-only`, `absent`).
    #[zbus(signal)]
    fn rung_health(
        &self,
        seq: u64,
        pane: String,
        rung: String,
        from: String,
        to: String,
        reason: String,
    ) -> zbus::Result<()>;

    /// `FocusRequested(s pane)`: `Focus` was called, or a notification or the tray
    /// focused the pane; not an event, no seq.
    #[zbus(signal)]
    fn focus_requested(&self, pane: String) -> zbus::Result<()>;

    /// `RemotesChanged()`: a remote's link state or mirrored panes changed: read
    /// `Remotes()` and `ListRemotePanes()` again. Not an event, no seq; a burst of
    /// changes may come as one signal.
    #[zbus(signal)]
    fn remotes_changed(&self) -> zbus::Result<()>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{BUS_NAME, INTERFACE, OBJECT_PATH};
    use zbus::proxy::Defaults;

    #[test]
    fn the_proxy_uses_the_names_of_config() {
        let iface = Attend1Proxy::INTERFACE.as_ref().map(|n| n.as_str());
        let dest = Attend1Proxy::DESTINATION.as_ref().map(|n| n.as_str());
        let path = Attend1Proxy::PATH.as_ref().map(|p| p.as_str());
        assert_eq!(iface, Some(INTERFACE));
        assert_eq!(dest, Some(BUS_NAME));
        assert_eq!(path, Some(OBJECT_PATH));
        let iface = Attend1ProxyBlocking::INTERFACE.as_ref().map(|n| n.as_str());
        assert_eq!(iface, Some(INTERFACE));
    }
}
