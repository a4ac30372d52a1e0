//! What a followed tmux pane is made of (`docs/tmux.md#what-is-followed`): which process
//! of a pane's tree is a known agent ([`find_agent`]), and the bytes that draw a pane's
//! captured screen on a fresh emulator ([`seed`]).

use crate::model::agents::{names_process, table, AgentRow, NODE};
use crate::model::AgentKind;

/// One process of a tmux pane's tree, as read from `/proc`: its pid, names (`comm` and
/// the executable's file name) and argv.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProcInfo {
    pub pid: u32,
    pub names: Vec<String>,
    pub argv: Vec<String>,
}

/// True when a process name is one of `row`'s executables, whole or before a separator
/// ([`names_process`]: `claude.exe`, `codex-x86_64-unknown-linux-musl`; `pi` is not `pip`).
fn is_executable(row: &AgentRow<'_>, name: &str) -> bool {
    row.executables().any(|e| names_process(e, name))
}

/// The agent a `node` process runs: its script (the first argument that is no option)
/// is named like one of a row's executables (npm's launcher `…/bin/claude`), or lies in
/// the row's npm package (`…/node_modules/@openai/codex/bin/codex.js`).
fn node_script(argv: &[String]) -> Option<&'static AgentRow<'static>> {
    let script = argv.iter().skip(1).find(|a| !a.starts_with('-'))?;
    let file = script.rsplit('/').next().unwrap_or(script);
    table().iter().find(|row| {
        is_executable(row, file)
            || row
                .package
                .is_some_and(|pkg| script.contains(&format!("/node_modules/{pkg}/")))
    })
}

/// The known agent running in a pane whose process tree is `tree` (the pane's own
/// process first, then its descendants, parents before children): the first process
/// whose name is an agent's executable ([`AgentKind::process_names`] without `node`,
/// from `data/agents.tsv`), or a `node` whose script is an agent's
/// ([`node_script`]). Returns the agent and that process's pid; `None` for a pane that
/// runs no known agent (a plain shell, an editor).
pub fn find_agent(tree: &[ProcInfo]) -> Option<(AgentKind, u32)> {
    tree.iter().find_map(|p| {
        let row = table()
            .iter()
            .find(|row| p.names.iter().any(|n| is_executable(row, n)))
            .or_else(|| {
                p.names
                    .iter()
                    .any(|n| n == NODE)
                    .then(|| node_script(&p.argv))
                    .flatten()
            })?;
        AgentKind::parse(row.name).map(|a| (a, p.pid))
    })
}

/// The bytes that draw a captured pane on a fresh terminal of the pane's size:
/// `captured` is `capture-pane -p -e` output (one line per screen row, each ended by
/// `\n`, with the SGR sequences of its cells), `cursor` the pane's cursor (column, row;
/// 0-based) and `alternate` whether the pane shows its alternate screen. The screen is
/// cleared, each row drawn from column 0 with default attributes, rows joined by CR LF
/// (never after the last: the screen must not scroll), then the cursor is placed.
pub fn seed(captured: &[u8], cursor: (u16, u16), alternate: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(captured.len() + 64);
    if alternate {
        out.extend_from_slice(b"\x1b[?1049h");
    }
    out.extend_from_slice(b"\x1b[m\x1b[H\x1b[2J");
    let body = captured.strip_suffix(b"\n").unwrap_or(captured);
    for (i, row) in body.split(|b| *b == b'\n').enumerate() {
        if i > 0 {
            out.extend_from_slice(b"\x1b[m\r\n");
        }
        out.extend_from_slice(row);
    }
    out.extend(format!("\x1b[m\x1b[{};{}H", cursor.1 + 1, cursor.0 + 1).bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(pid: u32, names: &[&str], argv: &[&str]) -> ProcInfo {
        ProcInfo {
            pid,
            names: names.iter().map(|s| s.to_string()).collect(),
            argv: argv.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn an_agent_is_known_by_its_executable_or_its_node_script() {
        let bash = p(10, &["bash", "bash"], &["-bash"]);
        assert_eq!(
            find_agent(std::slice::from_ref(&bash)),
            None,
            "a plain shell"
        );
        let tree = [bash.clone(), p(11, &["claude", "node"], &["claude"])];
        assert_eq!(find_agent(&tree), Some((AgentKind::Claude, 11)));
        let tree = [
            bash.clone(),
            p(
                12,
                &["node", "node"],
                &[
                    "node",
                    "/usr/lib/node_modules/@google/gemini-cli/dist/index.js",
                ],
            ),
        ];
        assert_eq!(find_agent(&tree), Some((AgentKind::Gemini, 12)));
        let tree = [
            bash.clone(),
            p(
                13,
                &["node", "node"],
                &["node", "--no-warnings", "/home/u/.npm/bin/codex"],
            ),
            p(14, &["codex-x86_64-unknown-linux-musl"], &[]),
        ];
        assert_eq!(
            find_agent(&tree),
            Some((AgentKind::Codex, 13)),
            "the agent's top process"
        );
        let tree = [
            bash.clone(),
            p(15, &["node", "node"], &["node", "server.js"]),
        ];
        assert_eq!(find_agent(&tree), None, "node running something else");
        let tree = [
            bash,
            p(16, &["claudette"], &["claudette"]),
            p(17, &["vim"], &["vim"]),
        ];
        assert_eq!(
            find_agent(&tree),
            None,
            "a name that only starts like an agent's"
        );
    }

    #[test]
    fn a_captured_screen_is_drawn_row_by_row_and_the_cursor_placed() {
        let s = seed(b"$ ls\n\x1b[1mbold\x1b[0m\n\n", (2, 2), false);
        assert_eq!(
            s,
            b"\x1b[m\x1b[H\x1b[2J$ ls\x1b[m\r\n\x1b[1mbold\x1b[0m\x1b[m\r\n\x1b[m\x1b[3;3H"
        );
        assert!(seed(b"x\n", (0, 0), true).starts_with(b"\x1b[?1049h"));
        let mut parser = vt100::Parser::new(3, 20, 0);
        parser.process(&s);
        assert_eq!(parser.screen().contents(), "$ ls\nbold");
        assert_eq!(parser.screen().cursor_position(), (2, 2));
    }
}
