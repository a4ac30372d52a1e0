use serde::{Deserialize, Serialize};
use std::fmt;

/// The rung of the evidence ladder (`docs/taxonomy.md#rungs`) a signal comes from, plus the
/// non-evidence origins (process, user). Carried by every signal and event from day one so
/// the ladder can arbitrate later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rung {
    /// r3: the agent's own status file (Claude `sessions/<pid>.json`, Codex OSC 7501).
    SelfReport,
    /// r2: agent lifecycle hooks.
    LifecycleHooks,
    /// r4: visible needs-input chrome on the live screen.
    NeedsInputChrome,
    /// r1: PTY output activity sampling (fallback).
    WindowSampling,
    /// Terminal signals: BEL, OSC notifications, titles, prompt marks.
    Terminal,
    /// The process itself: spawn, exit.
    Process,
    /// An explicit user action (mark seen, focus, answer).
    User,
}

impl Rung {
    /// Wire name (`"lifecycle-hooks"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Rung::SelfReport => "self-report",
            Rung::LifecycleHooks => "lifecycle-hooks",
            Rung::NeedsInputChrome => "needs-input-chrome",
            Rung::WindowSampling => "window-sampling",
            Rung::Terminal => "terminal",
            Rung::Process => "process",
            Rung::User => "user",
        }
    }

    /// Explicit events override heuristics: hooks, self-report, exit, user
    /// (`docs/lifecycle-attention.md#explicit-events-override-heuristics`).
    pub fn is_explicit(self) -> bool {
        matches!(
            self,
            Rung::SelfReport | Rung::LifecycleHooks | Rung::Process | Rung::User
        )
    }
}

/// Where a signal came from: its rung and a short origin such as `"claude.Stop"`,
/// `"terminal.bel"` or `"user"`. Rendered `rung:origin`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Source {
    pub rung: Rung,
    pub origin: String,
}

impl Source {
    /// A source on `rung` named `origin`.
    pub fn new(rung: Rung, origin: impl Into<String>) -> Source {
        Source {
            rung,
            origin: origin.into(),
        }
    }

    /// The user, acting through any surface.
    pub fn user() -> Source {
        Source::new(Rung::User, "user")
    }

    /// A hook of `agent` named `event` (`claude.Stop`).
    pub fn hook(agent: &str, event: &str) -> Source {
        Source::new(Rung::LifecycleHooks, format!("{agent}.{event}"))
    }

    /// A terminal signal (`terminal.bel`).
    pub fn terminal(what: &str) -> Source {
        Source::new(Rung::Terminal, format!("terminal.{what}"))
    }

    /// The process host (`process.exit`).
    pub fn process(what: &str) -> Source {
        Source::new(Rung::Process, format!("process.{what}"))
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.rung.as_str(), self.origin)
    }
}
