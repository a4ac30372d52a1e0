//! Target `manifest`: the screen manifest loader ([`manifest::parse`], the TOML a user may
//! drop in `$XDG_CONFIG_HOME/attend/manifests/`) and [`manifest::evaluate`] on screens.
//!
//! Corpus: `tests/fuzz/corpus/manifest/*.toml`, the shipped manifests
//! (`data/manifests/*.toml`) and hand-made ones with every region and gate kind, deep
//! nesting, bad and huge regexes, duplicate rules and choices, empty regions, unknown
//! fields and escapes. Screens: the recorded agent screens (`tests/fixtures/screens`),
//! mutated too.
//!
//! Checks: no panic; parsing the same text twice gives the same result; an accepted
//! manifest keeps its promises (unique rule names and answer choices, no empty region);
//! evaluating it on a screen is deterministic, a matched rule's gate holds on its
//! region, and the nearest rule's score is within its gate count.

use super::{corpus, hash, mutants, run, Mutant, COMMON_DICT};
use attend::adapters::manifest::{self, evaluate, Manifest, Region, Screen};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::TestCaseError;
use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// TOML pieces of manifests.
const DICT: &[&[u8]] = &[
    b"[[rule]]\n",
    b"[rule]\n",
    b"name = \"r\"\n",
    b"reason = \"x\"\n",
    b"kind = \"question\"\n",
    b"kind = \"nonsense\"\n",
    b"region = { kind = \"bottom\", lines = 0 }\n",
    b"region = { kind = \"bottom\", lines = -1 }\n",
    b"{ kind = \"after-last-rule\", max_lines = 18446744073709551615 }",
    b"{ kind = \"after-last-rule\", max_lines = 0 }",
    b"{ kind = \"title\" }",
    b"match = { not = ",
    b"{ not = { not = { not = { not = { not = { not = { not = { not = ",
    b"{ all = [",
    b"{ any = [",
    b"{ contains = \"\" }",
    b"{ regex = '(?m)^\\s*' }",
    b"'(?:a{1000}){1000}'",
    b"'\\p{Greek}+'",
    b"'(?i)[^\\x00-\\x{10FFFF}]'",
    b"'(((((((((('",
    b"answers = [ { choice = \"allow\", keys = \"1\" } ]",
    b"{ choice = \"ALLOW\", keys = \"\\u001b\" }",
    b"'''",
    b"\"\"\"",
    b" = ",
    b"#",
    b"\\U0010FFFF",
    b"\\uD800",
    b"inf",
    b"nan",
    b"1979-05-27T07:32:00Z",
    b"agent = ",
    b"[[[[[[[[[[[[[[[[",
    b"{ a = { a = { a = { a = { a = { a = { a = { a = ",
    b"\x00",
];

/// Screens the rules are evaluated on: the recorded agent screens and a few made here.
fn screens() -> &'static [Screen] {
    static SCREENS: OnceLock<Vec<Screen>> = OnceLock::new();
    SCREENS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/screens");
        let mut out = Vec::new();
        for agent in ["claude/2.1.197", "codex/0.171.0", "gemini/0.61.0"] {
            let mut files: Vec<_> = std::fs::read_dir(dir.join(agent))
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            for f in files {
                let text = std::fs::read_to_string(&f).unwrap();
                out.push(Screen::new(&text, "⠂ Claude Code"));
            }
        }
        out.push(Screen::default());
        out.push(Screen::new(&"─".repeat(80), "waiting for input"));
        out.push(Screen::new(
            "prose\n────────\n  Continue?\n  [y/N]\n\n\n",
            "\u{1b}]0;x",
        ));
        out
    })
}

#[derive(Clone, Debug)]
pub struct ManifestCase {
    pub text: Mutant,
    pub screen: Index,
    pub screen_ops: Vec<super::Op>,
}

/// The screen a case evaluates on (a recorded screen, maybe mutated).
fn screen_of(case: &ManifestCase) -> Screen {
    let base = &screens()[case.screen.index(screens().len())];
    if case.screen_ops.is_empty() {
        return base.clone();
    }
    let text = base.rows.join("\n");
    let bytes = super::apply(
        text.as_bytes(),
        &case.screen_ops,
        &[],
        COMMON_DICT,
        64 * 1024,
    );
    Screen::new(&String::from_utf8_lossy(&bytes), &base.title)
}

fn check_manifest(m: &Manifest, screen: &Screen) -> Result<(), TestCaseError> {
    let mut names = HashSet::new();
    for r in &m.rules {
        prop_assert!(
            names.insert(&r.name),
            "duplicate rule {:?} accepted",
            r.name
        );
        prop_assert!(
            !matches!(
                &r.region,
                Region::Bottom { lines: 0 } | Region::AfterLastRule { max_lines: Some(0) }
            ) && !matches!(&r.region, Region::FromLastRow { text } if text.trim().is_empty()),
            "empty region accepted in {:?}",
            r.name
        );
        let mut choices = HashSet::new();
        for a in &r.answers {
            prop_assert!(
                choices.insert(a.choice.to_ascii_lowercase()),
                "duplicate choice"
            );
        }
    }
    let first = evaluate(m, screen);
    let again = evaluate(m, screen);
    prop_assert_eq!(
        first.matched.map(|r| &r.name),
        again.matched.map(|r| &r.name),
        "not deterministic"
    );
    prop_assert_eq!(
        first.nearest.map(|n| (&n.rule.name, n.satisfied, n.total)),
        again.nearest.map(|n| (&n.rule.name, n.satisfied, n.total))
    );
    if let Some(rule) = first.matched {
        prop_assert!(rule.gate.holds(&screen.region(&rule.region)));
    }
    if let Some(n) = first.nearest {
        prop_assert!(n.satisfied > 0 && n.satisfied <= n.total);
    }
    Ok(())
}

/// The checks of the module docs on one manifest text and one screen.
pub fn check(case: &ManifestCase) -> Result<(), TestCaseError> {
    let text = String::from_utf8_lossy(&case.text.bytes);
    let first = manifest::parse(&text);
    let again = manifest::parse(&text);
    prop_assert_eq!(
        format!("{first:?}"),
        format!("{again:?}"),
        "not deterministic"
    );
    if let Ok(m) = &first {
        check_manifest(m, &screen_of(case))?;
    }
    Ok(())
}

fn cases() -> impl Strategy<Value = ManifestCase> {
    (
        mutants(corpus("manifest"), DICT, 64 * 1024),
        any::<Index>(),
        prop_oneof![
            3 => Just(Vec::new()),
            1 => prop::collection::vec(super::op(), 1..6),
        ],
    )
        .prop_map(|(text, screen, screen_ops)| ManifestCase {
            text,
            screen,
            screen_ops,
        })
}

fn save(case: &ManifestCase) -> (String, Vec<u8>) {
    let bytes = case.text.bytes.clone();
    (
        format!("manifest/regress-{:016x}.toml", hash(&bytes)),
        bytes,
    )
}

#[test]
fn corpus_manifests_load_or_fail_cleanly() {
    let corpus: Arc<Vec<super::Entry>> = corpus("manifest");
    let mut accepted = 0;
    for entry in corpus.iter() {
        let text = String::from_utf8_lossy(&entry.bytes);
        let parsed = manifest::parse(&text);
        if entry.name.ends_with("-shipped.toml") || entry.name == "every-kind.toml" {
            assert!(parsed.is_ok(), "{}: {parsed:?}", entry.name);
        }
        accepted += usize::from(parsed.is_ok());
        for s in screens() {
            if let Ok(m) = &parsed {
                if let Err(e) = check_manifest(m, s) {
                    panic!("{}: {e}", entry.name);
                }
            }
        }
    }
    // The shipped manifests find their own dialogs in the recorded screens.
    for agent in ["claude", "codex", "gemini"] {
        let entry = corpus
            .iter()
            .find(|e| e.name == format!("{agent}-shipped.toml"))
            .expect("shipped manifest in the corpus");
        let m = manifest::parse(std::str::from_utf8(&entry.bytes).unwrap()).unwrap();
        assert!(
            screens().iter().any(|s| evaluate(&m, s).matched.is_some()),
            "{agent}: no recorded dialog matched"
        );
    }
    println!(
        "fuzz manifest corpus: {} entries, {accepted} accepted",
        corpus.len()
    );
}

#[test]
fn mutants_never_panic_and_parse_deterministically() {
    run(
        "manifest",
        "proptest-regressions/fuzz/manifest.txt",
        1500,
        cases(),
        save,
        check,
    );
}
