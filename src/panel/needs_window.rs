//! The window's side of the Needs you view ([`super::needs_you`],
//! `docs/desktop-surfaces.md#needs-you`): its actions, the stack page it is shown in, its
//! rebuild from each snapshot, its part of the dump, and a notification's "Reply…"
//! ([`PanelWindow::reply_to`]).

use super::client::Request;
use super::needs_you::{NeedsYou, PAGE};
use super::window::PanelWindow;
use crate::client::needs::needs;
use adw::prelude::*;
use adw::subclass::prelude::*;
use gtk4::{gio, glib};
use serde_json::Value;

/// The window's actions of the view: `needs-you` (a boolean state: the view shown),
/// `needs-open` (`s`, a pane: shows it and leaves the view), `needs-reply` (`(sss)`:
/// pane, the option to pick first or empty, the text: [`Request::Reply`]) and
/// `needs-toast` (`s`: a row key's refusal; empty: only the dump is written).
pub fn actions() -> Vec<gio::ActionEntry<PanelWindow>> {
    vec![
        gio::ActionEntry::builder("needs-you")
            .state(false.to_variant())
            .change_state(|w: &PanelWindow, a, v| {
                if let Some(shown) = v.and_then(|v| v.get::<bool>()) {
                    a.set_state(&shown.to_variant());
                    w.show_needs_you(shown);
                }
            })
            .build(),
        gio::ActionEntry::builder("needs-reply")
            .parameter_type(Some(glib::VariantTy::new("(sss)").expect("a valid type")))
            .activate(|w: &PanelWindow, _, v| {
                if let Some((pane, pick, text)) =
                    v.and_then(|v| v.get::<(String, String, String)>())
                {
                    w.send(Request::Reply {
                        pane,
                        pick: (!pick.is_empty()).then_some(pick),
                        text,
                    });
                }
            })
            .build(),
        gio::ActionEntry::builder("needs-toast")
            .parameter_type(Some(glib::VariantTy::STRING))
            .activate(
                |w: &PanelWindow, _, p| match p.and_then(|v| v.get::<String>()) {
                    Some(m) if !m.is_empty() => w.toast(&m),
                    _ => w.write_dump(),
                },
            )
            .build(),
        gio::ActionEntry::builder("needs-open")
            .parameter_type(Some(glib::VariantTy::STRING))
            .activate(|w: &PanelWindow, _, p| {
                if let Some(p) = p.and_then(|v| v.get::<String>()) {
                    w.open_from_needs(p);
                }
            })
            .build(),
    ]
}

impl PanelWindow {
    /// The view (made on first use, added to the window's stack as [`PAGE`]).
    pub(super) fn needs_you(&self) -> NeedsYou {
        let imp = self.imp();
        if let Some(v) = imp.needs_you.get() {
            return v.clone();
        }
        let v = NeedsYou::default();
        v.build();
        imp.stack.add_named(&v.widget(), Some(PAGE));
        let _ = imp.needs_you.set(v.clone());
        v
    }

    /// True while the view is shown (the `needs-you` state).
    pub(super) fn needs_you_shown(&self) -> bool {
        self.action_state("needs-you")
            .and_then(|v| v.get::<bool>())
            .unwrap_or(false)
    }

    /// Shows or leaves the view; shown, the keyboard goes to its first row.
    fn show_needs_you(&self, shown: bool) {
        let imp = self.imp();
        let online = imp.snapshot.borrow().is_some();
        if shown {
            self.render_needs();
            if online {
                imp.stack.set_visible_child_name(PAGE);
            }
            let v = self.needs_you();
            if let Some(row) = v.list().row_at_index(0) {
                v.list().select_row(Some(&row));
                row.grab_focus();
            }
        } else if online {
            let empty = imp
                .snapshot
                .borrow()
                .as_ref()
                .is_some_and(|(s, _)| s.panes.is_empty());
            imp.stack
                .set_visible_child_name(if empty { "empty" } else { "panes" });
        }
        self.write_dump();
    }

    /// Rebuilds the view from the last snapshot.
    pub(super) fn render_needs(&self) {
        let queue = match self.imp().snapshot.borrow().as_ref() {
            Some((s, _)) => needs(s.panes.iter().map(|p| &p.pane), crate::system::clock::now()),
            None => Vec::new(),
        };
        self.needs_you().set(queue);
    }

    /// The view for the dump, with the header's button that shows it (`button`: whether
    /// a screen reader has a name for it, and where it lies in the window).
    pub(super) fn needs_dump(&self) -> Value {
        let imp = self.imp();
        let shown =
            self.needs_you_shown() && imp.stack.visible_child_name().as_deref() == Some(PAGE);
        let mut v = self.needs_you().dump(shown);
        let b = imp.needs_button.upcast_ref::<gtk4::Widget>();
        v["button"] = serde_json::json!({
            "named": super::a11y::is_named(b),
            "mapped": b.is_mapped(),
            "bounds": super::layout::bounds(b, self.upcast_ref()),
        });
        v
    }

    /// Leaves the view and shows `pane` ([`PanelWindow::show_pane`] leaves it).
    pub(super) fn open_from_needs(&self, pane: String) {
        self.show_pane(pane);
    }

    /// Shows the view with the reply field of `pane`'s question focused (a
    /// notification's "Reply…"); the pane alone when it takes no reply.
    pub fn reply_to(&self, pane: String) {
        self.change_action_state("needs-you", &true.to_variant());
        let v = self.needs_you();
        let index = v.queue().iter().position(|n| n.pane == pane);
        let entry = index.and_then(|k| v.entry_at(k));
        match (index, entry) {
            (Some(k), Some(e)) => {
                if let Some(row) = v.list().row_at_index(k as i32) {
                    v.list().select_row(Some(&row));
                }
                e.grab_focus();
                self.present();
            }
            _ => self.open_from_needs(pane),
        }
        self.write_dump();
    }
}
