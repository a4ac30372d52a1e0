//! What `/proc` says about processes: parent and start time (`/proc/<pid>/stat`), names
//! (`comm`, `exe`), environment (`environ`) and the descendants of a process. Start times
//! are field 22 of `/proc/<pid>/stat` (clock ticks since boot), as the hook client
//! reports them; a pid whose start time differs is another process (pid reuse). Every
//! reader answers `None` or empty when the process is gone or `/proc` is unreadable.

use std::collections::HashMap;

/// A process: (pid, start time in clock ticks since boot).
pub type Proc = (u32, u64);

/// (ppid, start time) of a process from `/proc/<pid>/stat`: the one reader the hook
/// client and the daemon share (`attend_hook::procstat`).
pub use attend_hook::procstat::{parse_stat, stat};

/// The start time of `pid` (`None`: no such process).
pub fn start_time(pid: u32) -> Option<u64> {
    stat(pid).map(|(_, start)| start)
}

/// The start time of `pid` while it lives: `None` when there is no such process or it
/// is a zombie (exited, not reaped yet by its parent).
pub fn living_start(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let state = s.rfind(')').and_then(|i| s.get(i + 2..i + 3));
    if matches!(state, Some("Z" | "X" | "x")) {
        return None;
    }
    parse_stat(&s).map(|(_, start)| start)
}

/// True while `proc` names a living process: same pid, same start time, not a zombie.
pub fn alive(proc: Proc) -> bool {
    living_start(proc.0) == Some(proc.1)
}

/// The names of `pid` worth matching: its `comm` and its executable's file name.
pub fn names(pid: u32) -> Vec<String> {
    let mut names = Vec::new();
    if let Ok(comm) = std::fs::read_to_string(format!("/proc/{pid}/comm")) {
        names.push(comm.trim_end().to_string());
    }
    if let Ok(exe) = std::fs::read_link(format!("/proc/{pid}/exe")) {
        if let Some(name) = exe.file_name().and_then(|n| n.to_str()) {
            names.push(name.to_string());
        }
    }
    names
}

/// True when `pid` is `root` or one of its descendants (walking parent pids).
pub fn in_tree(pid: u32, root: u32) -> bool {
    let mut p = pid;
    for _ in 0..64 {
        if p == root {
            return true;
        }
        match stat(p) {
            Some((parent, _)) if parent > 1 && parent != p => p = parent,
            _ => return false,
        }
    }
    false
}

/// `root` and every descendant of it (from one scan of `/proc`).
pub fn tree(root: u32) -> Vec<u32> {
    tree_except(root, 0)
}

/// `root` and every descendant of it but `skip` and `skip`'s descendants (from one scan
/// of `/proc`; `skip` 0 skips nothing).
pub fn tree_except(root: u32, skip: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for e in entries.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            if let Some((ppid, _)) = stat(pid) {
                children.entry(ppid).or_default().push(pid);
            }
        }
    }
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() && out.len() < 4096 {
        if let Some(c) = children.get(&out[i]) {
            out.extend(c.iter().filter(|p| **p != skip));
        }
        i += 1;
    }
    out
}

/// The environment a process was started with (`/proc/<pid>/environ`); empty when
/// unreadable.
pub fn environ(pid: u32) -> HashMap<String, String> {
    std::fs::read(format!("/proc/{pid}/environ"))
        .map(|bytes| {
            bytes
                .split(|b| *b == 0)
                .filter_map(|kv| {
                    let kv = std::str::from_utf8(kv).ok()?;
                    let (k, v) = kv.split_once('=')?;
                    Some((k.to_string(), v.to_string()))
                })
                .collect()
        })
        .unwrap_or_default()
}
