//! Running one tmux command against a server.

use std::process::{Command as Process, Stdio};

/// `tmux -u -S SOCKET`: every tmux the daemon runs is a UTF-8 client (`-u`). A client
/// whose locale is not UTF-8 (no `LANG`, as in a daemon started from an ssh login or a
/// bare service environment) gets format output with its control characters replaced by
/// `_` — the tabs between the fields Attend asks for included — and its UTF-8 replaced.
pub(super) fn tmux_command(socket: &str) -> Process {
    let mut c = Process::new("tmux");
    c.arg("-u").arg("-S").arg(socket);
    c
}

/// Runs `tmux -u -S SOCKET ARGS` ([`tmux_command`]) and returns its stdout when it
/// succeeded.
pub(super) fn tmux(socket: &str, args: &[&str]) -> Option<Vec<u8>> {
    let out = tmux_command(socket)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}
