//! One control client (`tmux -C attach-session -t $S -f ignore-size,pause-after=N`): it
//! does not change the size of the user's windows (`ignore-size`), subscribes to each
//! pane's process and current command (`refresh-client -B`), and hands its lines to
//! [`crate::adapters::tmux::control::Reader`]. It ends when tmux closes it (`%exit`, end
//! of output: the session or the server ended).

use crate::adapters::tmux::control::{Event, Notice, Reader};
use crate::adapters::tmux::layout::PaneSize;
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

/// Seconds a pane's output may lag behind before tmux pauses it for this client
/// (`pause-after`); a paused pane is continued and its screen captured again.
pub const PAUSE_AFTER_S: u32 = 5;

/// The subscription's name.
const SUBSCRIPTION: &str = "attend-command";

/// What a control client reports to its server's follower.
pub(super) trait Handler {
    /// Bytes pane `pane` printed (seen by the client of `session`).
    fn output(&self, session: &str, pane: u32, bytes: &[u8]);
    /// The program in pane `pane` (whose own process is `shell`) changed.
    fn check(&self, session: &str, pane: u32, shell: u32);
    /// Pane `pane` was paused and is continued: its screen is to be drawn again.
    fn reseed(&self, session: &str, pane: u32);
    /// A session was created or destroyed.
    fn sessions_changed(&self);
    /// A pane or window may have been closed (`%layout-change`, `%window-close`,
    /// `%unlinked-window-close`).
    fn panes_changed(&self);
    /// A window's layout changed: the panes' sizes in it.
    fn resized(&self, sizes: &[PaneSize]);
    /// What a client shows may have changed (another client attached, detached, or
    /// changed its session, a session its window, a window its active pane).
    fn focus_changed(&self);
}

/// Runs the control client of `session` of the server at `socket` until it ends.
pub(super) fn run(socket: &str, session: &str, server: &dyn Handler) {
    let flags = format!("ignore-size,pause-after={PAUSE_AFTER_S}");
    let mut command = super::run::tmux_command(socket);
    command
        .args(["-C", "attach-session", "-t", session, "-f", &flags])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // The control client ends with the daemon, also when the daemon is killed (`kill
    // -9`): tmux keeps a control client whose stdin closed, so each killed daemon left
    // its clients attached to the user's sessions, reparented to init. SIGTERM when the
    // thread that started it ends (it waits for the client as long as the client runs).
    // SAFETY: between fork and exec only an async-signal-safe call (prctl).
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut command, || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = command.spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(socket = %socket, "cannot start tmux's control client: {e}");
            return;
        }
    };
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return;
    };
    // The pane's own process and its current command: a change of the command is a
    // program started or ended in the pane (tmux checks subscriptions once a second).
    // Sent once the client is attached (its `%session-changed`): before, tmux has no
    // client to subscribe ("no current client").
    let subscribe =
        format!("refresh-client -B '{SUBSCRIPTION}:%*:#{{pane_pid}} #{{pane_current_command}}'\n");
    let mut subscribed = false;
    let mut out = BufReader::new(stdout);
    let mut reader = Reader::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        match out.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        let Some(Event::Notice(n)) = reader.feed(&line) else {
            continue;
        };
        match n {
            Notice::Output { pane, bytes } => server.output(session, pane, &bytes),
            Notice::Subscription {
                name,
                pane: Some(pane),
                value,
            } if name == SUBSCRIPTION => {
                if let Some(shell) = value.split(' ').next().and_then(|p| p.parse().ok()) {
                    server.check(session, pane, shell);
                }
            }
            Notice::Pause { pane } => {
                // Go on; a followed pane's screen is captured again (what was skipped
                // is not replayed).
                let cmd = format!("refresh-client -A '%{pane}:continue'\n");
                if stdin.write_all(cmd.as_bytes()).is_err() {
                    break;
                }
                server.reseed(session, pane);
            }
            Notice::SessionsChanged => server.sessions_changed(),
            Notice::LayoutChange { sizes } => {
                server.panes_changed();
                server.resized(&sizes);
            }
            Notice::Other(name)
                if matches!(name.as_str(), "window-close" | "unlinked-window-close") =>
            {
                server.panes_changed()
            }
            Notice::Other(name)
                if matches!(
                    name.as_str(),
                    "client-session-changed"
                        | "client-detached"
                        | "session-window-changed"
                        | "window-pane-changed"
                ) =>
            {
                server.focus_changed()
            }
            Notice::Other(name) if name == "session-changed" && !subscribed => {
                subscribed = true;
                if stdin.write_all(subscribe.as_bytes()).is_err() {
                    break;
                }
            }
            Notice::Exit { .. } => break,
            _ => {}
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
}
