//! A sidebar row: one workspace's summary as the daemon computed it
//! (`docs/lifecycle-attention.md#workspace-summary`): name, repo/branch, agent kinds, worst
//! lifecycle, worst attention indicator, latest explicit message, time since the last
//! attention change, and its tabs beneath.

use super::data::{HostInfo, WorkspaceInfo};
use super::{a11y, indicator, labels};
use gettextrs::gettext;
use gtk4 as gtk;
use gtk4::glib;
use gtk4::prelude::*;
use gtk4::subclass::prelude::*;
use serde_json::{json, Value};
use std::time::Instant;

mod imp {
    use super::*;
    use std::cell::{Cell, RefCell};

    #[derive(Debug, gtk::CompositeTemplate)]
    #[template(file = "workspace_row.ui")]
    pub struct WorkspaceRow {
        #[template_child]
        pub indicator: TemplateChild<gtk::Box>,
        #[template_child]
        pub name: TemplateChild<gtk::Label>,
        #[template_child]
        pub age: TemplateChild<gtk::Label>,
        #[template_child]
        pub repo: TemplateChild<gtk::Label>,
        #[template_child]
        pub lifecycle: TemplateChild<gtk::Label>,
        #[template_child]
        pub attention: TemplateChild<gtk::Label>,
        #[template_child]
        pub agents: TemplateChild<gtk::Label>,
        #[template_child]
        pub message: TemplateChild<gtk::Label>,
        #[template_child]
        pub tabs: TemplateChild<gtk::Label>,
        /// Workspace key.
        pub key: RefCell<String>,
        /// The daemon's `since_attention_change_ms` and when it was read.
        pub since: Cell<Option<(i64, Instant)>>,
        /// The accessible label set last.
        pub a11y: RefCell<String>,
        /// The remote the workspace is on (`None`: this machine).
        pub host: RefCell<Option<String>>,
        /// The host header shown above the row, when it opens a host's group.
        pub header: RefCell<Option<String>>,
    }

    impl Default for WorkspaceRow {
        fn default() -> Self {
            WorkspaceRow {
                indicator: Default::default(),
                name: Default::default(),
                age: Default::default(),
                repo: Default::default(),
                lifecycle: Default::default(),
                attention: Default::default(),
                agents: Default::default(),
                message: Default::default(),
                tabs: Default::default(),
                key: Default::default(),
                since: Cell::new(None),
                a11y: Default::default(),
                host: Default::default(),
                header: Default::default(),
            }
        }
    }

    #[glib::object_subclass]
    impl ObjectSubclass for WorkspaceRow {
        const NAME: &str = "AttendWorkspaceRow";
        type Type = super::WorkspaceRow;
        type ParentType = gtk::ListBoxRow;

        fn class_init(klass: &mut Self::Class) {
            klass.bind_template();
        }

        fn instance_init(obj: &glib::subclass::InitializingObject<Self>) {
            obj.init_template();
        }
    }

    impl ObjectImpl for WorkspaceRow {}
    impl WidgetImpl for WorkspaceRow {}
    impl ListBoxRowImpl for WorkspaceRow {}
}

glib::wrapper! {
    /// A sidebar row for one [`WorkspaceInfo`].
    pub struct WorkspaceRow(ObjectSubclass<imp::WorkspaceRow>)
        @extends gtk::ListBoxRow, gtk::Widget,
        @implements gtk::Actionable, gtk::Buildable, gtk::ConstraintTarget;
}

impl Default for WorkspaceRow {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl WorkspaceRow {
    /// The workspace key this row shows.
    pub fn key(&self) -> String {
        self.imp().key.borrow().clone()
    }

    /// The remote the workspace is on; `None` for this machine.
    pub fn host(&self) -> Option<String> {
        self.imp().host.borrow().clone()
    }

    /// Records the host header the list shows above this row (for the dump).
    pub fn set_header_text(&self, text: Option<String>) {
        self.imp().header.replace(text);
    }

    /// Shows `w`, read from the daemon at `read_at`; greyed (insensitive style, "offline")
    /// while it is a remote's whose link is down.
    pub fn set(&self, w: &WorkspaceInfo, read_at: Instant) {
        let imp = self.imp();
        imp.key.replace(w.key.clone());
        imp.name.set_text(&w.name);
        imp.repo
            .set_text(&labels::repo_branch(w.repo.as_deref(), w.branch.as_deref()));
        imp.repo.set_visible(!imp.repo.text().is_empty());
        imp.lifecycle
            .set_text(&labels::lifecycle(w.worst_lifecycle));
        indicator::set_lifecycle(&*imp.lifecycle, w.worst_lifecycle);
        imp.attention
            .set_text(&labels::attention(w.worst_attention));
        imp.attention
            .set_visible(w.worst_attention > crate::model::Attention::None);
        indicator::set_attention(&*imp.indicator, w.worst_attention);
        imp.host.replace(w.host.clone());
        let mut agents = w.agents.join(", ");
        if w.offline {
            agents = format!("{agents} · {}", labels::offline());
        }
        imp.agents.set_text(&agents);
        if let Some(child) = self.child() {
            child.set_sensitive(!w.offline);
        }
        let message = w.latest_message.as_deref().unwrap_or_default();
        imp.message.set_text(&first_line(message));
        imp.message
            .set_tooltip_text(Some(message).filter(|m| !m.is_empty()));
        imp.message.set_visible(!message.is_empty());
        imp.tabs
            .set_text(&gettext("Tabs: {tabs}").replace("{tabs}", &w.tabs.join(", ")));
        imp.since
            .set(w.since_attention_change_ms.map(|ms| (ms, read_at)));
        self.refresh_age();
        let summary = labels::summary(&w.name, w.worst_lifecycle, w.worst_attention);
        a11y::set_label(self, &summary);
        a11y::set_description(self, message);
        imp.a11y.replace(summary);
    }

    /// Re-renders the time since the last attention change: the daemon's value plus the
    /// time since it was read.
    pub fn refresh_age(&self) {
        let imp = self.imp();
        match imp.since.get() {
            Some((ms, read_at)) => {
                let elapsed = read_at.elapsed().as_millis() as i64;
                imp.age.set_text(&labels::age(ms + elapsed));
                imp.age.set_visible(true);
            }
            None => {
                imp.age.set_text("");
                imp.age.set_visible(false);
            }
        }
    }

    /// What the row displays, for `ATTEND_PANEL_DUMP`.
    pub fn dump(&self) -> Value {
        let imp = self.imp();
        json!({
            "key": self.key(),
            "name": imp.name.text().to_string(),
            "repo_branch": imp.repo.text().to_string(),
            "agents": imp.agents.text().to_string(),
            "lifecycle": imp.lifecycle.text().to_string(),
            "lifecycle_classes": indicator::classes(&*imp.lifecycle),
            "attention": imp.attention.text().to_string(),
            "attention_visible": imp.attention.is_visible(),
            "indicator_classes": indicator::classes(&*imp.indicator),
            "message": imp.message.text().to_string(),
            "message_visible": imp.message.is_visible(),
            "age": imp.age.text().to_string(),
            "tabs": imp.tabs.text().to_string(),
            "selected": self.is_selected(),
            "accessible_label": *imp.a11y.borrow(),
            "host": self.host(),
            "header": *imp.header.borrow(),
            "greyed": !self.child().is_some_and(|c| c.is_sensitive()),
        })
    }
}

/// The header above a sidebar row that opens a host's group (this machine first, then
/// each remote with its link's state `hosts`: `docs/remote.md`); none without remotes.
pub fn host_header(row: &gtk::ListBoxRow, before: Option<&gtk::ListBoxRow>, hosts: &[HostInfo]) {
    let Some(r) = row.downcast_ref::<WorkspaceRow>() else {
        return;
    };
    let host = r.host();
    let opens = match before.and_then(|b| b.downcast_ref::<WorkspaceRow>()) {
        Some(b) => b.host() != host,
        None => true,
    };
    if hosts.is_empty() && host.is_none() || !opens {
        r.set_header_text(None);
        row.set_header(None::<&gtk::Widget>);
        return;
    }
    let info = host
        .as_deref()
        .and_then(|h| hosts.iter().find(|i| i.name == h));
    let text = labels::host_header(host.as_deref(), info, |ms| {
        glib::DateTime::from_unix_local(ms / 1000)
            .and_then(|t| t.format("%H:%M"))
            .map(|t| t.to_string())
            .unwrap_or_default()
    });
    let header = gtk::Box::new(gtk::Orientation::Vertical, 2);
    header.set_margin_top(10);
    header.set_margin_start(6);
    header.set_margin_bottom(4);
    let title = gtk::Label::new(Some(&text));
    title.set_xalign(0.0);
    title.add_css_class("heading");
    header.append(&title);
    let error = info
        .filter(|i| i.is_offline())
        .and_then(|i| i.last_error.clone());
    if let Some(e) = &error {
        let label = gtk::Label::new(Some(e));
        label.set_xalign(0.0);
        label.set_wrap(true);
        label.add_css_class("caption");
        label.add_css_class("dim-label");
        header.append(&label);
    }
    let dumped = match &error {
        Some(e) => format!("{text}\n{e}"),
        None => text,
    };
    r.set_header_text(Some(dumped));
    row.set_header(Some(&header));
}

/// The first line of a message (rows are one line; the tooltip has all of it).
pub fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().trim().to_string()
}
