//! `attend hook AGENT [EVENT]`: the agents' hook client (CONTRACT §8; DESIGN "Shape").
//!
//! It sits on the agent's hot path, so it is bounded (300 ms for connecting and calling),
//! prints nothing on stdout, and always exits 0: on failure it prints one warning line on
//! stderr. (Spooling undelivered events for replay is a later issue.)

use super::client::Client;
use std::collections::HashMap;
use std::io::Read;
use std::time::Duration;
use zbus::zvariant::Value;

/// How long the hook may take in total.
pub const DEADLINE: Duration = Duration::from_millis(300);

/// The delivery context (CONTRACT §8): pane (ATTEND_PANE), delivery_id (a fresh UUID),
/// cwd, tty, monotonic (CLOCK_MONOTONIC, ns) and pids (a(ut): the ancestor pids with
/// their start times in clock ticks since boot, nearest first).
pub fn context() -> HashMap<String, Value<'static>> {
    let mut c: HashMap<String, Value<'static>> = HashMap::new();
    if let Ok(pane) = std::env::var("ATTEND_PANE") {
        if !pane.is_empty() {
            c.insert("pane".into(), Value::from(pane));
        }
    }
    c.insert(
        "delivery_id".into(),
        Value::from(uuid::Uuid::new_v4().to_string()),
    );
    if let Some(cwd) = std::env::current_dir()
        .ok()
        .and_then(|p| p.to_str().map(str::to_string))
    {
        c.insert("cwd".into(), Value::from(cwd));
    }
    if let Some(tty) = std::fs::read_link("/proc/self/fd/0")
        .ok()
        .and_then(|p| p.to_str().map(str::to_string))
        .filter(|p| p.starts_with("/dev/pts/") || p.starts_with("/dev/tty"))
    {
        c.insert("tty".into(), Value::from(tty));
    }
    c.insert("monotonic".into(), Value::from(monotonic_ns()));
    c.insert("pids".into(), Value::from(ancestors()));
    c
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

/// (ppid, start time) of `pid` from `/proc/<pid>/stat` (fields 4 and 22).
fn stat(pid: u32) -> Option<(u32, u64)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    let rest = &s[s.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let ppid = fields.get(1)?.parse().ok()?;
    let start = fields.get(19)?.parse().ok()?;
    Some((ppid, start))
}

/// Ancestors of this process (parent first) with their start times, up to 32 levels.
fn ancestors() -> Vec<(u32, u64)> {
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

async fn deliver(agent: &str, event: &str, payload: String) -> Result<u64, String> {
    let client = Client::connect().await.map_err(|e| e.message)?;
    client
        .call("Hook", &(agent, event, payload.as_str(), context()))
        .await
        .map_err(|e| e.message)
}

/// Runs the hook client: payload from stdin, or the last argument with `--notify` (Codex
/// `notify`, event `notify`). Always returns exit code 0.
pub fn run(agent: &str, event: Option<&str>, notify: bool, arg: Option<String>) -> i32 {
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
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("attend: hook not delivered: {e}");
            return 0;
        }
    };
    let outcome =
        rt.block_on(async { tokio::time::timeout(DEADLINE, deliver(agent, event, payload)).await });
    match outcome {
        Ok(Ok(_seq)) => {}
        Ok(Err(e)) => eprintln!("attend: hook not delivered: {e}"),
        Err(_) => eprintln!(
            "attend: hook not delivered: the daemon did not answer within {} ms",
            DEADLINE.as_millis()
        ),
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_has_a_fresh_delivery_id_and_our_parent() {
        let a = context();
        let b = context();
        assert_ne!(a["delivery_id"], b["delivery_id"]);
        let parent = std::os::unix::process::parent_id();
        assert_eq!(ancestors().first().map(|p| p.0), Some(parent));
        assert!(monotonic_ns() > 0);
    }
}
