//! Screen manifests: the needs-input chrome rung of the evidence ladder
//! (`docs/taxonomy.md#rungs`, `docs/taxonomy.md#screen-manifests`).
//!
//! A manifest is a TOML file of rules, one per blocking dialog an agent draws. Attend ships
//! one per agent in `data/manifests/<agent>.toml` (compiled in, see [`shipped`]); a file of
//! the same name in `$XDG_CONFIG_HOME/attend/manifests/` replaces it (read by
//! `service::chrome`). A rule names a **region** of the *live* screen (never scrollback),
//! **gates** that must hold on that region, the needs-input **reason** it stands for and
//! how each answer choice is found in the dialog (what `attend answer PANE allow|deny`
//! picks): the **label** of the option it means (a regex; the keys are derived from the
//! options on screen at the moment of answering, [`super::answer`]), or fixed **keys** for
//! what is not an option (Esc):
//!
//! ```toml
//! [[rule]]
//! name = "permission-dialog"
//! kind = "permission"            # or "question"; default permission
//! reason = "permission prompt"
//! region = { kind = "after-last-rule" }   # or { kind = "bottom", lines = 12 }, { kind = "title" }
//! match = { all = [
//!   { contains = "Do you want to proceed?" },
//!   { regex = '(?m)^\s*(❯\s*)?1\. Yes' },
//!   { not = { contains = "Esc to interrupt" } },
//! ] }
//! answers = [
//!   { choice = "allow", label = '^Yes$' },
//!   { choice = "deny", label = '^No\b' },
//!   { choice = "cancel", keys = "\u001b" },
//! ]
//! ```
//!
//! Regions: `bottom` = the bottom `lines` non-empty rows; `after-last-rule` = the
//! non-empty rows below the last horizontal rule (a row of at least [`RULE_MIN_LEN`]
//! box-drawing line characters, how the agents' TUIs frame their dialogs), at most
//! `max_lines` of them; `from-last-row` = the non-empty rows from the last row that
//! contains `text` to the bottom; `title` = the window title. Gates: `contains` (substring),
//! `regex` (Rust `regex` syntax; `(?m)` makes `^`/`$` match at row boundaries), `all`,
//! `any`, `not`, and `options = { min = 2, cursor = true }` (a list of options with the
//! selection cursor: an agent's dialog frame whatever its words, [`super::dialog`]). The
//! first rule that matches wins; [`evaluate`] also reports the rule that *nearly* matched
//! (the most satisfied top-level gates) for `attend explain`. A rule may also say how the
//! screen looks once its dialog closed without a hook (`closed = { region = …, match =
//! … }`, [`Rule::closed`]; `by = "reviewer"` when the agent's own reviewer closed it,
//! [`ClosedBy`]); [`evaluate`] reports such a rule while no rule matches. A rule's
//! `option_markers` (`["○", "◉"]`) are glyphs its dialog draws before each option's label
//! that are not part of the label (radio buttons, [`Rule::options`]).
//!
//! Pure: parsing and evaluation only, no I/O. Prose that merely contains "proceed?" or
//! "1. Yes" is not a dialog: the shipped rules anchor their gates to the dialog's own
//! rows and footer inside its region (docs/decisions/0001).

use super::dialog::{read_marked_options, read_options, Options};
use crate::model::{AgentKind, DecisionKind};
use regex::Regex;
use serde::{Deserialize, Deserializer};

mod screen;

pub use screen::{is_rule, Region, Screen, RULE_MIN_LEN};

/// A parsed manifest: the agent's dialog rules, in evaluation order.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The agent it describes (informative).
    #[serde(default)]
    pub agent: Option<String>,
    /// The agent version its rules were built from (informative).
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default, rename = "rule")]
    pub rules: Vec<Rule>,
}

/// One dialog: where to look, what must hold there, what it means.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Unique within the manifest; shown by `attend explain`.
    pub name: String,
    /// The decision kind the dialog stands for (default `permission`).
    #[serde(default = "permission")]
    pub kind: DecisionKind,
    /// The needs-input reason (`"permission prompt"`).
    pub reason: String,
    pub region: Region,
    #[serde(rename = "match")]
    pub gate: Gate,
    /// How each answer choice is found in the dialog.
    #[serde(default)]
    pub answers: Vec<AnswerSpec>,
    /// The dialog's number keys only move the selection, Enter confirms (Codex): an
    /// answer by number types the number and Enter. Default false (the number picks).
    #[serde(default)]
    pub number_then_enter: bool,
    /// How the screen looks once the agent closed this dialog without any hook saying so
    /// (Copilot's Esc: its own prompt back, not working): while no rule matches, this
    /// screen ends the gate whose dialog the chrome saw
    /// (`docs/lifecycle-attention.md#gates-the-screen-closes`).
    #[serde(default)]
    pub closed: Option<Closed>,
    /// Glyphs the dialog draws between the cursor and each option's label that are not
    /// part of the label (oh-my-pi's radio buttons `○`, `◉`); default none.
    #[serde(default)]
    pub option_markers: Vec<String>,
}

impl Rule {
    /// The options of this rule's dialog in `region`, its markers taken off their labels
    /// ([`read_marked_options`]).
    pub fn options(&self, region: &str) -> Option<Options> {
        read_marked_options(region, &self.option_markers)
    }
}

/// The screen of a dialog closed without a hook ([`Rule::closed`]): a region and the
/// gates that must hold there.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Closed {
    pub region: Region,
    #[serde(rename = "match")]
    pub gate: Gate,
    /// Who closed the dialog (default [`ClosedBy::User`]).
    #[serde(default)]
    pub by: ClosedBy,
}

/// Who closes a gate without a hook ([`Closed::by`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClosedBy {
    /// The user at the terminal (Copilot's Esc): the dialog was on screen and the turn
    /// ended; the gate resolves `dismissed` and the pane goes `idle`.
    #[default]
    User,
    /// The agent's own reviewer (Codex's auto-review denial): no dialog was drawn and the
    /// turn goes on; the screen must appear after the gate opened, the gate resolves
    /// `dismissed` and the pane is back to `working`.
    Reviewer,
}

/// One answer choice of a rule: the option whose label matches `label` (exactly one on
/// screen must), or fixed `keys` for a key that is not an option (Esc); exactly one of the
/// two, but `allow`/`deny` of a permission go by meaning: `keys` or nothing, no label.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerSpec {
    /// The choice name (`allow`, `always`, `deny`, `cancel`), case-insensitive.
    pub choice: String,
    /// A regex over the option's label as [`super::dialog::read_options`] reads it.
    #[serde(default)]
    pub label: Option<Pattern>,
    /// Fixed keys to type.
    #[serde(default)]
    pub keys: Option<String>,
}

fn permission() -> DecisionKind {
    DecisionKind::Permission
}

/// A condition on a region's text.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Gate {
    /// The region contains this text.
    Contains(String),
    /// The regex matches somewhere in the region (rows joined by `\n`).
    Regex(Pattern),
    /// Every gate holds.
    All(Vec<Gate>),
    /// At least one gate holds.
    Any(Vec<Gate>),
    /// The gate does not hold.
    Not(Box<Gate>),
    /// The region shows a dialog's option list ([`super::dialog::read_options`]): at
    /// least `min` options (default 2), with the selection cursor drawn when `cursor`.
    /// This recognises an agent's dialog *frame* (cursor, options) whatever its text.
    Options(OptionsGate),
}

/// The condition of [`Gate::Options`].
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionsGate {
    #[serde(default = "two")]
    pub min: usize,
    #[serde(default)]
    pub cursor: bool,
}

fn two() -> usize {
    2
}

/// A compiled regex, deserialized from its source text.
#[derive(Debug, Clone)]
pub struct Pattern(pub Regex);

impl<'de> Deserialize<'de> for Pattern {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Pattern, D::Error> {
        let source = String::deserialize(d)?;
        Regex::new(&source)
            .map(Pattern)
            .map_err(|e| serde::de::Error::custom(format!("bad regex {source:?}: {e}")))
    }
}

impl Gate {
    /// Whether the gate holds on `text`.
    pub fn holds(&self, text: &str) -> bool {
        match self {
            Gate::Contains(s) => text.contains(s.as_str()),
            Gate::Regex(p) => p.0.is_match(text),
            Gate::All(gates) => gates.iter().all(|g| g.holds(text)),
            Gate::Any(gates) => gates.iter().any(|g| g.holds(text)),
            Gate::Not(g) => !g.holds(text),
            Gate::Options(o) => read_options(text).is_some_and(|opts| {
                opts.items.len() >= o.min && (!o.cursor || opts.cursor.is_some())
            }),
        }
    }

    /// (satisfied, total) top-level gates: the children of an `all`, else the gate itself.
    pub fn score(&self, text: &str) -> (usize, usize) {
        match self {
            Gate::All(gates) => (gates.iter().filter(|g| g.holds(text)).count(), gates.len()),
            other => (usize::from(other.holds(text)), 1),
        }
    }
}

/// Why a manifest text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    #[error("not a valid manifest: {0}")]
    Syntax(String),
    #[error("rule {0:?} appears twice")]
    DuplicateRule(String),
    #[error("rule {0:?}: a bottom region needs lines > 0")]
    EmptyRegion(String),
    #[error("rule {rule:?}: answer choice {choice:?} appears twice")]
    DuplicateChoice { rule: String, choice: String },
    #[error("rule {rule:?}: answer choice {choice:?} needs exactly one of label and keys")]
    AnswerSpec { rule: String, choice: String },
    #[error("rule {rule:?}: {choice:?} of a permission dialog goes by what its options mean; give keys or nothing, not a label")]
    PermissionLabel { rule: String, choice: String },
}

/// Parses and checks a manifest (unique rule names and answer choices, non-empty
/// regions, compilable regexes).
pub fn parse(text: &str) -> Result<Manifest, ManifestError> {
    let m: Manifest =
        toml_edit::de::from_str(text).map_err(|e| ManifestError::Syntax(e.to_string()))?;
    let mut names = std::collections::HashSet::new();
    for r in &m.rules {
        if !names.insert(r.name.as_str()) {
            return Err(ManifestError::DuplicateRule(r.name.clone()));
        }
        let regions = std::iter::once(&r.region).chain(r.closed.as_ref().map(|c| &c.region));
        if regions.into_iter().any(|region| {
            matches!(region, Region::Bottom { lines: 0 })
                || matches!(region, Region::AfterLastRule { max_lines: Some(0) })
                || matches!(region, Region::FromLastRow { text } if text.trim().is_empty())
        }) {
            return Err(ManifestError::EmptyRegion(r.name.clone()));
        }
        let mut choices = std::collections::HashSet::new();
        for a in &r.answers {
            if !choices.insert(a.choice.to_ascii_lowercase()) {
                return Err(ManifestError::DuplicateChoice {
                    rule: r.name.clone(),
                    choice: a.choice.clone(),
                });
            }
            let by_meaning = r.kind == DecisionKind::Permission
                && crate::adapters::permission::Choice::parse(&a.choice).is_some();
            if by_meaning && a.label.is_some() {
                return Err(ManifestError::PermissionLabel {
                    rule: r.name.clone(),
                    choice: a.choice.clone(),
                });
            }
            if !by_meaning && a.label.is_some() == a.keys.is_some() {
                return Err(ManifestError::AnswerSpec {
                    rule: r.name.clone(),
                    choice: a.choice.clone(),
                });
            }
        }
    }
    Ok(m)
}

/// The manifest text Attend ships for `agent` (`data/manifests/<agent>.toml`), if any.
pub fn shipped(agent: AgentKind) -> Option<&'static str> {
    match agent {
        AgentKind::Claude => Some(include_str!("../../data/manifests/claude.toml")),
        AgentKind::Codex => Some(include_str!("../../data/manifests/codex.toml")),
        AgentKind::Gemini => Some(include_str!("../../data/manifests/gemini.toml")),
        AgentKind::Qwen => Some(include_str!("../../data/manifests/qwen.toml")),
        AgentKind::OpenCode => Some(include_str!("../../data/manifests/opencode.toml")),
        AgentKind::Copilot => Some(include_str!("../../data/manifests/copilot.toml")),
        AgentKind::Kimi => Some(include_str!("../../data/manifests/kimi.toml")),
        AgentKind::Kilo => Some(include_str!("../../data/manifests/kilo.toml")),
        AgentKind::Cline => Some(include_str!("../../data/manifests/cline.toml")),
        AgentKind::Omp => Some(include_str!("../../data/manifests/omp.toml")),
        AgentKind::Continue => Some(include_str!("../../data/manifests/continue.toml")),
        AgentKind::Grok => Some(include_str!("../../data/manifests/grok.toml")),
        AgentKind::Letta => Some(include_str!("../../data/manifests/letta.toml")),
        AgentKind::Aider => Some(include_str!("../../data/manifests/aider.toml")),
        AgentKind::Hermes => Some(include_str!("../../data/manifests/hermes.toml")),
        AgentKind::MastraCode => Some(include_str!("../../data/manifests/mastracode.toml")),
        // Mistral Vibe, OpenHands CLI: never seen here (they need Python 3.12).
        AgentKind::Vibe | AgentKind::OpenHands => None,
        // Droid: never seen (a Factory sign-in first); pi: no dialog of its own, its
        // extensions report `ui_prompt_start` (docs/adapters.md, "Factory Droid", "pi").
        // Auggie, Amp, Qoder CLI: never seen past their sign-in; Crush: never run here (its
        // binary downloads from GitHub).
        AgentKind::Cursor
        | AgentKind::Droid
        | AgentKind::Pi
        | AgentKind::Auggie
        | AgentKind::Amp
        | AgentKind::Qoder
        | AgentKind::Crush
        | AgentKind::Shell => None,
    }
}

/// A rule that did not match, with how close it came.
#[derive(Debug, Clone, Copy)]
pub struct Near<'m> {
    pub rule: &'m Rule,
    /// Top-level gates that held.
    pub satisfied: usize,
    pub total: usize,
}

/// The outcome of evaluating a manifest on one screen.
#[derive(Debug, Clone, Copy, Default)]
pub struct Evaluation<'m> {
    /// The first rule whose gates all hold on its region.
    pub matched: Option<&'m Rule>,
    /// Among the other rules, the one with the most satisfied top-level gates (ties: the
    /// higher fraction, then manifest order); `None` when no gate of any held.
    pub nearest: Option<Near<'m>>,
    /// When no rule matched: the first rule whose [`Rule::closed`] screen shows.
    pub closed: Option<&'m Rule>,
}

/// Evaluates `manifest` on `screen` (needs-input only, live screen only:
/// `docs/taxonomy.md#rungs`, ADR 0001).
pub fn evaluate<'m>(manifest: &'m Manifest, screen: &Screen) -> Evaluation<'m> {
    let mut out = Evaluation::default();
    for rule in &manifest.rules {
        let text = screen.region(&rule.region);
        if out.matched.is_none() && rule.gate.holds(&text) {
            out.matched = Some(rule);
            continue;
        }
        let (satisfied, total) = rule.gate.score(&text);
        if satisfied == 0 {
            continue;
        }
        let better = match out.nearest {
            None => true,
            Some(n) => {
                satisfied > n.satisfied
                    || (satisfied == n.satisfied && satisfied * n.total > n.satisfied * total)
            }
        };
        if better {
            out.nearest = Some(Near {
                rule,
                satisfied,
                total,
            });
        }
    }
    if out.matched.is_none() {
        out.closed = manifest.rules.iter().find(|r| {
            r.closed
                .as_ref()
                .is_some_and(|c| c.gate.holds(&screen.region(&c.region)))
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(path: &str) -> String {
        let root = env!("CARGO_MANIFEST_DIR");
        std::fs::read_to_string(format!("{root}/tests/fixtures/screens/{path}")).unwrap()
    }

    fn shipped_manifest(agent: AgentKind) -> Manifest {
        parse(shipped(agent).unwrap()).unwrap()
    }

    fn matched(agent: AgentKind, screen: &Screen) -> Option<String> {
        let m = shipped_manifest(agent);
        evaluate(&m, screen).matched.map(|r| r.name.clone())
    }

    #[test]
    fn every_shipped_manifest_parses() {
        for agent in AgentKind::ALL {
            if let Some(text) = shipped(agent) {
                let m = parse(text).unwrap_or_else(|e| panic!("{agent}: {e}"));
                assert!(!m.rules.is_empty(), "{agent} ships no rule");
                for r in &m.rules {
                    assert!(!r.reason.is_empty());
                    // A permission's allow and deny go by meaning: no label for them.
                    if r.kind == DecisionKind::Permission {
                        assert!(
                            r.answers.iter().all(|a| a.label.is_none()
                                || crate::adapters::permission::Choice::parse(&a.choice).is_none()),
                            "{agent}/{}: allow and deny by meaning",
                            r.name
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn claude_permission_dialogs_of_both_versions_match() {
        for version in ["2.1.197", "2.1.332"] {
            let screen = Screen::new(
                &fixture(&format!("claude/{version}/permission-dialog.txt")),
                "✳ Claude Code",
            );
            let m = shipped_manifest(AgentKind::Claude);
            let e = evaluate(&m, &screen);
            let rule = e.matched.expect("the dialog matches");
            assert_eq!(rule.name, "permission-dialog", "{version}");
            assert_eq!(rule.reason, "permission prompt");
            assert_eq!(rule.kind, DecisionKind::Permission);
        }
    }

    /// The positive corpus: every dialog screen recorded from the pinned versions matches
    /// the rule for it (and the generic frame rule catches what no specific rule names).
    #[test]
    fn every_recorded_dialog_matches_its_rule() {
        use AgentKind::*;
        let table = [
            (
                Claude,
                "claude/2.1.197/permission-dialog.txt",
                "permission-dialog",
            ),
            (
                Claude,
                "claude/2.1.332/permission-dialog.txt",
                "permission-dialog",
            ),
            (Claude, "claude/2.1.197/folder-trust.txt", "folder-trust"),
            (Claude, "claude/2.1.332/folder-trust.txt", "folder-trust"),
            (
                Claude,
                "claude/2.1.332/auto-mode-offer.txt",
                "auto-mode-offer",
            ),
            (
                Claude,
                "claude/2.1.332/auto-mode-approval.txt",
                "auto-mode-approval",
            ),
            (
                Codex,
                "codex/0.171.0/approval-dialog.txt",
                "approval-dialog",
            ),
            (Codex, "codex/0.171.0/folder-trust.txt", "folder-trust"),
            (
                Gemini,
                "gemini/0.61.0/permission-dialog.txt",
                "allow-execution",
            ),
            (Gemini, "gemini/0.61.0/folder-trust.txt", "folder-trust"),
            (
                Copilot,
                "copilot/1.0.102/permission-dialog.txt",
                "command-approval",
            ),
            (
                Copilot,
                "copilot/1.0.102/permission-dialog-always.txt",
                "command-approval",
            ),
            (Copilot, "copilot/1.0.102/folder-trust.txt", "folder-trust"),
        ];
        for (agent, path, rule) in table {
            let screen = Screen::new(&fixture(path), "");
            assert_eq!(matched(agent, &screen).as_deref(), Some(rule), "{path}");
            // Without its specific rule, the frame rule still sees a dialog.
            let mut frame_only = shipped_manifest(agent);
            frame_only.rules.retain(|r| r.name == "dialog-frame");
            assert_eq!(
                evaluate(&frame_only, &screen)
                    .matched
                    .map(|r| r.name.as_str()),
                Some("dialog-frame"),
                "{path}: the dialog frame"
            );
        }
    }

    /// Copilot's Esc on its approval dialog fires no hook: the screen after it (its prompt
    /// back, the idle status row) is the rule's closed screen; an approved command still
    /// running (`○ Working · … esc esc interrupt`) is not, nor is the open dialog.
    #[test]
    fn copilot_closed_approval_is_the_idle_prompt_not_a_running_command() {
        let m = shipped_manifest(AgentKind::Copilot);
        let closed = |path: &str| {
            let e = evaluate(&m, &Screen::new(&fixture(path), "GitHub Copilot"));
            (
                e.matched.map(|r| r.name.clone()),
                e.closed.map(|r| r.name.clone()),
            )
        };
        let approval = Some("command-approval".to_string());
        assert_eq!(
            closed("negative/copilot/1.0.102-cancelled.txt"),
            (None, approval.clone())
        );
        assert_eq!(closed("negative/copilot/1.0.102-working.txt"), (None, None));
        assert_eq!(
            closed("copilot/1.0.102/permission-dialog.txt"),
            (approval, None)
        );
        // The dialog's words quoted in a reply above the input: no dialog.
        let quoted = " ● The dialog reads:\n │ Do you want to run this command?\n │ ❯ 1. Yes    │\n │   2. No, and tell Copilot what to do differently (Esc to stop) │\n ╰────────╯\n\n────────\n❯\n────────\n ← open sidebar · Interactive · Manual Approval · / commands";
        let e = evaluate(&m, &Screen::new(quoted, ""));
        assert!(e.matched.is_none());
    }

    #[test]
    fn codex_approval_prompt_matches() {
        let screen = Screen::new(&fixture("codex/0.171.0/approval-dialog.txt"), "");
        assert_eq!(
            matched(AgentKind::Codex, &screen).as_deref(),
            Some("approval-dialog")
        );
    }

    #[test]
    fn codex_action_required_title_matches() {
        let screen = Screen::new("› ", "[ ! ] Action Required | proj");
        assert_eq!(
            matched(AgentKind::Codex, &screen).as_deref(),
            Some("action-required-title")
        );
    }

    #[test]
    fn gemini_allow_execution_matches() {
        let screen = Screen::new(&fixture("gemini/0.61.0/permission-dialog.txt"), "");
        assert_eq!(
            matched(AgentKind::Gemini, &screen).as_deref(),
            Some("allow-execution")
        );
    }

    #[test]
    fn qwen_tool_confirmation_and_title_match() {
        let screen = Screen::new(&fixture("qwen/0.24.4/permission-dialog.txt"), "");
        assert_eq!(
            matched(AgentKind::Qwen, &screen).as_deref(),
            Some("tool-confirmation")
        );
        let idle = Screen::new("> ", "✳\u{fe0e} Qwen - proj");
        assert_eq!(
            matched(AgentKind::Qwen, &idle).as_deref(),
            Some("confirmation-title")
        );
        assert_eq!(
            matched(AgentKind::Qwen, &Screen::new("> ", "Qwen - proj")),
            None
        );
        // The dialog's words quoted in a reply, above the input box: no spinner row last.
        let quoted = "  ◆ The dialog reads:\n   Allow execution of: 'echo'?\n   › 1. Yes, allow once\n                           4. No, suggest changes (esc)\n\n────────\n>   Type your message\n────────\n  ➜ proj";
        assert_eq!(
            matched(AgentKind::Qwen, &Screen::new(quoted, "Qwen - proj")),
            None
        );
    }

    #[test]
    fn opencode_permission_dialog_matches_and_a_quote_of_it_does_not() {
        let screen = Screen::new(&fixture("opencode/1.18.33/permission-dialog.txt"), "OC | x");
        assert_eq!(
            matched(AgentKind::OpenCode, &screen).as_deref(),
            Some("permission-required")
        );
        // The dialog's rows quoted in a reply, above the input box and its footer.
        let quoted = "  ┃  △ Permission required\n  ┃   Allow once   Allow always   Reject   ⇆ select  enter confirm\n\n  ┃\n  ┃  Build · gpt-4.1 scripted\n  ╹▀▀▀▀▀▀▀▀\n   /tmp/proj   ctrl+p commands";
        assert_eq!(
            matched(AgentKind::OpenCode, &Screen::new(quoted, "OC | x")),
            None
        );
    }

    #[test]
    fn prose_that_quotes_the_dialog_does_not_match() {
        // The model's reply contains the dialog's words as prose, above Claude's input box.
        let screen = Screen::new(
            &fixture("claude/2.1.197/prose-proceed.txt"),
            "✳ Claude Code",
        );
        assert!(screen
            .rows
            .iter()
            .any(|r| r.contains("Do you want to proceed? 1. Yes")));
        let m = shipped_manifest(AgentKind::Claude);
        let e = evaluate(&m, &screen);
        assert!(e.matched.is_none(), "prose matched {:?}", e.matched);
        // What protects it is the region and the selection cursor: over the bottom rows
        // of the screen, a rule without the cursor would take the quoted list for the
        // dialog.
        let mut naive = m.clone();
        let i = naive
            .rules
            .iter()
            .position(|r| r.name == "permission-dialog");
        let i = i.unwrap();
        naive.rules[i].region = Region::Bottom { lines: 16 };
        assert!(evaluate(&naive, &screen).matched.is_none());
        naive.rules[i].gate = Gate::All(vec![
            Gate::Contains("Do you want to proceed?".into()),
            Gate::Contains("1. Yes".into()),
        ]);
        assert!(evaluate(&naive, &screen).matched.is_some());
        // Prose pasted as rows that look like the dialog, but above the input box: still
        // outside the region after the last rule.
        let fake = "● Sure. The dialog reads:\n Do you want to proceed?\n ❯ 1. Yes\n   3. No\n \
                    Esc to cancel\n────────────────────\n❯ \n────────────────────\n  ? for shortcuts";
        assert!(evaluate(&m, &Screen::new(fake, "")).matched.is_none());
        // And the other agents' rules ignore it too.
        for agent in [AgentKind::Codex, AgentKind::Gemini] {
            assert_eq!(matched(agent, &screen), None, "{agent}");
        }
        // (Qwen's `✳` title means its confirmation; Claude's title is no Qwen title.)
        let untitled = Screen::new(&fixture("claude/2.1.197/prose-proceed.txt"), "");
        assert_eq!(matched(AgentKind::Qwen, &untitled), None);
    }

    #[test]
    fn regions_bottom_after_last_rule_from_last_row_and_title() {
        let s = Screen::new(
            "top\n\n────────────\nmiddle\n══════════\n dialog\n\n  keys\n",
            "T",
        );
        assert_eq!(s.region(&Region::Bottom { lines: 2 }), " dialog\n  keys");
        assert_eq!(
            s.region(&Region::AfterLastRule { max_lines: None }),
            " dialog\n  keys"
        );
        assert_eq!(
            s.region(&Region::AfterLastRule { max_lines: Some(1) }),
            " dialog"
        );
        assert_eq!(s.region(&Region::Title), "T");
        let titled = Region::FromLastRow {
            text: "dialog".into(),
        };
        assert_eq!(s.region(&titled), " dialog\n  keys");
        let again = Screen::new(" dialog\n old\n dialog 2\n\n  keys", "");
        assert_eq!(
            again.region(&titled),
            " dialog 2\n  keys",
            "the last such row"
        );
        assert_eq!(Screen::new("a\nb", "").region(&titled), "");
        let no_rule = Screen::new("a\n---------------\nb", "");
        assert_eq!(
            no_rule.region(&Region::AfterLastRule { max_lines: None }),
            ""
        );
        assert!(is_rule("  ────────  "));
        assert!(!is_rule("───"), "too short");
        assert!(!is_rule("╰──────────╯"), "a box corner is not a rule");
    }

    #[test]
    fn gates_all_any_not_and_nearest() {
        let m = parse(
            r#"
            [[rule]]
            name = "a"
            reason = "r"
            region = { kind = "bottom", lines = 5 }
            match = { all = [ { contains = "x" }, { regex = '(?m)^y$' }, { not = { contains = "z" } } ] }

            [[rule]]
            name = "b"
            kind = "question"
            reason = "q"
            region = { kind = "title" }
            match = { any = [ { contains = "ask" }, { contains = "?" } ] }
            "#,
        )
        .unwrap();
        let e = evaluate(&m, &Screen::new("x\ny", ""));
        assert_eq!(e.matched.unwrap().name, "a");
        let e = evaluate(&m, &Screen::new("x\ny\nz", "nothing"));
        assert!(e.matched.is_none());
        let near = e.nearest.unwrap();
        assert_eq!(
            (near.rule.name.as_str(), near.satisfied, near.total),
            ("a", 2, 3)
        );
        let e = evaluate(&m, &Screen::new("", "ask me"));
        assert_eq!(e.matched.unwrap().kind, DecisionKind::Question);
        // Only the `not` gate holds on an empty screen.
        let near = evaluate(&m, &Screen::new("", "")).nearest.unwrap();
        assert_eq!((near.rule.name.as_str(), near.satisfied), ("a", 1));
    }

    #[test]
    fn bad_manifests_are_refused_with_a_reason() {
        let rule = |extra: &str| {
            format!(
                "[[rule]]\nname = \"a\"\nreason = \"r\"\nregion = {{ kind = \"bottom\", lines = 3 }}\nmatch = {{ contains = \"x\" }}\n{extra}"
            )
        };
        assert!(parse(&rule("")).is_ok());
        let dup = format!("{}\n{}", rule(""), rule(""));
        assert_eq!(
            parse(&dup).unwrap_err(),
            ManifestError::DuplicateRule("a".into())
        );
        assert!(matches!(
            parse(&rule("answers = [{ choice = \"allow\", keys = \"1\" }, { choice = \"Allow\", keys = \"2\" }]")),
            Err(ManifestError::DuplicateChoice { .. })
        ));
        // A permission rule (the default kind): allow and deny go by meaning, so a
        // label for them is refused, and nothing or keys is fine.
        assert!(parse(&rule("answers = [{ choice = \"allow\" }]")).is_ok());
        assert!(matches!(
            parse(&rule("answers = [{ choice = \"deny\", label = \"^No$\" }]")),
            Err(ManifestError::PermissionLabel { .. })
        ));
        for spec in [
            "{ choice = \"always\" }",
            "{ choice = \"always\", keys = \"1\", label = \"^Yes$\" }",
        ] {
            assert!(
                matches!(
                    parse(&rule(&format!("answers = [{spec}]"))),
                    Err(ManifestError::AnswerSpec { .. })
                ),
                "{spec}"
            );
        }
        let bad_regex = "[[rule]]\nname = \"a\"\nreason = \"r\"\nregion = { kind = \"title\" }\nmatch = { regex = \"(\" }\n";
        assert!(
            matches!(parse(bad_regex), Err(ManifestError::Syntax(e)) if e.contains("bad regex"))
        );
        let zero = "[[rule]]\nname = \"a\"\nreason = \"r\"\nregion = { kind = \"bottom\", lines = 0 }\nmatch = { contains = \"x\" }\n";
        assert_eq!(
            parse(zero).unwrap_err(),
            ManifestError::EmptyRegion("a".into())
        );
        assert!(matches!(
            parse("[[rule]]\nname = 1\n"),
            Err(ManifestError::Syntax(_))
        ));
        assert!(matches!(
            parse(&rule("colour = \"red\"")),
            Err(ManifestError::Syntax(_))
        ));
    }
}
