//! The client side of `io.github.attend.Attend1` (DESIGN "Names"; members documented in
//! `docs/dbus-api.md`). Declared here rather than imported: the panel links no daemon
//! code.

use super::data::Dict;

pub use crate::config::{BUS_NAME, OBJECT_PATH};

/// One entry of `Events`: (seq, kind, pane, data).
pub type EventTuple = (u64, String, String, Dict);

/// The methods and signals the panel uses.
#[zbus::proxy(
    interface = "io.github.attend.Attend1",
    default_service = "io.github.attend.Attend1",
    default_path = "/io/github/attend/Attend1",
    gen_blocking = false
)]
pub trait Attend1 {
    /// Every pane (`aa{sv}`).
    fn list_panes(&self) -> zbus::Result<Vec<Dict>>;
    /// Every workspace summary (`aa{sv}`).
    fn list_workspaces(&self) -> zbus::Result<Vec<Dict>>;
    fn mark_seen(&self, pane: &str) -> zbus::Result<()>;
    /// The panel shows `pane` selected in an active window (CONTRACT §3 focus).
    fn set_focused(&self, pane: &str, focused: bool) -> zbus::Result<()>;
    fn answer(&self, pane: &str, choice: &str) -> zbus::Result<()>;
    /// The first pane of the engine's "next unread" order; `""` when none.
    fn next_unread(&self) -> zbus::Result<String>;
    fn kill(&self, pane: &str, signal: i32) -> zbus::Result<()>;
    fn resume(&self, pane: &str) -> zbus::Result<()>;
    /// Events with seq greater than `after_seq`, oldest first, at most `limit`.
    fn events(&self, after_seq: u64, limit: u32) -> zbus::Result<Vec<EventTuple>>;
    /// The text of a pane's screen (its vt100 state). Not every daemon has it: the
    /// panel handles `UnknownMethod`.
    fn get_screen(&self, pane: &str) -> zbus::Result<String>;

    /// Emitted after every committed event.
    #[zbus(signal)]
    fn event(&self, seq: u64, kind: String, pane: String, data: Dict) -> zbus::Result<()>;
    /// Some surface (a notification click, `attend focus`) asks to show `pane`.
    #[zbus(signal)]
    fn focus_requested(&self, pane: String) -> zbus::Result<()>;
}
