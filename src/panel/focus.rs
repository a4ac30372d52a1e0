//! The panel's part of focus (`docs/lifecycle-attention.md#focus`,
//! `docs/decisions/0011-panel-focus-after-activation-or-dwell.md`): a pane counts as
//! focused while it is selected in an active panel window **and** the user meant it — it
//! was activated (Enter, a click, `attend focus`, a notification click, "Next Unread") or
//! it stayed selected for [`DWELL`]. Moving the selection through the list with the
//! keyboard passes over panes without focusing them, so they keep their attention.
//!
//! Focusing reports `SetFocused(pane, true)`; deselecting it, selecting another, or the
//! window going inactive or closing reports `SetFocused(pane, false)`. Showing a
//! workspace reports nothing.

use super::client::Request;
use std::time::Duration;

/// How long a pane must stay selected, without being activated, before the panel reports
/// it focused (and the daemon clears its ordinary attention). Longer than the gap
/// between two key presses of someone scanning a list, short enough that reading a pane
/// counts.
pub const DWELL: Duration = Duration::from_millis(1200);

/// What the panel last reported to the daemon, and which pane the user engaged.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FocusTracker {
    reported: Option<String>,
    /// The selected pane the user activated or dwelt on; only it can be focused.
    engaged: Option<String>,
}

impl FocusTracker {
    /// The user activated `pane` or it stayed selected for [`DWELL`]: from now on it is
    /// focused while it stays selected in an active window.
    pub fn engage(&mut self, pane: &str) {
        self.engaged = Some(pane.to_string());
    }

    /// The pane engaged, if any.
    pub fn engaged(&self) -> Option<&str> {
        self.engaged.as_deref()
    }

    /// The requests that make the daemon's view match `selected` in a window that is
    /// `active` (nothing when it already does). A selection other than the engaged pane
    /// ends the engagement: coming back to a pane by moving the selection is a new pass.
    pub fn sync(&mut self, selected: Option<&str>, active: bool) -> Vec<Request> {
        if self.engaged.as_deref() != selected {
            self.engaged = None;
        }
        let want = self.engaged.as_deref().filter(|_| active);
        if self.reported.as_deref() == want {
            return Vec::new();
        }
        let mut out = Vec::new();
        if let Some(old) = self.reported.take() {
            out.push(Request::SetFocused(old, false));
        }
        if let Some(new) = want {
            out.push(Request::SetFocused(new.to_string(), true));
            self.reported = Some(new.to_string());
        }
        out
    }

    /// Forgets what was reported without telling the daemon: after a reconnect (the new
    /// daemon knows nothing of it) or when the pane is gone. The engagement stays: the
    /// pane is still the one the user chose.
    pub fn forget(&mut self) {
        self.reported = None;
    }

    /// The pane reported focused, if any.
    pub fn reported(&self) -> Option<&str> {
        self.reported.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(p: &str, f: bool) -> Request {
        Request::SetFocused(p.into(), f)
    }

    /// Selects `p` and engages it (an activation).
    fn activate(t: &mut FocusTracker, p: &str) -> Vec<Request> {
        t.engage(p);
        t.sync(Some(p), true)
    }

    #[test]
    fn activating_in_an_active_window_focuses_and_moving_on_unfocuses() {
        let mut t = FocusTracker::default();
        assert_eq!(
            t.sync(None, true),
            vec![],
            "showing a workspace is not focus"
        );
        assert_eq!(activate(&mut t, "p1"), vec![set("p1", true)]);
        assert_eq!(
            t.sync(Some("p1"), true),
            vec![],
            "a re-render reports nothing"
        );
        assert_eq!(
            activate(&mut t, "p2"),
            vec![set("p1", false), set("p2", true)]
        );
        assert_eq!(t.sync(None, true), vec![set("p2", false)]);
        assert_eq!(t.reported(), None);
    }

    #[test]
    fn selecting_without_activation_focuses_nothing_until_the_dwell_engages() {
        let mut t = FocusTracker::default();
        assert_eq!(activate(&mut t, "p1"), vec![set("p1", true)]);
        // The keyboard moves on: p1 is unfocused, p2 and p3 are passed over.
        assert_eq!(t.sync(Some("p2"), true), vec![set("p1", false)]);
        assert_eq!(t.sync(Some("p3"), true), vec![]);
        assert_eq!(t.reported(), None);
        // p3 stays selected for the dwell.
        t.engage("p3");
        assert_eq!(t.sync(Some("p3"), true), vec![set("p3", true)]);
        // Passing back over p1 does not focus it again.
        assert_eq!(t.sync(Some("p1"), true), vec![set("p3", false)]);
        assert_eq!(t.engaged(), None);
    }

    #[test]
    fn an_inactive_window_holds_no_focus() {
        let mut t = FocusTracker::default();
        t.engage("p1");
        assert_eq!(t.sync(Some("p1"), false), vec![]);
        assert_eq!(t.sync(Some("p1"), true), vec![set("p1", true)]);
        assert_eq!(t.sync(Some("p1"), false), vec![set("p1", false)]);
        assert_eq!(
            t.sync(Some("p1"), true),
            vec![set("p1", true)],
            "the window active again: the engaged pane is focused again"
        );
        t.forget();
        assert_eq!(
            t.sync(Some("p1"), true),
            vec![set("p1", true)],
            "after a reconnect the selection is reported again"
        );
    }
}
