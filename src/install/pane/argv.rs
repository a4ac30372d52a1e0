//! Where the agent's program stands in a pane's argv: first, or after an `env` prefix
//! (`env [-i] [-u NAME] [NAME=VALUE]… PROGRAM ARGS…`), whose assignments the agent sees.

use crate::model::AgentKind;

/// The agent's program in an argv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The index of the program in the argv.
    pub program: usize,
    /// `NAME=VALUE` assignments of an `env` prefix, in order.
    pub assignments: Vec<(String, String)>,
    /// The prefix clears the environment (`env -i`).
    pub cleared: bool,
    /// The names the prefix unsets (`-u NAME`, `--unset=NAME`).
    pub unset: Vec<String>,
}

impl Located {
    /// The value the agent sees for `name` from the prefix: `Some(Some(v))` assigned,
    /// `Some(None)` removed (`-u`, or `-i` without an assignment), `None` untouched.
    fn prefix_value(&self, name: &str) -> Option<Option<String>> {
        if let Some((_, v)) = self.assignments.iter().rev().find(|(k, _)| k == name) {
            return Some(Some(v.clone()));
        }
        (self.cleared || self.unset.iter().any(|u| u == name)).then_some(None)
    }

    /// `name` as the prefix sets it; `None` when the prefix does not decide (ask the
    /// pane's environment).
    pub fn var(&self, name: &str) -> Option<String> {
        self.prefix_value(name).flatten()
    }

    /// True when the prefix removes `name` from the environment the agent inherits.
    pub fn removes(&self, name: &str) -> bool {
        matches!(self.prefix_value(name), Some(None))
    }
}

/// Finds `agent`'s program in `argv`: `argv[0]`, or the first word after an `env` prefix,
/// whose file name is the agent's executable (`claude`, `/usr/bin/codex`).
/// `None` when the program is something else (a shell, a wrapper script, `npx`) or the
/// prefix uses an `env` option this does not follow (`-S`, `--split-string`, an unknown
/// one): then the pane gets no hooks of its own and the global ones (if installed) report.
pub fn locate(argv: &[String], agent: AgentKind) -> Option<Located> {
    let mut found = Located {
        program: 0,
        assignments: Vec::new(),
        cleared: false,
        unset: Vec::new(),
    };
    let first = argv.first()?;
    if file_name(first) == "env" {
        let mut i = 1;
        let mut options = true;
        while let Some(word) = argv.get(i) {
            if options && word == "--" {
                options = false;
            } else if options && matches!(word.as_str(), "-i" | "-" | "--ignore-environment") {
                found.cleared = true;
            } else if options && matches!(word.as_str(), "-u" | "--unset") {
                found.unset.push(argv.get(i + 1)?.clone());
                i += 1;
            } else if let Some(name) = word.strip_prefix("--unset=").filter(|_| options) {
                found.unset.push(name.to_string());
            } else if let Some(name) = word.strip_prefix("-u").filter(|n| options && !n.is_empty())
            {
                found.unset.push(name.to_string());
            } else if options && matches!(word.as_str(), "-0" | "--null" | "-v" | "--debug") {
                // Options without a value that change nothing the agent sees.
            } else if options && word.starts_with('-') {
                return None;
            } else if let Some((name, value)) = assignment(word) {
                found.assignments.push((name, value));
            } else {
                break;
            }
            i += 1;
        }
        found.program = i;
    }
    let program = argv.get(found.program)?;
    (AgentKind::from_program(program) == agent && agent != AgentKind::Shell).then_some(found)
}

/// `NAME=VALUE` with a name of letters, digits and `_` (what `env` takes as an
/// assignment).
fn assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then(|| (name.to_string(), value.to_string()))
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The first argument after the program, when it is one of `subcommands` (an agent
/// subcommand that starts no session: no hooks are added to it).
pub(super) fn subcommand<'a>(args: &'a [String], subcommands: &[&str]) -> Option<&'a str> {
    args.first()
        .map(String::as_str)
        .filter(|a| subcommands.contains(a))
}
