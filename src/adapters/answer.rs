//! The keys that answer a choice on the dialog that is on screen now
//! (`docs/lifecycle-attention.md#answer`, ADR 0007).
//!
//! [`resolve`] evaluates the agent's screen manifest on the live screen, reads the matched
//! dialog's options ([`super::dialog::read_options`]) and finds the one option the choice
//! means: `allow` and `deny` of a permission by what the labels mean
//! ([`super::permission`]), other choices by the rule's label pattern, by its number or position
//! (`2`), or by its whole label. The keys then come from that option as drawn (its
//! shortcut, number, or cursor moves and Enter). When the dialog cannot be read, or the
//! choice matches no option or more than one, it refuses ([`Refusal`]): typing a key
//! that may mean the opposite is the worst thing an answer can do.
//!
//! Pure: manifest, screen and choice in, keys or a refusal out.

use super::dialog::{keys_to_select, Options};
use super::manifest::{evaluate, Manifest, Region, Rule, Screen};
use super::permission::{self, Choice};
use crate::model::DecisionKind;

/// Why no keys were typed. Each message says what was on screen and what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// No rule of the agent's manifest matches the screen (the dialog is gone, not drawn
    /// yet, or a layout no rule knows).
    #[error("no dialog Attend can read is on the pane's screen; nothing was typed (answer in the pane itself, or with the option's number)")]
    NoDialog,
    /// A rule matched but its options cannot be read (a title-only match, or no list).
    #[error("the dialog ({rule}) shows no options Attend can read; nothing was typed (answer in the pane itself)")]
    NoOptions { rule: String },
    /// The choice's label pattern matches none of the options on screen.
    #[error(
        "no option on screen means {choice:?} (the dialog offers: {offered}); nothing was typed"
    )]
    NoMatch { choice: String, offered: String },
    /// The choice's label pattern matches more than one option on screen.
    #[error("{choice:?} matches more than one option on screen ({matched}); nothing was typed")]
    Ambiguous { choice: String, matched: String },
    /// The option was found but no key is known to pick it (no number, no shortcut, no
    /// cursor drawn).
    #[error("no key is known to pick {label:?} in this dialog; nothing was typed (answer in the pane itself)")]
    NoKeys { label: String },
    /// The choice is neither a choice of the dialog, an option number nor an option label.
    #[error("unknown choice {choice:?} (choices: {known})")]
    UnknownChoice { choice: String, known: String },
}

/// The keys to type and what they pick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The bytes to write to the PTY.
    pub keys: String,
    /// The manifest rule whose dialog is answered (`None` for a raw key typed without a
    /// readable dialog).
    pub rule: Option<String>,
    /// The label of the option picked, when an option was picked.
    pub picked: Option<String>,
}

/// True for a choice that is a key as typed: all digits, or one character.
pub fn is_raw_key(choice: &str) -> bool {
    !choice.is_empty()
        && (choice.chars().count() == 1 || choice.chars().all(|c| c.is_ascii_digit()))
}

/// The dialog rules that hold on `screen`, the first non-title one first.
fn matched_rule<'m>(manifest: &'m Manifest, screen: &Screen) -> Option<&'m Rule> {
    let holds = |r: &&Rule| r.gate.holds(&screen.region(&r.region));
    manifest
        .rules
        .iter()
        .filter(|r| r.region != Region::Title)
        .find(holds)
        .or_else(|| evaluate(manifest, screen).matched)
}

fn pick(options: &Options, index: usize, app_cursor: bool, rule: &Rule) -> Result<Answer, Refusal> {
    let item = &options.items[index];
    let label = item.label.clone();
    let mut keys = keys_to_select(options, index, app_cursor).ok_or(Refusal::NoKeys {
        label: label.clone(),
    })?;
    let by_number = item.shortcut.is_none() && item.number.is_some_and(|n| keys == n.to_string());
    if by_number && rule.number_then_enter {
        keys.push('\r');
    }
    Ok(Answer {
        keys,
        rule: Some(rule.name.clone()),
        picked: Some(label),
    })
}

/// The keys that answer `choice` on the dialog on `screen` (see the module doc).
/// `app_cursor`: the terminal is in application cursor mode (arrow keys as `ESC O x`).
///
/// Errors: [`Refusal`]. A raw key (digits, one character) with no readable dialog is
/// typed as given: it is the user's own key.
pub fn resolve(
    manifest: Option<&Manifest>,
    screen: &Screen,
    choice: &str,
    app_cursor: bool,
) -> Result<Answer, Refusal> {
    let raw = || Answer {
        keys: choice.to_string(),
        rule: None,
        picked: None,
    };
    let Some(rule) = manifest.and_then(|m| matched_rule(m, screen)) else {
        return if is_raw_key(choice) {
            Ok(raw())
        } else {
            Err(Refusal::NoDialog)
        };
    };
    let spec = rule
        .answers
        .iter()
        .find(|a| a.choice.eq_ignore_ascii_case(choice));
    if let Some(keys) = spec.and_then(|s| s.keys.as_ref()) {
        return Ok(Answer {
            keys: keys.clone(),
            rule: Some(rule.name.clone()),
            picked: None,
        });
    }
    let region = screen.region(&rule.region);
    let options = match (rule.region != Region::Title)
        .then(|| rule.options(&region))
        .flatten()
    {
        Some(o) => o,
        None if spec.is_none() && is_raw_key(choice) => return Ok(raw()),
        None => {
            return Err(Refusal::NoOptions {
                rule: rule.name.clone(),
            })
        }
    };
    // `allow` and `deny` of a permission go by what the options mean, never by their
    // position or a rule's pattern (`super::permission`).
    let labels = options.labels();
    let asks = permission::kind_of(rule.kind, &region, &labels) == DecisionKind::Permission;
    if let Some(c) = Choice::parse(choice).filter(|_| asks) {
        return match permission::pick(c, &labels) {
            Ok(i) => pick(&options, i, app_cursor, rule),
            Err(hits) if hits.is_empty() => Err(Refusal::NoMatch {
                choice: choice.to_string(),
                offered: options.describe(),
            }),
            Err(hits) => Err(Refusal::Ambiguous {
                choice: choice.to_string(),
                matched: hits
                    .iter()
                    .map(|&i| labels[i].clone())
                    .collect::<Vec<_>>()
                    .join(" | "),
            }),
        };
    }
    if let Some(pattern) = spec.and_then(|s| s.label.as_ref()) {
        let hits: Vec<usize> = options
            .items
            .iter()
            .enumerate()
            .filter(|(_, o)| pattern.0.is_match(&o.label))
            .map(|(i, _)| i)
            .collect();
        return match hits[..] {
            [one] => pick(&options, one, app_cursor, rule),
            [] => Err(Refusal::NoMatch {
                choice: choice.to_string(),
                offered: options.describe(),
            }),
            _ => Err(Refusal::Ambiguous {
                choice: choice.to_string(),
                matched: hits
                    .iter()
                    .map(|&i| options.items[i].label.clone())
                    .collect::<Vec<_>>()
                    .join(" | "),
            }),
        };
    }
    // An option number as drawn (or its position in an unnumbered list).
    if let Ok(n) = choice.parse::<u32>() {
        let numbered = options.items.iter().any(|o| o.number.is_some());
        let index = if numbered {
            options.items.iter().position(|o| o.number == Some(n))
        } else {
            (n as usize)
                .checked_sub(1)
                .filter(|i| *i < options.items.len())
        };
        return match index {
            Some(i) => pick(&options, i, app_cursor, rule),
            None => Err(Refusal::NoMatch {
                choice: choice.to_string(),
                offered: options.describe(),
            }),
        };
    }
    // The whole label of one option.
    let by_label: Vec<usize> = options
        .items
        .iter()
        .enumerate()
        .filter(|(_, o)| o.label.eq_ignore_ascii_case(choice.trim()))
        .map(|(i, _)| i)
        .collect();
    if let [one] = by_label[..] {
        return pick(&options, one, app_cursor, rule);
    }
    // A shortcut key the dialog names.
    if is_raw_key(choice) {
        return Ok(raw());
    }
    let named: Vec<String> = rule.answers.iter().map(|a| a.choice.clone()).collect();
    let kind = if asks {
        DecisionKind::Permission
    } else {
        rule.kind
    };
    let mut known = permission::choices(kind, &named);
    known.push(format!("an option number: {}", options.describe()));
    Err(Refusal::UnknownChoice {
        choice: choice.to_string(),
        known: known.join(", "),
    })
}

/// The key that confirms an answer the agent did not take: Enter, when the dialog of
/// `rule` is still on `screen` with its selection cursor on the option labelled `picked`
/// (the keys moved the cursor but the confirmation was not taken: Claude Code ignores the
/// key that submits a permission dialog in its first moment on screen). `None` when the
/// dialog is gone, another dialog shows, or the cursor is elsewhere: nothing is typed
/// again (`docs/lifecycle-attention.md#answer`).
pub fn confirm_keys(
    manifest: Option<&Manifest>,
    screen: &Screen,
    rule: &str,
    picked: &str,
) -> Option<String> {
    let r = manifest.and_then(|m| matched_rule(m, screen))?;
    if r.name != rule || r.region == Region::Title {
        return None;
    }
    let options = r.options(&screen.region(&r.region))?;
    let at = options.items.get(options.cursor?)?;
    (at.label == picked).then(|| "\r".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::manifest::{parse, shipped};
    use crate::model::AgentKind;

    fn manifest(agent: AgentKind) -> Manifest {
        parse(shipped(agent).unwrap()).unwrap()
    }

    fn fixture(path: &str) -> Screen {
        let root = env!("CARGO_MANIFEST_DIR");
        let text =
            std::fs::read_to_string(format!("{root}/tests/fixtures/screens/{path}")).unwrap();
        Screen::new(&text, "")
    }

    fn keys(agent: AgentKind, screen: &Screen, choice: &str) -> Result<String, Refusal> {
        resolve(Some(&manifest(agent)), screen, choice, false).map(|a| a.keys)
    }

    /// Every recorded gate dialog of every pinned version: allow, deny and cancel pick
    /// the option whose label means it, wherever it is drawn.
    #[test]
    fn recorded_gate_dialogs_answer_by_label() {
        use AgentKind::*;
        let table: &[(AgentKind, &str, &str, &str)] = &[
            (Claude, "claude/2.1.197/permission-dialog.txt", "1", "3"),
            // 2.1.332: "3. Yes, and switch to auto mode", "4. No".
            (Claude, "claude/2.1.332/permission-dialog.txt", "1", "4"),
            (Codex, "codex/0.171.0/approval-dialog.txt", "y", "\u{1b}"),
            (Gemini, "gemini/0.61.0/permission-dialog.txt", "1", "\u{1b}"),
            // "4. No, suggest changes (esc)": its shortcut.
            (Qwen, "qwen/0.24.4/permission-dialog.txt", "1", "\u{1b}"),
            // Unnumbered options: Enter on "Allow once" (selected when it opens), Esc rejects.
            (
                OpenCode,
                "opencode/1.18.33/permission-dialog.txt",
                "\r",
                "\u{1b}",
            ),
            // Its numbers only move the selection (Enter confirms); deny is Esc: the "No"
            // option is a text field that Enter alone does not submit.
            (
                Copilot,
                "copilot/1.0.102/permission-dialog.txt",
                "1\r",
                "\u{1b}",
            ),
            (
                Copilot,
                "copilot/1.0.102/permission-dialog-always.txt",
                "1\r",
                "\u{1b}",
            ),
            // "3. Reject" beside "4. Reject with feedback": the bare word.
            (Kimi, "kimi/2.1.0/permission-dialog.txt", "1", "3"),
            // "[y] Approve   [n] Deny": no options, the keys its manifest names.
            (Cline, "cline/3.0.65/permission-dialog.txt", "y", "n"),
            // Its numbered options in a box; a number chooses at once.
            (
                Hermes,
                "hermes/0.19.0/dangerous-command-approval.txt",
                "1",
                "4",
            ),
            // aider's one prompt row: a letter and Enter.
            (
                Aider,
                "aider/0.86.2/shell-command-approval.txt",
                "y\r",
                "n\r",
            ),
        ];
        for (agent, path, allow, deny) in table {
            let s = fixture(path);
            assert_eq!(keys(*agent, &s, "allow").as_deref(), Ok(*allow), "{path}");
            assert_eq!(keys(*agent, &s, "Deny").as_deref(), Ok(*deny), "{path}");
        }
        let s = fixture("claude/2.1.332/permission-dialog.txt");
        let a = resolve(Some(&manifest(Claude)), &s, "always", false).unwrap();
        assert_eq!(a.keys, "2");
        assert!(a.picked.unwrap().starts_with("Yes, and always allow"));
        assert_eq!(keys(Claude, &s, "cancel").as_deref(), Ok("\u{1b}"));
        // The agent's own numbers, and a whole label.
        assert_eq!(keys(Claude, &s, "4").as_deref(), Ok("4"));
        assert_eq!(keys(Claude, &s, "no").as_deref(), Ok("4"));
        // Qwen: two "Always allow …" options; "always" means the project's.
        let s = fixture("qwen/0.24.4/permission-dialog.txt");
        let a = resolve(Some(&manifest(Qwen)), &s, "always", false).unwrap();
        assert_eq!(a.keys, "2");
        let s = fixture("copilot/1.0.102/permission-dialog-always.txt");
        let a = resolve(Some(&manifest(Copilot)), &s, "always", false).unwrap();
        assert_eq!(a.keys, "2\r");
    }

    /// Cline's question tool draws its options without numbers, the cursor `>` on the
    /// first and a text answer last; the conversation above (its prompts drawn `❯ …`) is
    /// not read as options.
    #[test]
    fn cline_question_answers_by_label_with_cursor_moves() {
        let s = fixture("cline/3.0.65/question-dialog.txt");
        assert_eq!(keys(AgentKind::Cline, &s, "Red").as_deref(), Ok("\r"));
        assert_eq!(
            keys(AgentKind::Cline, &s, "blue").as_deref(),
            Ok("\u{1b}[B\r")
        );
        let a = resolve(Some(&manifest(AgentKind::Cline)), &s, "Blue", false).unwrap();
        assert_eq!(a.rule.as_deref(), Some("question"));
        assert_eq!(a.picked.as_deref(), Some("Blue"));
    }

    /// Hermes's `clarify` question: its choices numbered in the "Hermes needs your input"
    /// box, "Other (type your answer)" after them; a label types its number.
    #[test]
    fn hermes_clarify_question_answers_a_choice_by_its_number() {
        let s = fixture("hermes/0.19.0/clarify-question.txt");
        let a = resolve(Some(&manifest(AgentKind::Hermes)), &s, "Blue", false).unwrap();
        assert_eq!(a.rule.as_deref(), Some("clarify"));
        assert_eq!((a.keys.as_str(), a.picked.as_deref()), ("2", Some("Blue")));
        assert_eq!(keys(AgentKind::Hermes, &s, "red").as_deref(), Ok("1"));
    }

    /// Letta's `AskUserQuestion`: options numbered with descriptions below them, "Type
    /// something." last; a number picks and submits (no Enter), Esc cancels.
    #[test]
    fn letta_question_answers_an_option_by_its_number() {
        let s = fixture("letta/0.25.9/question-dialog.txt");
        let a = resolve(Some(&manifest(AgentKind::Letta)), &s, "Blue", false).unwrap();
        assert_eq!(a.rule.as_deref(), Some("question"));
        assert_eq!((a.keys.as_str(), a.picked.as_deref()), ("2", Some("Blue")));
        assert_eq!(
            keys(AgentKind::Letta, &s, "cancel").as_deref(),
            Ok("\u{1b}")
        );
    }

    /// Dialogs no hook names: the folder trust dialog of both Claude versions (2.1.332
    /// draws "No, exit" above "Yes, I trust this folder", without numbers) and the
    /// one-time offer.
    #[test]
    fn trust_dialogs_and_offers_answer_by_label() {
        use AgentKind::*;
        let s = fixture("claude/2.1.197/folder-trust.txt");
        assert_eq!(keys(Claude, &s, "allow").as_deref(), Ok("1"));
        assert_eq!(keys(Claude, &s, "deny").as_deref(), Ok("2"));
        let s = fixture("claude/2.1.332/folder-trust.txt");
        assert_eq!(keys(Claude, &s, "allow").as_deref(), Ok("\u{1b}[B\r"));
        assert_eq!(keys(Claude, &s, "deny").as_deref(), Ok("\r"));
        assert_eq!(keys(Claude, &s, "2").as_deref(), Ok("\u{1b}[B\r"));
        let s = fixture("claude/2.1.332/auto-mode-offer.txt");
        assert_eq!(keys(Claude, &s, "deny").as_deref(), Ok("\u{1b}[B\r"));
        assert_eq!(
            keys(Claude, &s, "No, keep manual mode").as_deref(),
            Ok("\u{1b}[B\r")
        );
        let s = fixture("codex/0.171.0/folder-trust.txt");
        assert_eq!(keys(Codex, &s, "allow").as_deref(), Ok("1\r"));
        let s = fixture("gemini/0.61.0/folder-trust.txt");
        assert_eq!(keys(Gemini, &s, "deny").as_deref(), Ok("3"));
        // Copilot: numbers move the selection; "3. No (Esc)" has its shortcut.
        let s = fixture("copilot/1.0.102/folder-trust.txt");
        assert_eq!(keys(Copilot, &s, "allow").as_deref(), Ok("1\r"));
        assert_eq!(keys(Copilot, &s, "always").as_deref(), Ok("2\r"));
        assert_eq!(keys(Copilot, &s, "deny").as_deref(), Ok("\u{1b}"));
    }

    #[test]
    fn a_layout_with_no_over_yes_without_numbers_moves_the_cursor() {
        // "No" above "Yes", no numbers: the shipped permission rule matches it, and
        // `allow` / `deny` go by what the labels mean, not by their position.
        let text =
            "● hi\n────────────────\n Do you want to proceed?\n ❯ No\n   Yes\n\n Esc to cancel";
        let s = Screen::new(text, "");
        assert_eq!(
            keys(AgentKind::Claude, &s, "allow").as_deref(),
            Ok("\u{1b}[B\r")
        );
        assert_eq!(keys(AgentKind::Claude, &s, "deny").as_deref(), Ok("\r"));
        let m = manifest(AgentKind::Claude);
        assert_eq!(
            resolve(Some(&m), &s, "allow", true).unwrap().keys,
            "\u{1b}OB\r"
        );
    }

    /// Claude's own question (AskUserQuestion): its options are read across the rule
    /// above "Chat about this", so a label picks its number, "Type something." included
    /// (the free-text reply's first step).
    #[test]
    fn claudes_question_dialog_answers_an_option_by_its_label() {
        let screen = fixture("claude/2.1.332/question-dialog.txt");
        let m = manifest(AgentKind::Claude);
        let a = resolve(Some(&m), &screen, "Type something.", false).unwrap();
        assert_eq!(a.rule.as_deref(), Some("question-dialog"));
        assert_eq!(
            (a.keys.as_str(), a.picked.as_deref()),
            ("3", Some("Type something."))
        );
        assert_eq!(keys(AgentKind::Claude, &screen, "Blue"), Ok("2".into()));
    }

    #[test]
    fn an_answer_not_taken_is_confirmed_only_on_its_own_dialog_and_option() {
        let m = manifest(AgentKind::Claude);
        let path = "claude/2.1.332/permission-dialog.txt";
        let root = env!("CARGO_MANIFEST_DIR");
        let drawn =
            std::fs::read_to_string(format!("{root}/tests/fixtures/screens/{path}")).unwrap();
        // The number key moved the cursor to "4. No" but the dialog stayed.
        let moved = drawn
            .replace(" \u{276f} 1. Yes", "   1. Yes")
            .replace("   4. No", " \u{276f} 4. No");
        assert_ne!(moved, drawn);
        let moved = Screen::new(&moved, "");
        let confirm =
            |s: &Screen, rule: &str, picked: &str| confirm_keys(Some(&m), s, rule, picked);
        assert_eq!(
            confirm(&moved, "permission-dialog", "No").as_deref(),
            Some("\r")
        );
        // The cursor elsewhere, another rule, or no dialog: nothing is typed again.
        assert_eq!(confirm(&fixture(path), "permission-dialog", "No"), None);
        assert_eq!(confirm(&moved, "folder-trust", "No"), None);
        let prompt = fixture("claude/2.1.332/folder-trust.txt");
        assert_eq!(confirm(&prompt, "permission-dialog", "No"), None);
        assert_eq!(
            confirm(&Screen::new("$ ", ""), "permission-dialog", "No"),
            None
        );
        assert_eq!(confirm_keys(None, &moved, "permission-dialog", "No"), None);
    }

    #[test]
    fn refusals_say_what_is_on_screen() {
        use AgentKind::*;
        // No dialog: a named choice is refused, a raw key typed as given.
        let idle = Screen::new(
            "● done\n────────────\n❯ \n────────────\n  ? for shortcuts",
            "",
        );
        assert_eq!(keys(Claude, &idle, "allow"), Err(Refusal::NoDialog));
        assert_eq!(keys(Claude, &idle, "1").as_deref(), Ok("1"));
        assert_eq!(
            resolve(None, &idle, "deny", false),
            Err(Refusal::NoDialog),
            "no manifest (a shell)"
        );
        // A dialog where nothing means the choice.
        let s = fixture("claude/2.1.332/permission-dialog.txt");
        let strange = s
            .rows
            .iter()
            .map(|r| r.replace("4. No", "4. Nope"))
            .collect::<Vec<_>>();
        let strange = Screen::new(&strange.join("\n"), "");
        let err = keys(Claude, &strange, "deny");
        match err {
            Err(Refusal::NoMatch { offered, .. }) => {
                assert!(offered.contains("4. Nope"), "{offered}")
            }
            other => panic!("{other:?}"),
        }
        // Two options that both read as "yes".
        let twice = Screen::new(
            "────────────\n Do you want to proceed?\n ❯ 1. Yes\n   2. Yes\n   3. No\n Esc to cancel",
            "",
        );
        assert!(matches!(
            keys(Claude, &twice, "allow"),
            Err(Refusal::Ambiguous { .. })
        ));
        // A number the dialog does not show, and a word it does not know.
        assert!(matches!(
            keys(Claude, &s, "7"),
            Err(Refusal::NoMatch { .. })
        ));
        match keys(Claude, &s, "definitely-not") {
            Err(Refusal::UnknownChoice { known, .. }) => {
                assert!(
                    known.contains("allow") && known.contains("4. No"),
                    "{known}"
                )
            }
            other => panic!("{other:?}"),
        }
        // A title-only match (Codex's window title) has no options to read.
        let titled = Screen::new("› ", "[ ! ] Action Required | proj");
        let err = resolve(Some(&manifest(Codex)), &titled, "allow", false);
        assert_eq!(
            err,
            Err(Refusal::NoOptions {
                rule: "action-required-title".into()
            })
        );
        assert!(err.unwrap_err().to_string().contains("nothing was typed"));
    }
}
