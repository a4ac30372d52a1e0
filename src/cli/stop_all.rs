//! `attend stop-all [--yes] [--signal SIG]`: ends every program Attend runs. Nothing else
//! ends them — not the daemon's exit, crash or upgrade (`docs/decisions/0009-pane-holders.md`)
//! — so this asks first on a terminal and refuses without `--yes` elsewhere.

use super::client::{call, CliError, Client, EXIT_BAD_INPUT, EXIT_NOTHING, EXIT_OK};
use super::render;
use std::io::{BufRead, IsTerminal, Write};

/// Sends `signal` to every running pane Attend owns, after the confirmation described in
/// the module docs. Exit codes: 0 sent (or nothing runs), 1 the user said no, 2 no
/// terminal to ask and no `--yes`.
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
        println!("no running panes");
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
    let mut ended = Vec::new();
    for (id, _) in &running {
        // A program that ended meanwhile is not an error.
        if call!(c, kill(id, signal)).is_ok() {
            ended.push(id.clone());
        }
    }
    println!("signal {signal} sent to {}", ended.join(", "));
    Ok(EXIT_OK)
}
