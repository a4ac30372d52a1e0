//! The panel's keyboard shortcuts (`docs/desktop-surfaces.md#keyboard`): the one table of
//! accelerators ([`ACCELS`]), the shortcuts window (`Ctrl+?`, `shortcuts.ui`, which shows
//! the accelerators of this table through its actions), and what a shortcut on the
//! selected pane does when it cannot act ([`gate_answer`], [`selected`]).

use super::data::PaneInfo;
use gettextrs::gettext;
use gtk4 as gtk;
use gtk4::prelude::*;
use serde_json::{json, Value};

/// Every accelerator of the panel: (detailed action, accelerators). The `win.selected-*`
/// actions act on the selected pane.
pub const ACCELS: &[(&str, &[&str])] = &[
    ("win.next-unread", &["<Control>n"]),
    ("win.selected-allow", &["<Control>y"]),
    ("win.selected-deny", &["<Control>d"]),
    ("win.selected-seen", &["<Control>m"]),
    ("win.selected-attach", &["<Control>t"]),
    ("win.selected-kill", &["<Control>k"]),
    ("win.deselect", &["Escape"]),
    ("win.show-help-overlay", &["<Control>question"]),
    ("window.close", &["<Control>w"]),
    ("app.quit", &["<Control>q"]),
];

/// The choice the allow shortcut answers.
pub const ALLOW: &str = "allow";
/// The choice the deny shortcut answers.
pub const DENY: &str = "deny";

/// Sets [`ACCELS`] on `app`.
pub fn install(app: &impl IsA<gtk::Application>) {
    for (action, accels) in ACCELS {
        app.set_accels_for_action(action, accels);
    }
}

/// The shortcuts window, built from `shortcuts.ui`; `set_help_overlay` makes it the
/// window's `win.show-help-overlay`.
pub fn window() -> gtk::ShortcutsWindow {
    gtk::Builder::from_string(include_str!("shortcuts.ui"))
        .object("shortcuts")
        .expect("shortcuts.ui defines `shortcuts`")
}

/// What the shortcuts window shows, for `ATTEND_PANEL_DUMP`: whether it is open, and
/// each shortcut's title and accelerator as it displays them.
pub fn dump(w: Option<&gtk::ShortcutsWindow>) -> Value {
    let Some(w) = w else {
        return json!({"visible": false, "shortcuts": []});
    };
    let mut items = Vec::new();
    let mut stack: Vec<gtk::Widget> = vec![w.clone().upcast()];
    while let Some(widget) = stack.pop() {
        if let Some(s) = widget.downcast_ref::<gtk::ShortcutsShortcut>() {
            items.push(json!({
                "title": s.property::<Option<String>>("title"),
                "accelerator": s.property::<Option<String>>("accelerator"),
            }));
        }
        let mut child = widget.last_child();
        while let Some(c) = child {
            child = c.prev_sibling();
            stack.push(c);
        }
    }
    json!({"visible": w.is_visible(), "shortcuts": items})
}

/// The selected pane, or the message a shortcut shows without one.
pub fn selected(pane: Option<&PaneInfo>) -> Result<&PaneInfo, String> {
    pane.ok_or_else(|| gettext("Select a pane first"))
}

/// The answer the allow or deny shortcut sends for the selected pane: (pane, choice),
/// the choice as the daemon spelled it. Errors: the message to show when there is no
/// pane, no open decision, or the decision has no such choice.
pub fn gate_answer(pane: Option<&PaneInfo>, choice: &str) -> Result<(String, String), String> {
    let p = selected(pane)?;
    let Some(d) = &p.pending_decision else {
        return Err(
            gettext("{pane} has no open permission request or question").replace("{pane}", &p.name)
        );
    };
    d.choices
        .iter()
        .find(|c| c.eq_ignore_ascii_case(choice))
        .map(|c| (p.id.clone(), c.clone()))
        .ok_or_else(|| {
            let offered = if d.choices.is_empty() {
                gettext("attach in a terminal to answer it")
            } else {
                gettext("its answers: {choices}").replace("{choices}", &d.choices.join(", "))
            };
            gettext("{pane}: Attend cannot answer “{choice}” here ({offered})")
                .replace("{pane}", &p.name)
                .replace("{choice}", choice)
                .replace("{offered}", &offered)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::wire::{WireDecision, WirePane};
    use crate::model::{AgentKind, Pane, PaneId, Timestamp};

    fn pane(choices: Option<&[&str]>) -> PaneInfo {
        let mut p = WirePane::of(&Pane::new(
            PaneId(4),
            "/src/api",
            "main",
            "api",
            AgentKind::Claude,
            Timestamp(0),
        ));
        p.lifecycle = "blocked".into();
        p.attention = "permission_required".into();
        p.owned = true;
        p.pending_decision = choices.map(|c| WireDecision {
            id: 3,
            kind: "permission".into(),
            prompt: "Bash: ls".into(),
            options: vec![],
            choices: c.iter().map(|s| s.to_string()).collect(),
            source: "user:user".into(),
            opened_at: 0,
            tool_use_id: None,
            gate: None,
        });
        PaneInfo::of(p).unwrap()
    }

    #[test]
    fn allow_and_deny_answer_the_open_gate_by_its_choice_names() {
        let p = pane(Some(&["Allow", "deny"]));
        assert_eq!(
            gate_answer(Some(&p), ALLOW),
            Ok(("p4".into(), "Allow".into()))
        );
        assert_eq!(
            gate_answer(Some(&p), DENY),
            Ok(("p4".into(), "deny".into()))
        );
    }

    #[test]
    fn without_a_gate_or_its_choice_the_shortcut_says_why() {
        assert_eq!(gate_answer(None, ALLOW), Err("Select a pane first".into()));
        assert_eq!(
            gate_answer(Some(&pane(None)), ALLOW),
            Err("api has no open permission request or question".into())
        );
        assert_eq!(
            gate_answer(Some(&pane(Some(&["yes", "no"]))), DENY),
            Err("api: Attend cannot answer “deny” here (its answers: yes, no)".into())
        );
        assert_eq!(
            gate_answer(Some(&pane(Some(&[]))), ALLOW),
            Err(
                "api: Attend cannot answer “allow” here (attach in a terminal to answer it)".into()
            )
        );
    }

    #[test]
    fn no_accelerator_is_bound_twice() {
        let mut seen = Vec::new();
        for (action, accels) in ACCELS {
            assert!(action.contains('.'), "{action} is a detailed action");
            for a in *accels {
                assert!(!seen.contains(a), "{a} bound twice");
                seen.push(a);
            }
        }
    }

    #[test]
    fn the_shortcuts_window_lists_every_bound_action() {
        let ui = include_str!("shortcuts.ui");
        for (action, _) in ACCELS {
            assert!(
                ui.contains(&format!(
                    "<property name=\"action-name\">{action}</property>"
                )),
                "shortcuts.ui lists {action}"
            );
        }
    }
}
