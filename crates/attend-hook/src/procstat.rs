//! The one `/proc/<pid>/stat` reader Attend has: the hook client walks its ancestors with
//! it, and the daemon checks those ancestors (and watches agent processes) with the same
//! parse.

/// (ppid, start time in clock ticks since boot) of `pid`, from `/proc/<pid>/stat`
/// (fields 4 and 22); `None` when the process does not exist (or `/proc` is unreadable).
pub fn stat(pid: u32) -> Option<(u32, u64)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&s)
}

/// Parses the text of `/proc/<pid>/stat` into (ppid, start time). The command name
/// (field 2) may hold spaces and parentheses, so the fields are split after the last `)`.
pub fn parse_stat(s: &str) -> Option<(u32, u64)> {
    let rest = s.get(s.rfind(')')? + 2..)?;
    let mut fields = rest.split(' ');
    let ppid = fields.nth(1)?.parse().ok()?;
    let start = fields.nth(17)?.parse().ok()?;
    Some((ppid, start))
}

/// The most ancestors [`ancestors`] lists.
pub const MAX_ANCESTORS: usize = 32;

/// The ancestors of this process, parent first, each with its start time, up to
/// [`MAX_ANCESTORS`], stopping below pid 1. Empty when `/proc` cannot be read.
pub fn ancestors() -> Vec<(u32, u64)> {
    let mut out = Vec::new();
    let Some((mut pid, _)) = stat(std::process::id()) else {
        return out;
    };
    while pid > 1 && out.len() < MAX_ANCESTORS {
        let Some((ppid, start)) = stat(pid) else {
            break;
        };
        out.push((pid, start));
        pid = ppid;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_is_split_after_the_last_parenthesis() {
        let line = "4242 (a (weird) name) S 4200 4242 4200 0 -1 4194560 1 0 0 0 3 1 0 0 20 0 \
                    1 0 987654 10000 100 18446744073709551615";
        assert_eq!(parse_stat(line), Some((4200, 987654)));
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("1 (x) S 0"), None, "too few fields");
    }

    #[test]
    fn our_parent_comes_first() {
        let ours = ancestors();
        assert_eq!(
            ours.first().map(|p| p.0),
            Some(std::os::unix::process::parent_id())
        );
        assert!(ours.len() <= MAX_ANCESTORS);
    }
}
