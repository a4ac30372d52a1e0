//! `attend man`: the one manual page, attend(1), from the command line's grammar
//! (`docs/cli.md#manual-page-and-completions`). Self-contained: every subcommand is a
//! subsection with its usage, its text and its options, so the page names no other page
//! (clap_mangen's own subcommand list points at attend-SUBCOMMAND(1) pages that nothing
//! installs). Rendered with `roff`, which escapes the text.

use crate::config::VERSION;
use clap::{Arg, Command};
use roff::{bold, italic, roman, Inline, Roff};

/// The files and variables the FILES and ENVIRONMENT sections name (documented in
/// `docs/configuration.md` and the README).
const FILES: [(&str, &str); 3] = [
    (
        "$XDG_CONFIG_HOME/attend/config.toml (else ~/.config/attend/config.toml)",
        "Settings: notification levels, sound, automatic removal of exited panes. \
         `attend config check` checks it.",
    ),
    (
        "$XDG_STATE_HOME/attend (else ~/.local/state/attend)",
        "The state directory: the database, the pane holders' sockets, daemon.log.",
    ),
    (
        "$XDG_RUNTIME_DIR/attend",
        "Sockets of the running daemon and its pane holders.",
    ),
];

const ENVIRONMENT: [(&str, &str); 3] = [
    (
        "DBUS_SESSION_BUS_ADDRESS",
        "The session bus the CLI and the daemon meet on.",
    ),
    (
        "ATTEND_STATE_DIR",
        "Overrides the state directory of `attend daemon`.",
    ),
    (
        "ATTEND_PANE",
        "Set by Attend in each pane it runs (the pane id); hooks report to that pane.",
    ),
];

/// The page for `cmd` (the `attend` command), in roff.
pub fn render(cmd: Command) -> String {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let mut r = Roff::new();
    let title = format!("attend {VERSION}");
    // No date (the page is the same for every build of a version); `roff` quotes an
    // argument only when it has a space, so the empty date is one.
    r.control("TH", ["ATTEND", "1", " ", title.as_str(), "User Commands"]);
    r.control("SH", ["NAME"]);
    let about = cmd.get_about().map(|a| a.to_string()).unwrap_or_default();
    r.text([roman(format!("attend - {about}"))]);
    r.control("SH", ["SYNOPSIS"]);
    r.text([
        bold("attend"),
        roman(" "),
        italic("COMMAND"),
        roman(" ["),
        italic("OPTIONS"),
        roman("] ["),
        italic("ARGS"),
        roman("]"),
    ]);
    r.control("SH", ["DESCRIPTION"]);
    paragraphs(&mut r, &long_text(&cmd));
    r.control("SH", ["COMMANDS"]);
    for sub in visible(&cmd) {
        command(&mut r, sub);
    }
    r.control("SH", ["OPTIONS"]);
    arguments(&mut r, &cmd);
    if let Some(after) = cmd.get_after_help() {
        r.control("SH", ["EXIT STATUS"]);
        paragraphs(&mut r, &after.to_string());
    }
    r.control("SH", ["FILES"]);
    for (name, what) in FILES {
        r.control("TP", []);
        r.text([italic(name)]);
        r.text([roman(what)]);
    }
    r.control("SH", ["ENVIRONMENT"]);
    for (name, what) in ENVIRONMENT {
        r.control("TP", []);
        r.text([bold(name)]);
        r.text([roman(what)]);
    }
    r.render()
}

/// The subcommands a user sees (not hidden; clap's `help` is disabled above).
fn visible(cmd: &Command) -> impl Iterator<Item = &Command> {
    cmd.get_subcommands().filter(|s| !s.is_hide_set())
}

/// The long text of a command (its doc comment), else its short one.
fn long_text(cmd: &Command) -> String {
    cmd.get_long_about()
        .or_else(|| cmd.get_about())
        .map(|a| a.to_string())
        .unwrap_or_default()
}

/// Text split into paragraphs at blank lines; lines of a verbatim block (indented) keep
/// their breaks.
fn paragraphs(r: &mut Roff, text: &str) {
    for (i, para) in text.split("\n\n").enumerate() {
        if i > 0 {
            r.control("PP", []);
        }
        let verbatim = para.lines().skip(1).any(|l| l.starts_with(' '));
        if verbatim {
            r.control("nf", []);
            for l in para.lines() {
                r.text([roman(l)]);
            }
            r.control("fi", []);
        } else {
            r.text([roman(para.split_whitespace().collect::<Vec<_>>().join(" "))]);
        }
    }
}

/// One subcommand (and its own subcommands): its usage as the subsection title, its text,
/// its arguments.
fn command(r: &mut Roff, cmd: &Command) {
    let usage = cmd.clone().render_usage().to_string();
    let usage = usage.trim().trim_start_matches("Usage:").trim().to_string();
    r.control("SS", [usage.as_str()]);
    paragraphs(r, &long_text(cmd));
    arguments(r, cmd);
    for sub in visible(cmd) {
        command(r, sub);
    }
}

/// The arguments of `cmd` as a tagged list, `--help` and `--version` included once at
/// the top level only.
fn arguments(r: &mut Roff, cmd: &Command) {
    let top = !cmd.get_bin_name().is_some_and(|b| b.contains(' '));
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let id = arg.get_id().as_str();
        if !top && (id == "help" || id == "version") {
            continue;
        }
        r.control("TP", []);
        r.text(label(arg));
        let mut help = arg
            .get_long_help()
            .or_else(|| arg.get_help())
            .map(|h| h.to_string())
            .unwrap_or_default();
        let defaults: Vec<String> = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .filter(|v| v != "false")
            .collect();
        if !defaults.is_empty() && !arg.is_hide_default_value_set() {
            help.push_str(&format!(" [default: {}]", defaults.join(", ")));
        }
        let values: Vec<String> = arg
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_string())
            .collect();
        if !values.is_empty() && !arg.is_hide_possible_values_set() && takes_value(arg) {
            help.push_str(&format!(" [possible values: {}]", values.join(", ")));
        }
        paragraphs(r, help.trim());
    }
}

fn takes_value(arg: &Arg) -> bool {
    arg.get_action().takes_values()
}

/// `-s, --signal SIGNAL` or `PANE`, in the usual man-page fonts.
fn label(arg: &Arg) -> Vec<Inline> {
    let names: Vec<String> = arg
        .get_value_names()
        .map(|v| v.iter().map(|n| n.to_string()).collect())
        .unwrap_or_else(|| vec![arg.get_id().as_str().to_uppercase()]);
    let value = names.join(" ");
    if arg.is_positional() {
        return vec![italic(value)];
    }
    let mut out = Vec::new();
    if let Some(s) = arg.get_short() {
        out.push(bold(format!("-{s}")));
    }
    if let Some(l) = arg.get_long() {
        if !out.is_empty() {
            out.push(roman(", "));
        }
        out.push(bold(format!("--{l}")));
    }
    if takes_value(arg) {
        out.push(roman(" "));
        out.push(italic(value));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn page() -> String {
        render(crate::cli::Cli::command())
    }

    /// The page refers to no other manual page: no `name(N)` anywhere.
    #[test]
    fn the_page_names_no_other_page() {
        let page = page();
        let refs = regex::Regex::new(r"[A-Za-z][\w\\-]*\(\d\)").unwrap();
        let found: Vec<&str> = refs.find_iter(&page).map(|m| m.as_str()).collect();
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn every_subcommand_has_its_usage_and_options() {
        let page = page();
        for want in [
            ".SS \"attend daemon [OPTIONS]\"",
            ".SS \"attend answer <PANE> <CHOICE>\"",
            ".SS \"attend task add",
            ".SS \"attend config check\"",
            "\\fB\\-\\-no\\-tray\\fR",
            "\\fB\\-s\\fR, \\fB\\-\\-signal\\fR \\fISIGNAL\\fR",
            ".SH \"EXIT STATUS\"",
        ] {
            assert!(page.contains(want), "{want} missing from\n{page}");
        }
        assert!(!page.contains(".SS \"attend help"), "{page}");
    }
}
