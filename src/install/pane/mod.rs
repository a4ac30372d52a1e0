//! Hooks for the panes Attend starts: the command line and environment that make an agent
//! report to Attend without any global configuration (docs/adapters.md "Hooks for panes
//! Attend starts"; docs/decisions/0008-per-pane-hooks.md).
//!
//! [`plan`] rewrites the argv of `attend run` (and of a resume) for the agent it starts:
//! - Claude Code: `--settings <file>`, a generated settings file with Attend's hook
//!   entries, merged with the user's own `--settings` argument ([`claude`]);
//! - Codex: `-c hooks.<Event>=[…]` overrides, their trust pinned by hash in the same
//!   session-flags layer, and `-c notify=[…]` ([`codex`]).
//!
//! Gemini CLI, Qwen Code and Cursor get nothing: Gemini has no settings flag, and the one
//! settings file an environment variable can name (`GEMINI_CLI_SYSTEM_DEFAULTS_PATH`,
//! `GEMINI_CLI_SYSTEM_SETTINGS_PATH`) is skipped with a security warning unless it and
//! every directory above it belong to root and only root can write them; Qwen Code has no
//! settings flag either (its `QWEN_CODE_SYSTEM_SETTINGS_PATH` would replace the
//! machine's system settings, not add to them); Cursor has neither; OpenCode and Kilo
//! Code report through a plugin file, not hook entries. Their panes report through `attend
//! install-hooks`.
//!
//! GitHub Copilot CLI gets nothing either: it reads hooks from its settings, the
//! repository's `.github/hooks/` and plugins (`--plugin-dir` could carry them; not used
//! yet), so its panes report through `attend install-hooks` too.
//!
//! Every entry runs `<dir>/attend-hook <agent> --pane-hooks` (the entries `attend
//! install-hooks` writes, marked), and the pane gets `ATTEND_PANE_HOOKS=<agent>`, which
//! makes a globally installed entry of the same agent exit at once: each event is
//! delivered once whether or not `install-hooks` ran.
//!
//! Pure apart from the lookups it is given (the pane's environment, the user's files):
//! nothing is written here; the caller writes [`PaneHooks::files`] and spawns.

mod argv;
mod claude;
mod codex;
mod setup;

use super::error::InstallError;
use crate::config::PANE_HOOKS_ENV;
use crate::model::AgentKind;

pub use argv::{locate, Located};
pub use setup::{read_user_file, PaneHooks, PaneSetup};

/// The argv and environment that give `setup.argv` Attend's hooks, or `Ok(None)` when
/// there is nothing to add: an agent without per-invocation hooks (Gemini, Cursor, a
/// shell), a program that is not the agent's own executable (after an `env` prefix), an
/// agent subcommand that starts no session (`claude mcp`, `codex login`, …), or hook
/// settings the user passes on the command line themselves (Codex `-c hooks…`).
///
/// Errors (the caller starts the argv unchanged and logs why): the user's `--settings`
/// (Claude) cannot be read or is not a JSON object, or its `hooks` has a type Attend
/// cannot add to; the executable path is not absolute UTF-8.
pub fn plan(setup: &PaneSetup<'_>) -> Result<Option<PaneHooks>, InstallError> {
    let Some(located) = locate(setup.argv, setup.agent) else {
        return Ok(None);
    };
    // What the agent sees: the prefix's assignments, else the pane's environment unless
    // the prefix removes the name.
    let var = |name: &str| match located.var(name) {
        Some(value) => Some(value),
        None if located.removes(name) => None,
        None => (setup.var)(name),
    };
    let planned = match setup.agent {
        AgentKind::Claude => claude::plan(setup, &located)?,
        AgentKind::Codex => codex::plan(setup, &located, &var)?,
        AgentKind::Gemini | AgentKind::Cursor | AgentKind::Qwen | AgentKind::Shell => None,
        AgentKind::OpenCode | AgentKind::Kilo => None,
        AgentKind::Copilot => None,
        AgentKind::Droid => None,
        // pi takes an extension file (`-e PATH`), not its text: panes report through
        // `install-hooks pi` (docs/adapters.md, "pi").
        AgentKind::Pi => None,
        // No per-process hook layer: `KIMI_CODE_HOME` would replace its whole data
        // directory (sessions, sign-in), not add hooks (docs/adapters.md).
        AgentKind::Kimi => None,
        // Cline 3.0.65's `--hooks-dir` sets `CLINE_HOOKS_DIR`, which nothing in it reads,
        // and `--config` replaces its whole directory (docs/adapters.md, "Cline CLI").
        AgentKind::Cline => None,
        // omp takes an extension file (`--extension PATH`), not its text, like pi.
        AgentKind::Omp => None,
        // Continue's `--config` names a model config, not hooks; hooks come from its
        // settings files only (docs/adapters.md, "Continue CLI").
        AgentKind::Continue => None,
        // No hooks (docs/adapters.md, "Grok CLI").
        AgentKind::Grok => None,
        // Letta 0.25.9 reads hooks from its settings files only (no option or variable
        // adds any): panes report through `install-hooks letta` (docs/adapters.md,
        // "Letta Code").
        AgentKind::Letta => None,
        // Documented only: no hook option or variable in their documentation (Amp loads
        // plugins from its directories only, Qoder and Crush hooks from settings files).
        AgentKind::Auggie | AgentKind::Amp | AgentKind::Qoder | AgentKind::Crush => None,
        // aider takes `--notifications-command` on its command line, but panes report
        // through `install-hooks aider` (not done yet, docs/adapters.md "aider"); Hermes
        // reads hooks only from `$HERMES_HOME/config.yaml` (its whole data directory);
        // Mistral Vibe and OpenHands CLI were never run here.
        AgentKind::Vibe | AgentKind::Aider | AgentKind::Hermes | AgentKind::OpenHands => None,
        // MastraCode reads hooks from `~/.mastracode/hooks.json` and the project's only
        // (its home directory holds its sign-ins too): panes report through
        // `install-hooks mastracode` (docs/adapters.md, "MastraCode").
        AgentKind::MastraCode => None,
    };
    Ok(planned.map(|mut hooks| {
        hooks
            .env
            .insert(0, (PANE_HOOKS_ENV.into(), setup.agent.as_str().into()));
        // An `env -i` or `-u NAME` prefix would drop a variable: set it in the prefix.
        for (name, value) in hooks.env.iter().rev() {
            if located.removes(name) {
                hooks
                    .argv
                    .insert(located.program, format!("{name}={value}"));
            }
        }
        hooks
    }))
}

#[cfg(test)]
mod tests;
