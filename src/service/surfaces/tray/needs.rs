//! The tray menu's Needs you section (`docs/desktop-surfaces.md#needs-you`): a submenu
//! with every open decision of this machine's and the online remote hosts' panes, in the
//! queue's order ([`crate::client::needs`], the order of `attend needs` and the panel's
//! view). Each decision is a submenu of its choices (each answers it, as `attend answer`
//! does; a remote pane's on its host) and "Open" (the pane in the panel, or focused on its
//! host). Without decisions the section is one disabled "Nothing waits".

use super::{label, AttendTray, Request};
use crate::client::needs::{needs, waited_text, Need};
use crate::client::wire::{remote_pane, WirePane};
use crate::engine::clip;
use crate::model::PaneRef;
use ksni::menu::{StandardItem, SubMenu};
use ksni::MenuItem;

/// Longest label of a decision's entry (characters).
const ENTRY_MAX: usize = 80;

impl AttendTray {
    /// The queue of open decisions the tray knows at its snapshot's time: local panes
    /// (an external pane's gate marked as one) and the mirrored ones.
    pub(super) fn needs(&self) -> Vec<Need> {
        let local = self.snapshot.panes.values().map(|p| {
            let mut w = WirePane::of(p);
            if let Some(d) = w.pending_decision.as_mut() {
                d.gate = self.snapshot.gates.contains(&p.id).then_some(true);
            }
            w
        });
        let panes: Vec<WirePane> = local.chain(self.remote.iter().map(remote_pane)).collect();
        needs(&panes, self.snapshot.at)
    }

    /// The section: `Needs you (N)` with one submenu per decision, or a disabled
    /// `Nothing waits`.
    pub(super) fn needs_section(&self) -> MenuItem<Self> {
        let queue = self.needs();
        if queue.is_empty() {
            return StandardItem {
                label: "Needs you: nothing waits".into(),
                enabled: false,
                ..Default::default()
            }
            .into();
        }
        SubMenu {
            label: format!("Needs you ({})", queue.len()),
            icon_name: "emblem-important-symbolic".into(),
            submenu: queue.iter().filter_map(entry).collect(),
            ..Default::default()
        }
        .into()
    }
}

/// One decision's submenu: `place · prompt (waited)`, its choices, then Open; `None`
/// for a pane id that is not one.
fn entry(n: &Need) -> Option<MenuItem<AttendTray>> {
    let pane = PaneRef::parse(&n.pane)?;
    let prompt = crate::adapters::terminal_signals::sanitize_text(&n.decision.prompt, 200);
    let text = format!("{} · {} ({})", n.place, prompt, waited_text(n.waited_ms));
    let mut items: Vec<MenuItem<AttendTray>> = n
        .decision
        .choices
        .iter()
        .map(|choice| {
            let (pane, choice) = (pane.clone(), choice.clone());
            StandardItem {
                label: label(&choice),
                activate: Box::new(move |t: &mut AttendTray| {
                    t.ask(Request::Answer(pane.clone(), choice.clone()))
                }),
                ..Default::default()
            }
            .into()
        })
        .collect();
    let open = pane.clone();
    items.push(
        StandardItem {
            label: "Open".into(),
            activate: Box::new(move |t: &mut AttendTray| {
                let token = ksni::current_xdg_activation_token();
                t.ask(match &open.host {
                    None => Request::ShowPanel(Some(open.pane), token),
                    Some(_) => Request::FocusRemote(open.clone(), token),
                })
            }),
            ..Default::default()
        }
        .into(),
    );
    Some(
        SubMenu {
            label: label(&clip(&text, ENTRY_MAX)),
            submenu: items,
            ..Default::default()
        }
        .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AgentKind, AnswerKey, Attention, AttentionItem, Decision};
    use crate::model::{DecisionKind, HostName, Pane, PaneId, Source, Timestamp};
    use crate::service::surfaces::snapshot::Snapshot;
    use std::sync::Arc;
    use tokio::sync::mpsc;

    fn gate(id: u64, ws: &str, opened: i64) -> Pane {
        let mut p = Pane::new(
            PaneId(id),
            ws,
            "main",
            "api",
            AgentKind::Claude,
            Timestamp(0),
        );
        p.pending_decision = Some(Decision {
            id,
            kind: DecisionKind::Permission,
            prompt: "Bash: make".into(),
            options: vec!["Yes".into(), "No".into()],
            answer_keys: ["allow", "deny"]
                .map(|c| AnswerKey {
                    choice: c.into(),
                    keys: String::new(),
                })
                .to_vec(),
            tool_use_id: None,
            source: Source::user(),
            opened_at: Timestamp(opened),
        });
        p.items.push(AttentionItem {
            level: Attention::PermissionRequired,
            source: Source::user(),
            at: Timestamp(opened),
            decision: Some(id),
        });
        p.attention_changed_at = Some(Timestamp(opened));
        p
    }

    fn labels(items: &[MenuItem<AttendTray>]) -> Vec<String> {
        items
            .iter()
            .map(|m| match m {
                MenuItem::Standard(s) => s.label.clone(),
                MenuItem::SubMenu(s) => s.label.clone(),
                _ => "-".into(),
            })
            .collect()
    }

    #[test]
    fn the_section_lists_every_open_decision_in_the_queues_order_with_its_choices() {
        let snapshot = Snapshot {
            panes: [gate(1, "/w/new", 50_000), gate(2, "/w/old", 10_000)]
                .into_iter()
                .map(|p| (p.id, p))
                .collect(),
            gates: Default::default(),
            at: Timestamp(70_000),
        };
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut t = AttendTray::new(Arc::new(snapshot), tx);
        let far = crate::client::wire::WirePane::of(&gate(3, "/srv/far", 30_000));
        let far = crate::client::wire::mirrored(&HostName::parse("box").unwrap(), &far).unwrap();
        t.set_remote(Arc::new(vec![far]));
        let MenuItem::SubMenu(section) = t.needs_section() else {
            panic!("a submenu");
        };
        assert_eq!(section.label, "Needs you (3)");
        assert_eq!(
            labels(&section.submenu),
            [
                "old › api · Bash: make (1m)",
                "box › far › api · Bash: make (40s)",
                "new › api · Bash: make (20s)",
            ],
            "the one that waited longest first"
        );
        let MenuItem::SubMenu(far) = &section.submenu[1] else {
            panic!("a submenu");
        };
        assert_eq!(labels(&far.submenu), ["allow", "deny", "Open"]);
        let MenuItem::Standard(allow) = &far.submenu[0] else {
            panic!("an item");
        };
        (allow.activate)(&mut t);
        assert_eq!(
            rx.try_recv().unwrap(),
            Request::Answer(PaneRef::parse("box:p3").unwrap(), "allow".into())
        );

        let (tx, _rx) = mpsc::unbounded_channel();
        let empty = AttendTray::new(
            Arc::new(Snapshot {
                panes: Default::default(),
                gates: Default::default(),
                at: Timestamp(0),
            }),
            tx,
        );
        assert_eq!(
            labels(&[empty.needs_section()]),
            ["Needs you: nothing waits"]
        );
    }
}
