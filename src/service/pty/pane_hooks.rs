//! The hooks an agent Attend starts gets on its command line or in its environment, so
//! that its pane reports fully without `attend install-hooks` and never twice with it
//! (docs/adapters.md "Hooks for panes Attend starts"; docs/decisions/0008-per-pane-hooks.md).
//! The argv rewriting is `crate::install::pane`; here the daemon's facts are filled in
//! (its own executable, its runtime directory, the pane's environment over its own) and
//! the generated files written.

use crate::config::PANE_HOOKS_ENV;
use crate::install::pane::{self, PaneSetup};
use crate::install::HookForm;
use crate::model::{AgentKind, PaneId};
use std::collections::BTreeMap;
use std::path::Path;

/// What to spawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// The program and its arguments, Attend's hook arguments included.
    pub argv: Vec<String>,
    /// The variables added to the daemon's environment for the child (the pane's,
    /// `ATTEND_PANE_HOOKS` included when the hooks were added).
    pub env: BTreeMap<String, String>,
}

/// The argv and environment pane `id` starts `agent` with: `argv` with Attend's hooks
/// added and `env` with `ATTEND_PANE_HOOKS` (and the agent's variables) when
/// [`pane::plan`] adds any, else both as given. `ATTEND_PANE_HOOKS` inherited from the
/// caller is always removed (it would silence the global hooks of a pane without its
/// own). When the user's settings cannot be merged or a file cannot be written the
/// command runs as given, with a warning in the log: the installed hooks (if any) report.
pub fn launch(
    id: PaneId,
    agent: AgentKind,
    argv: &[String],
    cwd: &Path,
    env: &BTreeMap<String, String>,
) -> Launch {
    let mut env = env.clone();
    env.remove(PANE_HOOKS_ENV);
    let unchanged = |env: BTreeMap<String, String>| Launch {
        argv: argv.to_vec(),
        env,
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            tracing::warn!(pane = %id, "cannot find the attend executable ({e}); the pane gets no hooks of its own");
            return unchanged(env);
        }
    };
    let var = |name: &str| env.get(name).cloned().or_else(|| std::env::var(name).ok());
    let dir = attend_hook::paths::runtime_dir().join("panes");
    let pane = id.to_string();
    let setup = PaneSetup {
        agent,
        argv,
        cwd,
        attend_exe: &exe,
        form: HookForm::for_installed(&exe),
        dir: &dir,
        pane: &pane,
        var: &var,
        read: &pane::read_user_file,
    };
    let planned = pane::plan(&setup).and_then(|p| match p {
        Some(hooks) => hooks.write().map(|()| Some(hooks)),
        None => Ok(None),
    });
    match planned {
        Ok(Some(hooks)) => {
            tracing::debug!(pane = %id, %agent, argv = ?hooks.argv, "the pane's agent gets hooks of its own");
            env.extend(hooks.env);
            Launch {
                argv: hooks.argv,
                env,
            }
        }
        Ok(None) => unchanged(env),
        Err(e) => {
            tracing::warn!(
                pane = %id,
                %agent,
                "the pane's agent gets no hooks of its own, it reports through the installed \
                 hooks only: {e}"
            );
            unchanged(env)
        }
    }
}
