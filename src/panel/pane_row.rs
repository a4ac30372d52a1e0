//! A row of the pane list: one pane of the selected workspace with its lifecycle,
//! attention indicator, agent, liveness and its open question or last message.

use super::data::PaneInfo;
use super::workspace_row::first_line;
use super::{a11y, indicator, labels};
use crate::model::Attention;
use gtk4 as gtk;
use gtk4::glib;
use gtk4::prelude::*;
use gtk4::subclass::prelude::*;
use serde_json::{json, Value};

mod imp {
    use super::*;
    use std::cell::RefCell;

    #[derive(Debug, Default, gtk::CompositeTemplate)]
    #[template(file = "pane_row.ui")]
    pub struct PaneRow {
        #[template_child]
        pub indicator: TemplateChild<gtk::Box>,
        #[template_child]
        pub name: TemplateChild<gtk::Label>,
        #[template_child]
        pub id: TemplateChild<gtk::Label>,
        #[template_child]
        pub lifecycle: TemplateChild<gtk::Label>,
        #[template_child]
        pub attention: TemplateChild<gtk::Label>,
        #[template_child]
        pub facts: TemplateChild<gtk::Label>,
        #[template_child]
        pub message: TemplateChild<gtk::Label>,
        /// Pane id and tab.
        pub pane: RefCell<(String, String)>,
        /// The accessible label set last.
        pub a11y: RefCell<String>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for PaneRow {
        const NAME: &str = "AttendPaneRow";
        type Type = super::PaneRow;
        type ParentType = gtk::ListBoxRow;

        fn class_init(klass: &mut Self::Class) {
            klass.bind_template();
        }

        fn instance_init(obj: &glib::subclass::InitializingObject<Self>) {
            obj.init_template();
        }
    }

    impl ObjectImpl for PaneRow {}
    impl WidgetImpl for PaneRow {}
    impl ListBoxRowImpl for PaneRow {}
}

glib::wrapper! {
    /// A pane-list row for one [`PaneInfo`].
    pub struct PaneRow(ObjectSubclass<imp::PaneRow>)
        @extends gtk::ListBoxRow, gtk::Widget,
        @implements gtk::Actionable, gtk::Buildable, gtk::ConstraintTarget;
}

impl Default for PaneRow {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl PaneRow {
    /// The pane id this row shows.
    pub fn pane_id(&self) -> String {
        self.imp().pane.borrow().0.clone()
    }

    /// The tab of the pane (the list's section headers).
    pub fn tab(&self) -> String {
        self.imp().pane.borrow().1.clone()
    }

    /// Shows `p` (a remote pane as a local one, with its host among the facts, greyed
    /// while its host is offline).
    pub fn set(&self, p: &PaneInfo) {
        let imp = self.imp();
        imp.pane.replace((p.id.clone(), p.tab.clone()));
        imp.name.set_text(&p.name);
        imp.id.set_text(&p.id);
        imp.id.set_visible(p.name != p.id);
        imp.lifecycle.set_text(&labels::lifecycle(p.lifecycle));
        indicator::set_lifecycle(&*imp.lifecycle, p.lifecycle);
        imp.attention.set_text(&labels::attention(p.attention));
        imp.attention.set_visible(p.attention > Attention::None);
        indicator::set_attention(&*imp.indicator, p.attention);
        let mut facts = format!("{} · {}", p.agent, labels::live(&p.live));
        if let Some(host) = &p.host {
            facts = format!("{facts} · {host}");
        }
        if p.is_offline() {
            facts = format!("{facts} · {}", labels::offline());
        }
        imp.facts.set_text(&facts);
        // A remote pane whose link is down: its last values, greyed.
        if let Some(child) = self.child() {
            child.set_sensitive(!p.is_offline());
        }
        let message = match &p.pending_decision {
            Some(d) => format!("{}: {}", labels::decision_kind(&d.kind), d.prompt),
            None => p.last_message.clone().unwrap_or_default(),
        };
        imp.message.set_text(&first_line(&message));
        imp.message
            .set_tooltip_text(Some(message.as_str()).filter(|m| !m.is_empty()));
        imp.message.set_visible(!message.is_empty());
        let summary = labels::summary(&p.name, p.lifecycle, p.attention);
        a11y::set_label(self, &summary);
        a11y::set_description(self, &message);
        imp.a11y.replace(summary);
    }

    /// What the row displays, for `ATTEND_PANEL_DUMP`.
    pub fn dump(&self) -> Value {
        let imp = self.imp();
        json!({
            "pane": self.pane_id(),
            "tab": self.tab(),
            "name": imp.name.text().to_string(),
            "lifecycle": imp.lifecycle.text().to_string(),
            "lifecycle_classes": indicator::classes(&*imp.lifecycle),
            "attention": imp.attention.text().to_string(),
            "attention_visible": imp.attention.is_visible(),
            "indicator_classes": indicator::classes(&*imp.indicator),
            "facts": imp.facts.text().to_string(),
            "message": imp.message.text().to_string(),
            "selected": self.is_selected(),
            "accessible_label": *imp.a11y.borrow(),
            "greyed": !self.child().is_some_and(|c| c.is_sensitive()),
        })
    }
}
