//! The client thread's side of the New agent dialog: makes the git worktree when the form
//! asks for one (`docs/worktrees.md`, on the blocking pool: git runs there), then calls
//! `Run` as `attend run` does; a pane that does not start takes its new worktree back.

use super::new_agent_form::RunRequest;
use crate::client::Attend1Proxy;
use crate::system::worktree::git::{self, Created};
use crate::system::worktree::plan::{Place, Request};
use std::collections::HashMap;
use std::path::PathBuf;
use zbus::zvariant::Value;

/// Where new worktrees go: `[worktrees] dir` of `config.toml`, else beside the repository.
fn place() -> Place {
    match crate::settings::read().settings.worktrees.dir {
        Some(dir) => Place::Under(dir),
        None => Place::NextToRepo,
    }
}

/// Starts `r`: the new pane's id, or the sentence the window shows (git's refusal, the
/// daemon's error).
pub async fn run(proxy: &Attend1Proxy<'_>, r: RunRequest) -> Result<String, String> {
    let made: Option<Created> = match r.worktree.clone() {
        Some(branch) => {
            let cwd = PathBuf::from(&r.cwd);
            let req = Request { branch, base: None };
            let made = tokio::task::spawn_blocking(move || git::create(&cwd, &req, &place()))
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| e.to_string())?;
            Some(made)
        }
        None => None,
    };
    let cwd = made
        .as_ref()
        .map_or(r.cwd.clone(), |m| m.path.to_string_lossy().into_owned());
    let mut spec: HashMap<&str, Value<'static>> = HashMap::new();
    spec.insert("argv", Value::from(r.argv));
    spec.insert("cwd", Value::from(cwd));
    spec.insert("agent", Value::from(r.agent));
    for (key, val) in [("workspace", r.workspace), ("name", r.name)] {
        if let Some(v) = val {
            spec.insert(key, Value::from(v));
        }
    }
    if let Some(m) = &made {
        spec.insert(
            "worktree",
            Value::from(m.path.to_string_lossy().into_owned()),
        );
    }
    match proxy.run(&spec).await {
        Ok(pane) => Ok(pane),
        Err(e) => {
            if let Some(m) = made {
                let _ = tokio::task::spawn_blocking(move || git::remove(&m.path)).await;
            }
            // The daemon's own sentence, as the window's other failures show it.
            Err(match e {
                zbus::Error::MethodError(_, Some(text), _) if !text.is_empty() => text,
                other => other.to_string(),
            })
        }
    }
}
