//! The New agent dialog (`Ctrl+Shift+N`, the main menu; `docs/desktop-surfaces.md#new-agent`):
//! which agent (the installed ones of the agents' table, and a shell), the folder, the
//! workspace and name, and "In a new git worktree" with its branch. Start sends a
//! [`Request::Run`] (the client thread makes the worktree, `docs/worktrees.md`, then
//! calls `Run`, and the window shows the new pane); a form that is not complete says why
//! in the dialog. Every field has a mnemonic label, which is also its name for screen
//! readers.

use super::client::Request;
use super::new_agent_form::{self, Form, Offered};
use super::window::PanelWindow;
use adw::prelude::*;
use adw::subclass::prelude::*;
use gettextrs::gettext;
use gtk4 as gtk;
use serde_json::{json, Value};
use std::rc::Rc;

/// The widgets of an open dialog.
#[derive(Debug, Clone)]
pub struct NewAgent {
    window: adw::Window,
    agents: gtk::DropDown,
    offered: Rc<Vec<Offered>>,
    folder: gtk::Entry,
    workspace: gtk::Entry,
    name: gtk::Entry,
    in_worktree: gtk::CheckButton,
    branch: gtk::Entry,
    error: gtk::Label,
    labels: Rc<Vec<gtk::Label>>,
    cancel: gtk::Button,
    start: gtk::Button,
}

/// Whether `program` is an executable file in one of `$PATH`'s folders.
fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| {
        std::fs::metadata(dir.join(program))
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

/// A row: a mnemonic label over its field (the label names the field for screen readers).
fn field(parent: &gtk::Box, text: &str, widget: &impl IsA<gtk::Widget>) -> gtk::Label {
    let label = gtk::Label::with_mnemonic(text);
    label.set_xalign(0.0);
    label.set_mnemonic_widget(Some(widget));
    parent.append(&label);
    parent.append(widget);
    label
}

impl NewAgent {
    /// Builds and presents the dialog over `w`; the folder starts at the selected pane's
    /// cwd, else the home folder.
    pub fn open(w: &PanelWindow) -> NewAgent {
        let shell = std::env::var("SHELL").unwrap_or_default();
        let offered = Rc::new(new_agent_form::offered(on_path, &shell));
        let names: Vec<&str> = offered.iter().map(|o| o.label.as_str()).collect();
        let agents = gtk::DropDown::from_strings(&names);
        let folder = gtk::Entry::new();
        let start_dir = w
            .selected_info()
            .and_then(|p| p.cwd.clone())
            .or_else(|| std::env::var("HOME").ok())
            .unwrap_or_default();
        folder.set_text(&start_dir);
        let workspace = gtk::Entry::new();
        workspace.set_placeholder_text(Some(&gettext("The folder's repository")));
        let name = gtk::Entry::new();
        name.set_placeholder_text(Some(&gettext("The pane id")));
        let in_worktree = gtk::CheckButton::with_mnemonic(&gettext("In a new git _worktree"));
        let branch = gtk::Entry::new();
        branch.set_sensitive(false);
        in_worktree
            .bind_property("active", &branch, "sensitive")
            .sync_create()
            .build();
        let error = gtk::Label::new(None);
        error.add_css_class("error");
        error.set_wrap(true);
        error.set_visible(false);

        let body = gtk::Box::new(gtk::Orientation::Vertical, 6);
        body.set_margin_top(12);
        body.set_margin_bottom(12);
        body.set_margin_start(12);
        body.set_margin_end(12);
        let mut labels = vec![
            field(&body, &gettext("_Agent"), &agents),
            field(&body, &gettext("_Folder"), &folder),
            field(&body, &gettext("Work_space"), &workspace),
            field(&body, &gettext("Na_me"), &name),
        ];
        body.append(&in_worktree);
        labels.push(field(&body, &gettext("_Branch"), &branch));
        body.append(&error);
        let buttons = gtk::Box::new(gtk::Orientation::Horizontal, 6);
        buttons.set_halign(gtk::Align::End);
        let cancel = gtk::Button::with_mnemonic(&gettext("_Cancel"));
        let start = gtk::Button::with_mnemonic(&gettext("_Start"));
        start.add_css_class("suggested-action");
        buttons.append(&cancel);
        buttons.append(&start);
        body.append(&buttons);

        let window = adw::Window::builder()
            .title(gettext("New Agent"))
            .modal(true)
            .transient_for(w)
            .default_width(420)
            .content(&body)
            .build();
        let d = NewAgent {
            window,
            agents,
            offered,
            folder,
            workspace,
            name,
            in_worktree,
            branch,
            error,
            labels: Rc::new(labels),
            cancel: cancel.clone(),
            start: start.clone(),
        };
        let esc = gtk::ShortcutController::new();
        esc.add_shortcut(gtk::Shortcut::new(
            gtk::ShortcutTrigger::parse_string("Escape"),
            Some(gtk::NamedAction::new("window.close")),
        ));
        d.window.add_controller(esc);
        let win = d.window.clone();
        d.cancel.connect_clicked(move |_| win.close());
        let submit = {
            let (d, w) = (d.clone(), w.clone());
            Rc::new(move || d.submit(&w))
        };
        let s = submit.clone();
        d.start.connect_clicked(move |_| s());
        for entry in [&d.folder, &d.workspace, &d.name, &d.branch] {
            let s = submit.clone();
            entry.connect_activate(move |_| s());
        }
        let dw = w.clone();
        d.window.connect_close_request(move |_| {
            dw.new_agent_closed();
            gtk::glib::Propagation::Proceed
        });
        d.window.present();
        d.folder.grab_focus();
        d
    }

    /// The form as the widgets hold it.
    fn form(&self) -> Form {
        Form {
            agent: self.offered.get(self.agents.selected() as usize).cloned(),
            folder: self.folder.text().to_string(),
            workspace: self.workspace.text().to_string(),
            name: self.name.text().to_string(),
            in_worktree: self.in_worktree.is_active(),
            branch: self.branch.text().to_string(),
        }
    }

    /// Start: sends the request and closes, or shows why not.
    fn submit(&self, w: &PanelWindow) {
        let home = std::env::var("HOME").unwrap_or_default();
        match new_agent_form::request(&self.form(), &home) {
            Ok(r) => {
                w.send(Request::Run(r));
                self.window.close();
            }
            Err(why) => {
                self.error.set_text(&gettext(why));
                self.error.set_visible(true);
                w.write_dump();
            }
        }
    }

    /// What the dialog shows, for `ATTEND_PANEL_DUMP`, read from its widgets.
    pub fn dump(&self) -> Value {
        let model = self.agents.model();
        let agents: Vec<String> = model
            .and_downcast::<gtk::StringList>()
            .map(|l| {
                (0..l.n_items())
                    .filter_map(|i| l.string(i).map(|s| s.to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let labels: Vec<Value> = self
            .labels
            .iter()
            .map(|l| {
                json!({
                    "text": l.text().to_string(),
                    "names": l.mnemonic_widget().map(|w| w.type_().name().to_string()),
                })
            })
            .collect();
        json!({
            "visible": self.window.is_visible(),
            "title": self.window.title().map(|t| t.to_string()),
            "agents": agents,
            "agent": agents.get(self.agents.selected() as usize),
            "folder": self.folder.text().to_string(),
            "in_worktree": self.in_worktree.is_active(),
            "branch": self.branch.text().to_string(),
            "branch_sensitive": self.branch.is_sensitive(),
            "error": self.error.is_visible().then(|| self.error.text().to_string()),
            "labels": labels,
            "size": [self.window.width(), self.window.height()],
            "controls": self.controls(),
        })
    }

    /// Each control of the dialog: whether a screen reader has a name for it, whether
    /// it is on screen and where it lies in the dialog (`[x, y, width, height]`).
    fn controls(&self) -> Vec<Value> {
        let win = self.window.upcast_ref::<gtk::Widget>();
        let controls: [(&str, &gtk::Widget); 8] = [
            ("agent", self.agents.upcast_ref()),
            ("folder", self.folder.upcast_ref()),
            ("workspace", self.workspace.upcast_ref()),
            ("name", self.name.upcast_ref()),
            ("in_worktree", self.in_worktree.upcast_ref()),
            ("branch", self.branch.upcast_ref()),
            ("cancel", self.cancel.upcast_ref()),
            ("start", self.start.upcast_ref()),
        ];
        controls
            .into_iter()
            .map(|(name, w)| {
                json!({
                    "name": name,
                    "named": super::a11y::is_named(w),
                    "mapped": w.is_mapped(),
                    "bounds": super::layout::bounds(w, win),
                })
            })
            .collect()
    }
}

impl PanelWindow {
    /// `win.new-agent`: presents the New agent dialog (the open one again, if any).
    pub(super) fn open_new_agent(&self) {
        if let Some((window, _)) = self.imp().new_agent.borrow().as_ref() {
            window.present();
            return;
        }
        let d = NewAgent::open(self);
        let window = d.window.clone();
        let part = super::dump::Part(Box::new(move || d.dump()));
        self.imp().new_agent.replace(Some((window, part)));
        self.write_dump();
    }

    /// The dialog closed (Start, Cancel, Escape, the window manager).
    fn new_agent_closed(&self) {
        self.imp().new_agent.replace(None);
        self.write_dump();
    }
}
