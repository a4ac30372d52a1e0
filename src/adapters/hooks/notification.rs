//! What an agent's `Notification` hook does, per `notification_type`.

use super::payload::Payload;
use crate::model::{DecisionKind, GateRef, SignalKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The effect of one notification type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotificationAction {
    /// It names a gate of this kind: restates the open gate, or opens one when none is
    /// open (`AgentNotification { gate: Names(kind) }`).
    Gate(DecisionKind),
    /// A plain notification: its text becomes the last message and raises unread
    /// (`AgentNotification { gate: None }`).
    Unread,
    /// Ignored: identity only.
    Ignore,
}

/// Per-type behaviour of agent notifications (Claude `Notification`, Gemini
/// `Notification` other than `ToolPermission`). Types missing from `by_type` use `other`.
///
/// Default (`docs/adapters.md#claude-notification-types`): `permission_prompt` → gate
/// permission, `elicitation_dialog` and `agent_needs_input` → gate question (a
/// notification naming a question blocks), `idle_prompt` → unread, any other type →
/// unread. `idle_prompt` fires ~60 s after a turn ended and re-raises unread on a pane
/// already seen; set it to [`NotificationAction::Ignore`] to silence that.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotificationPolicy {
    pub by_type: BTreeMap<String, NotificationAction>,
    pub other: NotificationAction,
}

impl Default for NotificationPolicy {
    fn default() -> NotificationPolicy {
        let by_type = [
            (
                "permission_prompt",
                NotificationAction::Gate(DecisionKind::Permission),
            ),
            (
                "elicitation_dialog",
                NotificationAction::Gate(DecisionKind::Question),
            ),
            (
                "agent_needs_input",
                NotificationAction::Gate(DecisionKind::Question),
            ),
            ("idle_prompt", NotificationAction::Unread),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        NotificationPolicy {
            by_type,
            other: NotificationAction::Unread,
        }
    }
}

impl NotificationPolicy {
    /// The action for `notification_type` (`None` when the payload has no type).
    pub fn action(&self, notification_type: Option<&str>) -> NotificationAction {
        notification_type
            .and_then(|t| self.by_type.get(t))
            .copied()
            .unwrap_or(self.other)
    }

    /// The signal for a notification payload: its `notification_type` picks the action,
    /// its `message` (else the type) is the text.
    pub(super) fn signal(&self, p: &Payload<'_>) -> SignalKind {
        let notification_type = p.str("notification_type");
        let text = p
            .first_str(&["message", "notification_type"])
            .unwrap_or("notification");
        let gate = match self.action(notification_type) {
            NotificationAction::Gate(kind) => GateRef::Names(kind),
            NotificationAction::Unread => GateRef::None,
            NotificationAction::Ignore => return SignalKind::IdentityOnly,
        };
        SignalKind::AgentNotification {
            text: text.to_string(),
            gate,
        }
    }
}
