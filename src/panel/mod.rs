//! `attend-panel`: the GTK4 + libadwaita panel (`docs/desktop-surfaces.md#panel`).
//!
//! A D-Bus client of the daemon only: it renders what `io.github.attend.Attend1` says
//! (the engine's values, workspace summaries and "next unread" order) and follows its
//! signals; it holds nothing but the last rendered snapshot and the selection, so it can
//! crash and restart without losing anything. GTK 4.8 / libadwaita 1.2.
//!
//! - [`client`]: the D-Bus thread (tokio + zbus), joined to GLib by `async_channel`.
//! - [`data`]: the daemon's dictionaries parsed; [`labels`]: their words, via gettext.
//! - [`hosts`]: remote panes grouped per host (this machine first, then each remote).
//! - [`window`], [`workspace_row`], [`pane_row`], [`pane_detail`], [`pane_terminal`]: the
//!   widgets, each with its `.ui` template beside it ([`terminal_view`], the VTE terminal
//!   inside [`pane_terminal`], has no children and no template);
//!   [`terminal_source`]: which panes the live terminal attaches to;
//!   [`terminal_actions`]: its actions and what its keyboard focus means; [`vte`]: the
//!   VTE calls it makes; [`layout`]: the window's columns (leaflets);
//!   [`actions`]: the window's actions; [`needs_you`]: the Needs you view (every open
//!   decision in one queue), its keys in [`needs_keys`], its
//!   window side in [`needs_window`].
//! - [`shortcuts`]: the keyboard shortcuts and the shortcuts window (`shortcuts.ui`).
//! - [`new_agent`]: the New agent dialog; [`new_agent_form`]: what it offers and asks
//!   (pure); [`new_agent_run`]: the client thread's side (worktree, then `Run`).
//! - [`focus`]: when the panel reports a pane focused
//!   (`docs/lifecycle-attention.md#focus`, after activation or a dwell).
//! - [`terminal`]: which terminal "Attach in Terminal" opens.
//! - [`dump`]: the `ATTEND_PANEL_DUMP` test hook.

mod a11y;
mod actions;
mod app;
pub mod attach_terminal;
pub mod client;
pub mod data;
pub mod dump;
pub mod focus;
pub mod hosts;
pub mod i18n;
mod indicator;
pub mod labels;
mod layout;
mod needs_keys;
mod needs_window;
mod needs_you;
mod new_agent;
pub mod new_agent_form;
mod new_agent_run;
mod pane_detail;
mod pane_row;
mod pane_terminal;
pub mod shortcuts;
mod terminal_actions;
pub mod terminal_source;
mod terminal_view;
mod vte;
mod window;
mod workspace_row;

/// The application id (desktop file, D-Bus activation, GApplication).
pub const APP_ID: &str = crate::config::APP_ID;

/// Runs the panel with the process arguments (GApplication's options, e.g.
/// `--gapplication-service` under D-Bus activation); returns the exit code.
pub fn main() -> i32 {
    // Without a session bus of its own, the private one `attend up` started
    // (src/system/private_bus.rs): set while the process is still single-threaded, before
    // GTK or any runtime starts (`set_var` races with other threads' `getenv`).
    crate::system::private_bus::adopt();
    app::run()
}
