//! `attend stop-all [--yes] [--signal SIG]`: ends every program Attend runs. Nothing else
//! ends them — not the daemon's exit, crash or upgrade (`docs/decisions/0009-pane-holders.md`)
//! — so this asks first on a terminal and refuses without `--yes` elsewhere.

use super::client::{call, CliError, Client, EXIT_BAD_INPUT, EXIT_NOTHING, EXIT_OK};
use super::render;
use std::io::{BufRead, IsTerminal, Write};

/// Sends `signal` to every running pane Attend owns, after the confirmation described in
/// the module docs; with the default SIGTERM, what still runs after [`STOP_ALL_GRACE`]
/// gets SIGKILL. Exit codes: 0 ended (or nothing runs), 1 the user said no (or a chosen
/// signal left programs running: named on stderr), 2 no terminal to ask and no `--yes`.
pub async fn run(c: &Client, yes: bool, signal: i32) -> Result<i32, CliError> {
    let panes = call!(c, list_panes())?;
    let running: Vec<(String, String)> = panes
        .iter()
        .map(render::pane_json)
        .filter(|p| p["owned"] == true && p["live"]["state"] == "running")
        .map(|p| {
            (
                p["id"].as_str().unwrap_or_default().to_string(),
                p["agent"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    if running.is_empty() {
        let _ = super::out::line("no running panes");
        return Ok(EXIT_OK);
    }
    let list = running
        .iter()
        .map(|(id, agent)| format!("{id} ({agent})"))
        .collect::<Vec<_>>()
        .join(", ");
    if !yes {
        if !std::io::stdin().is_terminal() {
            return Err(CliError::new(
                EXIT_BAD_INPUT,
                format!(
                    "stop-all would end {} running program(s): {list}; pass --yes to confirm",
                    running.len()
                ),
            ));
        }
        eprint!("End {} running program(s): {list}? [y/N] ", running.len());
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        let _ = std::io::stdin().lock().read_line(&mut answer);
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            eprintln!("nothing ended");
            return Ok(EXIT_NOTHING);
        }
    }
    let mut sent = Vec::new();
    for (id, _) in &running {
        // A program that ended meanwhile is not an error.
        if call!(c, kill(id, signal)).is_ok() {
            sent.push(id.clone());
        }
    }
    let _ = super::out::line(&format!("signal {signal} sent to {}", sent.join(", ")));
    // An interactive shell ignores SIGTERM: what is still running after the grace gets
    // SIGKILL (only after the default SIGTERM; a signal the user chose is left alone).
    let left = still_running(c, &sent).await?;
    if left.is_empty() || signal != nix::sys::signal::Signal::SIGTERM as i32 {
        if !left.is_empty() {
            eprintln!("still running: {}", left.join(", "));
            return Ok(EXIT_NOTHING);
        }
        return Ok(EXIT_OK);
    }
    let kill = nix::sys::signal::Signal::SIGKILL as i32;
    for id in &left {
        let _ = call!(c, kill(id, kill));
    }
    let _ = super::out::line(&format!(
        "{} did not end within {STOP_ALL_GRACE:?} of SIGTERM: SIGKILL sent",
        left.join(", ")
    ));
    Ok(EXIT_OK)
}

/// How long `stop-all` waits for the programs to end after SIGTERM before SIGKILL.
pub const STOP_ALL_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// The panes of `ids` still running after at most [`STOP_ALL_GRACE`].
async fn still_running(c: &Client, ids: &[String]) -> Result<Vec<String>, CliError> {
    let start = std::time::Instant::now();
    loop {
        let panes = call!(c, list_panes())?;
        let left: Vec<String> = panes
            .iter()
            .map(render::pane_json)
            .filter(|p| p["live"]["state"] == "running")
            .filter_map(|p| p["id"].as_str().map(str::to_string))
            .filter(|id| ids.contains(id))
            .collect();
        if left.is_empty() || start.elapsed() >= STOP_ALL_GRACE {
            return Ok(left);
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
