//! Needs-input chrome on the live screen (the chrome rung of `docs/taxonomy.md#rungs`):
//! the loaded screen manifests
//! and the per-pane evaluation state.
//!
//! [`Manifests::load`] takes the manifests Attend ships (`data/manifests/<agent>.toml`,
//! compiled in) and replaces each with `$XDG_CONFIG_HOME/attend/manifests/<agent>.toml`
//! (else `~/.config/attend/manifests/`) when that file exists and is valid; an invalid
//! override is reported in the log and the shipped manifest stays. [`ChromeState`]
//! evaluates a pane's manifest on its visible screen (vt100, never scrollback) and title,
//! only when what its rules read there changed since the last evaluation (a working
//! agent's spinner redraws a row above the dialogs' regions many times a second); the
//! pacing of evaluations is `service::sampling`'s.

use crate::adapters::manifest::{self, evaluate, ClosedBy, Manifest, Region, Screen};
use crate::adapters::permission;
use crate::model::{AgentKind, DecisionKind, Timestamp};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The manifests in use, by agent, with where each came from.
#[derive(Debug, Default)]
pub struct Manifests {
    by_agent: HashMap<AgentKind, (Manifest, String)>,
}

/// `$XDG_CONFIG_HOME/attend/manifests`, else `$HOME/.config/attend/manifests`.
pub fn override_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("attend").join("manifests"))
}

impl Manifests {
    /// The shipped manifests with the user's overrides from [`override_dir`].
    pub fn load() -> Manifests {
        Manifests::load_from(override_dir().as_deref())
    }

    /// The shipped manifests, each replaced by `<dir>/<agent>.toml` when that exists and
    /// parses (an unreadable or invalid override is logged and ignored).
    pub fn load_from(dir: Option<&Path>) -> Manifests {
        let mut by_agent = HashMap::new();
        for agent in AgentKind::ALL {
            let shipped = manifest::shipped(agent).and_then(|text| match manifest::parse(text) {
                Ok(m) => Some((m, format!("shipped data/manifests/{agent}.toml"))),
                Err(e) => {
                    tracing::error!(%agent, "the shipped manifest is invalid: {e}");
                    None
                }
            });
            let user = dir.map(|d| d.join(format!("{agent}.toml"))).and_then(|path| {
                let text = std::fs::read_to_string(&path).ok()?;
                match manifest::parse(&text) {
                    Ok(m) => {
                        tracing::info!(%agent, path = %path.display(), "screen manifest override");
                        Some((m, path.display().to_string()))
                    }
                    Err(e) => {
                        tracing::warn!(%agent, path = %path.display(), "manifest override ignored: {e}");
                        None
                    }
                }
            });
            if let Some(m) = user.or(shipped) {
                by_agent.insert(agent, m);
            }
        }
        Manifests { by_agent }
    }

    /// The manifest for `agent`, if any.
    pub fn get(&self, agent: AgentKind) -> Option<&Manifest> {
        self.by_agent.get(&agent).map(|(m, _)| m)
    }

    /// Where `agent`'s manifest came from (`shipped data/manifests/claude.toml` or the
    /// override's path).
    pub fn origin(&self, agent: AgentKind) -> Option<&str> {
        self.by_agent.get(&agent).map(|(_, o)| o.as_str())
    }
}

/// The rule that matched, copied out of its manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matched {
    pub rule: String,
    pub reason: String,
    pub kind: DecisionKind,
    /// The rule's answer choice names (`allow`, `deny`, …).
    pub choices: Vec<String>,
    /// What the dialog asks: the first row of the rule's region that ends with `?`
    /// (without box sides), else the rule's reason.
    pub prompt: String,
    /// The option labels read off the rule's region (empty when none can be read).
    pub options: Vec<String>,
}

/// The first row of `region` that ends with `?`, without box sides, padding and a
/// leading `? ` mark (Continue CLI draws its question as `? Which color …?`).
fn question_row(region: &str) -> Option<String> {
    region
        .lines()
        .map(|r| r.trim().trim_matches(|c| c == '│' || c == '┃').trim())
        .find(|r| r.ends_with('?') && r.chars().count() > 3)
        .map(|r| r.strip_prefix("? ").unwrap_or(r).trim_start().to_string())
}

/// The rule that nearly matched: how many of its top-level gates held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nearest {
    pub rule: String,
    pub satisfied: usize,
    pub total: usize,
}

/// The result of the latest evaluation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChromeResult {
    pub matched: Option<Matched>,
    pub nearest: Option<Nearest>,
    /// No rule matched and this rule's closed screen shows: its dialog, if it was up,
    /// closed without a hook (`adapters::manifest::Rule::closed`).
    pub closed: Option<String>,
    /// Who closes the dialog of [`ChromeResult::closed`] (`Closed::by`).
    pub closed_by: ClosedBy,
    /// Since when [`ChromeResult::closed`] has shown without a break (the evaluation
    /// that first saw it): a reviewer's closed screen counts only when it appeared after
    /// the gate opened.
    pub closed_since: Option<Timestamp>,
}

/// The texts the rules of `manifest` read on `screen`: each distinct region of a rule or
/// of its closed screen, in manifest order. The evaluation ([`evaluate`], and what
/// [`ChromeState::evaluate`] reads off the matched rule's region) depends on nothing
/// else, so two screens with the same reading evaluate alike.
fn reading(manifest: &Manifest, screen: &Screen) -> Vec<String> {
    let mut regions: Vec<&Region> = Vec::new();
    for r in &manifest.rules {
        for region in std::iter::once(&r.region).chain(r.closed.as_ref().map(|c| &c.region)) {
            if !regions.contains(&region) {
                regions.push(region);
            }
        }
    }
    regions.iter().map(|r| screen.region(r)).collect()
}

/// One pane's chrome: what the rules read at the last evaluation and what it gave.
#[derive(Debug, Clone, Default)]
pub struct ChromeState {
    last_read: Option<Vec<String>>,
    pub result: ChromeResult,
    pub evaluated_at: Option<Timestamp>,
}

impl ChromeState {
    /// Evaluates `manifest` on `screen` at `at` unless what its rules read there (their
    /// regions, [`reading`]) is what they read at the last evaluation. Returns true when
    /// the matched rule changed (a dialog appeared, went away or became another one): the
    /// caller records chrome evidence.
    pub fn evaluate(&mut self, manifest: &Manifest, screen: Screen, at: Timestamp) -> bool {
        let read = reading(manifest, &screen);
        if self.last_read.as_ref() == Some(&read) {
            return false;
        }
        let e = evaluate(manifest, &screen);
        let mut result = ChromeResult {
            matched: e.matched.map(|r| {
                let region = screen.region(&r.region);
                let options = r.options(&region).map(|o| o.labels()).unwrap_or_default();
                // A permission is known by what it asks, whatever rule drew it.
                let kind = permission::kind_of(r.kind, &region, &options);
                let named: Vec<String> = r.answers.iter().map(|a| a.choice.clone()).collect();
                Matched {
                    rule: r.name.clone(),
                    reason: if kind == r.kind {
                        r.reason.clone()
                    } else {
                        crate::engine::verdict::PERMISSION_REASON.to_string()
                    },
                    kind,
                    choices: permission::choices(kind, &named),
                    prompt: question_row(&region).unwrap_or_else(|| r.reason.clone()),
                    options,
                }
            }),
            nearest: e.nearest.map(|n| Nearest {
                rule: n.rule.name.clone(),
                satisfied: n.satisfied,
                total: n.total,
            }),
            closed: e.closed.map(|r| r.name.clone()),
            closed_by: e
                .closed
                .and_then(|r| r.closed.as_ref())
                .map(|c| c.by)
                .unwrap_or_default(),
            closed_since: None,
        };
        if result.closed.is_some() {
            result.closed_since = if result.closed == self.result.closed {
                self.result.closed_since
            } else {
                Some(at)
            };
        }
        let first = self.evaluated_at.is_none();
        let changed = result.matched.as_ref().map(|m| &m.rule)
            != self.result.matched.as_ref().map(|m| &m.rule);
        self.last_read = Some(read);
        self.result = result;
        self.evaluated_at = Some(at);
        changed || (first && self.result.matched.is_some())
    }

    /// Forgets the screen (after a handover or exit) so the next evaluation reports its
    /// match afresh.
    pub fn reset(&mut self) {
        *self = ChromeState::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIALOG: &str = " Do you want to proceed?\n ❯ 1. Yes\n   2. No\n\n Esc to cancel";

    fn claude_screen(body: &str) -> Screen {
        Screen::new(&format!("● hi\n────────────────\n{body}"), "✳ Claude Code")
    }

    #[test]
    fn evaluation_reports_changes_of_the_matched_rule_only() {
        let ms = Manifests::load_from(None);
        let m = ms.get(AgentKind::Claude).unwrap();
        let mut c = ChromeState::default();
        assert!(
            !c.evaluate(m, claude_screen("❯ "), Timestamp(1)),
            "no dialog"
        );
        assert!(c.result.matched.is_none());
        assert!(c.evaluate(m, claude_screen(DIALOG), Timestamp(2)));
        let matched = c.result.matched.clone().unwrap();
        assert_eq!(matched.rule, "permission-dialog");
        assert_eq!(matched.reason, "permission prompt");
        // The same screen is not evaluated again.
        assert!(!c.evaluate(m, claude_screen(DIALOG), Timestamp(3)));
        assert_eq!(c.evaluated_at, Some(Timestamp(2)));
        // A different screen with the dialog still up: no change to report.
        assert!(!c.evaluate(
            m,
            claude_screen(&format!("{DIALOG}\n ctrl+e")),
            Timestamp(4)
        ));
        // Gone: a change; the near miss is kept for explain.
        assert!(c.evaluate(
            m,
            claude_screen(" Do you want to proceed?\n❯ "),
            Timestamp(5)
        ));
        assert!(c.result.matched.is_none());
        let near = c.result.nearest.clone().unwrap();
        assert_eq!(near.rule, "permission-dialog");
        assert_eq!((near.satisfied, near.total), (1, 3));
    }

    #[test]
    fn rows_outside_the_rules_regions_are_not_evaluated_again() {
        let ms = Manifests::load_from(None);
        let m = ms.get(AgentKind::Claude).unwrap();
        let mut c = ChromeState::default();
        let working = |glyph: &str, title: &str| {
            Screen::new(
                &format!("● hi\n{glyph} Pondering… (3s · esc to interrupt)\n────────────────\n❯ "),
                title,
            )
        };
        assert!(!c.evaluate(m, working("✻", "✳ Claude Code"), Timestamp(1)));
        assert_eq!(c.evaluated_at, Some(Timestamp(1)));
        // A spinner frame (a row above the last rule) and a title frame: no rule reads them.
        assert!(!c.evaluate(m, working("✶", "◐ Claude Code"), Timestamp(2)));
        assert_eq!(c.evaluated_at, Some(Timestamp(1)), "not evaluated again");
        // A dialog drawn below the rule, the spinner still turning: evaluated, and seen.
        let dialog = Screen::new(
            &format!("● hi\n✻ Pondering…\n────────────────\n{DIALOG}"),
            "◑ Claude Code",
        );
        assert!(c.evaluate(m, dialog, Timestamp(3)));
        assert_eq!(c.evaluated_at, Some(Timestamp(3)));
        assert_eq!(
            c.result.matched.as_ref().map(|r| r.rule.as_str()),
            Some("permission-dialog")
        );
    }

    #[test]
    fn a_dialogs_option_markers_are_not_part_of_the_options_it_reports() {
        // oh-my-pi's question: radio buttons before the labels (its manifest's
        // `option_markers`).
        let root = env!("CARGO_MANIFEST_DIR");
        let text = std::fs::read_to_string(format!(
            "{root}/tests/fixtures/screens/omp/18.2.3/ask-dialog.txt"
        ))
        .unwrap();
        let ms = Manifests::load_from(None);
        let mut c = ChromeState::default();
        assert!(c.evaluate(
            ms.get(AgentKind::Omp).unwrap(),
            Screen::new(&text, ""),
            Timestamp(1)
        ));
        let matched = c.result.matched.unwrap();
        assert_eq!(matched.rule, "ask");
        assert_eq!(matched.kind, DecisionKind::Question);
        assert_eq!(matched.prompt, "Which color do you want?");
        assert_eq!(matched.options, ["Red", "Blue", "Other (type your own)"]);
    }

    #[test]
    fn the_question_row_is_read_without_box_sides_and_question_mark() {
        let region = "│                              │\n│  ? Which color do you want?  │\n│    ❯ Red                     │";
        assert_eq!(
            question_row(region).as_deref(),
            Some("Which color do you want?")
        );
        assert_eq!(
            question_row(" Do you want to proceed?\n ❯ 1. Yes").as_deref(),
            Some("Do you want to proceed?")
        );
    }

    #[test]
    fn overrides_replace_shipped_manifests_and_bad_ones_are_ignored() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("claude.toml"),
            "[[rule]]\nname = \"mine\"\nreason = \"custom\"\nregion = { kind = \"title\" }\nmatch = { contains = \"!\" }\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("codex.toml"), "not toml [").unwrap();
        let ms = Manifests::load_from(Some(dir.path()));
        assert_eq!(ms.get(AgentKind::Claude).unwrap().rules[0].name, "mine");
        assert!(ms
            .origin(AgentKind::Claude)
            .unwrap()
            .ends_with("claude.toml"));
        assert_eq!(
            ms.origin(AgentKind::Codex),
            Some("shipped data/manifests/codex.toml")
        );
        assert!(ms.get(AgentKind::Shell).is_none());
    }
}
