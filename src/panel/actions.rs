//! The window's actions, in its action map (so GTK exports them on D-Bus at
//! `/io/github/attend/Attend/window/N`, `org.gtk.Actions`; their keys are in
//! [`shortcuts::ACCELS`](super::shortcuts::ACCELS)):
//!
//! - `next-unread`, `start-daemon`, `new-agent` (the New agent dialog), `deselect` (back one column in a folded window, else
//!   clear the selection), `sort-by-name` (a boolean state: the sidebar by name instead of
//!   by attention);
//! - per pane (`s` target: the buttons) `mark-seen`, `attach`, `resume`, `kill` (asks
//!   first), `remove` (asks first when the pane is running), `show-pane`, and `answer`
//!   (`(ss)`: pane, choice);
//! - on the selected pane (the shortcuts) `selected-allow`, `selected-deny`,
//!   `selected-seen`, `selected-attach`, `selected-kill`: each says in a toast why it
//!   cannot act (no pane selected, no open gate, nothing Attend runs);
//! - the Needs you view's `needs-you` (a boolean state) and `needs-open` (`s`), from
//!   [`super::needs_window::actions`].

use super::attach_terminal;
use super::client::Request;
use super::data::SidebarOrder;
use super::shortcuts::{self, ALLOW, DENY};
use super::window::PanelWindow;
use adw::prelude::*;
use adw::subclass::prelude::*;
use gettextrs::gettext;
use gtk4::{gio, glib};

/// Adds the window's actions to `w` (the window starts offline: `next-unread` disabled).
pub fn install(w: &PanelWindow) {
    w.add_action_entries(entries());
    w.set_action_enabled("next-unread", false);
}

fn entries() -> Vec<gio::ActionEntry<PanelWindow>> {
    let mut all = pane_entries();
    all.extend(super::needs_window::actions());
    all
}

fn pane_entries() -> Vec<gio::ActionEntry<PanelWindow>> {
    let s = Some(glib::VariantTy::STRING);
    let per_pane = |name: &str, f: fn(&PanelWindow, String)| {
        gio::ActionEntry::builder(name)
            .parameter_type(s)
            .activate(move |w: &PanelWindow, _, p| {
                if let Some(p) = p.and_then(|v| v.get::<String>()) {
                    f(w, p)
                }
            })
            .build()
    };
    let simple = |name: &str, f: fn(&PanelWindow)| {
        gio::ActionEntry::builder(name)
            .activate(move |w: &PanelWindow, _, _| f(w))
            .build()
    };
    vec![
        simple("next-unread", |w| w.send(Request::NextUnread)),
        simple("deselect", |w| {
            if !w.go_back() {
                w.select_pane(None)
            }
        }),
        simple("start-daemon", |w| w.send(Request::StartDaemon)),
        simple("new-agent", |w| w.open_new_agent()),
        gio::ActionEntry::builder("sort-by-name")
            .state(false.to_variant())
            .change_state(|w: &PanelWindow, a, v| {
                if let Some(by_name) = v.and_then(|v| v.get::<bool>()) {
                    a.set_state(&by_name.to_variant());
                    w.set_order(if by_name {
                        SidebarOrder::Name
                    } else {
                        SidebarOrder::Attention
                    });
                }
            })
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
        simple("selected-allow", |w| w.answer_selected(ALLOW)),
        simple("selected-deny", |w| w.answer_selected(DENY)),
        simple("selected-seen", |w| {
            match shortcuts::selected(w.selected_info().as_ref()) {
                Ok(p) => w.send(Request::MarkSeen(p.id.clone())),
                Err(m) => w.toast(&m),
            }
        }),
        simple("selected-attach", |w| {
            match shortcuts::selected(w.selected_info().as_ref()) {
                Ok(p) if p.can_attach() => w.attach(&p.id),
                Ok(p) => w.toast(
                    &gettext(
                        "{pane} is not a running program Attend started: nothing to attach to",
                    )
                    .replace("{pane}", &p.name),
                ),
                Err(m) => w.toast(&m),
            }
        }),
        simple("selected-kill", |w| {
            match shortcuts::selected(w.selected_info().as_ref()) {
                Ok(p) if p.can_kill() => w.confirm_kill(p.id.clone()),
                Ok(p) => w.toast(
                    &gettext("{pane} is not a running program Attend started: nothing to kill")
                        .replace("{pane}", &p.name),
                ),
                Err(m) => w.toast(&m),
            }
        }),
    ]
}

impl PanelWindow {
    /// The allow or deny shortcut: answers the selected pane's open decision with
    /// `choice`, or says why it cannot.
    fn answer_selected(&self, choice: &str) {
        match shortcuts::gate_answer(self.selected_info().as_ref(), choice) {
            Ok((pane, choice)) => self.send(Request::Answer(pane, choice)),
            Err(m) => self.toast(&m),
        }
    }

    /// Runs `attend attach PANE` in the user's terminal ([`attach_terminal::attach_argv`]).
    fn attach(&self, pane: &str) {
        let var = std::env::var("TERMINAL").ok();
        let argv = attach_terminal::attach_argv(
            var.as_deref(),
            &attach_terminal::on_path,
            &attach_terminal::attend_binary(),
            pane,
        )
        .map_err(|e| e.to_string())
        .and_then(|argv| attach_terminal::spawn_detached(&argv));
        if let Err(e) = argv {
            self.toast(&gettext("Cannot open a terminal: {error}").replace("{error}", &e));
        }
    }

    /// Shows a confirmation dialog; `on_yes` runs when the user picks `yes` (the
    /// destructive response). Cancel is the default and Escape's answer.
    fn confirm(
        &self,
        heading: &str,
        body: &str,
        yes: (&str, &str),
        on_yes: impl Fn(&Self) + 'static,
    ) {
        let dialog = adw::MessageDialog::new(Some(self), Some(heading), Some(body));
        dialog.add_responses(&[("cancel", &gettext("_Cancel")), yes]);
        dialog.set_response_appearance(yes.0, adw::ResponseAppearance::Destructive);
        dialog.set_default_response(Some("cancel"));
        dialog.set_close_response("cancel");
        let weak = self.downgrade();
        let id = yes.0.to_string();
        dialog.connect_response(None, move |_, response| {
            let Some(w) = weak.upgrade() else { return };
            w.imp().dialog.replace(None);
            if response == id {
                on_yes(&w);
            }
            w.write_dump();
        });
        self.imp().dialog.replace(Some(dialog.clone()));
        dialog.present();
        self.write_dump();
    }

    /// The Kill button and shortcut: SIGTERM after the user confirmed.
    pub(super) fn confirm_kill(&self, pane: String) {
        let heading = gettext("Kill the program in {pane}?").replace("{pane}", &pane);
        let body = gettext("It gets SIGTERM. The pane stays in the list and can be resumed.");
        self.confirm(&heading, &body, ("kill", &gettext("_Kill")), move |w| {
            w.send(Request::Kill(pane.clone()))
        });
    }

    /// The Remove button (`docs/lifecycle-attention.md#removing-panes`): an exited pane
    /// goes at once; a running one after the user confirmed (a pane Attend runs is killed
    /// first, an external one or one followed in tmux only forgotten).
    fn remove(&self, pane: String) {
        let info = self
            .imp()
            .snapshot
            .borrow()
            .as_ref()
            .and_then(|(s, _)| s.pane(&pane).map(|p| (p.running(), p.owned, p.in_tmux())));
        let Some((running, owned, in_tmux)) = info else {
            return;
        };
        if !running {
            self.send(Request::Remove(pane, false));
            return;
        }
        let (heading, body) = if owned {
            (
                gettext("Kill and remove {pane}?"),
                gettext("Its program gets SIGHUP, as when its terminal closes (then SIGTERM and SIGKILL while it still runs); then the pane leaves every list. Its events stay in the log."),
            )
        } else if in_tmux {
            (
                gettext("Remove {pane}?"),
                gettext("Its agent keeps running in your tmux pane, which Attend no longer follows until another agent starts there."),
            )
        } else {
            (
                gettext("Remove {pane}?"),
                gettext("Its agent runs outside Attend and keeps running; its next hook shows it again as a new pane."),
            )
        };
        let heading = heading.replace("{pane}", &pane);
        self.confirm(&heading, &body, ("remove", &gettext("_Remove")), move |w| {
            w.send(Request::Remove(pane.clone(), owned))
        });
    }
}
