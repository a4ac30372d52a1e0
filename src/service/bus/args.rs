//! The argument checks of the D-Bus methods: pane ids, the `a{sv}` of `Run` and of a
//! hook's context, task states and holds. Each failure is `InvalidArgument` (or
//! `NoSuchPane` for a pane id) with a message naming the key and the expected type.

use crate::model::{AgentKind, Hold, PaneId, PaneRef, TaskState, Timestamp};
use crate::service::bus::error::Attend1Error;
use crate::service::bus::intake::{pids_from_value, HookContext};
use crate::service::command::RunSpec;
use crate::service::evidence::git;
use std::collections::{BTreeMap, HashMap};
use zbus::zvariant::{OwnedValue, Value};

/// Parses a pane id argument of a method that acts on this machine's panes only; anything
/// that is not `p<N>` is an unknown pane, except a remote pane (`NAME:pN`, ADR 0013),
/// which is `InvalidArgument` saying to act on the host itself
/// (`docs/remote.md#what-works-today`).
pub fn parse_pane(s: &str) -> Result<PaneId, Attend1Error> {
    if let Some(PaneRef {
        host: Some(host),
        pane,
    }) = PaneRef::parse(s)
    {
        return Err(Attend1Error::InvalidArgument(format!(
            "{s}: not for remote panes: use `ssh HOST attend … {pane}` on {host} itself"
        )));
    }
    PaneId::parse(s).ok_or_else(|| Attend1Error::no_such_pane(s))
}

/// Parses a pane argument of a method that also acts on remote panes: `pN` or `NAME:pN`.
/// Errors: `NoSuchPane` for anything else.
pub fn parse_pane_ref(s: &str) -> Result<PaneRef, Attend1Error> {
    PaneRef::parse(s).ok_or_else(|| Attend1Error::no_such_pane(s))
}

/// An `a{sv}` argument (a `Run` spec, a hook's context).
pub type Map = HashMap<String, OwnedValue>;

fn bad(key: &str, want: &str) -> Attend1Error {
    Attend1Error::InvalidArgument(format!("{key} must be {want}"))
}

/// The value under `key`, unwrapping a variant nested in the variant.
fn field<'a>(map: &'a Map, key: &str) -> Option<&'a Value<'static>> {
    map.get(key).map(|v| match &**v {
        Value::Value(inner) => &**inner,
        other => other,
    })
}

fn get_str(map: &Map, key: &str) -> Result<Option<String>, Attend1Error> {
    match field(map, key) {
        None => Ok(None),
        Some(Value::Str(s)) => Ok(Some(s.to_string())),
        Some(_) => Err(bad(key, "a string (s)")),
    }
}

fn get_bool(map: &Map, key: &str) -> Result<Option<bool>, Attend1Error> {
    match field(map, key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(bad(key, "a boolean (b)")),
    }
}

fn get_u16(map: &Map, key: &str) -> Result<Option<u16>, Attend1Error> {
    match field(map, key) {
        None => Ok(None),
        Some(Value::U16(n)) => Ok(Some(*n)),
        Some(_) => Err(bad(key, "an unsigned 16-bit integer (q)")),
    }
}

fn get_strs(map: &Map, key: &str) -> Result<Option<Vec<String>>, Attend1Error> {
    match field(map, key) {
        None => Ok(None),
        Some(Value::Array(a)) => a
            .inner()
            .iter()
            .map(|v| match v {
                Value::Str(s) => Ok(s.to_string()),
                _ => Err(bad(key, "a string array (as)")),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(bad(key, "a string array (as)")),
    }
}

fn get_env(map: &Map, key: &str) -> Result<BTreeMap<String, String>, Attend1Error> {
    match field(map, key) {
        None => Ok(BTreeMap::new()),
        Some(Value::Dict(d)) => d
            .iter()
            .map(|(k, v)| match (k, v) {
                (Value::Str(k), Value::Str(v)) => Ok((k.to_string(), v.to_string())),
                _ => Err(bad(key, "a string dictionary (a{ss})")),
            })
            .collect(),
        Some(_) => Err(bad(key, "a string dictionary (a{ss})")),
    }
}

/// A `Run` spec's environment without `TMUX` and `TMUX_PANE`: a pane Attend runs is in
/// Attend's terminal, never in the tmux pane `attend run` was typed in
/// (`docs/tmux.md#configuration`); with them its agent's hooks would name that tmux pane.
fn without_tmux(mut env: BTreeMap<String, String>) -> BTreeMap<String, String> {
    env.remove("TMUX");
    env.remove("TMUX_PANE");
    env
}

/// Validates a `Run` spec (keys in `docs/dbus-api.md`).
pub async fn run_spec(spec: &Map) -> Result<RunSpec, Attend1Error> {
    let argv = get_strs(spec, "argv")?.unwrap_or_default();
    if argv.is_empty() || argv[0].is_empty() {
        return Err(Attend1Error::InvalidArgument(
            "argv must name a program".into(),
        ));
    }
    let cwd = get_str(spec, "cwd")?.or_else(|| std::env::var("HOME").ok());
    if let Some(c) = &cwd {
        if !std::path::Path::new(c).is_dir() {
            return Err(Attend1Error::InvalidArgument(format!(
                "cwd {c:?} is not a directory"
            )));
        }
    }
    let agent = match get_str(spec, "agent")? {
        Some(a) => AgentKind::parse(&a).ok_or_else(|| {
            Attend1Error::InvalidArgument(format!(
                "unknown agent {a:?} ({})",
                AgentKind::names(false)
            ))
        })?,
        None => agent_of_argv(&argv),
    };
    let git = git::lookup(cwd.clone()).await;
    let workspace = match get_str(spec, "workspace")?.filter(|w| !w.is_empty()) {
        Some(w) => w,
        None => match &cwd {
            Some(c) => git::workspace_of(c, &git),
            None => "/".to_string(),
        },
    };
    Ok(RunSpec {
        argv,
        cwd,
        workspace,
        tab: get_str(spec, "tab")?.unwrap_or_default(),
        name: get_str(spec, "name")?.unwrap_or_default(),
        agent,
        oneshot: get_bool(spec, "oneshot")?.unwrap_or(false),
        rows: get_u16(spec, "rows")?.filter(|r| *r > 0).unwrap_or(24),
        cols: get_u16(spec, "cols")?.filter(|c| *c > 0).unwrap_or(80),
        env: without_tmux(get_env(spec, "env")?),
        git,
        worktree: get_str(spec, "worktree")?.filter(|w| !w.is_empty()),
    })
}

/// The parts of a `Hook` call's context the daemon uses, and its `terminal` entry (an
/// `a{ss}` of the hook's terminal environment).
pub fn hook_context(map: &Map) -> Result<(HookContext, BTreeMap<String, String>), Attend1Error> {
    let terminal = get_env(map, "terminal")?;
    let context = HookContext {
        pane: get_str(map, "pane")?,
        delivery_id: get_str(map, "delivery_id")?,
        cwd: get_str(map, "cwd")?,
        pids: match field(map, "pids") {
            Some(v) => pids_from_value(v)?,
            None => Vec::new(),
        },
    };
    Ok((context, terminal))
}

/// A task state from its wire name (`open`, `working`, `reported`, `failed`,
/// `input_required`); `InvalidArgument` otherwise.
pub fn parse_task_state(s: &str) -> Result<TaskState, Attend1Error> {
    use TaskState::*;
    [Open, Working, Reported, Failed, InputRequired]
        .into_iter()
        .find(|t| t.as_str() == s)
        .ok_or_else(|| {
            Attend1Error::InvalidArgument(format!(
                "unknown task state {s:?} (open, working, reported, failed, input_required)"
            ))
        })
}

/// A hold from `SetHold`'s arguments: a named owner, a wake in ms since the epoch (after
/// 1970), a reason (`""`: none). `InvalidArgument` otherwise.
pub fn hold_of(owner: &str, wake: i64, reason: &str) -> Result<Hold, Attend1Error> {
    if owner.trim().is_empty() {
        return Err(Attend1Error::InvalidArgument(
            "a hold needs an owner".into(),
        ));
    }
    if wake <= 0 || wake > Timestamp::MAX.0 {
        return Err(Attend1Error::InvalidArgument(format!(
            "wake must be a time in ms since the epoch up to the year 9999, not {wake}"
        )));
    }
    Ok(Hold {
        owner: owner.trim().to_string(),
        wake: Timestamp(wake),
        reason: (!reason.trim().is_empty()).then(|| reason.trim().to_string()),
    })
}

/// The agent `argv` starts when `Run` names none: its program's (`argv[0]`), or, behind
/// an `env` prefix (`env FOO=1 claude`), the agent's program found the way the pane's own
/// hooks find it ([`crate::install::pane::locate`]), so such a pane is that agent's from
/// its start and gets its hooks (`docs/adapters.md`, "Hooks for panes Attend starts").
/// A shell when neither names an agent.
pub fn agent_of_argv(argv: &[String]) -> AgentKind {
    let by_name = argv
        .first()
        .map_or(AgentKind::Shell, |p| AgentKind::from_program(p));
    if by_name != AgentKind::Shell {
        return by_name;
    }
    AgentKind::ALL
        .into_iter()
        .filter(|a| *a != AgentKind::Shell)
        .find(|a| crate::install::pane::locate(argv, *a).is_some_and(|l| l.program > 0))
        .unwrap_or(AgentKind::Shell)
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_agent_behind_an_env_prefix_is_that_agents() {
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(agent_of_argv(&argv(&["claude"])), AgentKind::Claude);
        assert_eq!(
            agent_of_argv(&argv(&["env", "FOO=1", "claude", "--continue"])),
            AgentKind::Claude
        );
        assert_eq!(
            agent_of_argv(&argv(&["/usr/bin/env", "-u", "X", "codex"])),
            AgentKind::Codex
        );
        assert_eq!(
            agent_of_argv(&argv(&["env", "FOO=1", "vim"])),
            AgentKind::Shell
        );
        assert_eq!(agent_of_argv(&argv(&["npx", "claude"])), AgentKind::Shell);
    }

    use super::*;

    #[test]
    fn a_remote_pane_is_refused_clearly_where_only_local_panes_go() {
        let e = parse_pane("buildbox:p3").unwrap_err();
        assert!(
            matches!(&e, Attend1Error::InvalidArgument(m) if m.contains("not for remote panes")),
            "{e:?}"
        );
        assert!(matches!(
            parse_pane("Bad:p3"),
            Err(Attend1Error::NoSuchPane(_))
        ));
        assert_eq!(
            parse_pane_ref("buildbox:p3").unwrap().to_string(),
            "buildbox:p3"
        );
        assert!(matches!(
            parse_pane_ref("x"),
            Err(Attend1Error::NoSuchPane(_))
        ));
    }

    #[test]
    fn task_states_and_holds_are_validated() {
        assert_eq!(parse_task_state("reported").unwrap(), TaskState::Reported);
        assert!(matches!(
            parse_task_state("done"),
            Err(Attend1Error::InvalidArgument(_))
        ));
        let h = hold_of(" alice ", 5, " review ").unwrap();
        assert_eq!(
            (h.owner.as_str(), h.wake, h.reason.as_deref()),
            ("alice", Timestamp(5), Some("review"))
        );
        assert_eq!(hold_of("bob", 5, "").unwrap().reason, None);
        assert!(hold_of("", 5, "").is_err());
        assert!(hold_of("bob", 0, "").is_err());
    }
}
