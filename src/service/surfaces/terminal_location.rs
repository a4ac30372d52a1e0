//! Where an external pane's agent runs, when its terminal can be told to show it
//! (`docs/desktop-surfaces.md`; tmux `TMUX_PANE`, kitty `KITTY_WINDOW_ID`, WezTerm `WEZTERM_PANE`, as seen in the
//! hook's environment), and the terminal's own CLI invocations that select it.
//!
//! The values come from hook contexts, so they are validated (ids are digits, tmux panes
//! `%N`) and only ever passed as argv elements, never through a shell.

use crate::model::PaneId;
use crate::system::launch::{run_bounded, Invocation};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

pub use attend_hook::TERMINAL_ENV;

/// How long one terminal CLI call may take.
const CALL_LIMIT: Duration = Duration::from_secs(3);

/// A pane inside a terminal multiplexer or terminal emulator with remote control.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TerminalLocation {
    /// tmux pane `%N`; `socket` from `TMUX` (`socket,pid,session`).
    Tmux {
        pane: String,
        socket: Option<String>,
    },
    /// kitty window id; `listen_on` from `KITTY_LISTEN_ON` (needed from outside kitty).
    Kitty {
        window: String,
        listen_on: Option<String>,
    },
    /// WezTerm pane id; `socket` from `WEZTERM_UNIX_SOCKET`.
    Wezterm {
        pane: String,
        socket: Option<String>,
    },
}

fn digits(s: &str) -> bool {
    !s.is_empty() && s.len() <= 12 && s.bytes().all(|b| b.is_ascii_digit())
}

fn non_empty(env: &BTreeMap<String, String>, key: &str) -> Option<String> {
    env.get(key)
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty() && !v.contains(['\n', '\0']))
}

impl TerminalLocation {
    /// The location named by a hook's terminal environment ([`TERMINAL_ENV`]). tmux wins
    /// (it runs inside the terminal emulator, so it is the nearer one), then WezTerm, then
    /// kitty. `None` when none is set or the ids are malformed.
    pub fn from_env(env: &BTreeMap<String, String>) -> Option<TerminalLocation> {
        if let Some(pane) = non_empty(env, "TMUX_PANE") {
            if pane.strip_prefix('%').is_some_and(digits) {
                let socket = non_empty(env, "TMUX")
                    .and_then(|t| t.split(',').next().map(str::to_string))
                    .filter(|s| s.starts_with('/'));
                return Some(TerminalLocation::Tmux { pane, socket });
            }
        }
        if let Some(pane) = non_empty(env, "WEZTERM_PANE").filter(|p| digits(p)) {
            let socket = non_empty(env, "WEZTERM_UNIX_SOCKET");
            return Some(TerminalLocation::Wezterm { pane, socket });
        }
        if let Some(window) = non_empty(env, "KITTY_WINDOW_ID").filter(|w| digits(w)) {
            let listen_on = non_empty(env, "KITTY_LISTEN_ON");
            return Some(TerminalLocation::Kitty { window, listen_on });
        }
        None
    }

    /// The terminal CLI calls that select the pane, in order (`tmux select-window -t %N`
    /// then `tmux select-pane -t %N`; `kitty @ focus-window --match id:N`; `wezterm cli
    /// activate-pane --pane-id N`).
    pub fn focus_calls(&self) -> Vec<Invocation> {
        match self {
            TerminalLocation::Tmux { pane, socket } => {
                let tmux = |verb: &str| {
                    let mut argv = vec!["tmux".to_string()];
                    if let Some(s) = socket {
                        argv.extend(["-S".to_string(), s.clone()]);
                    }
                    argv.extend([verb.to_string(), "-t".to_string(), pane.clone()]);
                    Invocation {
                        argv,
                        env: BTreeMap::new(),
                    }
                };
                vec![tmux("select-window"), tmux("select-pane")]
            }
            TerminalLocation::Kitty { window, listen_on } => {
                let mut argv = vec!["kitty".to_string(), "@".to_string()];
                if let Some(to) = listen_on {
                    argv.extend(["--to".to_string(), to.clone()]);
                }
                argv.extend([
                    "focus-window".to_string(),
                    "--match".to_string(),
                    format!("id:{window}"),
                ]);
                vec![Invocation {
                    argv,
                    env: BTreeMap::new(),
                }]
            }
            TerminalLocation::Wezterm { pane, socket } => {
                let mut inv = Invocation::new(&["wezterm", "cli", "activate-pane", "--pane-id"]);
                inv.argv.push(pane.clone());
                if let Some(s) = socket {
                    inv.env.insert("WEZTERM_UNIX_SOCKET".into(), s.clone());
                }
                vec![inv]
            }
        }
    }

    /// Runs [`TerminalLocation::focus_calls`] off the async threads; stops at the first
    /// failure. Errors name the call and why it failed.
    pub async fn focus(&self) -> Result<(), String> {
        for inv in self.focus_calls() {
            let shown = inv.argv.join(" ");
            let outcome = tokio::task::spawn_blocking(move || run_bounded(&inv, CALL_LIMIT))
                .await
                .map_err(|e| e.to_string())?;
            match outcome {
                Ok(true) => {}
                Ok(false) => return Err(format!("`{shown}` failed")),
                Err(e) => return Err(format!("`{shown}`: {e}")),
            }
        }
        Ok(())
    }
}

/// The terminal locations of external panes, as their latest hook reported them. Kept in
/// memory only: the next hook after a daemon restart reports it again.
#[derive(Debug, Clone, Default)]
pub struct TerminalRegistry(Arc<Mutex<HashMap<PaneId, TerminalLocation>>>);

impl TerminalRegistry {
    /// Records (or with `None` forgets) where `pane` runs.
    pub fn note(&self, pane: PaneId, location: Option<TerminalLocation>) {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match location {
            Some(l) => map.insert(pane, l),
            None => map.remove(&pane),
        };
    }

    /// Where `pane` runs, when known.
    pub fn get(&self, pane: PaneId) -> Option<TerminalLocation> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&pane)
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn tmux_panes_are_selected_through_their_socket() {
        let loc = TerminalLocation::from_env(&env(&[
            ("TMUX", "/tmp/tmux-1000/default,4242,0"),
            ("TMUX_PANE", "%3"),
            ("KITTY_WINDOW_ID", "7"),
        ]))
        .unwrap();
        let calls: Vec<Vec<String>> = loc.focus_calls().into_iter().map(|i| i.argv).collect();
        assert_eq!(
            calls,
            vec![
                vec![
                    "tmux",
                    "-S",
                    "/tmp/tmux-1000/default",
                    "select-window",
                    "-t",
                    "%3"
                ],
                vec![
                    "tmux",
                    "-S",
                    "/tmp/tmux-1000/default",
                    "select-pane",
                    "-t",
                    "%3"
                ],
            ]
        );
    }

    #[test]
    fn kitty_and_wezterm_use_their_remote_control() {
        let k = TerminalLocation::from_env(&env(&[
            ("KITTY_WINDOW_ID", "12"),
            ("KITTY_LISTEN_ON", "unix:/tmp/kitty-1"),
        ]))
        .unwrap();
        assert_eq!(
            k.focus_calls()[0].argv,
            [
                "kitty",
                "@",
                "--to",
                "unix:/tmp/kitty-1",
                "focus-window",
                "--match",
                "id:12"
            ]
        );
        let w = TerminalLocation::from_env(&env(&[
            ("WEZTERM_PANE", "5"),
            ("WEZTERM_UNIX_SOCKET", "/run/user/1000/wezterm/sock"),
        ]))
        .unwrap();
        let call = &w.focus_calls()[0];
        assert_eq!(
            call.argv,
            ["wezterm", "cli", "activate-pane", "--pane-id", "5"]
        );
        assert_eq!(
            call.env["WEZTERM_UNIX_SOCKET"],
            "/run/user/1000/wezterm/sock"
        );
    }

    #[test]
    fn malformed_ids_are_refused() {
        assert!(TerminalLocation::from_env(&env(&[("TMUX_PANE", "%3; rm -rf /")])).is_none());
        assert!(TerminalLocation::from_env(&env(&[("KITTY_WINDOW_ID", "-1")])).is_none());
        assert!(TerminalLocation::from_env(&env(&[("WEZTERM_PANE", "")])).is_none());
        assert!(TerminalLocation::from_env(&env(&[])).is_none());
    }

    #[test]
    fn the_registry_remembers_and_forgets() {
        let r = TerminalRegistry::default();
        let loc = TerminalLocation::Kitty {
            window: "1".into(),
            listen_on: None,
        };
        r.note(PaneId(2), Some(loc.clone()));
        assert_eq!(r.get(PaneId(2)), Some(loc));
        r.note(PaneId(2), None);
        assert_eq!(r.get(PaneId(2)), None);
    }
}
