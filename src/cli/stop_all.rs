//! `attend stop-all [--yes] [--signal SIG]`: ends every program Attend runs. Nothing else
//! ends them — not the daemon's exit, crash or upgrade (`docs/decisions/0009-pane-holders.md`)
//! — so this asks first on a terminal and refuses without `--yes` elsewhere.

use super::client::{call, CliError, Client, EXIT_BAD_INPUT, EXIT_NOTHING, EXIT_OK};
use super::render;
use crate::system::ending::{ENDING, TERM_GRACE};
use nix::sys::signal::Signal;
use std::io::{BufRead, IsTerminal, Write};
use std::time::Duration;

/// Ends every running pane Attend owns, after the confirmation described in the module
/// docs: as [`ENDING`] says (SIGHUP; SIGTERM to what still runs after its grace; then
/// SIGKILL), or with only `signal` when one is given (waiting up to [`TERM_GRACE`] for the
/// exits). Exit codes: 0 ended (or nothing runs), 1 the user said no (or programs are
/// still running at the end: named on stderr), 2 no terminal to ask and no `--yes`.
pub async fn run(c: &Client, yes: bool, signal: Option<i32>) -> Result<i32, CliError> {
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
    let ids: Vec<String> = running.into_iter().map(|(id, _)| id).collect();
    let Some(signal) = signal else {
        return end(c, ids).await;
    };
    let sent = send(c, &ids, signal).await;
    let _ = super::out::line(&format!("signal {signal} sent to {}", sent.join(", ")));
    // A signal the user chose is left alone: nothing follows it.
    let left = still_running(c, &sent, TERM_GRACE).await?;
    if !left.is_empty() {
        eprintln!("still running: {}", left.join(", "));
        return Ok(EXIT_NOTHING);
    }
    Ok(EXIT_OK)
}

/// Ends the panes `ids` as [`ENDING`] says (an interactive shell ignores SIGTERM but ends
/// on SIGHUP); exit 1 when one still runs after SIGKILL's grace.
async fn end(c: &Client, ids: Vec<String>) -> Result<i32, CliError> {
    let mut left = ids;
    let mut before: Option<(Signal, Duration)> = None;
    for (signal, grace) in ENDING {
        let sent = send(c, &left, signal as i32).await;
        let said = match before {
            None => format!("{} sent to {}", signal.as_str(), sent.join(", ")),
            Some((previous, waited)) => format!(
                "{} did not end within {waited:?} of {}: {} sent",
                left.join(", "),
                previous.as_str(),
                signal.as_str()
            ),
        };
        let _ = super::out::line(&said);
        left = still_running(c, &sent, grace).await?;
        if left.is_empty() {
            return Ok(EXIT_OK);
        }
        before = Some((signal, grace));
    }
    eprintln!("still running: {}", left.join(", "));
    Ok(EXIT_NOTHING)
}

/// Sends `signal` to each pane of `ids`; returns those it reached (a program that ended
/// meanwhile is not an error).
async fn send(c: &Client, ids: &[String], signal: i32) -> Vec<String> {
    let mut sent = Vec::new();
    for id in ids {
        if call!(c, kill(id, signal)).is_ok() {
            sent.push(id.clone());
        }
    }
    sent
}

/// The panes of `ids` still running after at most `grace`.
async fn still_running(
    c: &Client,
    ids: &[String],
    grace: Duration,
) -> Result<Vec<String>, CliError> {
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
        if left.is_empty() || start.elapsed() >= grace {
            return Ok(left);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
