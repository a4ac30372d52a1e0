//! Running one tmux command against a server.

use std::process::{Command as Process, Stdio};

/// Runs `tmux -S SOCKET ARGS` and returns its stdout when it succeeded.
pub(super) fn tmux(socket: &str, args: &[&str]) -> Option<Vec<u8>> {
    let out = Process::new("tmux")
        .arg("-S")
        .arg(socket)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}
