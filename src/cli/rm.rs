//! `attend rm`: removing panes through `Remove` and `RemoveExited`
//! (`docs/lifecycle-attention.md#removing-panes`, `docs/dbus-api.md#methods`). Prints the
//! removed ids, one a line (with `--dry-run`, the ids that would go), or with `--json`
//! `{"removed": [...], "dry_run": BOOL, "worktrees": [...]}`. A removed pane's git
//! worktree (`attend run --worktree`) stays and rm says where on stderr; `--worktree`
//! removes it too, refused beforehand while it holds changes (`docs/worktrees.md#removing`).
//! Exit codes as every command's: 0 (also when nothing matched `--exited`), 2 an unknown
//! pane, a refused running pane, a worktree refused or not removed, or a bad
//! `--older-than`, 3 no daemon, 4 the daemon failed.

use super::args::RmArgs;
use super::client::{call, CliError, Client, EXIT_OK};

/// Runs `attend rm` against the daemon behind `c`.
pub async fn run(c: &Client, a: RmArgs) -> Result<i32, CliError> {
    check(&a)?;
    // A pane's worktree is read before the pane goes (it goes with the pane's record).
    let worktrees = {
        let panes = call!(c, list_panes())?;
        let ids: Vec<String> = if a.exited {
            panes.iter().map(|p| p.id.clone()).collect()
        } else {
            a.panes.clone()
        };
        super::worktree::of_panes(&panes, &ids)
    };
    if a.worktree {
        super::worktree::check_removable(&a.panes, &worktrees)?;
    }
    let removed = if a.exited {
        let older_than = match &a.older_than {
            Some(s) => parse_age(s)?,
            None => 0,
        };
        call!(c, remove_exited(older_than, a.dry_run))?
    } else {
        let panes: Vec<&str> = a.panes.iter().map(String::as_str).collect();
        call!(c, remove(&panes, a.kill))?
    };
    let (entries, failure) =
        super::worktree::after_removal(&worktrees, &removed, a.worktree, a.dry_run);
    let text = if a.json {
        let v = serde_json::json!({
            "removed": removed,
            "dry_run": a.dry_run,
            "worktrees": entries,
        });
        format!("{v}\n")
    } else {
        removed.iter().map(|p| format!("{p}\n")).collect()
    };
    super::out::write(&text)?;
    match failure {
        Some(e) => Err(e),
        None => Ok(EXIT_OK),
    }
}

/// `--older-than` and `--dry-run` go with `--exited` (clap cannot require a flag that
/// defaults to false): one clear line, exit 2, instead of clap's "required <PANES>".
fn check(a: &RmArgs) -> Result<(), CliError> {
    if !a.exited && (a.older_than.is_some() || a.dry_run) {
        return Err(CliError::bad_input(
            "--older-than and --dry-run go with --exited (attend rm --exited --older-than 2h)",
        ));
    }
    Ok(())
}

/// `--older-than`: a humantime duration (`30m`, `2h`, `3d`) in milliseconds.
fn parse_age(s: &str) -> Result<i64, CliError> {
    let d = humantime::parse_duration(s.trim()).map_err(|e| {
        CliError::bad_input(format!(
            "--older-than {s:?}: not a duration (30m, 2h, 3d): {e}"
        ))
    })?;
    Ok(i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Cmd};
    use clap::Parser;

    #[test]
    fn ages_are_humantime_durations() {
        assert_eq!(parse_age("2h").unwrap(), 7_200_000);
        assert_eq!(parse_age("3d").unwrap(), 259_200_000);
        assert_eq!(parse_age("1h 30m").unwrap(), 5_400_000);
        let e = parse_age("yesterday").unwrap_err();
        assert_eq!(e.code, 2);
        assert!(e.message.contains("--older-than"), "{}", e.message);
    }

    #[test]
    fn panes_or_exited_but_not_both() {
        let parse = |args: &[&str]| Cli::try_parse_from([&["attend", "rm"], args].concat());
        let Cmd::Rm(a) = parse(&["p1", "p2", "--kill"]).unwrap().command else {
            panic!("not rm")
        };
        assert_eq!((a.panes.len(), a.kill, a.exited), (2, true, false));
        let Cmd::Rm(a) = parse(&["--exited", "--older-than", "2h", "--dry-run"])
            .unwrap()
            .command
        else {
            panic!("not rm")
        };
        assert_eq!((a.exited, a.older_than.as_deref()), (true, Some("2h")));
        assert!(parse(&[]).is_err(), "nothing to remove");
        assert!(parse(&["p1", "--exited"]).is_err());
        assert!(parse(&["--exited", "--kill"]).is_err());
        assert!(parse(&["p1", "--older-than", "2h"]).is_err());
        assert!(parse(&["p1", "--dry-run"]).is_err());
        for alone in [&["--older-than", "2h"][..], &["--dry-run"]] {
            let Cmd::Rm(a) = parse(alone).unwrap().command else {
                panic!("not rm")
            };
            let e = check(&a).unwrap_err();
            assert_eq!(e.code, 2);
            assert!(e.message.contains("go with --exited"), "{}", e.message);
        }
    }
}
