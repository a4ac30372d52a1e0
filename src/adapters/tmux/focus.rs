//! Which tmux panes a person is looking at (`docs/tmux.md#focus`): the active pane of the
//! current window of each attached client that is no control client (Attend's own, or
//! any other program's) nor a watcher (a client attached with `ignore-size`: the panel's
//! terminal, `attend attach --watch`) and whose terminal has focus — tmux's `focused` client flag,
//! which tmux clears when the terminal reports a focus-out (`focus-events on`) and sets
//! again at focus-in and whenever the client attaches or changes session.
//!
//! Pure: the output of `list-clients -F` with [`CLIENTS_FORMAT`] in, panes and clients
//! out.

/// The `list-clients -F` format [`clients`] reads: control mode, flags, last activity
/// (seconds), name, active pane (`%N`) of the client's current window.
pub const CLIENTS_FORMAT: &str =
    "#{client_control_mode}\t#{client_flags}\t#{client_activity}\t#{client_name}\t#{pane_id}";

/// One client of a tmux server, as [`CLIENTS_FORMAT`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Client {
    /// A control-mode client (Attend's own, or another program's): never a person looking.
    pub control: bool,
    /// Attached with `-f ignore-size` (`attend attach --watch`, the panel's terminal): a
    /// look that is not focus, and never the client `attend focus` switches.
    pub watcher: bool,
    /// Attached to a session.
    pub attached: bool,
    /// Its terminal has focus as far as tmux knows (`focused` flag).
    pub focused: bool,
    /// Its last activity (`client_activity`, seconds since the epoch).
    pub activity: u64,
    /// Its name (`client_name`: the tty path), for `switch-client -c`.
    pub name: String,
    /// The active pane of its current window (the `N` of `%N`).
    pub pane: Option<u32>,
}

/// The clients in `list-clients -F CLIENTS_FORMAT` output; malformed lines are skipped.
pub fn clients(listed: &str) -> Vec<Client> {
    listed
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            let [control, flags, activity, name, pane] = f.as_slice() else {
                return None;
            };
            let flags: Vec<&str> = flags.split(',').collect();
            Some(Client {
                control: *control == "1" || flags.contains(&"control-mode"),
                watcher: flags.contains(&"ignore-size"),
                attached: flags.contains(&"attached"),
                focused: flags.contains(&"focused"),
                activity: activity.parse().unwrap_or(0),
                name: name.to_string(),
                pane: pane.strip_prefix('%').and_then(|n| n.parse().ok()),
            })
        })
        .collect()
}

/// True when `c` is a person's client: attached, neither a control client nor a watcher.
fn persons(c: &Client) -> bool {
    c.attached && !c.control && !c.watcher
}

/// True when `c` is a person looking at its pane: a person's client, its terminal
/// focused.
fn looking(c: &Client) -> bool {
    persons(c) && c.focused
}

/// The panes (`N` of `%N`) a person is looking at, sorted, each once.
pub fn looked_at(clients: &[Client]) -> Vec<u32> {
    let mut panes: Vec<u32> = clients
        .iter()
        .filter(|c| looking(c))
        .filter_map(|c| c.pane)
        .collect();
    panes.sort_unstable();
    panes.dedup();
    panes
}

/// The client to show a pane in when the user asks (`attend focus`, a notification
/// click): the person's client (neither a control client nor a watcher) used last
/// (highest activity; by name on a tie). `None` when no person's client is attached.
pub fn user_client(clients: &[Client]) -> Option<&Client> {
    clients
        .iter()
        .filter(|c| persons(c))
        .max_by(|a, b| a.activity.cmp(&b.activity).then(b.name.cmp(&a.name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `list-clients` as tmux 3.3 printed it: a user's terminal on `%1`, one unfocused on
    /// `%4`, Attend's control client (whose session's active pane is `%2`).
    const LISTED: &str = "0\tattached,focused,UTF-8\t1796647063\t/dev/pts/4\t%1\n\
        0\tattached,UTF-8\t1796647070\t/dev/pts/7\t%4\n\
        1\tattached,focused,control-mode,ignore-size,pause-after=5\t1796647090\tclient-99\t%2\n\
        garbage\n";

    #[test]
    fn only_a_focused_person_looks_and_control_clients_never_do() {
        let c = clients(LISTED);
        assert_eq!(c.len(), 3);
        assert_eq!(looked_at(&c), vec![1]);
        assert!(looked_at(&clients("")).is_empty());
    }

    #[test]
    fn a_watcher_attached_with_ignore_size_neither_looks_nor_is_switched() {
        // The panel's terminal: a focused client on `%6`, used last, with `ignore-size`.
        let listed =
            format!("{LISTED}0\tattached,focused,ignore-size,UTF-8\t1796647099\t/dev/pts/9\t%6\n");
        let c = clients(&listed);
        assert!(c[3].watcher && !c[0].watcher);
        assert_eq!(looked_at(&c), vec![1]);
        assert_eq!(user_client(&c).map(|c| c.name.as_str()), Some("/dev/pts/7"));
    }

    #[test]
    fn the_user_client_is_the_one_used_last_never_a_control_client() {
        let c = clients(LISTED);
        assert_eq!(user_client(&c).map(|c| c.name.as_str()), Some("/dev/pts/7"));
        let only_control: Vec<Client> = c.into_iter().filter(|c| c.control).collect();
        assert_eq!(user_client(&only_control), None);
    }
}
