//! What the user does to a pane followed in tmux, and what tmux tells of it
//! (`docs/tmux.md`): focus by a tmux client's active pane ([`Owner::tmux_focus`]),
//! selecting it on `attend focus` or a click ([`Owner::tmux_select`]), a new size
//! ([`Owner::tmux_resized`]), and `attend resume` of an exited one in a new window of the
//! same tmux session ([`Owner::tmux_resume`]), whose new tmux pane becomes the same
//! Attend pane ([`super::tmux_seats::Seats::resumed`]).

use super::{Batch, Owner};
use crate::model::{Action, PaneId, TmuxLocation};
use crate::service::bus::error::Attend1Error;

/// The tmux server's global `PATH` (`show-environment -g PATH`), when set.
fn global_path(socket: &str) -> Option<String> {
    // `-u`: a UTF-8 client whatever the daemon's locale (see `tmux_command` in
    // src/service/tmux/run.rs).
    let out = std::process::Command::new("tmux")
        .args(["-u", "-S"])
        .arg(socket)
        .args(["show-environment", "-g", "PATH"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim_end()
        .strip_prefix("PATH=")
        .filter(|p| !p.is_empty())
        .map(str::to_string)
}

/// The session part of a tmux place `session:window.pane`.
fn session_of(place: &str) -> Option<&str> {
    place
        .rsplit_once(':')
        .map(|(s, _)| s)
        .filter(|s| !s.is_empty())
}

impl Owner {
    /// Whether a person looks at each followed pane of one server: a running pane looked
    /// at and not focused yet is focused (marked seen, `docs/lifecycle-attention.md#focus`);
    /// one this focused and no longer looked at is unfocused.
    pub(super) fn tmux_focus(&mut self, focus: &[(TmuxLocation, bool)], batch: &mut Batch) {
        for (location, looking) in focus {
            let Some(pane) = self.world.panes().values().find(|p| {
                p.live.is_running() && p.tmux.as_ref().is_some_and(|l| l.same_pane(location))
            }) else {
                continue;
            };
            let (id, focused) = (pane.id, pane.focused);
            let action = match (*looking, focused) {
                (true, false) => {
                    self.seats.focused.insert(id);
                    Action::Focus
                }
                (false, true) if self.seats.focused.remove(&id) => Action::Unfocus,
                (true, true) => {
                    self.seats.focused.insert(id);
                    continue;
                }
                _ => continue,
            };
            tracing::debug!(pane = %id, tmux = %location.pane, ?action, "tmux focus");
            if let Err(e) = self.act(id, &action, batch) {
                tracing::warn!(pane = %id, "cannot apply the tmux focus: {e}");
            }
        }
    }

    /// `attend focus` or a click on pane `id`: when it is followed in tmux, its window and
    /// pane are selected and the user's tmux client switched to it (off the owner task).
    /// True when it is such a pane.
    pub(super) fn tmux_select(&self, id: PaneId) -> bool {
        let Ok(pane) = self.world.pane(id) else {
            return false;
        };
        let Some(loc) = pane.tmux.clone().filter(|_| pane.live.is_running()) else {
            return false;
        };
        if !self.ptys.lock().contains_key(&id) {
            return false;
        }
        let spawned = std::thread::Builder::new()
            .name("tmux-select".into())
            .spawn(move || crate::service::tmux::select(&loc.socket, &loc.pane));
        spawned.is_ok()
    }

    /// A followed tmux pane has a new size: its screen takes it, then is drawn again from
    /// a capture (off the owner task).
    pub(super) fn tmux_resized(&mut self, location: &TmuxLocation, rows: u16, cols: u16) {
        let running = self.world.panes().values().find(|p| {
            p.live.is_running() && p.tmux.as_ref().is_some_and(|l| l.same_pane(location))
        });
        let Some(id) = running.map(|p| p.id) else {
            return;
        };
        let Some(handle) = self.ptys.lock().get(&id).cloned() else {
            return;
        };
        if let Err(e) = handle.resize_followed(rows, cols) {
            tracing::warn!(pane = %id, "cannot resize the followed screen: {e}");
            return;
        }
        if let Some(follower) = self.tmux.clone() {
            let location = location.clone();
            let _ = std::thread::Builder::new()
                .name("tmux-redraw".into())
                .spawn(move || follower.redraw(&location));
        }
    }

    /// `attend resume` of exited pane `id`, followed in tmux before: its resume command
    /// (from its session id) runs in a new window of the same tmux session, whose pane
    /// becomes this Attend pane when the follower finds the agent in it (a handover of the
    /// seat, [`super::tmux_seats::Seats::resumed`]). Errors: still running, the tmux server ended, no resume
    /// command known, tmux refused.
    pub(super) fn tmux_resume(
        &mut self,
        id: PaneId,
        _batch: &mut Batch,
    ) -> Result<(), Attend1Error> {
        let pane = self.world.pane(id)?;
        let Some(loc) = pane.tmux.clone() else {
            return Err(Attend1Error::InvalidArgument(format!(
                "pane {id} was not followed in tmux"
            )));
        };
        if pane.live.is_running() {
            return Err(Attend1Error::InvalidArgument(format!(
                "pane {id} is still running"
            )));
        }
        // At least the program and its resume flag: tmux runs a single word through
        // `sh -c`, several words directly.
        let Some(argv) = pane.resume_argv.clone().filter(|a| a.len() >= 2) else {
            return Err(Attend1Error::InvalidArgument(format!(
                "pane {id} has no resume command (no hook named its agent's session)"
            )));
        };
        if !super::tmux::tmux_server_runs(loc.server_pid) {
            return Err(Attend1Error::InvalidArgument(format!(
                "pane {id}'s tmux server ({}) has ended",
                loc.socket
            )));
        }
        let session = session_of(&loc.place).unwrap_or_default();
        let target = format!("{session}:");
        let mut args: Vec<String> = ["new-window", "-d", "-t", &target, "-P", "-F", "#{pane_id}"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        if let Some(cwd) = &pane.cwd {
            args.extend(["-c".to_string(), cwd.clone()]);
        }

        args.push("--".into());
        args.extend(argv);
        // tmux gives a new window the PATH of the client that asks (over `-e` too): the
        // daemon's; the user's windows have the server's own (its global environment).
        let mut tmux = std::process::Command::new("tmux");
        if let Some(path) = global_path(&loc.socket) {
            tmux.env("PATH", path);
        }
        let out = tmux
            .args(["-u", "-S"])
            .arg(&loc.socket)
            .args(&args)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| Attend1Error::Internal(format!("cannot run tmux: {e}")))?;
        if !out.status.success() {
            return Err(Attend1Error::Internal(format!(
                "tmux refused the new window: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let new = String::from_utf8_lossy(&out.stdout).trim().to_string();
        tracing::info!(pane = %id, tmux = %new, session, "resumed in a new tmux window");
        self.seats.resumes.insert((loc.socket, new), id);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::session_of;

    #[test]
    fn a_places_session_is_before_its_last_colon() {
        assert_eq!(session_of("work:0.1"), Some("work"));
        assert_eq!(session_of("a:b:3.0"), Some("a:b"));
        assert_eq!(session_of(":0.0"), None);
        assert_eq!(session_of("nothing"), None);
    }
}
