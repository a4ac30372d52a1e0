//! The screen corpus against the shipped screen manifests (`docs/taxonomy.md#screen-manifests`,
//! `src/adapters/manifest.rs`):
//!
//! - **negative**: every screen under `tests/fixtures/screens/negative/<agent-or-shell>/`
//!   (recorded by `tests/integration/record_negative_screens.rs` from the real CLIs and bash) and every
//!   `tests/fixtures/screens/<agent>/<version>/prose-*.txt` is not a dialog: no rule of ANY
//!   agent's manifest may match it, with no title and with each title that agent shows
//!   while idle or working.
//! - **positive**: every other `tests/fixtures/screens/<agent>/<version>/*.txt` is a dialog
//!   that agent drew: its own manifest must match it.
//!
//! Failures are collected and reported together. A negative screen that a shipped rule
//! does match is a defect of that rule; until the rule is fixed it is listed in
//! [`KNOWN_FALSE_POSITIVES`] (and an entry that no longer matches fails the test, so the
//! list cannot go stale).

use attend::adapters::manifest::{evaluate, parse, shipped, Manifest, Screen};
use attend::model::AgentKind;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Negative screens a current shipped rule matches: (screen path under
/// `tests/fixtures/screens/`, agent whose manifest matches, rule). Each is a real defect
/// of that rule, kept here so the corpus passes until the rule is fixed.
const KNOWN_FALSE_POSITIVES: &[(&str, &str, &str)] = &[];

/// The agents that ship a manifest.
const AGENTS: [AgentKind; 13] = [
    AgentKind::Claude,
    AgentKind::Codex,
    AgentKind::Gemini,
    AgentKind::OpenCode,
    AgentKind::Copilot,
    AgentKind::Kilo,
    AgentKind::Cline,
    AgentKind::Omp,
    AgentKind::Continue,
    AgentKind::Grok,
    AgentKind::Aider,
    AgentKind::Hermes,
    AgentKind::MastraCode,
];

/// Window titles each agent sets while it is idle or working, as recorded with the screens
/// (`tests/integration/record_negative_screens.rs` prints them; the project directory is `proj`, the
/// scripted model's titles are "Scripted side answer"), and two usual shell titles. None
/// of them is a dialog.
fn titles(agent: &str) -> &'static [&'static str] {
    match agent {
        "claude" => &[
            "✳ Claude Code",
            "✳ Scripted side answer",
            "⠂ Claude Code",
            "⠐ Scripted side answer",
        ],
        "codex" => &[
            "proj",
            "Scripted side answer | proj",
            "⠸ Scripted side answer | proj",
        ],
        "gemini" => &["◇  Ready (proj)", "✦  Working… (proj)"],
        "opencode" => &["OpenCode", "OC | Scripted side answer"],
        "copilot" => &["GitHub Copilot", "say hello - GitHub Copilot"],
        // Factory Droid 0.225.2's only screen here: its sign-in offer.
        "droid" => &["⛬ Droid"],
        // MastraCode's title names the project only, idle or working.
        "mastracode" => &["Mastra Code - proj"],
        _ => &["bash", "dev@box: ~/proj"],
    }
}

fn screens_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/screens")
}

/// Every `*.txt` under `dir`, sorted.
fn txt_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "txt") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A screen of the corpus: its path under `screens/`, the agent (or `shell`) that drew it,
/// and its text.
struct Fixture {
    rel: String,
    agent: String,
    text: String,
}

fn load(path: &Path, agent: &str) -> Fixture {
    Fixture {
        rel: path
            .strip_prefix(screens_dir())
            .unwrap()
            .display()
            .to_string(),
        agent: agent.to_string(),
        text: std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    }
}

/// (negative, positive) screens of the corpus.
fn corpus() -> (Vec<Fixture>, Vec<Fixture>) {
    let root = screens_dir();
    let mut negative = Vec::new();
    let mut positive = Vec::new();
    for path in txt_files(&root.join("negative")) {
        let agent = path
            .strip_prefix(root.join("negative"))
            .unwrap()
            .iter()
            .next()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        negative.push(load(&path, &agent));
    }
    for agent in AGENTS {
        for path in txt_files(&root.join(agent.as_str())) {
            let prose = path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("prose-"));
            let fixture = load(&path, agent.as_str());
            if prose {
                negative.push(fixture);
            } else {
                positive.push(fixture);
            }
        }
    }
    (negative, positive)
}

fn manifests() -> Vec<(AgentKind, Manifest)> {
    AGENTS
        .iter()
        .map(|&agent| {
            let text = shipped(agent).unwrap_or_else(|| panic!("{agent} ships no manifest"));
            let manifest = parse(text).unwrap_or_else(|e| panic!("{agent}: {e}"));
            (agent, manifest)
        })
        .collect()
}

fn count_by_agent(fixtures: &[Fixture]) -> BTreeMap<&str, usize> {
    let mut counts = BTreeMap::new();
    for f in fixtures {
        *counts.entry(f.agent.as_str()).or_default() += 1;
    }
    counts
}

#[test]
fn no_rule_of_any_manifest_matches_a_negative_screen() {
    let (negative, _) = corpus();
    let manifests = manifests();
    println!(
        "negative screens per agent: {:?}",
        count_by_agent(&negative)
    );
    assert!(
        negative.len() >= 60,
        "the negative corpus has only {} screens",
        negative.len()
    );
    let mut failures = Vec::new();
    let mut known_seen = Vec::new();
    for fixture in &negative {
        for (agent, manifest) in &manifests {
            // The rule that matched and under which titles ("" = none).
            let mut matched: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            let titles = std::iter::once("").chain(titles(&fixture.agent).iter().copied());
            for title in titles {
                if let Some(rule) = evaluate(manifest, &Screen::new(&fixture.text, title)).matched {
                    matched.entry(rule.name.as_str()).or_default().push(title);
                }
            }
            for (rule, titles) in matched {
                let key = (fixture.rel.as_str(), agent.as_str(), rule);
                if KNOWN_FALSE_POSITIVES.contains(&key) {
                    known_seen.push(key);
                } else {
                    failures.push(format!(
                        "{}: {agent} rule {rule:?} matched (titles {titles:?})",
                        fixture.rel
                    ));
                }
            }
        }
    }
    for known in KNOWN_FALSE_POSITIVES {
        if !known_seen.contains(known) {
            failures.push(format!(
                "{known:?} is listed in KNOWN_FALSE_POSITIVES but no longer matches: remove it"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} match(es) of shipped rules on the {} negative screens:\n{}",
        failures.len(),
        negative.len(),
        failures.join("\n")
    );
}

#[test]
fn every_recorded_dialog_matches_its_agents_manifest() {
    let (_, positive) = corpus();
    let manifests = manifests();
    println!("dialog screens per agent: {:?}", count_by_agent(&positive));
    let mut failures = Vec::new();
    for (agent, manifest) in &manifests {
        let own: Vec<&Fixture> = positive
            .iter()
            .filter(|f| f.agent == agent.as_str())
            .collect();
        if own.is_empty() {
            failures.push(format!("{agent}: no recorded dialog screen"));
        }
        for fixture in own {
            let evaluation = evaluate(manifest, &Screen::new(&fixture.text, ""));
            if evaluation.matched.is_none() {
                let near = evaluation.nearest.map_or("no gate held".to_string(), |n| {
                    format!(
                        "nearest {} ({}/{} gates)",
                        n.rule.name, n.satisfied, n.total
                    )
                });
                failures.push(format!("{}: no {agent} rule matched; {near}", fixture.rel));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} dialog screen(s) not recognised:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The recorded screens name nothing of the machine they were recorded on.
#[test]
fn negative_screens_are_scrubbed() {
    let (negative, _) = corpus();
    let mut failures = Vec::new();
    for fixture in &negative {
        for bad in [
            "/home/",
            "/root",
            "attend-agent-",
            "attend-tmux-",
            "attend-shell-",
        ] {
            if fixture.text.contains(bad) {
                failures.push(format!("{} contains {bad:?}", fixture.rel));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Screens of a dialog closed without a hook (`closed` of a rule,
/// `docs/lifecycle-attention.md#gates-the-screen-closes`): no rule matches them, and the
/// rule whose closed screen they are is named (what `attend explain` shows), with who
/// closed it. The same screens while the dialog's outcome is not on screen yet are no
/// closed screen.
#[test]
fn closed_screens_name_their_rule() {
    use attend::adapters::manifest::ClosedBy;
    let table = [
        (
            AgentKind::Copilot,
            "negative/copilot/1.0.102-cancelled.txt",
            "command-approval",
            ClosedBy::User,
        ),
        (
            AgentKind::Codex,
            "negative/codex/0.171.0-review-denied.txt",
            "approval-dialog",
            ClosedBy::Reviewer,
        ),
    ];
    for (agent, path, rule, by) in table {
        let manifest = parse(shipped(agent).unwrap()).unwrap();
        let text = std::fs::read_to_string(screens_dir().join(path)).unwrap();
        let e = evaluate(&manifest, &Screen::new(&text, ""));
        assert!(e.matched.is_none(), "{path}");
        let closed = e
            .closed
            .unwrap_or_else(|| panic!("{path}: no closed screen"));
        assert_eq!(closed.name, rule, "{path}");
        assert_eq!(closed.closed.as_ref().unwrap().by, by, "{path}");
    }
    // Codex while its reviewer still decides (the reviewing row under an earlier
    // denial): not closed yet.
    let manifest = parse(shipped(AgentKind::Codex).unwrap()).unwrap();
    let denied =
        std::fs::read_to_string(screens_dir().join("negative/codex/0.171.0-review-denied.txt"))
            .unwrap();
    let reviewing = denied.replace(
        "• Working (2s • esc to interrupt)",
        "◦ Reviewing approval request (0s • esc to interrupt)",
    );
    assert_ne!(reviewing, denied);
    assert!(evaluate(&manifest, &Screen::new(&reviewing, ""))
        .closed
        .is_none());
}

/// Every recorded dialog whose file is named after a rule of its agent's manifest
/// (`permission-dialog.txt`, `80x24/auto-mode-approval.txt`, …) is read by that very rule,
/// and every recorded dialog (`plan-approval.txt` too) as the kind its name says, at
/// every size it was recorded at (the agents lay their dialogs out again for the
/// terminal's width), and as the kind of decision it stands for: a dialog that asks to
/// approve an action is a permission whatever rule drew it
/// (`docs/lifecycle-attention.md#permissions-by-meaning`).
#[test]
fn every_dialog_named_after_a_rule_is_read_by_it_at_every_size() {
    use attend::adapters::dialog::read_options;
    use attend::adapters::permission::kind_of;
    use attend::model::DecisionKind;
    let (_, positive) = corpus();
    let manifests = manifests();
    let mut failures = Vec::new();
    let mut checked = 0;
    for fixture in &positive {
        let Some((_, manifest)) = manifests.iter().find(|(a, _)| a.as_str() == fixture.agent)
        else {
            continue;
        };
        let stem = Path::new(&fixture.rel)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let screen = Screen::new(&fixture.text, "");
        let Some(rule) = evaluate(manifest, &screen).matched else {
            continue; // `every_recorded_dialog_matches_its_agents_manifest` says so.
        };
        let named = manifest.rules.iter().any(|r| r.name == stem);
        if named && rule.name != stem {
            failures.push(format!(
                "{}: read by {}, not {stem}",
                fixture.rel, rule.name
            ));
            continue;
        }
        checked += 1;
        let region = screen.region(&rule.region);
        let labels = read_options(&region)
            .map(|o| o.labels())
            .unwrap_or_default();
        let kind = kind_of(rule.kind, &region, &labels);
        let approval = stem.contains("permission")
            || stem.contains("approval")
            || stem.contains("confirmation")
            || stem.contains("allow-execution");
        let want = if approval {
            DecisionKind::Permission
        } else {
            DecisionKind::Question
        };
        if kind != want {
            failures.push(format!("{}: read as {kind:?}, not {want:?}", fixture.rel));
        }
    }
    println!("{checked} dialogs read");
    assert!(checked >= 20, "only {checked} dialogs read");
    assert!(
        failures.is_empty(),
        "{} dialog(s) misread:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
