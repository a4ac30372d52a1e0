//! The Needs you view (`docs/desktop-surfaces.md#needs-you`): every open decision of
//! this machine's and the online remote hosts' panes in one list, worst first then the
//! one that has waited longest ([`crate::client::needs`], the queue `attend needs` and the
//! tray show). A page of the window's stack, toggled by `win.needs-you` (Ctrl+Shift+A,
//! the header's button); the list is rebuilt from each snapshot.
//!
//! Each row: where the decision is (`host › workspace › pane`), its severity and how long
//! it has waited, its prompt, its choices as buttons (a dialog's options numbered as the
//! agent draws them), Open, and for a question that takes free text a reply field
//! ([`crate::client::needs::reply_mode`]; Enter sends it). Keys on a row are
//! [`super::needs_keys::row_key`]'s. Empty, it says nothing waits.

use super::a11y;
use super::layout::bounds;
use super::needs_keys::{row_key, RowKey};
use crate::adapters::terminal_signals::sanitize_text;
use crate::client::needs::{is_free_text_label, waited_text, Need, ReplyMode};
use adw::prelude::*;
use gettextrs::gettext;
use gtk4 as gtk;
use gtk4::{gdk, glib};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// The stack page's name.
pub const PAGE: &str = "needs";

/// The view's widgets and the queue it shows.
#[derive(Clone, Default)]
pub struct NeedsYou(Rc<Inner>);

impl std::fmt::Debug for NeedsYou {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NeedsYou")
            .field("needs", &self.0.needs.borrow().len())
            .finish()
    }
}

#[derive(Default)]
struct Inner {
    /// `list` or `empty`.
    stack: gtk::Stack,
    list: gtk::ListBox,
    empty: adw::StatusPage,
    /// The queue shown, one row each, in order.
    needs: RefCell<Vec<Need>>,
    /// Per row: its widgets.
    rows: RefCell<Vec<RowWidgets>>,
}

/// The widgets of one row the view updates or reports.
struct RowWidgets {
    /// "waited 4m".
    waited: gtk::Label,
    /// The reply field, on a question that takes free text.
    entry: Option<gtk::Entry>,
    /// Its controls in order (answer buttons, Open, the reply field), each with its
    /// kind (`answer`, `open`, `reply`), for the dump.
    controls: Vec<(&'static str, gtk::Widget)>,
}

impl NeedsYou {
    /// The view's root widget (the stack page's child).
    pub fn widget(&self) -> gtk::Widget {
        self.0.stack.clone().upcast()
    }

    /// Builds the widgets. Everything a row asks of the window goes through the window's
    /// actions (`win.answer`, `win.needs-open`, `win.needs-reply`, `win.needs-toast`).
    pub(super) fn build(&self) {
        let i = &self.0;
        i.list.set_selection_mode(gtk::SelectionMode::Single);
        i.list.add_css_class("boxed-list");
        a11y::set_label(&i.list, &gettext("Decisions waiting for you"));
        let clamp = adw::Clamp::new();
        clamp.set_maximum_size(900);
        clamp.set_margin_top(12);
        clamp.set_margin_bottom(12);
        clamp.set_margin_start(12);
        clamp.set_margin_end(12);
        clamp.set_child(Some(&i.list));
        let scroll = gtk::ScrolledWindow::new();
        scroll.set_hscrollbar_policy(gtk::PolicyType::Never);
        scroll.set_vexpand(true);
        scroll.set_child(Some(&clamp));
        i.empty.set_icon_name(Some("emblem-ok-symbolic"));
        i.empty.set_title(&gettext("Nothing waits"));
        i.empty.set_description(Some(&gettext(
            "No permission request or question is open on any pane.",
        )));
        i.stack.add_named(&scroll, Some("list"));
        i.stack.add_named(&i.empty, Some("empty"));
        i.stack.set_visible_child_name("empty");

        i.list.connect_row_activated(|list, row| {
            if let Some(pane) = row.widget_name().strip_prefix("needs:") {
                let _ = list.activate_action("win.needs-open", Some(&pane.to_variant()));
            }
        });
        let keys = gtk::EventControllerKey::new();
        let this = self.downgrade();
        keys.connect_key_pressed(move |_, key, _, mods| {
            let Some(v) = this.upgrade().map(NeedsYou) else {
                return glib::Propagation::Proceed;
            };
            if mods.intersects(
                gdk::ModifierType::CONTROL_MASK
                    | gdk::ModifierType::ALT_MASK
                    | gdk::ModifierType::SUPER_MASK,
            ) {
                return glib::Propagation::Proceed;
            }
            match key.to_unicode() {
                Some(c) if v.key(c) => glib::Propagation::Stop,
                _ => glib::Propagation::Proceed,
            }
        });
        i.list.add_controller(keys);
    }

    /// A weak handle (for the widgets' closures).
    fn downgrade(&self) -> std::rc::Weak<Inner> {
        Rc::downgrade(&self.0)
    }

    /// Key `c` on the focused row ([`row_key`]), carried out through the window's
    /// actions; true when it acted.
    fn key(&self, c: char) -> bool {
        let Some(row) = self.current_row() else {
            return false;
        };
        let Some(n) = self.need_at(row.index()) else {
            return false;
        };
        let no_choice = gettext("This decision has no “{choice}”");
        let no_option = gettext("This decision has no option {n}");
        let no_reply = gettext("This decision takes no typed reply");
        let list = &self.0.list;
        match row_key(&n, c, (&no_choice, &no_option, &no_reply)) {
            None => return false,
            Some(RowKey::Answer { pane, choice }) => {
                let target = (pane.as_str(), choice.as_str()).to_variant();
                let _ = list.activate_action("win.answer", Some(&target));
            }
            Some(RowKey::Open(pane)) => {
                let _ = list.activate_action("win.needs-open", Some(&pane.to_variant()));
            }
            Some(RowKey::Reply) => {
                let rows = self.0.rows.borrow();
                if let Some(e) = rows
                    .get(row.index() as usize)
                    .and_then(|r| r.entry.as_ref())
                {
                    e.grab_focus();
                }
                let _ = list.activate_action("win.needs-toast", Some(&"".to_variant()));
            }
            Some(RowKey::Refused(m)) => {
                let _ = list.activate_action("win.needs-toast", Some(&m.to_variant()));
            }
        }
        true
    }

    /// The list of rows.
    pub(super) fn list(&self) -> &gtk::ListBox {
        &self.0.list
    }

    /// The queue shown.
    pub(super) fn queue(&self) -> Vec<Need> {
        self.0.needs.borrow().clone()
    }

    /// The reply field of row `index`, if it has one.
    pub(super) fn entry_at(&self, index: usize) -> Option<gtk::Entry> {
        self.0
            .rows
            .borrow()
            .get(index)
            .and_then(|r| r.entry.clone())
    }

    /// The decision of row `index`.
    fn need_at(&self, index: i32) -> Option<Need> {
        let i = usize::try_from(index).ok()?;
        self.0.needs.borrow().get(i).cloned()
    }

    /// The row that holds the keyboard focus (or the selected one).
    fn current_row(&self) -> Option<gtk::ListBoxRow> {
        let list = &self.0.list;
        list.focus_child()
            .and_downcast::<gtk::ListBoxRow>()
            .or_else(|| list.selected_row())
    }

    /// Shows `queue`: rows rebuilt when the decisions changed, else only their ages.
    pub(super) fn set(&self, queue: Vec<Need>) {
        let i = &self.0;
        let same = {
            let old = i.needs.borrow();
            old.len() == queue.len()
                && old.iter().zip(&queue).all(|(a, b)| {
                    (
                        &a.pane,
                        a.decision.id,
                        &a.decision.choices,
                        &a.decision.options,
                    ) == (
                        &b.pane,
                        b.decision.id,
                        &b.decision.choices,
                        &b.decision.options,
                    )
                })
        };
        i.stack
            .set_visible_child_name(if queue.is_empty() { "empty" } else { "list" });
        if same {
            for (r, n) in i.rows.borrow().iter().zip(&queue) {
                r.waited.set_text(&waited_label(n));
            }
            i.needs.replace(queue);
            return;
        }
        let focused = self.current_row().map(|r| r.index()).unwrap_or(0);
        let had_focus = self.current_row().is_some_and(|r| r.has_focus());
        while let Some(row) = i.list.row_at_index(0) {
            i.list.remove(&row);
        }
        let mut rows = Vec::new();
        for n in &queue {
            let (row, widgets) = row_of(n);
            i.list.append(&row);
            rows.push(widgets);
        }
        i.rows.replace(rows);
        i.needs.replace(queue);
        let n = i.needs.borrow().len() as i32;
        if n > 0 {
            if let Some(row) = i.list.row_at_index(focused.min(n - 1)) {
                i.list.select_row(Some(&row));
                if had_focus {
                    row.grab_focus();
                }
            }
        }
    }

    /// What the view displays, for `ATTEND_PANEL_DUMP`: per row what it says, and each
    /// of its controls with its text, its label for screen readers and where it lies in
    /// the window (`[x, y, width, height]`).
    pub(super) fn dump(&self, visible: bool) -> Value {
        let i = &self.0;
        let root = i.list.root().map(|r| r.upcast::<gtk::Widget>());
        let rows: Vec<Value> = i
            .needs
            .borrow()
            .iter()
            .zip(i.rows.borrow().iter())
            .enumerate()
            .map(|(k, (n, w))| {
                let row = i.list.row_at_index(k as i32);
                let (waited, entry) = (&w.waited, &w.entry);
                let at = |x: &gtk::Widget| root.as_ref().and_then(|r| bounds(x, r));
                let controls: Vec<Value> = w
                    .controls
                    .iter()
                    .map(|(kind, c)| {
                        let text = match c.downcast_ref::<gtk::Button>() {
                            Some(b) => b.label().map(|l| l.to_string()),
                            None => c
                                .downcast_ref::<gtk::Entry>()
                                .and_then(|e| e.placeholder_text())
                                .map(|t| t.to_string()),
                        };
                        json!({
                            "kind": kind,
                            "text": text,
                            "accessible_label": a11y::label(c),
                            "mapped": c.is_mapped(),
                            "bounds": at(c),
                        })
                    })
                    .collect();
                json!({
                    "pane": n.pane,
                    "where": n.place,
                    "severity": n.severity.as_str(),
                    "prompt": n.decision.prompt,
                    "waited": waited.text().to_string(),
                    "buttons": buttons_of(n).into_iter().map(|(l, _)| l).collect::<Vec<_>>(),
                    "reply": entry.is_some(),
                    "reply_focused": entry.as_ref().is_some_and(|e| e.has_focus()
                        || e.focus_child().is_some_and(|c| c.has_focus())),
                    "focused": row.as_ref().is_some_and(|r| r.has_focus()),
                    "accessible_label": row.as_ref().and_then(a11y::label),
                    "bounds": row.as_ref().and_then(|r| at(r.upcast_ref())),
                    "controls": controls,
                })
            })
            .collect();
        json!({
            "visible": visible,
            "accessible_label": a11y::label(&i.list),
            "empty": {
                "visible": visible && i.needs.borrow().is_empty(),
                "title": i.empty.title().to_string(),
            },
            "rows": rows,
        })
    }
}

/// "waited 4m".
fn waited_label(n: &Need) -> String {
    gettext("waited {time}").replace("{time}", &waited_text(n.waited_ms))
}

/// The buttons of `n`'s row: (label, choice answered). Its choices by name when the
/// daemon lists them; else its options, numbered as the agent draws them, but for the
/// option that takes typed text (Claude's "Type something."): the reply field is its.
fn buttons_of(n: &Need) -> Vec<(String, String)> {
    let d = &n.decision;
    if !d.choices.is_empty() {
        return d
            .choices
            .iter()
            .map(|c| (sanitize_text(c, 60), c.clone()))
            .collect();
    }
    d.options
        .iter()
        .enumerate()
        .filter(|(_, o)| !is_free_text_label(o))
        .map(|(k, o)| {
            (
                format!("{}. {}", k + 1, sanitize_text(o, 60)),
                (k + 1).to_string(),
            )
        })
        .collect()
}

/// One row: its widget and the widgets the view keeps.
fn row_of(n: &Need) -> (gtk::ListBoxRow, RowWidgets) {
    let row = gtk::ListBoxRow::new();
    row.set_widget_name(&format!("needs:{}", n.pane));
    let body = gtk::Box::new(gtk::Orientation::Vertical, 6);
    body.set_margin_top(8);
    body.set_margin_bottom(8);
    body.set_margin_start(10);
    body.set_margin_end(10);

    let head = gtk::Box::new(gtk::Orientation::Horizontal, 8);
    let place = gtk::Label::new(Some(&n.place));
    place.add_css_class("heading");
    place.set_xalign(0.0);
    place.set_hexpand(true);
    place.set_ellipsize(gtk::pango::EllipsizeMode::Middle);
    let severity = gtk::Label::new(Some(&super::labels::attention(n.severity)));
    severity.add_css_class("dim-label");
    severity.add_css_class(&format!("attention-{}", n.severity.as_str()));
    let waited = gtk::Label::new(Some(&waited_label(n)));
    waited.add_css_class("dim-label");
    waited.add_css_class("numeric");
    head.append(&place);
    head.append(&severity);
    head.append(&waited);
    body.append(&head);

    let prompt = gtk::Label::new(Some(&sanitize_text(&n.decision.prompt, 600)));
    prompt.set_xalign(0.0);
    prompt.set_wrap(true);
    prompt.set_wrap_mode(gtk::pango::WrapMode::WordChar);
    prompt.set_lines(4);
    prompt.set_ellipsize(gtk::pango::EllipsizeMode::End);
    body.append(&prompt);

    let buttons = gtk::FlowBox::new();
    buttons.set_selection_mode(gtk::SelectionMode::None);
    buttons.set_max_children_per_line(8);
    buttons.set_column_spacing(6);
    buttons.set_row_spacing(6);
    let mut controls: Vec<(&'static str, gtk::Widget)> = Vec::new();
    for (label, choice) in buttons_of(n) {
        let b = gtk::Button::with_label(&label);
        b.set_action_name(Some("win.answer"));
        b.set_action_target_value(Some(&(n.pane.as_str(), choice.as_str()).to_variant()));
        let spoken = gettext("Answer “{choice}” to {pane}")
            .replace("{choice}", &label)
            .replace("{pane}", &n.place);
        a11y::set_label(&b, &spoken);
        b.set_tooltip_text(Some(&spoken));
        buttons.insert(&b, -1);
        controls.push(("answer", b.upcast()));
    }
    let open = gtk::Button::with_label(&gettext("Open"));
    open.set_action_name(Some("win.needs-open"));
    open.set_action_target_value(Some(&n.pane.to_variant()));
    open.add_css_class("flat");
    let spoken = gettext("Open {pane} (O)").replace("{pane}", &n.place);
    a11y::set_label(&open, &spoken);
    open.set_tooltip_text(Some(&spoken));
    buttons.insert(&open, -1);
    controls.push(("open", open.upcast()));
    body.append(&buttons);

    let entry = n.reply.as_ref().map(|mode| {
        let e = gtk::Entry::new();
        e.set_placeholder_text(Some(&gettext("Reply… (R, Enter sends)")));
        a11y::set_label(&e, &gettext("Reply to {pane}").replace("{pane}", &n.place));
        let (pane, mode) = (n.pane.clone(), mode.clone());
        e.connect_activate(move |e| {
            let text = e.text().to_string();
            if text.trim().is_empty() {
                return;
            }
            let pick = match &mode {
                ReplyMode::Type => String::new(),
                ReplyMode::PickThenType { label } => label.clone(),
            };
            let target = (pane.as_str(), pick.as_str(), text.as_str()).to_variant();
            if e.activate_action("win.needs-reply", Some(&target)).is_ok() {
                e.set_text("");
            }
        });
        body.append(&e);
        controls.push(("reply", e.clone().upcast()));
        e
    });
    row.set_child(Some(&body));
    a11y::set_label(
        &row,
        &gettext("{pane}, {severity}, {waited}: {prompt}")
            .replace("{pane}", &n.place)
            .replace("{severity}", &super::labels::attention(n.severity))
            .replace("{waited}", &waited_label(n))
            .replace("{prompt}", &sanitize_text(&n.decision.prompt, 200)),
    );
    (
        row,
        RowWidgets {
            waited,
            entry,
            controls,
        },
    )
}
