//! The pane detail: the selected pane's state as the daemon reports it, its pending
//! decision with one answer button per choice, its live terminal ([`PaneTerminal`]),
//! and the actions mark seen, attach in a terminal, resume, kill and remove (the window's
//! `win.*` actions, targeted at the pane).

use super::data::PaneInfo;
use super::pane_terminal::PaneTerminal;
use super::{a11y, indicator, labels};
use gettextrs::gettext;
use gtk4 as gtk;
use gtk4::glib;
use gtk4::prelude::*;
use gtk4::subclass::prelude::*;
use serde_json::{json, Value};

mod imp {
    use super::*;
    use std::cell::RefCell;

    #[derive(Debug, Default, gtk::CompositeTemplate)]
    #[template(file = "pane_detail.ui")]
    pub struct PaneDetail {
        #[template_child]
        pub stack: TemplateChild<gtk::Stack>,
        #[template_child]
        pub empty: TemplateChild<adw::StatusPage>,
        #[template_child]
        pub indicator: TemplateChild<gtk::Box>,
        #[template_child]
        pub title: TemplateChild<gtk::Label>,
        #[template_child]
        pub subtitle: TemplateChild<gtk::Label>,
        #[template_child]
        pub lifecycle: TemplateChild<gtk::Label>,
        #[template_child]
        pub attention: TemplateChild<gtk::Label>,
        #[template_child]
        pub live: TemplateChild<gtk::Label>,
        #[template_child]
        pub message: TemplateChild<gtk::Label>,
        #[template_child]
        pub decision: TemplateChild<gtk::Frame>,
        #[template_child]
        pub decision_kind: TemplateChild<gtk::Label>,
        #[template_child]
        pub decision_prompt: TemplateChild<gtk::Label>,
        #[template_child]
        pub choices: TemplateChild<gtk::Box>,
        #[template_child]
        pub terminal: TemplateChild<PaneTerminal>,
        #[template_child]
        pub seen: TemplateChild<gtk::Button>,
        #[template_child]
        pub attach: TemplateChild<gtk::Button>,
        #[template_child]
        pub resume: TemplateChild<gtk::Button>,
        #[template_child]
        pub kill: TemplateChild<gtk::Button>,
        #[template_child]
        pub remove: TemplateChild<gtk::Button>,
        /// The pane shown, and the decision whose buttons are built (id, choices).
        pub pane: RefCell<Option<String>>,
        pub built: RefCell<Option<(String, u64, Vec<String>)>>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for PaneDetail {
        const NAME: &str = "AttendPaneDetail";
        type Type = super::PaneDetail;
        type ParentType = gtk::Box;

        fn class_init(klass: &mut Self::Class) {
            PaneTerminal::ensure_type();
            klass.bind_template();
        }

        fn instance_init(obj: &glib::subclass::InitializingObject<Self>) {
            obj.init_template();
        }
    }

    impl ObjectImpl for PaneDetail {}
    impl WidgetImpl for PaneDetail {}
    impl BoxImpl for PaneDetail {}
}

glib::wrapper! {
    /// The detail view of one [`PaneInfo`].
    pub struct PaneDetail(ObjectSubclass<imp::PaneDetail>)
        @extends gtk::Box, gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget, gtk::Orientable;
}

impl PaneDetail {
    /// The pane shown, if any.
    pub fn pane_id(&self) -> Option<String> {
        self.imp().pane.borrow().clone()
    }

    /// The pane's live terminal.
    pub fn terminal(&self) -> PaneTerminal {
        self.imp().terminal.get()
    }

    /// Shows `pane`, or the "no pane selected" page for `None`.
    pub fn set(&self, pane: Option<&PaneInfo>) {
        let imp = self.imp();
        imp.terminal.set_pane(pane);
        let Some(p) = pane else {
            imp.pane.replace(None);
            imp.built.replace(None);
            imp.stack.set_visible_child_name("empty");
            return;
        };
        imp.pane.replace(Some(p.id.clone()));
        imp.stack.set_visible_child_name("pane");
        imp.title.set_text(&p.name);
        let mut subtitle = vec![p.id.clone(), p.agent.clone()];
        subtitle.push(format!(
            "{} / {}",
            crate::engine::workspace_name(&p.workspace),
            p.tab
        ));
        if let Some(cwd) = &p.cwd {
            subtitle.push(cwd.clone());
        }
        imp.subtitle.set_text(&subtitle.join(" · "));
        indicator::set_attention(&*imp.indicator, p.attention);
        imp.lifecycle.set_text(&labels::lifecycle(p.lifecycle));
        indicator::set_lifecycle(&*imp.lifecycle, p.lifecycle);
        imp.attention.set_text(&labels::attention(p.attention));
        imp.live.set_text(&labels::live(&p.live));
        let message = p.last_message.clone().unwrap_or_default();
        imp.message.set_text(&message);
        imp.message.set_visible(!message.is_empty());
        self.set_decision(p);
        let target = p.id.to_variant();
        for b in [
            &*imp.seen,
            &*imp.attach,
            &*imp.resume,
            &*imp.kill,
            &*imp.remove,
        ] {
            b.set_action_target_value(Some(&target));
        }
        imp.attach.set_sensitive(p.can_attach());
        imp.kill.set_sensitive(p.can_kill());
        imp.resume.set_sensitive(p.can_resume());
        a11y::set_label(self, &labels::summary(&p.name, p.lifecycle, p.attention));
    }

    fn set_decision(&self, p: &PaneInfo) {
        let imp = self.imp();
        let Some(d) = &p.pending_decision else {
            imp.decision.set_visible(false);
            imp.built.replace(None);
            return;
        };
        imp.decision.set_visible(true);
        imp.decision_kind.set_text(&labels::decision_kind(&d.kind));
        imp.decision_prompt.set_text(&d.prompt);
        let key = (p.id.clone(), d.id, d.choices.clone());
        if imp.built.borrow().as_ref() == Some(&key) {
            return;
        }
        while let Some(child) = imp.choices.first_child() {
            imp.choices.remove(&child);
        }
        for choice in &d.choices {
            let b = gtk::Button::with_label(choice);
            b.set_action_name(Some("win.answer"));
            b.set_action_target_value(Some(&(p.id.as_str(), choice.as_str()).to_variant()));
            let label = gettext("Answer “{choice}”").replace("{choice}", choice);
            a11y::set_label(&b, &label);
            b.set_tooltip_text(Some(&label));
            imp.choices.append(&b);
        }
        if d.choices.is_empty() {
            let l = gtk::Label::new(Some(&gettext(
                "Attend cannot answer this one; attach in a terminal to answer it.",
            )));
            l.set_wrap(true);
            l.add_css_class("dim-label");
            imp.choices.append(&l);
        }
        imp.built.replace(Some(key));
    }

    /// The action buttons by name (`seen`, `attach`, `resume`, `kill`, `remove`), for the
    /// layout dump.
    pub fn action_buttons(&self) -> [(&'static str, gtk::Button); 5] {
        let imp = self.imp();
        [
            ("seen", imp.seen.get()),
            ("attach", imp.attach.get()),
            ("resume", imp.resume.get()),
            ("kill", imp.kill.get()),
            ("remove", imp.remove.get()),
        ]
    }

    /// What the detail displays, for `ATTEND_PANEL_DUMP` (`null` fields when no pane).
    pub fn dump(&self) -> Value {
        let imp = self.imp();
        let Some(pane) = self.pane_id() else {
            return json!({
                "pane": null,
                "empty_title": imp.empty.title().to_string(),
                "terminal": imp.terminal.dump(),
            });
        };
        let button = |b: &gtk::Button| {
            json!({
                "label": b.label().map(|l| l.replace('_', "")),
                "sensitive": b.is_sensitive(),
                "action": b.action_name().map(|l| l.to_string()),
            })
        };
        let mut choices = Vec::new();
        let mut child = imp.choices.first_child();
        while let Some(w) = child {
            if let Some(b) = w.downcast_ref::<gtk::Button>() {
                choices.push(json!({
                    "label": b.label().map(|l| l.to_string()),
                    "tooltip": b.tooltip_text().map(|l| l.to_string()),
                    "action": b.action_name().map(|l| l.to_string()),
                    "target": b.action_target_value().map(|v| v.print(false).to_string()),
                    "sensitive": b.is_sensitive(),
                }));
            }
            child = w.next_sibling();
        }
        let terminal = imp.terminal.dump();
        json!({
            "pane": pane,
            "title": imp.title.text().to_string(),
            "subtitle": imp.subtitle.text().to_string(),
            "lifecycle": imp.lifecycle.text().to_string(),
            "lifecycle_classes": indicator::classes(&*imp.lifecycle),
            "attention": imp.attention.text().to_string(),
            "indicator_classes": indicator::classes(&*imp.indicator),
            "live": imp.live.text().to_string(),
            "message": imp.message.text().to_string(),
            "decision": imp.decision.is_visible().then(|| json!({
                "kind": imp.decision_kind.text().to_string(),
                "prompt": imp.decision_prompt.text().to_string(),
                "buttons": choices,
            })),
            "actions": [
                button(&imp.seen),
                button(&imp.attach),
                button(&imp.resume),
                button(&imp.kill),
                button(&imp.remove),
            ],
            "screen": terminal["text"].as_str().unwrap_or_default(),
            "terminal": terminal,
        })
    }
}
