//! The window's side of the pane's live terminal ([`PaneTerminal`]): it joins the
//! terminal to the window (its `Attach` requests, what its keyboard focus means) and adds
//! the terminal's actions, whose keys are in [`shortcuts::ACCELS`]:
//!
//! - `terminal-focus`: the keyboard goes into the selected pane's terminal (the detail
//!   column shown in a narrow window), or, from the terminal, back to the pane list;
//! - `terminal-copy`, `terminal-paste`: the clipboard (the mouse selects; the selection
//!   is also the primary selection, pasted with the middle button).
//!
//! The terminal taking the keyboard focus in an active window engages its pane (focus
//! and seen, as activating its row does: `docs/lifecycle-attention.md#focus`); while it
//! has the focus only the keys of [`shortcuts::WHILE_TYPING`] are the panel's, every
//! other key goes to the program.

use super::client::Request;
use super::pane_terminal::PaneTerminal;
use super::shortcuts;
use super::window::PanelWindow;
use adw::prelude::*;
use async_channel::Sender;
use gettextrs::gettext;
use gtk4::gio;

/// Joins the detail's terminal to `w` (its requests go to `requests`) and adds the
/// terminal's actions.
pub fn setup(w: &PanelWindow, requests: Sender<Request>) {
    let terminal = w.terminal();
    let on_focus = {
        let weak = w.downgrade();
        move |pane: &str, inside: bool| {
            let Some(w) = weak.upgrade() else { return };
            if let Some(app) = w.application() {
                shortcuts::set_typing(&app, inside);
            }
            if inside {
                w.activate_pane(pane);
            }
        }
    };
    let on_change = {
        let weak = w.downgrade();
        move || {
            if let Some(w) = weak.upgrade() {
                w.write_dump();
            }
        }
    };
    terminal.setup(requests, on_focus, on_change);
    let simple = |name: &str, f: fn(&PanelWindow, &PaneTerminal)| {
        gio::ActionEntry::builder(name)
            .activate(move |w: &PanelWindow, _, _| f(w, &w.terminal()))
            .build()
    };
    w.add_action_entries([
        simple("terminal-focus", toggle_focus),
        simple("terminal-copy", |_, t| t.copy()),
        simple("terminal-paste", |_, t| t.paste()),
    ]);
}

/// Into the terminal, or out of it to the pane list; says in a toast why the keyboard
/// cannot go in (no pane selected, no live screen and the reason).
fn toggle_focus(w: &PanelWindow, t: &PaneTerminal) {
    if t.has_keyboard_focus() {
        w.focus_pane_list();
        return;
    }
    if w.selected_info().is_none() {
        w.toast(&gettext("Select a pane first"));
        return;
    }
    w.show_detail();
    if !t.take_focus() {
        let why = t
            .reason()
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| gettext("The pane's terminal is not connected yet"));
        w.toast(&why);
    }
}
