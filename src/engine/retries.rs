//! Model request retries an agent shows nowhere but in its hooks
//! (`docs/lifecycle-attention.md#api-failures-and-policy-denials`): Gemini CLI 0.61.0
//! retries a failed model request (429, 5xx) after 5–10 s under "Thinking…", without a
//! word on its screen, but fires `BeforeModel` again for each attempt. The same request
//! again (same number of messages) with no other hook between is a retry: the pane gets a
//! `warning` once per run of retries, and its lifecycle stays as the hooks say (`working`).
//!
//! Pure: [`ModelRetries::observe`] takes each applied hook signal and says when a run of
//! retries starts.

use crate::model::SignalKind;

/// One pane's model requests since its last other hook.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelRetries {
    /// The message count of the last request, when the last hook was one.
    last: Option<u64>,
    /// Attempts of that request so far (1 = sent once).
    attempts: u32,
}

impl ModelRetries {
    /// A hook signal of the pane was applied. Returns the warning text when it starts a
    /// run of retries (the second attempt of the same request: `"model request failed ·
    /// retrying <model> · attempt 2"`); `None` otherwise, and for the further attempts of
    /// the run. Signals that are no hook's news (`Warning`, `IdentityOnly`) leave it as it
    /// is; any other ends the run.
    pub fn observe(&mut self, kind: &SignalKind) -> Option<String> {
        match kind {
            SignalKind::ModelRequest { model, messages } => {
                let same = messages.is_some() && self.last == *messages;
                self.last = *messages;
                self.attempts = if same { self.attempts + 1 } else { 1 };
                (self.attempts == 2).then(|| {
                    let model = model
                        .as_deref()
                        .map(|m| format!(" {m}"))
                        .unwrap_or_default();
                    format!("model request failed · retrying{model} · attempt 2")
                })
            }
            SignalKind::Warning { .. } | SignalKind::IdentityOnly => None,
            _ => {
                *self = ModelRetries::default();
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(messages: u64) -> SignalKind {
        SignalKind::ModelRequest {
            model: Some("gemini-3.8-flash".into()),
            messages: Some(messages),
        }
    }

    #[test]
    fn the_same_request_again_starts_one_run_of_retries() {
        let mut r = ModelRetries::default();
        assert_eq!(r.observe(&SignalKind::TurnStarted), None);
        assert_eq!(r.observe(&request(1)), None);
        assert_eq!(
            r.observe(&request(1)).as_deref(),
            Some("model request failed · retrying gemini-3.8-flash · attempt 2")
        );
        // The warning the run raised and further attempts: nothing more.
        let warning = SignalKind::Warning { text: "x".into() };
        assert_eq!(r.observe(&warning), None);
        assert_eq!(r.observe(&request(1)), None);
        // A tool call between: the next request is a new one; so is one with more messages.
        let tool = SignalKind::ToolStarted {
            tool: "run_shell_command".into(),
            tool_use_id: None,
        };
        assert_eq!(r.observe(&tool), None);
        assert_eq!(r.observe(&request(3)), None);
        assert_eq!(r.observe(&request(5)), None, "a continuation, not a retry");
        assert!(r.observe(&request(5)).is_some(), "a new run");
        // Unknown message counts never match.
        let mut r = ModelRetries::default();
        let unknown = SignalKind::ModelRequest {
            model: None,
            messages: None,
        };
        assert_eq!(r.observe(&unknown), None);
        assert_eq!(r.observe(&unknown), None);
    }
}
