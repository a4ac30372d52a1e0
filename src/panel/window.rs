//! The panel window: the workspace sidebar, the panes of the selected workspace and the
//! pane detail ([`layout`](super::layout): one, two or three columns by width), or an
//! empty state: the daemon is not running, or it has no panes.
//!
//! It renders the last [`Snapshot`] it received and keeps nothing else but what is on
//! screen (the selection and the sidebar order). User actions are the `win.*` actions
//! (`actions.rs` installs them), sent to the daemon as [`Request`]s; focus follows
//! [`FocusTracker`]: a pane is focused once activated or after [`DWELL`].

use super::client::{Request, Update};
use super::data::{PaneInfo, SidebarOrder, Snapshot};
use super::focus::{FocusTracker, DWELL};
use super::layout::{self, Column, Columns};
use super::pane_detail::PaneDetail;
use super::pane_row::PaneRow;
use super::workspace_row::{host_header, WorkspaceRow};
use super::{dump, shortcuts};
use adw::prelude::*;
use adw::subclass::prelude::*;
use async_channel::Sender;
use gettextrs::gettext;
use gtk4 as gtk;
use gtk4::glib;
use std::time::{Duration, Instant};

/// How often the "time since" labels are refreshed (seconds).
const AGE_EVERY: u32 = 30;
/// How often the test dump looks for a layout change (a resize), when the hook is on.
const LAYOUT_POLL: Duration = Duration::from_millis(100);

pub(super) mod imp {
    use super::*;
    use std::cell::{Cell, OnceCell, RefCell};

    #[derive(Debug, Default, gtk::CompositeTemplate)]
    #[template(file = "window.ui")]
    pub struct PanelWindow {
        #[template_child]
        pub toasts: TemplateChild<adw::ToastOverlay>,
        #[template_child]
        pub stack: TemplateChild<gtk::Stack>,
        #[template_child]
        pub offline: TemplateChild<adw::StatusPage>,
        #[template_child]
        pub empty: TemplateChild<adw::StatusPage>,
        #[template_child]
        pub back_button: TemplateChild<gtk::Button>,
        #[template_child]
        pub next_button: TemplateChild<gtk::Button>,
        #[template_child]
        pub needs_button: TemplateChild<gtk::ToggleButton>,
        #[template_child]
        pub outer: TemplateChild<adw::Leaflet>,
        #[template_child]
        pub inner: TemplateChild<adw::Leaflet>,
        #[template_child]
        pub workspaces_scroll: TemplateChild<gtk::ScrolledWindow>,
        #[template_child]
        pub panes_scroll: TemplateChild<gtk::ScrolledWindow>,
        #[template_child]
        pub workspaces: TemplateChild<gtk::ListBox>,
        #[template_child]
        pub panes: TemplateChild<gtk::ListBox>,
        #[template_child]
        pub detail: TemplateChild<PaneDetail>,
        pub requests: OnceCell<Sender<Request>>,
        /// The last snapshot and when it arrived.
        pub snapshot: RefCell<Option<(Snapshot, Instant)>>,
        pub selected_ws: RefCell<Option<String>>,
        pub selected_pane: RefCell<Option<String>>,
        /// A pane to show once the snapshot has it (`Select` before the data).
        pub pending_select: RefCell<Option<String>>,
        /// Scroll the lists to the selection at the next render (a pane was shown).
        pub scroll_pending: Cell<bool>,
        pub focus: RefCell<FocusTracker>,
        /// The dwell timer of the selected pane ([`DWELL`]).
        pub dwell: RefCell<Option<glib::SourceId>>,
        pub order: Cell<SidebarOrder>,
        /// True while the lists are rebuilt: their selection signals are ours, not the
        /// user's.
        pub rendering: Cell<bool>,
        /// The texts of the toasts shown, oldest first (for the dump).
        pub toasts_shown: RefCell<Vec<String>>,
        /// The confirmation dialog open now, if any (for the dump).
        pub dialog: RefCell<Option<adw::MessageDialog>>,
        /// The open New agent dialog (`new_agent.rs`) and its part of the dump.
        pub new_agent: RefCell<Option<(adw::Window, dump::Part)>>,
        /// The layout last written to the dump.
        pub dumped_layout: RefCell<serde_json::Value>,
        /// The Needs you view, once made (`needs_you.rs`).
        pub needs_you: OnceCell<super::super::needs_you::NeedsYou>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for PanelWindow {
        const NAME: &str = "AttendPanelWindow";
        type Type = super::PanelWindow;
        type ParentType = adw::ApplicationWindow;

        fn class_init(klass: &mut Self::Class) {
            PaneDetail::ensure_type();
            klass.bind_template();
        }

        fn instance_init(obj: &glib::subclass::InitializingObject<Self>) {
            obj.init_template();
        }
    }

    impl ObjectImpl for PanelWindow {
        fn constructed(&self) {
            self.parent_constructed();
            self.obj().setup();
        }
    }

    impl WidgetImpl for PanelWindow {}

    impl WindowImpl for PanelWindow {
        fn close_request(&self) -> glib::Propagation {
            self.obj().release_focus();
            self.parent_close_request()
        }
    }

    impl ApplicationWindowImpl for PanelWindow {}
    impl AdwApplicationWindowImpl for PanelWindow {}
}

glib::wrapper! {
    /// The panel's one window.
    pub struct PanelWindow(ObjectSubclass<imp::PanelWindow>)
        @extends adw::ApplicationWindow, gtk::ApplicationWindow, gtk::Window, gtk::Widget,
        @implements gtk::gio::ActionGroup, gtk::gio::ActionMap, gtk::Buildable,
            gtk::ConstraintTarget, gtk::Native, gtk::Root, gtk::ShortcutManager;
}

impl PanelWindow {
    /// A window of `app` that sends its requests on `requests`.
    pub fn new(app: &adw::Application, requests: Sender<Request>) -> PanelWindow {
        let w: PanelWindow = glib::Object::builder().property("application", app).build();
        let _ = w.imp().requests.set(requests);
        w.set_help_overlay(Some(&shortcuts::window()));
        if let Some(overlay) = w.help_overlay() {
            let weak = w.downgrade();
            overlay.connect_visible_notify(move |_| {
                if let Some(w) = weak.upgrade() {
                    w.write_dump();
                }
            });
        }
        w
    }

    pub(super) fn send(&self, r: Request) {
        if let Some(tx) = self.imp().requests.get() {
            let _ = tx.try_send(r);
        }
    }

    pub(super) fn toast(&self, text: &str) {
        self.imp().toasts_shown.borrow_mut().push(text.to_string());
        self.write_dump();
        self.imp().toasts.add_toast(adw::Toast::new(text));
    }

    /// Enables or disables the window action `name` (installed by `actions.rs`).
    pub(super) fn set_action_enabled(&self, name: &str, enabled: bool) {
        if let Some(a) = self
            .lookup_action(name)
            .and_downcast::<gtk::gio::SimpleAction>()
        {
            a.set_enabled(enabled);
        }
    }

    /// The window's leaflets and columns.
    fn columns(&self) -> Columns {
        let imp = self.imp();
        Columns {
            outer: imp.outer.get(),
            inner: imp.inner.get(),
            workspaces: imp.workspaces_scroll.get().upcast(),
            panes: imp.panes_scroll.get().upcast(),
            detail: imp.detail.get().upcast(),
        }
    }

    /// Shows `column` in a folded window.
    fn show_column(&self, column: Column) {
        self.columns().show(column);
        self.sync_back_button();
    }

    /// Moves a folded window one column back; false when there is nothing to go back to.
    pub(super) fn go_back(&self) -> bool {
        let moved = self.columns().go_back();
        self.sync_back_button();
        moved
    }

    /// Shows the header's back button exactly when there is a column to go back to.
    fn sync_back_button(&self) {
        let back = self.columns().back_target().is_some();
        self.imp().back_button.set_visible(back);
    }

    /// The layout for the dump, with the detail's action buttons.
    fn layout_dump(&self) -> serde_json::Value {
        let buttons = self.imp().detail.action_buttons();
        let mut v = self.columns().dump(self.upcast_ref(), &buttons);
        v["back_visible"] = self.imp().back_button.is_visible().into();
        v
    }

    /// The detail's live terminal.
    pub(super) fn terminal(&self) -> super::pane_terminal::PaneTerminal {
        self.imp().detail.terminal()
    }

    /// Shows the detail column (a folded window shows one column).
    pub(super) fn show_detail(&self) {
        self.show_column(Column::Detail);
    }

    /// Moves the keyboard focus to the selected pane's row (out of its terminal).
    pub(super) fn focus_pane_list(&self) {
        let imp = self.imp();
        self.show_column(Column::Panes);
        match imp.panes.selected_row() {
            Some(row) => row.grab_focus(),
            None => imp.panes.grab_focus(),
        };
    }

    /// The selected pane as the daemon last reported it.
    pub(super) fn selected_info(&self) -> Option<PaneInfo> {
        let imp = self.imp();
        let selected = imp.selected_pane.borrow().clone()?;
        let snap = imp.snapshot.borrow();
        snap.as_ref().and_then(|(s, _)| s.pane(&selected).cloned())
    }

    fn setup(&self) {
        let imp = self.imp();
        let weak = self.downgrade();
        imp.workspaces.connect_row_selected(move |_, row| {
            let (Some(w), Some(row)) = (weak.upgrade(), row) else {
                return;
            };
            if w.imp().rendering.get() {
                return;
            }
            if !w.columns().is_shown(Column::Workspaces) {
                // Not the user: GTK moving the focus out of a column a folded window hid.
                w.render();
                return;
            }
            if let Some(row) = row.downcast_ref::<WorkspaceRow>() {
                w.select_workspace(row.key());
            }
        });
        let weak = self.downgrade();
        imp.workspaces.connect_row_activated(move |_, _| {
            if let Some(w) = weak.upgrade() {
                w.show_column(Column::Panes);
            }
        });
        let weak = self.downgrade();
        imp.panes.connect_row_selected(move |_, row| {
            let Some(w) = weak.upgrade() else { return };
            if w.imp().rendering.get() {
                return;
            }
            if !w.columns().is_shown(Column::Panes) {
                // Not the user: GTK moving the focus out of a column a folded window hid.
                w.render();
                return;
            }
            let pane = row
                .and_then(|r| r.downcast_ref::<PaneRow>())
                .map(|r| r.pane_id());
            w.select_pane(pane);
        });
        let weak = self.downgrade();
        imp.panes.connect_row_activated(move |_, row| {
            let (Some(w), Some(row)) = (weak.upgrade(), row.downcast_ref::<PaneRow>()) else {
                return;
            };
            w.activate_pane(&row.pane_id());
        });
        imp.panes.set_header_func(|row, before| {
            let tab = |r: &gtk::ListBoxRow| r.downcast_ref::<PaneRow>().map(|r| r.tab());
            let this = tab(row);
            if before.and_then(tab) == this {
                row.set_header(None::<&gtk::Widget>);
                return;
            }
            let text = gettext("Tab {tab}").replace("{tab}", &this.unwrap_or_default());
            let label = gtk::Label::new(Some(&text));
            label.set_xalign(0.0);
            label.set_margin_top(6);
            label.set_margin_start(6);
            label.add_css_class("heading");
            label.add_css_class("dim-label");
            row.set_header(Some(&label));
        });
        let weak = self.downgrade();
        imp.workspaces.set_header_func(move |row, before| {
            if let Some(w) = weak.upgrade() {
                w.host_header(row, before);
            }
        });
        self.connect_is_active_notify(|w| {
            w.sync_focus();
            w.write_dump();
        });
        let weak = self.downgrade();
        self.columns().watch(move || {
            if let Some(w) = weak.upgrade() {
                w.sync_back_button();
            }
        });
        let weak = self.downgrade();
        glib::timeout_add_seconds_local(AGE_EVERY, move || {
            let Some(w) = weak.upgrade() else {
                return glib::ControlFlow::Break;
            };
            w.refresh_ages();
            glib::ControlFlow::Continue
        });
        if dump::path().is_some() {
            let weak = self.downgrade();
            glib::timeout_add_local(LAYOUT_POLL, move || {
                let Some(w) = weak.upgrade() else {
                    return glib::ControlFlow::Break;
                };
                if *w.imp().dumped_layout.borrow() != w.layout_dump() {
                    w.write_dump();
                }
                glib::ControlFlow::Continue
            });
        }
        imp.stack.set_visible_child_name("offline");
    }

    /// Applies one update from the D-Bus client.
    pub fn apply(&self, u: Update) {
        let imp = self.imp();
        match u {
            Update::Offline => {
                imp.snapshot.replace(None);
                imp.focus.borrow_mut().forget();
                // Nothing of the gone daemon stays on screen (or in the a11y tree); the
                // selection is kept to be restored when it is back.
                imp.rendering.set(true);
                sync_rows(
                    &imp.workspaces,
                    &[],
                    |_: &&()| String::new(),
                    WorkspaceRow::key,
                    |_, _| {},
                );
                sync_rows(
                    &imp.panes,
                    &[],
                    |_: &&()| String::new(),
                    PaneRow::pane_id,
                    |_, _| {},
                );
                imp.detail.set(None);
                imp.rendering.set(false);
                imp.stack.set_visible_child_name("offline");
                self.set_action_enabled("next-unread", false);
                self.write_dump();
            }
            Update::Snapshot(s) => {
                let page = match (self.needs_you_shown(), s.panes.is_empty()) {
                    (true, _) => super::needs_you::PAGE,
                    (false, true) => "empty",
                    (false, false) => "panes",
                };
                imp.snapshot.replace(Some((s, Instant::now())));
                self.render_needs();
                imp.stack.set_visible_child_name(page);
                self.set_action_enabled("next-unread", true);
                self.render();
                // A pane asked for is shown by the first snapshot that has it, or dropped.
                imp.pending_select.replace(None);
                imp.scroll_pending.set(false);
            }
            Update::AttachSocket { pane, socket } => imp.detail.terminal().on_socket(&pane, socket),
            Update::Select(pane) => self.show_pane(pane),
            Update::NothingUnread => self.toast(&gettext("Nothing needs you right now")),
            Update::Failed(message) => self.toast(&message),
            // The application quits on it (app.rs).
            Update::Quit => {}
        }
    }

    /// Shows `pane`: its workspace and the pane selected and scrolled to in their lists,
    /// the detail column shown (Needs you left: it would cover it), the pane focused (an
    /// explicit request: `attend focus`, a notification, "Next Unread", a new agent), and
    /// the window raised.
    pub fn show_pane(&self, pane: String) {
        if self.needs_you_shown() {
            self.change_action_state("needs-you", &false.to_variant());
        }
        self.imp().pending_select.replace(Some(pane));
        self.imp().scroll_pending.set(true);
        self.render();
        self.show_column(Column::Detail);
        self.present();
    }

    /// The user activated `pane` (Enter or a click on its row, or the keyboard focus
    /// went into its terminal): it is focused at once.
    pub(super) fn activate_pane(&self, pane: &str) {
        self.cancel_dwell();
        self.imp().focus.borrow_mut().engage(pane);
        self.show_column(Column::Detail);
        self.sync_focus();
        self.write_dump();
    }

    fn select_workspace(&self, key: String) {
        let imp = self.imp();
        imp.selected_ws.replace(Some(key));
        self.render();
    }

    /// The selection moved to `pane` (the keyboard, a click before its activation, or
    /// Escape): rendered, and focused only after [`DWELL`].
    pub(super) fn select_pane(&self, pane: Option<String>) {
        let changed = *self.imp().selected_pane.borrow() != pane;
        self.imp().selected_pane.replace(pane.clone());
        self.render();
        if changed {
            self.start_dwell(pane);
        }
    }

    fn cancel_dwell(&self) {
        if let Some(id) = self.imp().dwell.take() {
            id.remove();
        }
    }

    /// Engages `pane` when it is still selected after [`DWELL`].
    fn start_dwell(&self, pane: Option<String>) {
        self.cancel_dwell();
        let Some(pane) = pane else { return };
        let weak = self.downgrade();
        let id = glib::timeout_add_local_once(DWELL, move || {
            let Some(w) = weak.upgrade() else { return };
            let imp = w.imp();
            // The source has fired: forget its id without removing it.
            imp.dwell.take();
            if imp.selected_pane.borrow().as_deref() == Some(pane.as_str()) {
                imp.focus.borrow_mut().engage(&pane);
                w.sync_focus();
                w.write_dump();
            }
        });
        self.imp().dwell.replace(Some(id));
    }

    /// Tells the daemon the selected pane is no longer focused (the window closes or the
    /// application quits).
    pub fn release_focus(&self) {
        let reqs = self.imp().focus.borrow_mut().sync(None, false);
        for r in reqs {
            self.send(r);
        }
    }

    /// Reports focus for the selected pane when it is engaged and the window is active
    /// (`docs/lifecycle-attention.md#focus`).
    fn sync_focus(&self) {
        let imp = self.imp();
        let Some(gone) = imp.snapshot.borrow().as_ref().map(|(snap, _)| {
            let reported = imp.focus.borrow().reported().map(str::to_string);
            reported.is_some_and(|p| snap.pane(&p).is_none())
        }) else {
            return;
        };
        if gone {
            // The focused pane was removed: the daemon forgot it, nothing to withdraw.
            imp.focus.borrow_mut().forget();
        }
        let selected = imp.selected_pane.borrow().clone();
        let reqs = imp
            .focus
            .borrow_mut()
            .sync(selected.as_deref(), self.is_active());
        for r in reqs {
            self.send(r);
        }
    }

    /// Orders the sidebar by `order` and renders.
    pub(super) fn set_order(&self, order: SidebarOrder) {
        self.imp().order.set(order);
        self.render();
    }

    /// Renders the snapshot with the current selection.
    fn render(&self) {
        let imp = self.imp();
        let guard = imp.snapshot.borrow();
        let Some((snap, read_at)) = guard.as_ref() else {
            return;
        };
        imp.rendering.set(true);
        if let Some(p) = imp.pending_select.take() {
            match snap.pane(&p) {
                Some(info) => {
                    imp.selected_ws.replace(Some(info.workspace.clone()));
                    imp.selected_pane.replace(Some(p.clone()));
                    self.cancel_dwell();
                    imp.focus.borrow_mut().engage(&p);
                }
                None => {
                    imp.pending_select.replace(Some(p));
                }
            }
        }
        let workspaces = snap.sidebar(imp.order.get());
        let ws = imp
            .selected_ws
            .borrow()
            .clone()
            .filter(|k| snap.workspace(k).is_some())
            .or_else(|| workspaces.first().map(|w| w.key.clone()));
        imp.selected_ws.replace(ws.clone());
        let pane = imp
            .selected_pane
            .borrow()
            .clone()
            .filter(|p| snap.pane(p).map(|i| Some(&i.workspace)) == Some(ws.as_ref()));
        imp.selected_pane.replace(pane.clone());

        sync_rows(
            &imp.workspaces,
            &workspaces,
            |w| w.key.clone(),
            |r: &WorkspaceRow| r.key(),
            |r, w| r.set(w, *read_at),
        );
        let ws_row = select_row(&imp.workspaces, |r: &WorkspaceRow| Some(r.key()) == ws);
        let panes: Vec<_> = ws
            .as_deref()
            .map(|k| snap.panes_of(k).collect())
            .unwrap_or_default();
        sync_rows(
            &imp.panes,
            &panes,
            |p| p.id.clone(),
            |r: &PaneRow| r.pane_id(),
            |r, p| r.set(p),
        );
        imp.workspaces.invalidate_headers();
        imp.panes.invalidate_headers();
        let pane_row = select_row(&imp.panes, |r: &PaneRow| Some(r.pane_id()) == pane);
        imp.detail.set(pane.as_deref().and_then(|p| snap.pane(p)));
        imp.rendering.set(false);
        drop(guard);
        if pane.is_some() && imp.scroll_pending.take() {
            if let Some(row) = &ws_row {
                layout::scroll_into_view(&imp.workspaces_scroll, row);
            }
            if let Some(row) = &pane_row {
                layout::scroll_into_view(&imp.panes_scroll, row);
                row.grab_focus();
            }
        }
        self.sync_focus();
        self.write_dump();
    }

    /// The host header above sidebar row `row` ([`host_header`]).
    fn host_header(&self, row: &gtk::ListBoxRow, before: Option<&gtk::ListBoxRow>) {
        let snap = self.imp().snapshot.borrow();
        let hosts = snap
            .as_ref()
            .map(|(s, _)| s.hosts.as_slice())
            .unwrap_or(&[]);
        host_header(row, before, hosts);
    }

    fn refresh_ages(&self) {
        let list = &self.imp().workspaces;
        let mut i = 0;
        while let Some(row) = list.row_at_index(i) {
            if let Some(r) = row.downcast_ref::<WorkspaceRow>() {
                r.refresh_age();
            }
            i += 1;
        }
        self.write_dump();
    }

    /// Writes what the widgets display to `$ATTEND_PANEL_DUMP` (the tests' hook).
    pub(super) fn write_dump(&self) {
        let Some(path) = dump::path() else { return };
        let imp = self.imp();
        let rows = |list: &gtk::ListBox, scrolled: &gtk::ScrolledWindow| {
            let mut out = Vec::new();
            let mut i = 0;
            while let Some(row) = list.row_at_index(i) {
                let mut v = if let Some(r) = row.downcast_ref::<WorkspaceRow>() {
                    r.dump()
                } else if let Some(r) = row.downcast_ref::<PaneRow>() {
                    r.dump()
                } else {
                    serde_json::Value::Null
                };
                v["in_view"] = layout::in_view(row.upcast_ref(), scrolled).into();
                out.push(v);
                i += 1;
            }
            out
        };
        let page = imp.stack.visible_child_name();
        let online = page.as_deref() != Some("offline");
        let seq = imp.snapshot.borrow().as_ref().map(|(s, _)| s.seq);
        let layout = self.layout_dump();
        imp.dumped_layout.replace(layout.clone());
        let dialog = imp.dialog.borrow().as_ref().map(|d| {
            serde_json::json!({
                "heading": d.heading().map(|h| h.to_string()),
                "visible": d.is_visible(),
            })
        });
        let value = serde_json::json!({
            "state": if online { "online" } else { "offline" },
            "seq": seq,
            "offline": {
                "visible": !online,
                "title": imp.offline.title().to_string(),
                "description": imp.offline.description().map(|d| d.to_string()),
            },
            "empty": {
                "visible": page.as_deref() == Some("empty"),
                "title": imp.empty.title().to_string(),
                "description": imp.empty.description().map(|d| d.to_string()),
            },
            "window": {"active": self.is_active(), "title": self.title().map(|t| t.to_string())},
            "next_unread": {
                "tooltip": imp.next_button.tooltip_text().map(|t| t.to_string()),
                "sensitive": imp.next_button.is_sensitive(),
            },
            "sort": match imp.order.get() {
                SidebarOrder::Attention => "attention",
                SidebarOrder::Name => "name",
            },
            "focus_reported": imp.focus.borrow().reported(),
            "focus_engaged": imp.focus.borrow().engaged(),
            "toasts": imp.toasts_shown.borrow().clone(),
            "dialog": dialog,
            "new_agent": imp.new_agent.borrow().as_ref().map(|(_, part)| (part.0)()),
            "shortcuts": shortcuts::dump(self.help_overlay().as_ref()),
            "layout": layout,
            "workspaces": rows(&imp.workspaces, &imp.workspaces_scroll),
            "panes": rows(&imp.panes, &imp.panes_scroll),
            "detail": imp.detail.dump(),
            "needs_you": self.needs_dump(),
        });
        dump::write(&path, &value);
    }
}

/// Makes the rows of `list` show `items`: updated in place when the ids are the same
/// (keyboard focus stays), rebuilt otherwise.
fn sync_rows<T, R>(
    list: &gtk::ListBox,
    items: &[&T],
    id: impl Fn(&&T) -> String,
    row_id: impl Fn(&R) -> String,
    set: impl Fn(&R, &T),
) where
    R: IsA<gtk::ListBoxRow> + IsA<gtk::Widget> + Default,
{
    let mut rows = Vec::new();
    let mut i = 0;
    while let Some(row) = list.row_at_index(i) {
        if let Some(r) = row.downcast_ref::<R>() {
            rows.push(r.clone());
        }
        i += 1;
    }
    let same = rows.len() == items.len() && rows.iter().zip(items).all(|(r, t)| row_id(r) == id(t));
    if same {
        for (r, t) in rows.iter().zip(items) {
            set(r, t);
        }
        return;
    }
    while let Some(row) = list.row_at_index(0) {
        list.remove(&row);
    }
    for t in items {
        let r = R::default();
        set(&r, t);
        list.append(&r);
    }
}

/// Selects the first row for which `pick` holds (and returns it), or none.
fn select_row<R: IsA<gtk::ListBoxRow>>(
    list: &gtk::ListBox,
    pick: impl Fn(&R) -> bool,
) -> Option<gtk::Widget> {
    let mut i = 0;
    while let Some(row) = list.row_at_index(i) {
        if row.downcast_ref::<R>().is_some_and(&pick) {
            if !row.is_selected() {
                list.select_row(Some(&row));
            }
            return Some(row.upcast());
        }
        i += 1;
    }
    list.unselect_all();
    None
}
