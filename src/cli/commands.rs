//! The client subcommands: each is one or two D-Bus calls and a rendering.

use super::args::{Cmd, RunArgs};
use super::client::{call, CliError, Client, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_NOTHING, EXIT_OK};
use super::render;
use crate::client::wire::{WireLive, WirePane};
use crate::client::EventTuple;
use crate::config::{PANE_ENV, VERSION};
use std::collections::HashMap;
use zbus::zvariant::Value;

/// How long `attend answer` keeps asking while no dialog is on the pane's screen yet (the
/// agent draws it just after the hook that opened the decision); nothing is typed meanwhile.
pub const ANSWER_WAIT_FOR_DIALOG: std::time::Duration = std::time::Duration::from_secs(2);

type Result<T> = std::result::Result<T, CliError>;

/// Runs a client subcommand on a one-thread runtime; returns its exit code.
pub fn run(cmd: Cmd) -> Result<i32> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::new(EXIT_INTERNAL, e.to_string()))?;
    rt.block_on(dispatch(cmd))
}

/// Writes `s` to stdout; a reader that went away ends the command quietly
/// ([`super::out`]).
fn print(s: &str) -> Result<i32> {
    super::out::write(s).map(|()| EXIT_OK)
}

fn json_line(v: &serde_json::Value) -> String {
    format!("{v}\n")
}

/// A remote pane (`NAME:pN`, docs/decisions/0013-pane-ids-across-hosts.md) named by a
/// command that only acts on this machine's panes: refused (exit 2). `seen`, `focus`,
/// `answer`, `send` and `kill` are carried out by the host's daemon over the link, `attach`
/// runs the link's carrier ([`attach_remote`]); `docs/remote.md#what-works-today`.
fn refuse_remote(cmd: &Cmd) -> Result<()> {
    let pane = match cmd {
        Cmd::Resume { pane }
        | Cmd::Hold { pane, .. }
        | Cmd::Unhold { pane }
        | Cmd::Explain { pane, .. } => pane,
        _ => return Ok(()),
    };
    if let Some((host, id)) = pane.split_once(':') {
        return Err(CliError::new(
            EXIT_BAD_INPUT,
            format!("{pane}: not for remote panes: use `ssh HOST attend … {id}` on {host} itself"),
        ));
    }
    Ok(())
}

/// `attend attach NAME:pN`: replaces this process with the link's carrier run
/// interactively, `attend attach pN` on the remote (`docs/cli.md#attach`,
/// [`crate::settings::carrier::attach_argv`]); the terminal is the user's and the
/// carrier's exit is the command's; `watch` is passed on. Errors: standard input not a
/// terminal, a bad id or no such remote in `config.toml` (exit 2), a carrier that cannot
/// start (exit 4).
fn attach_remote(pane: &str, detach_key: &str, watch: bool) -> Result<i32> {
    use std::io::IsTerminal;
    use std::os::unix::process::CommandExt;
    let target = crate::model::PaneRef::parse(pane)
        .filter(|p| p.host.is_some())
        .ok_or_else(|| CliError::bad_input(crate::model::no_such_pane_text(pane)))?;
    let host = target.host.as_ref().map(|h| h.as_str()).unwrap_or_default();
    let loaded = crate::settings::read();
    let remote = loaded
        .settings
        .remotes
        .iter()
        .find(|r| r.name.as_str() == host)
        .ok_or_else(|| {
            CliError::bad_input(format!(
                "no remote host named {host} (see `attend remote ls`)"
            ))
        })?;
    // As for a local pane: nothing to attach to without a terminal (the carrier would go
    // on without one and fail there).
    if !std::io::stdin().is_terminal() {
        return Err(CliError::bad_input("standard input is not a terminal"));
    }
    let pane_id = target.pane.to_string();
    let argv = crate::settings::carrier::attach_argv(remote, &pane_id, detach_key, watch)
        .map_err(|e| CliError::bad_input(format!("remote {host}: {e}")))?;
    let e = std::process::Command::new(&argv[0]).args(&argv[1..]).exec();
    Err(CliError::new(
        EXIT_INTERNAL,
        format!("attach {pane}: cannot start {}: {e}", argv[0]),
    ))
}

async fn dispatch(cmd: Cmd) -> Result<i32> {
    refuse_remote(&cmd)?;
    if let Cmd::Attach {
        pane,
        detach_key,
        watch,
    } = &cmd
    {
        if pane.contains(':') {
            return attach_remote(pane, detach_key, *watch);
        }
    }
    let c = Client::connect().await?;
    match cmd {
        Cmd::Run(a) => run_pane(&c, a).await,
        Cmd::Ls {
            json,
            parked,
            held,
            done_unseen,
            host,
        } => {
            let local = matches!(host.as_deref(), None | Some("-"));
            let mut panes = if local {
                call!(c, list_panes())?
            } else {
                Vec::new()
            };
            let mut remote = if host.as_deref() == Some("-") {
                Vec::new()
            } else {
                call!(c, list_remote_panes())?
            };
            if let Some(h) = host.as_deref().filter(|h| *h != "-") {
                // A host that is not configured is an error, as for `seen NAME:pN`
                // (a configured one with no panes lists nothing).
                let known = call!(c, remotes())?
                    .iter()
                    .any(|r| render::text(r, "name") == h);
                if !known {
                    return Err(CliError::bad_input(format!(
                        "no remote host named {h} (see `attend remote ls`)"
                    )));
                }
                remote.retain(|p| p.host.as_deref() == Some(h));
            }
            if let Some(d) = super::tasks::Diagnosis::from_flags(parked, held, done_unseen) {
                panes.retain(|p| super::tasks::has_diagnosis(&render::pane_json(p), d));
                remote.retain(|p| super::tasks::has_diagnosis(&render::pane_json(p), d));
            }
            if json {
                let v: Vec<_> = panes.iter().chain(&remote).map(render::pane_json).collect();
                return print(&json_line(&serde_json::Value::Array(v)));
            }
            if remote.is_empty() && host.is_none() {
                return print(&super::pane_table::render_table(&panes));
            }
            let mut rows: Vec<(String, WirePane)> =
                panes.into_iter().map(|v| ("-".to_string(), v)).collect();
            for mut v in remote {
                if v.is_offline() {
                    v.live = WireLive {
                        state: "offline".into(),
                        code: None,
                        signal: None,
                    };
                }
                rows.push((v.host.clone().unwrap_or_default(), v));
            }
            print(&super::pane_table::render_host_table(&rows))
        }
        Cmd::Show { pane, json } => {
            let p = call!(c, get_pane(&pane))?;
            if json {
                print(&json_line(&render::pane_json(&p)))
            } else {
                print(&render::pane_text(&p))
            }
        }
        Cmd::Workspaces { json } => {
            let ws = call!(c, list_workspaces())?;
            if json {
                let v: Vec<_> = ws
                    .iter()
                    .map(|w| serde_json::Value::Object(render::dict_json(w)))
                    .collect();
                print(&json_line(&serde_json::Value::Array(v)))
            } else {
                print(&render::workspaces_table(&ws))
            }
        }
        Cmd::Seen { pane } => {
            call!(c, mark_seen(&pane))?;
            Ok(EXIT_OK)
        }
        Cmd::Focus { pane } => {
            call!(c, focus(&pane))?;
            Ok(EXIT_OK)
        }
        Cmd::Next { json } => {
            let pane = call!(c, next_unread())?;
            if json {
                let v = if pane.is_empty() {
                    serde_json::Value::Null
                } else {
                    let p = if pane.contains(':') {
                        // A remote pane (`NAME:pN`): its mirrored dictionary.
                        call!(c, list_remote_panes())?
                            .into_iter()
                            .find(|p| p.id == pane)
                    } else {
                        Some(call!(c, get_pane(&pane))?)
                    };
                    p.as_ref()
                        .map(render::pane_json)
                        .unwrap_or(serde_json::Value::Null)
                };
                print(&json_line(&v))?;
            } else if !pane.is_empty() {
                print(&format!("{pane}\n"))?;
            }
            Ok(if pane.is_empty() {
                EXIT_NOTHING
            } else {
                EXIT_OK
            })
        }
        Cmd::Needs { json } => super::needs::run(&c, json).await,
        Cmd::Answer { pane, choice } => {
            // A dialog is drawn a moment after the hook that opened its decision: while
            // no dialog is on screen yet (nothing was typed), ask again for a short while.
            let deadline = std::time::Instant::now() + ANSWER_WAIT_FOR_DIALOG;
            loop {
                match c.proxy.answer(&pane, &choice).await {
                    Err(e)
                        if crate::client::error_name(&e) == Some("DialogUnreadable")
                            && e.to_string().contains("no dialog Attend can read")
                            && std::time::Instant::now() < deadline =>
                    {
                        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    }
                    r => {
                        r.map_err(|e| crate::cli::client::reply_error("answer", e))?;
                        return Ok(EXIT_OK);
                    }
                }
            }
        }
        Cmd::Send { pane, text, enter } => {
            if text.is_empty() && !enter {
                return Err(CliError::bad_input(
                    "nothing to send: the text is empty (--enter presses Enter alone)",
                ));
            }
            let mut data = text.into_bytes();
            if enter {
                data.push(b'\r');
            }
            call!(c, send_input(&pane, &data))?;
            Ok(EXIT_OK)
        }
        Cmd::Kill { pane, signal } => {
            let sig = parse_signal(&signal)?;
            call!(c, kill(&pane, sig))?;
            Ok(EXIT_OK)
        }
        Cmd::StopAll { yes, signal } => {
            let signal = signal.as_deref().map(parse_signal).transpose()?;
            super::stop_all::run(&c, yes, signal).await
        }
        Cmd::Resume { pane } => {
            call!(c, resume(&pane))?;
            Ok(EXIT_OK)
        }
        Cmd::Rm(a) => super::rm::run(&c, a).await,
        Cmd::Attach {
            pane,
            detach_key,
            watch,
        } => attach(&c, &pane, &detach_key, watch).await,
        Cmd::Events {
            after,
            limit,
            follow,
            json,
        } => events(&c, after, limit, follow, json).await,
        Cmd::Explain { pane, json } => {
            let d = call!(c, explain(&pane))?;
            let obj = serde_json::Value::Object(render::dict_json(&d));
            if json {
                print(&json_line(&obj))
            } else {
                print(&super::explain::explain_text(&obj))
            }
        }
        Cmd::Task { cmd } => super::tasks::task(&c, cmd).await,
        Cmd::Hold {
            pane,
            owner,
            wake,
            reason,
        } => {
            let reason = reason.unwrap_or_default();
            super::tasks::hold(&c, &pane, &owner, &wake, &reason).await
        }
        Cmd::Unhold { pane } => super::tasks::unhold(&c, &pane).await,
        Cmd::Version => {
            let v = call!(c, version())?;
            print(&format!("attend {VERSION} (daemon {v})\n"))
        }
        Cmd::Daemon(_)
        | Cmd::Hook { .. }
        | Cmd::Completions { .. }
        | Cmd::Man
        | Cmd::Demo { .. }
        | Cmd::Status { .. }
        | Cmd::Up(_)
        | Cmd::Config { .. }
        | Cmd::Remote { .. }
        | Cmd::Bridge { .. }
        | Cmd::InstallHooks { .. } => {
            unreachable!("handled before connecting")
        }
    }
}

/// `--signal`: a number, or a name with or without `SIG` in any case.
fn parse_signal(s: &str) -> Result<i32> {
    if let Ok(n) = s.parse::<i32>() {
        return nix::sys::signal::Signal::try_from(n)
            .map(|sig| sig as i32)
            .map_err(|_| CliError::bad_input(format!("{n} is not a signal number")));
    }
    let upper = s.to_ascii_uppercase();
    let name = if upper.starts_with("SIG") {
        upper
    } else {
        format!("SIG{upper}")
    };
    name.parse::<nix::sys::signal::Signal>()
        .map(|sig| sig as i32)
        .map_err(|_| CliError::bad_input(format!("unknown signal: {s}")))
}

/// The size of the terminal on stdin or stdout, when there is one.
fn terminal_size() -> Option<(u16, u16)> {
    for fd in [libc::STDIN_FILENO, libc::STDOUT_FILENO] {
        let mut ws = libc::winsize {
            ws_row: 0,
            ws_col: 0,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: TIOCGWINSZ writes one winsize into the valid pointer we pass.
        let rc = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) };
        if rc == 0 && ws.ws_row > 0 && ws.ws_col > 0 {
            return Some((ws.ws_row, ws.ws_col));
        }
    }
    None
}

/// `attend run`: with `--worktree`, the worktree is made first and the pane runs in it
/// (`docs/worktrees.md`); a pane that then does not start takes its new worktree back.
async fn run_pane(c: &Client, a: RunArgs) -> Result<i32> {
    let cwd = match a.cwd {
        Some(dir) => std::path::absolute(&dir)
            .map_err(|e| CliError::bad_input(format!("--cwd {}: {e}", dir.display())))?,
        None => std::env::current_dir()
            .map_err(|e| CliError::bad_input(format!("no current directory: {e}")))?,
    };
    let made = match &a.worktree {
        Some(branch) => Some(super::worktree::make(&cwd, branch, a.base.as_deref())?),
        None => None,
    };
    let cwd = made.as_ref().map_or(cwd, |m| m.path.clone());
    let cwd = cwd
        .to_str()
        .ok_or_else(|| CliError::bad_input("the working directory is not UTF-8"))?
        .to_string();
    // The pane inherits the caller's environment (as a terminal tab would).
    let env: HashMap<String, String> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| k != PANE_ENV)
        .collect();
    let mut spec: HashMap<&str, Value<'static>> = HashMap::new();
    spec.insert("argv", Value::from(a.argv));
    spec.insert("cwd", Value::from(cwd));
    spec.insert("env", Value::from(env));
    spec.insert("oneshot", Value::from(a.oneshot));
    for (key, val) in [
        ("workspace", a.workspace),
        ("tab", a.tab),
        ("name", a.name),
        ("agent", a.agent),
    ] {
        if let Some(v) = val {
            spec.insert(key, Value::from(v));
        }
    }
    if let Some((rows, cols)) = terminal_size() {
        spec.insert("rows", Value::from(rows));
        spec.insert("cols", Value::from(cols));
    }
    if let Some(m) = &made {
        spec.insert(
            "worktree",
            Value::from(m.path.to_string_lossy().into_owned()),
        );
    }
    let pane = match call!(c, run(&spec)) {
        Ok(pane) => pane,
        Err(e) => {
            if let Some(m) = &made {
                super::worktree::undo(m);
            }
            return Err(e);
        }
    };
    if let Some(m) = &made {
        let new = if m.new_branch { "new branch" } else { "branch" };
        eprintln!(
            "attend: {pane} runs in the worktree {} ({new} {})",
            m.path.display(),
            m.branch
        );
    }
    print(&format!("{pane}\n"))
}

/// How long `attend attach` waits for a daemon to come back after its connection dropped
/// (a crash, restart or upgrade: the program runs on in its holder,
/// `docs/decisions/0009-pane-holders.md`).
pub const ATTACH_RECONNECT_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// `attend attach PANE` (`docs/cli.md#attach`); with `watch`, as a look that is not
/// focus (a watch hello, or a tmux client of its own).
async fn attach(c: &Client, pane: &str, detach_key: &str, watch: bool) -> Result<i32> {
    use crate::client::attach::{parse_detach_key, run_attach_client, AttachError};
    let key = parse_detach_key(detach_key).ok_or_else(|| {
        CliError::bad_input(format!("not a detach key: {detach_key:?} (try C-\\)"))
    })?;
    // A pane followed in tmux is shown by tmux itself (docs/tmux.md#attach).
    let info = call!(c, get_pane(pane))?;
    if let Some(loc) = info
        .location
        .as_ref()
        .filter(|l| l.get("kind").map(String::as_str) == Some("tmux"))
    {
        if info.live.state != "running" {
            return Err(CliError::bad_input(format!(
                "attach {pane}: it is not running (its tmux pane is {})",
                loc.get("pane").map_or("gone", String::as_str)
            )));
        }
        return super::tmux_attach::run(pane, loc, watch);
    }
    let mut socket = call!(c, attach(pane))?;
    loop {
        let (path, name) = (socket.clone(), pane.to_string());
        // The attach client drives the terminal with blocking I/O.
        let result = tokio::task::spawn_blocking(move || {
            run_attach_client(std::path::Path::new(&path), &name, key, watch)
        })
        .await
        .map_err(|e| CliError::new(EXIT_INTERNAL, e.to_string()))?;
        match result {
            Err(AttachError::Disconnected | AttachError::Io(_)) => {}
            Err(e @ (AttachError::Refused(_) | AttachError::NotATerminal)) => {
                return Err(CliError::bad_input(e.to_string()))
            }
            Err(other) => return Err(CliError::new(EXIT_INTERNAL, format!("attach: {other}"))),
            Ok(code) => return Ok(code),
        }
        // The daemon went away; its program did not. Attach again once one answers.
        eprintln!("attend: the service went away; reattaching to {pane} when it is back…");
        let start = std::time::Instant::now();
        socket = loop {
            if start.elapsed() > ATTACH_RECONNECT_WAIT {
                return Err(CliError::new(
                    super::client::EXIT_UNREACHABLE,
                    format!(
                        "attach: no daemon came back within {ATTACH_RECONNECT_WAIT:?}; {}",
                        crate::config::START_HINT
                    ),
                ));
            }
            tokio::time::sleep(std::time::Duration::from_millis(250)).await;
            if let Ok(fresh) = Client::connect().await {
                match call!(fresh, attach(pane)) {
                    Ok(s) => break s,
                    // The pane ended meanwhile: nothing to reattach to.
                    Err(e) if e.code == super::client::EXIT_BAD_INPUT => return Err(e),
                    Err(_) => continue,
                }
            }
        };
    }
}

fn print_event(e: &EventTuple, json: bool) -> Result<i32> {
    let (seq, kind, pane, data) = e;
    if json {
        print(&json_line(&render::event_json(*seq, kind, pane, data)))
    } else {
        print(&format!("{}\n", render::event_line(*seq, kind, pane, data)))
    }
}

/// Page size of the catch-up.
const PAGE: u32 = 500;

/// `attend events`: the log after `after` (at most `limit`); with `follow`, every new
/// event too, across daemon restarts (src/cli/follow.rs).
async fn events(
    c: &Client,
    after: u64,
    limit: Option<u32>,
    follow: bool,
    json: bool,
) -> Result<i32> {
    if follow {
        return super::follow::follow(c, after, &mut |e| print_event(e, json).map(|_| ())).await;
    }
    let mut last = after;
    let mut left = limit;
    loop {
        let want = left.map_or(PAGE, |l| l.min(PAGE));
        if want == 0 {
            break;
        }
        let page = call!(c, events(last, want))?;
        for e in &page {
            print_event(e, json)?;
            last = e.0;
        }
        if let Some(l) = left.as_mut() {
            *l -= page.len() as u32;
        }
        if (page.len() as u32) < want {
            break;
        }
    }
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_parse_by_number_and_name() {
        assert_eq!(parse_signal("9").unwrap(), 9);
        assert_eq!(parse_signal("kill").unwrap(), 9);
        assert_eq!(parse_signal("SIGTERM").unwrap(), 15);
        assert_eq!(parse_signal("nope").unwrap_err().code, 2);
    }
}
