//! What the owner remembers of followed tmux panes between commands
//! (`docs/tmux.md#focus`, `docs/tmux.md#resume`): the panes tmux focused, and the tmux
//! panes `attend resume` opened for exited Attend panes.

use crate::model::{PaneId, TmuxLocation};
use std::collections::{HashMap, HashSet};

/// The owner's memory of tmux panes: which panes tmux focused, and which new tmux panes
/// are resumes of which exited Attend panes.
#[derive(Debug, Default)]
pub(super) struct Seats {
    /// Panes focused because a person looks at them in tmux (unfocused when they stop).
    pub(super) focused: HashSet<PaneId>,
    /// (socket, `%N`) of a window `attend resume` opened → the Attend pane it resumes.
    pub(super) resumes: HashMap<(String, String), PaneId>,
}

impl Seats {
    /// The exited Attend pane a tmux pane at `location` resumes (`attend resume` opened
    /// it), taken out of the list; `None` for any other tmux pane.
    pub(super) fn resumed(&mut self, location: &TmuxLocation) -> Option<PaneId> {
        self.resumed_at(&location.socket, &location.pane)
    }

    /// [`Seats::resumed`] by socket and tmux pane (`%N`).
    pub(super) fn resumed_at(&mut self, socket: &str, pane: &str) -> Option<PaneId> {
        self.resumes.remove(&(socket.to_string(), pane.to_string()))
    }
}
