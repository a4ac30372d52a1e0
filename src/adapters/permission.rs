//! A permission is known by what it asks, not by its layout
//! (`docs/lifecycle-attention.md#permissions-by-meaning`).
//!
//! A dialog that asks to approve an action (run a command, edit or write a file, fetch,
//! use a tool, accept a plan) is a permission gate whatever its form: numbered or not,
//! "Yes" first or "No" first, two to four options, with or without an "always" option.
//! [`meaning`] reads what one option label means ([`Meaning`]); [`asks_approval`] tells a
//! permission from a question by the dialog's words and its options; [`pick`] finds the
//! one option `allow` or `deny` means. An option that widens permissions for later
//! ("always", "don't ask again", "switch to auto mode", "for this session") is never what
//! `allow` presses; when no label can be matched with certainty there is no pick, and the
//! caller refuses and types nothing.
//!
//! Pure: text in, meanings out. The same rule serves every agent and every kind of pane.

use crate::model::DecisionKind;
use regex::Regex;
use std::sync::LazyLock;

/// What one option of a permission dialog means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meaning {
    /// A yes for this one action only ("Yes", "Yes, proceed", "Allow once", "Yes,
    /// manually approve edits").
    Once,
    /// A yes that widens permissions for later ("Yes, and always allow …", "Allow for
    /// this session", "Yes, and switch to auto mode", "Yes, and don't ask again …").
    Widens,
    /// A no ("No", "No, and tell Claude what to do differently", "Deny", "Reject").
    No,
}

/// Words that make a yes wider than this one action.
static WIDENS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?ix)
        \balways\b | don.?t\s+ask | do\s+not\s+ask | \bremember\b
        | \bswitch\s+to\s+(auto|accept|bypass|yolo|full)\b | \bauto[\s-]*mode\b | \bauto[\s-]*accept | \baccept\s+edits\b | \ballow\s+all\b
        | \bbypass | \bfor\s+(this|the)\s+(session|project|repo|user|folder)\b
        | \bduring\s+this\s+session\b | \bfor\s+the\s+rest\b | \bfrom\s+now\s+on\b
        | \bevery\s+time\b | \bfuture\b | \bin\s+this\s+(project|repo|folder)\b",
    )
    .expect("static regex")
});

/// Words that keep a yes to this one action even beside [`WIDENS`]' words: the mode it
/// leaves the agent in asks each time ("Yes, and switch to default (ask each time) for
/// this session", "Yes, manually approve edits").
static NARROW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bask\s+each\s+time\b|\bask\s+every\s+time\b|\bmanually\s+approve")
        .expect("static regex")
});

/// The start of a label that says no.
static NO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(no\b|deny\b|reject|decline|don.?t\s+allow|do\s+not\s+allow|disallow|cancel\b|abort\b)")
        .expect("static regex")
});

/// The start of a label that says yes.
static YES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(yes\b|allow\b|approve|accept\b|proceed\b|run\b|execute\b|ok\b|okay\b|confirm\b|continue\b)")
        .expect("static regex")
});

/// Words of a dialog that asks to approve an action: run, edit, write, create, fetch,
/// use a tool, execute, accept a plan.
static ASKS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?ix)
        \bdo\s+you\s+want\s+to\s+(proceed|run|make|create|write|edit|execute|apply|fetch|delete|overwrite|use|allow)\b
        | \bwould\s+you\s+like\s+to\s+(proceed|run|make|create|write|edit|execute|apply|fetch)\b
        | \ballow\s+(execution|this|the\s+\w+|\w+\s+to)\b
        | \bpermission\s+required\b | \bneeds\s+your\s+approval\b | \bapprove\s+(this|the)\b
        | \bready\s+to\s+execute\b | \brun\s+this\s+command\b | \bexit\s+plan\s+mode\b",
    )
    .expect("static regex")
});

/// What `label` (an option as [`super::dialog::read_options`] reads it, without number
/// and cursor) means in a permission dialog; `None` when it says neither yes nor no
/// ("Tell Claude what to change", "Type here").
pub fn meaning(label: &str) -> Option<Meaning> {
    if NO.is_match(label) {
        return Some(Meaning::No);
    }
    if YES.is_match(label) {
        return Some(if WIDENS.is_match(label) && !NARROW.is_match(label) {
            Meaning::Widens
        } else {
            Meaning::Once
        });
    }
    None
}

/// True when the dialog whose `text` (its region, any layout: the words may wrap
/// anywhere) offers `labels` asks to approve an action: its words ask it ([`ASKS`]), and
/// exactly one option is a one-time yes and at least one is a no.
pub fn asks_approval(text: &str, labels: &[String]) -> bool {
    let flowed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let once = labels
        .iter()
        .filter(|l| meaning(l) == Some(Meaning::Once))
        .count();
    let no = labels.iter().any(|l| meaning(l) == Some(Meaning::No));
    ASKS.is_match(&flowed) && once == 1 && no
}

/// The kind of a dialog a rule declared `declared`, read as drawn: a question whose
/// dialog [`asks_approval`] is a permission (a rule for any dialog frame, a layout no
/// permission rule knows yet).
pub fn kind_of(declared: DecisionKind, text: &str, labels: &[String]) -> DecisionKind {
    if declared == DecisionKind::Question && asks_approval(text, labels) {
        DecisionKind::Permission
    } else {
        declared
    }
}

/// The answer choices of a dialog of `kind` whose rule names `named`: a permission
/// always offers `allow` and `deny` (by meaning), first, then the rule's others.
pub fn choices(kind: DecisionKind, named: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if kind == DecisionKind::Permission {
        out.extend(["allow".to_string(), "deny".to_string()]);
    }
    for c in named {
        if !out.iter().any(|o| o.eq_ignore_ascii_case(c)) {
            out.push(c.clone());
        }
    }
    out
}

/// The permission choices [`pick`] knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// The one-time yes.
    Allow,
    /// The no.
    Deny,
}

impl Choice {
    /// `allow` or `deny` (case-insensitive), else `None`.
    pub fn parse(choice: &str) -> Option<Choice> {
        if choice.eq_ignore_ascii_case("allow") {
            Some(Choice::Allow)
        } else if choice.eq_ignore_ascii_case("deny") {
            Some(Choice::Deny)
        } else {
            None
        }
    }
}

/// The index of the one option of `labels` that `choice` means: `Allow` the only
/// [`Meaning::Once`], `Deny` the first [`Meaning::No`] (the plain "No" where a dialog
/// draws a plain one and one with feedback). `Err` with the matching indexes (none, or
/// several once-yeses) when the pick is not certain.
pub fn pick(choice: Choice, labels: &[String]) -> Result<usize, Vec<usize>> {
    let of = |m: Meaning| -> Vec<usize> {
        labels
            .iter()
            .enumerate()
            .filter(|(_, l)| meaning(l) == Some(m))
            .map(|(i, _)| i)
            .collect()
    };
    match choice {
        Choice::Allow => match of(Meaning::Once)[..] {
            [one] => Ok(one),
            ref other => Err(other.to_vec()),
        },
        Choice::Deny => {
            let no = of(Meaning::No);
            // The bare word ("No", Kimi's "Reject" beside "Reject with feedback").
            let plain = no.iter().copied().find(|&i| {
                let word = labels[i].trim().trim_end_matches('.');
                ["no", "reject", "deny"]
                    .iter()
                    .any(|w| word.eq_ignore_ascii_case(w))
            });
            match (plain, &no[..]) {
                (Some(i), _) | (None, &[i]) => Ok(i),
                _ => Err(no),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(l: &[&str]) -> Vec<String> {
        l.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn labels_mean_what_they_say() {
        for once in [
            "Yes",
            "Yes, proceed",
            "Allow once",
            "Yes, allow once",
            "Yes, manually approve edits",
            "Approve",
            "Yes, and switch to default (ask each time) for this session",
        ] {
            assert_eq!(meaning(once), Some(Meaning::Once), "{once}");
        }
        for widens in [
            "Yes, and always allow access to /tmp/proj from this project",
            "Yes, and switch to auto mode · auto mode handles these prompts for you",
            "Yes, and don't ask again for commands that start with `echo`",
            "Allow for this session",
            "Allow always",
            "Always allow run 'echo *' commands in this project",
            "Yes, and auto-accept edits",
            "Yes, accept edits",
            "Yes, allow all edits during this session",
            "Yes, and remember this folder for future sessions",
            "Yes, and switch to accept edits for this session",
        ] {
            let m = meaning(widens);
            assert!(m != Some(Meaning::Once), "{widens}: {m:?}");
        }
        for no in [
            "No",
            "No, and tell Claude what to do differently",
            "No, suggest changes",
            "Deny",
            "Reject",
            "No, keep planning",
        ] {
            assert_eq!(meaning(no), Some(Meaning::No), "{no}");
        }
        assert_eq!(meaning("Tell Claude what to change"), None);
        assert_eq!(
            meaning("Nothing"),
            None,
            "a word that starts with no is no no"
        );
    }

    #[test]
    fn allow_and_deny_are_picked_by_meaning_never_by_position() {
        let no_first = labels(&["No", "Yes"]);
        assert_eq!(pick(Choice::Allow, &no_first), Ok(1));
        assert_eq!(pick(Choice::Deny, &no_first), Ok(0));
        let claude = labels(&[
            "Yes",
            "Yes, and always allow access to /tmp/proj from this project",
            "Yes, and switch to auto mode · auto mode handles these prompts for you",
            "No",
        ]);
        assert_eq!(pick(Choice::Allow, &claude), Ok(0));
        assert_eq!(pick(Choice::Deny, &claude), Ok(3));
        let opencode = labels(&["Allow once", "Allow always", "Reject"]);
        assert_eq!(pick(Choice::Allow, &opencode), Ok(0));
        assert_eq!(pick(Choice::Deny, &opencode), Ok(2));
        let qwen = labels(&[
            "Yes, allow once",
            "Always allow run 'echo *' commands in this project",
            "Always allow run 'echo *' commands for this user",
            "No, suggest changes",
        ]);
        assert_eq!(pick(Choice::Allow, &qwen), Ok(0));
        assert_eq!(pick(Choice::Deny, &qwen), Ok(3));
        let kimi = labels(&[
            "Approve once",
            "Approve for this session",
            "Reject",
            "Reject with feedback",
        ]);
        assert_eq!(pick(Choice::Allow, &kimi), Ok(0));
        assert_eq!(pick(Choice::Deny, &kimi), Ok(2));
    }

    #[test]
    fn no_certain_match_is_no_pick() {
        // Only widening yeses: allow must not press one of them.
        let wide = labels(&["Yes, and don't ask again", "Allow for this session", "No"]);
        assert_eq!(pick(Choice::Allow, &wide), Err(vec![]));
        // Two one-time yeses: which one is not certain.
        let two = labels(&["Yes", "Yes, proceed", "No"]);
        assert_eq!(pick(Choice::Allow, &two), Err(vec![0, 1]));
        // Two kinds of no and no plain one.
        let nos = labels(&["Yes", "No, exit", "No, and tell Claude"]);
        assert_eq!(pick(Choice::Deny, &nos), Err(vec![1, 2]));
    }

    #[test]
    fn a_permission_is_known_by_what_it_asks() {
        let approval = "Auto mode can't check actions in this session, so this one needs\n your approval\n Do you want to\n proceed?";
        assert!(asks_approval(approval, &labels(&["No", "Yes"])));
        assert!(asks_approval(
            "Would you like to run the following command?",
            &labels(&[
                "Yes, proceed",
                "Yes, and don't ask again",
                "No, and tell Codex"
            ])
        ));
        assert!(asks_approval(
            "Claude has written up a plan and is ready to execute. Would you like to proceed?",
            &labels(&[
                "Yes, and use auto mode",
                "Yes, manually approve edits",
                "No, refine with Ultraplan on Claude Code on the web",
                "Tell Claude what to change",
            ])
        ));
        // Claude Code 2.1.332's plan approval in plan mode (ExitPlanMode).
        assert!(asks_approval(
            "Exit plan mode?\n\n Claude wants to exit plan mode",
            &labels(&[
                "Yes, and switch to default (ask each time) for this session",
                "No"
            ])
        ));
        // Questions stay questions.
        assert!(!asks_approval(
            "Do you trust the files in this folder?",
            &labels(&["Yes, I trust this folder", "No, exit"])
        ));
        assert!(!asks_approval(
            "Make auto mode your default permission mode?",
            &labels(&[
                "Yes, set auto mode as my default permission mode",
                "No, keep manual mode"
            ])
        ));
        assert!(!asks_approval(
            "Which database should I use?",
            &labels(&["Postgres", "SQLite"])
        ));
    }
}
