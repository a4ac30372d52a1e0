//! Window sampling, the fallback rung of the evidence ladder (`docs/taxonomy.md#rungs`),
//! and the pacing
//! of screen-chrome evaluation: a pure per-pane state machine driven by PTY output and
//! by one timer that is armed only while the pane is producing output (no periodic
//! wakeups: a quiet pane has no deadline at all).
//!
//! Sampling: printable output after a quiet spell claims `working`. When no output came
//! for [`SILENCE_WINDOW_MS`] the pane is *suspected* quiet; if the silence holds for a
//! further [`IDLE_DEBOUNCE_MS`] the sampler claims `idle-at-prompt`. Output during the
//! debounce cancels the suspicion without a new claim (a model pausing mid-answer is not
//! a new turn).
//!
//! Chrome pacing: the needs-input chrome is evaluated when the screen changed, at most
//! once per [`CHROME_MIN_INTERVAL_MS`]; output inside that interval leaves an evaluation
//! pending. The next output after the interval evaluates it; if none comes, it is due
//! [`CHROME_MIN_INTERVAL_MS`] after the last output (so the last screen of a burst is
//! always seen, and a screen is evaluated at most an interval plus one output gap after
//! it changed). A spinner redrawn faster than the interval thus never wakes the pane's
//! timer: each frame moves the pending deadline later, and the frame after the interval
//! evaluates.
//!
//! One exception, once per quiet spell: the first output after at least
//! [`CHROME_MIN_INTERVAL_MS`] without any is evaluated at once, and output that follows
//! it inside the interval is evaluated as soon as it has settled for
//! [`CHROME_SETTLE_MS`], not a whole interval after it. A program that draws a dialog in
//! more than one write (the screen cleared, then the dialog) is read within moments of
//! the dialog, not 150 ms later. It costs at most one evaluation (and one timer) more per
//! quiet spell; a spinner, whose frames come faster than the interval, has no quiet
//! spell while it turns.

use crate::engine::ladder::Activity;
use crate::model::Timestamp;

/// Output gaps shorter than this belong to the same burst (ms).
pub const SILENCE_WINDOW_MS: i64 = 1_500;
/// After the silence window, silence must hold this much longer before the sampler
/// claims idle (ms).
pub const IDLE_DEBOUNCE_MS: i64 = 1_500;
/// Screen chrome is evaluated at most this often per pane (ms).
pub const CHROME_MIN_INTERVAL_MS: i64 = 150;
/// After the first evaluation following a quiet spell, more output inside the interval
/// is evaluated once it has been still this long (ms): the rest of a screen drawn in
/// several writes (see the module docs).
pub const CHROME_SETTLE_MS: i64 = 30;

/// Where the sampler is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No output since the last idle claim (or ever): no deadline.
    Quiet,
    /// Output within the silence window.
    Active,
    /// The silence window passed at this time; waiting out the debounce.
    Suspect(Timestamp),
}

/// What the caller must do after feeding the sampler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Step {
    /// A window-sampling claim to record.
    pub claim: Option<Activity>,
    /// Evaluate the screen chrome now.
    pub evaluate_chrome: bool,
}

/// One pane's sampler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sampler {
    phase: Phase,
    last_output: Option<Timestamp>,
    /// The last output of any kind (escape sequences too): what a pending chrome
    /// evaluation waits to settle after.
    last_change: Option<Timestamp>,
    last_chrome: Option<Timestamp>,
    chrome_pending: bool,
    /// The last evaluation was the first output after a quiet spell, and no output
    /// since has been evaluated: a pending evaluation is due [`CHROME_SETTLE_MS`] after
    /// the last output.
    after_quiet: bool,
}

impl Default for Sampler {
    fn default() -> Sampler {
        Sampler::new()
    }
}

impl Sampler {
    /// A quiet pane.
    pub fn new() -> Sampler {
        Sampler {
            phase: Phase::Quiet,
            last_output: None,
            last_change: None,
            last_chrome: None,
            chrome_pending: false,
            after_quiet: false,
        }
    }

    /// True while the pane counts as producing output (active or in the debounce).
    pub fn is_active(&self) -> bool {
        self.phase != Phase::Quiet
    }

    /// Output at `at`: `printable` when it held text (escape sequences alone do not
    /// count as activity but may still change the screen).
    pub fn output(&mut self, at: Timestamp, printable: bool) -> Step {
        let mut step = Step::default();
        if printable {
            if self.phase == Phase::Quiet {
                step.claim = Some(Activity::Working);
            }
            self.phase = Phase::Active;
            self.last_output = Some(at);
        }
        let quiet_before = self
            .last_change
            .map_or(true, |t| at.millis_since(t) >= CHROME_MIN_INTERVAL_MS);
        self.last_change = Some(at);
        match self.last_chrome {
            Some(t) if at.millis_since(t) < CHROME_MIN_INTERVAL_MS => self.chrome_pending = true,
            _ => {
                step.evaluate_chrome = true;
                self.last_chrome = Some(at);
                self.chrome_pending = false;
                self.after_quiet = quiet_before;
            }
        }
        step
    }

    /// The chrome evaluation the last step asked for could not run (the screen was busy):
    /// it stays pending, due [`CHROME_MIN_INTERVAL_MS`] after the last output.
    pub fn chrome_deferred(&mut self) {
        self.chrome_pending = true;
    }

    /// When [`Sampler::tick`] must run next; `None` when nothing is due (a quiet pane
    /// with no pending chrome evaluation: no timer).
    pub fn deadline(&self) -> Option<Timestamp> {
        let sampling = match (self.phase, self.last_output) {
            (Phase::Active, Some(t)) => Some(Timestamp(t.0 + SILENCE_WINDOW_MS)),
            (Phase::Suspect(since), _) => Some(Timestamp(since.0 + IDLE_DEBOUNCE_MS)),
            _ => None,
        };
        let chrome = self.chrome_due();
        match (sampling, chrome) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// When the pending chrome evaluation is due: [`CHROME_MIN_INTERVAL_MS`] after the
    /// last output (and after the last evaluation), [`CHROME_SETTLE_MS`] after it when
    /// the last evaluation was the first after a quiet spell; `None` when none is
    /// pending.
    fn chrome_due(&self) -> Option<Timestamp> {
        self.chrome_pending.then(|| {
            let since = self.last_change.max(self.last_chrome).map_or(0, |t| t.0);
            let wait = if self.after_quiet {
                CHROME_SETTLE_MS
            } else {
                CHROME_MIN_INTERVAL_MS
            };
            Timestamp(since + wait)
        })
    }

    /// The timer fired at `now` (early or late wakeups are fine: only what is due
    /// happens).
    pub fn tick(&mut self, now: Timestamp) -> Step {
        let mut step = Step::default();
        if self.chrome_due().is_some_and(|due| now >= due) {
            step.evaluate_chrome = true;
            self.chrome_pending = false;
            self.last_chrome = Some(now);
            self.after_quiet = false;
        }
        match (self.phase, self.last_output) {
            (Phase::Active, Some(t)) if now.millis_since(t) >= SILENCE_WINDOW_MS => {
                self.phase = Phase::Suspect(Timestamp(t.0 + SILENCE_WINDOW_MS));
                // A late timer may already be past the debounce too.
                return self.finish_debounce(now, step);
            }
            (Phase::Suspect(_), _) => return self.finish_debounce(now, step),
            _ => {}
        }
        step
    }

    fn finish_debounce(&mut self, now: Timestamp, mut step: Step) -> Step {
        if let Phase::Suspect(since) = self.phase {
            let silent_since = self.last_output.map_or(since, |t| t.max(since));
            if silent_since > since {
                // Output came during the debounce: still active.
                self.phase = Phase::Active;
            } else if now.millis_since(since) >= IDLE_DEBOUNCE_MS {
                self.phase = Phase::Quiet;
                step.claim = Some(Activity::IdleAtPrompt);
                // A final look at the settled screen.
                step.evaluate_chrome = true;
                self.last_chrome = Some(now);
                self.chrome_pending = false;
                self.after_quiet = false;
            }
        }
        step
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: i64) -> Timestamp {
        Timestamp(ms)
    }

    #[test]
    fn a_quiet_pane_has_no_deadline() {
        let s = Sampler::new();
        assert_eq!(s.deadline(), None);
        assert!(!s.is_active());
    }

    #[test]
    fn output_claims_working_once_then_idle_after_silence_and_debounce() {
        let mut s = Sampler::new();
        let step = s.output(t(0), true);
        assert_eq!(step.claim, Some(Activity::Working));
        assert!(step.evaluate_chrome);
        assert_eq!(s.output(t(500), true).claim, None, "same burst");
        assert_eq!(s.deadline(), Some(t(500 + SILENCE_WINDOW_MS)));
        // An early wakeup does nothing.
        assert_eq!(s.tick(t(600)).claim, None);
        // Silence window passed: suspected, not yet claimed.
        let at = 500 + SILENCE_WINDOW_MS;
        assert_eq!(s.tick(t(at)).claim, None);
        assert_eq!(s.deadline(), Some(t(at + IDLE_DEBOUNCE_MS)));
        let step = s.tick(t(at + IDLE_DEBOUNCE_MS));
        assert_eq!(step.claim, Some(Activity::IdleAtPrompt));
        assert!(step.evaluate_chrome, "the settled screen is evaluated");
        assert_eq!(s.deadline(), None, "quiet again: no timer");
    }

    #[test]
    fn output_during_the_debounce_cancels_the_idle_claim() {
        let mut s = Sampler::new();
        s.output(t(0), true);
        s.tick(t(SILENCE_WINDOW_MS));
        assert!(s.is_active());
        assert_eq!(
            s.output(t(SILENCE_WINDOW_MS + 100), true).claim,
            None,
            "no new working claim"
        );
        assert_eq!(s.tick(t(SILENCE_WINDOW_MS + IDLE_DEBOUNCE_MS)).claim, None);
        assert_eq!(s.deadline(), Some(t(2 * SILENCE_WINDOW_MS + 100)));
    }

    #[test]
    fn a_late_timer_claims_idle_at_once() {
        let mut s = Sampler::new();
        s.output(t(0), true);
        let step = s.tick(t(60_000));
        assert_eq!(step.claim, Some(Activity::IdleAtPrompt));
        assert_eq!(s.deadline(), None);
    }

    #[test]
    fn a_deferred_chrome_evaluation_is_retried_by_the_timer() {
        let mut s = Sampler::new();
        assert!(s.output(t(0), false).evaluate_chrome);
        // The screen was busy: nothing was evaluated; the first look after a quiet
        // spell is retried once the screen settled.
        s.chrome_deferred();
        assert_eq!(s.deadline(), Some(t(CHROME_SETTLE_MS)));
        assert!(!s.tick(t(CHROME_SETTLE_MS - 1)).evaluate_chrome);
        assert!(s.tick(t(CHROME_SETTLE_MS)).evaluate_chrome);
        assert_eq!(s.deadline(), None);
        // Inside a burst, one interval after the last output.
        let at = CHROME_SETTLE_MS + CHROME_MIN_INTERVAL_MS;
        s.output(t(at - 10), false);
        assert!(s.output(t(at), false).evaluate_chrome);
        s.chrome_deferred();
        assert_eq!(s.deadline(), Some(t(at + CHROME_MIN_INTERVAL_MS)));
        assert!(s.tick(t(at + CHROME_MIN_INTERVAL_MS)).evaluate_chrome);
    }

    #[test]
    fn chrome_is_paced_and_the_last_screen_is_always_evaluated() {
        let mut s = Sampler::new();
        assert!(s.output(t(0), false).evaluate_chrome);
        assert_eq!(s.deadline(), None, "escape sequences alone arm nothing");
        // The early look after the quiet spell (`a_screen_drawn_in_two_writes_…`).
        assert!(!s.output(t(10), false).evaluate_chrome);
        assert!(s.tick(t(10 + CHROME_SETTLE_MS)).evaluate_chrome);
        // From then on, one interval after the last output.
        let at = 50;
        assert!(!s.output(t(at), false).evaluate_chrome);
        assert_eq!(s.deadline(), Some(t(at + CHROME_MIN_INTERVAL_MS)));
        assert!(!s.tick(t(at + CHROME_MIN_INTERVAL_MS - 1)).evaluate_chrome);
        assert!(s.tick(t(at + CHROME_MIN_INTERVAL_MS)).evaluate_chrome);
        assert_eq!(s.deadline(), None);
        assert!(s.output(t(1000), false).evaluate_chrome, "interval passed");
    }

    /// A dialog drawn in two writes after a quiet spell (the screen cleared, then the
    /// dialog a moment later, as a program drawing in a followed tmux pane sends it): the
    /// clear is evaluated at once and finds nothing; the dialog is evaluated once it has
    /// been still for the settle time, not a whole interval after it. Once per quiet
    /// spell: output after that early look is paced as before.
    #[test]
    fn a_screen_drawn_in_two_writes_after_a_quiet_spell_is_read_once_it_settles() {
        let mut s = Sampler::new();
        s.output(t(0), true);
        s.tick(t(SILENCE_WINDOW_MS));
        s.tick(t(SILENCE_WINDOW_MS + IDLE_DEBOUNCE_MS));
        let clear = 10_000;
        assert!(
            s.output(t(clear), false).evaluate_chrome,
            "the clear, at once"
        );
        assert!(!s.output(t(clear + 40), true).evaluate_chrome);
        assert!(!s.output(t(clear + 45), true).evaluate_chrome);
        let settled = clear + 45 + CHROME_SETTLE_MS;
        assert_eq!(s.deadline(), Some(t(settled)));
        assert!(!s.tick(t(settled - 1)).evaluate_chrome);
        assert!(s.tick(t(settled)).evaluate_chrome, "the dialog, settled");
        // Once: more output inside the interval waits for the interval again.
        assert!(!s.output(t(settled + 20), true).evaluate_chrome);
        assert_eq!(s.deadline(), Some(t(settled + 20 + CHROME_MIN_INTERVAL_MS)));
    }

    /// A spinner frame every 110 ms: after its first two frames (the first look after
    /// the quiet spell, then the second frame once settled), the timer is never due
    /// before the next frame (the owner is never woken by it while frames come), and
    /// every first frame past the interval evaluates; when the frames stop, the last
    /// screen is due one interval after the last frame.
    #[test]
    fn a_spinner_faster_than_the_interval_evaluates_from_output_alone() {
        const FRAME: i64 = 110;
        let mut s = Sampler::new();
        let (mut by_output, mut by_timer) = (Vec::new(), Vec::new());
        for frame in 0..21 {
            let at = frame * FRAME;
            if let Some(due) = s.deadline().filter(|d| *d < t(at)) {
                if s.tick(due).evaluate_chrome {
                    by_timer.push(due.0);
                }
            }
            if s.output(t(at), true).evaluate_chrome {
                by_output.push(at);
            }
            let due = s.deadline().expect("active");
            if frame > 1 {
                assert!(due > t(at + FRAME), "due before the next frame at {at}");
            }
        }
        assert_eq!(by_timer, vec![FRAME + CHROME_SETTLE_MS]);
        let every_second: Vec<i64> = std::iter::once(0)
            .chain((1..10).map(|i| (2 * i + 1) * FRAME))
            .collect();
        assert_eq!(by_output, every_second);
        // The frames stop after 2200 with that frame's screen pending.
        let last = 20 * FRAME;
        assert_eq!(s.deadline(), Some(t(last + CHROME_MIN_INTERVAL_MS)));
        assert!(s.tick(t(last + CHROME_MIN_INTERVAL_MS)).evaluate_chrome);
    }
}
