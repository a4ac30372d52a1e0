//! Claude Code's self-report file, the top rung of the evidence ladder
//! (`docs/taxonomy.md#rungs`).
//!
//! Claude writes `<config>/sessions/<pid>.json` per interactive process, where `<config>`
//! is `$CLAUDE_CONFIG_DIR`, else `$HOME/.claude` (`docs/adapters.md#self-report-file`;
//! undocumented, observed on 2.1.197):
//! `{"pid":…, "sessionId":…, "cwd":…, "procStart":"28394", "status":"waiting",
//! "waitingFor":"permission prompt", "updatedAt":…, "statusUpdatedAt":…}` with `status`
//! busy, idle, waiting or shell. The file is deleted on a clean exit and may be left stale
//! after a crash.
//!
//! - [`parse`] and [`claim`] are pure: a partial or unparsable file is
//!   [`ReportError::Unreadable`] (the caller keeps what it had and waits for the next
//!   write), an unknown status [`ReportError::UnknownStatus`]; [`stale`] decides from
//!   process facts whether a readable report describes a live process (pid alive and
//!   `procStart` equal to its start time).
//! - The `/proc` helpers find a report's process among a pane's PTY child and its
//!   descendants, and read a process's environment (to learn where its Claude writes);
//!   `/proc/<pid>/stat` is read with `service::procfs::stat`.
//! - [`Watcher`] watches the sessions directories with inotify (the `notify` crate, no
//!   polling): a directory that does not exist yet is awaited by watching its nearest
//!   existing parent, and every file event of interest is handed to a callback.
//!
//! Nothing here is an error for the daemon: an unreadable, missing or stale report only
//! makes the ladder fall to the next rung
//! (`docs/taxonomy.md#unreadable-evidence-falls-down-the-ladder`).

use crate::engine::ladder::{Activity, Claim, NeedsInput};
use notify::{EventKind, RecursiveMode, Watcher as _};
use serde::Deserialize;
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// Claude's own status (`status` in the file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// A turn is running.
    Busy,
    /// At the prompt.
    Idle,
    /// A dialog waits for the human (`waitingFor` says which).
    Waiting,
    /// The turn is over; a background shell command still runs.
    Shell,
}

/// One readable self-report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub pid: u32,
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    /// The process start time as Claude recorded it (clock ticks since boot, as in
    /// `/proc/<pid>/stat` field 22).
    pub proc_start: Option<u64>,
    pub status: Status,
    /// `waitingFor`: permission prompt, input needed, sandbox request, worker request,
    /// dialog open.
    pub waiting_for: Option<String>,
    /// The newer of `updatedAt` and `statusUpdatedAt` (ms since the epoch), when given.
    pub updated_at: Option<i64>,
}

/// Why a report file gives no evidence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReportError {
    /// Not (yet) a complete JSON object with a pid and a status: a partial write.
    #[error("unreadable self-report: {0}")]
    Unreadable(String),
    /// A status this version does not know.
    #[error("unknown self-report status {0:?}")]
    UnknownStatus(String),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Raw {
    pid: u32,
    session_id: Option<String>,
    cwd: Option<String>,
    proc_start: Option<serde_json::Value>,
    status: String,
    waiting_for: Option<String>,
    updated_at: Option<i64>,
    status_updated_at: Option<i64>,
}

/// Parses a report file's text. Unknown fields are ignored; `procStart` may be a string
/// or a number.
pub fn parse(text: &str) -> Result<Report, ReportError> {
    let raw: Raw =
        serde_json::from_str(text).map_err(|e| ReportError::Unreadable(e.to_string()))?;
    let status = match raw.status.as_str() {
        "busy" => Status::Busy,
        "idle" => Status::Idle,
        "waiting" => Status::Waiting,
        "shell" => Status::Shell,
        other => return Err(ReportError::UnknownStatus(other.to_string())),
    };
    let proc_start = match raw.proc_start {
        Some(serde_json::Value::String(s)) => s.trim().parse().ok(),
        Some(serde_json::Value::Number(n)) => n.as_u64(),
        _ => None,
    };
    Ok(Report {
        pid: raw.pid,
        session_id: raw.session_id.filter(|s| !s.is_empty()),
        cwd: raw.cwd,
        proc_start,
        status,
        waiting_for: raw.waiting_for.filter(|w| !w.trim().is_empty()),
        updated_at: raw.updated_at.max(raw.status_updated_at),
    })
}

/// The needs-input reason of a `waiting` report without `waitingFor`.
pub const DEFAULT_WAITING_REASON: &str = "input needed";

/// The ladder claim of a report: busy → working; idle and shell (turn over, a background
/// command runs) → idle-at-prompt with no prompt; waiting → idle-at-prompt with one
/// prompt whose reason is `waitingFor`.
pub fn claim(r: &Report) -> Claim {
    let (activity, needs) = match r.status {
        Status::Busy => (Activity::Working, NeedsInput::default()),
        Status::Idle | Status::Shell => (Activity::IdleAtPrompt, NeedsInput::default()),
        Status::Waiting => (
            Activity::IdleAtPrompt,
            NeedsInput {
                count: 1,
                reason: Some(
                    r.waiting_for
                        .clone()
                        .unwrap_or_else(|| DEFAULT_WAITING_REASON.to_string()),
                ),
            },
        ),
    };
    Claim {
        activity: Some(activity),
        needs_input: Some(needs),
    }
}

/// A short description for `attend explain`: `status=waiting waitingFor="permission
/// prompt"`.
pub fn note(r: &Report) -> String {
    let status = match r.status {
        Status::Busy => "busy",
        Status::Idle => "idle",
        Status::Waiting => "waiting",
        Status::Shell => "shell",
    };
    match &r.waiting_for {
        Some(w) => format!("status={status} waitingFor={w:?}"),
        None => format!("status={status}"),
    }
}

/// What `/proc` says about a report's pid: `None` when no such process exists, else its
/// start time (clock ticks since boot).
pub type ProcStart = Option<u64>;

/// Why a readable report is stale, if it is: its process is gone, or the pid now belongs
/// to another process (`procStart` differs from the process's start time).
pub fn stale(r: &Report, process: ProcStart) -> Option<&'static str> {
    match (process, r.proc_start) {
        (None, _) => Some("its process is gone"),
        (Some(actual), Some(recorded)) if actual != recorded => {
            Some("its pid belongs to another process (procStart differs)")
        }
        _ => None,
    }
}

/// The pid a report path names: `…/sessions/<pid>.json`.
pub fn pid_of_path(path: &Path) -> Option<u32> {
    if path.parent()?.file_name()? != "sessions" {
        return None;
    }
    let name = path.file_name()?.to_str()?;
    let digits = name.strip_suffix(".json")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The sessions directory Claude writes to under an environment: `$CLAUDE_CONFIG_DIR/
/// sessions`, else `$HOME/.claude/sessions`; `None` without either (or with relative
/// paths).
pub fn sessions_dir(env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let non_empty = |k: &str| env(k).filter(|v| !v.is_empty());
    let config = match non_empty("CLAUDE_CONFIG_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(non_empty("HOME")?).join(".claude"),
    };
    config.is_absolute().then(|| config.join("sessions"))
}

/// Something the watcher saw: a report file changed or vanished (`File`), or a directory
/// on the way to a sessions directory appeared (`Dir`: call [`Watcher::refresh`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchEvent {
    File(PathBuf),
    Dir(PathBuf),
}

/// Paths the inotify callback forwards: the wanted sessions directories (their `*.json`
/// children) and every ancestor being waited on.
#[derive(Default)]
struct Interest {
    sessions: HashSet<PathBuf>,
    awaited: HashSet<PathBuf>,
}

/// inotify watches on Claude sessions directories (no polling; one thread inside
/// `notify` blocks on the inotify descriptor).
pub struct Watcher {
    inner: notify::RecommendedWatcher,
    interest: Arc<Mutex<Interest>>,
    watched: BTreeSet<PathBuf>,
    wanted: BTreeSet<PathBuf>,
}

impl Watcher {
    /// Starts the inotify watcher; `on_event` runs on its thread for each event of
    /// interest. Fails when inotify is unavailable (the daemon then runs without this
    /// rung).
    pub fn start(on_event: impl Fn(WatchEvent) + Send + 'static) -> notify::Result<Watcher> {
        let interest = Arc::new(Mutex::new(Interest::default()));
        let shared = interest.clone();
        let inner = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            let Ok(ev) = res else { return };
            if matches!(ev.kind, EventKind::Access(_)) {
                return;
            }
            let forward: Vec<WatchEvent> = {
                let i = shared.lock().unwrap_or_else(PoisonError::into_inner);
                ev.paths
                    .iter()
                    .filter_map(|p| {
                        if i.awaited.contains(p) || i.sessions.contains(p) {
                            Some(WatchEvent::Dir(p.clone()))
                        } else if p.parent().is_some_and(|d| i.sessions.contains(d))
                            && pid_of_path(p).is_some()
                        {
                            Some(WatchEvent::File(p.clone()))
                        } else {
                            None
                        }
                    })
                    .collect()
            };
            for f in forward {
                on_event(f);
            }
        })?;
        Ok(Watcher {
            inner,
            interest,
            watched: BTreeSet::new(),
            wanted: BTreeSet::new(),
        })
    }

    /// Wants `sessions` watched (idempotent). Returns the report files already in it, to
    /// be read now (they may predate the watch).
    pub fn want(&mut self, sessions: PathBuf) -> Vec<PathBuf> {
        if self.wanted.insert(sessions.clone()) {
            tracing::debug!(dir = %sessions.display(), "watching for Claude self-reports");
        }
        self.ensure(&sessions)
    }

    /// After a [`WatchEvent::Dir`]: re-establishes the watches of every wanted directory;
    /// returns the report files found in directories that are watched now.
    pub fn refresh(&mut self) -> Vec<PathBuf> {
        let wanted: Vec<PathBuf> = self.wanted.iter().cloned().collect();
        wanted.iter().flat_map(|d| self.ensure(d)).collect()
    }

    /// The directories wanted (for `explain` and tests).
    pub fn wanted(&self) -> impl Iterator<Item = &PathBuf> {
        self.wanted.iter()
    }

    /// Watches `sessions` if it exists (and lists its reports), else its nearest existing
    /// ancestor, to learn when the path appears.
    fn ensure(&mut self, sessions: &Path) -> Vec<PathBuf> {
        let mut interest = self.interest.lock().unwrap_or_else(PoisonError::into_inner);
        if sessions.is_dir() {
            interest.sessions.insert(sessions.to_path_buf());
            drop(interest);
            if !self.watched.contains(sessions) {
                match self.inner.watch(sessions, RecursiveMode::NonRecursive) {
                    Ok(()) => {
                        self.watched.insert(sessions.to_path_buf());
                    }
                    Err(e) => {
                        tracing::warn!(dir = %sessions.display(), "cannot watch: {e}");
                        return Vec::new();
                    }
                }
            }
            return std::fs::read_dir(sessions)
                .map(|entries| {
                    entries
                        .flatten()
                        .map(|e| e.path())
                        .filter(|p| pid_of_path(p).is_some())
                        .collect()
                })
                .unwrap_or_default();
        }
        // Await the directory: watch the nearest existing ancestor. The interest lock is
        // released before `watch`: the inotify thread's callback takes the same lock, and
        // `watch` waits for that thread (holding both deadlocked the owner loop).
        let mut missing = sessions.to_path_buf();
        let mut interest = Some(interest);
        while let Some(parent) = missing.parent().map(Path::to_path_buf) {
            if let Some(i) = interest.as_mut() {
                i.awaited.insert(missing.clone());
            }
            if parent.is_dir() {
                drop(interest.take());
                if !self.watched.contains(&parent) {
                    match self.inner.watch(&parent, RecursiveMode::NonRecursive) {
                        Ok(()) => {
                            self.watched.insert(parent);
                        }
                        Err(e) => tracing::warn!(dir = %parent.display(), "cannot watch: {e}"),
                    }
                }
                break;
            }
            missing = parent;
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::processes::procfs::{environ, in_tree, stat as proc_stat, tree};

    const WAITING: &str = r#"{"pid":12759,"sessionId":"dcde","cwd":"/tmp/proj","startedAt":1,"procStart":"28394","version":"2.1.197","kind":"interactive","entrypoint":"cli","name":"proj-6b","status":"waiting","waitingFor":"permission prompt","updatedAt":1000,"statusUpdatedAt":1200}"#;

    #[test]
    fn a_waiting_report_claims_a_prompt_with_its_reason() {
        let r = parse(WAITING).unwrap();
        assert_eq!(r.pid, 12759);
        assert_eq!(r.session_id.as_deref(), Some("dcde"));
        assert_eq!(r.proc_start, Some(28394));
        assert_eq!(r.status, Status::Waiting);
        assert_eq!(r.updated_at, Some(1200));
        let c = claim(&r);
        assert_eq!(c.activity, Some(Activity::IdleAtPrompt));
        assert_eq!(
            c.needs_input,
            Some(NeedsInput {
                count: 1,
                reason: Some("permission prompt".into())
            })
        );
        assert_eq!(note(&r), "status=waiting waitingFor=\"permission prompt\"");
    }

    #[test]
    fn busy_idle_and_shell_claims() {
        let with = |status: &str| {
            let text = WAITING.replace("\"waiting\"", &format!("\"{status}\""));
            claim(&parse(&text).unwrap())
        };
        assert_eq!(with("busy").activity, Some(Activity::Working));
        for s in ["idle", "shell"] {
            let c = with(s);
            assert_eq!(c.activity, Some(Activity::IdleAtPrompt), "{s}");
            assert_eq!(c.needs_input.unwrap().count, 0, "{s}");
        }
        let no_reason = r#"{"pid":1,"status":"waiting"}"#;
        let c = claim(&parse(no_reason).unwrap());
        assert_eq!(
            c.needs_input.unwrap().reason.as_deref(),
            Some(DEFAULT_WAITING_REASON)
        );
    }

    #[test]
    fn partial_and_unknown_reports_are_refused() {
        // A write caught halfway.
        let half = &WAITING[..WAITING.len() / 2];
        assert!(matches!(parse(half), Err(ReportError::Unreadable(_))));
        assert!(matches!(parse(""), Err(ReportError::Unreadable(_))));
        assert!(matches!(
            parse(r#"{"status":"idle"}"#),
            Err(ReportError::Unreadable(_))
        ));
        assert_eq!(
            parse(r#"{"pid":1,"status":"dreaming"}"#),
            Err(ReportError::UnknownStatus("dreaming".into()))
        );
        // procStart as a number is accepted too; a garbage one is ignored.
        assert_eq!(
            parse(r#"{"pid":1,"status":"idle","procStart":7}"#)
                .unwrap()
                .proc_start,
            Some(7)
        );
        assert_eq!(
            parse(r#"{"pid":1,"status":"idle","procStart":"x"}"#)
                .unwrap()
                .proc_start,
            None
        );
    }

    #[test]
    fn stale_when_the_pid_is_dead_or_reused() {
        let r = parse(WAITING).unwrap();
        assert_eq!(stale(&r, None), Some("its process is gone"));
        assert!(stale(&r, Some(99)).unwrap().contains("procStart"));
        assert_eq!(stale(&r, Some(28394)), None);
        let unrecorded = parse(r#"{"pid":1,"status":"idle"}"#).unwrap();
        assert_eq!(stale(&unrecorded, Some(5)), None);
    }

    #[test]
    fn the_live_process_is_not_stale() {
        let me = std::process::id();
        let (_, start) = proc_stat(me).unwrap();
        let text = format!(r#"{{"pid":{me},"status":"busy","procStart":"{start}"}}"#);
        let r = parse(&text).unwrap();
        assert_eq!(stale(&r, proc_stat(me).map(|(_, s)| s)), None);
        assert!(in_tree(me, me));
        let parent = proc_stat(me).unwrap().0;
        assert!(in_tree(me, parent), "a child is in its parent's tree");
        assert!(tree(parent).contains(&me));
        assert!(!environ(me).is_empty());
    }

    #[test]
    fn paths_and_config_dirs() {
        assert_eq!(
            pid_of_path(Path::new("/h/.claude/sessions/42.json")),
            Some(42)
        );
        assert_eq!(
            pid_of_path(Path::new("/h/.claude/sessions/42.json.tmp")),
            None
        );
        assert_eq!(pid_of_path(Path::new("/h/.claude/other/42.json")), None);
        assert_eq!(pid_of_path(Path::new("/h/.claude/sessions/x.json")), None);
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(kk, _)| *kk == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            sessions_dir(env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.claude/sessions"))
        );
        assert_eq!(
            sessions_dir(env(&[("HOME", "/h"), ("CLAUDE_CONFIG_DIR", "/c")])),
            Some(PathBuf::from("/c/sessions"))
        );
        assert_eq!(sessions_dir(env(&[("HOME", "rel")])), None);
        assert_eq!(sessions_dir(env(&[])), None);
    }

    #[test]
    fn the_watcher_sees_a_report_appear_in_a_directory_created_later() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join(".claude/sessions");
        let (tx, rx) = std::sync::mpsc::channel();
        let mut w = Watcher::start(move |e| {
            let _ = tx.send(e);
        })
        .unwrap();
        assert!(w.want(sessions.clone()).is_empty());
        std::fs::create_dir_all(&sessions).unwrap();
        let wait = |want: &dyn Fn(&WatchEvent) -> bool| {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
            loop {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                match rx.recv_timeout(left) {
                    Ok(e) if want(&e) => return e,
                    Ok(_) => continue,
                    Err(e) => panic!("no watch event: {e}"),
                }
            }
        };
        wait(&|e| matches!(e, WatchEvent::Dir(_)));
        // A report written before the sessions watch existed is listed by refresh.
        let early = sessions.join("7.json");
        std::fs::write(&early, WAITING).unwrap();
        let listed = w.refresh();
        assert!(listed.contains(&early), "{listed:?}");
        let later = sessions.join("8.json");
        std::fs::write(&later, WAITING).unwrap();
        assert_eq!(
            wait(&|e| *e == WatchEvent::File(later.clone())),
            WatchEvent::File(later.clone())
        );
        std::fs::remove_file(&later).unwrap();
        wait(&|e| *e == WatchEvent::File(later.clone()));
        // Other files are not forwarded.
        std::fs::write(sessions.join("notes.txt"), "x").unwrap();
        std::fs::write(dir.path().join("unrelated.log"), "x").unwrap();
        std::fs::write(sessions.join("9.json"), WAITING).unwrap();
        // The next file event after the ones of 8.json is about 9.json.
        let e = wait(&|e| matches!(e, WatchEvent::File(p) if *p != later));
        assert_eq!(e, WatchEvent::File(sessions.join("9.json")));
    }
}
