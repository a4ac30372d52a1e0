//! Turns an API error ended that no hook reports
//! (`docs/lifecycle-attention.md#api-failures-and-policy-denials`): the error the agent
//! draws on its live screen as its last history cell
//! ([`crate::adapters::turn_errors`]) ends the turn `failed`, when it belongs to the
//! pane's current turn.
//!
//! Pure: [`screen_error_step`] takes the pane and the newly drawn error and returns the
//! signal to apply, if any.

use crate::model::{Lifecycle, Live, Pane, SignalKind, Timestamp};

/// The source origin of the signals [`screen_error_step`] returns (rung
/// `needs-input-chrome`).
pub const ERROR_ORIGIN: &str = "screen.error";

/// An error drawn at most this long (ms) after the pane's turn stop belongs to that turn:
/// Gemini CLI draws the error and fires its `AfterAgent` at once, so the stop hook may be
/// applied before the screen is read. Measured: the two 10–300 ms apart.
pub const ERROR_AFTER_STOP_MS: i64 = 3_000;

/// The signal for a turn error newly drawn on `pane`'s screen at `now` (`text`: the
/// error in words; `usage_limit`: a usage, quota or rate limit):
/// - the pane running and `working` (its agent fired no stop: Codex) → `TurnFailed`;
/// - `done` by a turn stop at most [`ERROR_AFTER_STOP_MS`] before → `TurnFailed` (the
///   same turn; Gemini's stop says only `[no response text]`);
/// - else `None`: an error drawn when no turn runs (a slash command's) changes nothing.
pub fn screen_error_step(
    pane: &Pane,
    text: &str,
    usage_limit: bool,
    now: Timestamp,
) -> Option<SignalKind> {
    if !matches!(pane.live, Live::Running) || pane.agent == crate::model::AgentKind::Shell {
        return None;
    }
    let ours = match pane.lifecycle {
        Lifecycle::Working => true,
        Lifecycle::Done => pane
            .done_at
            .is_some_and(|t| now.millis_since(t) <= ERROR_AFTER_STOP_MS),
        _ => false,
    };
    ours.then(|| SignalKind::TurnFailed {
        error: text.to_string(),
        usage_limit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AgentKind, PaneId};

    fn pane(lifecycle: Lifecycle, done_at: Option<i64>) -> Pane {
        let mut p = Pane::new(PaneId(1), "w", "", "", AgentKind::Codex, Timestamp(0));
        p.lifecycle = lifecycle;
        p.done_at = done_at.map(Timestamp);
        p
    }

    #[test]
    fn an_error_fails_a_working_turn_or_one_that_just_stopped() {
        let failed = Some(SignalKind::TurnFailed {
            error: "API error: x".into(),
            usage_limit: false,
        });
        let at = Timestamp(10_000);
        let step = |p: &Pane| screen_error_step(p, "API error: x", false, at);
        assert_eq!(step(&pane(Lifecycle::Working, None)), failed);
        assert_eq!(step(&pane(Lifecycle::Done, Some(9_000))), failed);
        assert_eq!(
            step(&pane(Lifecycle::Done, Some(6_000))),
            None,
            "an older turn"
        );
        for l in [
            Lifecycle::Idle,
            Lifecycle::Unknown,
            Lifecycle::Blocked,
            Lifecycle::Failed,
        ] {
            assert_eq!(step(&pane(l, Some(9_000))), None, "{l:?}");
        }
        let mut exited = pane(Lifecycle::Working, None);
        exited.live = Live::Exited {
            code: Some(1),
            signal: None,
        };
        assert_eq!(step(&exited), None);
        let mut shell = pane(Lifecycle::Working, None);
        shell.agent = AgentKind::Shell;
        assert_eq!(step(&shell), None);
    }
}
