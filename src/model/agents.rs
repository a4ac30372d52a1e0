//! The one table of agents Attend knows: `data/agents.tsv`, compiled in and parsed once
//! (`docs/adapters.md#adding-an-agent`). One row per agent: its wire name, display name,
//! package and registry, pinned versions, binary, the process names that identify it and
//! the files its hooks are installed in. `build-aux/agents.sh` and the real-agent tests
//! read their pins from the same file.
//!
//! The file: tab-separated, the [`COLUMNS`] header first, then one row per agent, every
//! field non-empty (`-` for none). Lists are comma-separated. This module names no
//! [`AgentKind`](super::AgentKind): the kind looks its row up by wire name.

use std::fmt;
use std::sync::OnceLock;

/// The shipped table.
pub const TSV: &str = include_str!("../../data/agents.tsv");

/// The header line's columns, in order.
pub const COLUMNS: [&str; 8] = [
    "name",
    "display",
    "package",
    "registry",
    "versions",
    "binary",
    "processes",
    "config",
];

/// The process name of the Node.js interpreter: in an agent's `processes`, its npm
/// launcher script (`codex.js`, `gemini.js`, …) runs under `node`, so a `node` process
/// in a hook's ancestry may be the agent. It names no program of the agent's own.
pub const NODE: &str = "node";

/// Where an agent's pinned versions are installed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registry {
    /// The npm registry (`build-aux/agents.sh` installs every pinned version).
    Npm,
    /// The Python Package Index.
    Pypi,
    /// Not installed from a registry here (no pinned versions).
    None,
}

/// One agent's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentRow<'a> {
    /// The wire name (`claude`), as in `attend hook AGENT` and fixtures' directories.
    pub name: &'a str,
    /// The name people know it by (`Claude Code`).
    pub display: &'a str,
    /// Its package on the registry (`@anthropic-ai/claude-code`); `None` when it has none.
    pub package: Option<&'a str>,
    /// Where its pinned versions come from.
    pub registry: Registry,
    /// Its pinned versions, newest first; the last is the oldest Attend supports. Empty
    /// when not installed from a registry.
    pub versions: Vec<&'a str>,
    /// The program the package installs (`claude`, `cursor-agent`).
    pub binary: &'a str,
    /// The names a process of the agent carries (its `comm` or executable's file name
    /// starts with one): its executables, and [`NODE`] when its launcher runs under it.
    pub processes: Vec<&'a str>,
    /// The user-scope files `attend install-hooks` edits, `~/` for the home directory.
    pub config: Vec<&'a str>,
}

impl<'a> AgentRow<'a> {
    /// The program names that start the agent (`processes` without [`NODE`]).
    pub fn executables(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.processes.iter().copied().filter(|p| *p != NODE)
    }
}

/// A line of the table that is not a valid row (or a bad header), with its 1-based line
/// number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableError {
    /// The line, 1-based.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "data/agents.tsv line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for TableError {}

/// Parses a table: the header, then the rows (blank lines skipped). Errors on a missing
/// or different header, a row with another number of fields, an empty field, a bad name,
/// registry, version, process name or config path, a registry without a package or
/// versions, versions without a registry, and a name or process name (other than
/// [`NODE`]) given twice.
pub fn parse(text: &str) -> Result<Vec<AgentRow<'_>>, TableError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let header = lines.next().map(|(_, l)| l).unwrap_or_default();
    if header.split('\t').ne(COLUMNS) {
        return Err(TableError {
            line: 1,
            message: format!("the header must be {:?}", COLUMNS.join("\t")),
        });
    }
    let mut rows: Vec<AgentRow> = Vec::new();
    for (line, text) in lines.filter(|(_, l)| !l.trim().is_empty()) {
        let err = |message: String| TableError { line, message };
        let row = parse_row(text).map_err(err)?;
        if rows.iter().any(|r| r.name == row.name) {
            return Err(err(format!("agent {:?} has a row already", row.name)));
        }
        for p in row.processes.iter().filter(|p| **p != NODE) {
            if let Some(other) = rows.iter().find(|r| r.processes.contains(p)) {
                return Err(err(format!(
                    "process name {p:?} already identifies {:?}",
                    other.name
                )));
            }
        }
        rows.push(row);
    }
    Ok(rows)
}

/// One row's fields, checked on their own.
fn parse_row(text: &str) -> Result<AgentRow<'_>, String> {
    let fields: Vec<&str> = text.split('\t').collect();
    if fields.len() != COLUMNS.len() {
        return Err(format!(
            "{} tab-separated fields, expected {} ({})",
            fields.len(),
            COLUMNS.len(),
            COLUMNS.join(", ")
        ));
    }
    if let Some(i) = fields.iter().position(|f| f.trim() != *f || f.is_empty()) {
        return Err(format!(
            "column {:?} is empty or has spaces around it (write - for none)",
            COLUMNS[i]
        ));
    }
    fn opt(f: &str) -> Option<&str> {
        (f != "-").then_some(f)
    }
    fn list(f: &str) -> Vec<&str> {
        opt(f).map(|f| f.split(',').collect()).unwrap_or_default()
    }
    let [name, display, package, registry, versions, binary, processes, config] =
        <[&str; 8]>::try_from(fields).map_err(|_| "field count".to_string())?;
    let word = |w: &str, extra: &str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || extra.contains(c))
    };
    if !word(name, "-") || name.starts_with('-') || name != name.to_ascii_lowercase() {
        return Err(format!(
            "name {name:?}: lower-case letters, digits and '-' only"
        ));
    }
    let registry = match registry {
        "npm" => Registry::Npm,
        "pypi" => Registry::Pypi,
        "none" => Registry::None,
        other => return Err(format!("registry {other:?}: npm, pypi or none")),
    };
    let package = opt(package);
    let versions = list(versions);
    if let Some(v) = versions.iter().find(|v| !word(v, ".+-")) {
        return Err(format!(
            "version {v:?}: letters, digits, '.', '+' and '-' only"
        ));
    }
    match (registry, package, versions.is_empty()) {
        (Registry::None, _, false) => {
            return Err("versions given but registry none (nothing installs them)".into())
        }
        (Registry::Npm | Registry::Pypi, None, _) => return Err("a registry but no package".into()),
        (Registry::Npm | Registry::Pypi, _, true) => {
            return Err("a registry but no pinned version".into())
        }
        _ => {}
    }
    let processes = list(processes);
    if let Some(p) = processes.iter().find(|p| !word(p, "._-")) {
        return Err(format!(
            "process name {p:?}: letters, digits, '.', '_', '-' only"
        ));
    }
    if !processes.iter().any(|p| *p != NODE) {
        return Err(format!("processes: at least one besides {NODE:?}"));
    }
    let config = list(config);
    if let Some(c) = config
        .iter()
        .find(|c| !c.starts_with("~/") || c.len() == 2 || c.contains(' '))
    {
        return Err(format!("config path {c:?}: ~/ then a path, no spaces"));
    }
    Ok(AgentRow {
        name,
        display,
        package,
        registry,
        versions,
        binary,
        processes,
        config,
    })
}

/// The shipped table, parsed once. Panics when [`TSV`] is invalid, which the unit tests
/// of this module rule out for the file that ships.
pub fn table() -> &'static [AgentRow<'static>] {
    static TABLE: OnceLock<Vec<AgentRow<'static>>> = OnceLock::new();
    TABLE.get_or_init(|| parse(TSV).unwrap_or_else(|e| panic!("{e}")))
}

/// The row of the agent with wire name `name`.
pub fn row(name: &str) -> Option<&'static AgentRow<'static>> {
    table().iter().find(|r| r.name == name)
}

/// The agent whose executable is `program`'s file name (`/usr/bin/claude` → `claude`'s
/// row), exactly; never for [`NODE`].
pub fn by_program(program: &str) -> Option<&'static AgentRow<'static>> {
    let name = program.rsplit('/').next().unwrap_or(program);
    table().iter().find(|r| r.executables().any(|e| e == name))
}

/// True when a process named `name` (its `comm` or executable file name) carries the
/// process name `pattern` of a row's `processes`: the same name, or that name followed by
/// a separator and more (`claude.exe`, `codex-x86_64-unknown-linux-musl`); the next
/// character must not be a letter or digit, so `pi` is not `pip`, `ping` or `pinentry`. `comm` is cut to 15 bytes by the kernel, so a name of 15 bytes
/// that is the start of `pattern` matches too.
pub fn names_process(pattern: &str, name: &str) -> bool {
    const COMM_LEN: usize = 15;
    match name.strip_prefix(pattern) {
        Some(rest) => !rest.starts_with(|c: char| c.is_ascii_alphanumeric()),
        None => name.len() == COMM_LEN && pattern.starts_with(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "name\tdisplay\tpackage\tregistry\tversions\tbinary\tprocesses\tconfig\n";

    fn error(rows: &str) -> String {
        parse(&format!("{HEADER}{rows}")).unwrap_err().to_string()
    }

    #[test]
    fn a_process_name_matches_whole_or_before_a_separator() {
        assert!(names_process("claude", "claude"));
        assert!(names_process("claude", "claude.exe"));
        assert!(names_process("codex", "codex-x86_64-unknown-linux-musl"));
        assert!(names_process("pi", "pi"));
        for other in ["pip", "ping", "pinentry", "pi2"] {
            assert!(!names_process("pi", other), "{other}");
        }
        assert!(!names_process("claude", "claudex"));
        assert!(!names_process("claude", "node"));
        // `comm` holds 15 bytes at most.
        assert!(names_process("cursor-agent-worker", "cursor-agent-wo"));
        assert!(!names_process("cursor-agent-worker", "cursor"));
    }

    #[test]
    fn the_shipped_table_parses() {
        let rows = parse(TSV).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rows.len(), 25);
        assert_eq!(table(), rows.as_slice());
        let claude = row("claude").unwrap();
        assert_eq!(claude.display, "Claude Code");
        assert_eq!(claude.package, Some("@anthropic-ai/claude-code"));
        assert_eq!(claude.registry, Registry::Npm);
        assert_eq!(claude.versions, ["2.1.332", "2.1.197"]);
        assert_eq!(claude.config, ["~/.claude/settings.json"]);
        for name in ["cursor", "droid", "auggie", "amp", "qoder", "crush"] {
            let r = row(name).unwrap();
            assert_eq!(
                (r.registry, r.versions.len()),
                (Registry::None, 0),
                "{name}"
            );
        }
        assert!(row("shell").is_none());
    }

    #[test]
    fn programs_are_matched_by_their_exact_file_name() {
        let name = |p| by_program(p).map(|r| r.name);
        assert_eq!(name("/usr/bin/claude"), Some("claude"));
        assert_eq!(name("cursor-agent"), Some("cursor"));
        assert_eq!(name("cursor"), Some("cursor"));
        assert_eq!(name("node"), None, "node is no agent's program");
        assert_eq!(name("claude.exe"), None);
        assert_eq!(name("vim"), None, "an editor is no agent");
    }

    #[test]
    fn a_good_row_parses_and_blank_lines_are_skipped() {
        let text = format!("{HEADER}\nx\tX\t-\tnone\t-\tx\tx,node\t~/.x/a.json,~/.x/b\n\n");
        let rows = parse(&text).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].package, None);
        assert_eq!(rows[0].executables().collect::<Vec<_>>(), ["x"]);
        assert_eq!(rows[0].config, ["~/.x/a.json", "~/.x/b"]);
        let text = format!("{HEADER}y\tY\tpkg\tpypi\t2.0,1.0\ty\ty\t~/.y\n");
        let rows = parse(&text).unwrap();
        assert_eq!(rows[0].versions, ["2.0", "1.0"]);
    }

    #[test]
    fn bad_tables_are_clear_errors_naming_the_line() {
        let header = parse("name\tdisplay\n").unwrap_err();
        assert_eq!(header.line, 1);
        assert!(header.message.contains("header"), "{header}");
        assert!(parse("").is_err());
        let cases = [
            (
                "x\tX\t-\tnone\t-\tx\tx\n",
                "7 tab-separated fields, expected 8",
            ),
            ("x\t\t-\tnone\t-\tx\tx\t~/.x\n", "\"display\" is empty"),
            ("x\t X\t-\tnone\t-\tx\tx\t~/.x\n", "spaces around"),
            ("X\tX\t-\tnone\t-\tx\tx\t~/.x\n", "name \"X\""),
            ("x\tX\t-\tcrates\t-\tx\tx\t~/.x\n", "registry \"crates\""),
            ("x\tX\tp\tnpm\t-\tx\tx\t~/.x\n", "no pinned version"),
            ("x\tX\t-\tnpm\t1.0\tx\tx\t~/.x\n", "no package"),
            ("x\tX\tp\tnone\t1.0\tx\tx\t~/.x\n", "registry none"),
            ("x\tX\tp\tnpm\t1.0,\tx\tx\t~/.x\n", "version \"\""),
            ("x\tX\t-\tnone\t-\tx\tnode\t~/.x\n", "besides \"node\""),
            ("x\tX\t-\tnone\t-\tx\tx y\t~/.x\n", "process name \"x y\""),
            ("x\tX\t-\tnone\t-\tx\tx\t/etc/x\n", "config path \"/etc/x\""),
        ];
        for (row, wanted) in cases {
            let e = error(row);
            assert!(e.starts_with("data/agents.tsv line 2: "), "{e}");
            assert!(e.contains(wanted), "{row:?}: {e}");
        }
        let twice = "x\tX\t-\tnone\t-\tx\tx\t~/.x\nx\tX\t-\tnone\t-\ty\ty\t~/.y\n";
        assert!(error(twice).contains("line 3: agent \"x\" has a row already"));
        let shared = "x\tX\t-\tnone\t-\tx\tx,node\t~/.x\ny\tY\t-\tnone\t-\ty\ty,x,node\t~/.y\n";
        assert!(error(shared).contains("line 3: process name \"x\" already identifies \"x\""));
    }
}
