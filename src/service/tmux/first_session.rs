//! Waiting for a new server's first session. `tmux new-session` binds the server's
//! socket before it makes the session, so a server found as its socket appears may have
//! none yet. The wait asks with plain clients (`list-sessions`), at growing intervals,
//! for a bounded time at the server's start only.
//!
//! No control client waits for `%sessions-changed` instead (it did until 2026-12-07):
//! tmux 3.3a's server crashes (SIGSEGV) when a control client attached to no session is
//! connected while the `new-session` that started the server runs, and the user's
//! `tmux new-session` then fails with "server exited unexpectedly" — 24 of 150 servers
//! started beside such a client crashed here, 0 of 150 beside plain clients
//! (docs/tmux.md#what-is-followed).

use std::time::{Duration, Instant};

/// How long a server found without a session is waited for: its first session is made by
/// the command that started it, at once; a server that makes none in this time counts as
/// ended (the next sign of it follows it afresh).
pub(super) const FIRST_SESSION_WAIT: Duration = Duration::from_secs(2);

/// The first pause between two questions; each next one is twice as long, up to
/// [`LONGEST_PAUSE`] (about a dozen questions in [`FIRST_SESSION_WAIT`]).
const FIRST_PAUSE: Duration = Duration::from_millis(5);

/// The longest pause between two questions.
const LONGEST_PAUSE: Duration = Duration::from_millis(320);

/// Waits for a session: asks `has_session` (which lists the sessions and starts their
/// clients) at once, then after pauses of 5, 10, 20 … ms (at most 320 ms), until it says
/// yes (true) or `limit` passed (false, after one last question). Blocking.
pub(super) fn wait(limit: Duration, mut has_session: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    let mut pause = FIRST_PAUSE;
    loop {
        if has_session() {
            return true;
        }
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        std::thread::sleep(pause.min(left));
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_made_a_moment_later_is_found() {
        let mut asked = 0;
        assert!(wait(Duration::from_secs(2), || {
            asked += 1;
            asked == 4
        }));
        assert_eq!(asked, 4);
    }

    #[test]
    fn no_session_within_the_limit_is_none_after_a_few_questions() {
        let started = Instant::now();
        let mut asked = 0;
        assert!(!wait(Duration::from_millis(100), || {
            asked += 1;
            false
        }));
        assert!(started.elapsed() >= Duration::from_millis(100));
        // 0, 5, 15, 35, 75 ms and one at the limit: a handful, not a busy loop.
        assert!((4..=8).contains(&asked), "{asked} questions");
    }
}
