//! The obligation and diagnosis commands (`docs/taxonomy.md#obligations-and-holds-cli`):
//! `attend task …`, `attend hold` / `unhold`, and the diagnoses filters of `attend ls`.

use super::client::{call, CliError, Client, EXIT_OK};
use super::render;
use clap::Subcommand;
use serde_json::Value as Json;

type Result<T> = std::result::Result<T, CliError>;

/// `attend task …` (`docs/lifecycle-attention.md#tasks-and-holds`: obligations for PARKED).
#[derive(Debug, Subcommand)]
pub enum TaskCmd {
    /// Add an open task to a pane; prints its id.
    Add { pane: String, text: String },
    /// Mark a task started (working).
    Start { id: u64 },
    /// Report a task done (reported).
    #[command(alias = "report")]
    Done {
        id: u64,
        /// What was done.
        #[arg(long, short = 'm')]
        message: Option<String>,
    },
    /// List tasks (of one pane, or all).
    Ls {
        pane: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

/// Which diagnosis `attend ls` filters on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Diagnosis {
    Parked,
    Held,
    DoneUnseen,
}

impl Diagnosis {
    /// The key in a pane's `diagnoses`.
    pub fn key(self) -> &'static str {
        match self {
            Diagnosis::Parked => "parked",
            Diagnosis::Held => "held",
            Diagnosis::DoneUnseen => "done_unseen",
        }
    }

    /// The one filter asked for by `--parked`, `--held`, `--done-unseen` (clap makes them
    /// exclusive).
    pub fn from_flags(parked: bool, held: bool, done_unseen: bool) -> Option<Diagnosis> {
        match (parked, held, done_unseen) {
            (true, _, _) => Some(Diagnosis::Parked),
            (_, true, _) => Some(Diagnosis::Held),
            (_, _, true) => Some(Diagnosis::DoneUnseen),
            _ => None,
        }
    }
}

/// Writes `s` to stdout; a reader that went away ends the command quietly
/// ([`super::out`]).
fn print(s: &str) -> Result<i32> {
    super::out::write(s).map(|()| EXIT_OK)
}

/// True when the pane's `diagnoses` has `d` set.
pub fn has_diagnosis(pane: &Json, d: Diagnosis) -> bool {
    pane["diagnoses"][d.key()].as_bool().unwrap_or(false)
}

/// Runs `attend task …`.
pub async fn task(c: &Client, cmd: TaskCmd) -> Result<i32> {
    match cmd {
        TaskCmd::Add { pane, text } => {
            let id = call!(c, add_task(&pane, &text))?;
            print(&format!("{id}\n"))
        }
        TaskCmd::Start { id } => {
            call!(c, set_task_state(id, "working", ""))?;
            Ok(EXIT_OK)
        }
        TaskCmd::Done { id, message } => {
            let m = message.unwrap_or_default();
            call!(c, set_task_state(id, "reported", &m))?;
            Ok(EXIT_OK)
        }
        TaskCmd::Ls { pane, json } => {
            let panes = call!(c, list_panes())?;
            let tasks: Vec<Json> = panes
                .iter()
                .map(render::pane_json)
                .filter(|p| pane.as_deref().map_or(true, |want| p["id"] == want))
                .flat_map(|p| p["tasks"].as_array().cloned().unwrap_or_default())
                .collect();
            if json {
                return print(&format!("{}\n", Json::Array(tasks)));
            }
            let rows: Vec<Vec<String>> = tasks
                .iter()
                .map(|t| {
                    vec![
                        t["id"].to_string(),
                        t["pane"].as_str().unwrap_or("").to_string(),
                        t["state"].as_str().unwrap_or("").to_string(),
                        render::truncate(t["text"].as_str().unwrap_or(""), 48),
                        render::truncate(t["message"].as_str().unwrap_or(""), 40),
                    ]
                })
                .collect();
            print(&render::table(
                &["ID", "PANE", "STATE", "TEXT", "MESSAGE"],
                &rows,
            ))
        }
    }
}

/// Parses `--wake`: a duration from now (`30m`, `1h 30m`, humantime syntax) or an RFC 3339
/// time (`2026-12-01T09:00:00Z`); returns ms since the epoch.
pub fn parse_wake(s: &str, now_ms: i64) -> Result<i64> {
    let bounded = |ms: i64| {
        if ms > crate::model::Timestamp::MAX.0 {
            Err(CliError::bad_input(format!(
                "--wake {s:?} is after the year 9999"
            )))
        } else {
            Ok(ms)
        }
    };
    if let Ok(d) = humantime::parse_duration(s) {
        return bounded(now_ms.saturating_add(d.as_millis().min(i64::MAX as u128) as i64));
    }
    let t = humantime::parse_rfc3339_weak(s).map_err(|_| {
        CliError::bad_input(format!(
            "--wake {s:?}: not a duration (30m, 2h) nor an RFC 3339 time (2026-12-01T09:00:00Z)"
        ))
    })?;
    let ms = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|_| CliError::bad_input(format!("--wake {s:?} is before 1970")))?
        .as_millis();
    bounded(ms.min(i64::MAX as u128) as i64)
}

/// Runs `attend hold PANE --owner NAME --wake WHEN [--reason R]`.
pub async fn hold(c: &Client, pane: &str, owner: &str, wake: &str, reason: &str) -> Result<i32> {
    let now = crate::system::clock::now().0;
    let wake = parse_wake(wake, now)?;
    call!(c, set_hold(pane, owner, wake, reason))?;
    Ok(EXIT_OK)
}

/// Runs `attend unhold PANE`.
pub async fn unhold(c: &Client, pane: &str) -> Result<i32> {
    call!(c, clear_hold(pane))?;
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wake_takes_durations_and_rfc3339_times() {
        assert_eq!(parse_wake("30m", 1_000).unwrap(), 1_000 + 30 * 60_000);
        assert_eq!(parse_wake("1h 30m", 0).unwrap(), 90 * 60_000);
        assert_eq!(
            parse_wake("2026-12-01T09:00:00Z", 0).unwrap(),
            1_796_115_600_000
        );
        let e = parse_wake("tomorrow-ish", 0).unwrap_err();
        assert_eq!(e.code, super::super::client::EXIT_BAD_INPUT);
        assert!(e.message.contains("RFC 3339"));
        // Past what RFC 3339 writes (a hold's wake shows in `ls` and `show`): refused.
        for far in ["99999999999d", "3000000d"] {
            let e = parse_wake(far, 1_796_115_600_000).unwrap_err();
            assert!(
                e.message.contains("after the year 9999"),
                "{far}: {}",
                e.message
            );
        }
        assert!(parse_wake("9999-12-31T23:59:59Z", 0).is_ok());
    }

    #[test]
    fn diagnosis_flags_pick_the_key() {
        assert_eq!(Diagnosis::from_flags(false, false, false), None);
        let d = Diagnosis::from_flags(false, false, true).unwrap();
        assert_eq!(d.key(), "done_unseen");
        let pane = json!({"diagnoses": {"parked": true, "held": false, "done_unseen": false}});
        assert!(has_diagnosis(&pane, Diagnosis::Parked));
        assert!(!has_diagnosis(&pane, Diagnosis::Held));
        assert!(!has_diagnosis(&json!({}), Diagnosis::Parked));
    }
}
