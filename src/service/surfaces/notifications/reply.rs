//! Replies from a notification, the notifier's side (`docs/desktop-surfaces.md#replies`;
//! which notification gets which reply action: [`crate::service::surfaces::replies`]):
//! the text of an inline reply (`NotificationReplied`) typed into its pane, and the
//! "Reply…" button opening the panel's reply field.

use super::Notifier;
use crate::client::needs::{reply_mode, ReplyMode};
use crate::model::PaneId;

impl Notifier {
    /// `NotificationReplied`: `text` typed into the reply field of notification `id`
    /// reaches its pane, when it still announces the question that is open there.
    pub(super) async fn replied(&mut self, id: u32, text: &str) {
        let Some(pane) = self.pane_of(id) else {
            tracing::debug!(id, "a reply to a notification that is gone: ignored");
            return;
        };
        let announced = self.shown.get(&pane).and_then(|s| s.decision);
        let snapshot = self.snapshot.clone();
        let Some(d) = snapshot
            .panes
            .get(&pane)
            .and_then(|p| p.pending_decision.as_ref())
            .filter(|d| Some(d.id) == announced)
        else {
            tracing::info!(%pane, "a reply for a question that is gone: ignored");
            return;
        };
        let Some(mode) = reply_mode(&crate::client::wire::WireDecision::of(d)) else {
            return;
        };
        let pick = match mode {
            ReplyMode::Type => None,
            ReplyMode::PickThenType { label } => Some(label),
        };
        tracing::info!(%pane, "replying from the notification");
        self.close(pane).await;
        let actions = self.actions.clone();
        let text = text.to_string();
        tokio::spawn(async move {
            if let Err(e) = actions.reply(pane, pick, text).await {
                tracing::warn!(%pane, "cannot reply: {e}");
            }
        });
    }

    /// The "Reply…" button: the panel's reply field on `pane`.
    pub(super) async fn reply_in_panel(&mut self, pane: PaneId, token: Option<String>) {
        tracing::info!(%pane, "notification reply: opening the panel's reply field");
        self.close(pane).await;
        let actions = self.actions.clone();
        tokio::spawn(async move { actions.reply_in_panel(pane, token).await });
    }
}
