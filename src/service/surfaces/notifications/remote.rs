//! Notifications of remote panes (`docs/remote.md#how-remote-panes-are-mirrored`,
//! "Notifications"; `docs/desktop-surfaces.md#remote-panes`): the host's mirror decides
//! when one is raised and withdrawn ([`RemoteNotice`]); this side shows it with the words
//! of a local pane's ([`content_of`]: the summary prefixed with the host, `buildbox ›
//! webapp › api — permission: Bash`) and carries out its actions on the host's daemon
//! over the link: a choice's button answers (`Answer`), the click focuses the pane there
//! (`Focus`) and shows the panel on it when the panel runs. An action refused (host
//! offline, decision gone) is logged.

use super::{content_of, Notifier, Shown};
use crate::adapters::mirror::MirroredPane;
use crate::model::{Attention, PaneRef};
use crate::service::remotes::{RemoteNotice, RemoteUpdate};

/// The choices a notification button may answer on a remote pane while its host is
/// online: its decision's choices while its host's daemon runs it and can type into it
/// (owned, running); `allow` and `deny` on an external pane whose gate a waiting hook
/// run there takes the answer for (`gate`,
/// docs/decisions/0015-answering-external-gates.md); none otherwise. `default` is the
/// click, never a choice.
pub(super) fn remote_buttons(p: &MirroredPane) -> Vec<String> {
    let running = p.live.known().is_some_and(|l| l.is_running());
    match &p.decision {
        Some(d) if p.owned && running && !p.offline => d
            .choices
            .iter()
            .filter(|c| *c != "default")
            .cloned()
            .collect(),
        Some(d) if d.gate && !p.owned && !p.offline => attend_hook::gate::CHOICES
            .iter()
            .map(|c| c.to_string())
            .collect(),
        _ => Vec::new(),
    }
}

impl Notifier {
    /// A change of the mirrors: keeps its panes, carries out its notices in order.
    pub(super) async fn remote_update(&mut self, u: &RemoteUpdate) {
        self.remote = u.panes.clone();
        for notice in &u.notices {
            match notice {
                RemoteNotice::Notify {
                    pane,
                    level,
                    decision,
                } => self.show_remote(pane, *level, *decision, true).await,
                RemoteNotice::Withdraw { pane } => self.close_remote(pane).await,
            }
        }
    }

    /// Shows (or replaces) the notification of the remote pane `p` at `level`.
    async fn show_remote(
        &mut self,
        p: &MirroredPane,
        level: Attention,
        decision: Option<u64>,
        fresh: bool,
    ) {
        let pane = p.id.clone();
        let replaces = self.remote_shown.get(&pane).and_then(|s| s.id);
        self.remote_shown.insert(
            pane.clone(),
            Shown {
                id: replaces,
                level,
                decision,
                content: None,
            },
        );
        let sound = p
            .agent
            .known()
            .filter(|a| fresh && self.settings.sound.wanted(level, *a))
            .map(|_| super::sound::sound_name(level));
        let Some(caps) = self.server().await else {
            if let Some(name) = sound {
                self.play(&pane, name);
            }
            return;
        };
        let c = content_of(
            &crate::client::wire::remote_pane(p),
            remote_buttons(p)
                .into_iter()
                .map(|c| (c.clone(), c))
                .collect(),
            level,
            caps,
        );
        if let Some(id) = self.notify(replaces, &c, sound).await {
            tracing::debug!(%pane, id, level = level.as_str(), "notified (remote pane)");
            if let Some(s) = self.remote_shown.get_mut(&pane) {
                s.id = Some(id);
            }
        }
    }

    /// Closes and forgets the notification of the remote pane `pane`.
    async fn close_remote(&mut self, pane: &PaneRef) {
        let Some(Shown { id: Some(id), .. }) = self.remote_shown.remove(pane) else {
            return;
        };
        self.tokens.remove(&id);
        if self.caps.is_none() {
            return;
        }
        let closed = tokio::time::timeout(super::CALL_LIMIT, self.proxy.close_notification(id));
        match closed.await {
            Ok(Ok(())) => tracing::debug!(%pane, id, "notification closed (remote pane)"),
            Ok(Err(e)) => tracing::debug!(%pane, id, "cannot close the notification: {e}"),
            Err(_) => tracing::debug!(%pane, id, "CloseNotification timed out"),
        }
    }

    pub(super) fn remote_pane_of(&self, id: u32) -> Option<PaneRef> {
        self.remote_shown
            .iter()
            .find(|(_, s)| s.id == Some(id))
            .map(|(p, _)| p.clone())
    }

    fn mirrored(&self, pane: &PaneRef) -> Option<&MirroredPane> {
        self.remote.iter().find(|p| &p.id == pane)
    }

    /// `ActionInvoked` on a remote pane's notification: `default` focuses the pane on
    /// its host, a choice's button answers the decision it announced (only while that
    /// decision is still the pane's open one).
    pub(super) async fn remote_invoked(&mut self, id: u32, key: &str) {
        let Some(pane) = self.remote_pane_of(id) else {
            return;
        };
        let token = self.tokens.remove(&id);
        let actions = self.actions.clone();
        if key == "default" {
            tracing::info!(%pane, "notification clicked: focusing the remote pane");
            self.close_remote(&pane).await;
            tokio::spawn(async move {
                if let Err(e) = actions.focus_remote(&pane, token).await {
                    tracing::warn!(%pane, "cannot focus the remote pane: {e}");
                }
            });
            return;
        }
        let announced = self.remote_shown.get(&pane).and_then(|s| s.decision);
        let p = self.mirrored(&pane);
        let open = p.and_then(|p| p.decision.as_ref()).map(|d| d.id);
        if announced.is_none() || announced != open {
            tracing::info!(%pane, "notification button for a decision that is gone: ignored");
            return;
        }
        if !p.is_some_and(|p| remote_buttons(p).iter().any(|c| c == key)) {
            tracing::debug!(%pane, action = key, "unknown notification action");
            return;
        }
        tracing::info!(%pane, choice = key, "answering the remote pane from the notification");
        let choice = key.to_string();
        tokio::spawn(async move {
            if let Err(e) = actions.answer_remote(&pane, &choice).await {
                tracing::warn!(%pane, "cannot answer the remote pane: {e}");
            }
        });
    }

    /// After a server (re)appeared: the remote notifications still kept are raised
    /// again (no sound), with the panes' words now.
    pub(super) async fn remote_again(&mut self) {
        let remote = self.remote.clone();
        let again: Vec<(MirroredPane, Attention, Option<u64>)> = self
            .remote_shown
            .iter()
            .filter_map(|(pane, s)| {
                let p = remote.iter().find(|p| &p.id == pane)?;
                Some((p.clone(), s.level, s.decision))
            })
            .collect();
        self.remote_shown.clear();
        for (p, level, decision) in again {
            self.show_remote(&p, level, decision, false).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Caps, Content};
    use super::*;
    use crate::client::wire::{WireDecision, WirePane};
    use crate::model::HostName;

    fn gate(owned: bool) -> MirroredPane {
        let mut p = crate::model::Pane::new(
            crate::model::PaneId(3),
            "/src/webapp",
            "main",
            "api",
            crate::model::AgentKind::Claude,
            crate::model::Timestamp(0),
        );
        p.owned = owned;
        let mut v = WirePane::of(&p);
        v.lifecycle = "blocked".into();
        v.attention = "permission_required".into();
        v.pending_decision = Some(WireDecision {
            id: 4,
            kind: "permission".into(),
            prompt: "Bash: make deploy".into(),
            options: vec!["Yes".into(), "No".into()],
            choices: vec!["allow".into(), "deny".into()],
            source: "user".into(),
            opened_at: 1_767_225_600_000,
            tool_use_id: None,
            gate: (!owned).then_some(true),
        });
        crate::client::wire::mirrored(&HostName::parse("buildbox").unwrap(), &v).unwrap()
    }

    #[test]
    fn a_remote_gate_reads_as_a_local_one_prefixed_with_its_host() {
        let caps = Caps {
            actions: true,
            markup: false,
            inline_reply: false,
        };
        let p = gate(true);
        let c: Content = content_of(
            &crate::client::wire::remote_pane(&p),
            remote_buttons(&p)
                .into_iter()
                .map(|c| (c.clone(), c))
                .collect(),
            Attention::PermissionRequired,
            caps,
        );
        assert_eq!(c.summary, "buildbox › webapp › api — permission: Bash");
        assert_eq!(c.body, "make deploy");
        let keys: Vec<&str> = c.actions.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["default", "allow", "deny"]);
        // An external pane whose gate a hook run there waits on: allow and deny.
        assert_eq!(remote_buttons(&gate(false)), ["allow", "deny"]);
        // An external pane without one, or one of an offline host: the click only.
        let mut plain = gate(false);
        plain.decision.as_mut().unwrap().gate = false;
        assert!(remote_buttons(&plain).is_empty());
        for mut off in [gate(true), gate(false)] {
            off.offline = true;
            assert!(remote_buttons(&off).is_empty());
        }
    }
}
