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
    ("win.new-agent", &["<Control><Shift>n"]),
    ("win.needs-you", &["<Control><Shift>a"]),
    ("win.selected-allow", &["<Control>y"]),
    ("win.selected-deny", &["<Control>d"]),
    ("win.selected-seen", &["<Control>m"]),
    ("win.selected-attach", &["<Control>t"]),
    ("win.selected-kill", &["<Control>k"]),
    ("win.deselect", &["Escape"]),
    ("win.terminal-focus", &["<Control><Shift>t"]),
    ("win.terminal-copy", &["<Control><Shift>c"]),
    ("win.terminal-paste", &["<Control><Shift>v"]),
    ("win.show-help-overlay", &["<Control>question"]),
    ("window.close", &["<Control>w"]),
    ("app.quit", &["<Control>q"]),
];

/// The actions whose keys stay bound while the pane's terminal has the keyboard focus
/// ([`set_typing`]): moving out of the terminal, copy, paste and the shortcuts window.
/// Every other key goes to the pane's program (Escape, Ctrl+D, Ctrl+K, Ctrl+W… are the
/// agent's keys there).
pub const WHILE_TYPING: &[&str] = &[
    "win.terminal-focus",
    "win.terminal-copy",
    "win.terminal-paste",
    "win.show-help-overlay",
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

/// The accelerators of every action of [`ACCELS`] while the terminal has the keyboard
/// focus (`typing`: only the actions of [`WHILE_TYPING`] keep theirs) or not (all).
pub fn accels(typing: bool) -> Vec<(&'static str, &'static [&'static str])> {
    ACCELS
        .iter()
        .map(|&(action, keys)| {
            let keep = !typing || WHILE_TYPING.contains(&action);
            (action, if keep { keys } else { &[][..] })
        })
        .collect()
}

/// Binds [`accels`]`(typing)` on `app`: called when the pane's terminal takes (`true`)
/// or loses the keyboard focus, so that keys typed into it reach the program.
pub fn set_typing(app: &impl IsA<gtk::Application>, typing: bool) {
    for (action, keys) in accels(typing) {
        app.set_accels_for_action(action, keys);
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
    fn while_typing_only_the_terminal_keys_and_help_stay_bound() {
        let typing = accels(true);
        assert_eq!(typing.len(), ACCELS.len());
        let bound: Vec<&str> = typing
            .iter()
            .filter(|(_, keys)| !keys.is_empty())
            .map(|(a, _)| *a)
            .collect();
        assert_eq!(bound, WHILE_TYPING);
        // None of them is a key a terminal program reads as an ordinary key: each takes
        // Control with Shift (`?` is a shifted key).
        for (action, keys) in &typing {
            for k in *keys {
                assert!(
                    k.starts_with("<Control>")
                        && (k.contains("<Shift>") || k.ends_with("question")),
                    "{action}: {k}"
                );
            }
        }
        assert_eq!(
            accels(false),
            ACCELS.to_vec(),
            "not typing: every key as set"
        );
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
