//! The evidence ladder: ranked, time-bounded evidence and ONE arbitration point
//! (`docs/taxonomy.md#the-evidence-ladder`).
//!
//! Pure: evidence and time in, verdict out. Every signal becomes [`Evidence`] on a
//! [`Rung`]; [`Ladder::observe`] drops stale or reordered evidence (per-source monotonic
//! seq), tracks trust per rung (authoritative, trial, identity-only, absent), promotes a
//! trial rung after a measured agreement window, and degrades the hook rung to
//! identity-only on persistent contradiction (a visible [`HealthChange`]).
//! [`Ladder::decide`] picks the activity from the highest rung with authority and fresh
//! evidence, and needs-input from chrome (which outranks everything for needs-input only),
//! then self-report, then hooks. [`Ladder::correction`] says when the decided activity
//! must correct the lifecycle (the documented no-hook paths: Esc, deny, answering a gate
//! at the terminal).
//!
//! Rejected oracles stay rejected (docs/decisions/): transcript quiescence is not an
//! activity source, and screen text is never primary truth (chrome decides needs-input
//! only).

use crate::model::{AgentKind, Lifecycle, Pane, Rung, SignalKind, Timestamp};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How long a hook's activity claim keeps authority without being re-affirmed (ms). Hooks
/// are the only rung that does not self-date its evidence
/// (`docs/taxonomy.md#hook-authority-is-time-bounded`).
pub const HOOK_AUTHORITY_MS: i64 = 30_000;
/// How long the window-sampling rung's last claim stays fresh (ms).
pub const SAMPLING_FRESH_MS: i64 = 60_000;
/// A contradiction must persist this long before it counts (ms).
pub const CONTRADICTION_WINDOW_MS: i64 = 10_000;
/// …and over this many distinct turns before the hook rung is degraded.
pub const CONTRADICTION_TURNS: u32 = 3;
/// A trial rung is promoted after this many agreeing observations…
pub const AGREEMENT_COUNT: u32 = 20;
/// …spread over at least this long (ms).
pub const AGREEMENT_MIN_MS: i64 = 10 * 60_000;
/// A correction (self-report says idle while the lifecycle says working/blocked) waits
/// this long for the hook that usually accompanies it (a Stop) before it applies (ms).
pub const CORRECTION_GRACE_MS: i64 = 400;
/// A self-report going idle at most this long (ms) after an interrupt key Attend wrote
/// into the pane (a lone Esc, Ctrl-C: [`Ladder::note_interrupt`]) is that interrupt's
/// effect: the agent sends no stop hook after it, so the correction applies at once,
/// without [`CORRECTION_GRACE_MS`]. Claude Code reacts within 0.1–0.3 s (both pins).
pub const INTERRUPT_WINDOW_MS: i64 = 3_000;

/// The activity axis (`docs/taxonomy.md#axes`). `unknown` is honest: the oracle cannot
/// tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Activity {
    Working,
    IdleAtPrompt,
    Unknown,
}

impl Activity {
    /// Wire name: `working`, `idle-at-prompt`, `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            Activity::Working => "working",
            Activity::IdleAtPrompt => "idle-at-prompt",
            Activity::Unknown => "unknown",
        }
    }
}

/// needs-input as count + reason, never a status value
/// (`docs/taxonomy.md#needs-input-is-a-count-and-a-reason`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NeedsInput {
    pub count: u32,
    pub reason: Option<String>,
}

/// What one piece of evidence claims. `needs_input: Some(count 0)` is an explicit "no
/// prompt visible"; `None` says nothing about it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Claim {
    pub activity: Option<Activity>,
    pub needs_input: Option<NeedsInput>,
}

/// One observation on a rung (`docs/taxonomy.md#the-evidence-ladder`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    pub rung: Rung,
    /// The emitting source (`claude.hooks`, `claude.sessions/4242.json`, `pty`, …);
    /// `seq` is monotonic per source.
    pub source_id: String,
    pub seq: u64,
    pub observed_at: Timestamp,
    pub claim: Claim,
    /// Short human description for `explain` (`"Stop hook"`, `status=waiting"`).
    pub note: String,
}

/// Trust of one rung for one pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trust {
    /// Its claims decide.
    Authoritative,
    /// Recorded and compared, not deciding, until promoted.
    Trial,
    /// Only identity (session id, cwd) is taken from it.
    IdentityOnly,
    /// The agent has no such rung.
    Absent,
}

impl Trust {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Trust::Authoritative => "authoritative",
            Trust::Trial => "trial",
            Trust::IdentityOnly => "identity-only",
            Trust::Absent => "absent",
        }
    }
}

/// How much of the lifecycle a rung covers for an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Coverage {
    Full,
    Partial,
    None,
}

impl Coverage {
    /// Wire name: `full`, `partial`, `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            Coverage::Full => "full",
            Coverage::Partial => "partial",
            Coverage::None => "none",
        }
    }
}

/// The ranked rungs that can carry activity or needs-input claims, top down.
pub const LADDER: [Rung; 4] = [
    Rung::SelfReport,
    Rung::LifecycleHooks,
    Rung::NeedsInputChrome,
    Rung::WindowSampling,
];

/// The initial rung inventory of an agent: (rung, coverage, trust). ADR 0002; every
/// deviation is recorded in `docs/decisions/`.
pub fn inventory(agent: AgentKind) -> Vec<(Rung, Coverage, Trust)> {
    use Coverage::*;
    use Trust::*;
    let (self_report, hooks) = match agent {
        AgentKind::Claude => ((Full, Authoritative), (Full, Authoritative)),
        AgentKind::Codex => ((Partial, Trial), (Partial, Trial)),
        AgentKind::Gemini | AgentKind::Cursor | AgentKind::Qwen => {
            ((None, Absent), (Partial, Trial))
        }
        AgentKind::OpenCode | AgentKind::Kilo => ((None, Absent), (Partial, Trial)),
        AgentKind::Copilot => ((None, Absent), (Partial, Trial)),
        AgentKind::Droid => ((None, Absent), (Partial, Trial)),
        AgentKind::Pi => ((None, Absent), (Partial, Trial)),
        AgentKind::Kimi => ((None, Absent), (Partial, Trial)),
        AgentKind::Cline => ((None, Absent), (Partial, Trial)),
        AgentKind::Omp => ((None, Absent), (Partial, Trial)),
        // 1.5.47 fires none of its hooks: on trial until a release does.
        AgentKind::Continue => ((None, Absent), (Partial, Trial)),
        // No hooks at all: the screen (chrome) and window sampling carry it.
        AgentKind::Grok => ((None, Absent), (None, Absent)),
        AgentKind::Letta => ((None, Absent), (Partial, Trial)),
        AgentKind::Auggie => ((None, Absent), (Partial, Trial)),
        // Documented only: Amp's plugin, Qoder's Claude-style hooks, Crush's one hook.
        AgentKind::Amp | AgentKind::Qoder | AgentKind::Crush => ((None, Absent), (Partial, Trial)),
        AgentKind::MastraCode => ((None, Absent), (Partial, Trial)),
        // aider's one "hook" is its notification command (a turn's end only).
        AgentKind::Vibe | AgentKind::Aider | AgentKind::Hermes | AgentKind::OpenHands => {
            ((None, Absent), (Partial, Trial))
        }
        AgentKind::Shell => ((None, Absent), (None, Absent)),
    };
    let chrome = if agent == AgentKind::Shell {
        (None, Absent)
    } else {
        (Partial, Authoritative)
    };
    // Window titles: low-trust evidence only, for every agent that sets a state title
    // (docs/decisions/0003). Never promoted, never deciding.
    let titles = if agent == AgentKind::Shell {
        (None, Absent)
    } else {
        (Partial, Trial)
    };
    vec![
        (Rung::SelfReport, self_report.0, self_report.1),
        (Rung::LifecycleHooks, hooks.0, hooks.1),
        (Rung::NeedsInputChrome, chrome.0, chrome.1),
        (Rung::WindowSampling, Partial, Authoritative),
        (Rung::Terminal, titles.0, titles.1),
    ]
}

/// Rungs whose evidence is recorded (for `explain`) but never decides and is never
/// promoted: window titles (Claude shows its idle glyph while its permission dialog waits;
/// ADR 0003).
pub const LOW_TRUST: [Rung; 1] = [Rung::Terminal];

/// State of one rung on one pane.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RungState {
    pub coverage: Coverage,
    pub trust: Trust,
    /// Latest accepted evidence on this rung.
    pub last: Option<Evidence>,
    /// Agreement window of a trial rung.
    pub agreements: u32,
    pub agreeing_since: Option<Timestamp>,
    /// Contradiction tracking (hook rung vs an authoritative rung).
    pub contradicting_since: Option<Timestamp>,
    pub contradiction_turns: u32,
}

/// A visible change of a rung's trust (`rung.health` event).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HealthChange {
    pub rung: Rung,
    pub from: Trust,
    pub to: Trust,
    pub reason: String,
    pub at: Timestamp,
}

/// Result of [`Ladder::observe`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Observation {
    /// False when the evidence was stale or reordered (seq not above the source's last).
    pub accepted: bool,
    pub health: Vec<HealthChange>,
}

/// The arbitration verdict for one pane at one time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub activity: Activity,
    /// The evidence that decided the activity, if any.
    pub activity_by: Option<Evidence>,
    pub needs_input: NeedsInput,
    pub needs_input_by: Option<Evidence>,
}

/// Per-pane evidence and trust. Runtime state: rebuilt from the agent's inventory on
/// start and on every handover.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ladder {
    pub agent: AgentKind,
    pub rungs: BTreeMap<Rung, RungState>,
    pub last_seq: BTreeMap<String, u64>,
    pub health: Vec<HealthChange>,
    /// Turn counter (TurnStarted signals seen), for "several turns" in contradiction.
    pub turns: u32,
    pub contradiction_turn_seen: Option<u32>,
    /// When Attend last wrote an interrupt key into the pane ([`Ladder::note_interrupt`]).
    #[serde(default)]
    pub interrupted_at: Option<Timestamp>,
}

impl Ladder {
    /// A ladder with `agent`'s initial inventory.
    pub fn new(agent: AgentKind) -> Ladder {
        let rungs = inventory(agent)
            .into_iter()
            .map(|(rung, coverage, trust)| {
                (
                    rung,
                    RungState {
                        coverage,
                        trust,
                        last: None,
                        agreements: 0,
                        agreeing_since: None,
                        contradicting_since: None,
                        contradiction_turns: 0,
                    },
                )
            })
            .collect();
        Ladder {
            agent,
            rungs,
            last_seq: BTreeMap::new(),
            health: Vec::new(),
            turns: 0,
            contradiction_turn_seen: None,
            interrupted_at: None,
        }
    }

    /// Handover (`docs/taxonomy.md#handover`): a new occupant inherits no authority —
    /// evidence cleared, trust back to the inventory of `agent`. Health history is kept for
    /// `explain`.
    pub fn handover(&mut self, agent: AgentKind) {
        let health = std::mem::take(&mut self.health);
        *self = Ladder::new(agent);
        self.health = health;
    }

    /// Trust of `rung` (absent when the agent has no such rung).
    pub fn trust(&self, rung: Rung) -> Trust {
        self.rungs.get(&rung).map_or(Trust::Absent, |r| r.trust)
    }

    /// A source became unreadable, stale or missing (a self-report file deleted, its pid
    /// dead, its `procStart` not the process's): its rung's evidence is dropped, so the
    /// arbitration falls down the ladder silently
    /// (`docs/taxonomy.md#unreadable-evidence-falls-down-the-ladder`). Per-source seqs are
    /// kept, so older evidence stays rejected. Returns true when evidence was dropped.
    pub fn withdraw(&mut self, rung: Rung) -> bool {
        self.rungs
            .get_mut(&rung)
            .is_some_and(|st| st.last.take().is_some())
    }

    /// Counts a new turn (used to require contradiction "across several turns").
    pub fn note_turn(&mut self) {
        self.turns += 1;
    }

    /// Attend wrote an interrupt key (a lone Esc, Ctrl-C) into the pane at `at`, typed by
    /// the user (`attend send`, an attach client): a self-report going idle within
    /// [`INTERRUPT_WINDOW_MS`] corrects at once (`docs/lifecycle-attention.md#interrupts`).
    pub fn note_interrupt(&mut self, at: Timestamp) {
        self.interrupted_at = Some(at);
    }

    /// Records evidence at `now`. Stale or reordered evidence (seq ≤ the source's last)
    /// is dropped. Updates agreement (promotion) and contradiction (degradation).
    pub fn observe(&mut self, ev: Evidence, now: Timestamp) -> Observation {
        let mut obs = Observation::default();
        if let Some(&last) = self.last_seq.get(&ev.source_id) {
            if ev.seq <= last {
                return obs;
            }
        }
        self.last_seq.insert(ev.source_id.clone(), ev.seq);
        if !self.rungs.contains_key(&ev.rung) {
            obs.accepted = true;
            return obs;
        }
        obs.accepted = true;
        let rung = ev.rung;
        self.rungs.get_mut(&rung).expect("checked").last = Some(ev.clone());
        if let Some(h) = self.track_agreement(rung, &ev, now) {
            obs.health.push(h);
        }
        if let Some(h) = self.track_contradiction(now) {
            obs.health.push(h);
        }
        self.health.extend(obs.health.iter().cloned());
        obs
    }

    /// The activity claim of the highest authoritative rung other than `rung`, if fresh.
    fn reference_activity(&self, except: Rung, now: Timestamp) -> Option<Activity> {
        LADDER
            .iter()
            .filter(|r| **r != except && **r != Rung::NeedsInputChrome)
            .filter_map(|r| self.fresh_claim(*r, now))
            .next()
    }

    fn track_agreement(
        &mut self,
        rung: Rung,
        ev: &Evidence,
        now: Timestamp,
    ) -> Option<HealthChange> {
        let activity = ev.claim.activity?;
        if self.trust(rung) != Trust::Trial || LOW_TRUST.contains(&rung) {
            return None;
        }
        let reference = self.reference_activity(rung, now)?;
        let st = self.rungs.get_mut(&rung).expect("present");
        if reference == activity {
            st.agreements += 1;
            let since = *st.agreeing_since.get_or_insert(now);
            if st.agreements >= AGREEMENT_COUNT && now.millis_since(since) >= AGREEMENT_MIN_MS {
                st.trust = Trust::Authoritative;
                return Some(HealthChange {
                    rung,
                    from: Trust::Trial,
                    to: Trust::Authoritative,
                    reason: format!(
                        "{} agreeing observations over {} s",
                        st.agreements,
                        now.millis_since(since) / 1000
                    ),
                    at: now,
                });
            }
        } else {
            st.agreements = 0;
            st.agreeing_since = None;
        }
        None
    }

    /// Hook rung vs self-report: a hook keeps claiming X while the authoritative
    /// self-report says Y. The documented no-hook paths (Esc, deny: self-report idle
    /// while the hook said working/blocked) are not contradictions.
    fn track_contradiction(&mut self, now: Timestamp) -> Option<HealthChange> {
        if self.trust(Rung::LifecycleHooks) != Trust::Authoritative
            || self.trust(Rung::SelfReport) != Trust::Authoritative
        {
            return None;
        }
        let hook = self.rungs[&Rung::LifecycleHooks]
            .last
            .as_ref()?
            .claim
            .activity?;
        let sr = self.rungs[&Rung::SelfReport]
            .last
            .as_ref()?
            .claim
            .activity?;
        let documented_no_hook_path = hook == Activity::Working && sr == Activity::IdleAtPrompt;
        let st = self.rungs.get_mut(&Rung::LifecycleHooks).expect("present");
        if hook == sr || documented_no_hook_path {
            st.contradicting_since = None;
            return None;
        }
        let since = *st.contradicting_since.get_or_insert(now);
        if now.millis_since(since) < CONTRADICTION_WINDOW_MS {
            return None;
        }
        if self.contradiction_turn_seen != Some(self.turns) {
            self.contradiction_turn_seen = Some(self.turns);
            let st = self.rungs.get_mut(&Rung::LifecycleHooks).expect("present");
            st.contradiction_turns += 1;
        }
        let st = self.rungs.get_mut(&Rung::LifecycleHooks).expect("present");
        if st.contradiction_turns >= CONTRADICTION_TURNS {
            st.trust = Trust::IdentityOnly;
            return Some(HealthChange {
                rung: Rung::LifecycleHooks,
                from: Trust::Authoritative,
                to: Trust::IdentityOnly,
                reason: format!(
                    "hooks claimed {} while self-report said {} for over {} s in {} turns",
                    hook.as_str(),
                    sr.as_str(),
                    CONTRADICTION_WINDOW_MS / 1000,
                    st.contradiction_turns
                ),
                at: now,
            });
        }
        None
    }

    /// A rung's activity claim when the rung is authoritative and its evidence fresh:
    /// self-report and chrome date themselves (fresh while they stand); hooks are fresh for
    /// [`HOOK_AUTHORITY_MS`]; sampling for [`SAMPLING_FRESH_MS`].
    fn fresh_claim(&self, rung: Rung, now: Timestamp) -> Option<Activity> {
        let st = self.rungs.get(&rung)?;
        if st.trust != Trust::Authoritative {
            return None;
        }
        let ev = st.last.as_ref()?;
        let bound = match rung {
            Rung::LifecycleHooks => Some(HOOK_AUTHORITY_MS),
            Rung::WindowSampling => Some(SAMPLING_FRESH_MS),
            _ => None,
        };
        if bound.is_some_and(|b| now.millis_since(ev.observed_at) > b) {
            return None;
        }
        ev.claim.activity
    }

    /// The one arbitration: activity from the highest authoritative rung with fresh
    /// evidence, where a lower rung's *newer* evidence beats an expired hook claim; else
    /// `unknown` (unknown beats a confident wrong answer). needs-input: chrome first (a
    /// dialog you can see beats a hook that said working), then self-report, then hooks
    /// (authoritative, or on trial: for needs-input only).
    pub fn decide(&self, now: Timestamp) -> Verdict {
        self.decide_unspent(now, |_| false)
    }

    /// [`Ladder::decide`] where a rung whose needs-input evidence is `spent` (its dialog
    /// was closed or answered after it was observed) claims nothing, so needs-input is
    /// decided by the next deciding rung: a newer word below a spent reading still counts
    /// (`docs/lifecycle-attention.md#one-verdict`, "Closed is closed").
    pub fn decide_unspent(&self, now: Timestamp, spent: impl Fn(&Evidence) -> bool) -> Verdict {
        let mut activity = Activity::Unknown;
        let mut activity_by = None;
        for rung in [Rung::SelfReport, Rung::LifecycleHooks, Rung::WindowSampling] {
            if let Some(a) = self.fresh_claim(rung, now) {
                activity = a;
                activity_by = self.rungs[&rung].last.clone();
                break;
            }
        }
        let mut needs_input = NeedsInput::default();
        let mut needs_input_by = None;
        for rung in [
            Rung::NeedsInputChrome,
            Rung::SelfReport,
            Rung::LifecycleHooks,
        ] {
            let Some(st) = self.rungs.get(&rung) else {
                continue;
            };
            // A hook rung on trial decides needs-input too: a missed "needs you" costs
            // more than a false one (`docs/lifecycle-attention.md#one-verdict`).
            let deciding = st.trust == Trust::Authoritative
                || (rung == Rung::LifecycleHooks && st.trust == Trust::Trial);
            if !deciding {
                continue;
            }
            if let Some(ev) = &st.last {
                if let Some(n) = &ev.claim.needs_input {
                    if n.count > 0 && spent(ev) {
                        continue;
                    }
                    needs_input = n.clone();
                    needs_input_by = Some(ev.clone());
                    break;
                }
            }
        }
        Verdict {
            activity,
            activity_by,
            needs_input,
            needs_input_by,
        }
    }

    /// When the verdict contradicts the pane's lifecycle through a documented no-hook path,
    /// the signal that corrects it and the time it is due (after
    /// [`CORRECTION_GRACE_MS`], so the usual accompanying hook wins the race). Only
    /// self-report (an explicit rung) corrects; sampling never does.
    pub fn correction(&self, pane: &Pane, now: Timestamp) -> Option<(SignalKind, Timestamp)> {
        let st = self.rungs.get(&Rung::SelfReport)?;
        if st.trust != Trust::Authoritative {
            return None;
        }
        let ev = st.last.as_ref()?;
        let waiting = ev.claim.needs_input.as_ref().is_some_and(|n| n.count > 0);
        // After an interrupt key no stop hook comes: nothing to wait for.
        let interrupted = self.interrupted_at.is_some_and(|k| {
            ev.observed_at >= k && ev.observed_at.millis_since(k) <= INTERRUPT_WINDOW_MS
        });
        let due = if interrupted {
            ev.observed_at
        } else {
            Timestamp(ev.observed_at.0 + CORRECTION_GRACE_MS)
        };
        // Only evidence newer than the last hook evidence corrects.
        let hook_at = self
            .rungs
            .get(&Rung::LifecycleHooks)
            .and_then(|h| h.last.as_ref())
            .map(|h| h.observed_at);
        if hook_at.is_some_and(|h| h > ev.observed_at) {
            return None;
        }
        let _ = now;
        match (ev.claim.activity?, pane.lifecycle) {
            (Activity::IdleAtPrompt, Lifecycle::Working | Lifecycle::Blocked) if !waiting => {
                Some((SignalKind::GateDismissed, due))
            }
            _ => None,
        }
    }
}

/// The evidence a normalised signal carries on its own rung, if any (hooks and
/// self-report signals; terminal signals, exits and identity-only signals such as
/// subagent events carry no activity claim — a SubagentStop can never revive a pane).
pub fn claim_of(kind: &SignalKind) -> Option<(Claim, &'static str)> {
    use SignalKind as S;
    let working = Claim {
        activity: Some(Activity::Working),
        needs_input: Some(NeedsInput::default()),
    };
    let idle = Claim {
        activity: Some(Activity::IdleAtPrompt),
        needs_input: Some(NeedsInput::default()),
    };
    let gate = |reason: &str| Claim {
        activity: Some(Activity::IdleAtPrompt),
        needs_input: Some(NeedsInput {
            count: 1,
            reason: Some(reason.to_string()),
        }),
    };
    Some(match kind {
        S::TurnStarted => (working, "turn started"),
        S::ToolStarted { .. } => (working, "tool started"),
        S::ToolFinished { .. } => (working, "tool finished"),
        S::ModelRequest { .. } => (working, "model request"),
        S::ToolError { .. } => (working, "tool error"),
        S::PermissionRequested { .. } => (gate("permission prompt"), "permission requested"),
        S::QuestionAsked { .. } => (gate("input needed"), "question asked"),
        S::TurnStopped { .. } => (idle, "turn stopped"),
        S::TurnFailed { .. } => (idle, "turn failed"),
        S::GateDismissed => (idle, "gate dismissed"),
        S::SessionStarted { .. } => (idle, "session started"),
        _ => return None,
    })
}

/// A needs-input claim of `count` gates for `reason` (count 0: explicitly none).
fn needs(count: u32, reason: Option<&str>) -> Option<NeedsInput> {
    Some(NeedsInput {
        count,
        reason: reason.map(str::to_string),
    })
}

/// The low-trust claim of an agent's window title (OSC 0/2), from the title conventions in
/// `docs/adapters.md#window-titles`: a braille spinner glyph (U+2801–U+28FF) first means
/// working (Claude `⠂ Claude Code`, Codex `⠋ … | dir`); Claude's `✳` means idle — and also
/// shows while its permission dialog waits, which is why titles never decide; Codex `[ ! ]
/// Action Required` and Gemini `✋ Action Required` claim a prompt; Gemini `◇ Ready` idle
/// and `✦ Working…` working; Qwen Code `◐ Qwen - <dir>` working, `✳ Qwen - <dir>` a
/// prompt (its confirmation), the bare `Qwen - <dir>` idle. `None` for shells, empty
/// titles and anything else.
pub fn title_claim(agent: AgentKind, title: &str) -> Option<Claim> {
    let t = title.trim_start();
    let first = t.chars().next()?;
    let working = Claim {
        activity: Some(Activity::Working),
        needs_input: None,
    };
    let idle = Claim {
        activity: Some(Activity::IdleAtPrompt),
        needs_input: needs(0, None),
    };
    let prompt = Claim {
        activity: Some(Activity::IdleAtPrompt),
        needs_input: needs(1, Some("permission prompt")),
    };
    let spinner = ('\u{2801}'..='\u{28ff}').contains(&first);
    match agent {
        AgentKind::Claude if spinner => Some(working),
        AgentKind::Claude if first == '✳' => Some(idle),
        AgentKind::Codex if spinner => Some(working),
        AgentKind::Codex if t.starts_with("[ ! ]") => Some(prompt),
        AgentKind::Gemini if first == '✦' => Some(working),
        AgentKind::Gemini if first == '◇' => Some(idle),
        AgentKind::Gemini if first == '✋' => Some(prompt),
        AgentKind::Qwen if first == '◐' => Some(working),
        AgentKind::Qwen if first == '✳' => Some(prompt),
        AgentKind::Qwen if t.starts_with("Qwen - ") => Some(idle),
        _ => None,
    }
}

/// The self-report claim of Codex's private `OSC 7501;state=…:app=codex:kind=…`
/// (`docs/adapters.md#self-report-file`): `working` → working; `idle` → idle-at-prompt with
/// no prompt; `blocked` → idle-at-prompt with one prompt ("permission prompt" for
/// `kind=permission`, else "input needed"). Unknown states claim nothing.
pub fn codex_state_claim(state: &str, kind: Option<&str>) -> Option<Claim> {
    match state {
        "working" => Some(Claim {
            activity: Some(Activity::Working),
            needs_input: needs(0, None),
        }),
        "idle" => Some(Claim {
            activity: Some(Activity::IdleAtPrompt),
            needs_input: needs(0, None),
        }),
        "blocked" => {
            let reason = if kind == Some("permission") {
                "permission prompt"
            } else {
                "input needed"
            };
            Some(Claim {
                activity: Some(Activity::IdleAtPrompt),
                needs_input: needs(1, Some(reason)),
            })
        }
        _ => None,
    }
}
