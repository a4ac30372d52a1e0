//! What a person sees of a followed tmux pane: whether they are looking at it
//! (`docs/tmux.md#focus`) and its size (`docs/tmux.md#resize`), told to the owner; and
//! showing a pane in the user's tmux client when they ask (`attend focus`, a click).

use super::run::tmux;
use super::server::Server;
use crate::adapters::tmux::focus::{clients, looked_at, user_client, CLIENTS_FORMAT};
use crate::adapters::tmux::layout::PaneSize;
use crate::service::command::Command;

impl Server {
    /// What a client shows may have changed (`%client-session-changed`,
    /// `%session-window-changed`, `%window-pane-changed`, `%client-detached`, a pane newly
    /// followed): lists the server's clients and tells the owner, for every followed pane,
    /// whether a person is looking at it ([`Command::TmuxFocus`]). When tmux does not
    /// answer (the server ended) nothing is sent: the panes' ends follow.
    pub(super) fn focus_changed(&self) {
        let followed = self.followed();
        if followed.is_empty() {
            return;
        }
        let Some(out) = tmux(&self.socket, &["list-clients", "-F", CLIENTS_FORMAT]) else {
            return;
        };
        let looked = looked_at(&clients(&String::from_utf8_lossy(&out)));
        let focus = followed
            .into_iter()
            .map(|(n, location, _, _)| (location, looked.contains(&n)))
            .collect();
        self.send(Command::TmuxFocus(focus));
    }

    /// A window's layout changed: each followed pane whose size differs from the one the
    /// owner knows gets its new size ([`Command::TmuxResized`]).
    pub(super) fn resized(&self, sizes: &[PaneSize]) {
        for s in sizes {
            if !self.set_size(s.pane, (s.rows, s.cols)) {
                continue;
            }
            let Some((_, location, _, _)) = self.followed().into_iter().find(|f| f.0 == s.pane)
            else {
                continue;
            };
            tracing::debug!(socket = %self.socket, pane = s.pane, rows = s.rows, cols = s.cols, "a followed tmux pane was resized");
            if !self.send(Command::TmuxResized(location, s.rows, s.cols)) {
                return;
            }
        }
    }

    /// Draws followed pane `pane`'s screen again from a capture (after the owner gave its
    /// screen a new size).
    pub(super) fn redraw(&self, pane: u32) {
        if let Some((_, _, session, _)) = self.followed().into_iter().find(|f| f.0 == pane) {
            self.reseed(&session, pane);
        }
    }
}

/// Shows tmux pane `pane` (`%N`) of the server at `socket` to the user: selects its window
/// and the pane, then switches the user's client used last (never a control client) to
/// it when one is attached (`switch-client -c NAME -t %N`). Blocking (tmux runs); errors
/// are logged.
pub fn select(socket: &str, pane: &str) {
    let ok = tmux(socket, &["select-window", "-t", pane]).is_some()
        && tmux(socket, &["select-pane", "-t", pane]).is_some();
    if !ok {
        tracing::warn!(socket, pane, "cannot select the tmux pane");
        return;
    }
    let listed = tmux(socket, &["list-clients", "-F", CLIENTS_FORMAT]).unwrap_or_default();
    let listed = clients(&String::from_utf8_lossy(&listed));
    if let Some(c) = user_client(&listed) {
        if tmux(socket, &["switch-client", "-c", &c.name, "-t", pane]).is_none() {
            tracing::warn!(socket, pane, client = %c.name, "cannot switch the tmux client");
        }
    }
}
