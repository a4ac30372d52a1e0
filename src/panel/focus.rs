//! The panel's part of focus (`docs/lifecycle-attention.md#focus`): a pane counts as
//! focused while it is selected in an active panel window. Selecting it reports
//! `SetFocused(pane, true)`; deselecting it, selecting another, or the window going
//! inactive or closing reports `SetFocused(pane, false)`. Showing a workspace reports
//! nothing.

use super::client::Request;

/// What the panel last reported to the daemon.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FocusTracker {
    reported: Option<String>,
}

impl FocusTracker {
    /// The requests that make the daemon's view match `selected` in a window that is
    /// `active` (nothing when it already does).
    pub fn sync(&mut self, selected: Option<&str>, active: bool) -> Vec<Request> {
        let want = selected.filter(|_| active);
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
    /// daemon knows nothing of it) or when the pane is gone.
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

    #[test]
    fn selecting_in_an_active_window_focuses_and_moving_on_unfocuses() {
        let mut t = FocusTracker::default();
        assert_eq!(
            t.sync(None, true),
            vec![],
            "showing a workspace is not focus"
        );
        assert_eq!(t.sync(Some("p1"), true), vec![set("p1", true)]);
        assert_eq!(
            t.sync(Some("p1"), true),
            vec![],
            "a re-render reports nothing"
        );
        assert_eq!(
            t.sync(Some("p2"), true),
            vec![set("p1", false), set("p2", true)]
        );
        assert_eq!(t.sync(None, true), vec![set("p2", false)]);
        assert_eq!(t.reported(), None);
    }

    #[test]
    fn an_inactive_window_holds_no_focus() {
        let mut t = FocusTracker::default();
        assert_eq!(t.sync(Some("p1"), false), vec![]);
        assert_eq!(t.sync(Some("p1"), true), vec![set("p1", true)]);
        assert_eq!(t.sync(Some("p1"), false), vec![set("p1", false)]);
        t.sync(Some("p1"), true);
        t.forget();
        assert_eq!(
            t.sync(Some("p1"), true),
            vec![set("p1", true)],
            "after a reconnect the selection is reported again"
        );
    }
}
