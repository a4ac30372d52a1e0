//! The panel window: the workspace sidebar, the panes of the selected workspace and the
//! pane detail, or the empty state while the daemon is not running.
//!
//! It renders the last [`Snapshot`] it received and keeps nothing else but what is on
//! screen (the selection). User actions are the `win.*` actions, sent to the daemon as
//! [`Request`]s; focus follows [`FocusTracker`].

use super::client::{Request, Update};
use super::data::Snapshot;
use super::focus::FocusTracker;
use super::pane_detail::PaneDetail;
use super::pane_row::PaneRow;
use super::workspace_row::WorkspaceRow;
use super::{dump, terminal};
use adw::prelude::*;
use adw::subclass::prelude::*;
use async_channel::Sender;
use gettextrs::gettext;
use gtk4 as gtk;
use gtk4::{gio, glib};
use std::time::Instant;

/// How often the screen preview of the selected pane is read (seconds).
const SCREEN_EVERY: u32 = 1;
/// How often the "time since" labels are refreshed (seconds).
const AGE_EVERY: u32 = 30;

mod imp {
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
        pub next_button: TemplateChild<gtk::Button>,
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
        pub focus: RefCell<FocusTracker>,
        /// True while the lists are rebuilt: their selection signals are ours, not the
        /// user's.
        pub rendering: Cell<bool>,
        /// False once the daemon answered that it has no `GetScreen`.
        pub no_screen: Cell<bool>,
        /// The texts of the toasts shown, oldest first (for the dump).
        pub toasts_shown: RefCell<Vec<String>>,
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

/// The window's actions, in its action map (so GTK exports them on D-Bus at
/// `/io/github/attend/Attend/window/N`, `org.gtk.Actions`): `next-unread`, `deselect`,
/// `start-daemon`, and per pane (`s` target) `mark-seen`, `attach`, `resume`, `kill`,
/// `remove` (asks first when the pane is running), `show-pane`, and `answer` (`(ss)`:
/// pane, choice).
fn actions() -> Vec<gio::ActionEntry<PanelWindow>> {
    let s = Some(glib::VariantTy::STRING);
    let per_pane = |name: &str, f: fn(&PanelWindow, String)| {
        gio::ActionEntry::builder(name)
            .parameter_type(s)
            .activate(move |w: &PanelWindow, _, p| {
                if let Some(p) = pane_arg(p) {
                    f(w, p)
                }
            })
            .build()
    };
    vec![
        gio::ActionEntry::builder("next-unread")
            .activate(|w: &PanelWindow, _, _| w.send(Request::NextUnread))
            .build(),
        gio::ActionEntry::builder("deselect")
            .activate(|w: &PanelWindow, _, _| w.select_pane(None))
            .build(),
        gio::ActionEntry::builder("start-daemon")
            .activate(|w: &PanelWindow, _, _| w.send(Request::StartDaemon))
            .build(),
        per_pane("mark-seen", |w, p| w.send(Request::MarkSeen(p))),
        per_pane("resume", |w, p| w.send(Request::Resume(p))),
        per_pane("kill", |w, p| w.confirm_kill(p)),
        per_pane("remove", |w, p| w.remove(p)),
        per_pane("attach", |w, p| w.attach(&p)),
        per_pane("show-pane", |w, p| w.show_pane(p)),
        gio::ActionEntry::builder("answer")
            .parameter_type(Some(glib::VariantTy::new("(ss)").expect("a valid type")))
            .activate(|w: &PanelWindow, _, v| {
                if let Some((pane, choice)) = v.and_then(|v| v.get::<(String, String)>()) {
                    w.send(Request::Answer(pane, choice))
                }
            })
            .build(),
    ]
}

fn pane_arg(v: Option<&glib::Variant>) -> Option<String> {
    v.and_then(|v| v.get::<String>())
}

impl PanelWindow {
    /// A window of `app` that sends its requests on `requests`.
    pub fn new(app: &adw::Application, requests: Sender<Request>) -> PanelWindow {
        let w: PanelWindow = glib::Object::builder().property("application", app).build();
        let _ = w.imp().requests.set(requests);
        w
    }

    fn set_next_enabled(&self, enabled: bool) {
        if let Some(a) = self
            .lookup_action("next-unread")
            .and_downcast::<gio::SimpleAction>()
        {
            a.set_enabled(enabled);
        }
    }

    fn send(&self, r: Request) {
        if let Some(tx) = self.imp().requests.get() {
            let _ = tx.try_send(r);
        }
    }

    fn toast(&self, text: &str) {
        self.imp().toasts_shown.borrow_mut().push(text.to_string());
        self.write_dump();
        self.imp().toasts.add_toast(adw::Toast::new(text));
    }

    fn setup(&self) {
        let imp = self.imp();
        self.add_action_entries(actions());
        let weak = self.downgrade();
        imp.workspaces.connect_row_selected(move |_, row| {
            let (Some(w), Some(row)) = (weak.upgrade(), row) else {
                return;
            };
            if w.imp().rendering.get() {
                return;
            }
            if let Some(row) = row.downcast_ref::<WorkspaceRow>() {
                w.select_workspace(row.key());
            }
        });
        let weak = self.downgrade();
        imp.panes.connect_row_selected(move |_, row| {
            let Some(w) = weak.upgrade() else { return };
            if w.imp().rendering.get() {
                return;
            }
            let pane = row
                .and_then(|r| r.downcast_ref::<PaneRow>())
                .map(|r| r.pane_id());
            w.select_pane(pane);
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
        self.connect_is_active_notify(|w| {
            w.sync_focus();
            w.write_dump();
        });
        let weak = self.downgrade();
        glib::timeout_add_seconds_local(SCREEN_EVERY, move || {
            let Some(w) = weak.upgrade() else {
                return glib::ControlFlow::Break;
            };
            w.poll_screen();
            glib::ControlFlow::Continue
        });
        let weak = self.downgrade();
        glib::timeout_add_seconds_local(AGE_EVERY, move || {
            let Some(w) = weak.upgrade() else {
                return glib::ControlFlow::Break;
            };
            w.refresh_ages();
            glib::ControlFlow::Continue
        });
        imp.stack.set_visible_child_name("offline");
        self.set_next_enabled(false);
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
                    |_: &()| String::new(),
                    WorkspaceRow::key,
                    |_, _| {},
                );
                sync_rows(
                    &imp.panes,
                    &[],
                    |_: &()| String::new(),
                    PaneRow::pane_id,
                    |_, _| {},
                );
                imp.detail.set(None);
                imp.rendering.set(false);
                imp.stack.set_visible_child_name("offline");
                self.set_next_enabled(false);
                self.write_dump();
            }
            Update::Snapshot(s) => {
                imp.snapshot.replace(Some((s, Instant::now())));
                imp.stack.set_visible_child_name("panes");
                self.set_next_enabled(true);
                self.render();
                // A pane asked for is shown by the first snapshot that has it, or dropped.
                imp.pending_select.replace(None);
            }
            Update::Screen { pane, text } => {
                if text.is_none() {
                    imp.no_screen.set(true);
                }
                if imp.detail.set_screen(&pane, text.as_deref()) {
                    self.write_dump();
                }
            }
            Update::Select(pane) => self.show_pane(pane),
            Update::NothingUnread => self.toast(&gettext("Nothing needs you right now")),
            Update::Failed(message) => self.toast(&message),
            // The application quits on it (app.rs).
            Update::Quit => {}
        }
    }

    /// Shows `pane` (its workspace selected, the pane selected) and raises the window.
    pub fn show_pane(&self, pane: String) {
        self.imp().pending_select.replace(Some(pane));
        self.render();
        self.present();
    }

    fn select_workspace(&self, key: String) {
        let imp = self.imp();
        imp.selected_ws.replace(Some(key));
        self.render();
    }

    fn select_pane(&self, pane: Option<String>) {
        let changed = *self.imp().selected_pane.borrow() != pane;
        self.imp().selected_pane.replace(pane);
        self.render();
        if changed {
            self.poll_screen();
        }
    }

    /// Tells the daemon the selected pane is no longer focused (the window closes or the
    /// application quits).
    pub fn release_focus(&self) {
        let reqs = self.imp().focus.borrow_mut().sync(None, false);
        for r in reqs {
            self.send(r);
        }
    }

    /// Reports focus for the selected pane when the window is active
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
                    imp.selected_pane.replace(Some(p));
                }
                None => {
                    imp.pending_select.replace(Some(p));
                }
            }
        }
        let ws = imp
            .selected_ws
            .borrow()
            .clone()
            .filter(|k| snap.workspace(k).is_some())
            .or_else(|| snap.workspaces.first().map(|w| w.key.clone()));
        imp.selected_ws.replace(ws.clone());
        let pane = imp
            .selected_pane
            .borrow()
            .clone()
            .filter(|p| snap.pane(p).map(|i| Some(&i.workspace)) == Some(ws.as_ref()));
        imp.selected_pane.replace(pane.clone());

        sync_rows(
            &imp.workspaces,
            &snap.workspaces,
            |w| w.key.clone(),
            |r: &WorkspaceRow| r.key(),
            |r, w| r.set(w, *read_at),
        );
        select_row(&imp.workspaces, |r: &WorkspaceRow| Some(r.key()) == ws);
        let panes: Vec<_> = ws
            .as_deref()
            .map(|k| snap.panes_of(k).cloned().collect())
            .unwrap_or_default();
        sync_rows(
            &imp.panes,
            &panes,
            |p| p.id.clone(),
            |r: &PaneRow| r.pane_id(),
            |r, p| r.set(p),
        );
        imp.panes.invalidate_headers();
        select_row(&imp.panes, |r: &PaneRow| Some(r.pane_id()) == pane);
        imp.detail.set(pane.as_deref().and_then(|p| snap.pane(p)));
        imp.rendering.set(false);
        drop(guard);
        self.sync_focus();
        self.write_dump();
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

    fn poll_screen(&self) {
        let imp = self.imp();
        if imp.no_screen.get() || !self.is_visible() {
            return;
        }
        if let Some(p) = imp.detail.pane_id() {
            self.send(Request::Screen(p));
        }
    }

    fn attach(&self, pane: &str) {
        let terminal = std::env::var("TERMINAL").ok();
        let argv = terminal::attach_argv(terminal.as_deref(), &terminal::attend_binary(), pane);
        if let Err(e) = terminal::spawn_detached(&argv) {
            self.toast(&gettext("Cannot open a terminal: {error}").replace("{error}", &e));
        }
    }

    fn confirm_kill(&self, pane: String) {
        let dialog = adw::MessageDialog::new(
            Some(self),
            Some(&gettext("Kill the program in {pane}?").replace("{pane}", &pane)),
            Some(&gettext(
                "It gets SIGTERM. The pane stays in the list and can be resumed.",
            )),
        );
        dialog.add_responses(&[("cancel", &gettext("_Cancel")), ("kill", &gettext("_Kill"))]);
        dialog.set_response_appearance("kill", adw::ResponseAppearance::Destructive);
        dialog.set_default_response(Some("cancel"));
        dialog.set_close_response("cancel");
        let weak = self.downgrade();
        dialog.connect_response(None, move |_, response| {
            if let (Some(w), "kill") = (weak.upgrade(), response) {
                w.send(Request::Kill(pane.clone()));
            }
        });
        dialog.present();
    }

    /// The Remove button (`docs/lifecycle-attention.md#removing-panes`): an exited pane
    /// goes at once; a running one after the user confirmed (a pane Attend runs is killed
    /// first, an external one only forgotten).
    fn remove(&self, pane: String) {
        let info = self
            .imp()
            .snapshot
            .borrow()
            .as_ref()
            .and_then(|(s, _)| s.pane(&pane).map(|p| (p.live.running, p.owned)));
        let Some((running, owned)) = info else {
            return;
        };
        if !running {
            self.send(Request::Remove(pane, false));
            return;
        }
        let (heading, body) = if owned {
            (
                gettext("Kill and remove {pane}?"),
                gettext("Its program gets SIGTERM (SIGKILL after 5 seconds); then the pane leaves every list. Its events stay in the log."),
            )
        } else {
            (
                gettext("Remove {pane}?"),
                gettext("Its agent runs outside Attend and keeps running; its next hook shows it again as a new pane."),
            )
        };
        let dialog = adw::MessageDialog::new(
            Some(self),
            Some(&heading.replace("{pane}", &pane)),
            Some(&body),
        );
        dialog.add_responses(&[
            ("cancel", &gettext("_Cancel")),
            ("remove", &gettext("_Remove")),
        ]);
        dialog.set_response_appearance("remove", adw::ResponseAppearance::Destructive);
        dialog.set_default_response(Some("cancel"));
        dialog.set_close_response("cancel");
        let weak = self.downgrade();
        dialog.connect_response(None, move |_, response| {
            if let (Some(w), "remove") = (weak.upgrade(), response) {
                w.send(Request::Remove(pane.clone(), owned));
            }
        });
        dialog.present();
    }

    /// Writes what the widgets display to `$ATTEND_PANEL_DUMP` (the tests' hook).
    fn write_dump(&self) {
        let Some(path) = dump::path() else { return };
        let imp = self.imp();
        let rows = |list: &gtk::ListBox| -> Vec<serde_json::Value> {
            let mut out = Vec::new();
            let mut i = 0;
            while let Some(row) = list.row_at_index(i) {
                if let Some(r) = row.downcast_ref::<WorkspaceRow>() {
                    out.push(r.dump());
                } else if let Some(r) = row.downcast_ref::<PaneRow>() {
                    out.push(r.dump());
                }
                i += 1;
            }
            out
        };
        let online = imp.stack.visible_child_name().as_deref() == Some("panes");
        let seq = imp.snapshot.borrow().as_ref().map(|(s, _)| s.seq);
        let value = serde_json::json!({
            "state": if online { "online" } else { "offline" },
            "seq": seq,
            "offline": {
                "visible": !online,
                "title": imp.offline.title().to_string(),
                "description": imp.offline.description().map(|d| d.to_string()),
            },
            "window": {"active": self.is_active(), "title": self.title().map(|t| t.to_string())},
            "next_unread": {
                "tooltip": imp.next_button.tooltip_text().map(|t| t.to_string()),
                "sensitive": imp.next_button.is_sensitive(),
            },
            "focus_reported": imp.focus.borrow().reported(),
            "toasts": imp.toasts_shown.borrow().clone(),
            "workspaces": rows(&imp.workspaces),
            "panes": rows(&imp.panes),
            "detail": imp.detail.dump(),
        });
        dump::write(&path, &value);
    }
}

/// Makes the rows of `list` show `items`: updated in place when the ids are the same
/// (keyboard focus stays), rebuilt otherwise.
fn sync_rows<T, R>(
    list: &gtk::ListBox,
    items: &[T],
    id: impl Fn(&T) -> String,
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

/// Selects the first row for which `pick` holds, or none.
fn select_row<R: IsA<gtk::ListBoxRow>>(list: &gtk::ListBox, pick: impl Fn(&R) -> bool) {
    let mut i = 0;
    while let Some(row) = list.row_at_index(i) {
        if row.downcast_ref::<R>().is_some_and(&pick) {
            if !row.is_selected() {
                list.select_row(Some(&row));
            }
            return;
        }
        i += 1;
    }
    list.unselect_all();
}
