//! `attend install-hooks AGENT [--scope user|project] [--dry-run] [--uninstall]`: the
//! command-line face of [`crate::install`] (which plans and writes the agents' configs).

use super::client::{CliError, EXIT_INTERNAL, EXIT_OK};
use super::out;
use crate::install::{plan_install_as, plan_uninstall, Dirs, HookForm, InstallError, Scope};
use crate::model::AgentKind;

/// Which configuration layer `--scope` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScopeArg {
    User,
    Project,
}

/// Plans the change for `agent` and prints its diff (`dry_run`) or applies it and says
/// what changed. Parse, shape and notify conflicts are bad input (exit 2), file I/O
/// failures exit 4.
pub fn run(agent: &str, scope: ScopeArg, dry_run: bool, uninstall: bool) -> Result<i32, CliError> {
    let kind = AgentKind::parse(agent)
        .filter(|k| *k != AgentKind::Shell)
        .ok_or_else(|| {
            CliError::bad_input(format!(
                "unknown agent {agent:?} ({})",
                AgentKind::names(true)
            ))
        })?;
    // An agent without hooks (no config files in its row of data/agents.tsv): nothing to
    // write; Attend follows it by its screen (docs/adapters.md, "Grok CLI").
    if kind.row().is_some_and(|row| row.config.is_empty()) {
        out::line(&format!(
            "{agent}: {} runs no hooks or plugins; nothing to change (Attend follows it by its screen)",
            kind.display_name()
        ))?;
        return Ok(EXIT_OK);
    }
    let project = std::env::current_dir()
        .map_err(|e| CliError::bad_input(format!("no current directory: {e}")))?;
    let exe = std::env::current_exe().map_err(|e| {
        CliError::new(
            EXIT_INTERNAL,
            format!("cannot find the attend executable: {e}"),
        )
    })?;
    let dirs = Dirs::from_env(&project);
    let scope = match scope {
        ScopeArg::User => Scope::User,
        ScopeArg::Project => Scope::Project,
    };
    let form = HookForm::for_installed(&exe);
    if form == HookForm::AttendHook && !uninstall {
        eprintln!(
            "attend: no {} beside {}: the hooks run `attend hook` instead",
            crate::config::HOOK_EXE,
            exe.display()
        );
    }
    let plan = if uninstall {
        plan_uninstall(kind, scope, &exe, &dirs)
    } else {
        plan_install_as(kind, scope, &exe, form, &dirs)
    }
    .map_err(classify)?;
    if plan.is_noop() {
        out::line(&format!("{agent}: nothing to change"))?;
        return Ok(EXIT_OK);
    }
    if dry_run {
        out::write(&plan.diff())?;
        return Ok(EXIT_OK);
    }
    let backups = plan.apply().map_err(classify)?;
    for f in plan.files.iter().filter(|f| f.changes()) {
        out::line(&format!(
            "{agent}: {} {}",
            if uninstall { "updated" } else { "installed" },
            f.path.display()
        ))?;
    }
    for d in &plan.dirs {
        out::line(&format!(
            "{agent}: {} {}",
            if d.create { "created" } else { "removed" },
            d.path.display()
        ))?;
    }
    for b in backups {
        out::line(&format!("{agent}: backup {}", b.display()))?;
    }
    Ok(EXIT_OK)
}

fn classify(e: InstallError) -> CliError {
    match e {
        InstallError::Io { .. } => CliError::new(EXIT_INTERNAL, e.to_string()),
        other => CliError::bad_input(other.to_string()),
    }
}
