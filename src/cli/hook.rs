//! `attend hook AGENT [EVENT]`: the agents' hook client (CONTRACT §8; DESIGN "Shape";
//! issue 4 "`attend hook`").
//!
//! It runs before every tool call of an agent, so it is short and bounded:
//! 1. it reads its ancestors (pids and start times) first, before an agent that exits
//!    could orphan it, then the payload (stdin, or the last argument with `--notify`);
//! 2. it maps the payload with the daemon's own adapter: malformed JSON, a payload over
//!    1 MiB, an unknown agent or a missing event give one line on stderr and nothing is
//!    sent or stored;
//! 3. it makes one `Hook` call (pipelined, see `wire`) within [`CALL_BUDGET`];
//! 4. when the daemon is unreachable, does not answer in time or fails internally, it
//!    appends the call to the spool in `service::paths::runtime_dir()` (with its arrival
//!    time and delivery id; atomic append + fsync) for the daemon to replay. That is
//!    normal and silent. While earlier hooks wait in the spool (`spool::pending`) it
//!    spools without calling, so a hook never overtakes one spooled before it (issue 7
//!    "Crash": applied in per-pane order).
//!
//! It prints nothing on stdout and always exits 0 (a broken Attend must not break the
//! agent): a rejected payload, or an event that could be neither delivered nor spooled,
//! gives exactly one `attend: …` line on stderr. The whole run stays within [`DEADLINE`].

mod wire;

use super::client::Client;
use crate::adapters::hooks::map_hook;
use crate::model::{AgentKind, Timestamp};
use crate::service::intake::MAX_PAYLOAD;
use crate::service::paths::runtime_dir;
use crate::service::procfs::stat;
use crate::service::spool::{self, SpoolRecord};
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::io::Read;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use wire::CallError;
use zbus::zvariant::Value;

/// How long the hook may take in total, spooling included.
pub const DEADLINE: Duration = Duration::from_millis(300);
/// The part of [`DEADLINE`] kept for spooling when the call fails or times out.
pub const SPOOL_BUDGET: Duration = Duration::from_millis(50);
/// The longest the `Hook` call may take: [`DEADLINE`] minus [`SPOOL_BUDGET`].
pub const CALL_BUDGET: Duration = DEADLINE.saturating_sub(SPOOL_BUDGET);

/// The delivery context (CONTRACT §8), collected by the client.
#[derive(Debug, Clone, PartialEq)]
pub struct Context {
    /// `ATTEND_PANE`, when set and not empty.
    pub pane: Option<String>,
    /// A fresh UUID, made before the first attempt.
    pub delivery_id: String,
    pub cwd: Option<String>,
    /// stdin's terminal (`/dev/pts/N`), when it is one.
    pub tty: Option<String>,
    /// CLOCK_MONOTONIC in ns (orders hooks that race).
    pub monotonic: u64,
    /// Ancestors (pid, start time in clock ticks since boot), parent first, ≤ 32.
    pub pids: Vec<(u32, u64)>,
    /// Where the agent's terminal can show it (issue 6): the set ones of
    /// [`crate::service::surfaces::TERMINAL_ENV`] (`TMUX`, `TMUX_PANE`, `KITTY_WINDOW_ID`,
    /// …).
    pub terminal: BTreeMap<String, String>,
}

impl Context {
    /// Collects the context of this process with the ancestors read earlier.
    pub fn collect(pids: Vec<(u32, u64)>) -> Context {
        Context {
            pane: std::env::var("ATTEND_PANE").ok().filter(|p| !p.is_empty()),
            delivery_id: uuid::Uuid::new_v4().to_string(),
            cwd: std::env::current_dir()
                .ok()
                .and_then(|p| p.to_str().map(str::to_string)),
            tty: std::fs::read_link("/proc/self/fd/0")
                .ok()
                .and_then(|p| p.to_str().map(str::to_string))
                .filter(|p| p.starts_with("/dev/pts/") || p.starts_with("/dev/tty")),
            monotonic: monotonic_ns(),
            pids,
            terminal: crate::service::surfaces::TERMINAL_ENV
                .iter()
                .filter_map(|k| Some((k.to_string(), std::env::var(k).ok()?)))
                .collect(),
        }
    }

    /// The `a{sv}` of the `Hook` call: `pane`, `delivery_id`, `cwd`, `tty` (when known),
    /// `monotonic` (t), `pids` (a(ut)), `terminal` (a{ss}, when any is set).
    pub fn to_dbus(&self) -> HashMap<&'static str, Value<'_>> {
        let mut c = HashMap::new();
        if let Some(p) = &self.pane {
            c.insert("pane", Value::from(p.as_str()));
        }
        c.insert("delivery_id", Value::from(self.delivery_id.as_str()));
        if let Some(cwd) = &self.cwd {
            c.insert("cwd", Value::from(cwd.as_str()));
        }
        if let Some(tty) = &self.tty {
            c.insert("tty", Value::from(tty.as_str()));
        }
        c.insert("monotonic", Value::from(self.monotonic));
        c.insert("pids", Value::from(self.pids.clone()));
        if !self.terminal.is_empty() {
            let terminal: HashMap<String, String> = self.terminal.clone().into_iter().collect();
            c.insert("terminal", Value::from(terminal));
        }
        c
    }

    /// The same keys as JSON, for a spool record (`pids` as `[[pid, start], …]`; the
    /// delivery id is the record's own field).
    pub fn to_json(&self) -> BTreeMap<String, serde_json::Value> {
        let mut c = BTreeMap::new();
        if let Some(p) = &self.pane {
            c.insert("pane".into(), p.as_str().into());
        }
        if let Some(cwd) = &self.cwd {
            c.insert("cwd".into(), cwd.as_str().into());
        }
        if let Some(tty) = &self.tty {
            c.insert("tty".into(), tty.as_str().into());
        }
        c.insert("monotonic".into(), self.monotonic.into());
        c.insert("pids".into(), serde_json::json!(self.pids));
        if !self.terminal.is_empty() {
            c.insert("terminal".into(), serde_json::json!(self.terminal));
        }
        c
    }
}

fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the valid pointer we pass.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Ancestors of this process (parent first) with their start times, up to 32 levels.
pub fn ancestors() -> Vec<(u32, u64)> {
    let mut out = Vec::new();
    let Some((mut pid, _)) = stat(std::process::id()) else {
        return out;
    };
    while pid > 1 && out.len() < 32 {
        let Some((ppid, start)) = stat(pid) else {
            break;
        };
        out.push((pid, start));
        pid = ppid;
    }
    out
}

/// Why a hook was not delivered.
enum Failure {
    /// The daemon refused the call (bad input): reported, not spooled.
    Rejected(String),
    /// The daemon could not take it now: spooled.
    Undelivered(String),
}

fn classify(e: CallError) -> Failure {
    match e {
        CallError::Failed { name, message } => {
            let text = if message.is_empty() {
                name.clone()
            } else {
                message
            };
            match name.strip_prefix("io.github.attend.Attend1.Error.") {
                Some("Internal") | None => Failure::Undelivered(text),
                Some(_) => Failure::Rejected(text),
            }
        }
        CallError::Timeout => Failure::Undelivered(format!(
            "the daemon did not answer within {} ms",
            CALL_BUDGET.as_millis()
        )),
        CallError::Unreachable(e) => Failure::Undelivered(e),
        CallError::Unsupported => Failure::Undelivered("unsupported bus address".into()),
    }
}

/// The `Hook` call through zbus's own connection, for bus addresses that are not Unix
/// sockets (rare on Linux).
fn deliver_with_zbus(
    body: &(&str, &str, &str, HashMap<&str, Value<'_>>),
    budget: Duration,
) -> Result<(), Failure> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Undelivered(e.to_string()))?;
    let outcome = rt.block_on(async {
        tokio::time::timeout(budget, async {
            let client = Client::connect().await?;
            client.call::<_, u64>("Hook", body).await
        })
        .await
    });
    match outcome {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) if e.code == super::EXIT_BAD_INPUT => Err(Failure::Rejected(e.message)),
        Ok(Err(e)) => Err(Failure::Undelivered(e.message)),
        Err(_) => Err(classify(CallError::Timeout)),
    }
}

/// One `Hook` call before `deadline`.
fn deliver(
    agent: &str,
    event: &str,
    payload: &str,
    ctx: &Context,
    deadline: Instant,
) -> Result<(), Failure> {
    let body = (agent, event, payload, ctx.to_dbus());
    match wire::call("Hook", &body, deadline) {
        Ok(_) => Ok(()),
        Err(CallError::Unsupported) => {
            deliver_with_zbus(&body, deadline.saturating_duration_since(Instant::now()))
        }
        Err(e) => Err(classify(e)),
    }
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Runs the hook client: payload from stdin, or the last argument with `--notify` (Codex
/// `notify`, event `notify`). Always returns exit code 0.
pub fn run(agent: &str, event: Option<&str>, notify: bool, arg: Option<String>) -> i32 {
    let started = Instant::now();
    let arrived_at = now_ms();
    let pids = ancestors();
    let (event, payload) = if notify {
        ("notify", arg.unwrap_or_default())
    } else {
        let mut text = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut text) {
            eprintln!("attend: hook not delivered: cannot read the payload from stdin: {e}");
            return 0;
        }
        (event.unwrap_or(""), text)
    };
    if let Err(e) = check(agent, event, &payload) {
        eprintln!("attend: hook not delivered: {e}");
        return 0;
    }
    let ctx = Context::collect(pids);
    let dir = runtime_dir();
    let failure = if spool::pending(&dir) {
        // A live call would overtake the hooks still spooled (this agent's earlier ones
        // among them): queue behind them instead.
        "earlier hooks are still spooled".to_string()
    } else {
        match deliver(agent, event, &payload, &ctx, started + CALL_BUDGET) {
            Ok(()) => return 0,
            Err(Failure::Rejected(e)) => {
                eprintln!("attend: hook not delivered: {e}");
                return 0;
            }
            Err(Failure::Undelivered(reason)) => reason,
        }
    };
    let record = SpoolRecord {
        delivery_id: ctx.delivery_id.clone(),
        agent: agent.to_string(),
        event: event.to_string(),
        payload,
        context: ctx.to_json(),
        arrived_at,
    };
    if let Err(e) = spool::append(&dir, &record) {
        eprintln!(
            "attend: hook lost: not delivered ({failure}) and not spooled to {}: {e}",
            dir.display()
        );
    }
    0
}

/// What the daemon would refuse, checked before anything is sent or spooled: a payload
/// over [`MAX_PAYLOAD`], an unknown agent, or a payload the adapter cannot map
/// (malformed JSON with its line and column, not an object, no event). The messages are
/// the daemon's.
fn check(agent: &str, event: &str, payload: &str) -> Result<(), String> {
    if payload.len() > MAX_PAYLOAD {
        return Err(format!(
            "hook payload is {} bytes; the limit is {MAX_PAYLOAD}",
            payload.len()
        ));
    }
    let kind = AgentKind::parse(agent)
        .ok_or_else(|| format!("unknown agent {agent:?} (claude, codex, cursor, gemini, shell)"))?;
    let event_arg = (!event.is_empty()).then_some(event);
    map_hook(kind, event_arg, payload, Timestamp(0))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// `attend hook …` without clap (it runs before every agent tool call): `hook AGENT
/// [EVENT]` or `hook AGENT --notify [EVENT] PAYLOAD` (`--notify` anywhere after AGENT).
/// `None` for anything else (`--help`, other options, too many arguments), which clap
/// then parses and reports.
pub fn fast_path(args: &[OsString]) -> Option<i32> {
    let args: Vec<&str> = args.iter().map(|a| a.to_str()).collect::<Option<_>>()?;
    let [_, "hook", rest @ ..] = args.as_slice() else {
        return None;
    };
    let notify = rest.contains(&"--notify");
    let mut plain: Vec<&str> = rest.iter().copied().filter(|a| *a != "--notify").collect();
    if plain.is_empty() || plain.len() > 3 || plain.iter().any(|a| a.starts_with('-')) {
        return None;
    }
    let agent = plain.remove(0);
    let payload = if notify { plain.pop() } else { None };
    if plain.len() > 1 {
        return None;
    }
    Some(run(
        agent,
        plain.first().copied(),
        notify,
        payload.map(str::to_string),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_has_a_fresh_delivery_id_and_our_parent() {
        let a = Context::collect(ancestors());
        let b = Context::collect(Vec::new());
        assert_ne!(a.delivery_id, b.delivery_id);
        let parent = std::os::unix::process::parent_id();
        assert_eq!(a.pids.first().map(|p| p.0), Some(parent));
        assert!(a.monotonic > 0);
        let json = a.to_json();
        assert_eq!(json["pids"][0][0], serde_json::json!(parent));
        assert!(!json.contains_key("delivery_id"), "a field of the record");
        let dbus = a.to_dbus();
        assert_eq!(dbus["delivery_id"], Value::from(a.delivery_id.as_str()));
    }

    #[test]
    fn bad_payloads_are_refused_with_the_daemons_words() {
        let err = check("claude", "", "{\"hook_event_name\": ").unwrap_err();
        assert!(
            err.starts_with("hook payload is not valid JSON (line 1, column "),
            "{err}"
        );
        let err = check("nobody", "", "{}").unwrap_err();
        assert!(err.starts_with("unknown agent \"nobody\""), "{err}");
        let big = format!("{{\"x\": \"{}\"}}", "y".repeat(MAX_PAYLOAD));
        assert!(check("claude", "Stop", &big)
            .unwrap_err()
            .contains("the limit is 1048576"));
        assert!(check("claude", "", r#"{"hook_event_name":"Stop"}"#).is_ok());
    }

    #[test]
    fn only_plain_hook_invocations_take_the_fast_path() {
        let args = |a: &[&str]| -> Vec<OsString> { a.iter().map(OsString::from).collect() };
        // Not hooks, or options clap must handle: no fast path (nothing is run).
        assert_eq!(fast_path(&args(&["attend", "ls"])), None);
        assert_eq!(fast_path(&args(&["attend", "hook"])), None);
        assert_eq!(fast_path(&args(&["attend", "hook", "--help"])), None);
        assert_eq!(
            fast_path(&args(&["attend", "hook", "claude", "a", "b"])),
            None
        );
        assert_eq!(
            fast_path(&args(&[
                "attend", "hook", "codex", "--notify", "a", "b", "c"
            ])),
            None
        );
    }

    #[test]
    fn daemon_errors_split_into_rejected_and_spooled() {
        let failed = |name: &str| CallError::Failed {
            name: name.into(),
            message: "m".into(),
        };
        assert!(matches!(
            classify(failed("io.github.attend.Attend1.Error.InvalidArgument")),
            Failure::Rejected(m) if m == "m"
        ));
        assert!(matches!(
            classify(failed("io.github.attend.Attend1.Error.Internal")),
            Failure::Undelivered(_)
        ));
        assert!(matches!(
            classify(failed("org.freedesktop.DBus.Error.ServiceUnknown")),
            Failure::Undelivered(_)
        ));
        assert!(matches!(
            classify(CallError::Timeout),
            Failure::Undelivered(_)
        ));
    }
}
